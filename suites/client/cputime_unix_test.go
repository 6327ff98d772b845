//go:build unix

package client_test

import "syscall"

// processCPU returns the CPU time the process has used so far (user and
// system, every thread), in nanoseconds.
func processCPU() int64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}
