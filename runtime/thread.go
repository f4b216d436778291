package runtime

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Thread is where compiled code runs for one instance: an execution
// context and a machine stack. It is not safe for concurrent use; nested
// entries from host functions (on the same goroutine) are fine when the
// caller saves and restores the context's state around them.
type Thread struct {
	Ctx   ExecCtx
	stack *stack
}

// NewThread returns a thread with a stack of stackBytes and the exit stub
// installed at exitStub (see encode.ExitStub).
func NewThread(stackBytes int, exitStub uintptr) (*Thread, error) {
	if !Supported() {
		return nil, fmt.Errorf("kiln/runtime: compiled code is not supported on this platform")
	}
	s, err := newStack(stackBytes)
	if err != nil {
		return nil, err
	}
	t := &Thread{stack: s}
	t.Ctx.ExitStub = exitStub
	t.Ctx.StackLimit = s.limit
	t.Ctx.JitSP = s.top
	return t, nil
}

// StackTop returns the highest address of the stack (16-byte aligned),
// where an outermost entry starts.
func (t *Thread) StackTop() uintptr { return t.stack.top }

// Enter calls the compiled code at fn on the thread's stack, starting at
// Ctx.JitSP (which must be 16-byte aligned; incoming stack arguments sit
// at JitSP, JitSP+8, ...), with the argument registers taken from
// Ctx.Regs and Ctx.XRegs. It returns when the code returns (Ctx.ExitCode
// 0, results in Ctx.Regs and Ctx.XRegs) or exits.
func (t *Thread) Enter(fn uintptr) { jitCall(&t.Ctx, fn) }

// Resume continues code that exited, with the registers in Ctx.Regs and
// Ctx.XRegs.
func (t *Thread) Resume() { jitResume(&t.Ctx) }

// stackOffset returns the offset in the stack mapping of the 8 bytes at
// addr, or false when they are not in the stack.
func (t *Thread) stackOffset(addr uintptr) (uintptr, bool) {
	base := uintptr(unsafe.Pointer(&t.stack.mem[0]))
	if addr < base || addr+8 > base+uintptr(len(t.stack.mem)) {
		return 0, false
	}
	return addr - base, true
}

// Load reads the word at addr on the thread's stack (stack arguments and
// results).
func (t *Thread) Load(addr uintptr) (uint64, error) {
	off, ok := t.stackOffset(addr)
	if !ok {
		return 0, fmt.Errorf("kiln/runtime: stack read at %#x outside the stack", addr)
	}
	return binary.LittleEndian.Uint64(t.stack.mem[off:]), nil
}

// Store writes the word at addr on the thread's stack.
func (t *Thread) Store(addr uintptr, v uint64) error {
	off, ok := t.stackOffset(addr)
	if !ok {
		return fmt.Errorf("kiln/runtime: stack write at %#x outside the stack", addr)
	}
	binary.LittleEndian.PutUint64(t.stack.mem[off:], v)
	return nil
}
