package sched

import (
	"github.com/kiln-jit/kiln/mir"
)

// depGraph is the dependence graph of the instructions of one block. A
// node is a run of instructions scheduled as one: an instruction, or the
// copies into an instruction's fixed-register operands glued to it. Every
// edge goes from an earlier node to a later one (in the block's order), so
// the node order is a topological order.
type depGraph struct {
	nodes []depNode
	edges []depEdge // node i's successors are edges[nodes[i].succ0:nodes[i].succ1]
}

// depNode is one node of a dependence graph.
type depNode struct {
	first, last int32 // instructions first..last of the block
	lat         int32 // latency of the node's result (of its last instruction)
	unit        Unit
	height      int32 // longest latency path to the end of the block
	npred       int32 // number of predecessor edges
	succ0       int32
	succ1       int32
}

// depEdge is an edge to node to: to may issue lat cycles after the edge's
// source at the earliest.
type depEdge struct {
	to, lat int32
}

// memWindow bounds the memory operations compared pairwise for
// disambiguation: every memWindow-th access becomes a small barrier that
// depends on all accesses before it, which keeps the graph linear in size.
const memWindow = 32

// noIndex is the index resource of an address without an index register.
const noIndex int32 = -2

// memAccess describes a linear-memory access for disambiguation.
type memAccess struct {
	node              int32
	store             bool
	base, index       int32 // resources of the address registers (index noIndex: none)
	baseVer, idxVer   int32 // their definition counts when the access was made
	scale             uint8
	lo, hi            int64 // byte range [lo, hi) relative to base + index*scale
	knownDisplacement bool
}

// disjoint reports whether two accesses provably touch different bytes:
// the same address registers, not redefined in between, and
// non-overlapping displacement ranges.
func (a *memAccess) disjoint(b *memAccess) bool {
	return a.knownDisplacement && b.knownDisplacement &&
		a.base == b.base && a.index == b.index && a.baseVer == b.baseVer && a.idxVer == b.idxVer &&
		a.scale == b.scale && (a.hi <= b.lo || b.hi <= a.lo)
}

// graphBuilder builds dependence graphs; it keeps its tables between
// blocks so that building costs no allocation per block once warm.
type graphBuilder struct {
	f     *mir.Func
	model *Model
	// resources: physical registers 0..31, then virtual registers, then
	// stack slots, then stack-argument slots (numbered on first sight).
	nv, ns  int
	argRes  map[mir.Reg]int32
	lastDef []int32 // per resource: node of the last definition, -1
	version []int32 // per resource: definitions seen in the block
	useHead []int32 // per resource: head of its list of uses since the last definition
	uses    []useLink
	touched []int32
	edges   []rawEdge
	g       depGraph
	// flags and memory state
	flagWriter       int32
	writersSinceRead []int32
	// readGroup holds the readers of the flags of readProducer, the last
	// flag writer that was read: every later writer must follow them all.
	readGroup    []int32
	readProducer int32
	segment      []memAccess
	summary      int32 // last barrier or summary access, -1
	ctxLoads     []int32
	sinks        []bool
}

type useLink struct{ node, next int32 }

type rawEdge struct{ from, to, lat int32 }

func newGraphBuilder(f *mir.Func, model *Model) *graphBuilder {
	b := new(graphBuilder)
	b.reset(f, model)
	return b
}

// reset prepares the builder for f, reusing its storage.
func (b *graphBuilder) reset(f *mir.Func, model *Model) {
	b.f, b.model, b.nv, b.ns = f, model, len(f.VRegs), len(f.Slots)
	n := mir.NumPhysRegs + b.nv + b.ns
	b.lastDef = fit(b.lastDef, n)
	b.version = zeroed(b.version, n)
	b.useHead = fit(b.useHead, n)
	for i := range b.lastDef {
		b.lastDef[i], b.useHead[i] = -1, -1
	}
	b.argRes = nil
	b.touched = b.touched[:0]
}

