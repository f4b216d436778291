package sched

import (
	"slices"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// dataflow holds what the integrated pass knows about a function before
// it starts: computed once per compile (the thesis's §5.2 analyses) and
// then only read, liveness being tracked during the pass by decrementing
// use counts.
type dataflow struct {
	f  *mir.Func
	nv int
	// The live virtual registers of each block, in increasing order:
	// block b's live-ins are inRegs[inStart[b]:inStart[b+1]] (liveInOf),
	// described by the parallel inInfos; its live-outs outRegs from
	// outStart (liveOutOf). Offsets rather than a slice per block: a
	// function of a million blocks would spend tens of megabytes on slice
	// headers.
	inStart, outStart []int32
	inRegs, outRegs   []int32
	inInfos           []liveInInfo
	// defInfo[instrBase[b]+i][k] describes def k of instruction i of block
	// b (flattened: defStart[instrBase[b]+i] is the first def's index;
	// defStart ends with the number of defs), defVReg says which virtual
	// register it is (-1: none).
	instrBase []int32
	defStart  []int32
	defs      []defInfo
	defVReg   []int32
	// Per virtual register.
	remat      []remat
	callerCost []float64 // frequency-weighted cost of saving it around calls
	avoid      []mir.RegSet
	// Per block: the number of calls and the physical registers that fixed
	// operands and pinned registers of the block need.
	calls   []int32
	fixed   []mir.RegSet
	rets    []bool
	retFreq float64
	// header is the primary header of the innermost loop containing each
	// block, or -1.
	header []int32

	sc dfScratch
}

// liveInInfo describes a virtual register live into a block.
type liveInInfo struct {
	uses    int32 // uses in the block before any redefinition
	through bool  // live out of the block without a redefinition
	dist    int32 // blocks to the closest block with an exposed use (0: this one)
	closest int32 // that block
}

// defInfo describes one definition.
type defInfo struct {
	uses    int32 // uses in its block before the next redefinition
	liveOut bool  // it reaches the end of its block and is live there
}

// remat says how a virtual register can be recomputed instead of
// reloaded: every definition of it is the same instruction without
// register operands.
type remat struct {
	ok  bool
	op  mir.Op
	imm int64
	aux int32
}

// loadStoreCost is the cost (in cycles) of one store plus one load, the
// thesis's store_latency + load_latency.
const (
	storeLatency = 1
	loadLatency  = mir.LatLoad
)

// dfScratch holds the analyses' working storage, kept between compiles
// (the allocator is pooled) so that a compile allocates almost nothing.
type dfScratch struct {
	expPairs, defPairs                       []dfPair
	expMark, expIdx, defMark                 []int32
	expStart, expBlocks, defStartV, defBlock []int32
	outs, outFill                            []int32
	infos                                    []liveInInfo
	// The searches' results, kept between the two rounds for a pooled
	// function: register v's from recInEnd[v] and recOutEnd[v].
	recIns, recOuts, recInEnd, recOutEnd    []int32
	recInfos                                []liveInInfo
	inMark, outMark, dmark, dist, closest   []int32
	queue, fill, predStart, preds           []int32
	count, countMark, later, outSet, appear []int32
	seen                                    []bool
	pre, last, byPre, uf, loopWork          []int32
	dfsStack                                []dfsFrame
}

type dfPair struct{ b, v, n int32 }

// fit returns s with length n, reusing its storage when it can; the
// contents are whatever the storage held. New storage has a quarter more
// room, for the next compile of the pooled allocator, unless it is beyond
// what the pool keeps (maxPooledInstrs).
func fit[T any](s []T, n int) []T {
	if cap(s) < n {
		if n > maxPooledInstrs {
			return make([]T, n)
		}
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// zeroed returns s with length n and every element zero.
func zeroed[T any](s []T, n int) []T {
	s = fit(s, n)
	clear(s)
	return s
}

// analyze runs the analyses on f, reusing d's storage.
func (d *dataflow) analyze(f *mir.Func) {
	sc := &d.sc
	d.f, d.nv = f, len(f.VRegs)
	nb := len(f.Blocks)
	nv := d.nv
	d.retFreq = 0

	// Exposed uses and definitions, per block.
	expPairs, defPairs := sc.expPairs[:0], sc.defPairs[:0]
	sc.expMark = zeroed(sc.expMark, nv) // b+1 when v has an exposed use in b
	sc.expIdx = fit(sc.expIdx, nv)
	sc.defMark = zeroed(sc.defMark, nv) // b+1 when v is defined in b
	expMark, expIdx, defMark := sc.expMark, sc.expIdx, sc.defMark
	d.instrBase = fit(d.instrBase, nb+1)
	ni := f.NumInstrs()
	d.defStart = slices.Grow(d.defStart[:0], ni+1) // a def usually per instruction
	d.defVReg = slices.Grow(d.defVReg[:0], ni)
	ndefs := int32(0)
	d.calls = zeroed(d.calls, nb)
	d.fixed = zeroed(d.fixed, nb)
	d.rets = zeroed(d.rets, nb)
	for bi, b := range f.Blocks {
		d.instrBase[bi] = int32(len(d.defStart))
		mark := int32(bi + 1)
		for _, in := range b.Instrs {
			d.defStart = append(d.defStart, ndefs)
			ndefs += int32(len(in.Defs))
			info := in.Op.Info()
			if info.Call {
				d.calls[bi]++
			}
			if in.Op == mir.OpRET {
				d.rets[bi] = true
				d.retFreq += b.Freq
			}
			for i, r := range in.Uses {
				if p := pinOrFixed(f, r, f.UseSpec(in, i)); p != mir.NoReg {
					d.fixed[bi] = d.fixed[bi].Add(p)
				}
				if !r.IsVirtual() {
					continue
				}
				v := int32(r.Index())
				if defMark[v] == mark {
					continue
				}
				if expMark[v] != mark {
					expMark[v] = mark
					expIdx[v] = int32(len(expPairs))
					expPairs = append(expPairs, dfPair{int32(bi), v, 0})
				}
				expPairs[expIdx[v]].n++
			}
			for i, r := range in.Defs {
				if p := pinOrFixed(f, r, f.DefSpec(in, i)); p != mir.NoReg {
					d.fixed[bi] = d.fixed[bi].Add(p)
				}
				if !r.IsVirtual() {
					d.defVReg = append(d.defVReg, -1)
					continue
				}
				v := int32(r.Index())
				d.defVReg = append(d.defVReg, v)
				if defMark[v] != mark {
					defMark[v] = mark
					defPairs = append(defPairs, dfPair{int32(bi), v, 0})
				}
			}
		}
	}
	sc.expPairs, sc.defPairs = expPairs, defPairs
	d.instrBase[nb] = int32(len(d.defStart))
	d.defStart = append(d.defStart, ndefs)
	d.defs = fit(d.defs, int(ndefs))

	// Transpose to per-register lists.
	sc.expStart, sc.expBlocks = transpose(expPairs, nv, sc.expStart, sc.expBlocks, &sc.fill)
	sc.defStartV, sc.defBlock = transpose(defPairs, nv, sc.defStartV, sc.defBlock, &sc.fill)
	if !pooledSize(f) {
		sc.expPairs, sc.defPairs = nil, nil // not kept (see below)
	}

	// Liveness by exploring paths backwards from the exposed uses, one
	// register at a time; a block is entered at most once per register, so
	// the cost is linear in the size of the live sets. The searches run
	// twice, counting each block's live registers and then filling its
	// lists in place, rather than keeping every (block, register) pair in
	// between: on a huge function those pairs outweigh the lists.
	sc.inMark = zeroed(sc.inMark, nb)
	sc.outMark = zeroed(sc.outMark, nb)
	sc.dmark = zeroed(sc.dmark, nb)
	sc.dist = fit(sc.dist, nb)
	sc.closest = fit(sc.closest, nb)
	// Predecessor lists in one compact array: the searches touch them once
	// per live block and register.
	sc.predStart = fit(sc.predStart, nb+1)
	sc.preds = sc.preds[:0]
	for bi, b := range f.Blocks {
		sc.predStart[bi] = int32(len(sc.preds))
		for _, p := range b.Preds {
			sc.preds = append(sc.preds, int32(p))
		}
	}
	sc.predStart[nb] = int32(len(sc.preds))
	// The first searches count; a function small enough to keep its
	// storage pooled also records their results for the second round, the
	// others search again.
	record := pooledSize(f)
	sc.recIns, sc.recInfos, sc.recOuts = sc.recIns[:0], sc.recInfos[:0], sc.recOuts[:0]
	sc.recInEnd, sc.recOutEnd = fit(sc.recInEnd, nv+1), fit(sc.recOutEnd, nv+1)
	sc.recInEnd[0], sc.recOutEnd[0] = 0, 0
	inStart, outStart := zeroed(d.inStart, nb+1), zeroed(d.outStart, nb+1)
	for v := int32(0); v < int32(nv); v++ {
		ins, infos, outs := sc.liveSearch(v, v+1)
		for _, b := range ins {
			inStart[b+1]++
		}
		for _, b := range outs {
			outStart[b+1]++
		}
		if record {
			sc.recIns, sc.recInfos = append(sc.recIns, ins...), append(sc.recInfos, infos...)
			sc.recOuts = append(sc.recOuts, outs...)
			sc.recInEnd[v+1], sc.recOutEnd[v+1] = int32(len(sc.recIns)), int32(len(sc.recOuts))
		}
	}
	for b := range nb {
		inStart[b+1] += inStart[b]
		outStart[b+1] += outStart[b]
	}
	inRegs, inInfos := fit(d.inRegs, int(inStart[nb])), fit(d.inInfos, int(inStart[nb]))
	outRegs := fit(d.outRegs, int(outStart[nb]))
	inFill, outFill := fit(sc.fill, nb), fit(sc.outFill, nb)
	copy(inFill, inStart[:nb])
	copy(outFill, outStart[:nb])
	for v := int32(0); v < int32(nv); v++ {
		// Registers in increasing order per block.
		var ins, outs []int32
		var infos []liveInInfo
		if record {
			lo, hi := sc.recInEnd[v], sc.recInEnd[v+1]
			ins, infos = sc.recIns[lo:hi], sc.recInfos[lo:hi]
			outs = sc.recOuts[sc.recOutEnd[v]:sc.recOutEnd[v+1]]
		} else {
			ins, infos, outs = sc.liveSearch(v, int32(nv)+v+1)
		}
		for i, b := range ins {
			inRegs[inFill[b]] = v
			inInfos[inFill[b]] = infos[i]
			inFill[b]++
		}
		for _, b := range outs {
			outRegs[outFill[b]] = v
			outFill[b]++
		}
	}
	d.inStart, d.inRegs, d.inInfos = inStart, inRegs, inInfos
	d.outStart, d.outRegs = outStart, outRegs
	sc.fill, sc.outFill = inFill, outFill

	// Per definition and per live-in: uses left in the block, and whether
	// the value reaches the block's end live. One backward walk per block.
	sc.count = fit(sc.count, nv)
	sc.countMark = zeroed(sc.countMark, nv) // b+1: count is valid for block b
	sc.later = zeroed(sc.later, nv)         // b+1: v is defined later in block b
	sc.outSet = zeroed(sc.outSet, nv)       // b+1: v is live out of block b
	count, countMark, later, outSet := sc.count, sc.countMark, sc.later, sc.outSet
	for bi, b := range f.Blocks {
		mark := int32(bi + 1)
		for _, v := range d.liveOutOf(bi) {
			outSet[v] = mark
		}
		base := d.instrBase[bi]
		for i := len(b.Instrs) - 1; i >= 0; i-- {
			in := b.Instrs[i]
			start := d.defStart[base+int32(i)]
			for k, r := range in.Defs {
				if !r.IsVirtual() {
					continue
				}
				v := r.Index()
				n := int32(0)
				if countMark[v] == mark {
					n = count[v]
				}
				d.defs[start+int32(k)] = defInfo{uses: n, liveOut: later[v] != mark && outSet[v] == mark}
				countMark[v], count[v], later[v] = mark, 0, mark
			}
			for _, r := range in.Uses {
				if !r.IsVirtual() {
					continue
				}
				v := r.Index()
				if countMark[v] != mark {
					countMark[v], count[v] = mark, 0
				}
				count[v]++
			}
		}
		infos := d.inInfoOf(bi)
		for i, v := range d.liveInOf(bi) {
			n := int32(0)
			if countMark[v] == mark {
				n = count[v]
			}
			infos[i].uses = n
			infos[i].through = outSet[v] == mark && later[v] != mark
		}
	}

	// Loops.
	d.loopHeaders(f)

	// Rematerializable registers: every definition the same constant or
	// context load.
	d.remat = zeroed(d.remat, nv)
	sc.seen = zeroed(sc.seen, nv)
	seen := sc.seen
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			for _, r := range in.Defs {
				if !r.IsVirtual() {
					continue
				}
				v := r.Index()
				rm := remat{}
				if alloc.IsRematOp(in.Op) {
					rm = remat{ok: true, op: in.Op, imm: in.Imm, aux: in.Aux}
				}
				if !seen[v] {
					seen[v] = true
					d.remat[v] = rm
				} else if d.remat[v] != rm {
					d.remat[v] = remat{}
				}
			}
		}
	}

	// Caller-saved costs and the registers each value should avoid: for
	// every block with calls or fixed registers, the values live in it.
	d.callerCost = zeroed(d.callerCost, nv)
	d.avoid = zeroed(d.avoid, nv)
	sc.appear = zeroed(sc.appear, nv)
	appear := sc.appear
	for bi, b := range f.Blocks {
		if d.calls[bi] == 0 && d.fixed[bi] == 0 {
			continue
		}
		mark := int32(bi + 1)
		cost := b.Freq * float64(d.calls[bi]) * (storeLatency + loadLatency)
		visit := func(v int32) {
			if appear[v] == mark {
				return
			}
			appear[v] = mark
			d.callerCost[v] += cost
			d.avoid[v] |= d.fixed[bi]
		}
		for _, v := range d.liveInOf(bi) {
			visit(v)
		}
		for _, in := range b.Instrs {
			for _, r := range in.Defs {
				if r.IsVirtual() {
					visit(int32(r.Index()))
				}
			}
		}
	}
	for v := range d.avoid {
		if p := f.Pin(mir.VReg(v)); p != mir.NoReg {
			d.avoid[v] = d.avoid[v].Remove(p)
		}
	}
	// The working storage of a huge function is not kept for the next
	// compile (see maxPooledInstrs): dropped now, it is not held while the
	// pass runs. The live sets are the dataflow's own (inRegs, outRegs).
	if !pooledSize(f) {
		d.sc = dfScratch{}
	}
}

// span returns block b's part of buf, which holds every block's items in
// block order: block b's from start[b] up to start[b+1].
func span[T any](buf []T, start []int32, b int) []T {
	lo, hi := start[b], start[b+1]
	return buf[lo:hi:hi]
}

// liveSearch finds the blocks register v is live into, in the order of a
// breadth-first search backwards from the blocks with an exposed use,
// with each one's distance to the closest block with a use and that
// block (infos, parallel), and the blocks it is live out of. mark must
// differ from every mark used before with the same tables. The lists are
// valid until the next search.
func (sc *dfScratch) liveSearch(v, mark int32) (ins []int32, infos []liveInInfo, outs []int32) {
	inMark, outMark, dmark, dist, closest := sc.inMark, sc.outMark, sc.dmark, sc.dist, sc.closest
	predStart, predList := sc.predStart, sc.preds
	for _, b := range sc.defBlock[sc.defStartV[v]:sc.defStartV[v+1]] {
		dmark[b] = mark
	}
	queue, outs := sc.queue[:0], sc.outs[:0]
	for _, b := range sc.expBlocks[sc.expStart[v]:sc.expStart[v+1]] {
		inMark[b] = mark
		dist[b], closest[b] = 0, b
		queue = append(queue, b)
	}
	for qi := 0; qi < len(queue); qi++ {
		s := queue[qi]
		for _, p := range predList[predStart[s]:predStart[s+1]] {
			if outMark[p] != mark {
				outMark[p] = mark
				outs = append(outs, p)
			}
			if dmark[p] != mark && inMark[p] != mark {
				inMark[p] = mark
				dist[p], closest[p] = dist[s]+1, closest[s]
				queue = append(queue, p)
			}
		}
	}
	infos = sc.infos[:0]
	for _, b := range queue {
		infos = append(infos, liveInInfo{dist: dist[b], closest: closest[b]})
	}
	sc.queue, sc.infos, sc.outs = queue, infos, outs
	return queue, infos, outs
}

// liveInOf returns the virtual registers live into block b, in
// increasing order.
func (d *dataflow) liveInOf(b int) []int32 {
	return span(d.inRegs, d.inStart, b)
}

// inInfoOf returns what is known of the registers live into block b,
// parallel to liveInOf(b).
func (d *dataflow) inInfoOf(b int) []liveInInfo {
	return span(d.inInfos, d.inStart, b)
}

// liveOutOf returns the virtual registers live out of block b, in
// increasing order.
func (d *dataflow) liveOutOf(b int) []int32 {
	return span(d.outRegs, d.outStart, b)
}

// transpose groups pairs by register: it returns start offsets per
// register and the pairs' blocks in register order (stable), in the given
// storage.
func transpose(items []dfPair, n int, start, vals []int32, fill *[]int32) ([]int32, []int32) {
	start = zeroed(start, n+1)
	for _, it := range items {
		start[it.v+1]++
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	vals = fit(vals, len(items))
	f := fit(*fill, n)
	copy(f, start[:n])
	for _, it := range items {
		vals[f[it.v]] = it.b
		f[it.v]++
	}
	*fill = f
	return start, vals
}

// pinOrFixed returns the physical register an operand is bound to before
// allocation: its register's pin, or the op's fixed physical register.
func pinOrFixed(f *mir.Func, r mir.Reg, s mir.OperandSpec) mir.Reg {
	if p := f.Pin(r); p != mir.NoReg {
		return p
	}
	if s.Fixed.IsPhys() {
		return s.Fixed
	}
	return mir.NoReg
}

// inIndex returns the position of v in block b's live-in list, or -1.
func (d *dataflow) inIndex(b int, v int32) int {
	i, ok := slices.BinarySearch(d.liveInOf(b), v)
	if !ok {
		return -1
	}
	return i
}

// outIndex returns the position of v in block b's live-out list, or -1.
func (d *dataflow) outIndex(b int, v int32) int {
	i, ok := slices.BinarySearch(d.liveOutOf(b), v)
	if !ok {
		return -1
	}
	return i
}

// def returns the information on def k of instruction i of block b.
func (d *dataflow) def(b, i, k int) defInfo {
	return d.defs[d.defStart[d.instrBase[b]+int32(i)]+int32(k)]
}
