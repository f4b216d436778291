package lower

import (
	"errors"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// TestWasmSpecNumeric lowers every numeric assertion of the WebAssembly
// specification tests (register and immediate forms), for the full target
// and plain SSE2, and runs the machine IR in the mir interpreter: results,
// NaN kinds and traps must be what the specification says.
func TestWasmSpecNumeric(t *testing.T) {
	list, err := testprogs.SpecAssertions()
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []struct {
		name string
		t    Target
	}{{"full", FullTarget()}, {"sse2", Target{}}} {
		t.Run(target.name, func(t *testing.T) {
			ran := 0
			for i := range list {
				a := &list[i]
				for _, useImm := range []bool{false, true} {
					if useImm && !(a.Op.Info().Imm && len(a.Args) == 2) {
						continue
					}
					c := a.Case(useImm)
					if !target.t.SSE41 && usesRounding(c.Module) {
						continue
					}
					got, err, mem := runLowered(t, c.Module, target.t, c.Func, c.Args)
					if err := c.Check(got, err, mem); err != nil {
						t.Errorf("%s: %v", c.Name, err)
					}
					ran++
				}
			}
			t.Logf("%d assertions", ran)
		})
	}
}

// TestUnsupportedWithoutSSE41 checks that rounding without SSE4.1 is
// rejected with ErrUnsupported (the jit then interprets the module).
func TestUnsupportedWithoutSSE41(t *testing.T) {
	for _, op := range []bc.Op{bc.OpF32Floor, bc.OpF64Nearest} {
		a := testprogs.SpecAssertion{Op: op, Types: []bc.Type{op.Info().A}, Args: []uint64{0}, Result: op.Info().Dst}
		if _, err := Func(a.Module(false), 0, Options{Target: Target{}}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s without SSE4.1: %v, want ErrUnsupported", op, err)
		}
	}
}
