package alloc

import (
	"slices"

	"github.com/kiln-jit/kiln/mir"
)

// resources follows Rastello et al. ("Optimizing the translation out-of-SSA
// with renaming constraints", 2005): every value is pinned to a resource,
// either a physical register (the value must be defined there: an
// argument, a call result, a division result) or a virtual one (a φ class
// of the coalescer, or the value alone). Resources are merged with
// union-find; a merged resource with a physical register is pinned to it.
type resources struct {
	s   *ssaInfo
	n   int // values; resource ids n.. are the physical registers
	uf  *unionFind
	phy []mir.Reg // physical register of each physical resource
	// pin is the physical register of each resource root (NoReg: virtual).
	pin []mir.Reg
	// members lists the values of each resource root: in dominance order
	// for a virtual resource, in no particular order for a physical one.
	members [][]int
	// events lists, per physical register index, the points where the
	// register is written: definitions of values pinned to it, copies into
	// it before fixed-register uses, clobbers.
	events [][]regEvent
	// killed marks the values defined in a fixed register that something
	// else overwrites while they are still needed: they get a repair copy
	// anyway, so more such overwrites cost nothing.
	killed []bool
	// pinned indexes the values pinned to each physical register, once
	// the values killed are known (see pins).
	pinned *physPins
	// checkPhys, when set (by tests), is given every answer of
	// physInterfere with its question, to compare with the definition.
	checkPhys func(r mir.Reg, res int, vs []int, interferes bool)
	stack     [][2]int // scratch for forestInterfere
}

// regEvent is a write of a physical register at an instruction: before it
// (a fixed use: value is the value copied in) or by it (a definition or a
// clobber: value -1 for a clobber).
type regEvent struct {
	block, idx int32
	value      int32
	before     bool
}

// physIndex maps a physical register to a small index.
func physIndex(r mir.Reg) int { return int(r) }

func newResources(s *ssaInfo, co *coalescer, classes [][]int, constrained bool) *resources {
	n := len(s.f.VRegs)
	const nphys = mir.NumPhysRegs
	rs := &resources{s: s, n: n, uf: newUnionFind(n + nphys), phy: make([]mir.Reg, nphys),
		pin: make([]mir.Reg, n+nphys), members: make([][]int, n+nphys), events: make([][]regEvent, nphys)}
	for i := range rs.pin {
		rs.pin[i] = mir.NoReg
	}
	single := make([]int, n)
	for v := 0; v < n; v++ {
		if s.defBlock[v] >= 0 {
			single[v] = v
			rs.members[v] = single[v : v+1 : v+1]
		}
	}
	// Values defined in a fixed register join that register's resource.
	for _, b := range s.f.Blocks {
		if !constrained {
			break
		}
		for k, in := range b.Instrs {
			at := regEvent{block: int32(b.ID), idx: int32(k)}
			for i, d := range in.Defs {
				if spec := s.f.DefSpec(in, i); spec.Fixed.IsPhys() {
					rs.addEvent(spec.Fixed, at, d, spec.EarlyClobber)
					if d.IsVirtual() {
						rs.merge(d.Index(), n+physIndex(spec.Fixed))
					}
				}
			}
			for i, u := range in.Uses {
				if in.Op == mir.OpPhi {
					break
				}
				if spec := s.f.UseSpec(in, i); spec.Fixed.IsPhys() {
					rs.addEvent(spec.Fixed, at, u, true)
				}
			}
			for _, r := range in.Clobbers().Regs() {
				if !slices.Contains(in.Defs, r) && !definesFixed(s.f, in, r) {
					rs.addEvent(r, at, mir.NoReg, false)
				}
			}
		}
	}
	rs.computeKilled()
	// The coalescer's classes are virtual resources; their member lists
	// stay in dominance order.
	for _, members := range classes {
		first := -1
		for _, v := range members {
			if co.removed[v] || !co.eligible[v] {
				continue
			}
			if first < 0 {
				first = v
				continue
			}
			rs.uf.union(first, v)
		}
		if first < 0 {
			continue
		}
		var kept []int
		for _, v := range members {
			if !co.removed[v] && co.eligible[v] {
				rs.members[v] = nil
				kept = append(kept, v)
			}
		}
		rs.members[rs.root(first)] = kept
	}
	return rs
}

