//go:build linux

package jit

import (
	"os"

	"golang.org/x/sys/unix"
)

// monotonicNanos returns CLOCK_MONOTONIC in nanoseconds, the clock perf
// record -k mono uses.
func monotonicNanos() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

func threadID() int { return unix.Gettid() }

// mapForPerf maps the first page of the jitdump file executable: perf
// record sees the mapping and so finds the file.
func mapForPerf(f *os.File) error {
	_, err := unix.Mmap(int(f.Fd()), 0, unix.Getpagesize(), unix.PROT_READ|unix.PROT_EXEC, unix.MAP_PRIVATE)
	return err
}
