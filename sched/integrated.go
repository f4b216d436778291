package sched

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// loc is where a value is during the pass: a physical register (>= 0),
// its memory location (its stack slot, or nowhere for a value that is
// recomputed), or nowhere (not live).
type loc int16

const (
	locNone loc = -1
	locMem  loc = -2
)

func (l loc) isReg() bool  { return l >= 0 }
func (l loc) reg() mir.Reg { return mir.Reg(l) }

// errInternal marks failures that are bugs of the pass, not of the input.
var errInternal = errors.New("sched: internal error")

// allocator is the state of the integrated pass over one function.
type allocator struct {
	f     *mir.Func // input
	out   *mir.Func // output
	opts  Options
	model *Model
	d     *dataflow
	gb    *graphBuilder
	rs    readyState
	stats Stats
	// cut is the spill placement's minimum-cut problem, reset for each
	// problem it solves (see cutProblem).
	cut *MinCutProblem
	// ed holds the arrays of the victim oracle's analysis.
	ed *edArena
	// spilled is spilledDefs's result and storage.
	spilled spilledSet
	// The load problem's graph and value-holders analysis (placeReloads),
	// and the stores of each value (placeStores), kept for their storage.
	loads      loadGraph
	holders    valueHolders
	storeStart []int32
	storeList  []placeAt
	storeRecs  []valueRec[placeAt]

	caller, callee [3][]mir.Reg // allowed registers per class, in preference order
	allowed        mir.RegSet
	calleeUsed     mir.RegSet
	entryFreq      float64

	processed []bool
	// Where each block's live-ins are at its start (startBuf, parallel to
	// the dataflow's inRegs: startLocOf), and its live-outs at its end
	// (endBuf, parallel to outRegs: endLocOf), and whether their stack
	// slots hold them there (cleanBuf: endCleanOf).
	startBuf, endBuf []loc
	cleanBuf         []bool
	// headerHints caches the hints of the values live into each loop
	// header (headerDone: computed).
	headerHints []mir.RegSet
	headerDone  []bool
	// hinted holds the hints of the region's live-in and live-out values
	// and of the values live into the header of its innermost loop.
	hinted mir.RegSet

	// Region state.
	b        int
	block    *mir.Block
	holder   [mir.NumPhysRegs]int32
	reserved [mir.NumPhysRegs]int32
	// vs is the state of each value (virtual register); pref its
	// preferred locations in the current region.
	vs         []vstate
	pref       [][]loc
	regionMark int32
	locked     mir.RegSet
	callsDone  int32
	// next-use lists of the region: vs[v].useHead indexes usePos and
	// useNext.
	usePos   []int32
	useNext  []int32
	instDone []bool
	// doneTree counts the taken instructions (a Fenwick tree over input
	// positions); cur is the instruction being allocated (-1: none yet),
	// after says its sources have been read (victim_distance.go).
	doneTree []int32
	cur      int32
	after    bool

	code   []*mir.Instr
	origin []int32
	// per output block
	codes   [][]*mir.Instr
	origins [][]int32

	// Scratch buffers reused between instructions and spill choices.
	useBuf, defBuf []mir.Reg
	// vdefBuf keeps the defined values of an instruction rewritten in
	// place (Options.InPlace).
	vdefBuf []mir.Reg
	cands   []SpillCandidate
	succBuf []SuccLocation
	// posBuf holds, per processed predecessor, live-in positions in its
	// live-outs; nbBuf the neighbours processedNeighbours returns (valid
	// until its next call), nbSort its scratch.
	posBuf [][]int32
	nbBuf  []int
	nbSort []neighbour
	// succList and predList hold each block's distinct successors and
	// predecessors with their edge frequencies, block b's from
	// succStart[b] and predStart[b] (buildNeighbours; succsOf, predsOf);
	// nbAt is scratch.
	succStart, predStart []int32
	succList, predList   []neighbour
	nbAt                 []int32
	// sunk marks, per block, the live-in values reloaded at its top
	// (sinkReloads); no entry for a block with none.
	sunk map[int32][]bool
	// regionCycles is each region's schedule length in the model, and
	// regionBody the same without its terminator.
	regionCycles, regionBody []int32
}

// vstate is what the pass knows of one value (virtual register). The
// fields from loc to useHead belong to the region numbered mark and are
// reset when a region first touches the value; home and hint hold for the
// whole function.
type vstate struct {
	mark     int32
	loc      loc
	clean    bool // its stack slot holds its current value
	liveOut  bool // its current value is live at the region's end
	usesLeft int32
	useHead  int32
	// home is its stack slot (NoReg until it needs one); hint the
	// register it had where it was first placed.
	home, hint mir.Reg
}