// killedInitially reports whether value w, defined in physical register
// p, is overwritten while still needed by a write of the register or by
// the definition of another value there.
func (rs *resources) killedInitially(w, p int, members []int) bool {
	for _, e := range rs.events[p] {
		if int(e.value) != w && rs.liveAtEvent(w, e) {
			return true
		}
	}
	for _, u := range members {
		if u != w && rs.s.dominatesDef(w, u) && rs.s.interfere(w, u) {
			return true
		}
	}
	return false
}

// addEvent records a write of physical register r at the instruction of
// at: before it (a copy of value v into a fixed-register operand) or by it
// (the definition of v, or a clobber when v is not a virtual register).
func (rs *resources) addEvent(r mir.Reg, at regEvent, v mir.Reg, before bool) {
	p := physIndex(r)
	rs.phy[p] = r
	rs.pin[rs.n+p] = r
	at.value, at.before = -1, before
	if v.IsVirtual() {
		at.value = int32(v.Index())
	}
	rs.events[p] = append(rs.events[p], at)
}

// definesFixed reports whether one of in's defs has fixed register r.
func definesFixed(f *mir.Func, in *mir.Instr, r mir.Reg) bool {
	for i := range in.Defs {
		if f.DefSpec(in, i).Fixed == r {
			return true
		}
	}
	return false
}

// root returns the resource of value (or resource id) x.
func (rs *resources) root(x int) int { return rs.uf.find(x) }

// merge joins the resources of x and y. The members of a virtual
// resource are kept in dominance order.
func (rs *resources) merge(x, y int) int {
	x, y = rs.root(x), rs.root(y)
	if x == y {
		return x
	}
	pin := rs.pin[x]
	if pin == mir.NoReg {
		pin = rs.pin[y]
	}
	var members []int
	if pin == mir.NoReg {
		members = rs.mergeSorted(rs.members[x], rs.members[y])
	} else {
		// Nothing depends on the order of a physical register's members:
		// add the shorter list to the longer, so that pinning many values
		// to one register one at a time stays linear.
		mx, my := rs.members[x], rs.members[y]
		if rs.pinned != nil {
			// The values of the side not yet pinned join the index.
			added := mx
			if rs.pin[x] != mir.NoReg {
				added = my
			}
			for _, v := range added {
				rs.addPinned(physIndex(pin), v)
			}
		}
		if len(mx) < len(my) {
			mx, my = my, mx
		}
		members = append(mx, my...)
	}
	rs.members[x], rs.members[y] = nil, nil
	r := rs.uf.union(x, y)
	rs.pin[r] = pin
	rs.members[r] = members
	return r
}

// mergeSorted merges two lists of values in dominance order.
func (rs *resources) mergeSorted(x, y []int) []int {
	out := make([]int, 0, len(x)+len(y))
	for len(x) > 0 && len(y) > 0 {
		if rs.s.domLess(x[0], y[0]) {
			out, x = append(out, x[0]), x[1:]
		} else {
			out, y = append(out, y[0]), y[1:]
		}
	}
	return append(append(out, x...), y...)
}

// interfere reports whether merging resources a and b would create an
// interference that did not exist (Rastello et al.'s Resource_interfere):
// two different physical registers; or, for two virtual resources (whose
// members never interfere among themselves), any member of one interfering
// with any member of the other, found on the dominance forest of their
// union; or, for a virtual resource joining a physical register, one of its
// values being live where the register is written for another value, or
// interfering with a value already pinned there.
func (rs *resources) interfere(a, b int) bool {
	a, b = rs.root(a), rs.root(b)
	if a == b {
		return false
	}
	pa, pb := rs.pin[a], rs.pin[b]
	switch {
	case pa != mir.NoReg && pb != mir.NoReg:
		return pa != pb
	case pa == mir.NoReg && pb == mir.NoReg:
		return rs.forestInterfere(rs.members[a], rs.members[b])
	case pa != mir.NoReg:
		return rs.physCheck(pa, a, rs.members[b])
	default:
		return rs.physCheck(pb, b, rs.members[a])
	}
}

// physCheck is physInterfere, its answer also given to checkPhys.
func (rs *resources) physCheck(r mir.Reg, res int, vs []int) bool {
	got := rs.physInterfere(r, vs)
	if rs.checkPhys != nil {
		rs.checkPhys(r, res, vs, got)
	}
	return got
}

