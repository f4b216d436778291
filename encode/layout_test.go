package encode

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/mir"
)

// slowBlockOrder is blockOrder as first written, with chains as slices
// that are copied and renumbered on every join: the reference for
// TestBlockOrderMatchesReference.
func slowBlockOrder(f *mir.Func) []int {
	n := len(f.Blocks)
	cold := func(b int) bool { return b != 0 && isCold(f.Blocks[b]) }
	chainOf := make([]int, n) // the chain (by its number) holding each block
	chains := make([][]int, n)
	for b := range n {
		chainOf[b] = b
		chains[b] = []int{b}
	}
	type edge struct {
		from, to int
		w        float64
	}
	var edges []edge
	for _, b := range f.Blocks {
		if cold(b.ID) {
			continue
		}
		for k, s := range b.Succs {
			if s != b.ID && s != 0 && !cold(s) {
				edges = append(edges, edge{b.ID, s, b.Freq * b.SuccProb[k]})
			}
		}
	}
	slices.SortStableFunc(edges, func(x, y edge) int {
		if c := cmp.Compare(y.w, x.w); c != 0 {
			return c
		}
		if c := cmp.Compare(x.from, y.from); c != 0 {
			return c
		}
		return cmp.Compare(x.to, y.to)
	})
	for _, e := range edges {
		cu, cv := chainOf[e.from], chainOf[e.to]
		if cu == cv {
			continue
		}
		u, v := chains[cu], chains[cv]
		if u[len(u)-1] != e.from || v[0] != e.to {
			continue
		}
		chains[cu] = append(u, v...)
		for _, b := range v {
			chainOf[b] = cu
		}
		chains[cv] = nil
	}
	// Rotate loops whose latch jumps back to the chain's first block.
	for c, ch := range chains {
		if len(ch) < 3 {
			continue
		}
		t := f.Blocks[ch[len(ch)-1]]
		if term := t.Terminator(); term.Op == mir.OpJMP && t.Succs[0] == ch[0] && len(t.Instrs) <= 3 && ch[0] != 0 {
			rot := append([]int{t.ID}, ch[:len(ch)-1]...)
			chains[c] = rot
		}
	}
	// Chains in order: the entry's, then by first block, cold ones last.
	var live []int
	for c, ch := range chains {
		if len(ch) > 0 {
			live = append(live, c)
		}
	}
	isColdChain := func(c int) bool {
		for _, b := range chains[c] {
			if !cold(b) {
				return false
			}
		}
		return true
	}
	first := func(c int) int { return slices.Min(chains[c]) }
	slices.SortStableFunc(live, func(x, y int) int {
		switch {
		case chainOf[0] == x:
			return -1
		case chainOf[0] == y:
			return 1
		}
		if cx, cy := isColdChain(x), isColdChain(y); cx != cy {
			if cx {
				return 1
			}
			return -1
		}
		return cmp.Compare(first(x), first(y))
	})
	order := make([]int, 0, n)
	for _, c := range live {
		order = append(order, chains[c]...)
	}
	return order
}

// randomLayoutFunc builds a function with random edges, frequencies and
// probabilities, some blocks that only trap and some latches that only
// jump back, for the layout: only terminators and edges matter.
func randomLayoutFunc(r *rand.Rand) *mir.Func {
	n := 1 + r.IntN(40)
	f := mir.NewFunc("layout", 0, nil, nil)
	for range n {
		f.NewBlock().Freq = float64(r.IntN(4)) * 0.5
	}
	for i, b := range f.Blocks {
		switch k := r.IntN(5); {
		case i > 0 && k == 0:
			b.Append(&mir.Instr{Op: mir.OpTRAP, Aux: 1})
		case k == 1 || n == 1:
			b.Append(&mir.Instr{Op: mir.OpRET})
		case k == 2:
			b.Append(&mir.Instr{Op: mir.OpJMP})
			f.AddEdge(i, r.IntN(n), 1)
		default:
			b.Append(&mir.Instr{Op: mir.OpJCC, Cond: mir.CondE})
			p := float64(r.IntN(5)) / 4
			f.AddEdge(i, r.IntN(n), p)
			f.AddEdge(i, r.IntN(n), 1-p)
		}
	}
	return f
}

// TestBlockOrderMatchesReference compares blockOrder with the reference
// on random functions and on long chains joined in every order.
func TestBlockOrderMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var funcs []*mir.Func
	for range 2000 {
		funcs = append(funcs, randomLayoutFunc(r))
	}
	// A straight chain whose edges get colder towards the entry, so that
	// it is joined from its end.
	chain := mir.NewFunc("chain", 0, nil, nil)
	for i := range 200 {
		chain.NewBlock().Freq = float64(i + 1)
	}
	for i, b := range chain.Blocks {
		if i+1 == len(chain.Blocks) {
			b.Append(&mir.Instr{Op: mir.OpRET})
			continue
		}
		b.Append(&mir.Instr{Op: mir.OpJMP})
		chain.AddEdge(i, i+1, 1)
	}
	funcs = append(funcs, chain)
	for _, f := range funcs {
		if got, want := blockOrder(f), slowBlockOrder(f); !slices.Equal(got, want) {
			t.Fatalf("%s: order %v, want %v\n%s", f.Name, got, want, mir.Format(f))
		}
	}
}
