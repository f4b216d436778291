package wasi

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// errNotSupported is a host operation this platform does not have
// (ENOSYS).
var errNotSupported = errors.New("not supported on this platform")

// errno returns the WASI errno for a host error.
func errno(err error) Errno {
	if err == nil {
		return ErrnoSuccess
	}
	if escapes(err) {
		return ErrnoNotcapable
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		if e, ok := fromSyscall(en); ok {
			return e
		}
	}
	switch {
	case errors.Is(err, errNotSupported):
		return ErrnoNosys
	case errors.Is(err, fs.ErrNotExist):
		return ErrnoNoent
	case errors.Is(err, fs.ErrExist):
		return ErrnoExist
	case errors.Is(err, fs.ErrPermission):
		return ErrnoAcces
	case errors.Is(err, fs.ErrClosed):
		return ErrnoBadf
	case errors.Is(err, fs.ErrInvalid):
		return ErrnoInval
	case errors.Is(err, os.ErrDeadlineExceeded):
		return ErrnoTimedout
	case errors.Is(err, io.ErrShortWrite):
		return ErrnoIo
	}
	return ErrnoIo
}

// escapes reports whether err is os.Root refusing a path that leads out
// of it (through "..", or a symbolic link that points outside, or an
// absolute one). Package os does not export that error; its message is
// what identifies it.
func escapes(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return strings.Contains(err.Error(), "path escapes from parent")
}
