package sched

import "unsafe"

// slab hands out zeroed slices carved from one large array, so that an
// analysis that builds many arrays allocates a few times instead of once
// per array, and none at all when its slab is kept for the next analysis
// (reset). A slice taken has its own capacity: appending to it never
// writes into the next one. Slices taken before a reset must no longer be
// used after it.
type slab[T any] struct{ buf []T }

// take returns a zeroed slice of length and capacity n.
func (s *slab[T]) take(n int) []T {
	if cap(s.buf)-len(s.buf) < n {
		// A new array; the slices taken from the old one stay valid.
		s.buf = make([]T, 0, max(2*cap(s.buf), n, 256))
	}
	l := len(s.buf)
	s.buf = s.buf[:l+n]
	out := s.buf[l : l+n : l+n]
	clear(out)
	return out
}

// clone returns a copy of x taken from the slab.
func (s *slab[T]) clone(x []T) []T {
	out := s.take(len(x))
	copy(out, x)
	return out
}

// reset makes the slab's whole array available again.
func (s *slab[T]) reset() { s.buf = s.buf[:0] }

// bytes returns the size in bytes of the slab's array.
func (s *slab[T]) bytes() int {
	var x T
	return cap(s.buf) * int(unsafe.Sizeof(x))
}
