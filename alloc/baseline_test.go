package alloc

import (
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
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

// TestBaselineDifferential allocates every shared test module with the
// baseline allocator and checks each case's expectations in the mir
// interpreter.
func TestBaselineDifferential(t *testing.T) {
	cases := testprogs.AllCases()
	done := map[*bc.Module][]*mir.Func{}
	for _, c := range cases {
		funcs, ok := done[c.Module]
		if !ok {
			funcs = allocateModule(t, c.Module, Baseline)
			done[c.Module] = funcs
		}
		got, err, mem := testrun.MIR(t, c.Module, funcs, c.Func, c.Args)
		if err := c.Check(got, err, mem); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