// resource returns the resource number of a location, growing the tables
// for stack-argument slots.
func (b *graphBuilder) resource(r mir.Reg) int32 {
	switch {
	case r.IsPhys():
		return int32(r)
	case r.IsVirtual() && r.Index() < b.nv:
		return int32(mir.NumPhysRegs + r.Index())
	case r.IsSlot() && r.Index() < b.ns:
		return int32(mir.NumPhysRegs + b.nv + r.Index())
	}
	if b.argRes == nil {
		b.argRes = map[mir.Reg]int32{}
	}
	id, ok := b.argRes[r]
	if !ok {
		id = int32(len(b.lastDef))
		b.argRes[r] = id
		b.lastDef = append(b.lastDef, -1)
		b.version = append(b.version, 0)
		b.useHead = append(b.useHead, -1)
	}
	return id
}

// physOf returns the physical register an operand of register r with spec
// s is bound to before allocation (its pin, or the op's fixed register),
// or NoReg.
func (b *graphBuilder) physOf(r mir.Reg, s mir.OperandSpec) mir.Reg {
	if r.IsPhys() {
		return mir.NoReg // allocated code: r itself is the resource
	}
	return pinOrFixed(b.f, r, s)
}

func (b *graphBuilder) edge(from, to, lat int32) {
	if from >= 0 && from != to {
		b.edges = append(b.edges, rawEdge{from, to, lat})
	}
}

func (b *graphBuilder) touch(res int32) {
	if b.lastDef[res] == -1 && b.useHead[res] == -1 && b.version[res] == 0 {
		b.touched = append(b.touched, res)
	}
}

// use records that node n reads resource res.
func (b *graphBuilder) use(n, res int32) {
	b.touch(res)
	if d := b.lastDef[res]; d >= 0 {
		b.edge(d, n, b.g.nodes[d].lat)
	}
	b.uses = append(b.uses, useLink{n, b.useHead[res]})
	b.useHead[res] = int32(len(b.uses) - 1)
}

// def records that node n writes resource res.
func (b *graphBuilder) def(n, res int32) {
	b.touch(res)
	for u := b.useHead[res]; u >= 0; u = b.uses[u].next {
		b.edge(b.uses[u].node, n, 0) // anti
	}
	b.useHead[res] = -1
	if d := b.lastDef[res]; d >= 0 {
		b.edge(d, n, 0) // output
	}
	b.lastDef[res] = n
	b.version[res]++
}

// clobbersScratch reports whether in may change the scratch registers in
// allocated code: every instruction but a move may (the encoder's
// expansions, calls and exits use them), which is also what the allocation
// checker assumes.
func clobbersScratch(in *mir.Instr) bool {
	switch in.Op {
	case mir.OpCopy, mir.OpSpill, mir.OpReload, mir.OpXchg, mir.OpParCopy:
		return false
	}
	return true
}

// glued reports whether instruction i (a copy) is glued to the instruction
// after it: the next instruction reads one of its destinations.
func glued(instrs []*mir.Instr, i int) bool {
	in := instrs[i]
	if in.Op != mir.OpCopy && in.Op != mir.OpParCopy {
		return false
	}
	if i+1 >= len(instrs) {
		return false
	}
	next := instrs[i+1]
	if next.Op.Info().Terminator {
		return false
	}
	for _, u := range next.Uses {
		for _, d := range in.Defs {
			if u == d && d.IsVirtual() {
				return true
			}
		}
	}
	return false
}

