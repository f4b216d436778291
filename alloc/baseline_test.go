package alloc

import (
	"context"
	"errors"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// allocateModule lowers m and allocates every function with fn.
func allocateModule(t testing.TB, m *bc.Module, fn func(*mir.Func) (*mir.Func, error)) []*mir.Func {
	t.Helper()
	funcs, err := lower.Module(m, lower.FullTarget())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*mir.Func, len(funcs))
	for i, f := range funcs {
		g, err := fn(f)
		if err != nil {
			t.Fatalf("allocate %s: %v", f.Name, err)
		}
		if err := mir.Verify(g); err != nil {
			t.Fatalf("allocated %s: %v\n%s", f.Name, err, mir.Format(g))
		}
		out[i] = g
	}
	if err := mir.VerifyModule(out, lower.HostSigs(m)); err != nil {
		t.Fatal(err)
	}
	return out
}

// runAllocated runs function name of the allocated module in the mir
// interpreter, which checks every constraint and faults on reading a
// register that holds no value.
func runAllocated(t testing.TB, funcs []*mir.Func, m *bc.Module, name string, args []uint64) ([]uint64, error, []byte) {
	t.Helper()
	mem := interp.NewMemory(m.Memory.MinPages, m.Memory.MaxPages)
	for _, d := range m.Data {
		copy(mem.Bytes[d.Offset:], d.Bytes)
	}
	mach, err := mir.NewMachine(funcs, interp.Config{}, nil, mem)
	if err != nil {
		t.Fatal(err)
	}
	fn := m.ExportedFunc(name)
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	err = mach.Call(context.Background(), fn, args, res)
	var fault *mir.Fault
	if errors.As(err, &fault) {
		t.Fatalf("%s: fault: %v", name, err)
	}
	return res, err, mem.Bytes
}

// TestBaselineDifferential allocates every shared test module with the
// baseline allocator and checks each case's expectations in the mir
// interpreter.
func TestBaselineDifferential(t *testing.T) {
	cases := append(testprogs.InstructionCases(), testprogs.ProgramCases()...)
	done := map[*bc.Module][]*mir.Func{}
	for _, c := range cases {
		funcs, ok := done[c.Module]
		if !ok {
			funcs = allocateModule(t, c.Module, Baseline)
			done[c.Module] = funcs
		}
		got, err, mem := runAllocated(t, funcs, c.Module, c.Func, c.Args)
		if err := c.Check(got, err, mem); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
