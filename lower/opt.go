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
// It visits the φs in block order, pass after pass, until a pass removes
// none. From the second pass on, a φ is visited again only when one of its
// operands was replaced (the only way it can become trivial), so that a
// chain of φs that resolves one pass at a time costs its length, not
// passes × φs.
func simplifyPhis(f *mir.Func) {
	var phis []*mir.Instr
	for _, b := range f.Blocks {
		phis = append(phis, b.Phis()...)
	}
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
	// visit removes φ i if it is trivial and returns what it now stands
	// for, or NoReg.
	visit := func(i int) mir.Reg {
		phi := phis[i]
		d := phi.Defs[0]
		if _, dead := alias[d]; dead {
			return mir.NoReg
		}
		same := mir.NoReg
		for _, u := range phi.Uses {
			u = find(u)
			if u == d || u == same {
				continue
			}
			if same != mir.NoReg {
				return mir.NoReg
			}
			same = u
		}
		if same != mir.NoReg {
			alias[d] = same
		}
		return same
	}
	for i := range phis {
		visit(i)
	}
	if len(alias) == 0 {
		return
	}
	simplifyPhisAgain(phis, len(f.VRegs), find, visit)
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

// simplifyPhisAgain runs simplifyPhis's passes after the first, which
// removed some φs: the second pass visits every φ, later ones only the φs
// with an operand that stands for a φ removed since their last visit,
// found through users, the φs indexed by what their operands stand for.
func simplifyPhisAgain(phis []*mir.Instr, nvregs int, find func(mir.Reg) mir.Reg, visit func(int) mir.Reg) {
	users := make([][]int32, nvregs) // by virtual register number
	for i, phi := range phis {
		for _, u := range phi.Uses {
			if r := find(u); r.IsVirtual() {
				users[r.Index()] = append(users[r.Index()], int32(i))
			}
		}
	}
	order := make([]int, len(phis))
	for i := range order {
		order[i] = i
	}
	work := mir.NewPassWorklist(order, len(order))
	for i, ok := work.Pop(); ok; i, ok = work.Pop() {
		same := visit(i)
		if same == mir.NoReg {
			continue
		}
		d := phis[i].Defs[0].Index()
		for _, j := range users[d] {
			work.Mark(int(j))
		}
		if same.IsVirtual() {
			users[same.Index()] = append(users[same.Index()], users[d]...)
		}
		users[d] = nil
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
	total := f.NumInstrs()
	all := make([]*mir.Instr, 0, total)
	def := make([]int32, len(f.VRegs))
	for i := range def {
		def[i] = -1
	}
	producer := make([]int32, 0, total)
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
