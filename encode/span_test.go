package encode

import (
	"math/rand/v2"
	"testing"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"

	"github.com/kiln-jit/kiln/mir"
)

// randomBranchyList fills a's list with a random mix of labels, jumps and
// conditional jumps to them (forward and backward, near and beyond a
// byte's reach), compares and tests that fuse with the jumps, calls,
// returns and runs of other instructions of varied lengths, so that the
// layout grows branches, cascades, and pads jumps against the 32-byte
// boundaries in every position.
func randomBranchyList(r *rand.Rand, a *assembler) {
	labels := make([]*obj.Prog, 2+r.IntN(12))
	for i := range labels {
		labels[i] = a.label()
	}
	bound := make([]bool, len(labels))
	reg := func() obj.Addr { return regOp(mir.Reg(r.IntN(16))) }
	add2 := func(as obj.As, from, to obj.Addr) {
		p := a.add(as)
		p.From, p.To = from, to
	}
	filler := func() {
		switch r.IntN(6) {
		case 0:
			add2(x86.AMOVQ, constOp(r.Int64()>>r.IntN(64)), reg())
		case 1:
			add2(x86.AADDQ, reg(), reg())
		case 2:
			add2(x86.ALEAQ, memOp(mir.Reg(r.IntN(16)), r.Int64N(1<<20)-1<<19), reg())
		case 3:
			add2(x86.AMOVL, constOp(r.Int64N(1<<31)), ctxOp(r.Int64N(1<<12)))
		case 4:
			add2(x86.AMOVSD, regOp(mir.X0+mir.Reg(r.IntN(16))), memOp(mir.RSP, 8*r.Int64N(40)))
		default:
			a.add(x86.ANEGQ).To = reg()
		}
	}
	target := func() *obj.Prog { return labels[r.IntN(len(labels))] }
	n := 20 + r.IntN(300)
	for range n {
		switch k := r.IntN(20); {
		case k < 3:
			if i := r.IntN(len(labels)); !bound[i] {
				a.bind(labels[i])
				bound[i] = true
			}
		case k < 5:
			add2(x86.ACMPQ, reg(), reg())
			branchTo(a.add(jcc[r.IntN(16)]), target())
		case k < 6:
			add2(x86.ATESTL, constOp(r.Int64N(300)), reg())
			if r.IntN(2) == 0 {
				a.bind(a.label()) // a label between the pair
			}
			branchTo(a.add(jcc[r.IntN(16)]), target())
		case k < 7:
			add2(x86.ASUBQ, constOp(1), ctxOp(CtxBudget))
			branchTo(a.add(jcc[r.IntN(16)]), target())
		case k < 9:
			branchTo(a.add(obj.AJMP), target())
		case k < 10:
			branchTo(a.add(jcc[r.IntN(16)]), target())
		case k < 11:
			a.add(obj.ACALL).To = ctxOp(CtxExitStub)
		case k < 12:
			a.add(obj.ARET)
		default:
			for range 1 + r.IntN(12) {
				filler()
			}
		}
	}
	for i, l := range labels {
		if !bound[i] {
			a.bind(l)
		}
	}
}

// TestLayoutMatchesGolangAsm lays out random lists full of branches (see
// randomBranchyList) from the forms and with golang-asm: the code,
// relocations and every instruction's offset must agree.
func TestLayoutMatchesGolangAsm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := getAssembler()
	defer putAssembler(a)
	long := 0
	for i := range 400 {
		a.reset()
		randomBranchyList(r, a)
		code, _, err := a.assembleCompare()
		if err != nil {
			t.Fatalf("list %d: %v", i, err)
		}
		for _, in := range a.spans {
			if in.cc != -2 && in.isize > 2 {
				long++
			}
		}
		if len(code) == 0 {
			t.Fatalf("list %d: no code", i)
		}
	}
	if long < 100 {
		t.Fatalf("only %d long branches", long)
	}
}
