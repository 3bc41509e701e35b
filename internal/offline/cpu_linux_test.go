package offline

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is the CPU time the whole test process has used (every
// thread, the garbage collector's included); benchmarks report its growth
// per op as cpu-ns/op, which a busy machine inflates less than wall time.
func processCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
