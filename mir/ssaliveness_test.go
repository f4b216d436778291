package mir

import (
	"math/rand/v2"
	"testing"
)

// randomNonSSA builds a random function out of SSA form: random edges
// (forward, backward, parallel, and blocks no edge reaches), and blocks
// that read and write a few virtual registers many times each. It need not
// verify: liveness only looks at operands and edges.
func randomNonSSA(r *rand.Rand) *Func {
	n := 1 + r.IntN(8)
	f := NewFunc("rand", 0, nil, []Class{GPR})
	f.Form = FormNonSSA
	for range n {
		f.NewBlock()
	}
	nv := 1 + r.IntN(6)
	for range nv {
		f.NewVReg(GPR)
	}
	vr := func() Reg { return VReg(r.IntN(nv)) }
	for i, b := range f.Blocks {
		for k := r.IntN(5); k > 0; k-- {
			if r.IntN(3) == 0 {
				b.Append(&Instr{Op: OpMOVQconst, Defs: []Reg{vr()}, Imm: 1, Pos: -1})
			} else {
				b.Append(&Instr{Op: OpADDQ, Defs: []Reg{vr()}, Uses: []Reg{vr(), vr()}, Pos: -1})
			}
		}
		switch k := r.IntN(3); {
		case i+1 == n || k == 0:
			b.Append(&Instr{Op: OpRET, Uses: []Reg{vr()}, Pos: -1})
		case k == 1:
			b.Append(&Instr{Op: OpJMP, Pos: -1})
			f.AddEdge(i, 1+r.IntN(n-1), 1)
		default:
			b.Append(&Instr{Op: OpTESTQ, Uses: []Reg{vr(), vr()}, Pos: -1})
			b.Append(&Instr{Op: OpJCC, Cond: CondE, Pos: -1})
			f.AddEdge(i, 1+r.IntN(n-1), 0.5)
			f.AddEdge(i, 1+r.IntN(n-1), 0.5)
		}
	}
	return f
}

// TestSparseLivenessMatchesBitsets compares ComputeSparseLiveness with
// ComputeLiveness on random functions in SSA form (with φs) and out of it
// (with unreachable blocks), and ComputeSSALiveness on the SSA ones.
func TestSparseLivenessMatchesBitsets(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 400; iter++ {
		var f *Func
		if iter%2 == 0 {
			f = randomSSA(r)
		} else {
			f = randomNonSSA(r)
		}
		lv := ComputeLiveness(f)
		sparse := map[string]*SSALiveness{"sparse": ComputeSparseLiveness(f)}
		if f.Form == FormSSA {
			sparse["ssa"] = ComputeSSALiveness(f)
		}
		for name, sl := range sparse {
			for b := range f.Blocks {
				for v := range f.VRegs {
					if got, want := sl.LiveIn(b, v), lv.LiveIn[b].Has(v); got != want {
						t.Fatalf("%s: v%d live into b%d: got %v, want %v\n%s", name, v, b, got, want, Format(f))
					}
					if got, want := sl.LiveOut(b, v), lv.LiveOut[b].Has(v); got != want {
						t.Fatalf("%s: v%d live out of b%d: got %v, want %v\n%s", name, v, b, got, want, Format(f))
					}
				}
				if got, want := len(sl.In(b)), lv.LiveIn[b].Len(); got != want {
					t.Fatalf("%s: b%d has %d registers live in, want %d", name, b, got, want)
				}
			}
		}
	}
}

// TestLiveSetsWithin checks the bounded count against the sets
// ComputeSSALiveness builds: within exactly at their size, not one below.
func TestLiveSetsWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 500 {
		f := randomNonSSA(r)
		l := ComputeSSALiveness(f)
		total := 0
		for b := range f.Blocks {
			total += len(l.In(b)) + len(l.Out(b))
		}
		if !LiveSetsWithin(f, total) {
			t.Fatalf("function %d: not within its own size %d", i, total)
		}
		if total > 0 && LiveSetsWithin(f, total-1) {
			t.Fatalf("function %d: within %d, below its size %d", i, total-1, total)
		}
	}
}
