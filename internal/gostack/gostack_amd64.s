#include "textflag.h"

// func used() uintptr
//
// The goroutine descriptor starts with its stack bounds, lo and hi; the
// result is hi minus the caller's stack pointer: the address of the
// result word, just above the return address.
TEXT ·used(SB), NOSPLIT, $0-8
	MOVQ (TLS), AX
	MOVQ 8(AX), AX
	LEAQ ret+0(FP), CX
	SUBQ CX, AX
	MOVQ AX, ret+0(FP)
	RET
