package sched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/internal/cfg"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
)

// edFill returns n instructions without register operands, to give
// blocks their lengths.
func edFill(n int) string { return strings.Repeat("  Count #0\n", n) }

func edAnalyze(t testing.TB, f *mir.Func, opts EDOptions) *EDAnalysis {
	t.Helper()
	a, err := EDAnalyze(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// edNear reports whether got is want within tol relative to max(1, |want|),
// infinities matching exactly.
func edNear(got, want, tol float64) bool {
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// fig34 is the loop of Fig. 3.4: v0 (R8) is defined in b0 (B0), and b1
// (B1) uses it at distance 3, then loops back with probability p or leaves
// to b2 (B2), where it is dead.
func fig34(p float64) string {
	return fmt.Sprintf(`func fig34 #0 () -> () nonssa
  vregs 2
b0: freq=1
  v0:gpr = MOVQconst $12
  v1:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0,b1 freq=10
  v1:gpr = ADDQconst v1, $1
  Count #0
  v0:gpr = SUBQconst v0, $1
  CMPQconst v0, $0
  JCC.g -> b1 %v, b2 %v
b2: preds=b1 freq=1
  RET
end
`, p, 1-p)
}

// §9.A item 1 (and item 2: 0·∞ = 0): EDBot_B1 = 3 and LPBot_B1 = p, and
// the dead-edge estimator (eq. 3.6) gives 3.33 at p = 0.9 and 30 at 0.1.
func TestEDFig3_4(t *testing.T) {
	for _, tc := range []struct {
		p           float64
		deadEdge    bool
		edBot, lpBt float64
	}{
		{0.9, false, 3, 0.9},
		{0.1, false, 3, 0.1},
		{0.9, true, 2.7 / 0.81, 0.9},
		{0.1, true, 30, 0.1},
	} {
		f := testrun.ParseFunc(t, fig34(tc.p))
		a := edAnalyze(t, f, EDOptions{DeadEdge: tc.deadEdge})
		v := mir.VReg(0)
		got := []float64{a.EDBot(v, 1), a.LPBot(v, 1), a.EDTop(v, 1), a.LPTop(v, 1), a.EDBot(v, 0), a.LPBot(v, 0)}
		want := []float64{tc.edBot, tc.lpBt, 3, 1, 3, 1}
		for i := range got {
			if !edNear(got[i], want[i], 1e-12) {
				t.Errorf("p=%v deadEdge=%v: [EDBot_B1 LPBot_B1 EDTop_B1 LPTop_B1 EDBot_B0 LPBot_B0] = %v, want %v", tc.p, tc.deadEdge, got, want)
				break
			}
		}
		// Dead at the top of B2: LP 0, ED ∞, and no NaN anywhere.
		if a.LPTop(v, 2) != 0 || !math.IsInf(a.EDTop(v, 2), 1) {
			t.Errorf("p=%v: B2 top LP %v ED %v, want 0 +Inf", tc.p, a.LPTop(v, 2), a.EDTop(v, 2))
		}
	}
}

// fig35 is the zero-count example of §3.3.3: b1 branches to b2, where v0
// is used at distance 12 (when use2), and to b3, where it is used at
// distance 3 (when use3).
func fig35(use2, use3 bool, p2 float64) string {
	b2, b3 := edFill(12), edFill(3)
	if use2 {
		b2 = edFill(11) + "  CMPQconst v0, $0\n"
	}
	if use3 {
		b3 = edFill(2) + "  CMPQconst v0, $0\n"
	}
	return fmt.Sprintf(`func fig35 #0 () -> () nonssa
  vregs 2
b0: freq=1
  v0:gpr = MOVQconst $12
  v1:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0 freq=1
  CMPQconst v1, $0
  JCC.g -> b2 %v, b3 %v
b2: preds=b1 freq=1
%s  RET
b3: preds=b1 freq=0
%s  RET
end
`, p2, 1-p2, b2, b3)
}

// §9.A item 3: add-one smoothing (exact fractions), all-zero blocks, and
// LPBot = 0 without a division.
func TestEDSmoothing(t *testing.T) {
	for _, tc := range []struct {
		name       string
		use2, use3 bool
		counts     []uint64 // b1's edge counts; nil: SuccProb
		p2         float64  // b1→b2's SuccProb when counts is nil
		lp, ed     float64
	}{
		// Counts 9 and 0 become 10 and 1: the thesis's 10/11 and 1/11.
		{"both uses, counts 9 and 0", true, true, []uint64{9, 0}, 0, 1, 123.0 / 11}, // the thesis's 11.19
		{"use behind the untaken edge", false, true, []uint64{9, 0}, 0, 1.0 / 11, 3},
		{"use behind the taken edge", true, false, []uint64{9, 0}, 0, 10.0 / 11, 12},
		{"both uses, counts 10 and 0", true, true, []uint64{10, 0}, 0, 1, 11.0/12*12 + 1.0/12*3},
		{"block never executed: uniform", true, true, []uint64{0, 0}, 0, 1, 7.5},
		{"no zero count: no smoothing", true, true, []uint64{10, 5}, 0, 1, 9},
		{"unsmoothed zero edge: LPBot 0, no division", false, true, nil, 1, 0, math.Inf(1)},
		{"unsmoothed zero edge, use behind the taken edge", true, true, nil, 1, 1, 12},
	} {
		f := testrun.ParseFunc(t, fig35(tc.use2, tc.use3, tc.p2))
		var opts EDOptions
		if tc.counts != nil {
			opts.EdgeCounts = [][]uint64{{1}, tc.counts, nil, nil}
		}
		a := edAnalyze(t, f, opts)
		v := mir.VReg(0)
		if lp, ed := a.LPBot(v, 1), a.EDBot(v, 1); !edNear(lp, tc.lp, 1e-15) || !edNear(ed, tc.ed, 1e-14) {
			t.Errorf("%s: LPBot %v EDBot %v, want %v %v", tc.name, lp, ed, tc.lp, tc.ed)
		}
	}
	for _, tc := range []struct {
		counts []uint64
		want   []float64
	}{
		{[]uint64{9, 0}, []float64{10.0 / 11, 1.0 / 11}},
		{[]uint64{0, 9}, []float64{1.0 / 11, 10.0 / 11}},
		{[]uint64{10, 0}, []float64{11.0 / 12, 1.0 / 12}},
		{[]uint64{0, 0, 0}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{[]uint64{3, 1}, []float64{0.75, 0.25}},
		{[]uint64{7}, []float64{1}},
		{[]uint64{0}, []float64{1}},
		{nil, []float64{}},
	} {
		got := EDEdgeProbabilities(tc.counts)
		if len(got) != len(tc.want) {
			t.Fatalf("EDEdgeProbabilities(%v) = %v, want %v", tc.counts, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("EDEdgeProbabilities(%v) = %v, want %v", tc.counts, got, tc.want)
				break
			}
		}
	}
}

// TestEDSmoothingMatchesProfileCounters checks EDEdgeProbabilities against
// profilecounters' smoothing of bytecode edge counters, on every kernel
// function with random counters (a third of them zero).
func TestEDSmoothingMatchesProfileCounters(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	checked := 0
	for _, k := range testprogs.Kernels() {
		for _, fn := range k.Module.Funcs {
			l := profilecounters.NewLayout(fn)
			counters := l.NewCounters()
			for i := range counters {
				if r.IntN(3) > 0 {
					counters[i] = uint64(r.IntN(1000))
				}
			}
			counters[0] = 1
			want := l.Probabilities(counters)
			counts := l.EdgeCounts(counters)
			for b := range l.Blocks {
				blk := &l.Blocks[b]
				lo, hi := int(blk.FirstEdge), int(blk.FirstEdge+blk.NumEdges)
				got := EDEdgeProbabilities(counts[lo:hi])
				for i := range got {
					if got[i] != want[lo+i] {
						t.Fatalf("%s block %d: %v, profilecounters %v", k.Name, b, got, want[lo:hi])
					}
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// loopVector is the loop of the note's §3.4 example: header b1 (H, 2
// instructions), body b2 (B, 5 instructions) going back to H with
// probability p or on to b3 (X), whose first instruction uses v0.
func loopVector(p float64) string {
	return fmt.Sprintf(`func loopvec #0 () -> () nonssa
  vregs 2
b0: freq=1
  v0:gpr = MOVQconst $7
  v1:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0,b2 freq=10
  Count #0
  JMP -> b2 1
b2: preds=b1 freq=10
%s  CMPQconst v1, $0
  JCC.g -> b1 %v, b3 %v
b3: preds=b2 freq=1
  CMPQconst v0, $0
  RET
end
`, edFill(3), p, 1-p)
}

// §9.A item 4: the loop vector EDTop_B = 69, EDBot_B = 64, EDTop_H = 71 at
// p = 0.9. The values depend on p (EDBot_B = 7p/(1−p) + 1), so at p =
// 0.999 they are 6994, 6999 and 7001: the exact solver gets them, and the
// plain worklist iteration does not within its visit cap.
func TestEDLoopVector(t *testing.T) {
	for _, tc := range []struct {
		p                   float64
		edTopB, edBotB, edH float64
	}{
		{0.9, 69, 64, 71},
		{0.999, 6999, 6994, 7001},
		{0.5, 13, 8, 15},
		{1 - 1e-9, 7*(1-1e-9)/1e-9 + 6, 7*(1-1e-9)/1e-9 + 1, 7*(1-1e-9)/1e-9 + 8},
	} {
		f := testrun.ParseFunc(t, loopVector(tc.p))
		v := mir.VReg(0)
		a := edAnalyze(t, f, EDOptions{})
		got := []float64{a.EDTop(v, 2), a.EDBot(v, 2), a.EDTop(v, 1), a.LPTop(v, 2), a.LPTop(v, 1)}
		want := []float64{tc.edTopB, tc.edBotB, tc.edH, 1, 1}
		tol := 1e-3 / max(tc.edH, 1) // 1e-3 absolute
		if tc.p > 0.9999 {
			tol = 1e-6 // relative: 1−p itself carries rounding
		}
		for i := range got {
			if !edNear(got[i], want[i], tol) {
				t.Errorf("p=%v: [EDTop_B EDBot_B EDTop_H LPTop_B LPTop_H] = %v, want %v", tc.p, got, want)
				break
			}
		}
		if s := a.Stats(); s.Iterated != 0 || s.Eliminated != 2 {
			t.Errorf("p=%v: stats %+v, want both registers eliminated", tc.p, s)
		}

		// The worklist iteration of Alg. 10 from LP = 0 converges at rate p.
		it := edAnalyze(t, f, EDOptions{Iterate: true})
		conv := it.Stats().Unconverged == 0
		errB := math.Abs(it.EDBot(v, 2) - tc.edBotB)
		t.Logf("p=%v: elimination work %d; iteration (cap %d visits) converged=%v, EDBot_B %.6g (error %.3g), work %d",
			tc.p, a.Stats().Work, EDDefaultMaxVisits, conv, it.EDBot(v, 2), errB, it.Stats().Work)
		if tc.p == 0.999 {
			long := edAnalyze(t, f, EDOptions{Iterate: true, MaxVisits: 1 << 20})
			t.Logf("p=%v: iteration without a practical cap: converged=%v, EDBot_B %.9g, work %d",
				tc.p, long.Stats().Unconverged == 0, long.EDBot(v, 2), long.Stats().Work)
		}
		switch {
		case tc.p <= 0.9 && (!conv || errB > 1e-3):
			t.Errorf("p=%v: iteration converged=%v with error %v", tc.p, conv, errB)
		case tc.p >= 0.999 && (conv || errB < 1):
			t.Errorf("p=%v: iteration should hit the visit cap far from the solution: converged=%v error %v", tc.p, conv, errB)
		}
	}
}

// fig31 is the CFG of Fig. 3.1 for V3 (v0): the spill point is 4
// instructions from the bottom of the leftmost block L (b1); L goes to M
// (b2, 8 instructions) and to a block of 22 (b3); M goes to the topmost
// block T (b4, V3 at 12) and to N (b5, 4 instructions); N and the block of
// 22 go to the rightmost block R (b6, V3 at 3). With loop set, T jumps
// back to L, so that L, M and T form a loop that L→b3 and M→N leave.
func fig31(loop bool) string {
	tEnd, lPreds := "  RET\n", "b0"
	if loop {
		tEnd, lPreds = "  JMP -> b1 1\n", "b0,b4"
	}
	return fmt.Sprintf(`func fig31 #0 () -> () nonssa
  vregs 2
b0: freq=1
  v0:gpr = MOVQconst $3
  v1:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=%s freq=1
%s  CMPQconst v1, $0
  JCC.g -> b2 0.5, b3 0.5
b2: preds=b1 freq=1
%s  CMPQconst v1, $0
  JCC.g -> b4 0.5, b5 0.5
b3: preds=b1 freq=1
%s  JMP -> b6 1
b4: preds=b2 freq=1
%s  CMPQconst v0, $0
%sb5: preds=b2 freq=1
%s  JMP -> b6 1
b6: preds=b3,b5 freq=1
%s  CMPQconst v0, $0
  RET
end
`, lPreds, edFill(4), edFill(6), edFill(21), edFill(11), tEnd, edFill(3), edFill(2))
}

// §9.A item 5: the nearest next use of V3 at the spill point of Fig. 3.1 is
// min(24, 29, 19) = 19; with the loop, Braun and Hack's exit penalty
// leaves only the path that stays in the loop (24). The expected distance
// of the same point with probabilities 0.5 is 4 + 21.25.
func TestNNUFig3_1(t *testing.T) {
	v := mir.VReg(0)
	for _, tc := range []struct {
		name string
		loop bool
		opts NNUOptions
		want float64
	}{
		{"acyclic", false, NNUOptions{}, 19},
		{"acyclic, no exit penalty", false, NNUOptions{NoExitPenalty: true}, 19},
		{"loop, no exit penalty", true, NNUOptions{NoExitPenalty: true}, 19},
		{"loop, exit penalty", true, NNUOptions{}, 24},
		{"loop, exit penalty 50", true, NNUOptions{ExitPenalty: 50}, 24},
		{"loop, exit penalty 1", true, NNUOptions{ExitPenalty: 1}, 20},
	} {
		f := testrun.ParseFunc(t, fig31(tc.loop))
		a := NNUAnalyze(f, tc.opts)
		pos := len(f.Blocks[1].Instrs) - 4
		if got := a.Distance(v, 1, pos); got != tc.want {
			t.Errorf("%s: NNU distance %v, want %v", tc.name, got, tc.want)
		}
		// The three candidate paths, from the block tops.
		if !tc.loop {
			if got := []float64{a.Top(v, 4), a.Top(v, 3), a.Top(v, 5), a.Top(v, 2)}; fmt.Sprint(got) != "[12 25 7 15]" {
				t.Errorf("%s: tops of T, b3, N, M = %v, want [12 25 7 15]", tc.name, got)
			}
		}
	}
	ed := edAnalyze(t, testrun.ParseFunc(t, fig31(false)), EDOptions{})
	if got := ed.Distance(v, 1, 2); got != 4+21.25 {
		t.Errorf("expected distance %v, want 25.25", got)
	}
}

// alg3 exercises Alg. 3: b1 uses v0 first, defines v1 without using it,
// then uses and redefines it, and leaves v2 (used 2 instructions into b2)
// and v1 live; v3..v9 are rematerializable or not.
const alg3 = `func alg3 #0 (gpr) -> () nonssa
  vregs 10
  pins v9=rdi
b0: freq=1
  v9:gpr = Arg #0
  v0:gpr = MOVQconst $1
  v1:gpr = MOVQconst $2
  v2:gpr = LEAQ v9, $3
  v3:gpr = MOVQconst $-5
  v4:gpr = MOVQconst $81985529216486895
  v5:xmm = MOVSDconst $0
  v6:xmm = MOVSDconst $4607182418800017408
  v7:gpr = CtxLoad #0
  v8:gpr = MOVQconst $1
  JMP -> b1 1
b1: preds=b0 freq=1
  CMPQconst v0, $0
  v1:gpr = MOVQconst $4
  Count #0
  v1:gpr = ADDQconst v1, $1
  Count #0
  JMP -> b2 1
b2: preds=b1 freq=1
  v8:gpr = MOVQconst $2
  CMPQconst v2, $0
  CMPQconst v1, $0
  CMPQconst v3, $0
  CMPQconst v4, $0
  CMPQconst v7, $0
  CMPQconst v8, $0
  UCOMISD v5, v6
  RET
end
`

// §9.A item 6: Alg. 3 semantics, the convention of the distance from a
// point, and the multipliers.
func TestEDAlg3(t *testing.T) {
	f := testrun.ParseFunc(t, alg3)
	a := edAnalyze(t, f, EDOptions{})
	inf := math.Inf(1)
	n := len(f.Blocks[1].Instrs) // 6
	for _, tc := range []struct {
		name   string
		v, pos int
		want   float64
	}{
		{"use at pos", 0, 0, 1},
		{"no reference left, dead out", 0, 1, inf},
		{"definition first", 1, 0, inf},
		{"definition first, from it", 1, 1, inf},
		{"use and redefinition in one instruction is a use", 1, 2, 2},
		{"use and redefinition, at it", 1, 3, 1},
		{"no reference left: count + EDBot", 1, 4, 2 + 3},
		{"not referenced: count + EDBot", 2, 0, float64(n) + 2},
		{"not referenced, middle", 2, 3, 3 + 2},
		{"bottom: EDBot", 2, n, 2},
		{"beyond the bottom is the bottom", 2, n + 5, 2},
		{"before the top is the top", 2, -3, float64(n) + 2},
		{"redefined in the successor", 8, 0, inf},
	} {
		got := a.Distance(mir.VReg(tc.v), 1, tc.pos)
		if got != tc.want {
			t.Errorf("%s: Distance(v%d, b1, %d) = %v, want %v", tc.name, tc.v, tc.pos, got, tc.want)
		}
	}
	// Distance at the top is EDTop.
	for _, v := range []int{0, 2, 3, 4} {
		if d, top := a.Distance(mir.VReg(v), 1, 0), a.EDTop(mir.VReg(v), 1); d != top {
			t.Errorf("v%d: Distance at the top %v, EDTop %v", v, d, top)
		}
	}
	if d := a.Distance(mir.RAX, 1, 0); !math.IsInf(d, 1) {
		t.Errorf("a physical register's distance %v, want +Inf", d)
	}

	// Multipliers, applied on return.
	for _, tc := range []struct {
		v    int
		mult float64
		why  string
	}{
		{9, 1, "an argument is dirty"},
		{2, 1, "LEAQ is not rematerializable"},
		{0, EDMultCheap, "MOVQconst $1"},
		{3, EDMultCheap, "MOVQconst with a negative 32-bit immediate"},
		{4, EDMultCostly, "MOVQconst with a 64-bit immediate (movabs)"},
		{5, EDMultCheap, "MOVSDconst 0 (xorps)"},
		{6, EDMultCostly, "MOVSDconst 1.0 (a constant-pool load)"},
		{7, EDMultCostly, "CtxLoad (a context load)"},
		{1, 1, "defined by two different constants and an ADDQconst"},
		{8, 1, "defined by two different constants"},
	} {
		v := mir.VReg(tc.v)
		if got := a.Multiplier(v); got != tc.mult {
			t.Errorf("v%d (%s): multiplier %v, want %v", tc.v, tc.why, got, tc.mult)
		}
		for pos := 0; pos <= n; pos++ {
			d, e := a.Distance(v, 1, pos), a.EffectiveDistance(v, 1, pos)
			if want := d * tc.mult; e != want {
				t.Errorf("v%d at %d: effective distance %v, want %v", tc.v, pos, e, want)
			}
		}
	}
	var _ NextUseOracle = a
	var _ NextUseOracle = NNUAnalyze(f, NNUOptions{})
}

// TestEDPhis checks the φ convention in SSA form: an operand is a use on
// its edge at distance 1, the result a definition at the top.
func TestEDPhis(t *testing.T) {
	f := testrun.ParseFunc(t, `func phis #0 (gpr) -> (gpr gpr) ssa
  vregs 6
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $1
  CMPQconst v0, $0
  JCC.l -> b1 0.25, b2 0.75
b1: preds=b0 freq=0.25
  v4:gpr = MOVQconst $5
  Count #0
  JMP -> b3 1
b2: preds=b0 freq=0.75
  JMP -> b3 1
b3: preds=b1,b2 freq=1
  v2:gpr = Phi v0, v1
  v5:gpr = Phi v4, v1
  v3:gpr = LEAQ v2, $1
  RET v3, v5
end
`)
	a := edAnalyze(t, f, EDOptions{})
	v0, v1, v2, v4 := mir.VReg(0), mir.VReg(1), mir.VReg(2), mir.VReg(4)
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"LPBot v0 b1", a.LPBot(v0, 1), 1},
		{"EDBot v0 b1", a.EDBot(v0, 1), 1},
		{"EDTop v0 b1", a.EDTop(v0, 1), 4},
		{"LPBot v0 b2 (dead)", a.LPBot(v0, 2), 0},
		{"LPBot v0 b0", a.LPBot(v0, 0), 0.25},
		{"EDBot v0 b0", a.EDBot(v0, 0), 4},
		{"LPBot v1 b0", a.LPBot(v1, 0), 0.75},
		{"EDBot v1 b0", a.EDBot(v1, 0), 2},
		{"LPTop v2 b3 (φ result)", a.LPTop(v2, 3), 0},
		{"Distance v2 b3 after the φs", a.Distance(v2, 3, 2), 1},
		{"Distance v2 b3 at the φ", a.Distance(v2, 3, 0), math.Inf(1)},
		{"Distance v2 b3 between the φs", a.Distance(v2, 3, 1), 1},
		{"Distance v0 b1 top", a.Distance(v0, 1, 0), 4},
		// v4 is live only on the edge into the φ.
		{"LPBot v4 b1 (φ operand only)", a.LPBot(v4, 1), 1},
		{"EDBot v4 b1 (φ operand only)", a.EDBot(v4, 1), 1},
		{"Distance v4 b1 after its definition", a.Distance(v4, 1, 1), 3},
		{"LPTop v4 b1 (defined there)", a.LPTop(v4, 1), 0},
		{"EDBot v1 b2 (two φs read it)", a.EDBot(v1, 2), 1},
	} {
		if !edNear(tc.got, tc.want, 1e-15) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	nnu := NNUAnalyze(f, NNUOptions{})
	if got := []float64{nnu.Bot(v0, 0), nnu.Bot(v4, 1), nnu.Top(v4, 1)}; fmt.Sprint(got) != "[4 1 +Inf]" {
		t.Errorf("NNU Bot v0 b0, Bot v4 b1, Top v4 b1 = %v, want [4 1 +Inf]", got)
	}
}

// edIrreducible is a loop with two entries: b0 enters at b1 (3
// instructions) or b2 (4); each goes to the other with probability p or
// leaves to b3, whose first instruction uses v0.
func edIrreducible(p float64) string {
	return fmt.Sprintf(`func irr #0 () -> () nonssa
  vregs 2
b0: freq=1
  v0:gpr = MOVQconst $7
  v1:gpr = MOVQconst $0
  CMPQconst v1, $0
  JCC.g -> b1 0.5, b2 0.5
b1: preds=b0,b2 freq=1
%s  CMPQconst v1, $0
  JCC.g -> b2 %v, b3 %v
b2: preds=b0,b1 freq=1
%s  CMPQconst v1, $0
  JCC.g -> b1 %v, b3 %v
b3: preds=b1,b2 freq=1
  CMPQconst v0, $0
  RET
end
`, edFill(1), p, 1-p, edFill(2), p, 1-p)
}

// TestEDIrreducible: the two-entry loop terminates with finite, exact
// values (EDTop_b1 = (3+4p)/(1−p²) + 1) by elimination, and the iteration
// stops at its visit cap.
func TestEDIrreducible(t *testing.T) {
	for _, p := range []float64{0.5, 0.9, 0.999} {
		f := testrun.ParseFunc(t, edIrreducible(p))
		v := mir.VReg(0)
		a := edAnalyze(t, f, EDOptions{})
		w1 := (3+4*p)/(1-p*p) + 1
		w2 := (4+3*p)/(1-p*p) + 1
		if !edNear(a.EDTop(v, 1), w1, 1e-9) || !edNear(a.EDTop(v, 2), w2, 1e-9) || a.LPTop(v, 1) != 1 {
			t.Errorf("p=%v: EDTop %v %v LP %v, want %v %v 1", p, a.EDTop(v, 1), a.EDTop(v, 2), a.LPTop(v, 1), w1, w2)
		}
		if w := 0.5*w1 + 0.5*w2; !edNear(a.EDBot(v, 0), w, 1e-9) {
			t.Errorf("p=%v: EDBot_b0 %v, want %v", p, a.EDBot(v, 0), w)
		}
		it := edAnalyze(t, f, EDOptions{Iterate: true, MaxVisits: 50})
		for _, d := range []float64{it.EDTop(v, 1), it.EDTop(v, 2), it.EDBot(v, 0)} {
			if math.IsInf(d, 0) || math.IsNaN(d) {
				t.Errorf("p=%v: iterated distance %v", p, d)
			}
		}
	}
}

// TestEDClosedCycle: a self loop taken with probability 1 whose only way
// to v's use is an edge of probability 0 never reaches the use (LP 0, ED
// ∞, nothing divided, with either solver); with add-one smoothing of
// counts (5, 0) the loop is left with probability 1/7 and EDTop is
// 7·|b1| + 1.
func TestEDClosedCycle(t *testing.T) {
	src := `func closed #0 () -> () nonssa
  vregs 2
b0: freq=1
  v0:gpr = MOVQconst $7
  v1:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0,b1 freq=1
  CMPQconst v1, $0
  JCC.g -> b1 1, b2 0
b2: preds=b1 freq=0
  CMPQconst v0, $0
  RET
end
`
	f := testrun.ParseFunc(t, src)
	v := mir.VReg(0)
	for _, opts := range []EDOptions{{}, {Iterate: true}} {
		a := edAnalyze(t, f, opts)
		if lp, ed := a.LPTop(v, 1), a.EDTop(v, 1); lp != 0 || !math.IsInf(ed, 1) {
			t.Errorf("iterate=%v: LPTop %v EDTop %v, want 0 +Inf", opts.Iterate, lp, ed)
		}
		if lp, ed := a.LPBot(v, 0), a.EDBot(v, 0); lp != 0 || !math.IsInf(ed, 1) {
			t.Errorf("iterate=%v: LPBot_b0 %v EDBot_b0 %v, want 0 +Inf", opts.Iterate, lp, ed)
		}
	}
	a := edAnalyze(t, f, EDOptions{EdgeCounts: [][]uint64{{1}, {5, 0}, nil}})
	if lp, ed := a.LPTop(v, 1), a.EDTop(v, 1); !edNear(lp, 1, 1e-12) || !edNear(ed, 15, 1e-12) {
		t.Errorf("smoothed: LPTop %v EDTop %v, want 1 15", lp, ed)
	}
}

// TestEDFallback forces every register's elimination over its budget:
// the worklist iteration then solves it, and agrees with the reference.
func TestEDFallback(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 1))
	iterated := 0
	for i := range 50 {
		f := edRandomFunc(r, 2+r.IntN(10), 1+r.IntN(5))
		a := edAnalyze(t, f, EDOptions{elimBudget: 1, MaxVisits: 100000})
		s := a.Stats()
		if s.Eliminated != 0 || s.Unconverged != 0 {
			t.Fatalf("random %d: stats %+v", i, s)
		}
		iterated += s.Iterated
		edCompare(t, fmt.Sprintf("random %d", i), f, a, edDenseSolve(f), 1e-6)
	}
	if iterated == 0 {
		t.Fatal("nothing iterated")
	}
}

// TestEDLiveness checks the analysis's live sets against
// mir.ComputeSparseLiveness on random functions and the kernels (which
// leaves unreachable blocks empty; the analysis also covers those).
func TestEDLiveness(t *testing.T) {
	var funcs []*mir.Func
	r := rand.New(rand.NewPCG(1, 9))
	for range 100 {
		funcs = append(funcs, edRandomFunc(r, 2+r.IntN(12), 1+r.IntN(6)))
	}
	for _, k := range testprogs.Kernels() {
		funcs = append(funcs, destructModule(t, k.Module)...)
	}
	for _, f := range funcs {
		a := edAnalyze(t, f, EDOptions{})
		live := mir.ComputeSparseLiveness(f)
		reach := f.Graph().Reachable()
		for b := range f.Blocks {
			if !reach[b] {
				continue
			}
			for vi := range f.VRegs {
				if got, want := a.inIndex(int32(vi), b) >= 0, live.LiveIn(b, vi); got != want {
					t.Fatalf("%s v%d b%d: live in %v, mir %v", f.Name, vi, b, got, want)
				}
				if got, want := a.outIndex(int32(vi), b) >= 0, live.LiveOut(b, vi); got != want {
					t.Fatalf("%s v%d b%d: live out %v, mir %v", f.Name, vi, b, got, want)
				}
			}
		}
	}
}

// edRandomFunc builds a random function of nb blocks over nv registers:
// block b always goes on to b+1 (so every block is reachable and reaches
// an exit), and may have up to two more successors anywhere (self loops,
// back edges, irreducible entries, repeated successors), with random
// probabilities; a block may also return early. The analysis reads only the operand lists, so the body
// instructions are parallel copies with random uses and definitions.
func edRandomFunc(r *rand.Rand, nb, nv int) *mir.Func { return edRandomCFG(r, nb, nv, true, false) }

// edRandomCFG is edRandomFunc, leaving the blocks after an early return
// unreachable unless reachable is set, and with φs at the start of some
// blocks when phis is set.
func edRandomCFG(r *rand.Rand, nb, nv int, reachable, phis bool) *mir.Func {
	f := mir.NewFunc("rand", 0, nil, nil)
	f.Form = mir.FormNonSSA
	for range nv {
		f.NewVReg(mir.GPR)
	}
	for range nb {
		f.NewBlock()
	}
	randRegs := func(n int) []mir.Reg {
		var rs []mir.Reg
		for range n {
			rs = append(rs, mir.VReg(r.IntN(nv)))
		}
		return rs
	}
	for b := range nb {
		blk := f.Blocks[b]
		for range r.IntN(5) {
			blk.Append(f.NewInstr(mir.Instr{Op: mir.OpParCopy, Uses: randRegs(r.IntN(3)), Defs: randRegs(r.IntN(2)), Pos: -1}))
		}
		if b == nb-1 || (b > 0 && r.IntN(8) == 0) {
			blk.Append(f.NewInstr(mir.Instr{Op: mir.OpRET, Uses: randRegs(r.IntN(2)), Pos: -1}))
			continue
		}
		succs := []int{b + 1}
		for range r.IntN(3) {
			succs = append(succs, r.IntN(nb))
		}
		for _, s := range succs {
			f.AddEdge(b, s, 0)
		}
		blk.Append(f.NewInstr(mir.Instr{Op: mir.OpJMP, Uses: randRegs(r.IntN(2)), Pos: -1}))
	}
	// Blocks after an early return may be unreachable: give each such
	// block an edge from the entry.
	for reachable {
		reach := f.Graph().Reachable()
		b := slices.Index(reach, false)
		if b < 0 {
			break
		}
		f.AddEdge(0, b, 0)
	}
	for _, blk := range f.Blocks {
		sum := 0.0
		for i := range blk.SuccProb {
			blk.SuccProb[i] = 0.05 + r.Float64()
			sum += blk.SuccProb[i]
		}
		for i := range blk.SuccProb {
			blk.SuccProb[i] /= sum
		}
		if t := blk.Terminator(); t.Op != mir.OpRET {
			switch len(blk.Succs) {
			case 1:
				t.Op = mir.OpJMP
			case 2:
				t.Op = mir.OpJCC
			default:
				t.Op = mir.OpJMPTABLE
			}
		}
	}
	for _, blk := range f.Blocks {
		if !phis || len(blk.Preds) == 0 {
			continue
		}
		for range r.IntN(3) {
			phi := f.NewInstr(mir.Instr{Op: mir.OpPhi, Defs: randRegs(1), Uses: randRegs(len(blk.Preds)), Pos: -1})
			blk.Instrs = append([]*mir.Instr{phi}, blk.Instrs...)
		}
	}
	return f
}

// edFirstRef classifies v's first reference in block b: 1 and the distance
// for a use, 2 for a definition, 0 for none.
func edFirstRef(blk *mir.Block, v mir.Reg) (kind int, dist float64) {
	np := len(blk.Phis())
	for i, in := range blk.Instrs {
		if in.Op != mir.OpPhi && slices.Contains(in.Uses, v) {
			return 1, float64(i - np + 1)
		}
		if slices.Contains(in.Defs, v) {
			return 2, 0
		}
	}
	return 0, 0
}

// edLen is a block's length without its φs.
func edLen(blk *mir.Block) float64 { return float64(len(blk.Instrs) - len(blk.Phis())) }

// edPhiUse reports whether a φ of the target of edge k out of block b
// reads v on that edge (pp is mir.PredPositions(f)).
func edPhiUse(f *mir.Func, pp mir.EdgePositions, b, k int, v mir.Reg) bool {
	pos := pp.At(b, k)
	if pos < 0 {
		return false
	}
	for _, phi := range f.Blocks[f.Blocks[b].Succs[k]].Phis() {
		if pos < len(phi.Uses) && phi.Uses[pos] == v {
			return true
		}
	}
	return false
}

// edDense is the reference: for each register, equations (3.1)–(3.4) over
// every block, as two dense linear systems (LP and LP·ED at the tops of the
// blocks that do not reference it) solved by Gaussian elimination with
// partial pivoting. A φ operand is a use at distance 1 on its edge. It
// assumes every block can reach an exit.
type edDense struct {
	lpTop, edTop, lpBot, edBot [][]float64 // [v][b]
}

func edDenseSolve(f *mir.Func) *edDense {
	nb, nv := len(f.Blocks), len(f.VRegs)
	r := &edDense{}
	pp := mir.PredPositions(f)
	prob := make([][]float64, nb)
	for b, blk := range f.Blocks {
		sum := 0.0
		for _, p := range blk.SuccProb {
			sum += p
		}
		prob[b] = make([]float64, len(blk.Succs))
		for k := range prob[b] {
			if sum > 0 {
				prob[b][k] = blk.SuccProb[k] / sum
			} else {
				prob[b][k] = 1 / float64(len(blk.Succs))
			}
		}
	}
	for vi := range nv {
		v := mir.VReg(vi)
		kind := make([]int, nb)
		dist := make([]float64, nb)
		idx := make([]int, nb)
		var unk []int
		for b, blk := range f.Blocks {
			kind[b], dist[b] = edFirstRef(blk, v)
			idx[b] = -1
			if kind[b] == 0 {
				idx[b] = len(unk)
				unk = append(unk, b)
			}
		}
		n := len(unk)
		// (I − A)·[x y] = [bx by], by depending on x: solve x first.
		mat := make([][]float64, n)
		bx := make([]float64, n)
		for i, b := range unk {
			mat[i] = make([]float64, n)
			mat[i][i] = 1
			blk := f.Blocks[b]
			for k, s := range blk.Succs {
				p := prob[b][k]
				switch {
				case edPhiUse(f, pp, b, k, v) || kind[s] == 1:
					bx[i] += p
				case kind[s] == 0:
					mat[i][idx[s]] -= p
				}
			}
		}
		x := edGauss(mat, bx)
		by := make([]float64, n)
		for i, b := range unk {
			blk := f.Blocks[b]
			by[i] = edLen(blk) * x[i]
			for k, s := range blk.Succs {
				switch {
				case edPhiUse(f, pp, b, k, v):
					by[i] += prob[b][k]
				case kind[s] == 1:
					by[i] += prob[b][k] * dist[s]
				}
			}
		}
		y := edGauss(mat, by)
		// A use is reachable from the blocks that reach, through blocks
		// not referencing v, a block whose first reference is a use.
		reach := make([]bool, nb)
		for changed := true; changed; {
			changed = false
			for b, blk := range f.Blocks {
				if kind[b] != 0 || reach[b] {
					continue
				}
				for k, s := range blk.Succs {
					if edPhiUse(f, pp, b, k, v) || kind[s] == 1 || kind[s] == 0 && reach[s] {
						reach[b], changed = true, true
						break
					}
				}
			}
		}
		top := func(s int) (float64, float64) {
			switch {
			case kind[s] == 0 && reach[s]:
				return x[idx[s]], y[idx[s]]
			case kind[s] == 1:
				return 1, dist[s]
			}
			return 0, 0
		}
		ratio := func(lp, m float64) (float64, float64) {
			if lp == 0 {
				return 0, math.Inf(1)
			}
			return lp, m / lp
		}
		lt, et, lb, eb := make([]float64, nb), make([]float64, nb), make([]float64, nb), make([]float64, nb)
		for b, blk := range f.Blocks {
			lt[b], et[b] = ratio(top(b))
			var sl, sm float64
			for k, s := range blk.Succs {
				l, m := top(s)
				if edPhiUse(f, pp, b, k, v) {
					l, m = 1, 1
				}
				sl += prob[b][k] * l
				sm += prob[b][k] * m
			}
			lb[b], eb[b] = ratio(sl, sm)
		}
		r.lpTop, r.edTop = append(r.lpTop, lt), append(r.edTop, et)
		r.lpBot, r.edBot = append(r.lpBot, lb), append(r.edBot, eb)
	}
	return r
}

// edGauss solves m·x = rhs (m is copied) by Gaussian elimination with
// partial pivoting.
func edGauss(m [][]float64, rhs []float64) []float64 {
	n := len(rhs)
	a := make([][]float64, n)
	for i := range m {
		a[i] = append(append([]float64(nil), m[i]...), rhs[i])
	}
	for c := range n {
		p := c
		for i := c + 1; i < n; i++ {
			if math.Abs(a[i][c]) > math.Abs(a[p][c]) {
				p = i
			}
		}
		a[c], a[p] = a[p], a[c]
		for i := c + 1; i < n; i++ {
			f := a[i][c] / a[c][c]
			for j := c; j <= n; j++ {
				a[i][j] -= f * a[c][j]
			}
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := a[i][n]
		for j := i + 1; j < n; j++ {
			s -= a[i][j] * x[j]
		}
		x[i] = s / a[i][i]
	}
	return x
}

// edCompare checks the analysis against the reference on every register
// and block, and the query conventions.
func edCompare(t *testing.T, name string, f *mir.Func, a *EDAnalysis, ref *edDense, tol float64) {
	t.Helper()
	for vi := range f.VRegs {
		v := mir.VReg(vi)
		for b, blk := range f.Blocks {
			got := [4]float64{a.LPTop(v, b), a.EDTop(v, b), a.LPBot(v, b), a.EDBot(v, b)}
			want := [4]float64{ref.lpTop[vi][b], ref.edTop[vi][b], ref.lpBot[vi][b], ref.edBot[vi][b]}
			for i := range got {
				// A distance conditioned on a tiny probability is as
				// inexact as that probability in the dense solve.
				if i%2 == 1 && want[i-1] < 1e-6 && !math.IsInf(want[i], 0) && !math.IsInf(got[i], 0) {
					continue
				}
				if math.IsNaN(got[i]) || !edNear(got[i], want[i], tol) {
					t.Fatalf("%s v%d b%d: [LPTop EDTop LPBot EDBot] = %v, reference %v\n%s", name, vi, b, got, want, mir.Format(f))
				}
			}
			if d := a.Distance(v, b, 0); d != got[1] {
				t.Fatalf("%s v%d b%d: Distance at the top %v, EDTop %v", name, vi, b, d, got[1])
			}
			if d := a.Distance(v, b, len(blk.Instrs)); d != got[3] {
				t.Fatalf("%s v%d b%d: Distance at the bottom %v, EDBot %v", name, vi, b, d, got[3])
			}
		}
	}
}

// TestEDRandomAgainstDense compares the elimination with the dense
// reference on random CFGs (irreducible ones, unreachable blocks and φs
// included), and the worklist iteration where it converges.
func TestEDRandomAgainstDense(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var elim, iter, unconv, unreachable, withPhis int
	for i := range 300 {
		// Every other function may have blocks the entry does not reach.
		f := edRandomCFG(r, 2+r.IntN(12), 1+r.IntN(6), i%2 == 0, i%3 == 0)
		if slices.Contains(f.Graph().Reachable(), false) {
			unreachable++
		}
		if slices.ContainsFunc(f.Blocks, func(b *mir.Block) bool { return len(b.Phis()) > 0 }) {
			withPhis++
		}
		ref := edDenseSolve(f)
		name := fmt.Sprintf("random %d", i)
		a := edAnalyze(t, f, EDOptions{})
		if s := a.Stats(); s.Iterated != 0 {
			t.Fatalf("%s: %d registers fell back to iteration", name, s.Iterated)
		}
		elim += a.Stats().Eliminated
		edCompare(t, name, f, a, ref, 1e-9)
		it := edAnalyze(t, f, EDOptions{Iterate: true, MaxVisits: 100000})
		iter += it.Stats().Iterated
		if it.Stats().Unconverged != 0 {
			unconv++
			continue
		}
		edCompare(t, name+" (iterated)", f, it, ref, 1e-6)
	}
	t.Logf("%d registers eliminated, %d iterated, %d functions did not converge by iteration, %d with unreachable blocks, %d with φs",
		elim, iter, unconv, unreachable, withPhis)
	if elim == 0 || unreachable == 0 || withPhis == 0 {
		t.Fatal("no system solved, no unreachable block or no φ")
	}
}

// TestEDMonteCarlo checks what the equations mean: on random CFGs, walks
// from a block's top following the probabilities estimate the chance of
// meeting a use of v before a redefinition or an exit, and the mean
// distance of those that do.
func TestEDMonteCarlo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	checked := 0
	partial := 0
	for checked < 30 {
		f := edRandomFunc(r, 8+r.IntN(8), 10)
		a := edAnalyze(t, f, EDOptions{})
		for vi := range f.VRegs {
			v := mir.VReg(vi)
			for b, blk := range f.Blocks {
				// Blocks that do not reference v: the walks cross blocks.
				lp, ed := a.LPTop(v, b), a.EDTop(v, b)
				if kind, _ := edFirstRef(blk, v); kind != 0 || lp < 0.3 || checked >= 30 {
					continue
				}
				if lp < 0.999 {
					partial++
				}
				const walks = 40000
				hits, total := 0, 0.0
				for range walks {
					if d, ok := edSimulate(r, f, v, b); ok {
						hits++
						total += d
					}
				}
				mlp, med := float64(hits)/walks, total/float64(hits)
				if math.Abs(mlp-lp) > 0.015 || math.Abs(med-ed) > 0.04*ed+0.1 {
					t.Errorf("v%d b%d: LP %.4f ED %.4f, simulated %.4f %.4f\n%s", vi, b, lp, ed, mlp, med, mir.Format(f))
				}
				checked++
			}
		}
	}
	if partial == 0 {
		t.Error("every checked liveness probability is 1")
	}
}

// edSimulate follows one random path from the top of block b until v's next
// use (its distance, true), a redefinition or an exit (false).
func edSimulate(r *rand.Rand, f *mir.Func, v mir.Reg, b int) (float64, bool) {
	dist := 0.0
	for steps := 0; steps < 1e6; steps++ {
		blk := f.Blocks[b]
		switch kind, d := edFirstRef(blk, v); kind {
		case 1:
			return dist + d, true
		case 2:
			return 0, false
		}
		dist += float64(len(blk.Instrs))
		if len(blk.Succs) == 0 {
			return 0, false
		}
		x := r.Float64()
		k := 0
		for k < len(blk.Succs)-1 && x >= blk.SuccProb[k] {
			x -= blk.SuccProb[k]
			k++
		}
		b = blk.Succs[k]
	}
	return 0, false
}

// TestNNURandom compares the nearest-next-use analysis with a
// Bellman–Ford reference on random CFGs (with unreachable blocks and φs),
// with and without the exit penalty.
func TestNNURandom(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	for i := range 200 {
		f := edRandomCFG(r, 2+r.IntN(12), 1+r.IntN(5), i%2 == 0, i%3 == 0)
		for _, pen := range []float64{0, 1000} {
			a := NNUAnalyze(f, NNUOptions{ExitPenalty: pen, NoExitPenalty: pen == 0})
			loops := cfg.Loops(f.Graph())
			for vi := range f.VRegs {
				v := mir.VReg(vi)
				top, bot := nnuReference(f, loops, v, pen)
				for b, blk := range f.Blocks {
					if a.Top(v, b) != top[b] || a.Bot(v, b) != bot[b] {
						t.Fatalf("random %d penalty %v v%d b%d: top %v bot %v, reference %v %v\n%s", i, pen, vi, b,
							a.Top(v, b), a.Bot(v, b), top[b], bot[b], mir.Format(f))
					}
					if a.Distance(v, b, 0) != top[b] || a.Distance(v, b, len(blk.Instrs)) != bot[b] {
						t.Fatalf("random %d v%d b%d: distances at top and bottom %v %v, want %v %v", i, vi, b,
							a.Distance(v, b, 0), a.Distance(v, b, len(blk.Instrs)), top[b], bot[b])
					}
				}
			}
		}
	}
}

// nnuReference relaxes the nearest-next-use equations to their fixed
// point.
func nnuReference(f *mir.Func, loops *cfg.LoopForest, v mir.Reg, pen float64) (top, bot []float64) {
	nb := len(f.Blocks)
	inf := math.Inf(1)
	top, bot = make([]float64, nb), make([]float64, nb)
	kind := make([]int, nb)
	for b, blk := range f.Blocks {
		var d float64
		kind[b], d = edFirstRef(blk, v)
		top[b] = inf
		if kind[b] == 1 {
			top[b] = d
		}
	}
	w := func(b, i int) float64 {
		if l := loops.LoopOf[b]; l >= 0 && loops.EdgeLoop(b, i) != l {
			return pen
		}
		return 0
	}
	pp := mir.PredPositions(f)
	for changed := true; changed; {
		changed = false
		for b, blk := range f.Blocks {
			m := inf
			for i, s := range blk.Succs {
				t := top[s]
				if edPhiUse(f, pp, b, i, v) {
					t = 1
				}
				m = min(m, w(b, i)+t)
			}
			bot[b] = m
			if kind[b] == 0 && m+edLen(blk) < top[b] {
				top[b] = m + edLen(blk)
				changed = true
			}
		}
	}
	return top, bot
}

// TestEDEdgeCountsMismatch checks the errors for counts that do not match
// the edges.
func TestEDEdgeCountsMismatch(t *testing.T) {
	f := testrun.ParseFunc(t, fig34(0.5))
	for _, counts := range [][][]uint64{{{1}}, {{1}, {1}, nil}, {{1}, {1, 2}, {3}}} {
		if _, err := EDAnalyze(f, EDOptions{EdgeCounts: counts}); err == nil {
			t.Errorf("counts %v: no error", counts)
		}
	}
}

// edSanity checks the invariants of a result on a real function.
func edSanity(t *testing.T, name string, f *mir.Func, a *EDAnalysis) {
	t.Helper()
	live := mir.ComputeSparseLiveness(f)
	for b := range f.Blocks {
		for _, set := range []struct {
			vs  []int32
			lp  func(mir.Reg, int) float64
			ed  func(mir.Reg, int) float64
			top bool
		}{{live.In(b), a.LPTop, a.EDTop, true}, {live.Out(b), a.LPBot, a.EDBot, false}} {
			for _, x := range set.vs {
				v := mir.VReg(int(x))
				lp, ed := set.lp(v, b), set.ed(v, b)
				if !(lp >= 0 && lp <= 1) || math.IsNaN(ed) || ed < 0 || (lp > 0) == math.IsInf(ed, 1) {
					t.Fatalf("%s v%d b%d (top %v): LP %v ED %v", name, x, b, set.top, lp, ed)
				}
				if set.top && a.Distance(v, b, 0) != ed {
					t.Fatalf("%s v%d b%d: Distance at the top %v, EDTop %v", name, x, b, a.Distance(v, b, 0), ed)
				}
			}
		}
	}
}

// TestEDKernels runs the analysis on the kernels as the allocator
// receives them, checks its invariants, and on the smaller functions
// compares it with the dense reference.
func TestEDKernels(t *testing.T) {
	for _, k := range testprogs.Kernels() {
		for _, f := range destructModule(t, k.Module) {
			a := edAnalyze(t, f, EDOptions{})
			name := k.Name + "/" + f.Name
			if s := a.Stats(); s.Iterated != 0 || s.Unconverged != 0 {
				t.Errorf("%s: stats %+v", name, s)
			}
			edSanity(t, name, f, a)
			if len(f.Blocks) <= 40 && len(f.VRegs) <= 200 {
				edCompare(t, name, f, a, edDenseSolve(f), 1e-9)
			}
		}
	}
}

// edShapes returns the functions of every pathological shape and of the
// generated module at about n bytecode instructions, lowered and taken out
// of SSA form.
func edShapes(t testing.TB, n int) map[string][]*mir.Func {
	out := map[string][]*mir.Func{}
	for _, sh := range testprogs.Pathological {
		out[sh.Name] = destructModule(t, sh.Build(n))
	}
	out["generated"] = destructModule(t, testprogs.GeneratedModule(n, 1))
	return out
}

// edSize is the size measure the work is compared with: instructions,
// operands, edges and the live sets (the result's size).
func edSize(f *mir.Func, s EDStats) int64 {
	n := int64(s.Instrs + s.LiveIn + s.LiveOut)
	for _, b := range f.Blocks {
		n += int64(len(b.Succs))
		for _, in := range b.Instrs {
			n += int64(len(in.Uses) + len(in.Defs))
		}
	}
	return n
}

// TestEDScaling counts the analyses' work on the pathological shapes and
// the generated function at 1k and 10k bytecode instructions: the work per
// unit of size must not grow with the size (near-linear), and no register
// may need the iteration.
func TestEDScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("lowers large functions")
	}
	small, large := edShapes(t, 1000), edShapes(t, 10000)
	ratio := func(fs []*mir.Func) (ed, nnu float64, size int64) {
		var we, wn int64
		for _, f := range fs {
			a := edAnalyze(t, f, EDOptions{})
			s := a.Stats()
			if s.Iterated != 0 || s.Unconverged != 0 {
				t.Errorf("%s: stats %+v", f.Name, s)
			}
			we += s.Work
			wn += NNUAnalyze(f, NNUOptions{}).Work()
			size += edSize(f, s)
		}
		return float64(we) / float64(size), float64(wn) / float64(size), size
	}
	for name := range small {
		e1, n1, s1 := ratio(small[name])
		e2, n2, s2 := ratio(large[name])
		t.Logf("%-18s size %7d -> %8d: ED work/size %.2f -> %.2f, NNU %.2f -> %.2f", name, s1, s2, e1, e2, n1, n2)
		if e2 > 1.25*e1+0.5 || n2 > 1.25*n1+0.5 || e2 > 20 || n2 > 20 {
			t.Errorf("%s: work per unit of size grows: ED %.2f -> %.2f, NNU %.2f -> %.2f", name, e1, e2, n1, n2)
		}
	}
}

// BenchmarkEDKernels reports the analysis time per instruction on the
// kernels, lowered and taken out of SSA form as the allocator receives
// them.
func BenchmarkEDKernels(b *testing.B) {
	benchKernelAnalysis(b, true, func(f *mir.Func) error {
		_, err := EDAnalyze(f, EDOptions{})
		return err
	})
}

// BenchmarkNNUKernels is BenchmarkEDKernels for the nearest-next-use
// analysis.
func BenchmarkNNUKernels(b *testing.B) {
	benchKernelAnalysis(b, false, func(f *mir.Func) error {
		NNUAnalyze(f, NNUOptions{})
		return nil
	})
}

// benchKernelAnalysis runs analyze on every function of each kernel and
// reports nanoseconds per instruction (and, with withSize, the kernel's
// instruction count).
func benchKernelAnalysis(b *testing.B, withSize bool, analyze func(*mir.Func) error) {
	for _, k := range testprogs.Kernels() {
		funcs := destructModule(b, k.Module)
		n := numInstrs(funcs)
		b.Run(k.Name, func(b *testing.B) {
			for b.Loop() {
				for _, f := range funcs {
					if err := analyze(f); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N*n), "ns/instr")
			if withSize {
				b.ReportMetric(float64(n), "instrs")
			}
		})
	}
}

// BenchmarkEDCompileTime times the expected-distance analysis, the
// nearest-next-use analysis and the integrated allocator (Allocate, with
// NoVerify as the JIT runs it) in one loop on the same inputs, so that the
// ratios hold on a busy machine: the kernels together, and the generated
// function at 1k, 10k and 100k bytecode instructions. It reports each
// one's nanoseconds per input instruction, the analysis's share of the
// allocator's time, and its work per unit of size (see TestEDScaling).
func BenchmarkEDCompileTime(b *testing.B) {
	for _, name := range []string{"kernels", "gen1k", "gen10k", "gen100k"} {
		b.Run(name, func(b *testing.B) {
			funcs := benchInput(b, name)
			instrs := numInstrs(funcs)
			var spent [3]time.Duration
			var work, size int64
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				for _, f := range funcs {
					a, err := EDAnalyze(f, EDOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if i == 0 {
						work += a.Stats().Work
						size += edSize(f, a.Stats())
					}
				}
				spent[0] += time.Since(start)
				start = time.Now()
				for _, f := range funcs {
					NNUAnalyze(f, NNUOptions{})
				}
				spent[1] += time.Since(start)
				start = time.Now()
				for _, f := range funcs {
					if _, err := Allocate(f, Options{NoVerify: true}); err != nil {
						b.Fatal(err)
					}
				}
				spent[2] += time.Since(start)
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / float64(instrs) }
			b.ReportMetric(per(spent[0]), "ed-ns/instr")
			b.ReportMetric(per(spent[1]), "nnu-ns/instr")
			b.ReportMetric(per(spent[2]), "integrated-ns/instr")
			b.ReportMetric(float64(spent[0])/float64(spent[2]), "ed/integrated")
			b.ReportMetric(float64(work)/float64(size), "work/size")
		})
	}
}
