package alloc

import (
	"fmt"
	"slices"
	"time"

	"github.com/kiln-jit/kiln/mir"
)

// LinearOrder is the order in which LinearScan numbers the blocks (and so
// the instructions) of a function.
type LinearOrder uint8

// The linear orders.
const (
	// LinearRPO numbers the blocks in a reverse postorder of the CFG
	// whose depth-first search visits each block's successors from the
	// least to the most probable edge, so that the most probable
	// successor comes right after its block: every block comes after its
	// dominator, a loop body follows its header, and the block on a
	// loop's back edge follows the body rather than the code after the
	// loop (which would stretch every interval live in the loop to
	// there).
	LinearRPO LinearOrder = iota
	// LinearLayout numbers the blocks in their layout order (block IDs).
	LinearLayout
)

// String names the order.
func (o LinearOrder) String() string {
	switch o {
	case LinearRPO:
		return "rpo"
	case LinearLayout:
		return "layout"
	}
	return fmt.Sprintf("order(%d)", int(o))
}

// LinearScanOptions configure LinearScan. The zero value is the default.
type LinearScanOptions struct {
	// Regs restricts the registers given to unpinned virtual registers and
	// spill temporaries (0: all of mir.Allocatable). Pinned virtual
	// registers live in their pins whatever this says.
	Regs mir.RegSet
	// Order is the linear order of the blocks (default LinearRPO).
	Order LinearOrder
	// NoHints turns off the copy hints (an interval starting at a copy
	// prefers its source's register, one ending at a copy into a pinned
	// register prefers that register), leaving Poletto and Sarkar's plain
	// choice of the first free register.
	NoHints bool
	// NoVerify skips checking the input with mir.Verify (for callers that
	// already did).
	NoVerify bool
}

// LinearScanStats reports what LinearScan did. Static counts are
// instructions in the output; weighted counts multiply each by its
// block's frequency.
type LinearScanStats struct {
	Instrs int // instructions of the input
	// Intervals is the number of live intervals (unpinned virtual
	// registers), Fixed the number of fixed ranges (live segments of pinned
	// virtual registers and call clobbers, of the registers it may assign).
	Intervals, Fixed int
	// SpilledIntervals counts the intervals the scan spilled; Evictions the
	// values saved and restored around one instruction to give its spill
	// temporaries a register.
	SpilledIntervals, Evictions int
	// Spill code: stores to stack slots, reloads from them,
	// rematerializations, and register moves (register-to-register copies,
	// exchanges, and transfers to and from stack-argument slots).
	Spills, Reloads, Remats, Moves                                 int
	WeightedSpills, WeightedReloads, WeightedRemats, WeightedMoves float64
	// Slots is the number of stack slots of the output.
	Slots int
	// Time spent numbering the instructions and computing liveness, the
	// intervals and the fixed ranges; in the scan; and rewriting the code
	// with spill code.
	Liveness, Scan, Rewrite time.Duration
}

// SpillCode returns the static number of spill, reload and
// rematerialization instructions.
func (s *LinearScanStats) SpillCode() int { return s.Spills + s.Reloads + s.Remats }

// LinearScanResult is what LinearScan returns.
type LinearScanResult struct {
	// Func is the allocated function.
	Func *mir.Func
	// Origins relates its instructions to the input's, for
	// CheckAllocation: every block of the input's numbers holds the input
	// block of the same number, instructions keep their order, and the
	// moves a Copy or ParCopy becomes carry its index. Blocks beyond them
	// are added on the out-edges of a block ending in a JMPTABLE whose
	// spilled index evicted a live-out value: they restore it.
	Origins *Origins
	Stats   LinearScanStats
}

// LinearScan allocates registers for f, a function out of SSA form with
// its renaming constraints resolved (Destruct's output), with Poletto and
// Sarkar's linear scan, and returns the allocated function; f is not
// modified. See the package documentation for the algorithm.
func LinearScan(f *mir.Func, opts LinearScanOptions) (*LinearScanResult, error) {
	if f.Form != mir.FormNonSSA {
		return nil, fmt.Errorf("alloc: linear scan: %s is in %s form, want nonssa", f.Name, f.Form)
	}
	if f.Pins == nil && hasFixedOperand(f) {
		// Without pins, nothing says how fixed-register operands are met.
		return nil, fmt.Errorf("alloc: linear scan: %s has no pins (its renaming constraints are not resolved)", f.Name)
	}
	if !opts.NoVerify {
		if err := mir.Verify(f); err != nil {
			return nil, fmt.Errorf("alloc: linear scan: input: %w", err)
		}
	}
	s, err := newLinearScan(f, opts)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := s.number(); err != nil {
		return nil, err
	}
	s.liveness()
	s.fixedRanges()
	t1 := time.Now()
	s.scan()
	t2 := time.Now()
	if err := s.rewrite(); err != nil {
		return nil, err
	}
	s.stats.Liveness = t1.Sub(t0)
	s.stats.Scan = t2.Sub(t1)
	s.stats.Rewrite = time.Since(t2)
	s.stats.Slots = len(s.out.Slots)
	return &LinearScanResult{Func: s.out, Origins: s.org, Stats: s.stats}, nil
}

// lsRemat says how a virtual register is recomputed: every definition of
// it is the same constant or context load (state lsRematOK).
type lsRemat struct {
	state uint8
	op    mir.Op
	imm   int64
	aux   int32
}

const (
	lsRematUnseen uint8 = iota
	lsRematOK
	lsRematNo
)

// lsSeg is a fixed range: positions start..end (inclusive) of a register.
type lsSeg struct{ start, end int32 }

// lsFixed holds a register's fixed ranges sorted by start, with the
// running maximum of their ends (for overlap queries by binary search).
type lsFixed struct {
	segs   []lsSeg
	maxEnd []int32
}

// overlaps reports whether some fixed range meets positions s..e.
func (x *lsFixed) overlaps(s, e int32) bool {
	// The last range starting at or before e.
	i, _ := slices.BinarySearchFunc(x.segs, e+1, func(g lsSeg, t int32) int {
		if g.start < t {
			return -1
		}
		return 1
	})
	return i > 0 && x.maxEnd[i-1] >= s
}

// lsTemp is a spill temporary of one instruction: the register a spilled
// virtual register is reloaded into before it (use) or written by it and
// stored after it (def).
type lsTemp struct {
	v        int32
	reg      mir.Reg
	use, def bool
	early    bool // the def is early-clobbered: the temporary is busy at the uses too
}

