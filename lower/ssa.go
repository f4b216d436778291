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
	// Per virtual register: the replacement of a removed φ (NoReg if
	// none), and the φ that defines it, if any.
	alias []mir.Reg
	phi   []phiInfo
	// root is, per block, the block whose bindings it shares (itself
	// unless a check split it off; see inherit).
	root []int
}

// phiInfo describes the φ defining a virtual register.
type phiInfo struct {
	instr   *mir.Instr // nil when the register is not defined by a φ
	block   int
	users   []mir.Reg // the φs that use this one
	removed bool
}

// phiOf returns the φ information of r, or nil when r is not a φ.
func (s *ssaBuilder) phiOf(r mir.Reg) *phiInfo {
	if i := r.Index(); r.IsVirtual() && i < len(s.phi) && s.phi[i].instr != nil {
		return &s.phi[i]
	}
	return nil
}

type pendingPhi struct {
	v   int
	phi mir.Reg
}

func (s *ssaBuilder) init(l *lowerer, nvars int) {
	s.l, s.nvars = l, nvars
}

// addBlock registers a new mir block (IDs must be added in order).
func (s *ssaBuilder) addBlock(id int, sealed bool) {
	for len(s.defs) <= id {
		s.defs = append(s.defs, nil)
		s.sealed = append(s.sealed, false)
		s.incomplete = append(s.incomplete, nil)
		s.phis = append(s.phis, nil)
		s.root = append(s.root, len(s.root))
	}
	s.sealed[id] = sealed
}

