package alloc

import (
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// destructFunc adapts Destruct to allocateModule.
func destructFunc(opts DestructOptions) func(*mir.Func) (*mir.Func, error) {
	return func(f *mir.Func) (*mir.Func, error) {
		d, err := Destruct(f, opts)
		if err != nil {
			return nil, err
		}
		return d.Func, nil
	}
}

// TestDestructDifferential takes every shared test module out of SSA with
// Destruct (and with each part switched off) and checks each case in the
// mir interpreter, with the output as it is and after the baseline
// allocator.
func TestDestructDifferential(t *testing.T) {
	cases := testprogs.AllCases()
	for _, opts := range []DestructOptions{{}, {NoCoalesce: true}, {NoPhiPinning: true}, {NoConstraints: true}} {
		for _, baseline := range []bool{false, true} {
			fn := destructFunc(opts)
			if baseline {
				fn = func(f *mir.Func) (*mir.Func, error) {
					g, err := destructFunc(opts)(f)
					if err != nil {
						return nil, err
					}
					return BaselineNonSSA(g)
				}
			}
			done := map[*bc.Module][]*mir.Func{}
			for _, c := range cases {
				funcs, ok := done[c.Module]
				if !ok {
					funcs = allocateModule(t, c.Module, fn)
					done[c.Module] = funcs
				}
				got, err, mem := testrun.MIR(t, c.Module, funcs, c.Func, c.Args)
				if err := c.Check(got, err, mem); err != nil {
					t.Errorf("%+v baseline=%v %s: %v", opts, baseline, c.Name, err)
				}
			}
		}
	}
}

// TestDestructPassesTheCheckers runs both oracles of destruct_check_test.go
// on every function of the shared test modules, for each set of options.
func TestDestructPassesTheCheckers(t *testing.T) {
	seen := map[*bc.Module]bool{}
	n := 0
	for _, c := range testprogs.AllCases() {
		if seen[c.Module] {
			continue
		}
		seen[c.Module] = true
		funcs, err := lower.Module(c.Module, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range funcs {
			for _, opts := range []DestructOptions{{}, {NoCoalesce: true}, {NoPhiPinning: true, NoUsePinning: true}, {NoConstraints: true}} {
				d, err := Destruct(f, opts)
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				if err := mir.Verify(d.Func); err != nil {
					t.Fatalf("%+v: %v\n%s", opts, err, mir.Format(d.Func))
				}
				if err := CheckDestructed(f, d); err != nil {
					t.Fatalf("%+v: %v\n%s\n%s", opts, err, mir.Format(f), mir.Format(d.Func))
				}
				n++
			}
		}
	}
	t.Logf("%d functions checked", n)
}