// lsState is the allocator's state for one function.
//
// Positions: instruction k of the linear order reads its uses at 2k and
// writes its defs at 2k+1 (an early-clobbered def at 2k). A value occupies
// its register from its definition to its last use, so a def may take the
// register of a use that dies at the same instruction.
type lsState struct {
	f       *mir.Func
	opts    LinearScanOptions
	nv      int
	allowed mir.RegSet
	caller  [3][]mir.Reg // allowed caller-saved registers per class, in preference order
	callee  [3][]mir.Reg

	order        []int32 // blocks in linear order
	bStart, bEnd []int32 // per block: the positions of its first use and last def
	argLocs      []mir.Reg

	// Per virtual register.
	defMin, defMax, useMax []int32 // -1: none
	lo, hi                 []int32 // earliest live-in block start, latest live-out block end; -1 none
	start, end             []int32 // the interval (unpinned registers), -1 none
	reg                    []mir.Reg
	remat                  []lsRemat
	hintReg                []mir.Reg
	hintV                  []int32
	home                   []mir.Reg
	argSlot                []mir.Reg // incoming stack slot of a stack argument

	// Pairs (register, block) from the numbering pass: the blocks with an
	// upward-exposed use and the blocks with a definition.
	exp, defs []lsPair
	// Live-in and live-out blocks of pinned registers, by block.
	pinInStart, pinIn, pinOutStart, pinOut []int32

	calls  []int32 // clobber positions of calls, increasing
	fixed  [mir.NumPhysRegs]lsFixed
	sorted []int32 // unpinned registers with an interval, by increasing start

	// Rewrite state: the sweep over assigned intervals and fixed ranges.
	out        *mir.Func
	org        *Origins
	sweep      int
	occ        [mir.NumPhysRegs]int32
	fixPtr     [mir.NumPhysRegs]int
	fixedUntil [mir.NumPhysRegs]int32
	opStamp    []int32
	temps      []lsTemp
	victims    []int32
	code       []*mir.Instr
	orig       []int32
	useBuf     []mir.Reg
	defBuf     []mir.Reg
	moves      []Move
	remats     []lsRematDst
	blockFreq  float64

	stats LinearScanStats
}

type lsPair struct{ v, b int32 }

func newLinearScan(f *mir.Func, opts LinearScanOptions) (*lsState, error) {
	s := &lsState{f: f, opts: opts, nv: len(f.VRegs)}
	s.allowed = opts.Regs & mir.Allocatable
	if opts.Regs == 0 {
		s.allowed = mir.Allocatable
	}
	filter := func(rs []mir.Reg) []mir.Reg {
		var out []mir.Reg
		for _, r := range rs {
			if s.allowed.Has(r) {
				out = append(out, r)
			}
		}
		return out
	}
	for c := range s.caller {
		s.caller[c] = filter(mir.CallerSavedOrder[c])
		s.callee[c] = filter(mir.CalleeSavedOrder[c])
	}
	for i, c := range f.VRegs {
		if f.Pins[i] == mir.NoReg && len(s.caller[c])+len(s.callee[c]) == 0 {
			return nil, fmt.Errorf("alloc: linear scan %s: no %s register may be allocated", f.Name, c)
		}
	}
	return s, nil
}

// lsBlockOrder returns the blocks of f in order o.
func lsBlockOrder(f *mir.Func, o LinearOrder) []int32 {
	n := len(f.Blocks)
	out := make([]int32, 0, n)
	if o == LinearLayout {
		for i := range n {
			out = append(out, int32(i))
		}
		return out
	}
	// Reverse postorder of an iterative depth-first search that visits
	// each block's successors from the least to the most frequent edge:
	// the most frequent successor finishes last and so comes right after
	// its block.
	seen := make([]bool, n)
	type frame struct {
		b    int32
		i    int32
		succ []int32 // successors in visiting order
	}
	probSum, probSet := make([]float64, n), make([]bool, n) // per successor block, for visitOrder
	visitOrder := func(b int32) []int32 {
		blk := f.Blocks[b]
		succ := make([]int32, len(blk.Succs))
		for k, x := range blk.Succs {
			succ[k] = int32(x)
		}
		if len(succ) < 2 {
			return succ
		}
		// Stable sort by edge probability (summed over parallel edges),
		// later successors first on ties.
		slices.Reverse(succ)
		for k, y := range blk.Succs {
			if !probSet[y] {
				probSet[y], probSum[y] = true, 0
			}
			probSum[y] += blk.SuccProb[k]
		}
		slices.SortStableFunc(succ, func(x, y int32) int {
			switch px, py := probSum[x], probSum[y]; {
			case px < py:
				return -1
			case py < px:
				return 1
			}
			return 0
		})
		for _, y := range blk.Succs {
			probSet[y] = false
		}
		return succ
	}
	stack := []frame{{0, 0, visitOrder(0)}}
	seen[0] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if int(top.i) < len(top.succ) {
			x := top.succ[top.i]
			top.i++
			if !seen[x] {
				seen[x] = true
				stack = append(stack, frame{x, 0, visitOrder(x)})
			}
			continue
		}
		out = append(out, top.b)
		stack = stack[:len(stack)-1]
	}
	slices.Reverse(out)
	// Unreachable blocks (the verifier rejects them) go last.
	for i := range n {
		if !seen[i] {
			out = append(out, int32(i))
		}
	}
	return out
}

