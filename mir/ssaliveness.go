package mir

import "slices"

// SSALiveness holds the same sets as Liveness (with its φ convention) for a
// function in SSA form, stored sparsely: each block lists the virtual
// registers live at its start and end in increasing order. Its size is the
// total length of the live ranges counted in blocks, not blocks × values,
// so that very large functions stay linear where a bit matrix would be
// quadratic.
type SSALiveness struct {
	in, out [][]int32
}

// LiveIn reports whether virtual register v is live at the start of block b.
func (l *SSALiveness) LiveIn(b, v int) bool { return sortedHas(l.in[b], v) }

// LiveOut reports whether virtual register v is live at the end of block b.
func (l *SSALiveness) LiveOut(b, v int) bool { return sortedHas(l.out[b], v) }

// In lists the virtual registers live at the start of block b, in
// increasing order. The slice must not be modified.
func (l *SSALiveness) In(b int) []int32 { return l.in[b] }

// Out lists the virtual registers live at the end of block b, in
// increasing order. The slice must not be modified.
func (l *SSALiveness) Out(b int) []int32 { return l.out[b] }

func sortedHas(s []int32, v int) bool {
	_, found := slices.BinarySearch(s, int32(v))
	return found
}

// ComputeSSALiveness computes the live-in and live-out sets of every block
// of f, which must be in SSA form (every use dominated by the one
// definition), by exploring paths backwards from each use to the
// definition, one virtual register at a time: a block is entered at most
// once per register, so the cost is linear in the size of the result.
// Registers are explored in increasing order, which leaves every block's
// lists sorted. Physical registers and stack slots are not tracked.
func ComputeSSALiveness(f *Func) *SSALiveness {
	n := len(f.VRegs)
	nb := len(f.Blocks)
	defBlock := make([]int32, n)
	for i := range defBlock {
		defBlock[i] = -1
	}
	// uses[v] in compressed rows: an entry b<<1 for a use inside block b,
	// p<<1|1 for a φ operand read on the edge out of predecessor p.
	start := make([]int32, n+1)
	forEachUse := func(visit func(v int, entry int32)) {
		for bi, b := range f.Blocks {
			for _, in := range b.Instrs {
				if in.Op == OpPhi {
					for k, r := range in.Uses {
						if r.IsVirtual() && k < len(b.Preds) {
							visit(r.Index(), int32(b.Preds[k])<<1|1)
						}
					}
					continue
				}
				for _, r := range in.Uses {
					if r.IsVirtual() {
						visit(r.Index(), int32(bi)<<1)
					}
				}
			}
		}
	}
	for bi, b := range f.Blocks {
		for _, in := range b.Instrs {
			for _, r := range in.Defs {
				if r.IsVirtual() {
					defBlock[r.Index()] = int32(bi)
				}
			}
		}
	}
	forEachUse(func(v int, _ int32) { start[v+1]++ })
	for v := 0; v < n; v++ {
		start[v+1] += start[v]
	}
	uses := make([]int32, start[n])
	fill := slices.Clone(start[:n])
	forEachUse(func(v int, e int32) {
		uses[fill[v]] = e
		fill[v]++
	})

	// The walk records (block, register) pairs in one array per direction;
	// a stable bucket sort by block then gives every block its sorted list
	// without a growing slice per block.
	var inPairs, outPairs []int32 // block, register, block, register, ...
	inMark := make([]int32, nb)   // v+1 once block b got v live in
	outMark := make([]int32, nb)
	var work []int32
	for v := 0; v < n; v++ {
		mark := int32(v + 1)
		def := defBlock[v]
		liveOut := func(p int32) {
			if outMark[p] != mark {
				outMark[p] = mark
				outPairs = append(outPairs, p, int32(v))
				if p != def {
					work = append(work, p)
				}
			}
		}
		for _, e := range uses[start[v]:start[v+1]] {
			b := e >> 1
			switch {
			case e&1 != 0:
				liveOut(b)
			case b != def:
				work = append(work, b)
			}
		}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if inMark[b] == mark {
				continue
			}
			inMark[b] = mark
			inPairs = append(inPairs, b, int32(v))
			for _, p := range f.Blocks[b].Preds {
				liveOut(int32(p))
			}
		}
	}
	return &SSALiveness{in: bucketByBlock(inPairs, nb), out: bucketByBlock(outPairs, nb)}
}

// bucketByBlock turns (block, register) pairs, registers in increasing
// order, into one list per block sharing one backing array.
func bucketByBlock(pairs []int32, nb int) [][]int32 {
	start := make([]int32, nb+1)
	for i := 0; i < len(pairs); i += 2 {
		start[pairs[i]+1]++
	}
	for b := 0; b < nb; b++ {
		start[b+1] += start[b]
	}
	regs := make([]int32, len(pairs)/2)
	fill := slices.Clone(start[:nb])
	for i := 0; i < len(pairs); i += 2 {
		b := pairs[i]
		regs[fill[b]] = pairs[i+1]
		fill[b]++
	}
	lists := make([][]int32, nb)
	for b := range lists {
		lists[b] = regs[start[b]:start[b+1]:start[b+1]]
	}
	return lists
}
