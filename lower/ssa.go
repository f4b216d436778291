package lower

import (
	"slices"

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
	l     *lowerer
	nvars int
	// defs holds, per block, which of tables holds its variables' current
	// values (1 + the index; 0: none yet). Blocks a check split share one
	// (see inherit).
	defs   []int32
	tables []bindings
	sealed []bool
	// incomplete lists, for each block not sealed that has any, the φs
	// created before it was sealed, in creation order (for deterministic
	// operand filling).
	incomplete map[int32][]pendingPhi
	// phis lists the φ instructions of each block that has any (placed
	// before its other instructions at the end).
	phis map[int32][]*mir.Instr
	// Per virtual register: the replacement of a removed φ (NoReg if
	// none), and the φ that defines it, if any.
	alias []mir.Reg
	phi   []phiInfo
	// root is, per block, the block whose bindings it shares (itself
	// unless a check split it off; see inherit).
	root []int32
	// stack holds the pending lookups of read.
	stack []readFrame
	// stable marks the variables no instruction writes (see
	// lowerer.stableVars): a read of one is its value in the entry block.
	stable []bool
	entry  int
}

// phiInfo describes the φ defining a virtual register.
type phiInfo struct {
	instr   *mir.Instr // nil when the register is not defined by a φ
	block   int
	users   []userRef // the φs that use this one
	removed bool
}

// phiOf returns the φ information of r, or nil when r is not a φ.
func (s *ssaBuilder) phiOf(r mir.Reg) *phiInfo {
	if i := r.Index(); r.IsVirtual() && i < len(s.phi) && s.phi[i].instr != nil {
		return &s.phi[i]
	}
	return nil
}

// userRef is an entry of a φ's users: one φ that uses it (dead == 0), or
// a run of dead entries, φs already replaced by the value reg stands for,
// which the list keeps as a count (see tryRemoveTrivial).
type userRef struct {
	reg  mir.Reg
	dead int32
}

type pendingPhi struct {
	v   int
	phi mir.Reg
}

func (s *ssaBuilder) init(l *lowerer, nvars int) {
	s.l, s.nvars = l, nvars
	s.incomplete = map[int32][]pendingPhi{}
	s.phis = map[int32][]*mir.Instr{}
}

// bindings maps variables to their current values in a block: the first
// two inline (most blocks write no more), the rest in a map.
type bindings struct {
	n    int32
	vars [2]int32
	regs [2]mir.Reg
	more map[int32]mir.Reg
}

// get returns x's value and whether it has one.
func (t *bindings) get(x int32) (mir.Reg, bool) {
	for i := range min(t.n, 2) {
		if t.vars[i] == x {
			return t.regs[i], true
		}
	}
	v, ok := t.more[x]
	return v, ok
}

// set binds x to v.
func (t *bindings) set(x int32, v mir.Reg) {
	for i := range min(t.n, 2) {
		if t.vars[i] == x {
			t.regs[i] = v
			return
		}
	}
	if _, ok := t.more[x]; ok || t.n >= 2 {
		if t.more == nil {
			t.more = map[int32]mir.Reg{}
		}
		if !ok {
			t.n++
		}
		t.more[x] = v
		return
	}
	t.vars[t.n], t.regs[t.n] = x, v
	t.n++
}

// lookup returns variable x's value in block b and whether it has one.
func (s *ssaBuilder) lookup(b, x int) (mir.Reg, bool) {
	if t := s.defs[b]; t > 0 {
		return s.tables[t-1].get(int32(x))
	}
	return 0, false
}

// table returns block b's bindings, making them if it has none.
func (s *ssaBuilder) table(b int) *bindings {
	if s.defs[b] == 0 {
		s.tables = append(s.tables, bindings{})
		s.defs[b] = int32(len(s.tables))
	}
	return &s.tables[s.defs[b]-1]
}

// reserve makes room for n blocks.
func (s *ssaBuilder) reserve(n int) {
	s.defs = slices.Grow(s.defs, n)
	s.sealed = slices.Grow(s.sealed, n)
	s.root = slices.Grow(s.root, n)
}

