package alloc

import (
	"fmt"
	"slices"

	"github.com/kiln-jit/kiln/mir"
)

// CheckDestructed checks Destruct's output d against its SSA input f with
// two deliberately simple oracles that share no analysis with Destruct, for
// tests and fuzzing:
//
//   - from instruction-level liveness (block liveness found by exploring
//     paths backwards from every use, then a backward walk through each
//     block): no two values Destruct gave the same unpinned register
//     interfere (one is live after the other's definition, or read by a
//     tied or early-clobber definition of the other);
//   - by symbolic simulation of the output: every location (an unpinned
//     virtual register, or the physical register a pinned one lives in,
//     forgotten at calls and other clobbers) holds, wherever the output
//     reads it, exactly the input value the corresponding input
//     instruction reads, and every φ's location holds the right operand at
//     the end of each predecessor.
//
// Both cost time and memory near-linear in the size of the functions and
// of their liveness: the simulation keeps, at block boundaries, only the
// locations that are read later.
func CheckDestructed(f *mir.Func, d *Destructed) error {
	if err := checkNoMergedInterference(f, d); err != nil {
		return err
	}
	return checkValueFlow(f, d)
}

// liveEvents reports, for a backward liveness problem, the reads and writes
// of the variables in every block: exposed(v, b) for a read in b before any
// write of v there, atEnd(v, b) for a read after all of b's instructions,
// written(v, b) for a write anywhere in b.
type liveEvents func(exposed, atEnd, written func(v, b int))

// backwardLiveness returns, per block, the variables (0..n-1) live at its
// end in increasing order, for blocks with predecessor lists preds and the
// reads and writes events reports. It explores paths backwards from each
// read, one variable at a time, entering a block at most once per
// variable, so it costs time linear in its result.
func backwardLiveness(preds [][]int, n int, events liveEvents) [][]int32 {
	nb := len(preds)
	// Per variable, in compressed rows: the blocks that write it, and its
	// reads (b<<1 exposed in b, b<<1|1 at the end of b).
	wStart, rStart := make([]int32, n+1), make([]int32, n+1)
	events(func(v, _ int) { rStart[v+1]++ }, func(v, _ int) { rStart[v+1]++ }, func(v, _ int) { wStart[v+1]++ })
	for v := range n {
		wStart[v+1] += wStart[v]
		rStart[v+1] += rStart[v]
	}
	writes, reads := make([]int32, wStart[n]), make([]int32, rStart[n])
	wFill, rFill := slices.Clone(wStart[:n]), slices.Clone(rStart[:n])
	events(func(v, b int) {
		reads[rFill[v]] = int32(b) << 1
		rFill[v]++
	}, func(v, b int) {
		reads[rFill[v]] = int32(b)<<1 | 1
		rFill[v]++
	}, func(v, b int) {
		writes[wFill[v]] = int32(b)
		wFill[v]++
	})
	var pairs []int32 // block, variable, ...
	inMark, outMark, wMark := make([]int32, nb), make([]int32, nb), make([]int32, nb)
	var work []int32
	for v := range n {
		mark := int32(v + 1)
		for _, b := range writes[wStart[v]:wStart[v+1]] {
			wMark[b] = mark
		}
		liveOut := func(p int32) {
			if outMark[p] != mark {
				outMark[p] = mark
				pairs = append(pairs, p, int32(v))
				if wMark[p] != mark {
					work = append(work, p)
				}
			}
		}
		for _, r := range reads[rStart[v]:rStart[v+1]] {
			if r&1 != 0 {
				liveOut(r >> 1)
			} else {
				work = append(work, r>>1)
			}
		}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if inMark[b] == mark {
				continue
			}
			inMark[b] = mark
			for _, p := range preds[b] {
				liveOut(int32(p))
			}
		}
	}
	// Bucket the pairs by block; variables stay in increasing order.
	start := make([]int32, nb+1)
	for i := 0; i < len(pairs); i += 2 {
		start[pairs[i]+1]++
	}
	for b := range nb {
		start[b+1] += start[b]
	}
	vars := make([]int32, len(pairs)/2)
	fill := slices.Clone(start[:nb])
	for i := 0; i < len(pairs); i += 2 {
		vars[fill[pairs[i]]] = pairs[i+1]
		fill[pairs[i]]++
	}
	out := make([][]int32, nb)
	for b := range out {
		out[b] = vars[start[b]:start[b+1]:start[b+1]]
	}
	return out
}

