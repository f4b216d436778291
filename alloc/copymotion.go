package alloc

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kiln-jit/kiln/mir"
)

// CopyMotion is the allocated function MoveParallelCopies works on, before
// its reconciliation code is placed: every block's code with physical
// registers, and, per block, the values live at its start and end (sorted
// value numbers of the allocator's choosing) with the location each is in
// there. The parallel copy of an edge p -> s is implied: every value live
// into s goes from its End location in p to its Start location in s.
// Register-to-register pairs are its moves; a register-to-memory pair is
// a store (none when the value is clean: its register and its home slot
// agree), a memory-to-register pair a load or a rematerialization.
//
// MoveParallelCopies changes Func's blocks' Instrs (inserting copies and
// renaming registers), Origins (kept parallel to Instrs, -1 for inserted
// copies) and the Start and End locations in place; the caller then places
// each edge's code as before, computed from the new locations.
type CopyMotion struct {
	// Func is the allocated function (FormAllocated); its blocks' Succs,
	// Preds, Freq and SuccProb are read, their Instrs changed.
	Func *mir.Func
	// Origins, when not nil, holds one origin per instruction of each
	// block (as Origins.Instr); inserted copies get -1.
	Origins [][]int32
	// LiveIn and LiveOut list the values live at each block's start and
	// end in increasing order; Start and End give their locations (a
	// physical register, a stack slot or a stack-argument slot).
	LiveIn, LiveOut [][]int32
	Start, End      [][]mir.Reg
	// EndClean, when not nil, marks values whose End register and home
	// slot agree, so that an edge into a block expecting them in memory
	// needs no store.
	EndClean [][]bool
	// Unsplittable, when not nil, reports the edges (successor k of block
	// b) that must not get a block of their own (abnormal edges): the pass
	// must move every register copy off them, and reports those it cannot.
	Unsplittable func(b, k int) bool
}

// DefaultSplitCost is the modelled cost of splitting an edge, in moves
// per execution of the edge: the jump the new block ends with and the
// taken branch into it.
const DefaultSplitCost = 2

// DefaultMaxBlockWalk bounds how many instructions block motion looks at
// from each end of a block.
const DefaultMaxBlockWalk = 512

// MotionOptions configure MoveParallelCopies.
type MotionOptions struct {
	// NoBlockMotion keeps the copies the pass moves into a block at the
	// block's bottom (before its terminator) or top, instead of sliding
	// them to the cheapest point inside it.
	NoBlockMotion bool
	// SplitCost is the modelled cost of a split edge in moves per
	// execution (0: DefaultSplitCost).
	SplitCost float64
	// MaxBlockWalk bounds block motion's search (0: DefaultMaxBlockWalk).
	MaxBlockWalk int
	// Rand, when not nil, replaces every decision of the heuristic by a
	// random feasible one (moving an edge's copy up, down or not at all;
	// the position of a copy inside its block). Forced motions off
	// unsplittable edges stay forced. For testing the soundness of
	// arbitrary motions.
	Rand *rand.Rand
}

// MotionEdge names a CFG edge.
type MotionEdge struct{ From, To int }

// MotionStats reports what MoveParallelCopies did. Split counts are edges
// that need a block of their own for their code (their source has other
// successors or does not end in a jump, their destination other
// predecessors); weighted counts multiply by the edge's or block's
// frequency. Moves are register copies as the paper counts them (‖pc‖:
// moves plus one per cycle); memory moves are not counted (they stay).
type MotionStats struct {
	// Edges is the number of distinct CFG edges, Critical those that need
	// a block of their own when they carry code.
	Edges, Critical int
	// Irreversible counts edges whose register copy duplicates a value,
	// which the pass leaves in place.
	Irreversible int
	// Splits before and after the pass.
	SplitsBefore, SplitsAfter                 int
	WeightedSplitsBefore, WeightedSplitsAfter float64
	// Register moves before and after (on edges and in blocks).
	MovesBefore, MovesAfter                 int
	WeightedMovesBefore, WeightedMovesAfter float64
	// CostBefore and CostAfter are the modelled costs: weighted moves,
	// memory moves and split edges.
	CostBefore, CostAfter float64
	// Up and Down count the motions applied (forced ones included),
	// Forced the motions off unsplittable edges.
	Up, Down, Forced int
	// Steps counts worklist iterations.
	Steps int
	// BlockCopies counts the parallel copies inserted into blocks, Moved
	// those of them placed above the block's bottom or below its top by
	// block motion.
	BlockCopies, Moved int
	// Unsolved lists the unsplittable edges left with a register copy
	// (an irreversible copy, or a cycle of unsplittable siblings): the
	// caller must split them or fail.
	Unsolved []MotionEdge
}