// allocators keeps allocators (their tables and working storage) between
// compiles: a JIT compiles many functions, and reusing the storage makes a
// compile allocate little more than its output.
var allocators = sync.Pool{New: func() any { return new(allocator) }}

// newAllocator returns an allocator for f, taken from the pool; release
// gives it back.
func newAllocator(f *mir.Func, opts Options) (*allocator, error) {
	a := allocators.Get().(*allocator)
	keep := *a
	*a = allocator{f: f, opts: opts, model: opts.Model}
	// The storage kept between compiles.
	a.d = keep.d
	if a.d == nil {
		a.d = new(dataflow)
	}
	a.gb = keep.gb
	a.rs = keep.rs
	a.vs, a.pref = keep.vs, keep.pref
	a.processed = keep.processed
	a.startBuf, a.endBuf, a.cleanBuf = keep.startBuf, keep.endBuf, keep.cleanBuf
	a.regionCycles, a.regionBody = keep.regionCycles, keep.regionBody
	a.headerHints, a.headerDone = keep.headerHints, keep.headerDone
	a.usePos, a.useNext, a.instDone = keep.usePos, keep.useNext, keep.instDone
	a.useBuf, a.defBuf, a.cands, a.succBuf, a.posBuf = keep.useBuf, keep.defBuf, keep.cands, keep.succBuf, keep.posBuf
	a.vdefBuf = keep.vdefBuf
	a.cut, a.ed = keep.cut, keep.ed
	a.spilled, a.loads, a.holders = keep.spilled, keep.loads, keep.holders
	a.storeStart, a.storeList, a.storeRecs = keep.storeStart, keep.storeList, keep.storeRecs
	a.nbBuf, a.nbSort, a.nbAt = keep.nbBuf, keep.nbSort, keep.nbAt
	a.succStart, a.predStart, a.succList, a.predList = keep.succStart, keep.predStart, keep.succList, keep.predList
	a.allowed = opts.Regs
	// The allowed registers per class, in the order the pass tries them.
	for c := range a.caller {
		a.caller[c], a.callee[c] = keep.caller[c][:0], keep.callee[c][:0]
		for _, r := range mir.CallerSavedOrder[c] {
			if a.allowed.Has(r) {
				a.caller[c] = append(a.caller[c], r)
			}
		}
		for _, r := range mir.CalleeSavedOrder[c] {
			if a.allowed.Has(r) {
				a.callee[c] = append(a.callee[c], r)
			}
		}
	}
	for _, c := range []mir.Class{mir.GPR, mir.XMM} {
		if len(a.caller[c])+len(a.callee[c]) == 0 {
			for _, cl := range f.VRegs {
				if cl == c {
					a.release()
					return nil, fmt.Errorf("sched: %s: no %s register may be allocated", f.Name, c)
				}
			}
		}
	}
	nv := len(f.VRegs)
	a.vs = fit(a.vs, nv)
	a.pref = fit(a.pref, nv)
	for i := range a.vs {
		a.vs[i] = vstate{loc: locNone, home: mir.NoReg, hint: mir.NoReg, useHead: -1}
		a.pref[i] = a.pref[i][:0]
	}
	for i := range a.holder {
		a.holder[i], a.reserved[i] = -1, -1
	}
	a.entryFreq = f.Blocks[0].Freq
	a.buildNeighbours()
	return a, nil
}

// cutProblem returns the allocator's minimum-cut problem, whose solvers'
// storage is kept between problems and compiles.
func (a *allocator) cutProblem() *MinCutProblem {
	if a.cut == nil {
		a.cut = new(MinCutProblem)
		a.cut.reset(2, 0, 1)
	}
	return a.cut
}

// maxPooledInstrs is the size of the largest function whose allocator
// goes back to the pool: the storage of a huge function's compile is left
// to the garbage collector rather than kept for the next compile.
const maxPooledInstrs = 1 << 15

// maxPooledArena is the size in bytes of the largest victim-oracle
// analysis arena the pool keeps.
const maxPooledArena = 16 << 20

// pooledSize reports whether the storage of f's compile is kept for the
// next compile.
func pooledSize(f *mir.Func) bool {
	return len(f.VRegs) <= maxPooledInstrs && f.NumInstrs() <= maxPooledInstrs
}

