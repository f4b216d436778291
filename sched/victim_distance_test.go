package sched

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// tightRegs leaves the integrated pass three GPRs and two XMM registers,
// so that the test programs spill.
var tightRegs = mir.MakeRegSet(mir.R8, mir.R9, mir.RBX, mir.X8, mir.X9)

// testprogFuncs returns every function of the kernels and of the modules
// of ProgramCases (alloc.Destruct's output), each module once.
func testprogFuncs(t testing.TB) (kernels, programs []*mir.Func) {
	for _, k := range testprogs.Kernels() {
		kernels = append(kernels, destructModule(t, k.Module)...)
	}
	seen := map[*bc.Module]bool{}
	for _, c := range testprogs.ProgramCases() {
		if !seen[c.Module] {
			seen[c.Module] = true
			programs = append(programs, destructModule(t, c.Module)...)
		}
	}
	return kernels, programs
}

// profiledKernels returns every function of the kernels lowered with the
// profile of a run of the kernel on its small input in the bytecode
// interpreter (block frequencies and successor probabilities from the
// edge counters, as the JIT's optimizing tier compiles), taken out of SSA
// form.
func profiledKernels(t testing.TB) []*mir.Func {
	var out []*mir.Func
	for _, k := range testprogs.Kernels() {
		p, err := interp.Prepare(k.Module)
		if err != nil {
			t.Fatal(err)
		}
		mem := interp.NewMemory(k.Module.Memory.MinPages, k.Module.Memory.MaxPages)
		mach, err := interp.NewMachine(p, interp.Config{}, nil, mem)
		if err != nil {
			t.Fatal(err)
		}
		res := make([]uint64, len(k.Native(k.SmallArgs)))
		if err := mach.Call(context.Background(), k.Module.ExportedFunc(k.Func), k.SmallArgs, res); err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		for fn := range k.Module.Funcs {
			prof := p.Layouts[fn].Profile(mach.Counters[fn])
			f, err := lower.Func(k.Module, fn, lower.Options{Profile: prof, Target: lower.FullTarget()})
			if err != nil {
				t.Fatal(err)
			}
			d, err := alloc.Destruct(f, alloc.DestructOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, d.Func)
		}
	}
	return out
}

// pointCheck is a DistanceVictim that checks, at every choice, the
// distance it gives each candidate against the oracle asked at the
// position the pass passes (which must agree in source order) and
// counts the choices.
type pointCheck struct {
	t       *testing.T
	name    string
	dv      DistanceVictim
	choices int
	cands   int
	finite  int
}

func (p *pointCheck) Victim(b, pos int, cands []SpillCandidate) int {
	p.choices++
	for i := range cands {
		c := &cands[i]
		got := p.dv.Distance(b, c)
		want := p.dv.Oracle.Distance(c.VReg, b, pos)
		if got != want && !(math.Abs(got-want) <= 1e-9*math.Abs(want)) {
			p.t.Errorf("%s b%d pos %d: %s (uses %d, next %d, live out %v, at %d, ahead %d): distance %g, oracle %g",
				p.name, b, pos, c.VReg, c.LocalUses, c.NextUse, c.LiveOut, c.At, c.Ahead, got, want)
		}
		if c.Ahead != c.At-pos {
			p.t.Errorf("%s b%d pos %d: %s next use at %d, ahead %d", p.name, b, pos, c.VReg, c.At, c.Ahead)
		}
		p.cands++
		if !math.IsInf(got, 1) {
			p.finite++
		}
	}
	return p.dv.Victim(b, pos, cands)
}

// TestDistanceVictimPoint checks the mapping of the pass's point of choice
// to the oracles' block positions: in source order, on every function of
// the kernels and programs with few registers, every candidate's distance
// is the oracle's Distance at the position the pass passes (the
// instruction being allocated while its sources get registers, the next
// one while its destinations do, 0 for the live-ins), for both oracles.
func TestDistanceVictimPoint(t *testing.T) {
	kernels, programs := testprogFuncs(t)
	for _, oracle := range []VictimOracle{OracleED, OracleNNU} {
		t.Run(oracle.String(), func(t *testing.T) {
			p := &pointCheck{t: t}
			for _, f := range append(kernels, programs...) {
				p.name = f.Name
				if oracle == OracleED {
					ed, err := EDAnalyze(f, EDOptions{})
					if err != nil {
						t.Fatal(err)
					}
					p.dv.Oracle = ed
				} else {
					p.dv.Oracle = NNUAnalyze(f, NNUOptions{})
				}
				r, err := Allocate(f, Options{SourceOrder: true, Victim: p, Regs: tightRegs})
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
			}
			t.Logf("%d choices, %d candidates (%d at a finite distance)", p.choices, p.cands, p.finite)
			if p.choices < 100 || p.finite == 0 {
				t.Errorf("only %d choices, %d candidates at a finite distance", p.choices, p.finite)
			}
		})
	}
}