// minus1 returns n int32s set to -1.
func minus1(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// number numbers the instructions in linear order and records, per
// virtual register, its first and last definitions and last use, the
// blocks with an upward-exposed use and with a definition, how it is
// rematerialized and its copy hints; and the calls.
func (s *lsState) number() error {
	f := s.f
	nb, nv := len(f.Blocks), s.nv
	s.order = lsBlockOrder(f, s.opts.Order)
	s.bStart, s.bEnd = make([]int32, nb), make([]int32, nb)
	ints := minus1(8 * nv)
	s.defMin, s.defMax, s.useMax = ints[:nv:nv], ints[nv:2*nv:2*nv], ints[2*nv:3*nv:3*nv]
	s.lo, s.hi = ints[3*nv:4*nv:4*nv], ints[4*nv:5*nv:5*nv]
	s.start, s.end, s.hintV = ints[5*nv:6*nv:6*nv], ints[6*nv:7*nv:7*nv], ints[7*nv:]
	regs := make([]mir.Reg, 4*nv)
	for i := range regs {
		regs[i] = mir.NoReg
	}
	s.reg, s.hintReg, s.home, s.argSlot = regs[:nv:nv], regs[nv:2*nv:2*nv], regs[2*nv:3*nv:3*nv], regs[3*nv:]
	s.remat = make([]lsRemat, nv)
	s.argLocs = mir.ArgLocations(f.Params, true)
	marks := make([]int32, 2*nv)
	defMark, expMark := marks[:nv:nv], marks[nv:]
	pos := int32(0)
	for _, b := range s.order {
		blk := f.Blocks[b]
		mark := b + 1
		s.bStart[b] = 2 * pos
		for _, in := range blk.Instrs {
			u := 2 * pos
			info := in.Op.Info()
			for _, r := range in.Uses {
				if r == mir.NoReg {
					continue // a memory operand without an index
				}
				if !r.IsVirtual() {
					return fmt.Errorf("alloc: linear scan %s b%d: %s uses %s, not a virtual register", f.Name, b, in.Op, r)
				}
				v := int32(r.Index())
				if defMark[v] != mark && expMark[v] != mark {
					expMark[v] = mark
					s.exp = append(s.exp, lsPair{v, b})
				}
				s.useMax[v] = max(s.useMax[v], u)
			}
			for i, r := range in.Defs {
				if !r.IsVirtual() {
					return fmt.Errorf("alloc: linear scan %s b%d: %s defines %s, not a virtual register", f.Name, b, in.Op, r)
				}
				v := int32(r.Index())
				if defMark[v] != mark {
					defMark[v] = mark
					s.defs = append(s.defs, lsPair{v, b})
				}
				d := u + 1
				switch {
				case !info.Variadic && info.Defs[i].EarlyClobber:
					d = u
				case in.Op == mir.OpArg:
					if loc := s.argLocs[in.Aux]; loc.IsPhys() {
						d = 0 // register arguments are there from the entry on
					} else {
						s.argSlot[v] = loc
					}
				}
				if s.defMin[v] < 0 || d < s.defMin[v] {
					s.defMin[v] = d
				}
				s.defMax[v] = max(s.defMax[v], d)
				rm := lsRemat{state: lsRematNo}
				if IsRematOp(in.Op) {
					rm = lsRemat{state: lsRematOK, op: in.Op, imm: in.Imm, aux: in.Aux}
				}
				switch x := &s.remat[v]; {
				case x.state == lsRematUnseen:
					*x = rm
				case *x != rm:
					x.state = lsRematNo
				}
			}
			if info.Call {
				s.calls = append(s.calls, u+1)
			}
			if (in.Op == mir.OpCopy || in.Op == mir.OpParCopy) && !s.opts.NoHints {
				for i, d := range in.Defs {
					dv, sv := int32(d.Index()), int32(in.Uses[i].Index())
					dp, sp := f.Pins[dv], f.Pins[sv]
					switch {
					case dp == mir.NoReg && sp == mir.NoReg:
						if s.hintV[dv] < 0 {
							s.hintV[dv] = sv
						}
					case dp == mir.NoReg:
						if s.hintReg[dv] == mir.NoReg {
							s.hintReg[dv] = sp
						}
					case sp == mir.NoReg:
						if s.hintReg[sv] == mir.NoReg {
							s.hintReg[sv] = dp
						}
					}
				}
			}
			pos++
		}
		s.bEnd[b] = 2*pos - 1
	}
	s.stats.Instrs = int(pos)
	return nil
}

// lsGroup groups pairs by key: it returns start offsets per key (n+1 of
// them) and the values in key order, stably.
func lsGroup(pairs []lsPair, n int, byBlock bool) ([]int32, []int32) {
	start := make([]int32, n+1)
	key := func(p lsPair) (int32, int32) {
		if byBlock {
			return p.b, p.v
		}
		return p.v, p.b
	}
	for _, p := range pairs {
		k, _ := key(p)
		start[k+1]++
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	vals := make([]int32, len(pairs))
	fill := slices.Clone(start[:n])
	for _, p := range pairs {
		k, x := key(p)
		vals[fill[k]] = x
		fill[k]++
	}
	return start, vals
}

// liveness computes, for every virtual register, the blocks it is live
// into and out of, by exploring the paths backwards from each
// upward-exposed use to the definitions (one register at a time; a block
// is entered at most once per register). Unpinned registers keep only the
// extent in the linear order (their intervals); pinned ones keep the
// blocks, for their precise live segments.
func (s *lsState) liveness() {
	f := s.f
	nb, nv := len(f.Blocks), s.nv
	expStart, expBlocks := lsGroup(s.exp, nv, false)
	defStart, defBlocks := lsGroup(s.defs, nv, false)
	marks := make([]int32, 3*nb)
	inMark, outMark, dMark := marks[:nb:nb], marks[nb:2*nb:2*nb], marks[2*nb:]
	var work []int32
	var pinIn, pinOut []lsPair
	for v := int32(0); v < int32(nv); v++ {
		exp := expBlocks[expStart[v]:expStart[v+1]]
		if len(exp) == 0 {
			continue
		}
		mark := v + 1
		pinned := f.Pins[v] != mir.NoReg
		for _, b := range defBlocks[defStart[v]:defStart[v+1]] {
			dMark[b] = mark
		}
		lo, hi := int32(-1), int32(-1)
		work = append(work[:0], exp...)
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if inMark[b] == mark {
				continue
			}
			inMark[b] = mark
			if lo < 0 || s.bStart[b] < lo {
				lo = s.bStart[b]
			}
			if pinned {
				pinIn = append(pinIn, lsPair{v, b})
			}
			for _, p := range f.Blocks[b].Preds {
				if outMark[p] == mark {
					continue
				}
				outMark[p] = mark
				hi = max(hi, s.bEnd[p])
				if pinned {
					pinOut = append(pinOut, lsPair{v, int32(p)})
				}
				if dMark[p] != mark {
					work = append(work, int32(p))
				}
			}
		}
		s.lo[v], s.hi[v] = lo, hi
	}
	s.pinInStart, s.pinIn = lsGroup(pinIn, nb, true)
	s.pinOutStart, s.pinOut = lsGroup(pinOut, nb, true)

	// The intervals of the unpinned registers, sorted by start (a counting
	// sort over positions).
	npos := 2*int32(s.stats.Instrs) + 1
	count := make([]int32, npos+1)
	n := 0
	for v := 0; v < nv; v++ {
		if f.Pins[v] != mir.NoReg {
			continue
		}
		st, en := s.defMin[v], max(s.useMax[v], s.defMax[v], s.hi[v])
		if s.lo[v] >= 0 && (st < 0 || s.lo[v] < st) {
			st = s.lo[v]
		}
		if st < 0 {
			continue // never defined nor live
		}
		s.start[v], s.end[v] = st, max(en, st)
		count[st+1]++
		n++
	}
	for i := int32(0); i < npos; i++ {
		count[i+1] += count[i]
	}
	s.sorted = make([]int32, n)
	for v := 0; v < nv; v++ {
		if st := s.start[v]; st >= 0 {
			s.sorted[count[st]] = int32(v)
			count[st]++
		}
	}
	s.stats.Intervals = n
}

// fixedRanges collects the fixed ranges of the allocatable registers: the
// precise live segments of the pinned virtual registers (found by a
// forward walk over each block from its live-in pinned registers) and the
// clobbers of calls.
func (s *lsState) fixedRanges() {
	f := s.f
	nv := s.nv
	open := minus1(2 * nv)
	last := open[nv:]
	open = open[:nv:nv]
	var touched []int32
	add := func(r mir.Reg, a, b int32) {
		if s.allowed.Has(r) {
			s.fixed[r].segs = append(s.fixed[r].segs, lsSeg{a, b})
		}
	}
	pos := int32(0)
	for _, b := range s.order {
		for _, v := range s.pinIn[s.pinInStart[b]:s.pinInStart[b+1]] {
			open[v], last[v] = s.bStart[b], s.bStart[b]
			touched = append(touched, v)
		}
		for _, in := range f.Blocks[b].Instrs {
			u := 2 * pos
			info := in.Op.Info()
			for _, r := range in.Uses {
				if r == mir.NoReg {
					continue
				}
				v := int32(r.Index())
				if f.Pins[v] == mir.NoReg {
					continue
				}
				if open[v] < 0 {
					open[v] = u
					touched = append(touched, v)
				}
				last[v] = u
			}
			for i, r := range in.Defs {
				v := int32(r.Index())
				p := f.Pins[v]
				if p == mir.NoReg {
					continue
				}
				if open[v] >= 0 {
					add(p, open[v], last[v])
				} else {
					touched = append(touched, v)
				}
				d := u + 1
				switch {
				case !info.Variadic && info.Defs[i].EarlyClobber:
					d = u
				case in.Op == mir.OpArg:
					d = 0
				}
				open[v], last[v] = d, d
			}
			if clob := in.Clobbers() & s.allowed; clob != 0 {
				for _, r := range clob.Regs() {
					add(r, u+1, u+1)
				}
			}
			pos++
		}
		for _, v := range s.pinOut[s.pinOutStart[b]:s.pinOutStart[b+1]] {
			if open[v] < 0 {
				open[v] = s.bEnd[b]
				touched = append(touched, v)
			}
			last[v] = s.bEnd[b]
		}
		for _, v := range touched {
			if open[v] >= 0 {
				add(f.Pins[v], open[v], last[v])
				open[v] = -1
			}
		}
		touched = touched[:0]
	}
	for r := range s.fixed {
		x := &s.fixed[r]
		if len(x.segs) == 0 {
			continue
		}
		slices.SortFunc(x.segs, func(a, b lsSeg) int { return int(a.start - b.start) })
		x.maxEnd = make([]int32, len(x.segs))
		m := int32(-1)
		for i, g := range x.segs {
			m = max(m, g.end)
			x.maxEnd[i] = m
		}
		s.stats.Fixed += len(x.segs)
	}
}

// usable reports whether register r is free of fixed ranges over s..e.
func (s *lsState) usable(r mir.Reg, st, en int32) bool {
	return !s.fixed[r].overlaps(st, en)
}

// crossesCall reports whether a call clobbers registers within st..en.
func (s *lsState) crossesCall(st, en int32) bool {
	i, _ := slices.BinarySearch(s.calls, st)
	return i < len(s.calls) && s.calls[i] <= en
}

// scan is Poletto and Sarkar's linear scan: the intervals by increasing
// start, an active list per class sorted by increasing end; expired
// intervals free their registers; an interval takes a free register none
// of whose fixed ranges it overlaps, else the interval that ends furthest
// (the new one, or an active one whose register it can take) is spilled.
func (s *lsState) scan() {
	f := s.f
	var active [3][]int32
	var free [3]mir.RegSet
	for _, c := range []mir.Class{mir.GPR, mir.XMM} {
		free[c] = s.allowed.OfClass(c)
	}
	for _, v := range s.sorted {
		c := f.VRegs[v]
		st, en := s.start[v], s.end[v]
		act := active[c]
		// Expire the intervals that end before this one starts.
		n := 0
		for n < len(act) && s.end[act[n]] < st {
			free[c] = free[c].Add(s.reg[act[n]])
			n++
		}
		if n > 0 {
			act = act[:copy(act, act[n:])]
		}
		if r := s.pick(v, free[c]); r != mir.NoReg {
			s.reg[v] = r
			free[c] = free[c].Remove(r)
			active[c] = s.insertActive(act, v)
			continue
		}
		// Spill the interval that ends furthest: an active one whose
		// register this one can take, or this one.
		victim := -1
		for j := len(act) - 1; j >= 0; j-- {
			if s.usable(s.reg[act[j]], st, en) {
				victim = j
				break
			}
		}
		if victim >= 0 && s.end[act[victim]] > en {
			w := act[victim]
			s.reg[v] = s.reg[w]
			s.reg[w] = mir.NoReg
			act = slices.Delete(act, victim, victim+1)
			active[c] = s.insertActive(act, v)
		} else {
			active[c] = act
		}
		s.stats.SpilledIntervals++
	}
}

// insertActive inserts v into the active list act, sorted by end.
func (s *lsState) insertActive(act []int32, v int32) []int32 {
	e := s.end[v]
	i := len(act)
	for i > 0 && s.end[act[i-1]] > e {
		i--
	}
	return slices.Insert(act, i, v)
}

// pick chooses a free register for v whose fixed ranges v's interval does
// not overlap: its hint, else (by preference order) a caller-saved one
// when the interval crosses no call, a callee-saved one when it does.
func (s *lsState) pick(v int32, free mir.RegSet) mir.Reg {
	st, en := s.start[v], s.end[v]
	if free == 0 {
		return mir.NoReg
	}
	if h := s.hintReg[v]; h != mir.NoReg && free.Has(h) && s.usable(h, st, en) {
		return h
	}
	if w := s.hintV[v]; w >= 0 {
		if h := s.reg[w]; h != mir.NoReg && free.Has(h) && s.usable(h, st, en) {
			return h
		}
	}
	c := s.f.VRegs[v]
	first, second := s.caller[c], s.callee[c]
	if s.crossesCall(st, en) {
		first, second = second, first
	}
	for _, list := range [2][]mir.Reg{first, second} {
		for _, r := range list {
			if free.Has(r) && s.usable(r, st, en) {
				return r
			}
		}
	}
	return mir.NoReg
}

// spilled reports whether v lives in memory (its interval found no
// register).
func (s *lsState) spilled(v int32) bool {
	return s.reg[v] == mir.NoReg && s.f.Pins[v] == mir.NoReg
}

// isRemat reports whether v is recomputed rather than reloaded.
func (s *lsState) isRemat(v int32) bool { return s.remat[v].state == lsRematOK }

// homeOf returns v's stack slot, creating it: a stack argument's incoming
// slot, else a slot of its own.
func (s *lsState) homeOf(v int32) mir.Reg {
	if s.home[v] == mir.NoReg {
		if a := s.argSlot[v]; a != mir.NoReg {
			s.home[v] = a
		} else {
			s.home[v] = s.out.NewSlot(s.f.VRegs[v])
		}
	}
	return s.home[v]
}

// regOf returns the register v lives in (its pin or its assignment), or
// NoReg.
func (s *lsState) regOf(v int32) mir.Reg {
	if p := s.f.Pins[v]; p != mir.NoReg {
		return p
	}
	return s.reg[v]
}

// locOf returns where v's value is between instructions: its register, or
// its stack slot.
func (s *lsState) locOf(v int32) mir.Reg {
	if r := s.regOf(v); r != mir.NoReg {
		return r
	}
	return s.homeOf(v)
}

// Kinds of emitted instructions, for the statistics.
const (
	lsKindNone = iota
	lsKindSpill
	lsKindReload
	lsKindRemat
	lsKindMove
)

// lsKind classifies an inserted instruction: stores to and loads from
// stack slots are spill code, register copies, exchanges and transfers to
// and from stack-argument slots are moves.
func lsKind(in *mir.Instr) int {
	switch in.Op {
	case mir.OpSpill:
		if in.Defs[0].IsSlot() {
			return lsKindSpill
		}
		return lsKindMove
	case mir.OpReload:
		if in.Uses[0].IsSlot() {
			return lsKindReload
		}
		return lsKindMove
	case mir.OpCopy, mir.OpXchg:
		return lsKindMove
	}
	if IsRematOp(in.Op) {
		return lsKindRemat
	}
	return lsKindNone
}

// newInstr returns a new instruction of the output with at most one def
// and one use (NoReg: none), its operands in the output's arena.
func (s *lsState) newInstr(op mir.Op, def, use mir.Reg, imm int64, aux, pos int32) *mir.Instr {
	p := s.out.NewInstr(mir.Instr{Op: op, Imm: imm, Aux: aux, Pos: pos})
	if def != mir.NoReg {
		p.Defs = append(s.out.RegSlice(1), def)
	}
	if use != mir.NoReg {
		p.Uses = append(s.out.RegSlice(1), use)
	}
	return p
}

// emit appends an instruction of the output with its origin (-1:
// inserted), counting inserted ones.
func (s *lsState) emit(p *mir.Instr, origin int32, inserted bool) {
	s.code = append(s.code, p)
	s.orig = append(s.orig, origin)
	if inserted {
		s.count(p, 1, s.blockFreq)
	}
}

// count adds n inserted instructions like p, executed w times per call in
// all, to the statistics.
func (s *lsState) count(p *mir.Instr, n int, w float64) {
	st := &s.stats
	switch lsKind(p) {
	case lsKindSpill:
		st.Spills += n
		st.WeightedSpills += w
	case lsKindReload:
		st.Reloads += n
		st.WeightedReloads += w
	case lsKindRemat:
		st.Remats += n
		st.WeightedRemats += w
	case lsKindMove:
		st.Moves += n
		st.WeightedMoves += w
	}
}

// emitMove appends the move of one value from src to dst (registers or
// memory; memory to memory through the scratch register, as
// Sequentialize does it); nothing when they are one location.
func (s *lsState) emitMove(dst, src mir.Reg, pos, origin int32) {
	switch {
	case dst == src:
	case dst.IsPhys() && src.IsPhys():
		s.emit(s.newInstr(mir.OpCopy, dst, src, 0, 0, pos), origin, true)
	case dst.IsPhys():
		s.emit(s.newInstr(mir.OpReload, dst, src, 0, 0, pos), origin, true)
	case src.IsPhys():
		s.emit(s.newInstr(mir.OpSpill, dst, src, 0, 0, pos), origin, true)
	default:
		s.emit(s.newInstr(mir.OpReload, mir.ScratchGPR, src, 0, 0, pos), origin, true)
		s.emit(s.newInstr(mir.OpSpill, dst, mir.ScratchGPR, 0, 0, pos), origin, true)
	}
}

// emitMoves appends the moves of a parallel copy between locations.
func (s *lsState) emitMoves(moves []Move, pos int32, origin int32) error {
	switch len(moves) {
	case 0:
		return nil
	case 1:
		s.emitMove(moves[0].Dst, moves[0].Src, pos, origin)
		return nil
	}
	seq, err := Sequentialize(moves)
	if err != nil {
		return fmt.Errorf("alloc: linear scan %s: internal error: %v", s.f.Name, err)
	}
	for _, in := range seq {
		in.Pos = pos
		s.emit(s.out.NewInstr(*in), origin, true)
	}
	return nil
}

// emitRemat appends the recomputation of v into register r.
func (s *lsState) emitRemat(v int32, r mir.Reg, pos int32) {
	rm := s.remat[v]
	s.emit(s.newInstr(rm.op, r, mir.NoReg, rm.imm, rm.aux, pos), -1, true)
}

// emitLoad appends the reload (or recomputation) of v into register r.
func (s *lsState) emitLoad(v int32, r mir.Reg, pos int32) {
	if s.isRemat(v) {
		s.emitRemat(v, r, pos)
		return
	}
	s.emit(s.newInstr(mir.OpReload, r, s.homeOf(v), 0, 0, pos), -1, true)
}

// emitStore appends the store of v from register r to its slot (nothing
// for a recomputed value).
func (s *lsState) emitStore(v int32, r mir.Reg, pos int32) {
	if s.isRemat(v) {
		return
	}
	s.emit(s.newInstr(mir.OpSpill, s.homeOf(v), r, 0, 0, pos), -1, true)
}

// rewrite builds the allocated function: every operand in its register,
// spilled values reloaded into temporaries before each use and stored
// after each definition, copies turned into moves, stack-argument
// operands stored and loaded around their instructions.
func (s *lsState) rewrite() error {
	f := s.f
	nb := len(f.Blocks)
	s.out = &mir.Func{Name: f.Name, Index: f.Index, Params: slices.Clone(f.Params),
		Results: slices.Clone(f.Results), Form: mir.FormAllocated}
	s.out.Blocks = make([]*mir.Block, nb)
	s.org = &Origins{Block: make([]int, nb), Instr: make([][]int32, nb)}
	for i := range s.occ {
		s.occ[i] = -1
		s.fixedUntil[i] = -1
	}
	s.opStamp = make([]int32, s.nv)
	pos := int32(0)
	var tails []edgeTail
	for _, b := range s.order {
		blk := f.Blocks[b]
		s.blockFreq = blk.Freq
		s.code = make([]*mir.Instr, 0, len(blk.Instrs)+len(blk.Instrs)/4+2)
		s.orig = make([]int32, 0, cap(s.code))
		var argMoves []Move
		for k, in := range blk.Instrs {
			if in.Op == mir.OpArg {
				if err := s.rewriteArg(in, k, &argMoves); err != nil {
					return err
				}
				pos++
				continue
			}
			if len(argMoves) > 0 {
				if err := s.emitMoves(argMoves, -1, -1); err != nil {
					return err
				}
				argMoves = nil
			}
			var err error
			if in.Op == mir.OpCopy || in.Op == mir.OpParCopy {
				err = s.rewriteCopy(in, int32(k), pos)
			} else {
				err = s.rewriteInstr(in, int32(k), pos)
			}
			if err != nil {
				return fmt.Errorf("alloc: linear scan %s b%d[%d] (%s): %w", f.Name, b, k, in.Op, err)
			}
			pos++
		}
		code, orig := s.code, s.orig
		var tail []*mir.Instr
		if t := terminatorIndex(code); t >= 0 && t < len(code)-1 {
			// Restores after a terminator that reads a register (a
			// JMPTABLE whose index was reloaded into an evicted
			// register) go on the outgoing edges.
			tail = code[t+1:]
			code, orig = code[:t+1], orig[:t+1]
		}
		nbk := &mir.Block{ID: int(b), Freq: blk.Freq, Instrs: code,
			Succs: slices.Clone(blk.Succs), SuccProb: slices.Clone(blk.SuccProb), Preds: slices.Clone(blk.Preds)}
		s.out.Blocks[b] = nbk
		s.org.Block[b] = int(b)
		s.org.Instr[b] = orig
		if tail != nil {
			tails = append(tails, edgeTail{int(b), tail})
		}
	}
	for _, t := range tails {
		s.splitOutEdges(t.block, t.code)
	}
	return nil
}

// edgeTail is code the rewrite emitted after a block's terminator.
type edgeTail struct {
	block int
	code  []*mir.Instr
}

// terminatorIndex returns the index of the first terminator in code, or -1.
func terminatorIndex(code []*mir.Instr) int {
	for i, in := range code {
		if in.Op.Info().Terminator {
			return i
		}
	}
	return -1
}

// splitOutEdges gives every outgoing edge of output block b a new block
// that runs a copy of code and jumps to the edge's target.
func (s *lsState) splitOutEdges(b int, code []*mir.Instr) {
	out := s.out
	blk := out.Blocks[b]
	for i, t := range blk.Succs {
		e := len(out.Blocks)
		instrs := make([]*mir.Instr, 0, len(code)+1)
		orig := make([]int32, 0, len(code)+1)
		for _, in := range code {
			instrs = append(instrs, out.NewInstr(*in.Clone()))
			orig = append(orig, -1)
		}
		instrs = append(instrs, out.NewInstr(mir.Instr{Op: mir.OpJMP, Pos: -1}))
		orig = append(orig, -1)
		freq := blk.Freq
		if i < len(blk.SuccProb) {
			freq *= blk.SuccProb[i]
		}
		out.Blocks = append(out.Blocks, &mir.Block{ID: e, Freq: freq, Instrs: instrs,
			Succs: []int{t}, SuccProb: []float64{1}, Preds: []int{b}})
		s.org.Block = append(s.org.Block, -1)
		s.org.Instr = append(s.org.Instr, orig)
		// Edges are split in order, so this edge is the first of b's
		// remaining entries among t's predecessors.
		succ := out.Blocks[t]
		if k := slices.Index(succ.Preds, b); k >= 0 {
			succ.Preds[k] = e
		}
		blk.Succs[i] = e
	}
	// The code was counted once at the block's frequency; it now runs on
	// every edge, at the edges' frequencies (which sum to the block's).
	for _, in := range code {
		s.count(in, len(blk.Succs)-1, 0)
	}
}

// rewriteArg emits an argument in its calling-convention location; a
// stack argument given a register is loaded into it after the arguments.
func (s *lsState) rewriteArg(in *mir.Instr, k int, moves *[]Move) error {
	at := s.argLocs[in.Aux]
	s.emit(s.newInstr(mir.OpArg, at, mir.NoReg, 0, in.Aux, in.Pos), int32(k), false)
	v := int32(in.Defs[0].Index())
	if r := s.regOf(v); at.IsArgSlot() && r != mir.NoReg && s.useMax[v] >= 0 {
		*moves = append(*moves, Move{Dst: r, Src: at})
	}
	return nil
}

// hasUse reports whether v is read anywhere (a definition of a value
// never read needs no store or move).
func (s *lsState) hasUse(v int32) bool { return s.useMax[v] >= 0 }

// advance moves the sweep over assigned intervals to position p: occ[r]
// becomes the last interval assigned r that starts at or before p (the
// intervals of one register do not overlap, so it is the one that may
// cover p).
func (s *lsState) advance(p int32) {
	for s.sweep < len(s.sorted) {
		v := s.sorted[s.sweep]
		if s.start[v] > p {
			break
		}
		if r := s.reg[v]; r != mir.NoReg {
			s.occ[r] = v
		}
		s.sweep++
	}
}

// busyAt returns the allowed registers of class c busy at position p (the
// sweep must be at p): holding an assigned interval that covers p, or in
// a fixed range there. fixedOnly returns those busy by fixed ranges.
func (s *lsState) busyAt(c mir.Class, p int32) (busy, fixedOnly mir.RegSet) {
	for _, list := range [2][]mir.Reg{s.caller[c], s.callee[c]} {
		for _, r := range list {
			x := &s.fixed[r]
			for s.fixPtr[r] < len(x.segs) && x.segs[s.fixPtr[r]].start <= p {
				s.fixedUntil[r] = max(s.fixedUntil[r], x.segs[s.fixPtr[r]].end)
				s.fixPtr[r]++
			}
			if s.fixedUntil[r] >= p {
				busy = busy.Add(r)
				fixedOnly = fixedOnly.Add(r)
				continue
			}
			if w := s.occ[r]; w >= 0 && s.end[w] >= p && s.start[w] <= p {
				busy = busy.Add(r)
			}
		}
	}
	return busy, fixedOnly
}

// assignTemps gives the spill temporaries of instruction k (at position
// 2k) registers: free ones of the allowed set, else registers whose
// values are saved around the instruction (the value that ends furthest
// among those that cover the instruction and are not its operands).
func (s *lsState) assignTemps(u int32) error {
	var busyU, busyD, fixU, fixD [3]mir.RegSet
	var need [3]bool
	for _, t := range s.temps {
		need[s.f.VRegs[t.v]] = true
	}
	s.advance(u)
	for _, c := range []mir.Class{mir.GPR, mir.XMM} {
		if need[c] {
			busyU[c], fixU[c] = s.busyAt(c, u)
		}
	}
	s.advance(u + 1)
	for _, c := range []mir.Class{mir.GPR, mir.XMM} {
		if need[c] {
			busyD[c], fixD[c] = s.busyAt(c, u+1)
		}
	}
	var takenU, takenD mir.RegSet
	// Temporaries busy at both positions first, then those of uses, then
	// those of defs.
	for round := 0; round < 3; round++ {
		for i := range s.temps {
			t := &s.temps[i]
			atU, atD := t.use || t.early, t.def
			switch round {
			case 0:
				if !(atU && atD) {
					continue
				}
			case 1:
				if !(atU && !atD) {
					continue
				}
			default:
				if atU {
					continue
				}
			}
			c := s.f.VRegs[t.v]
			var blocked mir.RegSet
			if atU {
				blocked |= busyU[c] | takenU
			}
			if atD {
				blocked |= busyD[c] | takenD
			}
			r := mir.NoReg
			for _, list := range [2][]mir.Reg{s.caller[c], s.callee[c]} {
				for _, x := range list {
					if !blocked.Has(x) {
						r = x
						break
					}
				}
				if r != mir.NoReg {
					break
				}
			}
			if r == mir.NoReg {
				// Save a value around the instruction.
				var fixedBlocked mir.RegSet
				if atU {
					fixedBlocked |= fixU[c] | takenU
				}
				if atD {
					fixedBlocked |= fixD[c] | takenD
				}
				best := int32(-1)
				for _, list := range [2][]mir.Reg{s.caller[c], s.callee[c]} {
					for _, x := range list {
						if fixedBlocked.Has(x) {
							continue
						}
						w := s.occ[x]
						if w < 0 || s.start[w] > u || s.end[w] < u+1 || s.opStamp[w] == u+1 || slices.Contains(s.victims, w) {
							continue
						}
						if best < 0 || s.end[w] > s.end[best] {
							best = w
						}
					}
				}
				if best < 0 {
					return fmt.Errorf("no %s register for a spill temporary", c)
				}
				s.victims = append(s.victims, best)
				s.stats.Evictions++
				r = s.reg[best]
			}
			t.reg = r
			if atU {
				takenU = takenU.Add(r)
			}
			if atD {
				takenD = takenD.Add(r)
			}
		}
	}
	return nil
}

// tempOf returns the temporary of v at the current instruction, or NoReg.
func (s *lsState) tempOf(v int32) mir.Reg {
	for i := range s.temps {
		if s.temps[i].v == v {
			return s.temps[i].reg
		}
	}
	return mir.NoReg
}

// addTemp records that v needs a temporary at the current instruction
// for a use or a def.
func (s *lsState) addTemp(v int32, use, def, early bool) {
	for i := range s.temps {
		if t := &s.temps[i]; t.v == v {
			t.use = t.use || use
			t.def = t.def || def
			t.early = t.early || early
			return
		}
	}
	s.temps = append(s.temps, lsTemp{v: v, reg: mir.NoReg, use: use, def: def, early: early})
}

// operandSlots returns the stack-argument slots the uses and defs of a
// call or RET are fixed to (NoReg for register operands), or nils.
func (s *lsState) operandSlots(in *mir.Instr) (uses, defs []mir.Reg) {
	f := s.f
	info := in.Op.Info()
	classes := func(rs []mir.Reg) []mir.Class {
		cs := make([]mir.Class, len(rs))
		for i, r := range rs {
			cs[i] = f.VRegs[r.Index()]
		}
		return cs
	}
	switch {
	case info.Call:
		n := mir.CallArgs(in)
		uc := classes(in.Uses[:n])
		uses = mir.ArgLocations(uc, false)
		for range in.Uses[n:] {
			uses = append(uses, mir.NoReg) // CALLIND's callee index, in its register
		}
		defs = mir.ResultLocations(uc, classes(in.Defs), false)
	case in.Op == mir.OpRET:
		uses = mir.ResultLocations(f.Params, classes(in.Uses), true)
	default:
		return nil, nil
	}
	for i, r := range uses {
		if !r.IsArgSlot() {
			uses[i] = mir.NoReg
		}
	}
	for i, r := range defs {
		if !r.IsArgSlot() {
			defs[i] = mir.NoReg
		}
	}
	return uses, defs
}

// rewriteInstr emits an ordinary instruction at position 2*pos with its
// operands in registers and the spill code around it.
func (s *lsState) rewriteInstr(in *mir.Instr, k, pos int32) error {
	info := in.Op.Info()
	u := 2 * pos
	stamp := u + 1
	var useSlots, defSlots []mir.Reg
	if info.Variadic {
		useSlots, defSlots = s.operandSlots(in)
	}
	s.temps = s.temps[:0]
	s.victims = s.victims[:0]
	for i, r := range in.Uses {
		if r == mir.NoReg {
			continue
		}
		v := int32(r.Index())
		s.opStamp[v] = stamp
		if !s.spilled(v) {
			continue
		}
		if useSlots != nil && useSlots[i] != mir.NoReg {
			if s.isRemat(v) {
				s.addTemp(v, true, false, false)
			}
			continue
		}
		s.addTemp(v, true, false, false)
	}
	for i, r := range in.Defs {
		v := int32(r.Index())
		s.opStamp[v] = stamp
		if !s.spilled(v) || (defSlots != nil && defSlots[i] != mir.NoReg) {
			continue
		}
		s.addTemp(v, false, true, !info.Variadic && info.Defs[i].EarlyClobber)
	}
	if len(s.temps) > 0 {
		if err := s.assignTemps(u); err != nil {
			return err
		}
	}
	// Saves, reloads, stack arguments.
	for _, w := range s.victims {
		s.emitStore(w, s.reg[w], in.Pos)
	}
	for _, t := range s.temps {
		if t.use {
			s.emitLoad(t.v, t.reg, in.Pos)
		}
	}
	uses := append(s.useBuf[:0], in.Uses...)
	defs := append(s.defBuf[:0], in.Defs...)
	s.moves = s.moves[:0]
	for i, r := range in.Uses {
		if r == mir.NoReg {
			continue
		}
		v := int32(r.Index())
		if useSlots != nil && useSlots[i] != mir.NoReg {
			src := s.tempOf(v)
			if src == mir.NoReg {
				src = s.locOf(v)
			}
			s.moves = append(s.moves, Move{Dst: useSlots[i], Src: src})
			uses[i] = useSlots[i]
			continue
		}
		if t := s.tempOf(v); t != mir.NoReg {
			uses[i] = t
		} else {
			uses[i] = s.regOf(v)
		}
	}
	if err := s.emitMoves(s.moves, in.Pos, -1); err != nil {
		return err
	}
	s.moves = s.moves[:0]
	for i, r := range in.Defs {
		v := int32(r.Index())
		if defSlots != nil && defSlots[i] != mir.NoReg {
			defs[i] = defSlots[i]
			if s.hasUse(v) {
				s.moves = append(s.moves, Move{Dst: s.locOf(v), Src: defSlots[i]})
			}
			continue
		}
		if t := s.tempOf(v); t != mir.NoReg {
			defs[i] = t
		} else {
			defs[i] = s.regOf(v)
		}
	}
	s.useBuf, s.defBuf = uses, defs
	c := *in
	c.Uses, c.Defs = uses, defs
	s.emit(s.out.NewInstr(c), k, false)
	// Stores of spilled definitions, stack results, restores.
	for _, t := range s.temps {
		if t.def && s.hasUse(t.v) {
			s.emitStore(t.v, t.reg, in.Pos)
		}
	}
	if err := s.emitMoves(s.moves, in.Pos, -1); err != nil {
		return err
	}
	for _, w := range s.victims {
		s.emitLoad(w, s.reg[w], in.Pos)
	}
	return nil
}

// rewriteCopy emits a copy or parallel copy at position 2*pos as moves
// between the final locations of its operands (moves between one location
// vanish); a rematerialized source is recomputed into its destination.
func (s *lsState) rewriteCopy(in *mir.Instr, k, pos int32) error {
	u := 2 * pos
	s.temps = s.temps[:0]
	s.victims = s.victims[:0]
	s.moves = s.moves[:0]
	remats := s.remats[:0]
	var haveTemp [3]bool // per class
	for i, d := range in.Defs {
		dv, sv := int32(d.Index()), int32(in.Uses[i].Index())
		s.opStamp[dv], s.opStamp[sv] = u+1, u+1
		if !s.hasUse(dv) {
			continue
		}
		dst := s.locOf(dv)
		if s.spilled(sv) && s.isRemat(sv) {
			if c := s.f.VRegs[dv]; !dst.IsPhys() && !haveTemp[c] {
				// Constants into stack slots go through one register of
				// their class, one after the other.
				s.addTemp(dv, false, true, false)
				haveTemp[c] = true
			}
			remats = append(remats, lsRematDst{dst, sv})
			continue
		}
		s.moves = append(s.moves, Move{Dst: dst, Src: s.locOf(sv)})
	}
	if len(s.temps) > 0 {
		if err := s.assignTemps(u); err != nil {
			return err
		}
	}
	for _, w := range s.victims {
		s.emitStore(w, s.reg[w], in.Pos)
	}
	if err := s.emitMoves(s.moves, in.Pos, k); err != nil {
		return err
	}
	for _, m := range remats {
		if m.dst.IsPhys() {
			s.emitRemat(m.v, m.dst, in.Pos)
			continue
		}
		// The destination is spilled: the temporary of its class carries
		// the constant.
		t := mir.NoReg
		for _, x := range s.temps {
			if s.f.VRegs[x.v] == s.f.VRegs[m.v] {
				t = x.reg
			}
		}
		if t == mir.NoReg {
			return fmt.Errorf("no %s temporary for a constant", s.f.VRegs[m.v])
		}
		s.emitRemat(m.v, t, in.Pos)
		s.emit(s.newInstr(mir.OpSpill, m.dst, t, 0, 0, in.Pos), -1, true)
	}
	for _, w := range s.victims {
		s.emitLoad(w, s.reg[w], in.Pos)
	}
	s.remats = remats
	return nil
}

// lsRematDst is a destination of a copy whose source is recomputed.
type lsRematDst struct {
	dst mir.Reg
	v   int32
}

// hasFixedOperand reports whether some operand of f must be in a fixed
// physical register.
func hasFixedOperand(f *mir.Func) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			for i := range in.Defs {
				if f.DefSpec(in, i).Fixed.IsPhys() {
					return true
				}
			}
			for i := range in.Uses {
				if f.UseSpec(in, i).Fixed.IsPhys() {
					return true
				}
			}
		}
	}
	return false
}
