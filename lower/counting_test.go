package lower

import (
	"context"
	"slices"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
)

// TestCountingMatchesInterpreter lowers the programs and kernels with
// counting (Options.Counters) and runs them in the mir interpreter: the
// counts the code keeps, with the rest derived by the plan, must be the
// reference interpreter's, for plans from the static estimate and from
// the interpreter's own counts.
func TestCountingMatchesInterpreter(t *testing.T) {
	checked := 0
	for _, c := range testprogs.ProgramCases() {
		if c.Trap != bc.TrapNone || len(c.Module.Hosts) > 0 {
			continue
		}
		prog, err := interp.Prepare(c.Module)
		if err != nil {
			t.Fatal(err)
		}
		fn := c.Module.ExportedFunc(c.Func)
		params := c.Module.Funcs[fn].Sig.Params
		nres := len(c.Module.Funcs[fn].Sig.Results)
		ref, err := interp.NewMachine(prog, interp.Config{}, nil, testrun.Memory(c.Module))
		if err != nil {
			t.Fatal(err)
		}
		if err := ref.Call(context.Background(), fn, testrun.BoundaryArgs(params, c.Args), make([]uint64, nres)); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, profiled := range []bool{false, true} {
			funcs := make([]*mir.Func, len(c.Module.Funcs))
			plans := make([]*profilecounters.ChordPlan, len(c.Module.Funcs))
			for i := range c.Module.Funcs {
				l := prog.Layouts[i]
				prof := l.Profile(nil)
				if profiled {
					prof = l.Profile(ref.Counters[i])
				}
				plans[i] = profilecounters.NewChordPlan(l, prof)
				funcs[i], err = Func(c.Module, i, Options{Target: FullTarget(), Profile: prof, Counters: plans[i]})
				if err != nil {
					t.Fatalf("%s: lower %s: %v", c.Name, c.Module.Funcs[i].Name, err)
				}
			}
			mach, err := mir.NewMachine(funcs, interp.Config{}, nil, testrun.Memory(c.Module))
			if err != nil {
				t.Fatal(err)
			}
			testrun.Instantiate(mach, c.Module)
			for i, p := range plans {
				mach.Counters[i] = make([]uint64, p.NumCounters())
			}
			if err := mach.Call(context.Background(), fn, testrun.BoundaryArgs(params, c.Args), make([]uint64, nres)); err != nil {
				t.Fatalf("%s: mir: %v", c.Name, err)
			}
			for i, p := range plans {
				l := prog.Layouts[i]
				for s := range mach.Counters[i] {
					if mach.Counters[i][s] != 0 && !p.Counted(s) {
						t.Errorf("%s %s (profiled %v): slot %d incremented, not a chord", c.Name, c.Module.Funcs[i].Name, profiled, s)
					}
				}
				got := p.Reconstruct(mach.Counters[i])
				want := ref.Counters[i]
				if got[profilecounters.EntryCounter] != want[profilecounters.EntryCounter] ||
					!slices.Equal(l.EdgeCounts(got), l.EdgeCounts(want)) {
					t.Errorf("%s %s (profiled %v): calls %d, edges %v; want %d, %v", c.Name, c.Module.Funcs[i].Name, profiled,
						got[profilecounters.EntryCounter], l.EdgeCounts(got), want[profilecounters.EntryCounter], l.EdgeCounts(want))
				}
			}
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d cases checked", checked)
	}
}