// TestAhead checks the count of instructions between the point of a
// choice and a next use in a region the scheduler has reordered: the
// current instruction comes first when its sources are being placed, the
// other instructions not yet taken follow in input order.
func TestAhead(t *testing.T) {
	const n = 8
	tests := []struct {
		name  string
		done  []int // taken before the current instruction
		cur   int   // -1: the region's start
		after bool
		q     int
		want  int
	}{
		{"start", nil, -1, false, 5, 5},
		{"start, end", nil, -1, false, n, n},
		{"source order, a source", []int{0, 1}, 2, false, 2, 0},
		{"source order, before", []int{0, 1}, 2, false, 5, 3},
		{"source order, after", []int{0, 1}, 2, true, 5, 2},
		{"source order, end after", []int{0, 1}, 2, true, n, 5},
		{"reordered, a source", []int{0, 3, 6}, 4, false, 4, 0},
		// Waiting: 1, 2, 5, 7 (and 4, the current one).
		{"reordered, before, use earlier", []int{0, 3, 6}, 4, false, 2, 2},
		{"reordered, after, use earlier", []int{0, 3, 6}, 4, true, 2, 1},
		{"reordered, before, use later", []int{0, 3, 6}, 4, false, 7, 4},
		{"reordered, after, use later", []int{0, 3, 6}, 4, true, 7, 3},
		{"reordered, after, end", []int{0, 3, 6}, 4, true, n, 4},
		{"reordered, before, end", []int{0, 3, 6}, 4, false, n, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &allocator{}
			a.instDone = make([]bool, n)
			a.resetDone(n)
			for _, k := range tc.done {
				a.markDone(k)
			}
			a.cur, a.after = int32(tc.cur), tc.after
			if got := a.ahead(tc.q); got != tc.want {
				t.Errorf("ahead(%d) = %d, want %d", tc.q, got, tc.want)
			}
			wantPos := 0
			if tc.cur >= 0 {
				wantPos = tc.cur
				if tc.after {
					wantPos++
				}
			}
			if got := a.point(); got != wantPos {
				t.Errorf("point() = %d, want %d", got, wantPos)
			}
		})
	}
}

// fixedOracle answers from a table of distances per register (the same
// at every position), with multipliers.
type fixedOracle struct {
	dist, mult map[mir.Reg]float64
}

func (o fixedOracle) Distance(v mir.Reg, b, pos int) float64 {
	if d, ok := o.dist[v]; ok {
		return d
	}
	return math.Inf(1)
}

func (o fixedOracle) EffectiveDistance(v mir.Reg, b, pos int) float64 {
	m := 1.0
	if x, ok := o.mult[v]; ok {
		m = x
	}
	return o.Distance(v, b, pos) * m
}