// build returns the dependence graph of instrs[start:]; instrs[:start] (the
// entry block's arguments) are not part of it. With glue, copies feeding
// the next instruction form one node with it. The graph is valid until
// the next call.
func (b *graphBuilder) build(instrs []*mir.Instr, start int, glue bool) *depGraph {
	g := &b.g
	g.nodes = g.nodes[:0]
	b.edges = b.edges[:0]
	b.uses = b.uses[:0]
	b.flagWriter = -1
	b.writersSinceRead = b.writersSinceRead[:0]
	b.readGroup = b.readGroup[:0]
	b.readProducer = -1
	b.segment = b.segment[:0]
	b.summary = -1
	b.ctxLoads = b.ctxLoads[:0]
	var lastBarrier int32 = -1
	// Calls are scheduling barriers: moving code across a call would make
	// values live across it, which on x86-64 (five callee-saved registers)
	// costs saves and restores.
	var lastCall int32 = -1
	sinceCall := int32(0)
	for i := start; i < len(instrs); {
		j := i
		if glue {
			for j+1 < len(instrs) && glued(instrs, j) {
				j++
			}
		}
		n := int32(len(g.nodes))
		last := instrs[j]
		g.nodes = append(g.nodes, depNode{first: int32(i), last: int32(j), lat: b.model.lat(last), unit: b.model.unit(last)})
		isCall := false
		for k := i; k <= j; k++ {
			b.instr(n, instrs[k], &lastBarrier)
			isCall = isCall || instrs[k].Op.Info().Call
		}
		b.edge(lastCall, n, 0)
		if isCall {
			for m := sinceCall; m < n; m++ {
				b.edge(m, n, 0)
			}
			lastCall, sinceCall = n, n+1
		}
		i = j + 1
	}
	// The terminator (when there is one) comes after everything.
	nn := int32(len(g.nodes))
	if nn > 0 && instrs[len(instrs)-1].Op.Info().Terminator {
		term := nn - 1
		if cap(b.sinks) < int(nn) {
			b.sinks = make([]bool, nn)
		}
		sinks := b.sinks[:nn]
		for i := range sinks {
			sinks[i] = true
		}
		for _, e := range b.edges {
			sinks[e.from] = false
		}
		for i := int32(0); i < term; i++ {
			if sinks[i] {
				b.edge(i, term, 0)
			}
		}
	}
	b.finish()
	for _, res := range b.touched {
		b.lastDef[res], b.useHead[res], b.version[res] = -1, -1, 0
	}
	b.touched = b.touched[:0]
	return g
}

// instr adds the dependences of instruction in, part of node n.
func (b *graphBuilder) instr(n int32, in *mir.Instr, lastBarrier *int32) {
	f := b.f
	info := in.Op.Info()
	// Registers: uses, then clobbers and defs.
	for i, r := range in.Uses {
		s := f.UseSpec(in, i)
		if r.IsVirtual() || r.IsPhys() || r.IsMem() {
			b.use(n, b.resource(r))
		}
		if p := b.physOf(r, s); p != mir.NoReg {
			b.use(n, int32(p))
		}
	}
	for _, r := range in.Clobbers().Regs() {
		b.def(n, int32(r))
	}
	if f.Form == mir.FormAllocated && clobbersScratch(in) {
		b.def(n, int32(mir.ScratchGPR))
		b.def(n, int32(mir.ScratchXMM))
	}
	for i, r := range in.Defs {
		s := f.DefSpec(in, i)
		if r.IsVirtual() || r.IsPhys() || r.IsMem() {
			b.def(n, b.resource(r))
		}
		if p := b.physOf(r, s); p != mir.NoReg {
			b.def(n, int32(p))
		}
	}
	// Flags: a reader follows the writer it reads, no other writer may
	// come between them: the writers since the previous reader precede the
	// producer, and every later writer follows the producer's readers
	// (which, producer by producer, orders all readers before it).
	if info.ReadsFlags {
		w := b.flagWriter
		b.edge(w, n, b.g.nodes[max(w, 0)].lat)
		for _, x := range b.writersSinceRead {
			if x != w {
				b.edge(x, w, 0)
			}
		}
		b.writersSinceRead = b.writersSinceRead[:0]
		if w != b.readProducer {
			b.readGroup = b.readGroup[:0]
			b.readProducer = w
		}
		b.readGroup = append(b.readGroup, n)
	}
	if info.WritesFlags {
		for _, r := range b.readGroup {
			b.edge(r, n, 0)
		}
		b.writersSinceRead = append(b.writersSinceRead, n)
		b.flagWriter = n
	}
	// Memory and effects.
	switch {
	case info.Call || info.MayTrap || in.Op == mir.OpPoll || in.Op == mir.OpCount || in.Op == mir.OpCountAdd || in.Op == mir.OpRET ||
		(info.SideEffects && !info.Stores):
		b.edge(b.summary, n, 0)
		b.edge(*lastBarrier, n, 0)
		for i := range b.segment {
			b.edge(b.segment[i].node, n, 0)
		}
		for _, c := range b.ctxLoads {
			b.edge(c, n, 0)
		}
		b.segment = b.segment[:0]
		b.ctxLoads = b.ctxLoads[:0]
		b.summary, *lastBarrier = n, n
	case in.Op == mir.OpCtxLoad:
		b.edge(*lastBarrier, n, 0)
		b.ctxLoads = append(b.ctxLoads, n)
	case info.Guarded:
		// After the checks that make it safe.
		b.edge(*lastBarrier, n, 0)
	case info.Loads || info.Stores:
		acc := b.access(n, in)
		b.edge(b.summary, n, 0)
		for i := range b.segment {
			m := &b.segment[i]
			if (m.store || acc.store) && !m.disjoint(&acc) {
				b.edge(m.node, n, 0)
			}
		}
		if len(b.segment) >= memWindow {
			// This access becomes a summary every later one depends on.
			for i := range b.segment {
				b.edge(b.segment[i].node, n, 0)
			}
			b.segment = b.segment[:0]
			b.summary = n
		} else {
			b.segment = append(b.segment, acc)
		}
	}
}