// Motion directions.
const (
	cmUp   = 0 // into the edge's source, compensation on its other out-edges
	cmDown = 1 // into the edge's destination, compensation on its other in-edges
)

// cmPair is a value live across an edge: its index in the source's End
// and the destination's Start.
type cmPair struct{ out, in int32 }

type cmEdge struct {
	p, s    int32
	freq    float64
	crit    bool
	unsplit bool
	nMem    int      // loads, stores and rematerializations (they stay)
	pairs   []cmPair // values in registers at both ends
}

type cmBlock struct {
	ready bool         // the tables below are computed
	live  []mir.RegSet // registers live at each position 0..n (input names)
	cons  []mir.RegSet // registers each instruction constrains
	flags []bool       // EFLAGS live at each position
	succ  []int32      // distinct out-edges
	pred  []int32      // distinct in-edges
	// bot renames the block's bottom region (End = bot(End0)); topInv
	// renames its top region (Start = topInv(Start0)), top is its inverse.
	bot, top, topInv Perm
	botID, topID     bool
}

type cmUndo struct {
	block     int32
	bot       bool
	perm, inv Perm
	wasID     bool
}

type copyMotion struct {
	m      *CopyMotion
	f      *mir.Func
	opts   MotionOptions
	split  float64
	walk   int
	edges  []cmEdge
	blocks []cmBlock
	ecost  []float64
	bcost  []float64
	start0 [][]mir.Reg
	end0   [][]mir.Reg

	undo     []cmUndo
	touched  []int32
	tstamp   []int32
	estamp   []int32
	visited  []int32
	stamp    int32
	affected []int32
	moveBuf  []Move
	stats    MotionStats

	ctBuf, cbBuf, prefixBuf, newB, newE []float64
	argBuf                              []int
}

// fitFloats returns (*buf)[:n], growing *buf when needed.
func fitFloats(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}

// MoveParallelCopies moves the register part of the reconciliation
// parallel copies of m off the CFG edges by region recolouring (Bouchez,
// Colombet, Darte, Guillon and Rastello, "Parallel copy motion", SCOPES
// 2010), and slides each copy it puts into a block to the cheapest point
// there (the paper's Motion-up-from-bottom, and the symmetric motion down
// from the top).
//
// A copy moves up into an edge's source by expanding it to a permutation
// π of the registers (Expand), renaming every register of the source's
// bottom region by π and the source's End locations with it, and putting
// the projection of π on the registers live at the region's entry there:
// the copy on the edge cancels, and the source's other out-edges, whose
// copies are recomputed from the locations, carry π⁻¹ composed with what
// they carried (the compensation). Moving down renames the destination's
// top region and Start locations by π⁻¹ instead. Region recolouring is
// sound whatever the code because π is a bijection: ties, early clobbers
// and equalities between operands are kept, and an instruction is put in
// a region only when π fixes every register it constrains (fixed operands
// of calls, division, shifts, returns and arguments, clobbers, and the
// caller-saved registers of a call); the scratch registers, RSP and R15
// are never in π's support, a copy is never put where a scratch register
// holds a value, and the inserted copies are moves and exchanges, which
// keep EFLAGS, so they may sit between a compare and its branch (block
// motion prefers not to).
//
// The driver is the paper's local heuristic: a worklist of the edges with
// a register copy, the unsplittable ones first and then by decreasing
// frequency, each moved up, moved down or left (split) by the modelled
// gain of each option (moves weighted by frequency, a split edge costing
// MotionOptions.SplitCost moves per execution, a block's copies costed at
// their cheapest point), applying only motions with positive gain except
// off unsplittable edges, where a feasible motion is forced. A motion that
// leaves a copy on an unsplittable sibling moves that sibling on in the
// only direction that does not come back (weakness propagation through
// chains of critical siblings); a cycle of unsplittable siblings (the
// paper's butterfly) is detected, undone and reported in
// MotionStats.Unsolved, never miscompiled.
//
// Stack-slot moves (the loads, stores and rematerializations of spill
// reconciliation) are outside the paper's model and stay on their edges,
// reading and writing the renamed registers; an edge with one still needs
// its block when it is critical. Copies that duplicate a value (two
// values sharing a register at a block's end, going to two registers) are
// not reversible and stay on their edges too.
func MoveParallelCopies(m *CopyMotion, opts MotionOptions) (*MotionStats, error) {
	c := &copyMotion{m: m, opts: opts, split: opts.SplitCost, walk: opts.MaxBlockWalk}
	if c.split <= 0 {
		c.split = DefaultSplitCost
	}
	if c.walk <= 0 {
		c.walk = DefaultMaxBlockWalk
	}
	if err := c.setup(); err != nil {
		return nil, err
	}
	c.before()
	c.drive()
	if err := c.emit(); err != nil {
		return nil, err
	}
	return &c.stats, nil
}