// predLists returns the predecessor lists of f's blocks.
func predLists(f *mir.Func) [][]int {
	preds := make([][]int, len(f.Blocks))
	for i, b := range f.Blocks {
		preds[i] = b.Preds
	}
	return preds
}

// valueLiveOut returns the values of SSA function f live at the end of
// each block, with the φ convention: a φ operand is read at the end of
// its predecessor, a φ result written at the top of its block.
func valueLiveOut(f *mir.Func) [][]int32 {
	n := len(f.VRegs)
	seen := make([]int32, n) // block + 1 where v was last written or read exposed
	return backwardLiveness(predLists(f), n, func(exposed, atEnd, written func(v, b int)) {
		clear(seen)
		for bi, b := range f.Blocks {
			here := int32(bi + 1)
			for _, in := range b.Instrs {
				if in.Op == mir.OpPhi {
					for k, u := range in.Uses {
						if u.IsVirtual() && k < len(b.Preds) {
							atEnd(u.Index(), b.Preds[k])
						}
					}
				} else {
					for _, u := range in.Uses {
						if u.IsVirtual() && seen[u.Index()] != here {
							seen[u.Index()] = here
							exposed(u.Index(), bi)
						}
					}
				}
				for _, r := range in.Defs {
					if r.IsVirtual() && seen[r.Index()] != here {
						seen[r.Index()] = here
						written(r.Index(), bi)
					}
				}
			}
		}
	})
}

// nameSet is a set of values that also finds, for a name, a member with
// that name other than a given value: per name, its members in a doubly
// linked list.
type nameSet struct {
	name       []int32 // dense name of each value (-1: none)
	in         []bool
	next, prev []int32
	head       []int32 // per dense name
	members    []int32
}

func newNameSet(names []int32, nnames int) *nameSet {
	n := len(names)
	s := &nameSet{name: names, in: make([]bool, n), next: make([]int32, n), prev: make([]int32, n), head: make([]int32, nnames)}
	for i := range s.head {
		s.head[i] = -1
	}
	return s
}

func (s *nameSet) add(v int32) {
	if s.in[v] {
		return
	}
	s.in[v] = true
	s.members = append(s.members, v)
	if n := s.name[v]; n >= 0 {
		s.prev[v], s.next[v] = -1, s.head[n]
		if h := s.head[n]; h >= 0 {
			s.prev[h] = v
		}
		s.head[n] = v
	}
}

func (s *nameSet) remove(v int32) {
	if !s.in[v] {
		return
	}
	s.in[v] = false
	if n := s.name[v]; n >= 0 {
		if p := s.prev[v]; p >= 0 {
			s.next[p] = s.next[v]
		} else {
			s.head[n] = s.next[v]
		}
		if x := s.next[v]; x >= 0 {
			s.prev[x] = s.prev[v]
		}
	}
}

// clear empties the set.
func (s *nameSet) clear() {
	for _, v := range s.members {
		s.remove(v)
	}
	s.members = s.members[:0]
}

// other returns a member named like v other than v, or -1.
func (s *nameSet) other(v int32) int32 {
	n := s.name[v]
	if n < 0 {
		return -1
	}
	h := s.head[n]
	if h == v {
		h = s.next[h]
	}
	return h
}

