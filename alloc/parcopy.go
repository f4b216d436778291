package alloc

import (
	"errors"
	"fmt"

	"github.com/kiln-jit/kiln/mir"
)

// Move is one assignment of a parallel copy: Dst receives the value Src
// held before the copy.
type Move struct{ Dst, Src mir.Reg }

// Sequentialize returns a sequence of move instructions that performs the
// parallel copy moves: afterwards every Dst holds the value its Src held
// before, and every location that is not a Dst keeps its value, except the
// scratch registers mir.ScratchGPR and mir.ScratchXMM, which may be
// clobbered.
//
// Locations are physical registers (GPR or XMM) and memory locations
// (stack slots and stack-argument slots). Destinations must be distinct; a
// source may feed several destinations; moves with Dst == Src are dropped.
// A register-to-register move must stay within one register class; memory
// holds 64-bit bit patterns of either class, so moves between memory and a
// register of either class are allowed. Invalid input (duplicate
// destinations, a cross-class register move, virtual registers, NoReg, a
// scratch register as Dst or Src) is reported as an error.
//
// The instructions are OpCopy (register to register of one class),
// OpReload (memory to register), OpSpill (register to memory) and OpXchg
// (a swap of two GPRs), all with Pos -1. A memory-to-memory move becomes a
// reload into a scratch register and a spill from it: ScratchGPR, or
// ScratchXMM while ScratchGPR holds a value saved to break a cycle (and
// vice versa), so either scratch register may carry the bits of a value of
// the other class between two memory locations. The result is
// deterministic: ties are broken by the order of moves.
//
// Moves are emitted as soon as no pending move reads their destination;
// when only cycles remain, a cycle of GPRs is resolved with exchanges, and
// any other cycle is broken by saving one of its values in a scratch
// register (or by reading it from a destination already written with it).
// The sequence is short: every move costs one instruction (two for a
// memory-to-memory move), and every cycle of the copy costs at most one
// more; a cycle of n GPRs takes n-1 exchanges. A value already copied into
// a register is read from that register rather than from memory again.
func Sequentialize(moves []Move) ([]*mir.Instr, error) {
	s, err := pcNewState(moves)
	if err != nil {
		return nil, err
	}
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.result(), nil
}

// appendMove appends to out the instructions Sequentialize gives for the
// single move m, allocated in f's arenas and attributed to bytecode offset
// pos. A move costs one instruction, a memory-to-memory one two through
// the GPR scratch register.
func appendMove(f *mir.Func, out []*mir.Instr, m Move, pos int32) ([]*mir.Instr, error) {
	if why := pcCheckLoc(m.Dst); why != "" {
		return nil, fmt.Errorf("alloc: move %s <- %s: destination %s", m.Dst, m.Src, why)
	}
	if why := pcCheckLoc(m.Src); why != "" {
		return nil, fmt.Errorf("alloc: move %s <- %s: source %s", m.Dst, m.Src, why)
	}
	emit := func(op mir.Op, d, u mir.Reg) {
		out = append(out, f.NewInstr(mir.Instr{Op: op, Defs: []mir.Reg{d}, Uses: []mir.Reg{u}, Pos: pos}))
	}
	switch d, s := m.Dst, m.Src; {
	case d == s:
	case d.IsPhys() && s.IsPhys():
		if d.Class() != s.Class() {
			return nil, fmt.Errorf("alloc: move %s <- %s: copies a %s register to a %s register", d, s, s.Class(), d.Class())
		}
		emit(mir.OpCopy, d, s)
	case d.IsPhys():
		emit(mir.OpReload, d, s)
	case s.IsPhys():
		emit(mir.OpSpill, d, s)
	default:
		emit(mir.OpReload, mir.ScratchGPR, s)
		emit(mir.OpSpill, d, mir.ScratchGPR)
	}
	return out, nil
}

// pcScratch lists the scratch registers; their location ids are their
// indexes here.
var pcScratch = [2]mir.Reg{mir.ScratchGPR, mir.ScratchXMM}

// pcMove is a move of the sequentializer: the location id of its
// destination and the value it needs (named by the location id of the
// value's original holder).
type pcMove struct {
	dst, val int
	done     bool
}

