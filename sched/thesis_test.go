package sched

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/mir"
)

// The examples of Cutcutache's thesis, reproduced on kiln's IR. Physical
// registers stand for the thesis's R1, R2, ... as named in each test.

// testAllocator returns an allocator for f with its analyses done, ready
// for region-level steps.
func testAllocator(t *testing.T, f *mir.Func, opts Options) *allocator {
	t.Helper()
	if opts.Model == nil {
		opts.Model = DefaultModel()
	}
	if opts.Victim == nil {
		opts.Victim = ThesisVictim{}
	}
	if opts.Regs == 0 {
		opts.Regs = mir.Allocatable
	}
	a, err := newAllocator(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	a.setup()
	return a
}

// vreg returns the index of virtual register name ("v3").
func vreg(t *testing.T, name string) int32 {
	r, ok := mir.ParseReg(name)
	if !ok || !r.IsVirtual() {
		t.Fatalf("bad register %q", name)
	}
	return int32(r.Index())
}

// setStart records block b as processed with start locations for some of
// its live-ins.
func setStart(t *testing.T, a *allocator, b int, locs map[string]loc) {
	t.Helper()
	a.processed[b] = true
	start := a.startLocOf(b)
	for i := range start {
		start[i] = locMem
	}
	for name, l := range locs {
		i := a.d.inIndex(b, vreg(t, name))
		if i < 0 {
			t.Fatalf("%s is not live into b%d", name, b)
		}
		start[i] = l
	}
}

// setEnd records block b as processed with end locations for its
// live-outs (unlisted ones in memory, every memory copy up to date).
func setEnd(t *testing.T, a *allocator, b int, locs map[string]loc) {
	t.Helper()
	a.processed[b] = true
	end, clean := a.endLocOf(b), a.endCleanOf(b)
	for i := range end {
		end[i] = locMem
		clean[i] = true
		a.needHome(a.d.liveOutOf(b)[i])
	}
	for name, l := range locs {
		i := a.d.outIndex(b, vreg(t, name))
		if i < 0 {
			t.Fatalf("%s is not live out of b%d", name, b)
		}
		end[i] = l
	}
}

func locName(l loc) string {
	switch {
	case l == locMem:
		return "mem"
	case l == locNone:
		return "none"
	}
	return l.reg().String()
}

// Fig 5.3: the live-out value v is in R1 at the start of B2 (edge
// frequency 50), in R2 in B4 (30) and in memory in B3 (20): its preferred
// locations at the end of B1 are [R1, R2, mem].
func TestFig5_3PreferredLocations(t *testing.T) {
	f := testrun.ParseFunc(t, `func fig53 #0 (gpr) -> () nonssa
  vregs 2
  pins v0=rdi
b0: freq=100
  v0:gpr = Arg #0
  v1:gpr = LEAQ v0, $1
  JMPTABLE v0 -> b1 0.5, b2 0.2, b3 0.3
b1: preds=b0 freq=50
  MOVQstore [v1+v1*1], v1
  RET
b2: preds=b0 freq=20
  MOVQstore [v1+v1*1], v1
  RET
b3: preds=b0 freq=30
  MOVQstore [v1+v1*1], v1
  RET
end
`)
	const R1, R2 = loc(mir.RBX), loc(mir.R12)
	a := testAllocator(t, f, Options{})
	setStart(t, a, 1, map[string]loc{"v1": R1}) // B2 in the thesis
	setStart(t, a, 3, map[string]loc{"v1": R2}) // B4
	setStart(t, a, 2, map[string]loc{"v1": locMem})
	a.beginRegion(0)
	a.preferredLocations()
	got := a.pref[vreg(t, "v1")]
	if want := []loc{R1, R2, locMem}; !slices.Equal(got, want) {
		t.Fatalf("preferred locations %v, want %v", got, want)
	}
}

// fig54 is a join block b3 with processed predecessors b1 (frequency 70,
// the most frequent) and b2 (30): a and b are live into b3, b is used
// there and a is not, c is used there.
const fig54 = `func fig54 #0 (gpr) -> () nonssa
  vregs 4
  pins v0=rdi
b0: freq=100
  v0:gpr = Arg #0
  v1:gpr = LEAQ v0, $1
  v2:gpr = LEAQ v0, $2
  v3:gpr = LEAQ v0, $3
  CMPQconst v0, $0
  JCC.l -> b1 0.7, b2 0.3
b1: preds=b0 freq=70
  JMP -> b3 1
b2: preds=b0 freq=30
  JMP -> b3 1
b3: preds=b1,b2 freq=100
  MOVQstore [v2+v3*1], v2
  JMP -> b4 1
b4: preds=b3 freq=100
  MOVQstore [v1+v1*1], v1
  RET
end
`

// Fig 5.4: start locations relative to the most frequent processed
// predecessor P: in memory there and unused in the region → memory; in
// memory there but used → a register (taken from another processed
// predecessor), loaded only on the edge from P; in register r → r.
func TestFig5_4StartLocations(t *testing.T) {
	f := testrun.ParseFunc(t, fig54)
	const R3, R5 = loc(mir.R13), loc(mir.RSI)
	a := testAllocator(t, f, Options{})
	// v1 = a: memory at the end of b1, not used in b3. v2 = b: memory at
	// the end of b1, in R3 at the end of b2, used in b3. v3 = c: in R5 at
	// the end of both.
	setEnd(t, a, 1, map[string]loc{"v1": locMem, "v2": locMem, "v3": R5})
	setEnd(t, a, 2, map[string]loc{"v1": loc(mir.R14), "v2": R3, "v3": R5})
	a.beginRegion(3)
	if err := a.startLocations(); err != nil {
		t.Fatal(err)
	}
	want := map[string]loc{"v1": locMem, "v2": R3, "v3": R5}
	for name, l := range want {
		i := a.d.inIndex(3, vreg(t, name))
		if got := a.startLocOf(3)[i]; got != l {
			t.Errorf("%s starts in %s, want %s", name, locName(got), locName(l))
		}
	}
	// Reconciliation: the only code on either edge is the load of v2 on
	// the edge from b1 (v1 is clean in its slot at the end of b2).
	code, err := a.edgeCode(1, 3, succNeighbour(a, 1, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(code) != 1 || code[0].Op != mir.OpReload || code[0].Defs[0] != R3.reg() {
		t.Errorf("edge b1->b3 code %v, want one reload into %s", formatCode(code), R3.reg())
	}
	if code, err := a.edgeCode(2, 3, succNeighbour(a, 2, 3)); err != nil || len(code) != 0 {
		t.Errorf("edge b2->b3 code %v (%v), want none", formatCode(code), err)
	}
}

func formatCode(code []*mir.Instr) string {
	var parts []string
	for _, in := range code {
		s := in.Op.String()
		for _, d := range in.Defs {
			s += " " + d.String()
		}
		s += " <-"
		for _, u := range in.Uses {
			s += " " + u.String()
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// Fig 5.5: predecessors B1 (50) {x: R1, y: mem, z: mem}, B2 (40) {x: R2,
// y: R3, z: R1}, B3 (10) {x: mem, y: R4, z: R2}, all three used in B4:
// x starts in R1 (from B1), y in R3 (from B2), z in R2 (from B3, since R1
// is taken by x).
func TestFig5_5LiveInAllocation(t *testing.T) {
	f := testrun.ParseFunc(t, `func fig55 #0 (gpr) -> () nonssa
  vregs 4
  pins v0=rdi
b0: freq=100
  v0:gpr = Arg #0
  v1:gpr = LEAQ v0, $1
  v2:gpr = LEAQ v0, $2
  v3:gpr = LEAQ v0, $3
  JMPTABLE v0 -> b1 0.5, b2 0.4, b3 0.1
b1: preds=b0 freq=50
  JMP -> b4 1
b2: preds=b0 freq=40
  JMP -> b4 1
b3: preds=b0 freq=10
  JMP -> b4 1
b4: preds=b1,b2,b3 freq=100
  MOVQstore [v1+v2*1], v3
  RET
end
`)
	const R1, R2, R3, R4 = loc(mir.RBX), loc(mir.R12), loc(mir.R13), loc(mir.R14)
	a := testAllocator(t, f, Options{})
	setEnd(t, a, 1, map[string]loc{"v1": R1})
	setEnd(t, a, 2, map[string]loc{"v1": R2, "v2": R3, "v3": R1})
	setEnd(t, a, 3, map[string]loc{"v2": R4, "v3": R2})
	a.beginRegion(4)
	if err := a.startLocations(); err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]loc{"v1": R1, "v2": R3, "v3": R2} {
		i := a.d.inIndex(4, vreg(t, name))
		if got := a.startLocOf(4)[i]; got != l {
			t.Errorf("%s starts in %s, want %s", name, locName(got), locName(l))
		}
	}
}

// Fig 5.10: with store and load costs s and l, x live in B1 and B2 (no
// calls) costs 0 in a caller-saved register against w(B1)·s + w(B5)·l in a
// callee-saved one: it gets a caller-saved register; y, live across the
// calls of B3 and B4 (w(B3)+w(B4) = 115), costs 115·(s+l) caller-saved:
// it gets a callee-saved register.
func TestFig5_10CallerCalleeChoice(t *testing.T) {
	f := testrun.ParseFunc(t, `func fig510 #0 () -> () nonssa
  vregs 2
b0: freq=20
  v0:gpr = MOVQconst $1
  v1:gpr = MOVQconst $2
  CMPQconst v0, $0
  JCC.l -> b1 0.25, b2 0.75
b1: preds=b0 freq=5
  MOVQstore [v0+v0*1], v0
  JMP -> b4 1
b2: preds=b0 freq=100
  CALL #0
  JMP -> b3 1
b3: preds=b2 freq=15
  CALL #0
  MOVQstore [v1+v1*1], v1
  JMP -> b4 1
b4: preds=b1,b3 freq=20
  RET
end
`)
	a := testAllocator(t, f, Options{})
	x, y := vreg(t, "v0"), vreg(t, "v1")
	if c := a.d.callerCost[x]; c != 0 {
		t.Errorf("caller-saved cost of x = %v, want 0", c)
	}
	wantY := 115.0 * (storeLatency + loadLatency)
	if c := a.d.callerCost[y]; c != wantY {
		t.Errorf("caller-saved cost of y = %v, want %v", c, wantY)
	}
	if c, want := a.calleeCost(), 20.0*storeLatency+20*loadLatency; c != want {
		t.Errorf("callee-saved cost = %v, want %v", c, want)
	}
	a.beginRegion(0)
	rx, ok := a.freeReg(x, 0)
	if !ok || !mir.CallerSaved.Has(rx) {
		t.Errorf("x gets %s, want a caller-saved register", rx)
	}
	ry, ok := a.freeReg(y, 0)
	if !ok || !mir.CalleeSaved.Has(ry) {
		t.Errorf("y gets %s, want a callee-saved register", ry)
	}
	// The whole pass agrees.
	r, err := Allocate(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b0 := r.Func.Blocks[0].Instrs
	if !mir.CallerSaved.Has(b0[0].Defs[0]) || !mir.CalleeSaved.Has(b0[1].Defs[0]) {
		t.Errorf("allocated entry: x in %s, y in %s", b0[0].Defs[0], b0[1].Defs[0])
	}
}

// Fig 5.11: the spill comparator.
func TestFig5_11SpillVictims(t *testing.T) {
	x, y := mir.VReg(1), mir.VReg(2)
	cand := func(v mir.Reg, uses, next int, succs ...SuccLocation) SpillCandidate {
		return SpillCandidate{VReg: v, Reg: mir.Reg(v.Index()), LocalUses: uses, NextUse: next, LiveOut: true, Succs: succs, ClosestDist: -1}
	}
	tests := []struct {
		name string
		x, y SpillCandidate
		want mir.Reg
	}{
		{"(a) y has no uses in the region", cand(x, 1, 3), cand(y, 0, -1), y},
		{"(b) x is in memory in every successor",
			cand(x, 0, -1, SuccLocation{Block: 2, Freq: 50, Live: true}, SuccLocation{Block: 3, Freq: 50, Live: true}),
			cand(y, 0, -1, SuccLocation{Block: 2, Freq: 50, Live: true, InReg: true}, SuccLocation{Block: 3, Freq: 50, Live: true}), x},
		{"(c) x's closest use is further", func() SpillCandidate {
			c := cand(x, 0, -1)
			c.ClosestDist, c.ClosestWeight = 2, 10
			return c
		}(), func() SpillCandidate {
			c := cand(y, 0, -1)
			c.ClosestDist, c.ClosestWeight = 1, 10
			return c
		}(), x},
		{"(d) keeping x costs more than spilling it",
			cand(x, 0, -1, SuccLocation{Block: 2, Freq: 70, Live: true}, SuccLocation{Block: 3, Freq: 30, Live: true, InReg: true}),
			cand(y, 0, -1, SuccLocation{Block: 2, Freq: 70, Live: true, InReg: true}, SuccLocation{Block: 3, Freq: 30, Live: true, InReg: true}), x},
		{"both used in the region: fewer uses", cand(x, 3, 5), cand(y, 1, 5), y},
		{"both used in the region: later next use", cand(x, 1, 9), cand(y, 1, 5), x},
		{"equal distances: the closest region executed less", func() SpillCandidate {
			c := cand(x, 0, -1)
			c.ClosestDist, c.ClosestWeight = 2, 10
			return c
		}(), func() SpillCandidate {
			c := cand(y, 0, -1)
			c.ClosestDist, c.ClosestWeight = 2, 90
			return c
		}(), x},
	}
	for _, tc := range tests {
		for _, order := range [][]SpillCandidate{{tc.x, tc.y}, {tc.y, tc.x}} {
			k := ThesisVictim{}.Victim(0, 0, order)
			if got := order[k].VReg; got != tc.want {
				t.Errorf("%s: spills %s, want %s", tc.name, got, tc.want)
			}
		}
	}
}

// fig512 is the CFG B1→B2→B4, B1→B3→B5 with x (v1) defined in B1 and live
// in all five blocks; w (v2) is live throughout too, used before x in B5
// and after it elsewhere, which makes a region allocated with no
// neighbour processed (B5 in the second order) choose differently.
const fig512 = `func fig512 #0 (gpr) -> () nonssa
  vregs 3
  pins v0=rdi
b0: freq=1
  v0:gpr = Arg #0
  JMP -> b1 1
b1: preds=b0 freq=1
  v1:gpr = LEAQ v0, $1
  v2:gpr = LEAQ v0, $2
  CMPQconst v0, $0
  JCC.l -> b2 0.5, b3 0.5
b2: preds=b1 freq=0.5
  MOVQstore [v1+v1*1], v1
  JMP -> b4 1
b3: preds=b1 freq=0.5
  MOVQstore [v1+v1*1], v1
  JMP -> b5 1
b4: preds=b2 freq=0.5
  MOVQstore [v1+v1*1], v1
  MOVQstore [v2+v2*1], v2
  RET
b5: preds=b3 freq=0.5
  MOVQstore [v2+v2*1], v2
  MOVQstore [v1+v1*1], v1
  RET
end
`

// Fig 5.12: the region order decides reconciliation. In DFS-down order
// (B1, B2, B4, B3, B5) x stays in one register: no reconciliation; in the
// order B4, B2, B1, B5, B3, B5 is allocated before any neighbour and x
// gets another register there: exactly one move for x, on B3→B5. With
// the register hints (not in the thesis) x keeps its register in B5 too.
func TestFig5_12RegionOrder(t *testing.T) {
	f := testrun.ParseFunc(t, fig512)
	// Thesis block Bk is block k here; b0 is the entry holding the argument.
	x := vreg(t, "v1")
	for _, tc := range []struct {
		name    string
		order   []int
		noHints bool
		moves   int
	}{
		{"dfs-down", nil, true, 0},
		{"B4 B2 B1 B5 B3", []int{0, 4, 2, 1, 5, 3}, true, 1},
		{"dfs-down with hints", nil, false, 0},
		{"B4 B2 B1 B5 B3 with hints", []int{0, 4, 2, 1, 5, 3}, false, 0},
	} {
		a, err := newAllocator(f, Options{Model: DefaultModel(), Victim: ThesisVictim{}, Regs: mir.Allocatable, order: tc.order, NoHints: tc.noHints, NoCopyMotion: true})
		if err != nil {
			t.Fatal(err)
		}
		if tc.order == nil {
			if got := regionOrder(f, DFSDown); !slices.Equal(got, []int{0, 1, 2, 4, 3, 5}) {
				t.Fatalf("DFS-down order %v", got)
			}
		}
		r, err := a.run()
		if err != nil {
			t.Fatal(err)
		}
		if err := mir.Verify(r.Func); err != nil {
			t.Fatal(err)
		}
		// Reconciliation of x: edges where its location changes.
		moves := 0
		var where []string
		for p, b := range f.Blocks {
			for _, s := range b.Succs {
				i := a.d.inIndex(s, x)
				if i < 0 {
					continue
				}
				from := a.endLocOf(p)[a.d.outIndex(p, x)]
				if to := a.startLocOf(s)[i]; from != to {
					moves++
					where = append(where, "b"+string(rune('0'+p))+"->b"+string(rune('0'+s)))
				}
			}
		}
		if moves != tc.moves {
			t.Errorf("%s: %d reconciliations of x (%v), want %d", tc.name, moves, where, tc.moves)
		}
		if tc.moves == 1 && (len(where) != 1 || where[0] != "b3->b5") {
			t.Errorf("%s: reconciliation on %v, want b3->b5", tc.name, where)
		}
		if tc.moves == 0 && r.Stats.EdgeMoves+r.Stats.EdgeLoads+r.Stats.EdgeStores != 0 {
			t.Errorf("%s: %d moves, %d loads, %d stores on edges, want none", tc.name, r.Stats.EdgeMoves, r.Stats.EdgeLoads, r.Stats.EdgeStores)
		}
	}
}

// fig21Model is the machine of the thesis's Fig 2.1: two integer units
// (which also load and store) and one multiply unit, fully pipelined;
// latencies add 1, multiply 3, load 2, store 1.
func fig21Model() *Model {
	m := &Model{Name: "fig2.1", IssueWidth: 3}
	m.Units[UnitALU] = 2
	m.Units[UnitMul] = 1
	m.Units[UnitBranch] = 1
	for op := mir.Op(0); int(op) < mir.NumOps; op++ {
		m.Latency[op] = 1
		m.UnitOf[op] = UnitALU
		info := op.Info()
		switch {
		case info.Loads:
			m.Latency[op] = 2
		case op == mir.OpIMULQ:
			m.Latency[op] = 3
			m.UnitOf[op] = UnitMul
		case info.Terminator:
			m.UnitOf[op] = UnitBranch
		}
	}
	return m
}

// fig21 is c = (a-6)+(a+3)*b; b = b+7 with a, b, c in memory at offsets
// 0, 8, 16 from v0.
const fig21 = `func fig21 #0 (gpr) -> () nonssa
  vregs 6
  pins v0=rdi
b0: freq=1
  v0:gpr = Arg #0
  JMP -> b1 1
b1: preds=b0 freq=1
  v1:gpr = MOVQload [v0+v0*1]
  v2:gpr = MOVQload [v0+v0*1+8]
  v3:gpr = LEAQ v1, $-6
  v4:gpr = LEAQ v1, $3
  v5:gpr = LEAQ v2, $7
  v4:gpr = IMULQ v4, v2
  v3:gpr = ADDQ v3, v4
  MOVQstore [v0+v0*1+16], v3
  MOVQstore [v0+v0*1+8], v5
  RET
end
`

// Fig 2.1: list scheduling on two integer units and a multiplier takes 8
// cycles, the critical path I1→I4→I6→I7→I8 at its earliest times 0, 2, 3,
// 6, 7. The integrated pass, with registers to spare, finds the same
// schedule.
func TestFig2_1ListScheduling(t *testing.T) {
	f := testrun.ParseFunc(t, fig21)
	m := fig21Model()
	if err := m.validate(); err != nil {
		t.Fatal(err)
	}
	gb := newGraphBuilder(f, m)
	g := gb.build(f.Blocks[1].Instrs, 0, false)
	var r readyState
	listSchedule(&r, g, m, nil)
	// Nodes are the instructions I1..I9 and the return.
	want := map[int]int32{0: 0, 3: 2, 5: 3, 6: 6, 7: 7}
	for n, c := range want {
		if r.issue[n] != c {
			t.Errorf("I%d issues at cycle %d, want %d", n+1, r.issue[n], c)
		}
	}
	last := int32(0)
	for n := 0; n < 9; n++ {
		last = max(last, r.issue[n])
	}
	if last+1 != 8 {
		t.Errorf("schedule takes %d cycles, want 8 (issue cycles %v)", last+1, r.issue[:9])
	}
	// The integrated pass.
	a, err := newAllocator(f, Options{Model: m, Victim: ThesisVictim{}, Regs: mir.Allocatable})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.run()
	if err != nil {
		t.Fatal(err)
	}
	if a.regionBody[1] != 8 {
		t.Errorf("integrated schedule of the block takes %d cycles, want 8", a.regionBody[1])
	}
	if n := res.Stats.SpillCode(); n != 0 {
		t.Errorf("%d spill instructions with ample registers", n)
	}
}

// fig41Model is the single-issue, two-stage pipeline of Fig 4.1: every op
// takes one cycle, and a load's result is available one cycle later than
// that.
func fig41Model() *Model {
	m := &Model{Name: "fig4.1", IssueWidth: 1}
	for u := range m.Units {
		m.Units[u] = 1
	}
	for op := mir.Op(0); int(op) < mir.NumOps; op++ {
		m.Latency[op] = 1
		m.UnitOf[op] = UnitALU
		if info := op.Info(); info.Loads || op == mir.OpCtxLoad {
			m.Latency[op] = 2
		}
	}
	return m
}

// fig41 is y = x(i); temp = x(i+1+N): i1 VR1 ← addr(x)+i (a constant
// here), i2 VR2 ← load @VR1, i3 y ← store VR2, i4 VR4 ← VR1+1, i5 VR5 ←
// load N (a context load), i6 VR6 ← load @(VR4+VR5).
const fig41 = `func fig41 #0 () -> () nonssa
  vregs 5
b0: freq=1
  JMP -> b1 1
b1: preds=b0 freq=1
  v0:gpr = MOVQconst $100
  v1:gpr = MOVQload [v0+v0*1]
  MOVQstore [v1+v1*1+64], v1
  v2:gpr = LEAQ v0, $1
  v3:gpr = CtxLoad #1
  v4:gpr = MOVQload [v2+v3*1]
  JMP -> b2 1
b2: preds=b1 freq=1
  MOVQstore [v4+v4*1], v4
  RET
end
`

// Fig 4.1: with two registers, prepass scheduling needs a spill and
// postpass scheduling 8 cycles; the integrated pass takes at most 7
// cycles with no spill (the thesis's result: i1 i2 i4 i3 i5 _ i6).
func TestFig4_1PhaseOrdering(t *testing.T) {
	f := testrun.ParseFunc(t, fig41)
	a, err := newAllocator(f, Options{Model: fig41Model(), Victim: ThesisVictim{}, Regs: mir.MakeRegSet(mir.R8, mir.R9)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.run()
	if err != nil {
		t.Fatal(err)
	}
	if err := mir.Verify(res.Func); err != nil {
		t.Fatal(err)
	}
	if c := a.regionBody[1]; c > 7 {
		t.Errorf("the block takes %d cycles, want at most 7:\n%s", c, mir.Format(res.Func))
	}
	if n := res.Stats.SpillCode(); n != 0 {
		t.Errorf("%d spill instructions, want 0:\n%s", n, mir.Format(res.Func))
	}
	var ops []string
	for _, in := range res.Func.Blocks[1].Instrs {
		ops = append(ops, in.Op.String())
	}
	want := []string{"MOVQconst", "MOVQload", "LEAQ", "MOVQstore", "CtxLoad", "MOVQload", "JMP"}
	if !slices.Equal(ops, want) {
		t.Errorf("order %v, want %v", ops, want)
	}
	if err := alloc.CheckAllocation(f, res.Func, res.Origins); err != nil {
		t.Error(err)
	}
}

// succNeighbour returns block s's entry among block p's distinct
// successors.
func succNeighbour(a *allocator, p, s int) neighbour {
	for _, n := range a.succsOf(p) {
		if int(n.block) == s {
			return n
		}
	}
	panic(fmt.Sprintf("b%d is no successor of b%d", s, p))
}