// access describes the linear-memory access of in.
func (b *graphBuilder) access(n int32, in *mir.Instr) memAccess {
	info := in.Op.Info()
	acc := memAccess{node: n, store: info.Stores, base: -1, index: -1, scale: in.Scale,
		lo: in.Imm, hi: in.Imm + int64(max(info.MemSize, 1))}
	for i, r := range in.Uses {
		switch b.f.UseSpec(in, i).Role {
		case mir.RoleMemBase:
			acc.base = b.resource(r)
			acc.baseVer = b.version[acc.base]
		case mir.RoleMemIndex:
			if r == mir.NoReg {
				acc.index = noIndex
				continue
			}
			acc.index = b.resource(r)
			acc.idxVer = b.version[acc.index]
		}
	}
	acc.knownDisplacement = acc.base >= 0 && (acc.index >= 0 || acc.index == noIndex)
	return acc
}

// finish turns the raw edges into successor lists and computes the
// predecessor counts and heights.
func (b *graphBuilder) finish() {
	g := &b.g
	nn := len(g.nodes)
	for i := range g.nodes {
		g.nodes[i].succ0, g.nodes[i].succ1, g.nodes[i].npred = 0, 0, 0
	}
	for _, e := range b.edges {
		g.nodes[e.from].succ1++
		g.nodes[e.to].npred++
	}
	off := int32(0)
	for i := range g.nodes {
		c := g.nodes[i].succ1
		g.nodes[i].succ0, g.nodes[i].succ1 = off, off
		off += c
	}
	if cap(g.edges) < len(b.edges) {
		g.edges = make([]depEdge, len(b.edges))
	}
	g.edges = g.edges[:len(b.edges)]
	for _, e := range b.edges {
		nd := &g.nodes[e.from]
		g.edges[nd.succ1] = depEdge{e.to, e.lat}
		nd.succ1++
	}
	// Heights: the longest latency-weighted path to the end of the block,
	// counting each node's own latency.
	for i := nn - 1; i >= 0; i-- {
		nd := &g.nodes[i]
		h := nd.lat
		for _, e := range g.edges[nd.succ0:nd.succ1] {
			if c := e.lat + g.nodes[e.to].height; c > h {
				h = c
			}
		}
		nd.height = h
	}
}

// succs returns the successor edges of node i.
func (g *depGraph) succs(i int32) []depEdge {
	nd := &g.nodes[i]
	return g.edges[nd.succ0:nd.succ1]
}