// pcState is the sequentializer's state. Location ids 0 and 1 are the
// scratch registers; the others are the locations of the copy in order of
// first appearance. A value is named by the id of the location that held it
// before the copy.
type pcState struct {
	locs []mir.Reg
	// index maps a location to its id; it is nil for small copies, whose
	// locations are found by a linear search.
	index map[mir.Reg]int
	moves []pcMove
	// dstMove maps a location id to the move writing it, or -1.
	dstMove []int
	// holder maps a value to the location the pending moves read it from.
	holder []int
	// readers counts, per location id, the pending moves reading it.
	readers []int
	// The destinations already written with a value keep it (they are
	// never written again); they are listed per value, in the order they
	// were written, in a linked list: copyHead and copyTail map a value to
	// the first and last location of its list, or -1, and copyNext maps a
	// location to the next one.
	copyHead, copyTail, copyNext []int
	// cache is the value each scratch register holds, or -1.
	cache   [2]int
	pending int
	first   int // no move before this index is pending
	// ready and readyMem hold the free moves (whose destination no pending
	// move reads) by index: those that need no scratch register, and the
	// memory-to-memory ones.
	ready, readyMem pcHeap

	instrs []mir.Instr
	regBuf []mir.Reg
}

// pcCheckLoc reports why r cannot be a location of a parallel copy.
func pcCheckLoc(r mir.Reg) string {
	switch {
	case r == mir.NoReg:
		return "is noreg"
	case r.IsVirtual():
		return fmt.Sprintf("%s is a virtual register", r)
	case r.IsScratch():
		return fmt.Sprintf("%s is a scratch register", r)
	case r.IsPhys() || r.IsMem():
		return ""
	}
	return fmt.Sprintf("%s is not a location", r)
}

// pcNewState validates the moves and builds the initial state.
func pcNewState(moves []Move) (*pcState, error) {
	s := &pcState{
		locs:  append(make([]mir.Reg, 0, 2*len(moves)+2), pcScratch[:]...),
		cache: [2]int{-1, -1},
	}
	if len(moves) > pcSmall {
		s.index = make(map[mir.Reg]int, 2*len(moves)+2)
		s.index[mir.ScratchGPR], s.index[mir.ScratchXMM] = 0, 1
	}
	// writer maps a location id to the move writing it (self moves
	// included), or -1.
	writer := make([]int, 0, 2*len(moves)+2)
	s.moves = make([]pcMove, 0, len(moves))
	memMem := 0
	for i, m := range moves {
		if why := pcCheckLoc(m.Dst); why != "" {
			return nil, fmt.Errorf("alloc: parallel copy move %d (%s <- %s): destination %s", i, m.Dst, m.Src, why)
		}
		if why := pcCheckLoc(m.Src); why != "" {
			return nil, fmt.Errorf("alloc: parallel copy move %d (%s <- %s): source %s", i, m.Dst, m.Src, why)
		}
		if m.Dst.IsPhys() && m.Src.IsPhys() && m.Dst.Class() != m.Src.Class() {
			return nil, fmt.Errorf("alloc: parallel copy move %d (%s <- %s): copies a %s register to a %s register",
				i, m.Dst, m.Src, m.Src.Class(), m.Dst.Class())
		}
		d := s.loc(m.Dst)
		for len(writer) < len(s.locs) {
			writer = append(writer, -1)
		}
		if j := writer[d]; j >= 0 {
			return nil, fmt.Errorf("alloc: parallel copy move %d (%s <- %s): destination %s is also written by move %d",
				i, m.Dst, m.Src, m.Dst, j)
		}
		writer[d] = i
		if m.Dst != m.Src {
			s.moves = append(s.moves, pcMove{dst: d, val: s.loc(m.Src)})
			if m.Dst.IsMem() && m.Src.IsMem() {
				memMem++
			}
		}
	}
	n := len(s.locs)
	ints := make([]int, 6*n)
	s.dstMove, s.holder, s.readers = ints[:n:n], ints[n:2*n:2*n], ints[2*n:3*n:3*n]
	s.copyHead, s.copyTail, s.copyNext = ints[3*n:4*n:4*n], ints[4*n:5*n:5*n], ints[5*n:]
	for i := range n {
		s.dstMove[i], s.copyHead[i], s.copyTail[i], s.copyNext[i] = -1, -1, -1, -1
		s.holder[i] = i
	}
	for i, m := range s.moves {
		s.dstMove[m.dst] = i
		s.readers[m.val]++
	}
	for i, m := range s.moves {
		if s.readers[m.dst] == 0 {
			s.push(i)
		}
	}
	s.pending = len(s.moves)
	// Every move costs one instruction, a memory-to-memory move two, and
	// a cycle at most one more (result takes pointers only at the end, so
	// the slice may grow).
	s.instrs = make([]mir.Instr, 0, len(s.moves)+memMem+1)
	return s, nil
}

// pcSmall is the number of moves up to which locations are looked up by a
// linear search rather than in a map.
const pcSmall = 16

// loc returns the location id of r, adding it if it is new.
func (s *pcState) loc(r mir.Reg) int {
	if s.index == nil {
		for id, l := range s.locs {
			if l == r {
				return id
			}
		}
	} else if id, ok := s.index[r]; ok {
		return id
	}
	s.locs = append(s.locs, r)
	id := len(s.locs) - 1
	if s.index != nil {
		s.index[r] = id
	}
	return id
}