// find resolves aliases of removed φs.
func (s *ssaBuilder) find(r mir.Reg) mir.Reg {
	if !r.IsVirtual() || r == marker {
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

// inherit makes block b start with the variable bindings of block from, by
// sharing from's table. It is used for the blocks a check splits a block
// into: from's only other successors are trap blocks, which read nothing,
// so from's bindings are never needed apart from b's again. b may have
// several predecessors (the paths around a division's overflow check), as
// long as none of them writes a variable; reads of variables not bound in
// the shared table go to the start of the chain's first block.
func (s *ssaBuilder) inherit(b, from int) {
	if s.defs[from] == nil {
		s.defs[from] = map[int32]mir.Reg{}
	}
	s.defs[b] = s.defs[from]
	s.root[b] = s.root[from]
}

// write records v as variable x's current value in block b.
func (s *ssaBuilder) write(x, b int, v mir.Reg) {
	if s.defs[b] == nil {
		s.defs[b] = map[int32]mir.Reg{}
	}
	s.defs[b][int32(x)] = v
}

// read returns variable x's value at the current point of block b. A block
// a check split off shares its bindings with the first block of its chain
// (see inherit), so a variable it has no binding for is looked up at the
// start of that block.
func (s *ssaBuilder) read(x, b int) mir.Reg {
	if v, ok := s.defs[b][int32(x)]; ok {
		if v == marker {
			// Around a loop back to a join being read: the φ breaks
			// the cycle; readJoin fills in its operands.
			phi := s.newPhi(x, s.root[b])
			s.write(x, b, phi)
			return phi
		}
		return s.find(v)
	}
	return s.readRecursive(x, s.root[b])
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
		v = s.readChain(x, b)
	default:
		v = s.readJoin(x, b)
	}
	s.write(x, b, v)
	return v
}

// readChain reads variable x at the start of block b, which is sealed and
// has one predecessor, by following single predecessors up to a block
// that defines x or is a join. The blocks passed get x's value too. A cycle
// of single-predecessor blocks cannot be entered from the entry (a
// reachable cycle has a join where it is entered): it is code that
// constant folding cut off, and reads there see zero.
func (s *ssaBuilder) readChain(x, b int) mir.Reg {
	var passed []int
	p := s.l.f.Blocks[b].Preds[0]
	for {
		if _, ok := s.defs[p][int32(x)]; ok {
			break
		}
		r := s.root[p]
		rb := s.l.f.Blocks[r]
		if !s.sealed[r] || len(rb.Preds) != 1 {
			break
		}
		if r == b || len(passed) > len(s.l.f.Blocks) {
			return s.l.zeroOf(s.l.varClass(x))
		}
		passed = append(passed, r)
		p = rb.Preds[0]
	}
	v := s.read(x, p)
	for _, q := range passed {
		s.write(x, q, v)
	}
	return v
}

// marker is bound to a variable in a sealed join block while its
// predecessors are being read; reaching it again means the read went around
// a loop, and only then is a φ needed to break the cycle.
const marker = mir.NoReg - 1

// readJoin reads variable x at the start of sealed block b with several
// predecessors. It reads the predecessors first and creates a φ only when
// they disagree or a loop leads back to b, so that the common trivial φs of
// acyclic joins are never built (Braun et al., section 3.3).
func (s *ssaBuilder) readJoin(x, b int) mir.Reg {
	s.write(x, b, marker)
	preds := s.l.f.Blocks[b].Preds
	vals := make([]mir.Reg, len(preds))
	for i, p := range preds {
		vals[i] = s.read(x, p)
	}
	if cur := s.defs[b][int32(x)]; cur != marker {
		// A loop came back here and made the φ; give it its operands.
		phi := s.find(cur)
		if info := s.phiOf(phi); info != nil && !info.removed && len(info.instr.Uses) == 0 {
			for _, op := range vals {
				op = s.find(op)
				info.instr.Uses = append(info.instr.Uses, op)
				if opInfo := s.phiOf(op); opInfo != nil {
					opInfo.users = append(opInfo.users, phi)
				}
			}
			return s.tryRemoveTrivial(phi)
		}
		return phi
	}
	same := s.find(vals[0])
	for _, v := range vals[1:] {
		if s.find(v) != same {
			phi := s.newPhi(x, b)
			info := s.phiOf(phi)
			for _, op := range vals {
				op = s.find(op)
				info.instr.Uses = append(info.instr.Uses, op)
				if opInfo := s.phiOf(op); opInfo != nil {
					opInfo.users = append(opInfo.users, phi)
				}
			}
			return phi
		}
	}
	return same
}

func (s *ssaBuilder) newPhi(x, b int) mir.Reg {
	v := s.l.f.NewVReg(s.l.varClass(x))
	in := s.l.f.NewInstr(mir.Instr{Op: mir.OpPhi, Defs: []mir.Reg{v}, Pos: -1})
	in.Uses = s.l.f.RegSlice(len(s.l.f.Blocks[b].Preds))
	s.phis[b] = append(s.phis[b], in)
	for len(s.phi) <= v.Index() {
		s.phi = append(s.phi, phiInfo{})
	}
	s.phi[v.Index()] = phiInfo{instr: in, block: b}
	return v
}

// addOperands fills a φ from the block's predecessors and removes it if it
// is trivial.
func (s *ssaBuilder) addOperands(x int, phi mir.Reg) mir.Reg {
	info := s.phiOf(phi)
	in := info.instr
	for _, p := range s.l.f.Blocks[info.block].Preds {
		op := s.read(x, p)
		in.Uses = append(in.Uses, op)
		if opInfo := s.phiOf(op); opInfo != nil {
			opInfo.users = append(opInfo.users, phi)
		}
	}
	return s.tryRemoveTrivial(phi)
}

// tryRemoveTrivial replaces a φ whose operands are all one value (or the φ
// itself) by that value.
func (s *ssaBuilder) tryRemoveTrivial(phi mir.Reg) mir.Reg {
	info := s.phiOf(phi)
	in := info.instr
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
	info.removed = true
	s.setAlias(phi, same)
	users := info.users
	info.users = nil
	if sameInfo := s.phiOf(same); sameInfo != nil {
		sameInfo.users = append(sameInfo.users, users...)
	}
	for _, u := range users {
		if u = s.find(u); u != same {
			if ui := s.phiOf(u); ui != nil && !ui.removed {
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
			if !s.phiOf(in.Defs[0]).removed {
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
