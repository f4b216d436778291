//go:build amd64 && linux

#include "textflag.h"

// Offsets into ExecCtx; they must match encode/abi.go (checked by tests).
#define CTX_EXITCODE 96
#define CTX_EXITSP 120
#define CTX_GOSP 128
#define CTX_GOBP 136
#define CTX_JITSP 144
#define CTX_REGS 152
#define CTX_XREGS 280

// func jitCall(ctx *ExecCtx, fn uintptr)
//
// Switches to the context's stack (at JitSP), loads the argument registers
// of kiln's calling convention from the context and calls fn. When fn
// returns, the result registers are stored in the context, ExitCode is set
// to 0 and the goroutine stack is restored. When the code exits through
// the exit stub instead, the stub restores the goroutine stack and returns
// to our caller directly.
TEXT ·jitCall(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ ctx+0(FP), R15
	MOVQ fn+8(FP), R11
	MOVQ SP, CTX_GOSP(R15)
	MOVQ BP, CTX_GOBP(R15)
	MOVQ CTX_JITSP(R15), SP
	MOVQ (CTX_REGS+7*8)(R15), DI
	MOVQ (CTX_REGS+6*8)(R15), SI
	MOVQ (CTX_REGS+2*8)(R15), DX
	MOVQ (CTX_REGS+1*8)(R15), CX
	MOVQ (CTX_REGS+8*8)(R15), R8
	MOVQ (CTX_REGS+9*8)(R15), R9
	MOVSD (CTX_XREGS+0*8)(R15), X0
	MOVSD (CTX_XREGS+1*8)(R15), X1
	MOVSD (CTX_XREGS+2*8)(R15), X2
	MOVSD (CTX_XREGS+3*8)(R15), X3
	MOVSD (CTX_XREGS+4*8)(R15), X4
	MOVSD (CTX_XREGS+5*8)(R15), X5
	MOVSD (CTX_XREGS+6*8)(R15), X6
	MOVSD (CTX_XREGS+7*8)(R15), X7
	CALL R11
	MOVQ AX, (CTX_REGS+0*8)(R15)
	MOVQ DX, (CTX_REGS+2*8)(R15)
	MOVSD X0, (CTX_XREGS+0*8)(R15)
	MOVSD X1, (CTX_XREGS+1*8)(R15)
	MOVL $0, CTX_EXITCODE(R15)
	MOVQ CTX_GOSP(R15), SP
	MOVQ CTX_GOBP(R15), BP
	RET

// func jitResume(ctx *ExecCtx)
//
// Continues compiled code suspended by the exit stub: restores every
// register from the context and returns from the exit site's call on the
// context's stack.
TEXT ·jitResume(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ ctx+0(FP), R15
	MOVQ SP, CTX_GOSP(R15)
	MOVQ BP, CTX_GOBP(R15)
	MOVQ CTX_EXITSP(R15), SP
	MOVQ (CTX_REGS+0*8)(R15), AX
	MOVQ (CTX_REGS+1*8)(R15), CX
	MOVQ (CTX_REGS+2*8)(R15), DX
	MOVQ (CTX_REGS+3*8)(R15), BX
	MOVQ (CTX_REGS+5*8)(R15), BP
	MOVQ (CTX_REGS+6*8)(R15), SI
	MOVQ (CTX_REGS+7*8)(R15), DI
	MOVQ (CTX_REGS+8*8)(R15), R8
	MOVQ (CTX_REGS+9*8)(R15), R9
	MOVQ (CTX_REGS+10*8)(R15), R10
	MOVQ (CTX_REGS+11*8)(R15), R11
	MOVQ (CTX_REGS+12*8)(R15), R12
	MOVQ (CTX_REGS+13*8)(R15), R13
	MOVQ (CTX_REGS+14*8)(R15), R14
	MOVSD (CTX_XREGS+0*8)(R15), X0
	MOVSD (CTX_XREGS+1*8)(R15), X1
	MOVSD (CTX_XREGS+2*8)(R15), X2
	MOVSD (CTX_XREGS+3*8)(R15), X3
	MOVSD (CTX_XREGS+4*8)(R15), X4
	MOVSD (CTX_XREGS+5*8)(R15), X5
	MOVSD (CTX_XREGS+6*8)(R15), X6
	MOVSD (CTX_XREGS+7*8)(R15), X7
	MOVSD (CTX_XREGS+8*8)(R15), X8
	MOVSD (CTX_XREGS+9*8)(R15), X9
	MOVSD (CTX_XREGS+10*8)(R15), X10
	MOVSD (CTX_XREGS+11*8)(R15), X11
	MOVSD (CTX_XREGS+12*8)(R15), X12
	MOVSD (CTX_XREGS+13*8)(R15), X13
	MOVSD (CTX_XREGS+14*8)(R15), X14
	MOVSD (CTX_XREGS+15*8)(R15), X15
	RET