func (s *pcState) isMem(id int) bool { return s.locs[id].IsMem() }

// run emits the moves: free moves (whose destination no pending move
// reads) first, in order, preferring those that need no scratch register;
// when only cycles remain, it breaks one.
func (s *pcState) run() error {
	for s.pending > 0 {
		h := &s.ready
		if len(*h) == 0 {
			h = &s.readyMem
		}
		if len(*h) == 0 {
			if err := s.breakCycle(); err != nil {
				return err
			}
			continue
		}
		if err := s.emitMove(h.pop()); err != nil {
			return err
		}
	}
	return nil
}

// push adds move i, which has become free, to the ready moves. A free
// move's source stays where it is (only breaking a cycle moves values, and
// that happens when no move is free).
func (s *pcState) push(i int) {
	m := &s.moves[i]
	if s.isMem(m.dst) && s.isMem(s.holder[m.val]) {
		s.readyMem.push(i)
	} else {
		s.ready.push(i)
	}
}

// release notes that a pending move no longer reads location l; the move
// writing l becomes free when none does.
func (s *pcState) release(l int) {
	s.readers[l]--
	if j := s.dstMove[l]; s.readers[l] == 0 && j >= 0 && !s.moves[j].done {
		s.push(j)
	}
}

// regCopy returns a register holding value v besides its holder — a
// destination already written with it or a scratch register caching it —
// of class c (any class for mir.ClassNone), or -1.
func (s *pcState) regCopy(v int, c mir.Class) int {
	for id := s.copyHead[v]; id >= 0; id = s.copyNext[id] {
		if r := s.locs[id]; r.IsPhys() && (c == mir.ClassNone || r.Class() == c) {
			return id
		}
	}
	for id, r := range pcScratch {
		if s.cache[id] == v && (c == mir.ClassNone || r.Class() == c) {
			return id
		}
	}
	return -1
}

// emitMove emits pending move i, whose destination is free.
func (s *pcState) emitMove(i int) error {
	m := &s.moves[i]
	h := s.holder[m.val]
	d := m.dst
	dr, hr := s.locs[d], s.locs[h]
	switch {
	case dr.IsPhys() && hr.IsPhys():
		s.emit(mir.OpCopy, d, h)
	case dr.IsPhys():
		if c := s.regCopy(m.val, dr.Class()); c >= 0 {
			s.emit(mir.OpCopy, d, c)
		} else {
			s.emit(mir.OpReload, d, h)
		}
	case hr.IsPhys():
		s.emit(mir.OpSpill, d, h)
	default:
		c := s.regCopy(m.val, mir.ClassNone)
		if c < 0 {
			// Route through a free scratch register, the GPR one if
			// possible.
			for id := range pcScratch {
				if s.readers[id] == 0 {
					c = id
					break
				}
			}
			if c < 0 {
				return errors.New("alloc: parallel copy: internal error: no free scratch register")
			}
			s.emit(mir.OpReload, c, h)
			s.cache[c] = m.val
		}
		s.emit(mir.OpSpill, d, c)
	}
	s.finish(i, h)
	return nil
}

// finish marks move i done; it read location h.
func (s *pcState) finish(i, h int) {
	m := &s.moves[i]
	m.done = true
	s.pending--
	s.release(h)
	if t := s.copyTail[m.val]; t >= 0 {
		s.copyNext[t] = m.dst
	} else {
		s.copyHead[m.val] = m.dst
	}
	s.copyTail[m.val] = m.dst
}