// checkNoMergedInterference checks that no two values of f that Destruct
// gave the same unpinned register interfere: at every definition, no other
// value with the same name is live after it, nor read by the defining
// instruction when the def is written before its operands are read (tied
// or early-clobber defs); φs of one block have different names. Each
// block is walked backwards from its live-out set to find the first value
// live after a definition of its name; the checks then run forwards, so
// that the first problem in the block is the one reported.
func checkNoMergedInterference(f *mir.Func, d *Destructed) error {
	name := func(v int) mir.Reg { return d.Names[v] }
	pinned := func(r mir.Reg) bool { return d.Func.Pin(r) != mir.NoReg }
	// Dense numbers of the unpinned names.
	dense := make([]int32, len(f.VRegs))
	ids := map[mir.Reg]int32{}
	for v := range dense {
		dense[v] = -1
		if v < len(d.Names) && d.Names[v] != mir.NoReg && !pinned(d.Names[v]) {
			id, ok := ids[d.Names[v]]
			if !ok {
				id = int32(len(ids))
				ids[d.Names[v]] = id
			}
			dense[v] = id
		}
	}
	liveOut := valueLiveOut(f)
	live := newNameSet(dense, len(ids))
	// phiSeen[id] == block + 1: a φ of the block has unpinned name id, the
	// first such φ being phiFirst[id].
	phiSeen, phiFirst := make([]int32, len(ids)), make([]int32, len(ids))
	for bi, b := range f.Blocks {
		phis := b.Phis()
		for i, p := range phis {
			id := dense[p.Defs[0].Index()]
			if id < 0 {
				continue // pinned (or no name): φs may share it
			}
			if phiSeen[id] == int32(bi+1) {
				return fmt.Errorf("%s b%d: φs %s and %s share %s", f.Name, bi, p.Defs[0], phis[phiFirst[id]].Defs[0], name(p.Defs[0].Index()))
			}
			phiSeen[id], phiFirst[id] = int32(bi+1), int32(i)
		}
		// The first definition (in block order) with a live namesake.
		atK, atD, witness := -1, -1, int32(-1)
		check := func(k, di int, dv int) {
			if w := live.other(int32(dv)); w >= 0 {
				atK, atD, witness = k, di, w
			}
		}
		live.clear()
		for _, v := range liveOut[bi] {
			live.add(v)
		}
		for k := len(b.Instrs) - 1; k >= len(phis); k-- {
			in := b.Instrs[k]
			for di := len(in.Defs) - 1; di >= 0; di-- {
				if r := in.Defs[di]; r.IsVirtual() {
					check(k, di, r.Index())
				}
			}
			for _, r := range in.Defs {
				if r.IsVirtual() {
					live.remove(int32(r.Index()))
				}
			}
			for _, r := range in.Uses {
				if r.IsVirtual() {
					live.add(int32(r.Index()))
				}
			}
		}
		// All φs are defined together, after the last of them.
		for k := len(phis) - 1; k >= 0; k-- {
			check(k, 0, phis[k].Defs[0].Index())
		}
		if err := checkDefsInOrder(f, d, b, atK, atD, witness); err != nil {
			return err
		}
	}
	return nil
}

// checkDefsInOrder runs the checks of checkNoMergedInterference on the
// definitions of block b in order, given that the first of them with a
// live value of the same name is def atD of instruction atK (-1: none),
// where witness is live.
func checkDefsInOrder(f *mir.Func, d *Destructed, b *mir.Block, atK, atD int, witness int32) error {
	name := func(v int) mir.Reg { return d.Names[v] }
	for k, in := range b.Instrs {
		for di, dr := range in.Defs {
			if !dr.IsVirtual() {
				continue
			}
			dv := dr.Index()
			n := name(dv)
			if d.Func.Pin(n) != mir.NoReg {
				continue
			}
			if k == atK && di == atD {
				return fmt.Errorf("%s b%d[%d]: %s is defined into %s while %s, merged into it too, is live",
					f.Name, b.ID, k, dr, n, mir.VReg(int(witness)))
			}
			for _, o := range in.Defs[:di] {
				if o.IsVirtual() && name(o.Index()) == n {
					return fmt.Errorf("%s b%d[%d]: two defs share %s", f.Name, b.ID, k, n)
				}
			}
			spec := f.DefSpec(in, di)
			if in.Op == mir.OpPhi || (!spec.EarlyClobber && spec.Tied < 0) {
				continue
			}
			for ui, u := range in.Uses {
				if !u.IsVirtual() || u.Index() == dv || name(u.Index()) != n {
					continue
				}
				if spec.EarlyClobber || (ui != int(spec.Tied) && u != in.Uses[spec.Tied]) {
					return fmt.Errorf("%s b%d[%d]: %s is written before operand %s, merged with it, is read",
						f.Name, b.ID, k, dr, u)
				}
			}
		}
	}
	return nil
}