// setup validates m and builds the edges and the blocks' tables.
func (c *copyMotion) setup() error {
	m := c.m
	if m == nil || m.Func == nil {
		return fmt.Errorf("alloc: copy motion: nil function")
	}
	f := m.Func
	c.f = f
	nb := len(f.Blocks)
	if len(m.LiveIn) != nb || len(m.LiveOut) != nb || len(m.Start) != nb || len(m.End) != nb ||
		(m.Origins != nil && len(m.Origins) != nb) || (m.EndClean != nil && len(m.EndClean) != nb) {
		return fmt.Errorf("alloc: copy motion of %s: per-block tables do not have %d entries", f.Name, nb)
	}
	c.blocks = make([]cmBlock, nb)
	c.start0 = make([][]mir.Reg, nb)
	c.end0 = make([][]mir.Reg, nb)
	nloc := 0
	for b, blk := range f.Blocks {
		if blk == nil || len(blk.Instrs) == 0 || !blk.Terminator().Op.Info().Terminator {
			return fmt.Errorf("alloc: copy motion of %s: b%d does not end in a terminator", f.Name, b)
		}
		if len(m.Start[b]) != len(m.LiveIn[b]) || len(m.End[b]) != len(m.LiveOut[b]) ||
			(m.Origins != nil && len(m.Origins[b]) != len(blk.Instrs)) ||
			(m.EndClean != nil && len(m.EndClean[b]) != len(m.LiveOut[b])) {
			return fmt.Errorf("alloc: copy motion of %s: b%d: tables of the wrong length", f.Name, b)
		}
		if len(blk.SuccProb) != len(blk.Succs) {
			return fmt.Errorf("alloc: copy motion of %s: b%d has %d successors and %d probabilities", f.Name, b, len(blk.Succs), len(blk.SuccProb))
		}
		for _, s := range blk.Succs {
			if s < 0 || s >= nb {
				return fmt.Errorf("alloc: copy motion of %s: b%d has successor b%d out of range", f.Name, b, s)
			}
		}
		nloc += len(m.Start[b]) + len(m.End[b])
		bk := &c.blocks[b]
		bk.bot, bk.top, bk.topInv = IdentityPerm(), IdentityPerm(), IdentityPerm()
		bk.botID, bk.topID = true, true
	}
	buf := make([]mir.Reg, 0, nloc)
	for b := range nb {
		buf = append(buf, m.Start[b]...)
		c.start0[b] = buf[len(buf)-len(m.Start[b]):]
		buf = append(buf, m.End[b]...)
		c.end0[b] = buf[len(buf)-len(m.End[b]):]
	}
	// The distinct edges.
	last := make([]int32, nb)
	for i := range last {
		last[i] = -1
	}
	for p, pb := range f.Blocks {
		for k, s := range pb.Succs {
			prob := pb.SuccProb[k]
			if e := last[s]; e >= 0 && c.edges[e].p == int32(p) {
				c.edges[e].freq += pb.Freq * prob
				if m.Unsplittable != nil && m.Unsplittable(p, k) {
					c.edges[e].unsplit = true
				}
				continue
			}
			e := cmEdge{p: int32(p), s: int32(s), freq: pb.Freq * prob}
			e.crit = !(len(pb.Succs) == 1 && pb.Terminator().Op == mir.OpJMP) && len(f.Blocks[s].Preds) != 1
			e.unsplit = m.Unsplittable != nil && m.Unsplittable(p, k)
			if err := c.pairs(&e); err != nil {
				return err
			}
			last[s] = int32(len(c.edges))
			c.blocks[p].succ = append(c.blocks[p].succ, int32(len(c.edges)))
			c.blocks[s].pred = append(c.blocks[s].pred, int32(len(c.edges)))
			c.edges = append(c.edges, e)
		}
	}
	ne := len(c.edges)
	c.ecost = make([]float64, ne)
	c.bcost = make([]float64, nb)
	c.estamp = make([]int32, ne)
	c.visited = make([]int32, ne)
	c.tstamp = make([]int32, nb)
	c.stats.Edges = ne
	for i := range c.edges {
		if c.edges[i].crit {
			c.stats.Critical++
		}
	}
	return nil
}