// breakCycle breaks the cycle of the first pending move; it is called when
// every pending move is on a cycle.
func (s *pcState) breakCycle() error {
	for s.first < len(s.moves) && s.moves[s.first].done {
		s.first++
	}
	i0 := s.first
	if i0 == len(s.moves) {
		return errors.New("alloc: parallel copy: internal error: no pending move")
	}
	// The cycle's locations c[0] <- c[1] <- ... <- c[n-1] <- c[0], and the
	// move writing each.
	var cyc, mv []int
	allGPR := true
	for l := s.moves[i0].dst; ; {
		j := s.dstMove[l]
		if j < 0 || s.moves[j].done || len(cyc) > len(s.moves) {
			return errors.New("alloc: parallel copy: internal error: broken cycle")
		}
		cyc = append(cyc, l)
		mv = append(mv, j)
		if r := s.locs[l]; !r.IsPhys() || r.Class() != mir.GPR {
			allGPR = false
		}
		l = s.holder[s.moves[j].val]
		if l == cyc[0] {
			break
		}
	}
	n := len(cyc)
	if allGPR {
		// Swap c[0] and c[1]: c[0] receives its value, and c[1] now holds
		// the value c[n-1] needs. The cycle shrinks by one.
		a, b := cyc[0], cyc[1]
		s.emitXchg(a, b)
		last := &s.moves[mv[n-1]]
		s.holder[last.val] = b
		s.readers[b]++
		s.finish(mv[0], b)
		s.release(a)
		if last.dst == b {
			s.finish(mv[n-1], b)
		}
		return nil
	}
	// Pick the location to take out of the cycle: either redirect its
	// reader to a copy of its value that already exists, or save it in a
	// scratch register. The cost is the change in instruction count.
	type choice struct {
		k, from, cost int
		save          bool
	}
	best := choice{k: -1}
	better := func(c choice) bool {
		if best.k < 0 || c.cost != best.cost {
			return best.k < 0 || c.cost < best.cost
		}
		return !c.save && best.save
	}
	for k := range n {
		z, l := cyc[k], cyc[(k+1)%n]
		v := s.moves[mv[k]].val
		orig := 1
		if s.isMem(z) && s.isMem(l) {
			orig = 2
		}
		// Redirecting to a copy in memory or a register, or to a scratch
		// register caching v.
		redirect := func(c int) {
			cost := 1
			if s.isMem(c) && s.isMem(z) {
				cost = 2
			}
			if !s.isMem(c) && !s.isMem(z) && s.locs[c].Class() != s.locs[z].Class() {
				return
			}
			if ch := (choice{k: k, from: c, cost: cost - orig}); better(ch) {
				best = ch
			}
		}
		for c := s.copyHead[v]; c >= 0; c = s.copyNext[c] {
			redirect(c)
		}
		for id := range pcScratch {
			if s.cache[id] == v {
				redirect(id)
			}
		}
		if ch := (choice{k: k, cost: 2 - orig, save: true}); better(ch) {
			best = ch
		}
	}
	k := best.k
	z, l := cyc[k], cyc[(k+1)%n]
	v := s.moves[mv[k]].val
	from := best.from
	if best.save {
		var class mir.Class
		switch {
		case !s.isMem(l):
			class = s.locs[l].Class()
		case !s.isMem(z):
			class = s.locs[z].Class()
		default:
			// A memory value read into memory: its class is unknown. Guess
			// from the cycle's registers; the other scratch register
			// carries the cycle's other memory-to-memory moves.
			class = mir.GPR
			for _, id := range cyc {
				if r := s.locs[id]; r.IsPhys() {
					class = r.Class()
					if class == mir.GPR {
						break
					}
				}
			}
		}
		from = 0
		if class == mir.XMM {
			from = 1
		}
		if s.readers[from] != 0 {
			return errors.New("alloc: parallel copy: internal error: scratch register busy")
		}
		op := mir.OpCopy
		if s.isMem(l) {
			op = mir.OpReload
		}
		s.emit(op, from, l)
		s.cache[from] = v
	}
	s.holder[v] = from
	s.readers[from]++
	s.release(l)
	return nil
}

// regs returns a slice of the given registers from the shared buffer.
func (s *pcState) regs(rs ...mir.Reg) []mir.Reg {
	if cap(s.regBuf)-len(s.regBuf) < len(rs) {
		s.regBuf = make([]mir.Reg, 0, max(16, 4*cap(s.instrs)))
	}
	start := len(s.regBuf)
	s.regBuf = append(s.regBuf, rs...)
	return s.regBuf[start:len(s.regBuf):len(s.regBuf)]
}

// emit appends the move op from location id u to location id d.
func (s *pcState) emit(op mir.Op, d, u int) {
	s.instrs = append(s.instrs, mir.Instr{Op: op, Defs: s.regs(s.locs[d]), Uses: s.regs(s.locs[u]), Pos: -1})
}

// emitXchg appends a swap of the GPRs at location ids a and b.
func (s *pcState) emitXchg(a, b int) {
	ra, rb := s.locs[a], s.locs[b]
	s.instrs = append(s.instrs, mir.Instr{Op: mir.OpXchg, Defs: s.regs(ra, rb), Uses: s.regs(ra, rb), Pos: -1})
}

// result returns the emitted instructions.
func (s *pcState) result() []*mir.Instr {
	if len(s.instrs) == 0 {
		return nil
	}
	out := make([]*mir.Instr, len(s.instrs))
	for i := range s.instrs {
		out[i] = &s.instrs[i]
	}
	return out
}

// pcHeap is a min-heap of move indexes.
type pcHeap []int

func (h *pcHeap) push(x int) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *pcHeap) pop() int {
	a := *h
	x := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1] < a[c] {
			c++
		}
		if a[i] <= a[c] {
			break
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
	*h = a
	return x
}