// flowChecker holds checkValueFlow's view of Destruct's output g: dense
// numbers for its locations, and for each block the input instructions
// its instructions correspond to.
type flowChecker struct {
	f, g  *mir.Func
	d     *Destructed
	extra map[mir.Reg]int32 // locations that are neither physical nor virtual registers
	nloc  int
	// State inside the block being simulated: the input value each
	// location holds (-1: unknown), with the locations set so far.
	val     []int32
	set     []bool
	touched []int32
}

// loc returns the dense location of register r of g: the physical
// register a pinned virtual register lives in, or r itself.
func (c *flowChecker) loc(r mir.Reg) int32 {
	if p := c.g.Pin(r); p != mir.NoReg {
		r = p
	}
	switch {
	case r.IsPhys():
		return int32(r)
	case r.IsVirtual() && r.Index() < len(c.g.VRegs):
		return mir.NumPhysRegs + int32(r.Index())
	}
	id, ok := c.extra[r]
	if !ok {
		id = int32(c.nloc)
		c.extra[r] = id
		c.nloc++
		c.val = append(c.val, -1)
		c.set = append(c.set, false)
	}
	return id
}

// locName returns the register location l stands for, for messages.
func (c *flowChecker) locName(l int32) mir.Reg {
	switch {
	case l < mir.NumPhysRegs:
		return mir.Reg(l)
	case int(l) < mir.NumPhysRegs+len(c.g.VRegs):
		return mir.VReg(int(l) - mir.NumPhysRegs)
	}
	for r, id := range c.extra {
		if id == l {
			return r
		}
	}
	return mir.NoReg
}

func (c *flowChecker) put(l, v int32) {
	if !c.set[l] {
		c.set[l] = true
		c.touched = append(c.touched, l)
	}
	c.val[l] = v
}

func (c *flowChecker) get(l int32) int32 {
	if !c.set[l] {
		return -1
	}
	return c.val[l]
}

func (c *flowChecker) reset() {
	for _, l := range c.touched {
		c.set[l], c.val[l] = false, -1
	}
	c.touched = c.touched[:0]
}

// origins returns the non-φ instructions of input block bi (none for a
// block Destruct added).
func (c *flowChecker) origins(bi int) []*mir.Instr {
	var orig []*mir.Instr
	if bi < len(c.f.Blocks) {
		for _, in := range c.f.Blocks[bi].Instrs {
			if in.Op != mir.OpPhi {
				orig = append(orig, in)
			}
		}
	}
	return orig
}

// locEvent is what an instruction of g does to one location, in order.
type locEvent struct {
	loc  int32
	read bool
}

// events lists, in order, the locations block bi of g writes and reads
// as run simulates it (the locations of its input's φs first), for the
// location liveness. Instructions without an input counterpart end the
// list: run reports them.
func (c *flowChecker) events(bi int, out []locEvent) []locEvent {
	if bi < len(c.f.Blocks) {
		for _, phi := range c.f.Blocks[bi].Phis() {
			out = append(out, locEvent{c.loc(c.d.Names[phi.Defs[0].Index()]), false})
		}
	}
	b := c.g.Blocks[bi]
	orig := c.origins(bi)
	next := 0
	for k, in := range b.Instrs {
		if in.Op == mir.OpCopy || in.Op == mir.OpParCopy {
			for _, u := range in.Uses {
				out = append(out, locEvent{c.loc(u), true})
			}
			for _, dr := range in.Defs {
				out = append(out, locEvent{c.loc(dr), false})
			}
			continue
		}
		if bi >= len(c.f.Blocks) && in.Op == mir.OpJMP && k == len(b.Instrs)-1 {
			continue
		}
		if next >= len(orig) {
			break
		}
		src := orig[next]
		next++
		if len(src.Uses) != len(in.Uses) || len(src.Defs) != len(in.Defs) {
			break
		}
		for i, u := range src.Uses {
			if u.IsVirtual() {
				out = append(out, locEvent{c.loc(in.Uses[i]), true})
			}
		}
		for _, r := range in.Clobbers().Regs() {
			out = append(out, locEvent{int32(r), false})
		}
		for i, dr := range src.Defs {
			if dr.IsVirtual() {
				out = append(out, locEvent{c.loc(in.Defs[i]), false})
			}
		}
	}
	return out
}

