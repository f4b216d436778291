package sched

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/alloc"
	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// pipeline is a way from alloc.Destruct's output to allocated code; sep
// is the comparison pipeline's own entry point (nil for the integrated
// pass).
type pipeline struct {
	name string
	run  func(*mir.Func, Options) (*Result, error)
	sep  func(*mir.Func, Options) (*SeparateResult, error)
}

// resultOf adapts a comparison pipeline to pipeline.run.
func resultOf(sep func(*mir.Func, Options) (*SeparateResult, error)) func(*mir.Func, Options) (*Result, error) {
	return func(f *mir.Func, o Options) (*Result, error) {
		r, err := sep(f, o)
		if err != nil {
			return nil, err
		}
		return &r.Result, nil
	}
}

// pipelines are the integrated pass and the two comparison pipelines.
var pipelines = []pipeline{
	{"integrated", Allocate, nil},
	{"separate", resultOf(Separate), Separate},
	{"linear-scan", resultOf(LinearScanOnly), LinearScanOnly},
}

// sepTightRegs forces heavy spilling: three GPRs (one callee-saved) and
// two XMM registers.
var sepTightRegs = mir.MakeRegSet(mir.R8, mir.R9, mir.RBX, mir.X8, mir.X9)

// destructModule lowers every function of m (static profile) and takes it
// out of SSA form with alloc.Destruct.
func destructModule(t testing.TB, m *bc.Module) []*mir.Func {
	t.Helper()
	funcs, err := lower.Module(m, lower.FullTarget())
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range funcs {
		d, err := alloc.Destruct(f, alloc.DestructOptions{})
		if err != nil {
			t.Fatalf("destruct %s: %v", f.Name, err)
		}
		funcs[i] = d.Func
	}
	return funcs
}

