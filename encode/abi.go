package encode

import "github.com/kiln-jit/kiln/mir"

// The execution context: a block of memory that R15 points to in all
// compiled code. The runtime's ExecCtx struct mirrors this layout (its
// tests check every offset); the assembly trampolines use the same
// numbers. The instance's edge counters lie just below the context, at
// negative displacements from R15 (Options.CounterOffset), so that
// counting an edge is one add to memory.
const (
	CtxMemBase    = 0   // address of linear memory
	CtxMemLen     = 8   // bytes of linear memory
	CtxMemBound   = 16  // four bounds (mir.CtxMemBound1...8), 8 bytes each
	CtxStackLimit = 48  // lowest stack pointer a frame may reach
	CtxBudget     = 56  // polls left before the next exit to Go
	CtxDepth      = 64  // active frames
	CtxMaxDepth   = 72  // frames allowed
	CtxFuncTable  = 80  // address of the entry-point table, one word per function
	CtxExitStub   = 88  // address of the shared exit stub
	CtxExitCode   = 96  // uint32: why compiled code stopped
	CtxExitArg    = 100 // uint32: trap kind, host import, runtime function
	CtxExitFunc   = 104 // uint32: function of the exit site
	CtxExitSite   = 108 // uint32: exit site within that function
	CtxCallFunc   = 112 // uint32: function of the last call site
	CtxCallSite   = 116 // uint32: last call site (for overflow in a prologue)
	CtxExitSP     = 120 // stack pointer of the suspended compiled code
	CtxGoSP       = 128 // goroutine stack pointer saved by the trampolines
	CtxGoBP       = 136 // goroutine frame pointer saved by the trampolines
	CtxJitSP      = 144 // where the next entry's stack starts
	CtxRegs       = 152 // 16 GPRs in encoding order, saved at exits
	CtxXRegs      = 280 // 16 XMM registers (low 64 bits), saved at exits
	CtxGlobals    = 408 // address of the instance's globals, 8 bytes each
	CtxTable      = 416 // address of the table's packed entries (mir.TableEntry), 8 bytes each
	CtxOSRDepth   = 424 // depth of the frame asked to enter at an on-stack-replacement entry, or -1
	CtxOSREntry   = 432 // that entry, from 1
	CtxOSRFrame   = 440 // address of the interpreter frame's registers, 8 bytes each
	CtxSize       = 448
)

// ctxFieldOffset maps the context fields mir code reads to offsets.
func ctxFieldOffset(f mir.CtxField) int32 {
	switch f {
	case mir.CtxMemBase:
		return CtxMemBase
	case mir.CtxMemLen:
		return CtxMemLen
	case mir.CtxDepth:
		return CtxDepth
	case mir.CtxOSRDepth:
		return CtxOSRDepth
	case mir.CtxOSREntry:
		return CtxOSREntry
	case mir.CtxOSRFrame:
		return CtxOSRFrame
	}
	return CtxMemBound + 8*int32(f-mir.CtxMemBound1)
}

// Exit codes: why compiled code returned to Go.
const (
	ExitDone             = 0 // the called function returned
	ExitTrap             = 1 // ExitArg is the trap kind; the site gives the offset
	ExitHost             = 2 // call host import ExitArg, then resume
	ExitRuntime          = 3 // call runtime function ExitArg, then resume
	ExitPoll             = 4 // the poll budget ran out: check for cancellation, fuel, preemption, then resume
	ExitPrologueOverflow = 5 // a prologue found no room for its frame; CallFunc/CallSite name the call
)

// Site describes an exit site of a compiled function: where it traps,
// calls out or polls.
type Site struct {
	Pos  int32 // bytecode offset
	Code int64 // the code of an explicit trap
}
