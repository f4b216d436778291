package jit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/profilecounters"
	"github.com/kiln-jit/kiln/runtime"
)

// statsAfter runs calls of fn with args on a new instance of m under opts
// and returns the instance's statistics.
func statsAfter(t *testing.T, opts Options, m *bytecode.Module, fn string, args []uint64, calls int) []FuncStats {
	t.Helper()
	e := newEngine(t, opts)
	mod, err := e.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Tier != TierInterp && opts.Tier != TierAuto && mod.Tier() != opts.Tier {
		t.Fatalf("module runs in tier %s: %v", mod.Tier(), mod.CompileError())
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	for range calls {
		if _, err := inst.Call(context.Background(), fn, args...); err != nil {
			t.Fatal(err)
		}
	}
	if opts.Tier == TierAuto && inst.Tier() != TierOptimizing {
		t.Fatalf("no tier-up after %d calls", calls)
	}
	return inst.Stats()
}

// TestCompiledCountsMatchInterpreter checks counting in compiled code end
// to end: code that counts only the chords of each function's flow graph,
// with the other edges derived, reports the interpreter's counts exactly,
// in both compiled tiers and after a tier-up that happened between calls.
func TestCompiledCountsMatchInterpreter(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	configs := []struct {
		name string
		opts Options
	}{
		{"baseline", Options{Tier: TierBaseline, CountEdges: true}},
		{"optimizing", Options{Tier: TierOptimizing, CountEdges: true, CheckAllocations: true}},
		// Tier-up at the end of the first call (no on-stack replacement:
		// the variants do not count).
		{"auto", Options{Tier: TierAuto, SynchronousTierUp: true, TierUpCalls: 1, OSRInterval: 1 << 40, CheckAllocations: true}},
	}
	for _, k := range testprogs.Kernels() {
		want := statsAfter(t, Options{Tier: TierInterp}, k.Module, k.Func, k.SmallArgs, 3)
		for _, c := range configs {
			got := statsAfter(t, c.opts, k.Module, k.Func, k.SmallArgs, 3)
			for fn := range want {
				w, g := want[fn], got[fn]
				if g.Calls != w.Calls || g.Instructions != w.Instructions {
					t.Errorf("%s %s %s: %d calls, %d instructions; want %d, %d", c.name, k.Name, w.Name, g.Calls, g.Instructions, w.Calls, w.Instructions)
				}
				if !slices.Equal(g.Edges, w.Edges) {
					t.Errorf("%s %s %s: edges\n got %v\nwant %v", c.name, k.Name, w.Name, g.Edges, w.Edges)
				}
			}
		}
		// Without CountEdges compiled code adds nothing.
		plain := statsAfter(t, Options{Tier: TierOptimizing}, k.Module, k.Func, k.SmallArgs, 3)
		for fn := range plain {
			if plain[fn].Calls != 0 {
				t.Errorf("optimizing without counting %s %s: %d calls counted", k.Name, plain[fn].Name, plain[fn].Calls)
			}
		}
	}
}

// callStats runs calls of fn, one per argument list, on a new instance of
// m under opts, whatever each call does (return or trap), and returns the
// instance's statistics and the calls' errors.
func callStats(t *testing.T, opts Options, m *bytecode.Module, fn string, args [][]uint64) ([]FuncStats, []error) {
	t.Helper()
	mod, err := newEngine(t, opts).Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Tier != TierInterp && mod.Tier() != opts.Tier {
		t.Fatalf("module runs in tier %s: %v", mod.Tier(), mod.CompileError())
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(args))
	for i, a := range args {
		_, errs[i] = inst.Call(context.Background(), fn, a...)
	}
	return inst.Stats(), errs
}

// instantiable reports whether m instantiates without imports.
func instantiable(t *testing.T, m *bytecode.Module) bool {
	t.Helper()
	mod, err := newEngine(t, Options{Tier: TierInterp}).Load(m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = mod.Instantiate(nil)
	return err == nil
}

// TestCompiledCountsMatchInterpreterOnPrograms checks counting in compiled
// code on the hand-written programs, several functions to a module
// (counters of several functions below the context; calls derived from
// the entry block's edges or counted): the counts of calls that return
// are the interpreter's, and so are the calls counted when some trap.
func TestCompiledCountsMatchInterpreterOnPrograms(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	tiers := []Options{
		{Tier: TierBaseline, CountEdges: true},
		{Tier: TierOptimizing, CountEdges: true, CheckAllocations: true},
	}
	checked := 0
	for _, c := range testprogs.ProgramCases() {
		if len(c.Module.Funcs) < 2 || !instantiable(t, c.Module) {
			continue
		}
		args := [][]uint64{c.Args, c.Args}
		want, wantErrs := callStats(t, Options{Tier: TierInterp}, c.Module, c.Func, args)
		for _, opts := range tiers {
			got, errs := callStats(t, opts, c.Module, c.Func, args)
			for i := range errs {
				if (errs[i] == nil) != (wantErrs[i] == nil) {
					t.Fatalf("%s %s: call %d: %v, the interpreter %v", opts.Tier, c.Name, i, errs[i], wantErrs[i])
				}
			}
			for fn := range want {
				w, g := want[fn], got[fn]
				if g.Calls != w.Calls {
					t.Errorf("%s %s %s: %d calls, want %d", opts.Tier, c.Name, w.Name, g.Calls, w.Calls)
				}
				if c.Trap == bytecode.TrapNone && (g.Instructions != w.Instructions || !slices.Equal(g.Edges, w.Edges)) {
					t.Errorf("%s %s %s: %d instructions, edges %v; want %d, %v", opts.Tier, c.Name, w.Name, g.Instructions, g.Edges, w.Instructions, w.Edges)
				}
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d programs checked", checked)
	}
}

// TestCompiledCallsExactWhenCallsTrap checks that the calls compiled code
// reports are exact when calls trap, whether it counts them (an entry
// block that may trap) or derives them from the entry block's edges (an
// entry block that only branches).
func TestCompiledCallsExactWhenCallsTrap(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	for _, tt := range []struct {
		name, src    string
		entryByBlock bool
	}{
		{"entry block branches", `
func f (i64) -> (i64)
  regs i64
  br.lt_s r0, 0, negative
  i64.const r1, 100
  i64.div_s r0, r1, r0
  ret r0
negative:
  ret r0
end
export "f" f
`, true},
		{"entry block divides", `
func f (i64) -> (i64)
  regs i64
  i64.const r1, 100
  i64.div_s r1, r1, r0
  br.lt_s r0, 0, negative
  ret r1
negative:
  ret r0
end
export "f" f
`, false},
		{"entry block is a loop header", `
func f (i64) -> (i64)
  regs i64
top:
  i64.add r1, r1, 1
  br.lt_s r1, 3, top
  i64.const r1, 100
  i64.div_s r0, r1, r0
  ret r0
end
export "f" f
`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := bytecode.Assemble([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			l := profilecounters.NewLayout(m.Funcs[0])
			if got := profilecounters.NewChordPlan(l, nil).EntryByBlock(); got != tt.entryByBlock {
				t.Fatalf("EntryByBlock %v, want %v", got, tt.entryByBlock)
			}
			// 5 and -1 return; 0 traps (division by zero), twice.
			args := [][]uint64{{testprogs.I(5)}, {testprogs.I(0)}, {testprogs.I(-1)}, {testprogs.I(0)}}
			want, _ := callStats(t, Options{Tier: TierInterp}, m, "f", args)
			for _, opts := range []Options{
				{Tier: TierBaseline, CountEdges: true},
				{Tier: TierOptimizing, CountEdges: true},
			} {
				got, errs := callStats(t, opts, m, "f", args)
				if errs[0] != nil || errs[1] == nil || errs[2] != nil || errs[3] == nil {
					t.Fatalf("%s: errors %v, want the calls of 0 to trap", opts.Tier, errs)
				}
				if got[0].Calls != want[0].Calls || got[0].Calls != 4 {
					t.Errorf("%s: %d calls, the interpreter %d, want 4", opts.Tier, got[0].Calls, want[0].Calls)
				}
			}
		})
	}
}

// TestCountedCodeUsesFewCounters checks that counting code increments
// fewer counters than the interpreter keeps: the plan leaves a spanning
// tree uncounted.
func TestCountedCodeUsesFewCounters(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	e := newEngine(t, Options{Tier: TierOptimizing, CountEdges: true})
	for _, k := range testprogs.Kernels() {
		mod, err := e.Load(k.Module)
		if err != nil {
			t.Fatal(err)
		}
		edges := 0
		for _, l := range mod.prog.Layouts {
			edges += l.NumCounters()
		}
		if n := mod.CompileStats().CountedEdges; n == 0 || n >= edges {
			t.Errorf("%s: %d counted edges of %d counters", k.Name, n, edges)
		}
	}
}

// BenchmarkCountingOverhead reports what counting edges costs compiled
// code: each kernel in the optimizing tier with and without CountEdges,
// timed in alternating rounds; counting-x-plain is the ratio of the times
// (goal: at most 1.03).
func BenchmarkCountingOverhead(b *testing.B) {
	if !runtime.Supported() {
		b.Skip("compiled tiers are not supported on this platform")
	}
	ctx := context.Background()
	for _, k := range testprogs.Kernels() {
		b.Run(k.Name, func(b *testing.B) {
			want := k.Native(k.Args)
			fns := [2]*Function{
				kernelFunc(b, "optimizing", Options{Tier: TierOptimizing}, k, want),
				kernelFunc(b, "optimizing counting", Options{Tier: TierOptimizing, CountEdges: true}, k, want),
			}
			res := make([]uint64, len(want))
			var times [2]time.Duration
			for b.Loop() {
				for i, fn := range fns {
					start := time.Now()
					if err := fn.CallInto(ctx, k.Args, res); err != nil {
						b.Fatal(err)
					}
					times[i] += time.Since(start)
				}
			}
			b.ReportMetric(float64(times[1])/float64(times[0]), "counting-x-plain")
		})
	}
}