// release returns the allocator to the pool. Nothing it returned may refer
// to its storage.
func (a *allocator) release() {
	pool := a.f == nil || pooledSize(a.f)
	a.f, a.out, a.block, a.code, a.origin, a.codes, a.origins = nil, nil, nil, nil, nil, nil, nil
	a.opts = Options{}
	a.gb.f = nil
	a.d.f = nil
	if a.ed != nil && a.ed.size() > maxPooledArena {
		a.ed = nil // a huge analysis's arrays are not kept
	}
	// The kept storage must not hold on to the functions.
	if a.ed != nil {
		a.ed.solver.a, a.ed.solver.w = nil, nil
	}
	a.loads.f, a.holders.f = nil, nil
	if a.loads.touches != nil {
		a.loads.touches.f = nil
	}
	if pool {
		allocators.Put(a)
	}
}

// setup runs the analyses and prepares the tables of the pass.
func (a *allocator) setup() {
	f := a.f
	a.d.analyze(f)
	a.stats.DataflowRuns++
	a.stats.Instrs = f.NumInstrs()
	a.out = &mir.Func{Name: f.Name, Index: f.Index, Params: slices.Clone(f.Params),
		Results: slices.Clone(f.Results), Form: mir.FormAllocated}
	nb := len(f.Blocks)
	a.processed = zeroed(a.processed, nb)
	// Start and end locations of all blocks share three buffers.
	a.startBuf = fit(a.startBuf, len(a.d.inRegs))
	a.endBuf = fit(a.endBuf, len(a.d.outRegs))
	a.cleanBuf = fit(a.cleanBuf, len(a.d.outRegs))
	if !a.opts.InPlace {
		a.codes = make([][]*mir.Instr, nb) // in place, each block holds its own (setCode)
	}
	a.origins = make([][]int32, nb)
	if a.gb == nil {
		a.gb = new(graphBuilder)
	}
	a.gb.reset(f, a.model)
	a.regionCycles = zeroed(a.regionCycles, nb)
	a.regionBody = zeroed(a.regionBody, nb)
	a.headerHints = fit(a.headerHints, nb)
	a.headerDone = zeroed(a.headerDone, nb)
}

// startLocOf returns where block b's live-ins are at its start, parallel
// to the dataflow's liveInOf(b).
func (a *allocator) startLocOf(b int) []loc {
	return span(a.startBuf, a.d.inStart, b)
}

// endLocOf returns where block b's live-outs are at its end, parallel to
// the dataflow's liveOutOf(b).
func (a *allocator) endLocOf(b int) []loc {
	return span(a.endBuf, a.d.outStart, b)
}

// endCleanOf returns, parallel to endLocOf(b), whether each live-out's
// stack slot holds its value at block b's end.
func (a *allocator) endCleanOf(b int) []bool {
	return span(a.cleanBuf, a.d.outStart, b)
}

// touch makes v part of the region's state.
func (a *allocator) touch(v int32) {
	if x := &a.vs[v]; x.mark != a.regionMark {
		x.mark = a.regionMark
		x.loc = locNone
		x.clean, x.liveOut = false, false
		x.usesLeft, x.useHead = 0, -1
		if len(a.pref[v]) > 0 {
			a.pref[v] = a.pref[v][:0]
		}
	}
}

// neighbour is a distinct successor (or predecessor) of a block, with the
// expected executions per call of the parallel edges between the two
// (summed) and their number.
type neighbour struct {
	block int32
	edges int32
	freq  float64
}

// buildNeighbours fills the neighbour lists: every block's distinct
// successors and predecessors, in the order of their first edge. A block
// ending in a switch of thousands of cases, or a join of thousands of
// predecessors, then costs the pass time linear in its edges.
func (a *allocator) buildNeighbours() {
	blocks := a.f.Blocks
	nb := len(blocks)
	at := zeroed(a.nbAt, nb) // position of a block in the list being built, +1
	succStart := fit(a.succStart, nb+1)
	nsucc := 0
	for _, pb := range blocks {
		nsucc += len(pb.Succs)
	}
	succs := a.succList[:0]
	if cap(succs) < nsucc {
		succs = make([]neighbour, 0, nsucc) // room for every edge: no regrowth
	}
	for p, pb := range blocks {
		succStart[p] = int32(len(succs))
		first := len(succs)
		for k, s := range pb.Succs {
			if at[s] == 0 {
				succs = append(succs, neighbour{block: int32(s)})
				at[s] = int32(len(succs) - first)
			}
			n := &succs[first+int(at[s])-1]
			n.freq += pb.Freq * pb.SuccProb[k]
			n.edges++
		}
		for _, n := range succs[first:] {
			at[n.block] = 0
		}
	}
	succStart[nb] = int32(len(succs))
	// Predecessors: the successor lists transposed, in block order.
	predStart := zeroed(a.predStart, nb+1)
	for _, n := range succs {
		predStart[n.block+1]++
	}
	for b := range nb {
		predStart[b+1] += predStart[b]
	}
	preds := fit(a.predList, len(succs))
	fill := at // all zero again: the fill count of each block's list
	for p := range nb {
		for _, n := range succs[succStart[p]:succStart[p+1]] {
			preds[predStart[n.block]+fill[n.block]] = neighbour{block: int32(p), freq: n.freq, edges: n.edges}
			fill[n.block]++
		}
	}
	clear(fill)
	a.succStart, a.succList, a.predStart, a.predList, a.nbAt = succStart, succs, predStart, preds, at
}

