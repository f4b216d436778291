package profilecounters

import (
	"math"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
)

// loopFunc: sum i for i in 0..n, with a switch and a trap check inside.
//
//	0  i64.const r1, 0            ; block 0
//	1  i64.const r2, 0
//	2  br.ge_s r1, r0, 9          ; block 1 (loop header): taken exits
//	3  switch r1, [5, 6], 7       ; block 2
//	4  trap 1                     ; block 3 (unreachable)
//	5  i64.add r2, r2, r1         ; block 4: falls through into 6
//	6  i64.add r2, r2, 1          ; block 5: falls through into 7
//	7  i64.add r1, r1, 1          ; block 6
//	8  jump 2
//	9  br.lt_s r2, 0, 11          ; block 7
//	10 ret r2                     ; block 8
//	11 trap 2                     ; block 9
func loopFunc() *bytecode.Function {
	return &bytecode.Function{
		Name: "loop",
		Sig:  bytecode.Signature{Params: []bytecode.Type{bytecode.I64}, Results: []bytecode.Type{bytecode.I64}},
		Regs: []bytecode.Type{bytecode.I64, bytecode.I64, bytecode.I64},
		Code: []bytecode.Instr{
			{Op: bytecode.OpI64Const, Dst: 1},
			{Op: bytecode.OpI64Const, Dst: 2},
			{Op: bytecode.OpBrGeS, A: 1, B: 0, Target: 9},
			{Op: bytecode.OpSwitch, A: 1, Table: []uint32{5, 6}, Target: 7},
			{Op: bytecode.OpTrap, Imm: 1},
			{Op: bytecode.OpI64Add, Dst: 2, A: 2, B: 1},
			{Op: bytecode.OpI64Add, Dst: 2, A: 2, UseImm: true, Imm: 1},
			{Op: bytecode.OpI64Add, Dst: 1, A: 1, UseImm: true, Imm: 1},
			{Op: bytecode.OpJump, Target: 2},
			{Op: bytecode.OpBrLtS, A: 2, UseImm: true, Imm: 0, Target: 11},
			{Op: bytecode.OpReturn, Args: []bytecode.Reg{2}},
			{Op: bytecode.OpTrap, Imm: 2},
		},
	}
}

func TestLayout(t *testing.T) {
	l := NewLayout(loopFunc())
	wantBlocks := [][2]int32{{0, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 9}, {9, 10}, {10, 11}, {11, 12}}
	if len(l.Blocks) != len(wantBlocks) {
		t.Fatalf("got %d blocks, want %d: %+v", len(l.Blocks), len(wantBlocks), l.Blocks)
	}
	for i, w := range wantBlocks {
		if b := l.Blocks[i]; b.Start != w[0] || b.End != w[1] {
			t.Errorf("block %d = [%d,%d), want [%d,%d)", i, b.Start, b.End, w[0], w[1])
		}
	}
	type e struct {
		from, to int32
		kind     EdgeKind
		c        int32
	}
	want := []e{
		{0, 1, EdgeFallthrough, 0},
		{1, 7, EdgeTaken, 0}, {1, 2, EdgeNotTaken, 0},
		{2, 4, EdgeCase, 0}, {2, 5, EdgeCase, 1}, {2, 6, EdgeDefault, 0},
		{4, 5, EdgeFallthrough, 0},
		{5, 6, EdgeFallthrough, 0},
		{6, 1, EdgeJump, 0},
		{7, 9, EdgeTaken, 0}, {7, 8, EdgeNotTaken, 0},
	}
	if len(l.Edges) != len(want) {
		t.Fatalf("got %d edges, want %d: %+v", len(l.Edges), len(want), l.Edges)
	}
	for i, w := range want {
		got := l.Edges[i]
		if got.From != w.from || got.To != w.to || got.Kind != w.kind || got.Case != w.c {
			t.Errorf("edge %d = %+v, want %+v", i, got, w)
		}
	}
	if l.NumCounters() != len(want)+1 {
		t.Errorf("NumCounters = %d", l.NumCounters())
	}
	if l.BlockAt(8) != 6 || l.Blocks[3].Last != bytecode.OpTrap {
		t.Errorf("BlockAt/Last wrong")
	}
	if d := l.Loops().Depth(5); d != 1 {
		t.Errorf("loop depth of block 5 = %d, want 1", d)
	}
}

