package lower

import (
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/mir"
)

// runLowered lowers m for target and runs function name in the mir
// interpreter on a fresh memory, returning the results, the error and the
// memory afterwards.
//
//lint:ignore ST1008 the outcome of a run: results, its trap, the memory after it
func runLowered(t testing.TB, m *bc.Module, target Target, name string, args []uint64) ([]uint64, error, []byte) {
	t.Helper()
	funcs, err := Module(m, target)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	if err := mir.VerifyModule(funcs, HostSigs(m)); err != nil {
		t.Fatalf("verify: %v", err)
	}
	return testrun.MIR(t, m, funcs, name, args)
}

// TestDifferential runs every shared case (single instructions, programs,
// kernels at small inputs, globals and the table) through lowering and the mir interpreter, for
// the full target and the baseline one, and checks the case's expected
// results, traps and memory — the same expectations the interpreter meets.
func TestDifferential(t *testing.T) {
	cases := testprogs.AllCases()
	for _, target := range []struct {
		name string
		t    Target
	}{{"full", FullTarget()}, {"baseline", Target{}}} {
		t.Run(target.name, func(t *testing.T) {
			for _, c := range cases {
				if !target.t.SSE41 && usesRounding(c.Module) {
					continue
				}
				got, err, mem := runLowered(t, c.Module, target.t, c.Func, c.Args)
				if err := c.Check(got, err, mem); err != nil {
					t.Errorf("%s: %v", c.Name, err)
				}
			}
		})
	}
}

func usesRounding(m *bc.Module) bool {
	for _, f := range m.Funcs {
		for _, in := range f.Code {
			switch in.Op {
			case bc.OpF64Floor, bc.OpF64Ceil, bc.OpF64Trunc, bc.OpF64Nearest,
				bc.OpF32Floor, bc.OpF32Ceil, bc.OpF32Trunc, bc.OpF32Nearest:
				return true
			}
		}
	}
	return false
}