// forestInterfere checks two interference-free sets of values, each in
// dominance order, against each other on the dominance forest of their
// union, built on the fly by merging the lists: by Budimlić et al.'s Lemma
// 3.1 only forest edges need testing, and only those joining the sets.
func (rs *resources) forestInterfere(x, y []int) bool {
	s := rs.s
	stack := rs.stack[:0]
	defer func() { rs.stack = stack[:0] }()
	for len(x) > 0 || len(y) > 0 {
		var v, side int
		if len(y) == 0 || (len(x) > 0 && s.domLess(x[0], y[0])) {
			v, x = x[0], x[1:]
		} else {
			v, y, side = y[0], y[1:], 1
		}
		for len(stack) > 0 && s.blockPre(v) > s.blockLast(stack[len(stack)-1][0]) {
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1][1] != side && s.interfere(stack[n-1][0], v) {
			return true
		}
		stack = append(stack, [2]int{v, side})
	}
	return false
}

// physInterfere reports whether pinning the values vs to register r would
// kill one of them or a value already there: a value of another class, or
// whose defining instruction has an operand fixed to r; a value live where
// r is written for another value or clobbered (the register's event
// index); or a value interfering with one pinned there (physPins).
func (rs *resources) physInterfere(r mir.Reg, vs []int) bool {
	s := rs.s
	p := physIndex(r)
	x := rs.pins()
	events := x.eventIndex(rs, p)
	for _, v := range vs {
		if s.f.VRegs[v] != r.Class() || rs.definerUses(v, r) || rs.liveAtOtherWrite(events, v) || rs.pinnedClash(p, v) {
			return true
		}
	}
	return false
}

// definerUses reports whether the instruction defining v has an operand
// fixed to register r: v could not be written there without clashing.
func (rs *resources) definerUses(v int, r mir.Reg) bool {
	in := rs.s.defInstr[v]
	if in == nil || in.Op == mir.OpPhi {
		return false
	}
	for i := range in.Uses {
		if rs.s.f.UseSpec(in, i).Fixed == r {
			return true
		}
	}
	for i, d := range in.Defs {
		if d != mir.VReg(v) && rs.s.f.DefSpec(in, i).Fixed == r {
			return true
		}
	}
	return in.Clobbers().Has(r)
}

// liveAtEvent reports whether v still holds a needed value where event e
// writes its register: after the instruction for a definition or clobber,
// before it (and so also when the instruction reads v) for a copy into a
// fixed-register use.
func (rs *resources) liveAtEvent(v int, e regEvent) bool {
	s := rs.s
	b, idx := int(e.block), int(e.idx)
	if e.before {
		idx--
		if slices.Contains(s.f.Blocks[b].Instrs[e.idx].Uses, mir.VReg(v)) && s.definedBy(v, b, idx) {
			return true
		}
	}
	return s.definedBy(v, b, idx) && s.liveAfter(v, b, idx)
}

// definedBy reports whether v's definition comes at or before position idx
// of block b, given that v is live somewhere in b (so that its definition
// dominates b when it is in another block).
func (s *ssaInfo) definedBy(v, b, idx int) bool {
	if int(s.defBlock[v]) != b {
		return s.defBlock[v] >= 0
	}
	return int(s.defIdx[v]) <= idx
}

// pinUses pins the value read by each fixed-register operand to that
// register when that creates no interference (hot blocks first), so that
// it is computed where it is needed instead of being copied there, and
// likewise a value tied to a def pinned to a register.
func (rs *resources) pinUses(stats *DestructStats) {
	s := rs.s
	blocks := slices.Clone(s.an.RPO)
	slices.SortStableFunc(blocks, func(x, y int) int {
		fx, fy := s.f.Blocks[x].Freq, s.f.Blocks[y].Freq
		switch {
		case fx > fy:
			return -1
		case fx < fy:
			return 1
		}
		return 0
	})
	for _, bi := range blocks {
		for _, in := range s.f.Blocks[bi].Instrs {
			if in.Op == mir.OpPhi {
				continue
			}
			for i, u := range in.Uses {
				spec := s.f.UseSpec(in, i)
				if !u.IsVirtual() || !spec.Fixed.IsPhys() || s.defBlock[u.Index()] < 0 {
					continue
				}
				x, r := rs.root(u.Index()), rs.root(rs.n+physIndex(spec.Fixed))
				if x == r || rs.pin[x] != mir.NoReg {
					continue
				}
				if !rs.interfere(x, r) {
					rs.merge(x, r)
					stats.PinnedUses++
				}
			}
		}
	}
}

