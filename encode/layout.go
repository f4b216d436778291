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
	// Chains are linked lists of blocks (next), named by a union-find root
	// that knows their first and last block, so that joining two costs the
	// same however long they are.
	c := newChains(n)
	type edge struct {
		from, to int32
		w        float64
	}
	ne := 0
	for _, b := range f.Blocks {
		ne += len(b.Succs)
	}
	edges := make([]edge, 0, ne)
	for _, b := range f.Blocks {
		if cold(b.ID) {
			continue
		}
		for k, s := range b.Succs {
			if s != b.ID && s != 0 && !cold(s) {
				edges = append(edges, edge{int32(b.ID), int32(s), b.Freq * b.SuccProb[k]})
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
		cu, cv := c.find(int(e.from)), c.find(int(e.to))
		if cu == cv || c.last[cu] != int(e.from) || c.first[cv] != int(e.to) {
			continue
		}
		c.join(cu, cv)
	}
	// The chains, each with its first (smallest) block and whether it only
	// traps; loops whose latch jumps back to the chain's first block are
	// rotated.
	// A chain's blocks are all[start:end].
	type chain struct {
		start, end int32
		min        int32
		cold       bool
	}
	all := make([]int, 0, n)
	var chains []chain
	entry := -1
	for b := range n {
		if c.find(b) != b {
			continue
		}
		ch := chain{start: int32(len(all)), min: int32(n), cold: true}
		for x := c.first[b]; x >= 0; x = c.next[x] {
			all = append(all, x)
			ch.min = min(ch.min, int32(x))
			ch.cold = ch.cold && cold(x)
		}
		ch.end = int32(len(all))
		if bs := all[ch.start:ch.end]; len(bs) >= 3 {
			t := f.Blocks[bs[len(bs)-1]]
			if term := t.Terminator(); term.Op == mir.OpJMP && t.Succs[0] == bs[0] && len(t.Instrs) <= 3 && bs[0] != 0 {
				// Rotated: the latch first.
				copy(bs[1:], bs[:len(bs)-1])
				bs[0] = t.ID
			}
		}
		if b == c.find(0) {
			entry = len(chains)
		}
		chains = append(chains, ch)
	}
	// Chains in order: the entry's, then by first block, cold ones last.
	live := make([]int, len(chains))
	for i := range live {
		live[i] = i
	}
	slices.SortStableFunc(live, func(x, y int) int {
		switch {
		case entry == x:
			return -1
		case entry == y:
			return 1
		}
		if cx, cy := chains[x].cold, chains[y].cold; cx != cy {
			if cx {
				return 1
			}
			return -1
		}
		return cmp.Compare(chains[x].min, chains[y].min)
	})
	order := make([]int, 0, n)
	for _, i := range live {
		order = append(order, all[chains[i].start:chains[i].end]...)
	}
	return order
}

// chainSet holds the fall-through chains of blockOrder: disjoint lists of
// blocks joined end to start, in a union-find forest whose roots know the
// first and last block of their chain.
type chainSet struct {
	parent, next []int
	first, last  []int // valid at roots
	size         []int
}

// newChains returns n chains of one block each.
func newChains(n int) *chainSet {
	c := &chainSet{parent: make([]int, n), next: make([]int, n), first: make([]int, n), last: make([]int, n), size: make([]int, n)}
	for b := range n {
		c.parent[b], c.next[b], c.first[b], c.last[b], c.size[b] = b, -1, b, b, 1
	}
	return c
}

// find returns the root naming b's chain.
func (c *chainSet) find(b int) int {
	for c.parent[b] != b {
		c.parent[b] = c.parent[c.parent[b]]
		b = c.parent[b]
	}
	return b
}

// join appends chain v (a root) to the end of chain u (a root).
func (c *chainSet) join(u, v int) {
	c.next[c.last[u]] = c.first[v]
	first, last := c.first[u], c.last[v]
	if c.size[u] < c.size[v] {
		u, v = v, u
	}
	c.parent[v] = u
	c.size[u] += c.size[v]
	c.first[u], c.last[u] = first, last
}
