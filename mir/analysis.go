package mir

import (
	"github.com/kiln-jit/kiln/internal/cfg"
)

// Graph returns the function's block graph (node i is block i, successor
// lists in Succs order).
func (f *Func) Graph() *cfg.Graph {
	succs := make([][]int, len(f.Blocks))
	for i, b := range f.Blocks {
		succs[i] = b.Succs
	}
	return cfg.New(0, succs)
}

// Analysis bundles the CFG analyses of a function computed at one moment:
// reverse postorder, the dominator tree with O(1) dominance queries, and
// the loop nesting forest. It is not updated when the function changes.
type Analysis struct {
	Graph *cfg.Graph
	// RPO lists the reachable blocks in reverse postorder; RPONum gives
	// each block's position in it (-1 for unreachable blocks).
	RPO    []int
	RPONum []int
	Dom    *cfg.DomTree
	Loops  *cfg.LoopForest
}

// Analyze computes the CFG analyses of f.
func Analyze(f *Func) *Analysis {
	g := f.Graph()
	a := &Analysis{Graph: g, RPO: g.ReversePostorder(), RPONum: make([]int, len(f.Blocks))}
	for i := range a.RPONum {
		a.RPONum[i] = -1
	}
	for i, b := range a.RPO {
		a.RPONum[b] = i
	}
	a.Dom = cfg.Dominators(g)
	a.Loops = cfg.Loops(g)
	return a
}

// Dominates reports whether block a dominates block b.
func (a *Analysis) Dominates(x, y int) bool { return a.Dom.Dominates(x, y) }

// LoopDepth returns the loop nesting depth of block b (0 outside loops).
func (a *Analysis) LoopDepth(b int) int { return a.Loops.Depth(b) }

// Edge names the i-th successor edge of block Block.
type Edge struct {
	Block, Succ int
}

// CriticalEdges lists the critical edges of f: edges from a block with
// several successors to a block with several predecessors. Code placed on
// such an edge needs a block of its own.
func CriticalEdges(f *Func) []Edge {
	var out []Edge
	for _, b := range f.Blocks {
		if len(b.Succs) < 2 {
			continue
		}
		for i, s := range b.Succs {
			if len(f.Blocks[s].Preds) > 1 {
				out = append(out, Edge{b.ID, i})
			}
		}
	}
	return out
}

// Liveness holds the virtual registers live at the start and end of each
// block, with the φ convention of the out-of-SSA papers: a φ's operand is
// live out of the corresponding predecessor (it is read on the edge) and
// not live into the φ's block; a φ's result is defined at the top of its
// block, so it is not live into the block either.
type Liveness struct {
	LiveIn, LiveOut []Bitset
}

// ComputeLiveness computes the live-in and live-out sets of every block by
// iterating the backward dataflow equations in postorder to a fixed point.
// Physical registers and stack slots are not tracked. Its bit sets cost
// blocks × virtual registers; the compile path uses ComputeSparseLiveness,
// which computes the same sets in time and memory linear in their size.
func ComputeLiveness(f *Func) *Liveness {
	n := len(f.VRegs)
	nb := len(f.Blocks)
	lv := &Liveness{LiveIn: make([]Bitset, nb), LiveOut: make([]Bitset, nb)}
	// Per block: the registers used before any definition in the block
	// (upward exposed, φ operands excluded), the registers defined in it
	// (φ results included), and the φ operands it sends to each successor.
	use := make([]Bitset, nb)
	def := make([]Bitset, nb)
	for i, b := range f.Blocks {
		lv.LiveIn[i], lv.LiveOut[i] = NewBitset(n), NewBitset(n)
		use[i], def[i] = NewBitset(n), NewBitset(n)
		for _, in := range b.Instrs {
			if in.Op != OpPhi {
				for _, r := range in.Uses {
					if r.IsVirtual() && !def[i].Has(r.Index()) {
						use[i].Add(r.Index())
					}
				}
			}
			for _, r := range in.Defs {
				if r.IsVirtual() {
					def[i].Add(r.Index())
				}
			}
		}
	}
	// phiUses[p] holds the φ operands that flow out of block p.
	phiUses := make([]Bitset, nb)
	for _, b := range f.Blocks {
		for _, phi := range b.Phis() {
			for k, r := range phi.Uses {
				if k >= len(b.Preds) || !r.IsVirtual() {
					continue
				}
				p := b.Preds[k]
				if phiUses[p] == nil {
					phiUses[p] = NewBitset(n)
				}
				phiUses[p].Add(r.Index())
			}
		}
	}
	order := f.Graph().Postorder()
	tmp := NewBitset(n)
	for changed := true; changed; {
		changed = false
		for _, bi := range order {
			b := f.Blocks[bi]
			out := lv.LiveOut[bi]
			for _, s := range b.Succs {
				changed = out.Union(lv.LiveIn[s]) || changed
			}
			if phiUses[bi] != nil {
				changed = out.Union(phiUses[bi]) || changed
			}
			// in = use ∪ (out − def)
			for w := range tmp {
				tmp[w] = use[bi][w] | out[w]&^def[bi][w]
			}
			if !tmp.Equal(lv.LiveIn[bi]) {
				lv.LiveIn[bi].Copy(tmp)
				changed = true
			}
		}
	}
	return lv
}
