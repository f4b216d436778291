package bytecode

import "fmt"

// TrapKind says why execution stopped abnormally.
type TrapKind uint8

// The trap kinds. Every tier reports the same kind at the same bytecode
// offset for the same program and inputs.
const (
	TrapNone              TrapKind = iota
	TrapDivideByZero               // integer division or remainder by zero
	TrapIntegerOverflow            // INT64_MIN / -1, or a trapping float->int conversion out of range
	TrapInvalidConversion          // trapping float->int conversion of NaN
	TrapOutOfBounds                // memory access outside linear memory
	TrapStackOverflow              // call depth or stack limit exceeded
	TrapExplicit                   // the trap instruction; Trap.Code holds its code
	TrapInterrupted                // the call's context was cancelled or timed out
	TrapFuelExhausted              // the call used up its fuel budget
	TrapHostError                  // a host function returned an error
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
}

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
type Trap struct {
	Kind     TrapKind
	Func     uint32 // index of the function in its module
	FuncName string
	Offset   int   // index of the trapping instruction in the function's code
	Code     int64 // the code of an explicit trap instruction
	// Cause is the underlying error of TrapInterrupted (the context's error)
	// and TrapHostError (the host function's error).
	Cause error
}

// Error formats the trap as "trap: KIND in FUNC at instruction N".
func (t *Trap) Error() string {
	msg := fmt.Sprintf("trap: %s in %s at instruction %d", t.Kind, t.FuncName, t.Offset)
	if t.Kind == TrapExplicit {
		msg = fmt.Sprintf("trap: explicit trap %d in %s at instruction %d", t.Code, t.FuncName, t.Offset)
	}
	if t.Cause != nil {
		msg += ": " + t.Cause.Error()
	}
	return msg
}

// Unwrap returns the trap's cause, so that errors.Is(err, context.Canceled)
// works on an interrupted call.
func (t *Trap) Unwrap() error { return t.Cause }
