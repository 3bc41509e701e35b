//go:build !linux

package offline

import "time"

// threadCPU runs f; per-thread CPU time is measured on Linux only.
func threadCPU(f func()) time.Duration {
	f()
	return 0
}