// TestDistanceVictimChoice checks the policy's rule on hand-made
// candidates: the largest effective distance (Ahead plus the oracle's
// distance, times the multiplier), a value with no use left first, ties
// to the default comparator.
func TestDistanceVictimChoice(t *testing.T) {
	v := func(i int) mir.Reg { return mir.VReg(i) }
	live := func(i int, reg mir.Reg, ahead int) SpillCandidate {
		return SpillCandidate{VReg: v(i), Reg: reg, LocalUses: 1, NextUse: 10 + ahead, At: 10 + ahead, Ahead: ahead, ClosestDist: -1}
	}
	out := func(i int, reg mir.Reg, ahead int) SpillCandidate {
		return SpillCandidate{VReg: v(i), Reg: reg, NextUse: -1, LiveOut: true, At: 20, Ahead: ahead, ClosestDist: 1}
	}
	tests := []struct {
		name  string
		dist  map[mir.Reg]float64
		mult  map[mir.Reg]float64
		cands []SpillCandidate
		want  int
	}{
		{"furthest local use", map[mir.Reg]float64{v(0): 1, v(1): 1},
			nil, []SpillCandidate{live(0, mir.R8, 2), live(1, mir.R9, 5)}, 1},
		{"live out beyond a local use", map[mir.Reg]float64{v(0): 1, v(1): 5},
			nil, []SpillCandidate{live(0, mir.R8, 6), out(1, mir.R9, 4)}, 1},
		{"local use beyond a live out", map[mir.Reg]float64{v(0): 1, v(1): 5},
			nil, []SpillCandidate{live(0, mir.R8, 9), out(1, mir.R9, 4)}, 0},
		{"no use left", map[mir.Reg]float64{v(0): 1},
			nil, []SpillCandidate{live(0, mir.R8, 50), {VReg: v(1), Reg: mir.R9, NextUse: -1, ClosestDist: -1}}, 1},
		// Criterion 8 of the notes: with one rematerializable candidate and
		// a dirty one at comparable distance, the rematerializable one goes.
		{"remat multiplier", map[mir.Reg]float64{v(0): 1, v(1): 1},
			map[mir.Reg]float64{v(0): EDMultCostly}, []SpillCandidate{live(0, mir.R8, 4), live(1, mir.R9, 9)}, 0},
		{"tie: fewer uses", map[mir.Reg]float64{v(0): 1, v(1): 1},
			nil, []SpillCandidate{live(0, mir.R8, 3), func() SpillCandidate { c := live(1, mir.R9, 3); c.LocalUses = 3; return c }()}, 0},
		{"tie: clean", map[mir.Reg]float64{v(0): 1, v(1): 1},
			nil, []SpillCandidate{live(0, mir.R8, 3), func() SpillCandidate { c := live(1, mir.R9, 3); c.Clean = true; return c }()}, 1},
		{"tie: lower register", map[mir.Reg]float64{v(0): 1, v(1): 1},
			nil, []SpillCandidate{live(0, mir.R9, 3), live(1, mir.R8, 3)}, 1},
		{"tie within rounding", map[mir.Reg]float64{v(0): 3, v(1): 3 * (1 + 1e-12)},
			nil, []SpillCandidate{out(0, mir.R8, 0), func() SpillCandidate { c := out(1, mir.R9, 0); c.Clean = true; return c }()}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := DistanceVictim{Oracle: fixedOracle{tc.dist, tc.mult}}
			if got := p.Victim(0, 0, tc.cands); got != tc.want {
				var ds []string
				for i := range tc.cands {
					ds = append(ds, fmt.Sprint(p.EffectiveDistance(0, &tc.cands[i])))
				}
				t.Errorf("victim %d, want %d (effective distances %v)", got, tc.want, ds)
			}
		})
	}
}

// TestVictimOracleOption checks the option's names and that an unknown
// heuristic is refused.
func TestVictimOracleOption(t *testing.T) {
	for _, o := range VictimOracles {
		got, err := ParseVictimOracle(o.String())
		if err != nil || got != o {
			t.Errorf("ParseVictimOracle(%q) = %v, %v", o.String(), got, err)
		}
	}
	if _, err := ParseVictimOracle("furthest"); err == nil {
		t.Error("an unknown name is accepted")
	}
	kernels, _ := testprogFuncs(t)
	if _, err := Allocate(kernels[0], Options{Oracle: numOracles}); err == nil {
		t.Error("an unknown heuristic is accepted")
	}
}

// runOracle allocates every function of funcs with heuristic o and the
// given registers, checking each allocation.
func runOracle(t testing.TB, funcs []*mir.Func, o VictimOracle, regs mir.RegSet) Stats {
	var st Stats
	for _, f := range funcs {
		r, err := Allocate(f, Options{Oracle: o, Regs: regs})
		if err != nil {
			t.Fatalf("%s %s: %v", o, f.Name, err)
		}
		if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
			t.Fatalf("%s %s: %v", o, f.Name, err)
		}
		st.Add(&r.Stats)
	}
	return st
}

// TestVictimOracleFigures compares the spill heuristics on the kernels
// and the programs (lowered with the static estimate), and on the kernels
// lowered with the profile of a run (profiledKernels), with every
// register and with few (tightRegs): the static spill code the integrated
// pass reports (spills, reloads, rematerializations and moves in regions
// and on edges) and its frequency-weighted version (the block frequencies
// of the estimate or of the profile), and their weighted total. Every
// allocation is checked. The table is the report (go test ./sched -run
// VictimOracleFigures -v); BenchmarkVictimOracles measures the compile
// time.
func TestVictimOracleFigures(t *testing.T) {
	kernels, programs := testprogFuncs(t)
	profiled := profiledKernels(t)
	var s strings.Builder
	fmt.Fprintf(&s, "\n%-9s %-6s %-6s %6s %7s %6s %6s %6s %6s %6s %6s %9s %9s %9s %9s %9s %9s\n",
		"set", "regs", "policy", "spills", "reloads", "remats", "moves", "e.ld", "e.st", "e.mov", "e.rem",
		"w.spills", "w.reloads", "w.remats", "w.moves", "w.edges", "w.total")
	for _, set := range []struct {
		name  string
		funcs []*mir.Func
	}{{"kernels", kernels}, {"programs", programs}, {"kern.prof", profiled}} {
		for _, regs := range []struct {
			name string
			set  mir.RegSet
		}{{"all", 0}, {"tight", tightRegs}} {
			for _, o := range VictimOracles {
				st := runOracle(t, set.funcs, o, regs.set)
				edges := st.WeightedEdgeLoads + st.WeightedEdgeStores + st.WeightedEdgeMoves + st.WeightedEdgeRemats
				fmt.Fprintf(&s, "%-9s %-6s %-6s %6d %7d %6d %6d %6d %6d %6d %6d %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
					set.name, regs.name, o, st.Spills, st.Reloads, st.Remats, st.Moves,
					st.EdgeLoads, st.EdgeStores, st.EdgeMoves, st.EdgeRemats,
					st.WeightedSpills, st.WeightedReloads, st.WeightedRemats, st.WeightedMoves, edges,
					st.WeightedSpills+st.WeightedReloads+st.WeightedRemats+st.WeightedMoves+edges)
			}
		}
	}
	t.Log(s.String())
}

