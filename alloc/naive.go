package alloc

import (
	"fmt"

	"github.com/kiln-jit/kiln/mir"
)

// NaiveDestruct takes f out of SSA form the simple way (Briggs et al.'s φ
// instantiation): every φ becomes a copy on each incoming edge, and the
// copies of one edge form a single parallel copy, which avoids the swap
// problem. An edge's parallel copy goes at the end of its predecessor when
// that block ends with a plain jump; otherwise (a critical edge, or a
// predecessor whose terminator reads registers) the edge is split and the
// copy goes into the new block, which avoids the lost-copy problem. f
// becomes FormNonSSA: a φ result is now defined by one copy per
// predecessor.
func NaiveDestruct(f *mir.Func) error {
	if f.Form != mir.FormSSA {
		return fmt.Errorf("alloc: naive destruction of %s needs SSA form, not %s", f.Name, f.Form)
	}
	nblocks := len(f.Blocks)
	succIdx := succPositions(f)
	for bi := 0; bi < nblocks; bi++ {
		b := f.Blocks[bi]
		phis := b.Phis()
		if len(phis) == 0 {
			continue
		}
		for k := 0; k < len(b.Preds); k++ {
			pred := f.Blocks[b.Preds[k]]
			if t := pred.Terminator(); t.Op != mir.OpJMP {
				// Split this edge, found among pred's successors.
				if i := succIdx[bi][k]; i >= 0 {
					pred = SplitEdgeAt(f, pred, i, k)
				}
			}
			defs := make([]mir.Reg, 0, len(phis))
			uses := make([]mir.Reg, 0, len(phis))
			for _, phi := range phis {
				if phi.Defs[0] != phi.Uses[k] {
					defs = append(defs, phi.Defs[0])
					uses = append(uses, phi.Uses[k])
				}
			}
			if len(defs) == 0 {
				continue
			}
			pc := f.NewInstr(mir.Instr{Op: mir.OpParCopy, Defs: defs, Uses: uses, Pos: -1})
			n := len(pred.Instrs)
			pred.Instrs = append(pred.Instrs[:n-1:n-1], pc, pred.Instrs[n-1])
		}
		b.Instrs = b.Instrs[len(phis):]
	}
	f.Form = mir.FormNonSSA
	return nil
}

// succPositions inverts mir.PredPositions: succPositions(f)[b][k] is the
// index, among the successors of b's k-th predecessor, of the edge that
// predecessor entry stands for (-1: none). Splitting an edge replaces its
// entries in place, so the others stay valid while edges are split.
func succPositions(f *mir.Func) [][]int {
	n := 0
	for _, b := range f.Blocks {
		n += len(b.Preds)
	}
	backing := make([]int, n)
	for i := range backing {
		backing[i] = -1
	}
	out := make([][]int, len(f.Blocks))
	for bi, b := range f.Blocks {
		out[bi], backing = backing[:len(b.Preds):len(b.Preds)], backing[len(b.Preds):]
	}
	pos := mir.PredPositions(f)
	for bi := range pos.Blocks() {
		for i, k := range pos.Row(bi) {
			if k >= 0 {
				out[f.Blocks[bi].Succs[i]][k] = i
			}
		}
	}
	return out
}
