// Package testprogs holds the programs and cases every kiln tier is tested
// on: a table of single-instruction semantic cases (edge cases included),
// hand-written programs with inputs and expected outputs, and the benchmark
// kernels with native Go equivalents. Tests of the interpreter, the IR
// interpreter and the compiled tiers all run the same cases.
package testprogs

import (
	"fmt"
	"math"

	"github.com/kiln-jit/kiln/bytecode"
)

// Case is one call with its expected outcome.
type Case struct {
	Name   string
	Module *bytecode.Module
	Func   string   // exported function to call
	Args   []uint64 // f64 arguments as bits
	// Want holds the expected results (f64 as bits) when Trap is TrapNone.
	Want []uint64
	// Trap is the expected trap kind, and TrapOffset the offset of the
	// trapping instruction in function TrapFunc (default: Func).
	Trap       bytecode.TrapKind
	TrapFunc   string
	TrapOffset int
	// Memory, when non-nil, maps offsets to the bytes expected there after
	// the call.
	Memory map[uint32][]byte
	// WantNaN, when non-nil, says which results must be NaNs of a kind
	// (the WebAssembly specification's nan:canonical and nan:arithmetic)
	// instead of equal to Want.
	WantNaN []NaNKind
}

// ResultTypes returns the types of the called function's results.
func (c *Case) ResultTypes() []bytecode.Type {
	return c.Module.Funcs[c.Module.ExportedFunc(c.Func)].Sig.Results
}

// Check compares results (or the error) of running the case with what it
// expects: an expected NaN of a hand-written case accepts any NaN, and a
// specification case's NaN must be of the kind WantNaN names. mem is the
// instance memory after the call (may be nil when the case checks no
// memory).
func (c *Case) Check(got []uint64, err error, mem []byte) error {
	if c.Trap != bytecode.TrapNone {
		t, ok := err.(*bytecode.Trap)
		if !ok {
			return fmt.Errorf("got results %v, error %v; want trap %q", got, err, c.Trap)
		}
		wantFunc := c.TrapFunc
		if wantFunc == "" {
			wantFunc = c.Func
		}
		if t.Kind != c.Trap || t.Offset != c.TrapOffset || t.FuncName != wantFunc {
			return fmt.Errorf("got trap %q in %s at %d; want %q in %s at %d", t.Kind, t.FuncName, t.Offset, c.Trap, wantFunc, c.TrapOffset)
		}
	} else {
		if err != nil {
			return fmt.Errorf("unexpected error: %w", err)
		}
		types := c.ResultTypes()
		if len(got) != len(c.Want) {
			return fmt.Errorf("got %d results, want %d", len(got), len(c.Want))
		}
		for i := range got {
			if i < len(c.WantNaN) && c.WantNaN[i] != NaNNone {
				if !c.WantNaN[i].Holds(types[i], got[i]) {
					return fmt.Errorf("result %d = %s, want a NaN (%s)", i, Format(types[i], got[i]), c.WantNaN[i])
				}
				continue
			}
			if !sameCaseValue(types[i], got[i], c.Want[i]) {
				return fmt.Errorf("result %d = %s, want %s", i, Format(types[i], got[i]), Format(types[i], c.Want[i]))
			}
		}
	}
	for off, want := range c.Memory {
		if int(off)+len(want) > len(mem) {
			return fmt.Errorf("memory at %d: beyond memory of %d bytes", off, len(mem))
		}
		if g := mem[off : int(off)+len(want)]; string(g) != string(want) {
			return fmt.Errorf("memory at %d = % x, want % x", off, g, want)
		}
	}
	return nil
}

// SameValue reports whether two values of type t are equal for the purpose
// of comparing tiers: bit-identical, NaNs included (every tier produces
// the same NaN bits; see package internal/floatbits). Values of the 32-bit
// types compare their low 32 bits.
func SameValue(t bytecode.Type, a, b uint64) bool {
	if t.Is32() {
		return uint32(a) == uint32(b)
	}
	return a == b
}

// sameCaseValue compares a result with a hand-written expectation: as
// SameValue, except that an expected f64 or f32 NaN accepts any NaN (the
// cases predate the NaN rule; the specification cases say which NaNs they
// accept in WantNaN).
func sameCaseValue(t bytecode.Type, got, want uint64) bool {
	switch t {
	case bytecode.F64:
		fa, fb := math.Float64frombits(got), math.Float64frombits(want)
		if fa != fa && fb != fb {
			return true
		}
	case bytecode.F32:
		fa, fb := math.Float32frombits(uint32(got)), math.Float32frombits(uint32(want))
		if fa != fa && fb != fb {
			return true
		}
	}
	return SameValue(t, got, want)
}

// String names the NaN requirement.
func (k NaNKind) String() string {
	switch k {
	case NaNCanonical:
		return "nan:canonical"
	case NaNArithmetic:
		return "nan:arithmetic"
	}
	return "no NaN"
}

// Format prints a value of type t.
func Format(t bytecode.Type, v uint64) string {
	switch t {
	case bytecode.F64:
		return fmt.Sprintf("%v (0x%016x)", math.Float64frombits(v), v)
	case bytecode.F32:
		return fmt.Sprintf("%v (0x%08x)", math.Float32frombits(uint32(v)), v)
	case bytecode.I32:
		return fmt.Sprintf("%d (0x%x)", int32(v), v)
	}
	return fmt.Sprintf("%d (0x%x)", int64(v), v)
}

// I returns the bits of an i64 value.
func I(v int64) uint64 { return uint64(v) }

// F returns the bits of an f64 value.
func F(v float64) uint64 { return math.Float64bits(v) }