// BenchmarkVictimOracles times Allocate (NoVerify, as the JIT runs it)
// with each spill heuristic on every function of the kernels and the
// programs, with every register and with few. The heuristics run back to
// back on each function, in turns, and each function's time is the minimum
// over the iterations, which keeps the ratios stable on a busy machine. It reports
// nanoseconds per input instruction of the sums, the ratios to the
// default heuristic, the distance analysis's share of the ED runs (it runs
// only in functions that spill), and the ratio of the expected-distance
// analysis run on every function (as an eager analysis would) to the
// comparator's allocation time. The reference for the spill heuristics'
// budget is the comparator without spill placement and without waiting
// for nodes in flight under pressure, the pass as it was before
// expected-distance spilling: ed+place/thesis-noplace is the ratio of the
// expected-distance heuristic with placement to it.
func BenchmarkVictimOracles(b *testing.B) {
	kernels, programs := testprogFuncs(b)
	funcs := append(kernels, programs...)
	instrs := numInstrs(funcs)
	for _, regs := range []struct {
		name string
		set  mir.RegSet
	}{{"all", 0}, {"tight", tightRegs}} {
		b.Run(regs.name, func(b *testing.B) {
			const eager = numOracles       // the analysis alone
			const noPlace = numOracles + 1 // the default heuristic without placement
			best := make([][numOracles + 2]time.Duration, len(funcs))
			analysis := make([]time.Duration, len(funcs))
			keep := func(d *time.Duration, x time.Duration) {
				if *d == 0 || x < *d {
					*d = x
				}
			}
			for iter := 0; b.Loop(); iter++ {
				for i, f := range funcs {
					// The first run on a function pays for bringing it into
					// the cache: the heuristics take turns at it.
					for j := range len(VictimOracles) + 1 {
						k := (iter + j) % (len(VictimOracles) + 1)
						arm := noPlace
						opts := Options{Oracle: OracleThesis, Regs: regs.set, NoVerify: true, NoPlacement: true, NoPressureWait: true}
						if k < len(VictimOracles) {
							arm = VictimOracles[k]
							opts = Options{Oracle: arm, Regs: regs.set, NoVerify: true}
						}
						start := time.Now()
						r, err := Allocate(f, opts)
						elapsed := time.Since(start)
						if err != nil {
							b.Fatal(err)
						}
						keep(&best[i][arm], elapsed)
						if arm == OracleED {
							keep(&analysis[i], r.Stats.Distance)
						}
					}
					start := time.Now()
					if _, err := EDAnalyze(f, EDOptions{}); err != nil {
						b.Fatal(err)
					}
					keep(&best[i][eager], time.Since(start))
				}
			}
			var sum [numOracles + 2]time.Duration
			var share time.Duration
			for i := range funcs {
				for o := range sum {
					sum[o] += best[i][o]
				}
				share += analysis[i]
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(instrs) }
			for _, o := range VictimOracles {
				b.ReportMetric(per(sum[o]), o.String()+"-ns/instr")
			}
			b.ReportMetric(float64(sum[OracleED])/float64(sum[OracleThesis]), "ed/thesis")
			b.ReportMetric(float64(sum[OracleNNU])/float64(sum[OracleThesis]), "nnu/thesis")
			b.ReportMetric(float64(share)/float64(sum[OracleED]), "ed-analysis-share")
			b.ReportMetric(float64(sum[eager])/float64(sum[OracleThesis]), "eager-analysis/thesis")
			b.ReportMetric(float64(sum[OracleED])/float64(sum[noPlace]), "ed+place/thesis-noplace")
		})
	}
}