// succsOf returns block b's distinct successors (buildNeighbours).
func (a *allocator) succsOf(b int) []neighbour {
	return span(a.succList, a.succStart, b)
}

// predsOf returns block b's distinct predecessors (buildNeighbours).
func (a *allocator) predsOf(b int) []neighbour {
	return span(a.predList, a.predStart, b)
}

// region runs the integrated scheduling and register assignment over block
// b (thesis Fig 5.2).
func (a *allocator) region(bi int) error {
	if b := a.f.Blocks[bi]; len(b.Instrs) == 1 && len(a.d.liveInOf(bi)) == 0 && b.Instrs[0].Op == mir.OpTRAP {
		// A block that only traps (a failed check): nothing to allocate.
		in := b.Instrs[0]
		if !a.opts.InPlace {
			in = a.out.NewInstr(*in)
		}
		a.setCode(bi, []*mir.Instr{in})
		a.origins[bi] = []int32{0}
		a.regionCycles[bi], a.regionBody[bi] = 1, 0
		a.stats.Cycles++
		a.stats.WeightedCycles += b.Freq
		return nil
	}
	a.beginRegion(bi)
	d := a.d
	instrs := a.block.Instrs
	a.preferredLocations()
	if err := a.startLocations(); err != nil {
		return err
	}
	// A self-loop: the region's start locations are where its live-outs
	// should end.
	for _, s := range a.block.Succs {
		if s == bi {
			starts := a.startLocOf(bi)
			for i, v := range d.liveInOf(bi) {
				if l := starts[i]; l != locNone && d.outIndex(bi, v) >= 0 {
					a.pref[v] = prependLoc(a.pref[v], l)
				}
			}
			break
		}
	}

	start := argPrefix(instrs)
	for i := range start {
		if err := a.allocArg(i, instrs[i]); err != nil {
			return err
		}
		a.markDone(i)
	}
	g := a.gb.build(instrs, start, true)
	if err := a.scheduleRegion(g, instrs); err != nil {
		return err
	}

	// End locations.
	ends, cleans := a.endLocOf(bi), a.endCleanOf(bi)
	for i, v := range d.liveOutOf(bi) {
		l := a.vs[v].loc
		if a.vs[v].mark != a.regionMark || l == locNone {
			return fmt.Errorf("%w: v%d is live out but has no location", errInternal, v)
		}
		ends[i] = l
		cleans[i] = a.vs[v].clean || d.remat[v].ok
	}
	a.setCode(bi, slices.Clone(a.code))
	a.origins[bi] = slices.Clone(a.origin)
	return nil
}

// setCode records the code of region bi: in place (Options.InPlace), as
// the input block's instructions at once, so that the input's
// instruction list is dropped block by block (the pass reads a region's
// input instructions only while it is processed, and the distance
// oracles keep what they need of them).
func (a *allocator) setCode(bi int, code []*mir.Instr) {
	if a.opts.InPlace {
		a.f.Blocks[bi].Instrs = code
		return
	}
	a.codes[bi] = code
}

// beginRegion resets the per-region state for block bi and records the
// uses of its values.
func (a *allocator) beginRegion(bi int) {
	a.b, a.block = bi, a.f.Blocks[bi]
	a.regionMark++
	for i := range a.holder {
		a.holder[i], a.reserved[i] = -1, -1
	}
	a.callsDone = 0
	// The region's code is built in reused buffers and copied out at its
	// size when the region is done.
	a.code, a.origin = a.code[:0], a.origin[:0]
	a.buildUseLists(a.block.Instrs)
	a.hinted = 0
	if !a.opts.NoHints {
		for _, list := range [2][]int32{a.d.liveInOf(bi), a.d.liveOutOf(bi)} {
			for _, v := range list {
				if h := a.vs[v].hint; h != mir.NoReg {
					a.hinted = a.hinted.Add(h)
				}
			}
		}
		// The hints of the values live into the innermost loop's header,
		// computed once per header after it is processed (the loop body
		// follows it in DFS-down order).
		if h := a.d.header[bi]; h >= 0 && a.processed[h] {
			if !a.headerDone[h] {
				a.headerDone[h] = true
				var set mir.RegSet
				for _, v := range a.d.liveInOf(int(h)) {
					if r := a.vs[v].hint; r != mir.NoReg {
						set = set.Add(r)
					}
				}
				a.headerHints[h] = set
			}
			a.hinted |= a.headerHints[h]
		}
	}
}