// addBlock registers a new mir block (IDs must be added in order).
func (s *ssaBuilder) addBlock(id int, sealed bool) {
	for len(s.defs) <= id {
		s.defs = append(s.defs, 0)
		s.sealed = append(s.sealed, false)
		s.root = append(s.root, int32(len(s.root)))
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
	s.table(from)
	s.defs[b] = s.defs[from]
	s.root[b] = s.root[from]
}

// write records v as variable x's current value in block b.
func (s *ssaBuilder) write(x, b int, v mir.Reg) {
	s.table(b).set(int32(x), v)
}

// read returns variable x's value at the current point of block b. A block
// a check split off shares its bindings with the first block of its chain
// (see inherit), so a variable it has no binding for is looked up at the
// start of that block.
//
// Braun et al. describe the lookup recursively: a block with one
// predecessor reads the predecessor, a join reads all of its predecessors.
// Here the pending lookups are frames on an explicit stack, so that the
// depth of a lookup (the number of blocks it crosses) costs no Go stack;
// the order of every step, and so every φ and its number, is that of the
// recursion.
func (s *ssaBuilder) read(x, b int) mir.Reg {
	if s.stable[x] && b != s.entry {
		return s.read(x, s.entry)
	}
	base := len(s.stack)
	v, next := s.readStart(x, b)
	for {
		if next < 0 {
			// v is the value of the innermost pending lookup: hand it to
			// the frame waiting for it.
			if len(s.stack) == base {
				return v
			}
			v, next = s.readResume(&s.stack[len(s.stack)-1], v)
			if next < 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
			continue
		}
		v, next = s.readStart(x, next)
	}
}

// readFrame is a lookup of variable x at the start of block b waiting for
// the value of a predecessor (see read): the end of a chain of single
// predecessors (passed lists the blocks crossed), or one predecessor of a
// join (vals holds the values read so far).
type readFrame struct {
	x, b   int
	join   bool
	passed []int
	vals   []mir.Reg
}

// readStart begins reading variable x in block b. It returns the value
// and -1 when no predecessor needs reading, or pushes a frame and returns
// the block to read next.
func (s *ssaBuilder) readStart(x, b int) (mir.Reg, int) {
	if v, ok := s.lookup(b, x); ok {
		if v == marker {
			// Around a loop back to a join being read: the φ breaks
			// the cycle; readJoin fills in its operands.
			phi := s.newPhi(x, int(s.root[b]))
			s.write(x, b, phi)
			return phi, -1
		}
		return s.find(v), -1
	}
	// Read x at the start of root block b (Braun et al.'s readRecursive).
	b = int(s.root[b])
	blk := s.l.f.Blocks[b]
	var v mir.Reg
	switch {
	case !s.sealed[b]:
		v = s.newPhi(x, b)
		s.incomplete[int32(b)] = append(s.incomplete[int32(b)], pendingPhi{x, v})
	case len(blk.Preds) == 0:
		// Read before any definition: registers start at zero.
		v = s.l.zeroOf(s.l.varClass(x))
	case len(blk.Preds) == 1:
		passed, p, zero := s.readChain(x, b)
		if !zero {
			s.stack = append(s.stack, readFrame{x: x, b: b, passed: passed})
			return mir.NoReg, p
		}
		v = s.l.zeroOf(s.l.varClass(x))
	default:
		// readJoin: the predecessors first.
		s.write(x, b, marker)
		s.stack = append(s.stack, readFrame{x: x, b: b, join: true, vals: make([]mir.Reg, 0, len(blk.Preds))})
		return mir.NoReg, blk.Preds[0]
	}
	s.write(x, b, v)
	return v, -1
}

// readResume gives frame f the value v it waited for. It returns the
// frame's own value and -1 when it is complete, or the block to read
// next.
func (s *ssaBuilder) readResume(f *readFrame, v mir.Reg) (mir.Reg, int) {
	if !f.join {
		for _, q := range f.passed {
			s.write(f.x, q, v)
		}
	} else {
		f.vals = append(f.vals, v)
		if preds := s.l.f.Blocks[f.b].Preds; len(f.vals) < len(preds) {
			return mir.NoReg, preds[len(f.vals)]
		}
		v = s.readJoin(f.x, f.b, f.vals)
	}
	s.write(f.x, f.b, v)
	return v, -1
}

// readChain follows single predecessors from block b (sealed, with one
// predecessor) up to a block that defines variable x or is a join, and
// returns the blocks passed, which get x's value too, and the block to
// read. A cycle of single-predecessor blocks cannot be entered from the
// entry (a reachable cycle has a join where it is entered): it is code
// that constant folding cut off, and reads there see zero (zero is set).
func (s *ssaBuilder) readChain(x, b int) (passed []int, p int, zero bool) {
	p = s.l.f.Blocks[b].Preds[0]
	for {
		if _, ok := s.lookup(p, x); ok {
			return passed, p, false
		}
		r := int(s.root[p])
		rb := s.l.f.Blocks[r]
		if !s.sealed[r] || len(rb.Preds) != 1 {
			return passed, p, false
		}
		if r == b || len(passed) > len(s.l.f.Blocks) {
			return nil, 0, true
		}
		passed = append(passed, r)
		p = rb.Preds[0]
	}
}

// marker is bound to a variable in a sealed join block while its
// predecessors are being read; reaching it again means the read went around
// a loop, and only then is a φ needed to break the cycle.
const marker = mir.NoReg - 1

// readJoin completes the read of variable x at the start of sealed block b
// with several predecessors, whose values vals holds. A φ is created only
// when they disagree or a loop led back to b, so that the common trivial
// φs of acyclic joins are never built (Braun et al., section 3.3).
func (s *ssaBuilder) readJoin(x, b int, vals []mir.Reg) mir.Reg {
	if cur, _ := s.lookup(b, x); cur != marker {
		// A loop came back here and made the φ; give it its operands.
		phi := s.find(cur)
		if info := s.phiOf(phi); info != nil && !info.removed && len(info.instr.Uses) == 0 {
			for _, op := range vals {
				op = s.find(op)
				info.instr.Uses = append(info.instr.Uses, op)
				if opInfo := s.phiOf(op); opInfo != nil {
					opInfo.users = append(opInfo.users, userRef{reg: phi})
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
					opInfo.users = append(opInfo.users, userRef{reg: phi})
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
	s.phis[int32(b)] = append(s.phis[int32(b)], in)
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
			opInfo.users = append(opInfo.users, userRef{reg: phi})
		}
	}
	return s.tryRemoveTrivial(phi)
}

// tryRemoveTrivial replaces a φ whose operands are all one value (or the φ
// itself) by that value, and then tries again the φs that used it, depth
// first in the order they became users (with an explicit stack of their
// lists, so that long chains of φs cost no Go stack).
//
// A user entry is tried as the φ its register now stands for, unless that
// is the value the φ whose users these are was replaced by. Entries already
// replaced by that value when it took over the list (removeIfTrivial) all
// stand for the same register from then on: the list keeps each run of
// them as one entry with a count. Trying a run tries that register until
// it stays or stands for the replacing value, which is what trying the
// entries one by one would do, since trying a φ that stays changes
// nothing; so a chain of φs that collapse one after another costs its
// length, not its length squared.
func (s *ssaBuilder) tryRemoveTrivial(phi mir.Reg) mir.Reg {
	same, users, removed := s.removeIfTrivial(phi)
	if !removed {
		return phi
	}
	type frame struct {
		users []userRef // the entries left; a run being tried is users[0]
		same  mir.Reg
		left  int32 // tries left of that run (0: not started)
	}
	stack := []frame{{users: users, same: same}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(top.users) == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		e := top.users[0]
		if e.dead > 0 && top.left == 0 {
			top.left = e.dead
		}
		if e.dead == 0 || top.left == 1 {
			top.users, top.left = top.users[1:], 0
		} else {
			top.left--
		}
		u := s.find(e.reg)
		removed := false
		var us mir.Reg
		var nested []userRef
		if ui := s.phiOf(u); u != top.same && ui != nil && !ui.removed {
			us, nested, removed = s.removeIfTrivial(u)
		}
		if !removed {
			if top.left > 0 {
				// The rest of the run would find u again and change
				// nothing either.
				top.users, top.left = top.users[1:], 0
			}
			continue
		}
		stack = append(stack, frame{users: nested, same: us})
	}
	return same
}

// removeIfTrivial removes phi if its operands are all one value (or phi
// itself), aliasing it to that value, which it returns with the entries
// of the φs that used phi (now users of the value, compacted by
// compactUsers).
func (s *ssaBuilder) removeIfTrivial(phi mir.Reg) (same mir.Reg, users []userRef, removed bool) {
	info := s.phiOf(phi)
	in := info.instr
	same = mir.NoReg
	for _, op := range in.Uses {
		op = s.find(op)
		if op == same || op == phi {
			continue
		}
		if same != mir.NoReg {
			return phi, nil, false
		}
		same = op
	}
	if same == mir.NoReg {
		// Unreachable, or only defined by itself: the initial zero.
		same = s.l.zeroOf(s.l.f.VRegs[phi.Index()])
	}
	info.removed = true
	s.setAlias(phi, same)
	users = s.compactUsers(info.users, same)
	info.users = nil
	if sameInfo := s.phiOf(same); sameInfo != nil {
		if n := len(sameInfo.users); n > 0 && len(users) > 0 && sameInfo.users[n-1].dead > 0 && users[0].dead > 0 {
			// Two runs of entries replaced by same: one run.
			sameInfo.users[n-1].dead += users[0].dead
			sameInfo.users = append(sameInfo.users, users[1:]...)
		} else {
			sameInfo.users = append(sameInfo.users, users...)
		}
	}
	return same, users, true
}

// compactUsers rewrites, in place, the user entries of a φ just replaced
// by same: every entry that now stands for same (a φ replaced by it, or
// an earlier run) joins a run with its dead neighbours, counted.
func (s *ssaBuilder) compactUsers(users []userRef, same mir.Reg) []userRef {
	out := users[:0]
	for _, e := range users {
		if e.dead > 0 || s.find(e.reg) == same {
			n := max(e.dead, 1)
			if k := len(out); k > 0 && out[k-1].dead > 0 {
				out[k-1].dead += n
				continue
			}
			e = userRef{reg: same, dead: n}
		}
		out = append(out, e)
	}
	return out
}

// seal notes that all of block b's predecessors are known and completes its
// incomplete φs.
func (s *ssaBuilder) seal(b int) {
	if s.sealed[b] {
		return
	}
	pending := s.incomplete[int32(b)]
	delete(s.incomplete, int32(b))
	for _, p := range pending {
		s.addOperands(p.v, p.phi)
	}
	s.sealed[b] = true
}

// finish places the surviving φs at the start of their blocks and replaces
// every operand by its alias.
func (s *ssaBuilder) finish() {
	for b := range s.l.f.Blocks {
		list := s.phis[int32(b)]
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
