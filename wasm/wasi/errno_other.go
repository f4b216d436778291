//go:build !unix

package wasi

import "syscall"

// fromSyscall leaves the host's errno to the fs.Err* mapping of errno on
// this platform.
func fromSyscall(syscall.Errno) (Errno, bool) { return 0, false }
