package mir

import (
	"fmt"
	"slices"
)

// Form says which invariants a function satisfies.
type Form uint8

// The forms a function passes through.
const (
	// FormSSA: every virtual register has exactly one definition, which
	// dominates its uses; φs at block starts; no parallel copies.
	FormSSA Form = iota
	// FormNonSSA: out of SSA. No φs; virtual registers may be defined more
	// than once; parallel copies may appear. Operands are virtual
	// registers, or memory locations where moves and the calling
	// convention allow them.
	//
	// With Func.Pins nil the operand constraints are not resolved yet (as
	// after naive out-of-SSA translation). With Pins set they are: a
	// virtual register pinned to a physical register lives in it for its
	// whole life and the register allocator assigns exactly that
	// register; an operand fixed to a physical register is a virtual
	// register pinned to it, a tied def is the virtual register of its
	// use, and early clobbers hold between pins too (Verify lists the
	// rules). The interpreter then runs a pinned virtual register in its
	// physical register, which instructions clobber and calls make
	// undefined as in allocated code.
	FormNonSSA
	// FormAllocated: every operand is a physical register (or a stack slot
	// for spills, reloads and parallel copies).
	FormAllocated
)

var formNames = [...]string{"ssa", "nonssa", "allocated"}

// String names the form as the text form writes it.
func (f Form) String() string {
	if int(f) < len(formNames) {
		return formNames[f]
	}
	return fmt.Sprintf("form(%d)", int(f))
}

// Instr is one machine instruction.
type Instr struct {
	// The small fields come first, so that they share the first words.
	Op Op
	// Scale is the index scale of a memory operand (1, 2, 4 or 8).
	Scale uint8
	// Cond is the condition of SETCC, CMOVQCC, JCC and TRAPCC.
	Cond Cond
	// Aux is an op-specific number: the argument index of Arg, the callee
	// of CALL, the host import of CALLHOST, the runtime function of CALLRT,
	// the trap kind of TRAP and TRAPCC, the context field of CtxLoad, the
	// counter slot of Count, the rounding mode of ROUNDSD and ROUNDSS.
	Aux int32
	// Pos is the bytecode offset the instruction came from (-1 if none);
	// traps report it.
	Pos  int32
	Defs []Reg
	Uses []Reg
	// Imm is the immediate operand, the displacement of a memory operand, or
	// the bits of a constant.
	Imm int64
}

// Clone returns a copy of in that shares no slices with it.
func (in *Instr) Clone() *Instr {
	c := *in
	c.Defs = slices.Clone(in.Defs)
	c.Uses = slices.Clone(in.Uses)
	return &c
}

// Equal reports whether two instructions are identical.
func (in *Instr) Equal(o *Instr) bool {
	return in.Op == o.Op && slices.Equal(in.Defs, o.Defs) && slices.Equal(in.Uses, o.Uses) &&
		in.Imm == o.Imm && in.Scale == o.Scale && in.Cond == o.Cond && in.Aux == o.Aux && in.Pos == o.Pos
}

// Block is a basic block: φs, then ordinary instructions, then exactly one
// terminator.
type Block struct {
	ID     int
	Instrs []*Instr
	// Succs are the successor blocks in the terminator's order (JCC: taken,
	// then not taken; JMPTABLE: table order). Succs may repeat a block.
	Succs []int
	// SuccProb is the probability of each successor edge.
	SuccProb []float64
	// Preds are the predecessor blocks, one entry per incoming edge; φ
	// operands follow this order.
	Preds []int
	// Freq is the expected executions per call of the function.
	Freq float64
}

// Terminator returns the block's last instruction, or nil for an empty
// block.
func (b *Block) Terminator() *Instr {
	if len(b.Instrs) == 0 {
		return nil
	}
	return b.Instrs[len(b.Instrs)-1]
}

// Phis returns the block's leading φ instructions.
func (b *Block) Phis() []*Instr {
	n := 0
	for n < len(b.Instrs) && b.Instrs[n].Op == OpPhi {
		n++
	}
	return b.Instrs[:n]
}

// PredIndex returns the position of the i-th edge from pred among b's
// predecessor entries (i counts parallel edges), or -1.
func (b *Block) PredIndex(pred int) int {
	return slices.Index(b.Preds, pred)
}

// SlotInfo describes a stack slot: 8 bytes holding a value of a class.
type SlotInfo struct {
	Class Class
}

