package interp

import (
	"errors"
	"fmt"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// TestWasmSpecNumeric runs every numeric assertion of the WebAssembly 1.0
// specification tests (i32, i64, f32, f64, their comparisons and bitwise
// ops, and the conversions: thousands of assertions on single
// instructions, embedded in package testprogs) with every argument in a
// register, with garbage in the upper halves of 32-bit arguments (which
// Machine.Call must discard) and, for ops that take an immediate, with B
// as the immediate. A NaN result must be of the kind the assertion names
// and follow kiln's NaN rule.
func TestWasmSpecNumeric(t *testing.T) {
	list, err := testprogs.SpecAssertions()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 10000 {
		t.Fatalf("%d assertions, want all of them", len(list))
	}
	for i := range list {
		if err := runSpecAssertion(t, &list[i]); err != nil {
			t.Errorf("%s %s%#x: %v", list[i].Where, list[i].Op, list[i].Args, err)
		}
	}
}

func runSpecAssertion(t *testing.T, a *testprogs.SpecAssertion) error {
	type variant struct {
		args   []uint64
		useImm bool
	}
	variants := []variant{{args: a.Args}}
	dirty := append([]uint64(nil), a.Args...)
	for i, ty := range a.Types {
		if ty.Is32() {
			dirty[i] |= dirt
		}
	}
	variants = append(variants, variant{args: dirty})
	if a.Op.Info().Imm && len(a.Args) == 2 {
		variants = append(variants, variant{args: a.Args[:1], useImm: true})
	}
	for _, v := range variants {
		got, _, err := runOp(t, a.Module(v.useImm), v.args)
		what := fmt.Sprintf("(imm=%v %#x)", v.useImm, v.args)
		switch {
		case a.Trap != bc.TrapNone:
			var tr *bc.Trap
			if !errors.As(err, &tr) || tr.Kind != a.Trap {
				return fmt.Errorf("%s: got %#x, %v; want trap %q", what, got, err, a.Trap)
			}
		case err != nil:
			return fmt.Errorf("%s: %v", what, err)
		case a.NaN != testprogs.NaNNone:
			if !a.NaN.Holds(a.Result, got) {
				return fmt.Errorf("%s: got %#x, want %s", what, got, a.NaN)
			}
		case got != a.Want:
			return fmt.Errorf("%s: got %#x, want %#x", what, got, a.Want)
		}
	}
	return nil
}
