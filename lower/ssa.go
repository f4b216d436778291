package lower

import (
	"github.com/kiln-jit/kiln/mir"
)

// ssaBuilder implements Braun et al.'s on-the-fly SSA construction over the
// lowerer's variables (bytecode registers plus the memory base and length).
//
// Every read of a variable in a block returns the value of its latest
// definition there, or looks it up in the predecessors: directly when the
// block has one, through a new φ otherwise. In blocks whose predecessors are
// not all known yet (unsealed), the φ starts empty ("incomplete") and gets
// its operands when the block is sealed. A φ whose operands are all the
// same value (or itself) is trivial: it is replaced by that value, and the
// φs that used it are checked again. Replacements are recorded as aliases
// and applied to every operand at the end.
type ssaBuilder struct {
	l      *lowerer
	nvars  int
	defs   []map[int32]mir.Reg // per block: variable -> current value
	sealed []bool
	// incomplete lists, per block, the φs created before it was sealed, in
	// creation order (for deterministic operand filling).
	incomplete [][]pendingPhi
	// phis lists each block's φ instructions (placed before its other
	// instructions at the end).
	phis [][]*mir.Instr
	// Per virtual register: the replacement of a removed φ (NoReg if none),
	// the φ instruction defining it, and the φs that use it.
	alias    []mir.Reg
	phiInstr map[mir.Reg]*mir.Instr
	phiBlock map[mir.Reg]int
	phiUsers map[mir.Reg][]mir.Reg
	removed  map[*mir.Instr]bool
}

type pendingPhi struct {
	v   int
	phi mir.Reg
}

func (s *ssaBuilder) init(l *lowerer, nvars int) {
	s.l, s.nvars = l, nvars
	s.phiInstr = map[mir.Reg]*mir.Instr{}
	s.phiBlock = map[mir.Reg]int{}
	s.phiUsers = map[mir.Reg][]mir.Reg{}
	s.removed = map[*mir.Instr]bool{}
}

// addBlock registers a new mir block (IDs must be added in order).
func (s *ssaBuilder) addBlock(id int, sealed bool) {
	for len(s.defs) <= id {
		s.defs = append(s.defs, nil)
		s.sealed = append(s.sealed, false)
		s.incomplete = append(s.incomplete, nil)
		s.phis = append(s.phis, nil)
	}
	s.sealed[id] = sealed
}

// find resolves aliases of removed φs.
func (s *ssaBuilder) find(r mir.Reg) mir.Reg {
	if !r.IsVirtual() {
		return r
	}
	root := r
	for root.Index() < len(s.alias) && s.alias[root.Index()] != mir.NoReg {
		root = s.alias[root.Index()]
	}
	for r != root {
		next := s.alias[r.Index()]
		s.alias[r.Index()] = root
		r = next
	}
	return root
}

func (s *ssaBuilder) setAlias(r, to mir.Reg) {
	for len(s.alias) <= r.Index() {
		s.alias = append(s.alias, mir.NoReg)
	}
	s.alias[r.Index()] = to
}

// write records v as variable x's current value in block b.
func (s *ssaBuilder) write(x, b int, v mir.Reg) {
	if s.defs[b] == nil {
		s.defs[b] = map[int32]mir.Reg{}
	}
	s.defs[b][int32(x)] = v
}

// read returns variable x's value at the current point of block b.
func (s *ssaBuilder) read(x, b int) mir.Reg {
	if v, ok := s.defs[b][int32(x)]; ok {
		return s.find(v)
	}
	return s.readRecursive(x, b)
}

func (s *ssaBuilder) readRecursive(x, b int) mir.Reg {
	blk := s.l.f.Blocks[b]
	var v mir.Reg
	switch {
	case !s.sealed[b]:
		v = s.newPhi(x, b)
		s.incomplete[b] = append(s.incomplete[b], pendingPhi{x, v})
	case len(blk.Preds) == 0:
		// Read before any definition: registers start at zero.
		v = s.l.zeroOf(s.l.varClass(x))
	case len(blk.Preds) == 1:
		v = s.read(x, blk.Preds[0])
	default:
		phi := s.newPhi(x, b)
		s.write(x, b, phi) // breaks cycles through loops
		v = s.addOperands(x, phi)
	}
	s.write(x, b, v)
	return v
}

func (s *ssaBuilder) newPhi(x, b int) mir.Reg {
	v := s.l.f.NewVReg(s.l.varClass(x))
	in := &mir.Instr{Op: mir.OpPhi, Defs: []mir.Reg{v}, Pos: -1}
	s.phis[b] = append(s.phis[b], in)
	s.phiInstr[v] = in
	s.phiBlock[v] = b
	return v
}

// addOperands fills a φ from the block's predecessors and removes it if it
// is trivial.
func (s *ssaBuilder) addOperands(x int, phi mir.Reg) mir.Reg {
	in := s.phiInstr[phi]
	for _, p := range s.l.f.Blocks[s.phiBlock[phi]].Preds {
		op := s.read(x, p)
		in.Uses = append(in.Uses, op)
		if _, isPhi := s.phiInstr[op]; isPhi {
			s.phiUsers[op] = append(s.phiUsers[op], phi)
		}
	}
	return s.tryRemoveTrivial(phi)
}

// tryRemoveTrivial replaces a φ whose operands are all one value (or the φ
// itself) by that value.
func (s *ssaBuilder) tryRemoveTrivial(phi mir.Reg) mir.Reg {
	in := s.phiInstr[phi]
	same := mir.NoReg
	for _, op := range in.Uses {
		op = s.find(op)
		if op == same || op == phi {
			continue
		}
		if same != mir.NoReg {
			return phi
		}
		same = op
	}
	if same == mir.NoReg {
		// Unreachable, or only defined by itself: the initial zero.
		same = s.l.zeroOf(s.l.f.VRegs[phi.Index()])
	}
	s.removed[in] = true
	s.setAlias(phi, same)
	users := s.phiUsers[phi]
	delete(s.phiUsers, phi)
	if _, isPhi := s.phiInstr[same]; isPhi {
		s.phiUsers[same] = append(s.phiUsers[same], users...)
	}
	for _, u := range users {
		if u = s.find(u); u != same && !s.removed[s.phiInstr[u]] {
			if _, isPhi := s.phiInstr[u]; isPhi {
				s.tryRemoveTrivial(u)
			}
		}
	}
	return same
}

// seal notes that all of block b's predecessors are known and completes its
// incomplete φs.
func (s *ssaBuilder) seal(b int) {
	if s.sealed[b] {
		return
	}
	pending := s.incomplete[b]
	s.incomplete[b] = nil
	for _, p := range pending {
		s.addOperands(p.v, p.phi)
	}
	s.sealed[b] = true
}

// finish places the surviving φs at the start of their blocks and replaces
// every operand by its alias.
func (s *ssaBuilder) finish() {
	for b, list := range s.phis {
		var keep []*mir.Instr
		for _, in := range list {
			if !s.removed[in] {
				keep = append(keep, in)
			}
		}
		if len(keep) > 0 {
			blk := s.l.f.Blocks[b]
			blk.Instrs = append(keep, blk.Instrs...)
		}
	}
	for _, blk := range s.l.f.Blocks {
		for _, in := range blk.Instrs {
			for i, r := range in.Uses {
				in.Uses[i] = s.find(r)
			}
		}
	}
}