// Func is a function in machine IR.
type Func struct {
	Name string
	// Index is the function's index in its module (the callee number CALL
	// instructions use).
	Index   int
	Params  []Class
	Results []Class
	Form    Form
	// Blocks holds the blocks; Blocks[i].ID == i and Blocks[0] is the entry,
	// which has no predecessors.
	Blocks []*Block
	// VRegs holds the class of each virtual register.
	VRegs []Class
	// Slots holds the stack slots.
	Slots []SlotInfo
	// Pins, in non-SSA form, gives the physical register each virtual
	// register is pinned to (NoReg: not pinned). A pinned virtual register
	// lives in its register for its whole life: the out-of-SSA translation
	// (alloc.Destruct) decided this when it resolved the operand
	// constraints, and the register allocator must assign exactly that
	// register. nil means the constraints are not resolved yet (as after
	// naive out-of-SSA translation); when not nil it has one entry per
	// virtual register.
	Pins []Reg

	// arena hands out instructions and operand storage in chunks (see
	// NewInstr); the chunks double from a small size, so that a small
	// function, or a few instructions added to a cloned one, does not pay
	// for a large chunk.
	instrArena           []Instr
	regArena             []Reg
	instrChunk, regChunk int
}

// Arena chunk sizes: the first chunk and the largest.
const (
	minInstrChunk, maxInstrChunk = 8, 128
	minRegChunk, maxRegChunk     = 32, 512
)

// growChunk returns the next chunk size after last.
func growChunk(last, lo, hi int) int {
	return min(hi, max(lo, 2*last))
}

// regChunkFor reserves a new register chunk able to hold n registers.
func (f *Func) regChunkFor(n int) {
	f.regChunk = growChunk(f.regChunk, minRegChunk, maxRegChunk)
	f.regArena = make([]Reg, max(f.regChunk, n))
}

// NewInstr returns a copy of in allocated in the function's arena, with its
// Defs and Uses copied too. Building code through NewInstr costs a few
// allocations per hundred instructions instead of three per instruction.
// The copied slices have no spare capacity, so appending to one never
// writes over another instruction's operands.
func (f *Func) NewInstr(in Instr) *Instr {
	if len(f.instrArena) == 0 {
		f.instrChunk = growChunk(f.instrChunk, minInstrChunk, maxInstrChunk)
		f.instrArena = make([]Instr, f.instrChunk)
	}
	p := &f.instrArena[0]
	f.instrArena = f.instrArena[1:]
	// Only copies of the operand slices reach the heap, so that callers'
	// slice literals need not be allocated there.
	*p = Instr{Op: in.Op, Imm: in.Imm, Scale: in.Scale, Cond: in.Cond, Aux: in.Aux, Pos: in.Pos,
		Defs: f.regs(in.Defs), Uses: f.regs(in.Uses)}
	return p
}

// regs copies rs into the register arena.
func (f *Func) regs(rs []Reg) []Reg {
	if len(rs) == 0 {
		return nil
	}
	if len(f.regArena) < len(rs) {
		f.regChunkFor(len(rs))
	}
	out := f.regArena[:len(rs):len(rs)]
	copy(out, rs)
	f.regArena = f.regArena[len(rs):]
	return out
}

// RegSlice returns an empty slice with room for n registers from the
// arena, for operand lists that are filled by appending.
func (f *Func) RegSlice(n int) []Reg {
	if len(f.regArena) < n {
		f.regChunkFor(n)
	}
	out := f.regArena[:0:n]
	f.regArena = f.regArena[n:]
	return out
}

// NewFunc returns an empty function in SSA form.
func NewFunc(name string, index int, params, results []Class) *Func {
	return &Func{Name: name, Index: index, Params: params, Results: results}
}

// NewBlock appends a new, empty block with frequency 0.
func (f *Func) NewBlock() *Block {
	b := &Block{ID: len(f.Blocks)}
	f.Blocks = append(f.Blocks, b)
	return b
}

// NewVReg returns a new virtual register of class c (not pinned).
func (f *Func) NewVReg(c Class) Reg {
	f.VRegs = append(f.VRegs, c)
	if f.Pins != nil {
		f.Pins = append(f.Pins, NoReg)
	}
	return VReg(len(f.VRegs) - 1)
}

// Pin returns the physical register virtual register v is pinned to, or
// NoReg.
func (f *Func) Pin(v Reg) Reg {
	if i := v.Index(); v.IsVirtual() && i < len(f.Pins) {
		return f.Pins[i]
	}
	return NoReg
}

// SetPin pins virtual register v to physical register r (NoReg unpins
// it), creating Pins if needed.
func (f *Func) SetPin(v, r Reg) {
	if f.Pins == nil {
		f.Pins = make([]Reg, len(f.VRegs))
		for i := range f.Pins {
			f.Pins[i] = NoReg
		}
	}
	f.Pins[v.Index()] = r
}

