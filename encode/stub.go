package encode

import (
	"slices"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"

	"github.com/kiln-jit/kiln/mir"
)

// ExitStub returns the machine code of the shared exit stub. Compiled code
// calls it (through the context's CtxExitStub) after storing an exit code;
// the stub saves every general-purpose and XMM register in the context,
// records the stack pointer (which points at the call's return address,
// the resume point), switches back to the goroutine stack saved by the
// trampoline and returns to the trampoline's Go caller. Resuming restores
// the registers and the stack pointer and executes RET, which continues
// after the exit site's call.
func ExitStub() ([]byte, error) {
	a := getAssembler()
	defer putAssembler(a)
	for r := mir.RAX; r <= mir.R15; r++ {
		if r == mir.RSP || r == mir.CtxReg {
			continue
		}
		p := a.add(x86.AMOVQ)
		p.From, p.To = regOp(r), ctxOp(CtxRegs+8*int64(r))
	}
	for i := mir.Reg(0); i < 16; i++ {
		p := a.add(x86.AMOVSD)
		p.From, p.To = regOp(mir.X0+i), ctxOp(CtxXRegs+8*int64(i))
	}
	p := a.add(x86.AMOVQ)
	p.From, p.To = regOp(mir.RSP), ctxOp(CtxExitSP)
	p = a.add(x86.AMOVQ)
	p.From, p.To = ctxOp(CtxGoSP), regOp(mir.RSP)
	p = a.add(x86.AMOVQ)
	p.From, p.To = ctxOp(CtxGoBP), regOp(mir.RBP)
	a.add(obj.ARET)
	code, _, err := a.assemble()
	return slices.Clone(code), err
}
