package sched

import (
	"slices"

	"github.com/kiln-jit/kiln/internal/cfg"
	"github.com/kiln-jit/kiln/mir"
)

// dataflow holds what the integrated pass knows about a function before
// it starts: computed once per compile (the thesis's §5.2 analyses) and
// then only read, liveness being tracked during the pass by decrementing
// use counts.
type dataflow struct {
	f  *mir.Func
	nv int
	// liveIn and liveOut list each block's live virtual registers in
	// increasing order; inInfo is parallel to liveIn.
	liveIn, liveOut [][]int32
	inInfo          [][]liveInInfo
	// defInfo[instrBase[b]+i][k] describes def k of instruction i of block
	// b (flattened: defStart[instrBase[b]+i] is the first def's index).
	instrBase []int32
	defStart  []int32
	defs      []defInfo
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

// analyze runs the analyses.
func analyze(f *mir.Func) *dataflow {
	d := &dataflow{f: f, nv: len(f.VRegs)}
	nb := len(f.Blocks)
	nv := d.nv

	// Exposed uses and definitions, per block.
	type pair struct{ b, v, n int32 }
	var expPairs, defPairs []pair
	expMark := make([]int32, nv) // b+1 when v has an exposed use in b
	expIdx := make([]int32, nv)
	defMark := make([]int32, nv) // b+1 when v is defined in b
	d.instrBase = make([]int32, nb+1)
	ndefs := int32(0)
	d.calls = make([]int32, nb)
	d.fixed = make([]mir.RegSet, nb)
	d.rets = make([]bool, nb)
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
					expPairs = append(expPairs, pair{int32(bi), v, 0})
				}
				expPairs[expIdx[v]].n++
			}
			for i, r := range in.Defs {
				if p := pinOrFixed(f, r, f.DefSpec(in, i)); p != mir.NoReg {
					d.fixed[bi] = d.fixed[bi].Add(p)
				}
				if !r.IsVirtual() {
					continue
				}
				v := int32(r.Index())
				if defMark[v] != mark {
					defMark[v] = mark
					defPairs = append(defPairs, pair{int32(bi), v, 0})
				}
			}
		}
	}
	d.instrBase[nb] = int32(len(d.defStart))
	d.defs = make([]defInfo, ndefs)

	// Transpose to per-register lists.
	expStart, expBlocks := transpose(expPairs, nv, func(p pair) (int32, int32) { return p.v, p.b })
	defStart, defBlocks := transpose(defPairs, nv, func(p pair) (int32, int32) { return p.v, p.b })

	// Liveness by exploring paths backwards from the exposed uses, one
	// register at a time; a block is entered at most once per register.
	type inRec struct{ b, v, dist, closest int32 }
	var inPairs []inRec
	var outPairs []int32 // block, register pairs
	inMark := make([]int32, nb)
	outMark := make([]int32, nb)
	dmark := make([]int32, nb)
	dist := make([]int32, nb)
	closest := make([]int32, nb)
	var work, liveBlocks, queue []int32
	for v := int32(0); v < int32(nv); v++ {
		mark := v + 1
		for _, b := range defBlocks[defStart[v]:defStart[v+1]] {
			dmark[b] = mark
		}
		liveBlocks = liveBlocks[:0]
		exp := expBlocks[expStart[v]:expStart[v+1]]
		work = append(work[:0], exp...)
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if inMark[b] == mark {
				continue
			}
			inMark[b] = mark
			liveBlocks = append(liveBlocks, b)
			for _, p := range f.Blocks[b].Preds {
				if outMark[p] != mark {
					outMark[p] = mark
					outPairs = append(outPairs, int32(p), v)
					if dmark[p] != mark {
						work = append(work, int32(p))
					}
				}
			}
		}
		// Distances to the closest block with an exposed use: a breadth
		// first search backwards from those blocks through the blocks v is
		// live into.
		queue = queue[:0]
		for _, b := range liveBlocks {
			dist[b] = -1
		}
		for _, b := range exp {
			dist[b], closest[b] = 0, b
			queue = append(queue, b)
		}
		for qi := 0; qi < len(queue); qi++ {
			s := queue[qi]
			for _, p := range f.Blocks[s].Preds {
				if inMark[p] == mark && dist[p] < 0 {
					dist[p], closest[p] = dist[s]+1, closest[s]
					queue = append(queue, int32(p))
				}
			}
		}
		for _, b := range liveBlocks {
			inPairs = append(inPairs, inRec{b, v, dist[b], closest[b]})
		}
		// Keep the stale marks of blocks from earlier registers harmless:
		// dist is only read where inMark says the block is live.
	}

	// Per block lists, registers in increasing order.
	d.liveIn = make([][]int32, nb)
	d.inInfo = make([][]liveInInfo, nb)
	d.liveOut = make([][]int32, nb)
	{
		cnt := make([]int32, nb+1)
		for _, p := range inPairs {
			cnt[p.b+1]++
		}
		for b := 0; b < nb; b++ {
			cnt[b+1] += cnt[b]
		}
		regs := make([]int32, len(inPairs))
		infos := make([]liveInInfo, len(inPairs))
		fill := slices.Clone(cnt[:nb])
		for _, p := range inPairs {
			regs[fill[p.b]] = p.v
			infos[fill[p.b]] = liveInInfo{dist: p.dist, closest: p.closest}
			fill[p.b]++
		}
		for b := 0; b < nb; b++ {
			d.liveIn[b] = regs[cnt[b]:cnt[b+1]:cnt[b+1]]
			d.inInfo[b] = infos[cnt[b]:cnt[b+1]:cnt[b+1]]
		}
	}
	{
		cnt := make([]int32, nb+1)
		for i := 0; i < len(outPairs); i += 2 {
			cnt[outPairs[i]+1]++
		}
		for b := 0; b < nb; b++ {
			cnt[b+1] += cnt[b]
		}
		regs := make([]int32, len(outPairs)/2)
		fill := slices.Clone(cnt[:nb])
		for i := 0; i < len(outPairs); i += 2 {
			b := outPairs[i]
			regs[fill[b]] = outPairs[i+1]
			fill[b]++
		}
		for b := 0; b < nb; b++ {
			d.liveOut[b] = regs[cnt[b]:cnt[b+1]:cnt[b+1]]
		}
	}

	// Per definition and per live-in: uses left in the block, and whether
	// the value reaches the block's end live. One backward walk per block.
	count := make([]int32, nv)
	countMark := make([]int32, nv) // b+1: count is valid for block b
	later := make([]int32, nv)     // b+1: v is defined later in block b
	outSet := make([]int32, nv)    // b+1: v is live out of block b
	for bi, b := range f.Blocks {
		mark := int32(bi + 1)
		for _, v := range d.liveOut[bi] {
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
		for i, v := range d.liveIn[bi] {
			n := int32(0)
			if countMark[v] == mark {
				n = count[v]
			}
			d.inInfo[bi][i].uses = n
			d.inInfo[bi][i].through = outSet[v] == mark && later[v] != mark
		}
	}

	// Loops.
	forest := cfg.Loops(f.Graph())
	d.header = make([]int32, nb)
	for b := range d.header {
		d.header[b] = -1
		if l := forest.LoopOf[b]; l >= 0 {
			d.header[b] = int32(forest.Loops[l].Header)
		}
	}

	// Rematerializable registers: every definition the same constant or
	// context load.
	d.remat = make([]remat, nv)
	seen := make([]bool, nv)
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			for _, r := range in.Defs {
				if !r.IsVirtual() {
					continue
				}
				v := r.Index()
				rm := remat{}
				switch in.Op {
				case mir.OpMOVQconst, mir.OpMOVSDconst, mir.OpCtxLoad:
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
	d.callerCost = make([]float64, nv)
	d.avoid = make([]mir.RegSet, nv)
	appear := make([]int32, nv)
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
		for _, v := range d.liveIn[bi] {
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
	return d
}

// transpose groups items by key: it returns start offsets per key and the
// values in key order (stable).
func transpose[T any](items []T, n int, kv func(T) (int32, int32)) ([]int32, []int32) {
	start := make([]int32, n+1)
	for _, it := range items {
		k, _ := kv(it)
		start[k+1]++
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	vals := make([]int32, len(items))
	fill := slices.Clone(start[:n])
	for _, it := range items {
		k, v := kv(it)
		vals[fill[k]] = v
		fill[k]++
	}
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
	i, ok := slices.BinarySearch(d.liveIn[b], v)
	if !ok {
		return -1
	}
	return i
}

// outIndex returns the position of v in block b's live-out list, or -1.
func (d *dataflow) outIndex(b int, v int32) int {
	i, ok := slices.BinarySearch(d.liveOut[b], v)
	if !ok {
		return -1
	}
	return i
}

// def returns the information on def k of instruction i of block b.
func (d *dataflow) def(b, i, k int) defInfo {
	return d.defs[d.defStart[d.instrBase[b]+int32(i)]+int32(k)]
}