// parseFunc parses the text of one function.
func parseFunc(t *testing.T, src string) *mir.Func {
	t.Helper()
	f, err := mir.ParseFunc([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// allocateChecked runs p on f and checks the result with mir.Verify and
// alloc.CheckAllocation against f, and that f is left unchanged.
func allocateChecked(t testing.TB, p pipeline, f *mir.Func, opts Options) *Result {
	t.Helper()
	before := mir.Format(f)
	r, err := p.run(f, opts)
	if err != nil {
		t.Fatalf("%s %s: %v", p.name, f.Name, err)
	}
	if mir.Format(f) != before {
		t.Fatalf("%s modified its input %s", p.name, f.Name)
	}
	if err := mir.Verify(r.Func); err != nil {
		t.Fatalf("%s %s: %v\n%s", p.name, f.Name, err, mir.Format(r.Func))
	}
	if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
		t.Fatalf("%s %s: %v\ninput:\n%s\nallocated:\n%s", p.name, f.Name, err, before, mir.Format(r.Func))
	}
	return r
}

// allocateModuleWith allocates every function of m with p, checked, and
// verifies the module.
func allocateModuleWith(t testing.TB, p pipeline, m *bc.Module, opts Options) []*mir.Func {
	t.Helper()
	funcs := destructModule(t, m)
	out := make([]*mir.Func, len(funcs))
	for i, f := range funcs {
		out[i] = allocateChecked(t, p, f, opts).Func
	}
	if err := mir.VerifyModule(out, lower.HostSigs(m)); err != nil {
		t.Fatalf("%s: verify module: %v", p.name, err)
	}
	return out
}

// TestSeparateCases runs every shared case (single instructions, programs,
// kernels at small inputs) through the separate pipeline and linear scan
// alone, with every register and with a tight set: every function is
// checked by the verifier and the allocation checker, and every case's
// expectations in the mir interpreter.
func TestSeparateCases(t *testing.T) {
	cases := testprogs.AllCases()
	for _, p := range pipelines[1:] {
		for _, regs := range []mir.RegSet{0, sepTightRegs} {
			name := p.name
			if regs != 0 {
				name += "-tight"
			}
			t.Run(name, func(t *testing.T) {
				done := map[*bc.Module][]*mir.Func{}
				for _, c := range cases {
					funcs, ok := done[c.Module]
					if !ok {
						funcs = allocateModuleWith(t, p, c.Module, Options{Regs: regs})
						done[c.Module] = funcs
					}
					got, err, mem := testrun.MIR(t, c.Module, funcs, c.Func, c.Args)
					if err := c.Check(got, err, mem); err != nil {
						t.Errorf("%s: %v", c.Name, err)
					}
				}
			})
		}
	}
}

// TestSeparateGenerated runs the generated functions of 1k and 10k
// instructions through both comparison pipelines, with every register and
// a tight set, checks them and runs them against the reference
// interpreter (results and memory).
func TestSeparateGenerated(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		m := testprogs.GeneratedModule(n, 1)
		for _, p := range pipelines[1:] {
			for _, regs := range []mir.RegSet{0, sepTightRegs} {
				funcs := allocateModuleWith(t, p, m, Options{Regs: regs})
				for _, arg := range []int64{0, 3, -98765} {
					args := []uint64{uint64(arg)}
					want, werr, wmem := testrun.Reference(t, m, "gen", args)
					got, gerr, gmem := testrun.MIR(t, m, funcs, "gen", args)
					if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(want, got) || !slices.Equal(wmem, gmem) {
						t.Errorf("n=%d %s regs %v: gen(%d) = %v, %v; want %v, %v (memory equal: %v)",
							n, p.name, regs, arg, got, gerr, want, werr, slices.Equal(wmem, gmem))
					}
				}
			}
		}
	}
}

// TestSeparateStats checks what Separate and LinearScanOnly report against
// their code: the spill code and moves against a count of the code, the
// slots, the composed origins (through the checker), the counts, and that
// only Separate reports schedule lengths.
func TestSeparateStats(t *testing.T) {
	var funcs []*mir.Func
	for _, k := range testprogs.Kernels() {
		funcs = append(funcs, destructModule(t, k.Module)...)
	}
	funcs = append(funcs, destructModule(t, testprogs.GeneratedModule(2000, 5))...)
	for _, f := range funcs {
		for _, schedule := range []bool{true, false} {
			var r *SeparateResult
			var err error
			if schedule {
				r, err = Separate(f, Options{})
			} else {
				r, err = LinearScanOnly(f, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			c := measureCode(r.Func, r.Origins)
			st := &r.Stats
			if c.spills != st.Spills || c.reloads != st.Reloads || c.remats != st.Remats || c.moves != st.Moves || c.slots != st.Slots {
				t.Errorf("%s (scheduled %v): code has %d spills, %d reloads, %d remats, %d moves, %d slots; stats say %d, %d, %d, %d, %d",
					f.Name, schedule, c.spills, c.reloads, c.remats, c.moves, c.slots, st.Spills, st.Reloads, st.Remats, st.Moves, st.Slots)
			}
			if st.Instrs != f.NumInstrs() || st.Regions != len(f.Blocks) || st.DataflowRuns != 1 {
				t.Errorf("%s: %d instrs, %d regions, %d dataflow runs", f.Name, st.Instrs, st.Regions, st.DataflowRuns)
			}
			switch {
			case schedule && (st.Cycles == 0 || r.PrepassCycles == 0):
				t.Errorf("%s: postpass %d cycles, prepass %d", f.Name, st.Cycles, r.PrepassCycles)
			case !schedule && (st.Cycles != 0 || r.PrepassCycles != 0):
				t.Errorf("%s: linear scan alone reports %d cycles, prepass %d", f.Name, st.Cycles, r.PrepassCycles)
			}
			if ph := r.Phases; ph.Total <= 0 || ph.Total < ph.Prepass+ph.Liveness+ph.Scan+ph.Rewrite+ph.Postpass {
				t.Errorf("%s: phases %+v", f.Name, ph)
			}
		}
	}
}

// TestSeparateReorders checks that the prepass and the postpass do
// reorder code (the comparison would be empty otherwise): on the kernels,
// some block of Separate's output differs in order from linear scan
// alone's, and scheduling shortens the in-order length of the code.
func TestSeparateReorders(t *testing.T) {
	var sep, only int64
	for _, k := range testprogs.Kernels() {
		for _, f := range destructModule(t, k.Module) {
			a, err := Separate(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := LinearScanOnly(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ca, _ := ScheduleLength(a.Func, nil)
			cb, _ := ScheduleLength(b.Func, nil)
			sep += ca
			only += cb
		}
	}
	if sep >= only {
		t.Errorf("scheduled code takes %d cycles, unscheduled %d", sep, only)
	}
	t.Logf("kernels: %d cycles scheduled, %d in source order", sep, only)
}

// TestSeparateRejects checks the input requirements.
func TestSeparateRejects(t *testing.T) {
	funcs, err := lower.Module(testprogs.Kernels()[0].Module, lower.FullTarget())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Separate(funcs[0], Options{}); err == nil {
		t.Error("SSA input accepted")
	}
	d := destructModule(t, testprogs.Kernels()[0].Module)[0]
	if _, err := Separate(d, Options{Regs: mir.MakeRegSet(mir.X0)}); err == nil {
		t.Error("no GPR allowed, but accepted")
	}
}