// simulate fills counters as an executor would for loop(n) called once: the
// loop runs n times with i = 0..n-1.
func simulate(l *Layout, counters []uint64, n int) {
	counters[EntryCounter]++
	edge := func(e int) { counters[EdgeCounter(e)]++ }
	for i := 0; i < n; i++ {
		edge(2) // not taken: stay in the loop
		switch i {
		case 0:
			edge(3)
		case 1:
			edge(4)
		default:
			edge(5)
		}
		edge(8) // jump back
	}
	edge(1)  // loop exit
	edge(10) // not negative: return
}

func TestEdgeCountsDerivesFallthrough(t *testing.T) {
	l := NewLayout(loopFunc())
	c := l.NewCounters()
	simulate(l, c, 10)
	simulate(l, c, 10)
	counts := l.EdgeCounts(c)
	if counts[0] != 2 { // entry fall-through
		t.Errorf("entry fall-through = %d, want 2", counts[0])
	}
	if counts[6] != 2 || counts[7] != 4 { // case 0 -> 5 -> 6; case 1 joins at 6
		t.Errorf("fall-throughs = %d, %d, want 2, 4", counts[6], counts[7])
	}
	blocks := l.BlockCounts(c)
	if blocks[1] != 22 || blocks[6] != 20 || blocks[3] != 0 {
		t.Errorf("block counts = %v", blocks)
	}
	// 2 calls: block 0 2x2, header 22x1, switch 20x1, case bodies 2x1 and
	// 4x1, latch 20x2, exit test 2x1, return 2x1.
	if got, want := l.ExecutedInstructions(c), uint64(2*2+22+20+2+4+20*2+2+2); got != want {
		t.Errorf("ExecutedInstructions = %d, want %d", got, want)
	}
}

func TestSmoothing(t *testing.T) {
	l := NewLayout(loopFunc())
	c := l.NewCounters()
	c[EntryCounter] = 1
	// Add-one smoothing adds one to every edge of the block: counts (9, 0)
	// become (10, 1), the thesis's 10/11 and 1/11.
	c[EdgeCounter(1)] = 9
	p := l.Probabilities(c)
	if math.Abs(p[1]-10.0/11) > 1e-12 || math.Abs(p[2]-1.0/11) > 1e-12 {
		t.Errorf("smoothed (9, 0) = (%v, %v), want (10/11, 1/11)", p[1], p[2])
	}
	// Switch never executed: uniform.
	for e := 3; e <= 5; e++ {
		if math.Abs(p[e]-1.0/3) > 1e-12 {
			t.Errorf("unexecuted switch edge %d prob %v, want 1/3", e, p[e])
		}
	}
	// No zero: no smoothing.
	c[EdgeCounter(1)], c[EdgeCounter(2)] = 10, 30
	p = l.Probabilities(c)
	if p[1] != 0.25 || p[2] != 0.75 {
		t.Errorf("(10, 30) = (%v, %v)", p[1], p[2])
	}
	for b := range l.Blocks {
		sum := 0.0
		for e := l.Blocks[b].FirstEdge; e < l.Blocks[b].FirstEdge+l.Blocks[b].NumEdges; e++ {
			sum += p[e]
		}
		if l.Blocks[b].NumEdges > 0 && math.Abs(sum-1) > 1e-12 {
			t.Errorf("block %d probabilities sum to %v", b, sum)
		}
	}
}

func TestStaticEstimate(t *testing.T) {
	l := NewLayout(loopFunc())
	p := l.StaticProbabilities()
	// The header's taken edge leaves the loop.
	if math.Abs(p[1]-(1-ProbLoopStay)) > 1e-12 {
		t.Errorf("loop exit probability %v, want %v", p[1], 1-ProbLoopStay)
	}
	// Block 7: branch to a trap (and not toward the return), against zero.
	if p[9] > 0.001 {
		t.Errorf("branch to trap has probability %v", p[9])
	}
	prof := l.Profile(nil)
	if prof.Measured || prof.BlockFreq[0] != 1 {
		t.Errorf("static profile = %+v", prof)
	}
	// Loop body runs about 1/(1-0.88) times per call.
	if f := prof.BlockFreq[1]; math.Abs(f-1/(1-ProbLoopStay)) > 1e-9 {
		t.Errorf("static header frequency %v, want %v", f, 1/(1-ProbLoopStay))
	}
}

