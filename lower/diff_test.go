package lower

import (
	"context"
	"errors"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/mir"
)

// runLowered lowers m for target and runs function name in the mir
// interpreter on a fresh memory, returning the results, the error and the
// memory afterwards.
func runLowered(t testing.TB, m *bc.Module, target Target, name string, args []uint64) ([]uint64, error, []byte) {
	t.Helper()
	funcs, err := Module(m, target)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	if err := mir.VerifyModule(funcs, HostSigs(m)); err != nil {
		t.Fatalf("verify: %v", err)
	}
	mem := interp.NewMemory(m.Memory.MinPages, m.Memory.MaxPages)
	for _, d := range m.Data {
		copy(mem.Bytes[d.Offset:], d.Bytes)
	}
	mach, err := mir.NewMachine(funcs, interp.Config{}, nil, mem)
	if err != nil {
		t.Fatalf("mir machine: %v", err)
	}
	fn := m.ExportedFunc(name)
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	err = mach.Call(context.Background(), fn, args, res)
	var fault *mir.Fault
	if errors.As(err, &fault) {
		t.Fatalf("fault: %v", err)
	}
	return res, err, mem.Bytes
}

// TestDifferential runs every shared case (single instructions, programs,
// kernels at small inputs) through lowering and the mir interpreter, for
// the full target and the baseline one, and checks the case's expected
// results, traps and memory — the same expectations the interpreter meets.
func TestDifferential(t *testing.T) {
	cases := append(testprogs.InstructionCases(), testprogs.ProgramCases()...)
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
			case bc.OpF64Floor, bc.OpF64Ceil, bc.OpF64Trunc, bc.OpF64Nearest:
				return true
			}
		}
	}
	return false
}