// pairs fills e's register pairs and memory moves from the locations.
func (c *copyMotion) pairs(e *cmEdge) error {
	m := c.m
	in, out := m.LiveIn[e.s], m.LiveOut[e.p]
	j := 0
	for i, v := range in {
		for j < len(out) && out[j] < v {
			j++
		}
		if j == len(out) || out[j] != v {
			return fmt.Errorf("alloc: copy motion of %s: value %d is live into b%d but not out of b%d", c.f.Name, v, e.s, e.p)
		}
		from, to := m.End[e.p][j], m.Start[e.s][i]
		switch {
		case from.IsPhys() && to.IsPhys():
			e.pairs = append(e.pairs, cmPair{int32(j), int32(i)})
		case to.IsPhys():
			e.nMem++
		case from.IsPhys():
			if m.EndClean == nil || !m.EndClean[e.p][j] {
				e.nMem++
			}
		}
	}
	return nil
}

// blockTables computes block b's register liveness, constraints and flag
// liveness per position.
func (c *copyMotion) blockTables(b int) {
	f := c.f
	blk := f.Blocks[b]
	n := len(blk.Instrs)
	bk := &c.blocks[b]
	if bk.ready {
		return
	}
	bk.ready = true
	bk.live = make([]mir.RegSet, n+1)
	bk.cons = make([]mir.RegSet, n)
	bk.flags = make([]bool, n+1)
	var l mir.RegSet
	for _, r := range c.m.End[b] {
		if r.IsPhys() {
			l = l.Add(r)
		}
	}
	bk.live[n] = l
	fl := false
	for i := n - 1; i >= 0; i-- {
		in := blk.Instrs[i]
		for _, d := range in.Defs {
			if d.IsPhys() {
				l = l.Remove(d)
			}
		}
		for _, u := range in.Uses {
			if u.IsPhys() {
				l = l.Add(u)
			}
		}
		bk.live[i] = l
		bk.cons[i] = c.constraints(in)
		info := in.Op.Info()
		if info.WritesFlags {
			fl = false
		}
		if info.ReadsFlags {
			fl = true
		}
		bk.flags[i] = fl
	}
}

// allRegs is the constraint set of an instruction no copy may cross.
const allRegs = ^mir.RegSet(0)

// constraints returns the registers in constrains: its fixed operands,
// its clobbers and, for a call, the caller-saved registers. A region
// renamed by π may hold in only if π fixes all of them.
func (c *copyMotion) constraints(in *mir.Instr) mir.RegSet {
	info := in.Op.Info()
	switch in.Op {
	case mir.OpInvalid, mir.OpPhi, mir.OpParCopy:
		return allRegs
	}
	if info.Name == "" || !info.Variadic && (len(in.Defs) != len(info.Defs) || len(in.Uses) != len(info.Uses)) {
		return allRegs
	}
	s := info.Clobbers
	if info.Call {
		s |= mir.CallerSaved
	}
	for k := range in.Defs {
		if r := c.f.DefSpec(in, k).Fixed; r.IsPhys() {
			s = s.Add(r)
		}
	}
	for k := range in.Uses {
		if r := c.f.UseSpec(in, k).Fixed; r.IsPhys() {
			s = s.Add(r)
		}
	}
	return s
}

// edgeMoves returns the current register copy of edge e (in a shared
// buffer): every register pair with both ends renamed.
func (c *copyMotion) edgeMoves(e *cmEdge) []Move {
	bp, ts := &c.blocks[e.p], &c.blocks[e.s]
	moves := c.moveBuf[:0]
	for _, pr := range e.pairs {
		src := bp.bot.Map(c.end0[e.p][pr.out])
		dst := ts.topInv.Map(c.start0[e.s][pr.in])
		moves = append(moves, Move{Dst: dst, Src: src})
	}
	c.moveBuf = moves
	return moves
}