// liveOut returns the locations of g live at the end of each block: read
// later by an instruction checked against the input, by a copy, or as the
// location of a successor's φ at the end of the block, before being
// written.
func (c *flowChecker) liveOut() [][]int32 {
	g := c.g
	var evs []locEvent
	all := make([][]locEvent, len(g.Blocks))
	for bi := range g.Blocks {
		evs = c.events(bi, evs[:0])
		all[bi] = slices.Clone(evs)
	}
	seen := make([]int32, c.nloc) // block + 1 where the location was last written or read exposed
	return backwardLiveness(predLists(g), c.nloc, func(exposed, atEnd, written func(v, b int)) {
		clear(seen)
		for bi, evs := range all {
			here := int32(bi + 1)
			for _, e := range evs {
				if seen[e.loc] == here {
					continue
				}
				seen[e.loc] = here
				if e.read {
					exposed(int(e.loc), bi)
				} else {
					written(int(e.loc), bi)
				}
			}
		}
		for bi, b := range g.Blocks {
			if bi >= len(c.f.Blocks) {
				continue
			}
			for i, p := range b.Preds {
				for _, phi := range c.f.Blocks[bi].Phis() {
					if i < len(phi.Uses) && phi.Uses[i].IsVirtual() {
						atEnd(int(c.loc(c.d.Names[phi.Defs[0].Index()])), p)
					}
				}
			}
		}
	})
}

// flowState is a state at a block boundary: the locations that hold a
// known input value, sorted by location.
type flowState []flowPair

type flowPair struct{ loc, val int32 }

func (s flowState) lookup(l int32) (int32, bool) {
	i, ok := slices.BinarySearchFunc(s, l, func(p flowPair, l int32) int { return int(p.loc - l) })
	if !ok {
		return -1, false
	}
	return s[i].val, true
}

// checkValueFlow simulates Destruct's output symbolically: every location
// (an unpinned virtual register, or the physical register a pinned one
// lives in) holds the input value last copied or written into it, calls
// and other clobbers forget what their clobbered registers held, and
// blocks meet what their predecessors leave. Every operand of every
// instruction of the input must then be read from a location that holds
// exactly the input's operand, and every φ's location must hold, at the
// end of each predecessor, the φ's operand for that edge. The states at
// block ends keep only the locations live there.
func checkValueFlow(f *mir.Func, d *Destructed) error {
	g := d.Func
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == mir.OpCopy || in.Op == mir.OpParCopy {
				return fmt.Errorf("%s: the input already has copies", f.Name)
			}
		}
	}
	c := &flowChecker{f: f, g: g, d: d, extra: map[mir.Reg]int32{}, nloc: mir.NumPhysRegs + len(g.VRegs)}
	c.val, c.set = make([]int32, c.nloc), make([]bool, c.nloc)
	for i := range c.val {
		c.val[i] = -1
	}
	liveOut := c.liveOut()
	exit := make([]flowState, len(g.Blocks))
	visited := make([]bool, len(g.Blocks))
	// entry loads into c the meet of what the visited predecessors of
	// block bi leave: the locations all of them agree on.
	var meet flowState
	entry := func(bi int) {
		c.reset()
		meet = meet[:0]
		first := true
		for _, p := range g.Blocks[bi].Preds {
			if !visited[p] {
				continue
			}
			if first {
				meet = append(meet, exit[p]...)
				first = false
				continue
			}
			kept := meet[:0]
			for _, e := range meet {
				if v, ok := exit[p].lookup(e.loc); ok && v == e.val {
					kept = append(kept, e)
				}
			}
			meet = kept
		}
		for _, e := range meet {
			c.put(e.loc, e.val)
		}
		if bi < len(f.Blocks) {
			for _, phi := range f.Blocks[bi].Phis() {
				c.put(c.loc(d.Names[phi.Defs[0].Index()]), int32(phi.Defs[0].Index()))
			}
		}
	}
	order := g.Graph().ReversePostorder()
	var state flowState
	work := mir.NewPassWorklist(order, len(g.Blocks))
	for bi, ok := work.Pop(); ok; bi, ok = work.Pop() {
		entry(bi)
		if err := c.run(bi, false); err != nil {
			return err
		}
		state = state[:0]
		for _, l := range liveOut[bi] {
			if v := c.get(l); v >= 0 {
				state = append(state, flowPair{l, v})
			}
		}
		if !visited[bi] || !slices.Equal(state, exit[bi]) {
			exit[bi], visited[bi] = slices.Clone(state), true
			for _, s := range g.Blocks[bi].Succs {
				work.Mark(s)
			}
		}
	}
	for _, bi := range order {
		// φ operands, at the end of each predecessor.
		if bi < len(f.Blocks) {
			for i, p := range g.Blocks[bi].Preds {
				for _, phi := range f.Blocks[bi].Phis() {
					u := phi.Uses[i]
					if !u.IsVirtual() {
						continue
					}
					at := c.loc(d.Names[phi.Defs[0].Index()])
					if v, ok := exit[p].lookup(at); !ok || v != int32(u.Index()) {
						return fmt.Errorf("%s: on the edge b%d->b%d, %s (the location of φ %s) holds %s, not %s",
							g.Name, p, bi, c.locName(at), phi.Defs[0], describe(int(v), ok), u)
					}
				}
			}
		}
		entry(bi)
		if err := c.run(bi, true); err != nil {
			return err
		}
	}
	return nil
}

