package encode

import (
	"cmp"
	"slices"

	"github.com/kiln-jit/kiln/mir"
)

// blockOrder returns the order in which f's blocks are emitted.
//
// Blocks are laid out in chains that fall through from one block to the
// next, formed bottom-up by decreasing edge frequency (Pettis and Hansen):
// an edge u→v joins u's chain to v's when u ends its chain and v starts
// its own, so the hottest edges become fall-throughs. A loop whose latch
// only jumps back to the loop's first block is rotated so that the latch
// comes first: the test at the bottom of the loop then branches back to it
// and the latch falls into the loop's top, one jump fewer per iteration.
// The entry block's chain comes first, the others follow in the order of
// their first block, and blocks that only trap go last. Ties are broken by
// block number, so the order is deterministic.
func blockOrder(f *mir.Func) []int {
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