// edgeCost returns the modelled cost of edge e's code.
func (c *copyMotion) edgeCost(ei int32) float64 {
	e := &c.edges[ei]
	code := CopyCost(c.edgeMoves(e)) + e.nMem
	cost := float64(code) * e.freq
	if code > 0 && e.crit {
		cost += c.split * e.freq
	}
	return cost
}

// flagPenalty is the modelled cost of a copy placed between a flag
// producer and its reader (where it would break macro-fusion), so that
// of two equally cheap points the other wins.
const flagPenalty = 1e-3

// placement is where a block's copies go: before instruction top (the
// copy into the block's input names) and before instruction bot (the
// copy out of them); -1 when the block has none.
type placement struct {
	top, bot int
	cost     float64 // in moves per execution of the block
}

// place chooses the points of block b's copies: the cheapest pair (top
// not below bottom; one copy when they meet), or a random one with
// random set. ok is false when the bottom copy cannot cross the block's
// terminator.
func (c *copyMotion) place(b int, random *rand.Rand) (placement, bool) {
	bk := &c.blocks[b]
	pl := placement{top: -1, bot: -1}
	if bk.topID && bk.botID {
		return pl, true
	}
	c.blockTables(b)
	n := len(bk.cons)
	id := IdentityPerm()
	const scratch = mir.RegSet(1<<mir.ScratchGPR | 1<<mir.ScratchXMM)
	inf := math.Inf(1)
	pen := func(pos int) float64 {
		if bk.flags[pos] {
			return flagPenalty
		}
		return 0
	}
	// Valid top points and their costs.
	var ct []float64
	if !bk.topID {
		sup := bk.top.Support()
		ct = fitFloats(&c.ctBuf, n)
		for pos := range n {
			ct[pos] = inf
		}
		limit := n - 1
		if c.opts.NoBlockMotion {
			limit = 0
		}
		limit = min(limit, c.walk)
		for pos := 0; pos <= limit; pos++ {
			if pos > 0 && bk.cons[pos-1]&sup != 0 {
				break
			}
			if bk.live[pos]&scratch != 0 {
				continue
			}
			ct[pos] = float64(permCopyCost(&bk.topInv, &id, bk.live[pos])) + pen(pos)
		}
	}
	var cb []float64
	if !bk.botID {
		sup := bk.bot.Support()
		cb = fitFloats(&c.cbBuf, n)
		for pos := range n {
			cb[pos] = inf
		}
		limit := 0
		if c.opts.NoBlockMotion {
			limit = n - 1
		}
		limit = max(limit, n-c.walk)
		for pos := n - 1; pos >= limit; pos-- {
			if bk.cons[pos]&sup != 0 {
				break
			}
			if bk.live[pos]&scratch != 0 {
				continue
			}
			cb[pos] = float64(permCopyCost(&id, &bk.bot, bk.live[pos])) + pen(pos)
		}
	}
	if random != nil {
		return c.placeRandom(b, ct, cb, random)
	}
	best := inf
	switch {
	case cb == nil:
		for pos, x := range ct {
			if x < best {
				best, pl.top = x, pos
			}
		}
	case ct == nil:
		for pos := n - 1; pos >= 0; pos-- {
			if cb[pos] < best {
				best, pl.bot = cb[pos], pos
			}
		}
	default:
		// prefix[t]: the cheapest top point before t.
		prefix := fitFloats(&c.prefixBuf, n+1)
		if cap(c.argBuf) < n+1 {
			c.argBuf = make([]int, n+1)
		}
		arg := c.argBuf[:n+1]
		prefix[0], arg[0] = inf, -1
		for t := range n {
			prefix[t+1], arg[t+1] = prefix[t], arg[t]
			if ct[t] < prefix[t] {
				prefix[t+1], arg[t+1] = ct[t], t
			}
		}
		for pos := n - 1; pos >= 0; pos-- {
			if math.IsInf(cb[pos], 1) {
				continue
			}
			if x := prefix[pos] + cb[pos]; x < best {
				best, pl.top, pl.bot = x, arg[pos], pos
			}
			if !math.IsInf(ct[pos], 1) {
				x := float64(permCopyCost(&bk.topInv, &bk.bot, bk.live[pos])) + pen(pos)
				if x < best {
					best, pl.top, pl.bot = x, pos, pos
				}
			}
		}
	}
	if math.IsInf(best, 1) {
		return pl, false
	}
	pl.cost = best
	return pl, true
}

