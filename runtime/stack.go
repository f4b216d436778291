package runtime

import (
	"fmt"
	goruntime "runtime"
	"unsafe"
)

// StackMargin is the room kept between the stack limit compiled code
// checks and the guard page: enough for the exit stub's call and a
// trampoline's call.
const StackMargin = 16 << 10

// stack is a thread's machine stack: an mmap'd region with a PROT_NONE
// guard page at its low end. Compiled code checks the limit itself (a
// fault on the guard page would be fatal to the process), so the guard
// only turns a bug into a crash instead of corruption.
type stack struct {
	mem   []byte
	top   uintptr // 16-byte aligned end
	limit uintptr // lowest address a frame may use
}

func newStack(size int) (*stack, error) {
	ps := pageSize()
	size = (size + ps - 1) / ps * ps
	if size < 2*StackMargin {
		return nil, fmt.Errorf("kiln/runtime: stack of %d bytes is too small", size)
	}
	mem, err := mapRW(size + ps)
	if err != nil {
		return nil, err
	}
	if err := guard(mem[:ps]); err != nil {
		unmap(mem)
		return nil, err
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	s := &stack{mem: mem, top: (base + uintptr(len(mem))) &^ 15, limit: base + uintptr(ps) + StackMargin}
	goruntime.AddCleanup(s, unmap, mem)
	return s, nil
}
