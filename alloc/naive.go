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
	for bi := 0; bi < nblocks; bi++ {
		b := f.Blocks[bi]
		phis := b.Phis()
		if len(phis) == 0 {
			continue
		}
		for k := 0; k < len(b.Preds); k++ {
			pred := f.Blocks[b.Preds[k]]
			if t := pred.Terminator(); t.Op != mir.OpJMP {
				// Find this edge among pred's successors and split it.
				occurrence := 0
				for _, p := range b.Preds[:k] {
					if p == pred.ID {
						occurrence++
					}
				}
				for i, s := range pred.Succs {
					if s != b.ID {
						continue
					}
					if occurrence == 0 {
						pred = SplitEdge(f, pred, i)
						break
					}
					occurrence--
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