// placeRandom picks random valid points for block b's copies.
func (c *copyMotion) placeRandom(b int, ct, cb []float64, r *rand.Rand) (placement, bool) {
	pl := placement{top: -1, bot: -1}
	pick := func(costs []float64, hi int) int {
		var ok []int
		for pos := 0; pos <= hi && pos < len(costs); pos++ {
			if !math.IsInf(costs[pos], 1) {
				ok = append(ok, pos)
			}
		}
		if len(ok) == 0 {
			return -1
		}
		return ok[r.IntN(len(ok))]
	}
	if cb != nil {
		if pl.bot = pick(cb, len(cb)-1); pl.bot < 0 {
			return pl, false
		}
	}
	if ct != nil {
		hi := len(ct) - 1
		if pl.bot >= 0 {
			hi = pl.bot
		}
		if pl.top = pick(ct, hi); pl.top < 0 {
			return pl, false
		}
	}
	return pl, true
}

// blockCost returns the modelled cost of block b's copies, +Inf when they
// cannot be placed.
func (c *copyMotion) blockCost(b int32) float64 {
	pl, ok := c.place(int(b), nil)
	if !ok {
		return math.Inf(1)
	}
	return pl.cost * c.f.Blocks[b].Freq
}

// before records the state before any motion.
func (c *copyMotion) before() {
	for i := range c.edges {
		e := &c.edges[i]
		c.ecost[i] = c.edgeCost(int32(i))
		k := CopyCost(c.edgeMoves(e))
		c.stats.MovesBefore += k
		c.stats.WeightedMovesBefore += float64(k) * e.freq
		if e.crit && k+e.nMem > 0 {
			c.stats.SplitsBefore++
			c.stats.WeightedSplitsBefore += e.freq
		}
		c.stats.CostBefore += c.ecost[i]
	}
}

// cmQueue is the worklist: unsplittable edges first, then by decreasing
// frequency, then by edge number.
type cmQueue struct {
	c     *copyMotion
	items []int32
}

func (q *cmQueue) Len() int { return len(q.items) }
func (q *cmQueue) Less(i, j int) bool {
	a, b := &q.c.edges[q.items[i]], &q.c.edges[q.items[j]]
	if a.unsplit != b.unsplit {
		return a.unsplit
	}
	if a.freq != b.freq {
		return a.freq > b.freq
	}
	return q.items[i] < q.items[j]
}
func (q *cmQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *cmQueue) Push(x any)    { q.items = append(q.items, x.(int32)) }
func (q *cmQueue) Pop() any {
	x := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return x
}

// drive runs the local heuristic's worklist.
func (c *copyMotion) drive() {
	q := &cmQueue{c: c}
	inq := make([]bool, len(c.edges))
	for i := range c.edges {
		if CopyCost(c.edgeMoves(&c.edges[i])) > 0 {
			q.items = append(q.items, int32(i))
			inq[i] = true
		}
	}
	heap.Init(q)
	limit := 8*len(c.edges) + 64
	unsolved := make(map[int32]bool)
	for q.Len() > 0 && c.stats.Steps < limit {
		ei := heap.Pop(q).(int32)
		inq[ei] = false
		c.stats.Steps++
		e := &c.edges[ei]
		moves := c.edgeMoves(e)
		if CopyCost(moves) == 0 {
			continue
		}
		if CheckReversible(moves) != nil {
			c.stats.Irreversible++
			continue
		}
		type option struct {
			dir  int
			gain float64
		}
		var opts []option
		for _, dir := range [2]int{cmUp, cmDown} {
			if ok, gain := c.try(ei, dir, false); ok {
				opts = append(opts, option{dir, gain})
			}
		}
		chosen := -1
		switch {
		case c.opts.Rand != nil:
			n := len(opts)
			if !e.unsplit {
				n++ // leaving the copy on the edge
			}
			if n > 0 {
				if k := c.opts.Rand.IntN(n); k < len(opts) {
					chosen = opts[k].dir
				}
			}
		default:
			bestGain := 1e-9
			if e.unsplit {
				bestGain = math.Inf(-1)
			}
			for _, o := range opts {
				if o.gain > bestGain {
					bestGain, chosen = o.gain, o.dir
				}
			}
		}
		if chosen < 0 {
			continue
		}
		if ok, _ := c.try(ei, chosen, true); !ok {
			continue
		}
		if chosen == cmUp {
			c.stats.Up++
		} else {
			c.stats.Down++
		}
		if e.unsplit {
			c.stats.Forced++
		}
		for _, a := range c.affected {
			if !inq[a] && CopyCost(c.edgeMoves(&c.edges[a])) > 0 {
				heap.Push(q, a)
				inq[a] = true
			}
		}
	}
	for i := range c.edges {
		e := &c.edges[i]
		if e.unsplit && CopyCost(c.edgeMoves(e)) > 0 && !unsolved[int32(i)] {
			unsolved[int32(i)] = true
			c.stats.Unsolved = append(c.stats.Unsolved, MotionEdge{int(e.p), int(e.s)})
		}
	}
}

