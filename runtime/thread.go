package runtime

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Thread is where compiled code runs for one instance: an execution
// context, the instance's edge counters and a machine stack. It is not
// safe for concurrent use; nested entries from host functions (on the
// same goroutine) are fine when the caller saves and restores the
// context's state around them.
type Thread struct {
	// Ctx is the execution context, the memory R15 points to. It ends the
	// allocation that Counters begins, and it never moves.
	Ctx *ExecCtx
	// Counters are the edge counters compiled code increments, the words
	// just below the context: Counters[i] lies 8*(len(Counters)-i) bytes
	// below Ctx, so code reaches any counter with one instruction that
	// adds to the memory at a fixed negative displacement from R15 (see
	// encode.Options.CounterOffset). The slice is never reallocated.
	Counters []uint64
	stack    *stack
}

// ctxWords is the size of ExecCtx in 8-byte words.
const ctxWords = int(unsafe.Sizeof(ExecCtx{}) / 8)

// MaxCounters is the largest number of counter words a thread holds: the
// farthest counter must lie within a signed 32-bit displacement of the
// context.
const MaxCounters = (1<<31 - 1) / 8

// NewThread returns a thread with a stack of stackBytes, the exit stub
// installed at exitStub (see encode.ExitStub) and counters zeroed counter
// words below its context.
func NewThread(stackBytes int, exitStub uintptr, counters int) (*Thread, error) {
	if !Supported() {
		return nil, fmt.Errorf("kiln/runtime: compiled code is not supported on this platform")
	}
	if counters < 0 || counters > MaxCounters {
		return nil, fmt.Errorf("kiln/runtime: %d counters; a thread holds 0 to %d", counters, MaxCounters)
	}
	s, err := newStack(stackBytes)
	if err != nil {
		return nil, err
	}
	// One allocation of words: the counters, then the context, which holds
	// no Go pointers, so the memory may be typed as plain words.
	words := make([]uint64, counters+ctxWords)
	t := &Thread{Ctx: (*ExecCtx)(unsafe.Pointer(&words[counters])), Counters: words[:counters:counters], stack: s}
	t.Ctx.ExitStub = exitStub
	t.Ctx.StackLimit = s.limit
	t.Ctx.JitSP = s.top
	t.Ctx.OSRDepth = -1
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
func (t *Thread) Enter(fn uintptr) { jitCall(t.Ctx, fn) }

// Resume continues code that exited, with the registers in Ctx.Regs and
// Ctx.XRegs.
func (t *Thread) Resume() { jitResume(t.Ctx) }

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
