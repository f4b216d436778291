package bytecode

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// TrapKind says why execution stopped abnormally.
type TrapKind uint8

// The trap kinds. Every tier reports the same kind at the same bytecode
// offset for the same program and inputs.
const (
	TrapNone                     TrapKind = iota
	TrapDivideByZero                      // integer division or remainder by zero
	TrapIntegerOverflow                   // INT64_MIN / -1, or a trapping float->int conversion out of range
	TrapInvalidConversion                 // trapping float->int conversion of NaN
	TrapOutOfBounds                       // memory access outside linear memory
	TrapStackOverflow                     // call depth or stack limit exceeded
	TrapExplicit                          // the trap instruction; Trap.Code holds its code
	TrapInterrupted                       // the call's context was cancelled or timed out
	TrapFuelExhausted                     // the call used up its fuel budget
	TrapHostError                         // a host function returned an error
	TrapHostPanic                         // a host function panicked; Trap.Cause holds what the embedding recovered
	TrapUnreachable                       // the unreachable instruction
	TrapUndefinedElement                  // call_indirect with a table index at or beyond the table's size
	TrapUninitializedElement              // call_indirect through a null table entry
	TrapIndirectCallTypeMismatch          // call_indirect of a function whose signature differs from the instruction's
	TrapTableOutOfBounds                  // a table instruction's range outside the table or the element segment
	TrapInvalidReference                  // a value that is not a function reference stored into a table of them
	numTrapKinds
)

var trapNames = [numTrapKinds]string{
	TrapNone:              "no trap",
	TrapDivideByZero:      "integer divide by zero",
	TrapIntegerOverflow:   "integer overflow",
	TrapInvalidConversion: "invalid conversion to integer",
	TrapOutOfBounds:       "out of bounds memory access",
	TrapStackOverflow:     "stack overflow",
	TrapExplicit:          "explicit trap",
	TrapInterrupted:       "interrupted",
	TrapFuelExhausted:     "fuel exhausted",
	TrapHostError:         "host function failed",
	TrapHostPanic:         "host function panicked",

	TrapUnreachable:              "unreachable executed",
	TrapUndefinedElement:         "undefined element",
	TrapUninitializedElement:     "uninitialized element",
	TrapIndirectCallTypeMismatch: "indirect call type mismatch",
	TrapTableOutOfBounds:         "out of bounds table access",
	TrapInvalidReference:         "invalid function reference",
}

// Valid reports whether k is a trap kind (TrapNone is not).
func (k TrapKind) Valid() bool { return k > TrapNone && k < numTrapKinds }

// String describes the trap kind in words.
func (k TrapKind) String() string {
	if k < numTrapKinds {
		return trapNames[k]
	}
	return fmt.Sprintf("trap kind %d", uint8(k))
}

// Trap is the error a call returns when execution traps. It names the
// function and the bytecode offset (instruction index) of the instruction
// that trapped.
//
// A host function that calls back into the guest and returns the error of
// that nested call makes a chain: the outer trap (TrapHostError at the
// outer call_host) has the nested call's trap in its Cause, which may in
// turn wrap the trap of a call nested deeper. Innermost finds the end of
// such a chain, and Error names the outermost and the innermost trap and
// the nesting depth instead of repeating every level. errors.Is and
// errors.As see the whole chain.
type Trap struct {
	Kind     TrapKind
	Func     uint32 // index of the function in its module
	FuncName string
	Offset   int   // index of the trapping instruction in the function's code
	Code     int64 // the code of an explicit trap instruction
	// Cause is the underlying error of TrapInterrupted (the context's
	// error), TrapHostError (the host function's error) and TrapHostPanic
	// (the embedding's description of the panic, such as a
	// *jit.HostPanicError).
	Cause error
}

// Error formats the trap as "trap: KIND in FUNC at instruction N", followed
// by ": CAUSE" when it has a cause. When the cause wraps the trap of a
// nested call, the text is "trap: KIND in FUNC at instruction N: through D
// nested calls: " followed by the innermost trap's own text (see
// Innermost): the levels in between, and any text host functions added
// around the nested errors, are left out, so the message stays short
// however deep the calls nested.
func (t *Trap) Error() string {
	var b strings.Builder
	t.writeHeader(&b)
	inner, depth := t.Innermost()
	if depth > 0 {
		b.WriteString(": through ")
		b.WriteString(strconv.Itoa(depth))
		if depth == 1 {
			b.WriteString(" nested call: ")
		} else {
			b.WriteString(" nested calls: ")
		}
		inner.writeHeader(&b)
	}
	if inner.Cause != nil {
		b.WriteString(": ")
		b.WriteString(inner.Cause.Error())
	}
	return b.String()
}

// writeHeader writes the trap's text without its cause.
func (t *Trap) writeHeader(b *strings.Builder) {
	if t.Kind == TrapExplicit {
		fmt.Fprintf(b, "trap: explicit trap %d in %s at instruction %d", t.Code, t.FuncName, t.Offset)
		return
	}
	fmt.Fprintf(b, "trap: %s in %s at instruction %d", t.Kind, t.FuncName, t.Offset)
}

// Innermost follows t's cause through the traps of nested calls (found
// with errors.As, so through whatever errors wrap them) and returns the
// innermost trap with the number of nested traps between t and it: t and
// 0 when t's cause wraps no trap.
func (t *Trap) Innermost() (*Trap, int) {
	cur, depth := t, 0
	for cur.Cause != nil {
		var next *Trap
		if !errors.As(cur.Cause, &next) || next == nil || next == cur {
			break
		}
		cur = next
		depth++
	}
	return cur, depth
}

// Unwrap returns the trap's cause, so that errors.Is(err, context.Canceled)
// works on an interrupted call.
func (t *Trap) Unwrap() error { return t.Cause }