// prependLoc moves (or adds) l to the front of list.
func prependLoc(list []loc, l loc) []loc {
	for i, x := range list {
		if x == l {
			copy(list[1:i+1], list[:i])
			list[0] = l
			return list
		}
	}
	list = append(list, 0)
	copy(list[1:], list)
	list[0] = l
	return list
}

// processedNeighbours returns the processed blocks among blocks (without
// repeats) by decreasing frequency of the edge to them, ties by block
// number.
func (a *allocator) processedNeighbours(list []neighbour) []int {
	sorted := a.nbSort[:0]
	for _, n := range list {
		if a.processed[n.block] {
			sorted = append(sorted, n)
		}
	}
	slices.SortFunc(sorted, func(x, y neighbour) int {
		switch {
		case x.freq > y.freq:
			return -1
		case x.freq < y.freq:
			return 1
		}
		return int(x.block - y.block)
	})
	out := a.nbBuf[:0]
	for _, n := range sorted {
		out = append(out, int(n.block))
	}
	a.nbBuf, a.nbSort = out, sorted
	return out
}

// preferredLocations computes, for every value live out of the region,
// its locations at the start of the processed successors, by decreasing
// edge frequency (thesis §5.3.1).
func (a *allocator) preferredLocations() {
	bi, d := a.b, a.d
	succs := a.processedNeighbours(a.succsOf(bi))
	for _, v := range d.liveOutOf(bi) {
		a.touch(v)
	}
	// A successor's live-ins are live out of the region.
	for _, s := range succs {
		for i, v := range d.liveInOf(s) {
			l := a.startLocOf(s)[i]
			if !slices.Contains(a.pref[v], l) {
				a.pref[v] = append(a.pref[v], l)
			}
		}
	}
}

// outPositions fills pos with the position in block p's live-out list of
// each register of in (sorted), or -1, by one merge of the two lists.
func (a *allocator) outPositions(p int, in []int32, pos []int32) []int32 {
	out := a.d.liveOutOf(p)
	pos = fit(pos, len(in))
	j := 0
	for i, v := range in {
		for j < len(out) && out[j] < v {
			j++
		}
		pos[i] = -1
		if j < len(out) && out[j] == v {
			pos[i] = int32(j)
		}
	}
	return pos
}

// startLocations decides where each live-in value starts the region
// (thesis §5.3.2, Fig 5.4): where the most frequent processed predecessor
// left it when that is a register, or memory when it is in memory there and
// not used in the region; a value in memory there but used here takes a
// register it has in another processed predecessor, or any register.
func (a *allocator) startLocations() error {
	bi, d := a.b, a.d
	in := d.liveInOf(bi)
	infos := d.inInfoOf(bi)
	starts := a.startLocOf(bi)
	for i := range starts {
		starts[i] = locNone
	}
	// A region whose only predecessor is processed (most often the
	// continuation after a bounds or trap check) starts where that
	// predecessor ends: a value it left in memory is reloaded at its first
	// use here, which runs exactly as often as a load on the edge would.
	if ps := a.block.Preds; len(ps) == 1 && a.processed[ps[0]] {
		p := ps[0]
		out, ends, cleans := d.liveOutOf(p), a.endLocOf(p), a.endCleanOf(p)
		j := 0
		for i, v := range in {
			for out[j] < v {
				j++
			}
			a.touch(v)
			a.vs[v].usesLeft = infos[i].uses
			a.vs[v].liveOut = infos[i].through
			l := ends[j]
			starts[i] = l
			a.vs[v].loc = l
			a.vs[v].clean = cleans[j]
			if l.isReg() {
				a.holder[l] = v
			}
		}
		return nil
	}
	preds := a.processedNeighbours(a.predsOf(bi))
	// Where each live-in sits in each processed predecessor's live-outs.
	a.posBuf = fit(a.posBuf, len(preds))
	for k, p := range preds {
		a.posBuf[k] = a.outPositions(p, in, a.posBuf[k])
	}
	endAtK := func(k, i int) loc {
		if j := a.posBuf[k][i]; j >= 0 {
			return a.endLocOf(preds[k])[j]
		}
		return locNone
	}
	set := func(i int, l loc) {
		v := in[i]
		starts[i] = l
		a.vs[v].loc = l
		if l.isReg() {
			a.holder[l] = v
			if a.vs[v].hint == mir.NoReg {
				a.vs[v].hint = l.reg()
			}
		}
	}
	for i, v := range in {
		a.touch(v)
		a.vs[v].usesLeft = infos[i].uses
		a.vs[v].liveOut = infos[i].through
	}
	// Pass 1: registers of the most frequent processed predecessor.
	var pending []int
	for i, v := range in {
		if len(preds) == 0 {
			pending = append(pending, i)
			continue
		}
		switch e := endAtK(0, i); {
		case e.isReg():
			set(i, e)
		case infos[i].uses == 0:
			set(i, locMem)
			a.vs[v].clean = !a.d.remat[v].ok
		default:
			pending = append(pending, i)
		}
	}
	// Pass 2: values used here that the most frequent predecessor left in
	// memory (or with no predecessor processed): a register they have in
	// another processed predecessor, else the normal selection. Values
	// with uses come first, by their first use.
	slices.SortStableFunc(pending, func(x, y int) int {
		ux, uy := infos[x].uses > 0, infos[y].uses > 0
		if ux != uy {
			if ux {
				return -1
			}
			return 1
		}
		return a.nextUseOrEnd(in[x]) - a.nextUseOrEnd(in[y])
	})
	for _, i := range pending {
		v := in[i]
		l := locNone
		for k := range preds {
			if e := endAtK(k, i); e.isReg() && a.holder[e] < 0 && a.canHold(v, e.reg()) {
				l = e
				break
			}
		}
		if l == locNone {
			if r, ok := a.freeReg(v, 0); ok {
				l = loc(r)
			}
		}
		if l == locNone {
			// Out of registers: the spill heuristic decides between this
			// value and those already given a register.
			l = a.liveInVictim(i, in, infos, starts)
		}
		set(i, l)
		if l == locMem {
			a.vs[v].clean = !a.d.remat[v].ok
			a.needHome(v)
		}
	}
	return nil
}

