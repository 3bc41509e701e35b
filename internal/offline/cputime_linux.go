package offline

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU runs f on a locked OS thread and returns the CPU time that
// thread spent, which, unlike wall time, other processes on a busy machine
// do not inflate. Work f hands to other goroutines (GC) is not counted.
func threadCPU(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadTime()
	f()
	return threadTime() - before
}

func threadTime() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