// run simulates output block bi from the state in c; with check set it
// verifies every read against the input.
func (c *flowChecker) run(bi int, check bool) error {
	g := c.g
	b := g.Blocks[bi]
	orig := c.origins(bi)
	next := 0
	var vals []int32
	for k, in := range b.Instrs {
		if in.Op == mir.OpCopy || in.Op == mir.OpParCopy {
			vals = vals[:0]
			for _, u := range in.Uses {
				vals = append(vals, c.get(c.loc(u)))
			}
			for i, dr := range in.Defs {
				c.put(c.loc(dr), vals[i])
			}
			continue
		}
		if bi >= len(c.f.Blocks) && in.Op == mir.OpJMP && k == len(b.Instrs)-1 {
			continue // the jump of a block that holds an edge's copies
		}
		if next >= len(orig) {
			return fmt.Errorf("%s b%d[%d]: %s has no counterpart in the input", g.Name, bi, k, in.Op)
		}
		src := orig[next]
		next++
		if src.Op != in.Op || src.Imm != in.Imm || src.Aux != in.Aux || src.Cond != in.Cond ||
			len(src.Uses) != len(in.Uses) || len(src.Defs) != len(in.Defs) {
			return fmt.Errorf("%s b%d[%d]: %s does not match the input's %s", g.Name, bi, k, in.Op, src.Op)
		}
		if check {
			for i, u := range src.Uses {
				if !u.IsVirtual() {
					if in.Uses[i] != u {
						return fmt.Errorf("%s b%d[%d] (%s): operand %d changed from %s to %s", g.Name, bi, k, in.Op, i, u, in.Uses[i])
					}
					continue
				}
				if v := c.get(c.loc(in.Uses[i])); v != int32(u.Index()) {
					return fmt.Errorf("%s b%d[%d] (%s): operand %d reads %s, which holds %s, not %s",
						g.Name, bi, k, in.Op, i, in.Uses[i], describe(int(v), v >= 0), u)
				}
			}
		}
		for _, r := range in.Clobbers().Regs() {
			c.put(int32(r), -1)
		}
		for i, dr := range src.Defs {
			if dr.IsVirtual() {
				c.put(c.loc(in.Defs[i]), int32(dr.Index()))
			}
		}
	}
	if next != len(orig) {
		return fmt.Errorf("%s b%d: %d input instructions missing from the output", g.Name, bi, len(orig)-next)
	}
	return nil
}

func describe(v int, ok bool) string {
	if !ok || v < 0 {
		return "nothing known"
	}
	return mir.VReg(v).String()
}