// try applies the motion of edge ei's copy in direction dir, moving the
// copies it leaves on unsplittable siblings on, and returns whether it is
// feasible and its modelled gain. Unless commit is set (and it is
// feasible) the motion is undone.
func (c *copyMotion) try(ei int32, dir int, commit bool) (bool, float64) {
	c.undo = c.undo[:0]
	c.touched = c.touched[:0]
	c.stamp++
	ok := c.move(ei, dir)
	gain := 0.0
	c.affected = c.affected[:0]
	newB, newE := c.newB[:0], c.newE[:0]
	defer func() { c.newB, c.newE = newB, newE }()
	if ok {
		before, after := 0.0, 0.0
		for _, b := range c.touched {
			nc := c.blockCost(b)
			if math.IsInf(nc, 1) {
				ok = false
				break
			}
			before += c.bcost[b]
			after += nc
			newB = append(newB, nc)
		}
		if ok {
			for _, b := range c.touched {
				for _, list := range [2][]int32{c.blocks[b].succ, c.blocks[b].pred} {
					for _, e := range list {
						if c.estamp[e] == c.stamp {
							continue
						}
						c.estamp[e] = c.stamp
						nc := c.edgeCost(e)
						before += c.ecost[e]
						after += nc
						c.affected = append(c.affected, e)
						newE = append(newE, nc)
					}
				}
			}
		}
		gain = before - after
	}
	if !ok || !commit {
		c.rollback()
		return ok, gain
	}
	for i, b := range c.touched {
		c.bcost[b] = newB[i]
	}
	for i, e := range c.affected {
		c.ecost[e] = newE[i]
	}
	return true, gain
}

// rollback undoes the permutation changes of the current try.
func (c *copyMotion) rollback() {
	for i := len(c.undo) - 1; i >= 0; i-- {
		u := &c.undo[i]
		bk := &c.blocks[u.block]
		if u.bot {
			bk.bot, bk.botID = u.perm, u.wasID
		} else {
			bk.top, bk.topInv, bk.topID = u.perm, u.inv, u.wasID
		}
	}
	c.undo = c.undo[:0]
}

// touch records that block b's copies change in the current try.
func (c *copyMotion) touch(b int32) {
	if c.tstamp[b] != c.stamp {
		c.tstamp[b] = c.stamp
		c.touched = append(c.touched, b)
	}
}

// move moves edge ei's copy in direction dir, and the copies this leaves
// on unsplittable siblings in the opposite direction, recursively. It
// fails on an irreversible copy, a motion into the entry block, and a
// cycle of unsplittable siblings.
func (c *copyMotion) move(ei int32, dir int) bool {
	e := &c.edges[ei]
	c.visited[ei] = c.stamp
	moves := c.edgeMoves(e)
	if CopyCost(moves) == 0 {
		return true
	}
	pi, err := Expand(moves)
	if err != nil || pi.Support()&^mir.Allocatable != 0 {
		return false
	}
	var siblings []int32
	if dir == cmUp {
		bk := &c.blocks[e.p]
		c.undo = append(c.undo, cmUndo{block: e.p, bot: true, perm: bk.bot, wasID: bk.botID})
		bk.bot = bk.bot.Then(&pi)
		bk.botID = bk.bot.IsIdentity()
		c.touch(e.p)
		siblings = bk.succ
	} else {
		if e.s == 0 {
			return false // the function's entry is an edge too
		}
		bk := &c.blocks[e.s]
		c.undo = append(c.undo, cmUndo{block: e.s, perm: bk.top, inv: bk.topInv, wasID: bk.topID})
		bk.top = pi.Then(&bk.top)
		bk.topInv = bk.top.Inverse()
		bk.topID = bk.top.IsIdentity()
		c.touch(e.s)
		siblings = bk.pred
	}
	for _, s := range siblings {
		if s == ei || !c.edges[s].unsplit || CopyCost(c.edgeMoves(&c.edges[s])) == 0 {
			continue
		}
		if c.visited[s] == c.stamp {
			return false // a cycle of unsplittable siblings
		}
		if !c.move(s, 1-dir) {
			return false
		}
	}
	return true
}

