package gostack

import (
	"runtime"
	"testing"
)

// recurse calls itself n times with a frame of about 1 KiB and returns
// Used at the deepest level.
func recurse(n int) uintptr {
	var pad [1024]byte
	touch(&pad, n)
	if n == 0 {
		return Used()
	}
	deep := recurse(n - 1)
	touch(&pad, n) // the array lives across the call
	return deep
}

// touch writes to the frame's array, so that the compiler keeps it.
//
//go:noinline
func touch(pad *[1024]byte, n int) { pad[n%len(pad)] = byte(n) }

// TestUsedGrows checks that Used is plausible (more than zero, well below
// the ceiling at the top of a test) and that it grows by about a kibibyte
// per level of a recursion with 1 KiB frames, across the stack moves that
// growing to several mebibytes makes the runtime do.
func TestUsedGrows(t *testing.T) {
	if !Supported() {
		if Used() != 0 {
			t.Fatalf("Used = %d on a platform without support", Used())
		}
		t.Skip("Used is not measured on " + runtime.GOARCH)
	}
	top := Used()
	if top == 0 || top > 1<<20 {
		t.Fatalf("Used at a test's top = %d bytes", top)
	}
	tests := []int{10, 1000, 8000}
	for _, n := range tests {
		deep := recurse(n)
		per := float64(deep-top) / float64(n)
		t.Logf("%d levels: %d bytes (%.0f per level)", n, deep-top, per)
		if per < 1024 || per > 1400 {
			t.Errorf("%d levels of 1 KiB frames: %.0f bytes per level", n, per)
		}
	}
	// The stack shrinks back at a collection; the readings stay relative
	// to the stack's high end.
	runtime.GC()
	if got := Used(); got > top+256 || got+256 < top {
		t.Errorf("Used after the recursion and a collection = %d, at the start %d", got, top)
	}
}