// nextUseOrEnd returns the input position of v's next use in the region,
// or a large number when there is none.
func (a *allocator) nextUseOrEnd(v int32) int {
	if p := a.nextUse(v); p >= 0 {
		return p
	}
	return 1 << 30
}

// liveInVictim decides, when no register is left for live-in i, whether
// it starts in memory or takes the register of a live-in already placed,
// which then starts in memory.
func (a *allocator) liveInVictim(i int, in []int32, infos []liveInInfo, starts []loc) loc {
	v := in[i]
	c := a.f.VRegs[v]
	cands := a.cands[:0]
	a.succBuf = a.succBuf[:0]
	var idx []int
	for j, l := range starts {
		if j == i || !l.isReg() || l.reg().Class() != c || !a.canHold(v, l.reg()) {
			continue
		}
		cands = append(cands, a.candidate(in[j], l.reg()))
		idx = append(idx, j)
	}
	if len(cands) == 0 {
		return locMem
	}
	cands = append(cands, a.candidate(v, mir.NoReg))
	a.cands = cands
	k := a.opts.Victim.Victim(a.b, 0, cands)
	if k < 0 || k >= len(idx) {
		return locMem
	}
	j := idx[k]
	l := starts[j]
	w := in[j]
	starts[j] = locMem
	a.vs[w].loc = locMem
	a.vs[w].clean = !a.d.remat[w].ok
	a.needHome(w)
	a.holder[l] = -1
	return l
}

// canHold reports whether value v may live in register r: a pinned value
// only in its pin.
func (a *allocator) canHold(v int32, r mir.Reg) bool {
	p := a.pinOf(v)
	return p == mir.NoReg || p == r
}

// needHome gives v its stack slot if it has none and needs one.
func (a *allocator) needHome(v int32) mir.Reg {
	if a.vs[v].home == mir.NoReg && !a.d.remat[v].ok {
		a.vs[v].home = a.out.NewSlot(a.f.VRegs[v])
	}
	return a.vs[v].home
}

// allocArg places an argument where the calling convention passes it.
func (a *allocator) allocArg(i int, in *mir.Instr) error {
	f := a.f
	r := in.Defs[0]
	if !r.IsVirtual() {
		return fmt.Errorf("the Arg defines %s", r)
	}
	v := int32(r.Index())
	at := mir.ArgLocations(f.Params, true)[in.Aux]
	a.touch(v)
	a.defined(v, i, 0)
	live := a.vs[v].usesLeft > 0 || a.vs[v].liveOut
	a.emit(a.out.NewInstr(mir.Instr{Op: mir.OpArg, Defs: []mir.Reg{at}, Aux: in.Aux, Pos: in.Pos}), int32(i))
	switch {
	case !live:
	case at.IsPhys():
		a.take(v, at)
	default:
		// A stack argument stays in its incoming slot, which becomes its
		// home; a register with a slot already is copied there.
		if a.vs[v].home == mir.NoReg {
			a.vs[v].home = at
		}
		a.vs[v].loc, a.vs[v].clean = locMem, true
		if a.vs[v].home != at {
			return a.emitMoves([]alloc.Move{{Dst: a.vs[v].home, Src: at}}, in.Pos)
		}
	}
	return nil
}

