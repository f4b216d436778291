package mir

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// diamondText: b0 -> b1 | b2 -> b3, with a φ in b3. v1 is used only by the
// φ (so it is live out of b1 but not live into b3); v0 flows through.
const diamondText = `func d #0 (gpr) -> (gpr) ssa
  vregs 5
b0: freq=1
  v0:gpr = Arg #0
  TESTQ v0, v0
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  v1:gpr = LEAQ v0, $1
  JMP -> b3 1
b2: preds=b0 freq=0.5
  v2:gpr = LEAQ v0, $2
  JMP -> b3 1
b3: preds=b1,b2 freq=1
  v3:gpr = Phi v1, v2
  v4:gpr = ADDQ v3, v0
  RET v4
end
`

func TestLivenessPhiConvention(t *testing.T) {
	f, err := ParseFunc([]byte(diamondText))
	if err != nil {
		t.Fatal(err)
	}
	lv := ComputeLiveness(f)
	set := func(bs Bitset) []int { return bs.Elems() }
	checks := []struct {
		name string
		got  []int
		want []int
	}{
		{"in b0", set(lv.LiveIn[0]), nil},
		{"out b0", set(lv.LiveOut[0]), []int{0}},
		{"in b1", set(lv.LiveIn[1]), []int{0}},
		{"out b1", set(lv.LiveOut[1]), []int{0, 1}}, // v1 flows into the φ on the edge
		{"out b2", set(lv.LiveOut[2]), []int{0, 2}},
		{"in b3", set(lv.LiveIn[3]), []int{0}}, // neither φ operands nor the φ result
		{"out b3", set(lv.LiveOut[3]), nil},
	}
	for _, c := range checks {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestAnalyzeAndCriticalEdges(t *testing.T) {
	f, err := ParseFunc([]byte(validLoop))
	if err != nil {
		t.Fatal(err)
	}
	a := Analyze(f)
	if !slices.Equal(a.RPO, []int{0, 1, 2, 3}) {
		t.Errorf("RPO = %v", a.RPO)
	}
	if !a.Dominates(1, 2) || !a.Dominates(1, 3) || a.Dominates(2, 3) || !a.Dominates(0, 0) {
		t.Error("dominance wrong")
	}
	if a.LoopDepth(2) != 1 || a.LoopDepth(3) != 0 || a.LoopDepth(1) != 1 {
		t.Errorf("loop depths %d %d %d", a.LoopDepth(1), a.LoopDepth(2), a.LoopDepth(3))
	}
	// b1 (two successors) -> b3 (one predecessor) is not critical; in the
	// diamond with an extra edge b0 -> b3 it is.
	if ce := CriticalEdges(f); len(ce) != 0 {
		t.Errorf("critical edges %v", ce)
	}
	g, err := ParseFunc([]byte(`func c #0 (gpr) -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = Arg #0
  TESTQ v0, v0
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  JMP -> b2 1
b2: preds=b0,b1 freq=1
  RET
end
`))
	if err != nil {
		t.Fatal(err)
	}
	if ce := CriticalEdges(g); !slices.Equal(ce, []Edge{{0, 1}}) {
		t.Errorf("critical edges %v, want [{0 1}]", ce)
	}
}

// bruteLiveIn decides whether v is live into block b by searching the
// paths from b's start for a use of v before a definition: an ordinary use
// in a block, or a φ operand at the end of the predecessor it comes from.
func bruteLiveIn(f *Func, b int, v Reg) bool {
	type item struct {
		block int
		start int // instruction index to scan from
	}
	seen := map[int]bool{}
	stack := []item{{b, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		blk := f.Blocks[it.block]
		killed := false
		for _, phi := range blk.Phis()[:it.start] {
			// Entering through an edge: the block's φs define at its top.
			killed = killed || slices.Contains(phi.Defs, v)
		}
		for i := it.start; i < len(blk.Instrs) && !killed; i++ {
			in := blk.Instrs[i]
			if in.Op != OpPhi && slices.Contains(in.Uses, v) {
				return true
			}
			if slices.Contains(in.Defs, v) {
				killed = true
			}
		}
		if killed {
			continue
		}
		// Live out: a φ in a successor reads v on this edge, or a
		// successor has v live into it.
		for _, s := range blk.Succs {
			sb := f.Blocks[s]
			for k, p := range sb.Preds {
				if p != it.block {
					continue
				}
				for _, phi := range sb.Phis() {
					if k < len(phi.Uses) && phi.Uses[k] == v {
						return true
					}
				}
			}
			if !seen[s] {
				seen[s] = true
				stack = append(stack, item{s, len(sb.Phis())})
			}
		}
	}
	return false
}

// TestLivenessAgainstBruteForce compares ComputeLiveness with a path search
// on random SSA functions with loops, joins and φs, and ComputeSSALiveness
// with ComputeLiveness.
func TestLivenessAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for iter := 0; iter < 200; iter++ {
		f := randomSSA(r)
		if err := Verify(f); err != nil {
			t.Fatalf("generator made invalid SSA: %v\n%s", err, Format(f))
		}
		lv := ComputeLiveness(f)
		sparse := ComputeSSALiveness(f)
		for b := range f.Blocks {
			for v := range f.VRegs {
				if got, want := lv.LiveIn[b].Has(v), bruteLiveIn(f, b, VReg(v)); got != want {
					t.Fatalf("v%d live into b%d: got %v, want %v\n%s", v, b, got, want, Format(f))
				}
				if got, want := sparse.LiveIn(b, v), lv.LiveIn[b].Has(v); got != want {
					t.Fatalf("SSA liveness: v%d live into b%d: got %v, want %v\n%s", v, b, got, want, Format(f))
				}
				if got, want := sparse.LiveOut(b, v), lv.LiveOut[b].Has(v); got != want {
					t.Fatalf("SSA liveness: v%d live out of b%d: got %v, want %v\n%s", v, b, got, want, Format(f))
				}
			}
			for _, set := range [][]int32{sparse.In(b), sparse.Out(b)} {
				if !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != len(set) {
					t.Fatalf("SSA liveness of b%d: %v is not strictly increasing", b, set)
				}
			}
		}
	}
}

// randomSSA builds a random valid SSA function: a chain of blocks where
// each block may branch forward or back, every value is defined in a block
// that dominates its uses (the entry block's values, the block's own
// values), and join blocks get φs over values of their predecessors'
// dominators (the entry's).
func randomSSA(r *rand.Rand) *Func {
	n := 3 + r.IntN(6)
	f := NewFunc("rand", 0, []Class{GPR}, []Class{GPR})
	for i := 0; i < n; i++ {
		f.NewBlock().Freq = 1
	}
	// Edges: block i -> i+1 always (or return at the end), plus a random
	// second successor anywhere after the entry.
	for i := 0; i < n-1; i++ {
		if r.IntN(2) == 0 {
			f.AddEdge(i, i+1, 1)
		} else {
			other := 1 + r.IntN(n-1)
			f.AddEdge(i, i+1, 0.5)
			f.AddEdge(i, other, 0.5)
		}
	}
	entry := f.Blocks[0]
	arg := f.NewVReg(GPR)
	entry.Append(&Instr{Op: OpArg, Defs: []Reg{arg}, Pos: -1})
	var entryVals []Reg
	for k := 0; k < 3; k++ {
		v := f.NewVReg(GPR)
		entry.Append(&Instr{Op: OpMOVQconst, Defs: []Reg{v}, Imm: int64(k), Pos: -1})
		entryVals = append(entryVals, v)
	}
	entryVals = append(entryVals, arg)
	pick := func(vals []Reg) Reg { return vals[r.IntN(len(vals))] }
	for i, b := range f.Blocks {
		vals := slices.Clone(entryVals)
		if i > 0 && len(b.Preds) > 1 && r.IntN(2) == 0 {
			phi := f.NewVReg(GPR)
			uses := make([]Reg, len(b.Preds))
			for k := range uses {
				uses[k] = pick(entryVals)
			}
			b.Instrs = append([]*Instr{{Op: OpPhi, Defs: []Reg{phi}, Uses: uses, Pos: -1}}, b.Instrs...)
			vals = append(vals, phi)
		}
		if i > 0 {
			for k := r.IntN(4); k > 0; k-- {
				d := f.NewVReg(GPR)
				b.Append(&Instr{Op: OpADDQ, Defs: []Reg{d}, Uses: []Reg{pick(vals), pick(vals)}, Pos: -1})
				vals = append(vals, d)
			}
		}
		switch len(b.Succs) {
		case 0:
			b.Append(&Instr{Op: OpRET, Uses: []Reg{pick(vals)}, Pos: -1})
		case 1:
			b.Append(&Instr{Op: OpJMP, Pos: -1})
		default:
			b.Append(&Instr{Op: OpTESTQ, Uses: []Reg{pick(vals), pick(vals)}, Pos: -1})
			b.Append(&Instr{Op: OpJCC, Cond: CondE, Pos: -1})
		}
	}
	return f
}
