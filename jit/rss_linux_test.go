package jit

import (
	"fmt"
	"os"
	"syscall"
)

// peakRSS returns the peak resident memory of the process that ended with
// state ps.
func peakRSS(ps *os.ProcessState) string {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return fmt.Sprintf("%d MB", ru.Maxrss>>10)
	}
	return "unknown"
}