// emit rewrites the blocks: copies inserted at their points, regions
// renamed, locations updated; and finishes the statistics.
func (c *copyMotion) emit() error {
	f, m := c.f, c.m
	for b, blk := range f.Blocks {
		bk := &c.blocks[b]
		if bk.topID && bk.botID {
			continue
		}
		pl, ok := c.place(b, c.opts.Rand)
		if !ok {
			return fmt.Errorf("alloc: copy motion of %s: b%d: no point for its copies", f.Name, b)
		}
		n := len(blk.Instrs)
		if pl.top > 0 {
			c.stats.Moved++
		}
		if pl.bot >= 0 && pl.bot < n-1 {
			c.stats.Moved++
		}
		out := make([]*mir.Instr, 0, n+8)
		var org []int32
		if m.Origins != nil {
			org = make([]int32, 0, n+8)
		}
		insert := func(pos int, moves []Move) error {
			if len(moves) == 0 {
				return nil
			}
			seq, err := Sequentialize(moves)
			if err != nil {
				return fmt.Errorf("alloc: copy motion of %s: b%d: %w", f.Name, b, err)
			}
			for _, in := range seq {
				out = append(out, f.NewInstr(*in))
				if org != nil {
					org = append(org, -1)
				}
			}
			c.stats.BlockCopies++
			w := CopyCost(moves)
			c.stats.MovesAfter += w
			c.stats.WeightedMovesAfter += float64(w) * blk.Freq
			c.stats.CostAfter += float64(w) * blk.Freq
			return nil
		}
		for i, in := range blk.Instrs {
			if i == pl.top || i == pl.bot {
				var moves []Move
				for _, x := range bk.live[i].Regs() {
					src, dst := x, x
					if i == pl.top {
						src = bk.topInv.Map(x)
					}
					if i == pl.bot {
						dst = bk.bot.Map(x)
					}
					if src != dst {
						moves = append(moves, Move{Dst: dst, Src: src})
					}
				}
				if err := insert(i, moves); err != nil {
					return err
				}
			}
			switch {
			case pl.top >= 0 && i < pl.top:
				in = c.rename(in, &bk.topInv)
			case pl.bot >= 0 && i >= pl.bot:
				in = c.rename(in, &bk.bot)
			}
			out = append(out, in)
			if org != nil {
				org = append(org, m.Origins[b][i])
			}
		}
		blk.Instrs = out
		if org != nil {
			m.Origins[b] = org
		}
		for j, r := range c.end0[b] {
			m.End[b][j] = bk.bot.Map(r)
		}
		for i, r := range c.start0[b] {
			m.Start[b][i] = bk.topInv.Map(r)
		}
	}
	for i := range c.edges {
		e := &c.edges[i]
		k := CopyCost(c.edgeMoves(e))
		c.stats.MovesAfter += k
		c.stats.WeightedMovesAfter += float64(k) * e.freq
		if e.crit && k+e.nMem > 0 {
			c.stats.SplitsAfter++
			c.stats.WeightedSplitsAfter += e.freq
		}
		c.stats.CostAfter += c.edgeCost(int32(i))
	}
	return nil
}

// rename returns in with every physical register r replaced by p[r]: in
// itself when nothing changes, else a new instruction of f.
func (c *copyMotion) rename(in *mir.Instr, p *Perm) *mir.Instr {
	changed := false
	for _, rs := range [2][]mir.Reg{in.Defs, in.Uses} {
		for _, r := range rs {
			if p.Map(r) != r {
				changed = true
			}
		}
	}
	if !changed {
		return in
	}
	cp := *in
	cp.Defs = make([]mir.Reg, len(in.Defs))
	cp.Uses = make([]mir.Reg, len(in.Uses))
	for k, r := range in.Defs {
		cp.Defs[k] = p.Map(r)
	}
	for k, r := range in.Uses {
		cp.Uses[k] = p.Map(r)
	}
	return c.f.NewInstr(cp)
}