// NewSlot returns a new stack slot holding a value of class c.
func (f *Func) NewSlot(c Class) Reg {
	f.Slots = append(f.Slots, SlotInfo{Class: c})
	return SlotReg(len(f.Slots) - 1)
}

// RegClass returns the class of a register: a virtual register's declared
// class, a physical register's class, a stack slot's class. Stack-argument
// slots and unknown registers have ClassNone.
func (f *Func) RegClass(r Reg) Class {
	switch {
	case r.IsVirtual():
		if r.Index() < len(f.VRegs) {
			return f.VRegs[r.Index()]
		}
	case r.IsPhys():
		return r.Class()
	case r.IsSlot():
		if r.Index() < len(f.Slots) {
			return f.Slots[r.Index()].Class
		}
	}
	return ClassNone
}

// AddEdge adds an edge from block from to block to with probability p,
// appending to from's successors and to's predecessors.
func (f *Func) AddEdge(from, to int, p float64) {
	fb, tb := f.Blocks[from], f.Blocks[to]
	fb.Succs = append(fb.Succs, to)
	fb.SuccProb = append(fb.SuccProb, p)
	tb.Preds = append(tb.Preds, from)
}

// KeepBlocks removes the blocks b with keep[b] clear, which no kept block
// may have as a successor or predecessor, and renumbers the others in
// order (their IDs, successors and predecessors).
func (f *Func) KeepBlocks(keep []bool) {
	renum := make([]int, len(f.Blocks))
	blocks := f.Blocks[:0]
	for b, blk := range f.Blocks {
		if keep[b] {
			renum[b] = len(blocks)
			blocks = append(blocks, blk)
		}
	}
	clear(f.Blocks[len(blocks):])
	f.Blocks = blocks
	for _, blk := range f.Blocks {
		blk.ID = renum[blk.ID]
		for k, s := range blk.Succs {
			blk.Succs[k] = renum[s]
		}
		for k, p := range blk.Preds {
			blk.Preds[k] = renum[p]
		}
	}
}

// Append adds an instruction at the end of block b.
func (b *Block) Append(in *Instr) *Instr {
	b.Instrs = append(b.Instrs, in)
	return in
}

// Clone returns a deep copy of f.
func (f *Func) Clone() *Func {
	c := *f
	c.instrArena, c.regArena = nil, nil // the clone must not share free storage
	c.instrChunk, c.regChunk = 0, 0
	c.Params = slices.Clone(f.Params)
	c.Results = slices.Clone(f.Results)
	c.VRegs = slices.Clone(f.VRegs)
	c.Slots = slices.Clone(f.Slots)
	c.Pins = slices.Clone(f.Pins)
	// One allocation each for the blocks, the instructions, the pointer
	// slices and the operands.
	ninstr, nregs, nedges := 0, 0, 0
	for _, b := range f.Blocks {
		ninstr += len(b.Instrs)
		nedges += 2*len(b.Succs) + len(b.Preds)
		for _, in := range b.Instrs {
			nregs += len(in.Defs) + len(in.Uses)
		}
	}
	blocks := make([]Block, len(f.Blocks))
	instrs := make([]Instr, ninstr)
	ptrs := make([]*Instr, ninstr)
	regs := make([]Reg, nregs)
	edges := make([]int, nedges)
	probs := make([]float64, 0, nedges)
	take := func(rs []Reg) []Reg {
		if len(rs) == 0 {
			return nil
		}
		out := regs[:len(rs):len(rs)]
		copy(out, rs)
		regs = regs[len(rs):]
		return out
	}
	takeInts := func(xs []int) []int {
		out := edges[:len(xs):len(xs)]
		copy(out, xs)
		edges = edges[len(xs):]
		return out
	}
	c.Blocks = make([]*Block, len(f.Blocks))
	for i, b := range f.Blocks {
		nb := &blocks[i]
		*nb = *b
		nb.Succs = takeInts(b.Succs)
		nb.Preds = takeInts(b.Preds)
		start := len(probs)
		probs = append(probs, b.SuccProb...)
		nb.SuccProb = probs[start:len(probs):len(probs)]
		nb.Instrs = ptrs[:len(b.Instrs):len(b.Instrs)]
		ptrs = ptrs[len(b.Instrs):]
		for j, in := range b.Instrs {
			ni := &instrs[0]
			instrs = instrs[1:]
			*ni = *in
			ni.Defs = take(in.Defs)
			ni.Uses = take(in.Uses)
			nb.Instrs[j] = ni
		}
		c.Blocks[i] = nb
	}
	return &c
}

// NumInstrs returns the number of instructions in the function.
func (f *Func) NumInstrs() int {
	n := 0
	for _, b := range f.Blocks {
		n += len(b.Instrs)
	}
	return n
}
