package runtime

// ExecCtx is the execution context compiled code reads and writes through
// R15. Its layout is fixed by package encode (abi.go); the tests check
// every offset. It holds no Go pointers: addresses are uintptr, and the
// objects they name are kept alive by the Thread and its owner. A
// Thread's context lives in the same allocation as its counters, right
// above them (Thread.Counters).
type ExecCtx struct {
	MemBase    uintptr
	MemLen     uint64
	MemBound   [4]uint64
	StackLimit uintptr
	Budget     int64
	Depth      int64
	MaxDepth   int64
	FuncTable  uintptr
	ExitStub   uintptr
	ExitCode   uint32
	ExitArg    uint32
	ExitFunc   uint32
	ExitSite   uint32
	CallFunc   uint32
	CallSite   uint32
	ExitSP     uintptr
	GoSP       uintptr
	GoBP       uintptr
	JitSP      uintptr
	Regs       [16]uint64
	XRegs      [16]uint64
	Globals    uintptr
	Table      uintptr
	// OSRDepth, OSREntry and OSRFrame ask the function entered at call
	// depth OSRDepth to continue an interpreter frame at its on-stack
	// replacement entry OSREntry (from 1), reading the frame's registers
	// from OSRFrame, 8 bytes each; OSRDepth is -1 when no entry is
	// asked for (see lower.Options.OSRHeaders).
	OSRDepth int64
	OSREntry uint64
	OSRFrame uintptr
}

// SavedState is the part of the context a nested entry (a host function
// calling back into compiled code while the outer call is suspended)
// overwrites; the caller saves it before and restores it after.
type SavedState struct {
	exitCode, exitArg, exitFunc, exitSite uint32
	callFunc, callSite                    uint32
	exitSP, jitSP                         uintptr
	regs, xregs                           [16]uint64
}

// Save returns the context's resumable state.
func (c *ExecCtx) Save() SavedState {
	return SavedState{c.ExitCode, c.ExitArg, c.ExitFunc, c.ExitSite, c.CallFunc, c.CallSite, c.ExitSP, c.JitSP, c.Regs, c.XRegs}
}

// Restore puts back a state returned by Save.
func (c *ExecCtx) Restore(s SavedState) {
	c.ExitCode, c.ExitArg, c.ExitFunc, c.ExitSite = s.exitCode, s.exitArg, s.exitFunc, s.exitSite
	c.CallFunc, c.CallSite = s.callFunc, s.callSite
	c.ExitSP, c.JitSP = s.exitSP, s.jitSP
	c.Regs, c.XRegs = s.regs, s.xregs
}