// pinPhis is Rastello et al.'s pinning_φ: for each block with φs, most
// frequent first (the block frequencies come from the profile, or from the
// static estimate, which weights inner loops most), it builds the affinity graph of
// the block's φs over resources, drops the edges between interfering
// resources, prunes the rest by the paper's weights until no two neighbours
// of a resource interfere, and merges each connected component.
func (rs *resources) pinPhis(stats *DestructStats) {
	s := rs.s
	var blocks []*mir.Block
	for _, b := range s.f.Blocks {
		if len(b.Phis()) > 0 && s.an.RPONum[b.ID] >= 0 {
			blocks = append(blocks, b)
		}
	}
	slices.SortStableFunc(blocks, func(x, y *mir.Block) int {
		switch {
		case x.Freq > y.Freq:
			return -1
		case x.Freq < y.Freq:
			return 1
		}
		return x.ID - y.ID
	})
	for _, b := range blocks {
		g := rs.affinityGraph(b)
		if len(g.edges) == 0 {
			continue
		}
		stats.AffinityEdges += len(g.edges)
		g.prune(rs)
		for _, e := range g.edges {
			if !e.removed && !rs.interfere(e.x, e.y) {
				rs.merge(e.x, e.y)
				stats.PinnedAffinities += e.mult
			}
		}
	}
}

// affinity is an edge of the affinity graph between two resources, with
// the number of φ operands it stands for.
type affinity struct {
	x, y    int
	mult    int
	weight  int
	removed bool
}

type affinityGraph struct {
	edges []*affinity
}

// affinityGraph returns the affinity graph of block b's φs: an edge between
// the resource of each φ and the resource of each of its arguments, when
// they differ.
func (rs *resources) affinityGraph(b *mir.Block) *affinityGraph {
	g := &affinityGraph{}
	var index map[[2]int]*affinity // the edges by their ends, once there are many
	for _, phi := range b.Phis() {
		x := rs.root(phi.Defs[0].Index())
		for _, arg := range phi.Uses {
			if !arg.IsVirtual() || rs.s.defBlock[arg.Index()] < 0 {
				continue
			}
			y := rs.root(arg.Index())
			if x == y {
				continue
			}
			var e *affinity
			if index != nil {
				e = index[[2]int{x, y}]
			} else {
				for _, o := range g.edges {
					if o.x == x && o.y == y {
						e = o
					}
				}
			}
			if e == nil {
				e = &affinity{x: x, y: y}
				g.edges = append(g.edges, e)
				if index != nil {
					index[[2]int{x, y}] = e
				} else if len(g.edges) > 32 {
					index = make(map[[2]int]*affinity, len(g.edges))
					for _, o := range g.edges {
						index[[2]int{o.x, o.y}] = o
					}
				}
			}
			e.mult++
		}
	}
	return g
}

// prune removes edges between interfering resources (Graph_InitialPruning)
// and then, while some resource has two neighbours that interfere, the
// edge of largest weight, where an edge's weight counts the operands of
// the other edges at its ends that lead to a resource interfering with it
// (BipartiteGraph_pruning; weights are recomputed after each removal).
func (g *affinityGraph) prune(rs *resources) {
	// The resources do not change while the graph is pruned: remember
	// each answer.
	memo := map[[2]int]bool{}
	interfere := func(u, w int) bool {
		key := [2]int{min(u, w), max(u, w)}
		r, ok := memo[key]
		if !ok {
			r = rs.interfere(u, w)
			memo[key] = r
		}
		return r
	}
	for _, e := range g.edges {
		if interfere(e.x, e.y) {
			e.removed = true
		}
	}
	for {
		for _, e := range g.edges {
			e.weight = 0
		}
		for i, e := range g.edges {
			if e.removed {
				continue
			}
			for _, o := range g.edges[i+1:] {
				if o.removed {
					continue
				}
				// The edges meet at one end; their other ends must not
				// interfere.
				var u, w int
				switch {
				case e.x == o.x:
					u, w = e.y, o.y
				case e.y == o.y:
					u, w = e.x, o.x
				case e.x == o.y:
					u, w = e.y, o.x
				case e.y == o.x:
					u, w = e.x, o.y
				default:
					continue
				}
				if u != w && interfere(u, w) {
					e.weight += o.mult
					o.weight += e.mult
				}
			}
		}
		var worst *affinity
		for _, e := range g.edges {
			if !e.removed && e.weight > 0 && (worst == nil || e.weight > worst.weight) {
				worst = e
			}
		}
		if worst == nil {
			return
		}
		worst.removed = true
	}
}
