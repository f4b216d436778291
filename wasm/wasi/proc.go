package wasi

import (
	"io"
	"runtime"
)

// putStrings writes strs NUL-terminated into buf and a pointer to each
// into the table at ptrs (args_get, environ_get).
func putStrings(m memory, strs []string, ptrs, buf uint64) Errno {
	size := uint64(0)
	for _, s := range strs {
		size += uint64(len(s)) + 1
	}
	tab, ok := m.bytes(ptrs, 4*uint64(len(strs)))
	if !ok {
		return ErrnoFault
	}
	dst, ok := m.bytes(buf, size)
	if !ok {
		return ErrnoFault
	}
	at := uint64(0)
	for i, s := range strs {
		memory(tab).putU32(uint64(4*i), uint32(buf+at))
		at += uint64(copy(dst[at:], s))
		dst[at] = 0
		at++
	}
	return ErrnoSuccess
}

// putSizes writes the count of strs and the size of their NUL-terminated
// bytes (args_sizes_get, environ_sizes_get).
func putSizes(m memory, strs []string, countPtr, sizePtr uint64) Errno {
	size := 0
	for _, s := range strs {
		size += len(s) + 1
	}
	if !m.putU32(countPtr, uint32(len(strs))) || !m.putU32(sizePtr, uint32(size)) {
		return ErrnoFault
	}
	return ErrnoSuccess
}

// args_get(argv, argv_buf)
func (s *System) argsGet(c *call, a []uint64) Errno { return putStrings(c.mem, s.args, a[0], a[1]) }

// args_sizes_get(argc_ptr, argv_buf_size_ptr)
func (s *System) argsSizesGet(c *call, a []uint64) Errno {
	return putSizes(c.mem, s.args, a[0], a[1])
}

// environ_get(environ, environ_buf)
func (s *System) environGet(c *call, a []uint64) Errno { return putStrings(c.mem, s.env, a[0], a[1]) }

// environ_sizes_get(environc_ptr, environ_buf_size_ptr)
func (s *System) environSizesGet(c *call, a []uint64) Errno {
	return putSizes(c.mem, s.env, a[0], a[1])
}

// The resolutions clock_res_get reports, in nanoseconds: the wall clock
// of most hosts ticks in microseconds, the monotonic clock of package
// time in nanoseconds.
const (
	resolutionRealtime  = 1000
	resolutionMonotonic = 1
)

// clock_res_get(id, resolution_ptr). The CPU-time clocks are not
// supported (ENOTSUP; an unknown clock is EINVAL): a kiln instance runs on
// goroutines of the embedding process, which has no clock of an
// instance's own CPU time, and the process's would count the embedder's
// work too.
func (s *System) clockResGet(c *call, a []uint64) Errno {
	var res uint64
	switch uint32(a[0]) {
	case clockRealtime:
		res = resolutionRealtime
	case clockMonotonic:
		res = resolutionMonotonic
	case clockProcessCputimeID, clockThreadCputimeID:
		return ErrnoNotsup
	default:
		return ErrnoInval
	}
	if !c.mem.putU64(a[1], res) {
		return ErrnoFault
	}
	return ErrnoSuccess
}

// now reads clock id in nanoseconds.
func (s *System) now(id uint32) (uint64, Errno) {
	switch id {
	case clockRealtime:
		return uint64(s.clock.Now().UnixNano()), ErrnoSuccess
	case clockMonotonic:
		return uint64(s.clock.Nanotime()), ErrnoSuccess
	case clockProcessCputimeID, clockThreadCputimeID:
		// Not supported: see clockResGet.
		return 0, ErrnoNotsup
	}
	return 0, ErrnoInval
}

// clock_time_get(id, precision, time_ptr); the precision is a hint.
func (s *System) clockTimeGet(c *call, a []uint64) Errno {
	t, e := s.now(uint32(a[0]))
	if e != ErrnoSuccess {
		return e
	}
	if !c.mem.putU64(a[2], t) {
		return ErrnoFault
	}
	return ErrnoSuccess
}

// random_get(buf, buf_len)
func (s *System) randomGet(c *call, a []uint64) Errno {
	b, ok := c.mem.bytes(a[0], uint64(uint32(a[1])))
	if !ok {
		return ErrnoFault
	}
	if _, err := io.ReadFull(s.random, b); err != nil {
		return ErrnoIo
	}
	return ErrnoSuccess
}

// proc_exit(rval) ends the program: the guest's call fails with an
// ExitError carrying rval, which RunStart turns back into a status. It
// never exits the host process.
func (s *System) procExit(c *call, a []uint64) Errno {
	c.err = &ExitError{Code: uint32(a[0])}
	return ErrnoSuccess
}

// proc_raise(sig) is not supported (ENOSYS): an instance has no signals
// or handlers to deliver one to, and a default action that terminates
// would be proc_exit, which the program can call itself.
func (s *System) procRaise(*call, []uint64) Errno { return ErrnoNosys }

// sched_yield() lets other goroutines run.
func (s *System) schedYield(*call, []uint64) Errno {
	runtime.Gosched()
	return ErrnoSuccess
}

// Preview 1 has no way to open a socket (sock_open is not part of it), and
// a System preopens none, so no descriptor is ever a socket: the socket
// functions fail with EBADF for a descriptor that is not open and with
// ENOTSOCK for any other.
func (s *System) notSocket(fd uint64) Errno {
	if _, e := s.get(fd); e != ErrnoSuccess {
		return e
	}
	return ErrnoNotsock
}

// sock_accept(fd, flags, fd_ptr)
func (s *System) sockAccept(_ *call, a []uint64) Errno { return s.notSocket(a[0]) }

// sock_recv(fd, ri_data, ri_data_len, ri_flags, ro_datalen_ptr, ro_flags_ptr)
func (s *System) sockRecv(_ *call, a []uint64) Errno { return s.notSocket(a[0]) }

// sock_send(fd, si_data, si_data_len, si_flags, so_datalen_ptr)
func (s *System) sockSend(_ *call, a []uint64) Errno { return s.notSocket(a[0]) }

// sock_shutdown(fd, how)
func (s *System) sockShutdown(_ *call, a []uint64) Errno { return s.notSocket(a[0]) }
