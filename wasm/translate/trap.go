package translate

import (
	"errors"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// TrapMessage returns the WebAssembly specification's message for a kiln
// trap kind ("integer divide by zero", "call stack exhausted"). Kinds that
// Wasm does not have (fuel, interruption, host errors) get kiln's own
// words.
func TrapMessage(k bc.TrapKind) string {
	switch k {
	case bc.TrapDivideByZero:
		return "integer divide by zero"
	case bc.TrapIntegerOverflow:
		return "integer overflow"
	case bc.TrapInvalidConversion:
		return "invalid conversion to integer"
	case bc.TrapOutOfBounds:
		return "out of bounds memory access"
	case bc.TrapStackOverflow:
		return "call stack exhausted"
	case bc.TrapUnreachable:
		return "unreachable"
	case bc.TrapUndefinedElement:
		return "undefined element"
	case bc.TrapUninitializedElement:
		return "uninitialized element"
	case bc.TrapIndirectCallTypeMismatch:
		return "indirect call type mismatch"
	case bc.TrapTableOutOfBounds:
		return "out of bounds table access"
	}
	return k.String()
}

// TrapOf finds the trap behind err: the innermost one when calls nested
// through host functions (a call from one instance into another traps in
// the callee). ok is false when err holds no trap.
func TrapOf(err error) (trap *bc.Trap, ok bool) {
	var t *bc.Trap
	if !errors.As(err, &t) {
		return nil, false
	}
	inner, _ := t.Innermost()
	return inner, true
}

// SourceOffset returns the byte offset in the Wasm module of the
// instruction a trap stopped at, when the trap is in a function of m.
func (m *Module) SourceOffset(t *bc.Trap) (int, bool) {
	if int(t.Func) >= len(m.SourceMap) {
		return 0, false
	}
	src := m.SourceMap[t.Func]
	if t.Offset < 0 || t.Offset >= len(src) {
		return 0, false
	}
	return int(src[t.Offset]), true
}
