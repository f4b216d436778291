package lower

import (
	"github.com/kiln-jit/kiln/mir"
)

// removeUnreachable drops blocks that cannot be reached from the entry
// (their φ operands go too) and renumbers the remaining blocks in reverse
// postorder, so that the function reads top to bottom.
func removeUnreachable(f *mir.Func) {
	rpo := f.Graph().ReversePostorder()
	newID := make([]int, len(f.Blocks))
	for i := range newID {
		newID[i] = -1
	}
	for i, b := range rpo {
		newID[b] = i
	}
	blocks := make([]*mir.Block, len(rpo))
	for i, old := range rpo {
		b := f.Blocks[old]
		// Keep the predecessor entries (and φ operands) of reachable
		// predecessors only.
		var preds []int
		var keep []int
		for k, p := range b.Preds {
			if newID[p] >= 0 {
				preds = append(preds, newID[p])
				keep = append(keep, k)
			}
		}
		if len(keep) != len(b.Preds) {
			for _, phi := range b.Phis() {
				uses := make([]mir.Reg, len(keep))
				for j, k := range keep {
					uses[j] = phi.Uses[k]
				}
				phi.Uses = uses
			}
		}
		b.Preds = preds
		for k, s := range b.Succs {
			b.Succs[k] = newID[s]
		}
		b.ID = i
		blocks[i] = b
	}
	f.Blocks = blocks
	simplifyPhis(f)
}

// simplifyPhis removes φs whose operands are all the same value (or the φ
// itself), which removing predecessors can create, replacing their uses.
func simplifyPhis(f *mir.Func) {
	alias := map[mir.Reg]mir.Reg{}
	find := func(r mir.Reg) mir.Reg {
		for {
			a, ok := alias[r]
			if !ok {
				return r
			}
			r = a
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, phi := range b.Phis() {
				d := phi.Defs[0]
				if _, dead := alias[d]; dead {
					continue
				}
				same := mir.NoReg
				trivial := true
				for _, u := range phi.Uses {
					u = find(u)
					if u == d || u == same {
						continue
					}
					if same != mir.NoReg {
						trivial = false
						break
					}
					same = u
				}
				if trivial && same != mir.NoReg {
					alias[d] = same
					changed = true
				}
			}
		}
	}
	if len(alias) == 0 {
		return
	}
	for _, b := range f.Blocks {
		instrs := b.Instrs[:0]
		for _, in := range b.Instrs {
			if in.Op == mir.OpPhi {
				if _, dead := alias[in.Defs[0]]; dead {
					continue
				}
			}
			for i, u := range in.Uses {
				in.Uses[i] = find(u)
			}
			instrs = append(instrs, in)
		}
		b.Instrs = instrs
	}
}

// eliminateDeadCode removes instructions whose results are never used and
// that have no other effect, including dead φ cycles (mark and sweep from
// the instructions with effects; a live flag reader keeps the instruction
// that set its flags), then renumbers the virtual registers
// densely in order of definition.
func eliminateDeadCode(f *mir.Func) {
	// Number the instructions; record each register's defining instruction
	// and each flag reader's flag producer.
	var all []*mir.Instr
	def := make([]int32, len(f.VRegs))
	for i := range def {
		def[i] = -1
	}
	var producer []int32
	for _, b := range f.Blocks {
		last := int32(-1)
		for _, in := range b.Instrs {
			n := int32(len(all))
			all = append(all, in)
			p := int32(-1)
			info := in.Op.Info()
			if info.ReadsFlags {
				p = last
			}
			producer = append(producer, p)
			if info.WritesFlags {
				last = n
			}
			for _, d := range in.Defs {
				if d.IsVirtual() {
					def[d.Index()] = n
				}
			}
		}
	}
	live := make([]bool, len(all))
	var work []int32
	mark := func(n int32) {
		if n >= 0 && !live[n] {
			live[n] = true
			work = append(work, n)
		}
	}
	for n, in := range all {
		info := in.Op.Info()
		if info.SideEffects || info.Terminator || info.Stores || info.Call || in.Op == mir.OpArg {
			mark(int32(n))
		}
	}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		for _, u := range all[n].Uses {
			if u.IsVirtual() {
				mark(def[u.Index()])
			}
		}
		mark(producer[n])
	}
	n := 0
	for _, b := range f.Blocks {
		instrs := b.Instrs[:0]
		for _, in := range b.Instrs {
			if live[n] {
				instrs = append(instrs, in)
			}
			n++
		}
		b.Instrs = instrs
	}
	renumberVRegs(f)
}

// renumberVRegs gives the virtual registers dense numbers in order of
// definition (arguments first), dropping unused ones.
func renumberVRegs(f *mir.Func) {
	newNum := make([]mir.Reg, len(f.VRegs))
	for i := range newNum {
		newNum[i] = mir.NoReg
	}
	var classes []mir.Class
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			for _, d := range in.Defs {
				if d.IsVirtual() && newNum[d.Index()] == mir.NoReg {
					newNum[d.Index()] = mir.VReg(len(classes))
					classes = append(classes, f.VRegs[d.Index()])
				}
			}
		}
	}
	remap := func(r mir.Reg) mir.Reg {
		if r.IsVirtual() && newNum[r.Index()] != mir.NoReg {
			return newNum[r.Index()]
		}
		return r
	}
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			for i, d := range in.Defs {
				in.Defs[i] = remap(d)
			}
			for i, u := range in.Uses {
				in.Uses[i] = remap(u)
			}
		}
	}
	f.VRegs = classes
}
