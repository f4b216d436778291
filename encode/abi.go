package encode

import "github.com/kiln-jit/kiln/mir"

// The execution context: a block of memory that R15 points to in all
// compiled code. The runtime's ExecCtx struct mirrors this layout (its
// tests check every offset); the assembly trampolines use the same
// numbers.
const (
	CtxMemBase      = 0   // address of linear memory
	CtxMemLen       = 8   // bytes of linear memory
	CtxMemBound     = 16  // four bounds (mir.CtxMemBound1...8), 8 bytes each
	CtxStackLimit   = 48  // lowest stack pointer a frame may reach
	CtxBudget       = 56  // polls left before the next exit to Go
	CtxDepth        = 64  // active frames
	CtxMaxDepth     = 72  // frames allowed
	CtxFuncTable    = 80  // address of the entry-point table, one word per function
	CtxExitStub     = 88  // address of the shared exit stub
	CtxCounterTable = 96  // address of the instance's edge counters (see Options.CounterBase)
	CtxExitCode     = 104 // uint32: why compiled code stopped
	CtxExitArg      = 108 // uint32: trap kind, host import, runtime function
	CtxExitFunc     = 112 // uint32: function of the exit site
	CtxExitSite     = 116 // uint32: exit site within that function
	CtxCallFunc     = 120 // uint32: function of the last call site
	CtxCallSite     = 124 // uint32: last call site (for overflow in a prologue)
	CtxExitSP       = 128 // stack pointer of the suspended compiled code
	CtxGoSP         = 136 // goroutine stack pointer saved by the trampolines
	CtxGoBP         = 144 // goroutine frame pointer saved by the trampolines
	CtxJitSP        = 152 // where the next entry's stack starts
	CtxRegs         = 160 // 16 GPRs in encoding order, saved at exits
	CtxXRegs        = 288 // 16 XMM registers (low 64 bits), saved at exits
	CtxGlobals      = 416 // address of the instance's globals, 8 bytes each
	CtxTable        = 424 // address of the table's packed entries (mir.TableEntry), 8 bytes each
	CtxSize         = 432
)

// ctxFieldOffset maps the context fields mir code reads to offsets.
func ctxFieldOffset(f mir.CtxField) int32 {
	if f == mir.CtxMemBase {
		return CtxMemBase
	}
	if f == mir.CtxMemLen {
		return CtxMemLen
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