// buildUseLists records, for every value, the input positions of its uses
// in the region, in increasing order.
func (a *allocator) buildUseLists(instrs []*mir.Instr) {
	a.usePos = a.usePos[:0]
	a.useNext = a.useNext[:0]
	a.instDone = zeroed(a.instDone, len(instrs))
	a.resetDone(len(instrs))
	for i := len(instrs) - 1; i >= 0; i-- {
		for _, r := range instrs[i].Uses {
			if !r.IsVirtual() {
				continue
			}
			v := int32(r.Index())
			a.touch(v)
			if h := a.vs[v].useHead; h >= 0 && a.usePos[h] == int32(i) {
				continue
			}
			a.usePos = append(a.usePos, int32(i))
			a.useNext = append(a.useNext, a.vs[v].useHead)
			a.vs[v].useHead = int32(len(a.usePos) - 1)
		}
	}
}

// nextUse returns the input position of v's earliest use not yet
// scheduled in the region, or -1.
func (a *allocator) nextUse(v int32) int {
	x := &a.vs[v]
	if x.mark != a.regionMark {
		return -1
	}
	// Uses already scheduled leave the head of the list for good.
	for x.useHead >= 0 && a.instDone[a.usePos[x.useHead]] {
		x.useHead = a.useNext[x.useHead]
	}
	for h := x.useHead; h >= 0; h = a.useNext[h] {
		if p := a.usePos[h]; !a.instDone[p] {
			return int(p)
		}
	}
	return -1
}

// emit appends an instruction to the region's code.
func (a *allocator) emit(in *mir.Instr, origin int32) {
	a.code = append(a.code, in)
	a.origin = append(a.origin, origin)
}

// emitMoves appends the moves of a parallel copy between locations.
func (a *allocator) emitMoves(moves []alloc.Move, pos int32) error {
	seq, err := a.sequentialize(moves, pos)
	if err != nil {
		return err
	}
	for _, in := range seq {
		a.emit(in, -1)
	}
	return nil
}

// sequentialize returns the instructions performing a parallel copy,
// allocated in the output function. A copy in which no destination is
// another move's source, and nothing moves memory to memory, is emitted in
// order directly; the rest goes to alloc.Sequentialize.
func (a *allocator) sequentialize(moves []alloc.Move, pos int32) ([]*mir.Instr, error) {
	simple := len(moves) <= 8
	for i := 0; simple && i < len(moves); i++ {
		m := moves[i]
		if m.Dst.IsMem() && m.Src.IsMem() || m.Dst == m.Src {
			simple = false
		}
		for j := range moves {
			if j != i && (moves[j].Src == m.Dst || moves[j].Dst == m.Dst) {
				simple = false
			}
		}
	}
	if !simple {
		seq, err := alloc.Sequentialize(moves)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errInternal, err)
		}
		out := make([]*mir.Instr, len(seq))
		for i, in := range seq {
			in.Pos = pos
			out[i] = a.out.NewInstr(*in)
		}
		return out, nil
	}
	out := make([]*mir.Instr, len(moves))
	for i, m := range moves {
		op := mir.OpCopy
		switch {
		case m.Dst.IsMem():
			op = mir.OpSpill
		case m.Src.IsMem():
			op = mir.OpReload
		}
		out[i] = a.out.NewInstr(mir.Instr{Op: op, Defs: []mir.Reg{m.Dst}, Uses: []mir.Reg{m.Src}, Pos: pos})
	}
	return out, nil
}

// freq returns the region's frequency.
func (a *allocator) freq() float64 { return a.block.Freq }