func TestMeasuredFrequencies(t *testing.T) {
	l := NewLayout(loopFunc())
	c := l.NewCounters()
	for i := 0; i < 100; i++ {
		simulate(l, c, 1000)
	}
	prof := l.Profile(c)
	if !prof.Measured || prof.Calls != 100 {
		t.Fatalf("profile not measured: %+v", prof)
	}
	counts := l.BlockCounts(c)
	for b, f := range prof.BlockFreq {
		measured := float64(counts[b]) / 100
		// Smoothing moves never-seen edges off zero; everything else must
		// match the measurement closely.
		if math.Abs(f-measured) > 0.01*math.Max(1, measured)+0.01 {
			t.Errorf("block %d: frequency %v, measured %v", b, f, measured)
		}
	}
}

func TestDrift(t *testing.T) {
	l := NewLayout(loopFunc())
	c := l.NewCounters()
	for i := 0; i < 10; i++ {
		simulate(l, c, 100)
	}
	snap := TakeSnapshot(c)
	same := l.Drift(snap, c)
	if same.Samples != 0 || same.Distance != 0 {
		t.Errorf("drift with no new samples = %+v", same)
	}
	for i := 0; i < 10; i++ {
		simulate(l, c, 100)
	}
	d := l.Drift(snap, c)
	if d.Calls != 10 || d.Samples == 0 || d.Distance > 0.02 {
		t.Errorf("drift under the same behaviour = %+v, want a small distance", d)
	}
	// Now the loop exits at once and the result is negative: new paths.
	snap = TakeSnapshot(c)
	for i := 0; i < 50; i++ {
		c[EntryCounter]++
		c[EdgeCounter(1)]++
		c[EdgeCounter(9)]++
	}
	d = l.Drift(snap, c)
	if d.Distance < 0.5 || d.Calls != 50 || d.Samples != 100 {
		t.Errorf("drift under new behaviour = %+v, want distance > 0.5", d)
	}
}

// TestCannotEndCall checks the ops an entry block may hold for its edges
// to stand for the calls: none that loads, stores, copies or fills
// memory, calls, returns, traps or grows memory, touches a table or a
// segment, or that divides or truncates with a trap; and that the
// arithmetic, comparisons, conversions and branches qualify.
func TestCannotEndCall(t *testing.T) {
	mayEnd := map[bytecode.Op]bool{
		bytecode.OpI64DivS: true, bytecode.OpI64DivU: true, bytecode.OpI64RemS: true, bytecode.OpI64RemU: true,
		bytecode.OpI32DivS: true, bytecode.OpI32DivU: true, bytecode.OpI32RemS: true, bytecode.OpI32RemU: true,
		bytecode.OpI64TruncF64S: true, bytecode.OpI64TruncF64U: true, bytecode.OpI32TruncF32S: true, bytecode.OpI32TruncF32U: true,
		bytecode.OpI32TruncF64S: true, bytecode.OpI32TruncF64U: true, bytecode.OpI64TruncF32S: true, bytecode.OpI64TruncF32U: true,
		bytecode.OpMemoryGrow: true, bytecode.OpInvalid: true,
	}
	for op := bytecode.Op(0); int(op) < bytecode.NumOps; op++ {
		switch op.Info().Format {
		case bytecode.FormatLoad, bytecode.FormatStore, bytecode.FormatCall, bytecode.FormatCallIndirect,
			bytecode.FormatReturn, bytecode.FormatTrap, bytecode.FormatNone, bytecode.FormatMemoryBulk,
			bytecode.FormatSegmentBulk, bytecode.FormatSegment, bytecode.FormatRefFunc, bytecode.FormatTableGet,
			bytecode.FormatTableSet, bytecode.FormatTableSize, bytecode.FormatTableGrow, bytecode.FormatTableFill,
			bytecode.FormatTableBulk:
			mayEnd[op] = true // runtime calls, which may trap (ref.func is left out with them)
		}
	}
	for op := bytecode.Op(0); int(op) < bytecode.NumOps; op++ {
		if got := cannotEndCall(op); got == mayEnd[op] {
			t.Errorf("%s: cannotEndCall %v", op, got)
		}
	}
	if cannotEndCall(bytecode.Op(bytecode.NumOps)) {
		t.Error("an op beyond the table cannot end a call")
	}
}
