#include "textflag.h"

// func used() uintptr
//
// The goroutine descriptor (register g) starts with its stack bounds, lo
// and hi; the result is hi minus the stack pointer (this frame has no
// locals).
TEXT ·used(SB), NOSPLIT, $0-8
	MOVD 8(g), R0
	MOVD RSP, R1
	SUB R1, R0, R0
	MOVD R0, ret+0(FP)
	RET
