//go:build !linux

package offline

import "time"

// processCPU is measured on Linux only.
func processCPU() time.Duration { return 0 }
