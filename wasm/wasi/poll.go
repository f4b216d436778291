package wasi

import (
	"io"
	"math"
	"time"
)

// pollEvent is one event poll_oneoff reports.
type pollEvent struct {
	userdata uint64
	errno    Errno
	typ      uint8
	nbytes   uint64
}

// pollClock is a clock subscription: when it fires, in nanoseconds from
// now.
type pollClock struct {
	userdata uint64
	wait     int64
}

// poll_oneoff(in, out, nsubscriptions, nevents_ptr) waits for the
// subscriptions. A clock subscription fires at its timeout (relative, or
// absolute on its clock); the earliest is waited for with Config.Clock's
// Sleep. A read or write subscription on a descriptor is ready at once:
// standard input and output and host files never make a program wait
// here (a read may then block in fd_read), and nbytes is what a file has
// left to read, or 0 when that is not known. When anything is ready, the
// clocks that have not yet fired are not waited for.
func (s *System) pollOneoff(c *call, a []uint64) Errno {
	n := uint64(uint32(a[2]))
	if n == 0 {
		return ErrnoInval
	}
	subs, ok := c.mem.bytes(a[0], n*sizeSubscription)
	if !ok {
		return ErrnoFault
	}
	out, ok := c.mem.bytes(a[1], n*sizeEvent)
	if _, ok2 := c.mem.bytes(a[3], 4); !ok || !ok2 {
		return ErrnoFault
	}
	var ready []pollEvent
	var clocks []pollClock
	for i := range n {
		sub := memory(subs[i*sizeSubscription : (i+1)*sizeSubscription])
		userdata, _ := sub.u64(0)
		switch tag := sub[8]; tag {
		case eventClock:
			id, _ := sub.u32(16)
			timeout, _ := sub.u64(24)
			flags, _ := sub.u16(40)
			wait := int64(min(timeout, math.MaxInt64))
			if flags&subclockAbstime != 0 {
				now, e := s.now(id)
				if e != ErrnoSuccess {
					ready = append(ready, pollEvent{userdata: userdata, errno: e, typ: eventClock})
					continue
				}
				if timeout <= now {
					wait = 0
				} else {
					wait = int64(min(timeout-now, math.MaxInt64))
				}
			} else if _, e := s.now(id); e != ErrnoSuccess {
				ready = append(ready, pollEvent{userdata: userdata, errno: e, typ: eventClock})
				continue
			}
			clocks = append(clocks, pollClock{userdata: userdata, wait: wait})
		case eventFdRead, eventFdWrite:
			fd, _ := sub.u32(16)
			ready = append(ready, s.pollFd(uint64(fd), userdata, tag))
		default:
			return ErrnoInval
		}
	}
	if len(ready) == 0 {
		// Only clocks: wait for the earliest.
		first := clocks[0].wait
		for _, cl := range clocks[1:] {
			first = min(first, cl.wait)
		}
		if err := s.clock.Sleep(c.c.Context(), time.Duration(first)); err != nil {
			c.err = err
			return ErrnoSuccess
		}
		for _, cl := range clocks {
			if cl.wait <= first {
				ready = append(ready, pollEvent{userdata: cl.userdata, typ: eventClock})
			}
		}
	} else {
		for _, cl := range clocks {
			if cl.wait <= 0 {
				ready = append(ready, pollEvent{userdata: cl.userdata, typ: eventClock})
			}
		}
	}
	clear(out)
	for i, ev := range ready {
		b := memory(out[i*sizeEvent : (i+1)*sizeEvent])
		b.putU64(0, ev.userdata)
		b[8], b[9] = byte(ev.errno), byte(ev.errno>>8)
		b[10] = ev.typ
		b.putU64(16, ev.nbytes)
	}
	c.mem.putU32(a[3], uint32(len(ready)))
	return ErrnoSuccess
}

// pollFd is the event of a read or write subscription on fd.
func (s *System) pollFd(fd, userdata uint64, typ uint8) pollEvent {
	ev := pollEvent{userdata: userdata, typ: typ}
	f, e := s.getRight(fd, rightPollFdReadwrite)
	switch {
	case e != ErrnoSuccess:
		ev.errno = e
	case f.kind == kindDir:
		ev.errno = ErrnoIsdir
	case typ == eventFdRead && f.base&rightFdRead == 0, typ == eventFdWrite && f.base&rightFdWrite == 0:
		ev.errno = ErrnoBadf
	case f.kind == kindFile && typ == eventFdRead:
		if fi, err := f.f.Stat(); err == nil {
			if pos, err := f.f.Seek(0, io.SeekCurrent); err == nil && fi.Size() > pos {
				ev.nbytes = uint64(fi.Size() - pos)
			}
		}
	}
	return ev
}