// scheduleRegion is the cycle-driven list scheduler of Fig 5.6 with
// register assignment as each node is scheduled.
func (a *allocator) scheduleRegion(g *depGraph, instrs []*mir.Instr) error {
	r := &a.rs
	r.reset(g, a.model)
	// Unscheduled definitions per class, for the pressure test.
	var pending [3]int
	for i := range g.nodes {
		nd := &g.nodes[i]
		for k := nd.first; k <= nd.last; k++ {
			for _, d := range instrs[k].Defs {
				if d.IsVirtual() {
					pending[a.f.RegClass(d)]++
				}
			}
		}
	}
	for r.done < len(g.nodes) {
		best := int32(r.done) // SourceOrder: every edge goes forward
		if !a.opts.SourceOrder {
			if best = a.choose(r, g, instrs, &pending); best < 0 {
				r.advance()
				continue
			}
		}
		nd := &g.nodes[best]
		r.schedule(best)
		for k := nd.first; k <= nd.last; k++ {
			in := instrs[k]
			for _, d := range in.Defs {
				if d.IsVirtual() {
					pending[a.f.RegClass(d)]--
				}
			}
			a.cur, a.after = k, false
			if err := a.allocInstr(int(k), in); err != nil {
				return fmt.Errorf("[%d] (%s): %w", k, in.Op, err)
			}
			a.markDone(int(k))
		}
	}
	length := r.length()
	a.regionCycles[a.b] = length
	body := int32(0)
	for n := range g.nodes {
		if nd := &g.nodes[n]; !instrs[nd.last].Op.Info().Terminator {
			body = max(body, r.issue[n]+1)
		}
	}
	a.regionBody[a.b] = body
	a.stats.Cycles += int64(length)
	a.stats.WeightedCycles += float64(length) * a.freq()
	return nil
}

// choose returns the ready node the integrated pass issues next (thesis
// Fig. 5.6): under register pressure the candidate of the lowest category,
// then the highest priority; otherwise the highest priority. It returns -1
// when no node can issue in this cycle.
func (a *allocator) choose(r *readyState, g *depGraph, instrs []*mir.Instr, pending *[3]int) int32 {
	var pressure [3]bool
	for _, c := range []mir.Class{mir.GPR, mir.XMM} {
		pressure[c] = a.freeCount(c) < pending[c]
	}
	underPressure := pressure[mir.GPR] || pressure[mir.XMM]
	// Candidates come in priority order, so the first of category 0
	// cannot be beaten.
	best, bestCat := int32(-1), 0
	r.candidates(func(n int32) bool {
		cat := 0
		if underPressure {
			cat = a.category(g, instrs, n, pressure)
		}
		if best < 0 || cat < bestCat {
			best, bestCat = n, cat
		}
		return cat == 0
	})
	if bestCat > 0 && !a.opts.NoPressureWait && r.waiting.len() > 0 && a.wouldEvict(g, instrs, best) {
		return -1
	}
	return best
}

// wouldEvict reports whether node n defines more values of some class
// than there are free registers of it, so that issuing it now would
// evict a value. choose then waits for the nodes in flight instead
// (unless Options.NoPressureWait): a node that frees no register now
// (category 1 or 2) is better issued once they have freed registers or
// made a better node ready. The thesis issues it and spills; a block of
// independent address computations feeding a chain of bounds checks
// (an unrolled copy) then has every address computed, and all but a few
// spilled, before the first check can retire.
func (a *allocator) wouldEvict(g *depGraph, instrs []*mir.Instr, n int32) bool {
	var need [3]int
	nd := &g.nodes[n]
	for k := nd.first; k <= nd.last; k++ {
		for _, d := range instrs[k].Defs {
			if d.IsVirtual() {
				need[a.f.RegClass(d)]++
			}
		}
	}
	for c, k := range need {
		if k > 0 && a.freeCount(mir.Class(c)) < k {
			return true
		}
	}
	return false
}

// freeCount returns the number of registers of class c that hold no value.
func (a *allocator) freeCount(c mir.Class) int {
	n := 0
	for _, r := range a.caller[c] {
		if a.holder[r] < 0 {
			n++
		}
	}
	for _, r := range a.callee[c] {
		if a.holder[r] < 0 {
			n++
		}
	}
	return n
}

// category ranks a ready node under register pressure (thesis §5.3.3):
// 0 for nodes that free registers of a pressured class or need none, 1
// for nodes reading values that die in the region, 2 for the rest.
func (a *allocator) category(g *depGraph, instrs []*mir.Instr, n int32, pressure [3]bool) int {
	nd := &g.nodes[n]
	needs, frees, dies := 0, 0, false
	for k := nd.first; k <= nd.last; k++ {
		in := instrs[k]
		for _, d := range in.Defs {
			if d.IsVirtual() && pressure[a.f.RegClass(d)] {
				needs++
			}
		}
		for i, u := range in.Uses {
			if !u.IsVirtual() {
				continue
			}
			v := int32(u.Index())
			if a.vs[v].liveOut {
				continue
			}
			dies = true
			if !pressure[a.f.RegClass(u)] || slices.Contains(in.Uses[:i], u) {
				continue
			}
			occ := 0
			for _, x := range in.Uses {
				if x == u {
					occ++
				}
			}
			if a.vs[v].usesLeft == int32(occ) {
				frees++
			}
		}
	}
	switch {
	case needs == 0 || frees > 0:
		return 0
	case dies:
		return 1
	}
	return 2
}
