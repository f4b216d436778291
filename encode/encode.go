// Package encode turns allocated machine IR into x86-64 machine code.
//
// Func encodes one function: a prologue that checks the stack limit,
// reserves the frame and saves the callee-saved registers the function
// writes; the blocks in an order chosen from their frequencies (hot
// edges fall through, loops rotated, cold trap blocks last; blockOrder)
// with branches to adjacent blocks elided; the multi-instruction sequences of
// the op table's expanded ops; out-of-line exit paths; and after the code a
// constant pool (f64 and f32 constants and SSE masks, addressed
// RIP-relative) and jump tables. The result is position independent except
// for the jump tables' absolute entries, which the runtime patches when it
// installs the code (Code.Relocs). Calls between compiled functions go through the
// per-instance entry table the context points to, so no call needs a
// relocation.
//
// Compiled code reaches Go only by exiting: it stores an exit code, an
// argument and its exit site in the execution context (see abi.go) and
// calls the shared exit stub (ExitStub), which saves every register and
// returns to the Go side of the trampoline; resuming returns from that
// call. Traps, host calls, runtime calls and the slow path of polls all
// exit this way. Each exit site records the bytecode offset it came from,
// and Code.PosMap maps every machine offset back to a bytecode offset for
// dumps.
//
// Encoding goes through github.com/twitchyliquid64/golang-asm (Go's own
// assembler), wrapped so that what it cannot encode is an error (asm.go).
// The encoder builds golang-asm's instruction lists, but does not pay its
// generic operand matching for every instruction on every layout pass:
// each instruction form (opcode, operand kinds, register and size
// classes) is encoded by golang-asm once per process, and an instruction
// is its form's template with its registers, constants and displacements
// patched in (forms.go); the branch sizing and jump padding are
// golang-asm's, redone over the templates' sizes (span.go). The code is
// golang-asm's to the byte: the tests assemble every list both ways.
package encode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/mir"
)

// CodeAlign is the alignment a function's code must be installed at: the
// assembler keeps jumps from crossing or ending on CodeAlign-byte
// boundaries counted from the start of Bytes, and chunks start on them.
const CodeAlign = 32

// Code is an encoded function, to be installed at an address that is a
// multiple of CodeAlign.
type Code struct {
	Func      int
	Name      string
	Bytes     []byte
	Relocs    []Reloc
	Sites     []Site
	PosMap    []PosEntry
	FrameSize int64
	// CodeSize is the length of the instructions; the pool and the jump
	// tables follow.
	CodeSize int
}

// Reloc asks the installer to store the absolute address of the code byte
// Target (relative to the function's start) as 8 bytes at Offset.
type Reloc struct {
	Offset, Target int
}

// PosEntry says that the machine code from Offset on comes from bytecode
// offset Pos (until the next entry).
type PosEntry struct {
	Offset int
	Pos    int32
}

// frame is the stack frame layout:
//
//	[rsp + 0]                    outgoing stack-argument slots
//	[rsp + slotBase]             stack slots
//	[rsp + saveBase]             saved callee-saved registers
//	[rsp + size]                 return address
//	[rsp + size + 8 + 8k]        incoming stack-argument slot k
//
// size keeps rsp 16-byte aligned after the prologue.
type frame struct {
	size     int64
	slotBase int64
	saveBase int64
	saved    []mir.Reg
}

func layoutFrame(f *mir.Func) frame {
	outArgs := 0
	var saved mir.RegSet
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			for _, r := range in.Uses {
				if r.IsArgSlot() && !r.IsInArg() && r.Index()+1 > outArgs {
					outArgs = r.Index() + 1
				}
			}
			for _, r := range in.Defs {
				if r.IsArgSlot() && !r.IsInArg() && r.Index()+1 > outArgs {
					outArgs = r.Index() + 1
				}
				if mir.CalleeSaved.Has(r) {
					saved = saved.Add(r)
				}
			}
		}
	}
	fr := frame{saved: saved.Regs()}
	fr.slotBase = 8 * int64(outArgs)
	fr.saveBase = fr.slotBase + 8*int64(len(f.Slots))
	fr.size = fr.saveBase + 8*int64(len(fr.saved))
	if fr.size%16 == 0 {
		fr.size += 8 // the return address makes 16
	}
	return fr
}

// location returns the operand for a register or memory location.
func (e *encoder) location(r mir.Reg) (obj.Addr, error) {
	switch {
	case r.IsPhys():
		return regOp(r), nil
	case r.IsSlot():
		return memOp(mir.RSP, e.frame.slotBase+8*int64(r.Index())), nil
	case r.IsInArg():
		return memOp(mir.RSP, e.frame.size+8+8*int64(r.Index())), nil
	case r.IsArgSlot():
		return memOp(mir.RSP, 8*int64(r.Index())), nil
	}
	return obj.Addr{}, fmt.Errorf("location %s is not allocated", r)
}

type encoder struct {
	// counterOffset is Options.CounterOffset, consume Options.Consume.
	counterOffset int64
	consume       bool
	a             *assembler
	f             *mir.Func
	frame         frame
	// labels of the blocks of the current chunk (nil for the others), and
	// the layout order
	labels []*obj.Prog
	bound  []int // the blocks with labels
	order  []int
	next   []int // the block laid out after each block, -1 at the end
	sites  []Site
	// out-of-line code, emitted after the current chunk's blocks
	stubs []func()
	// the constant pool and jump tables (symbols placed after the code)
	pool      *obj.LSym
	poolBytes []byte
	poolIndex map[[2]uint64]int64
	tables    []jumpTable

	// Chunks: the function is assembled a run of blocks of about
	// chunkInstrs instructions at a time (Options.ChunkInstrs), so the
	// assembler holds one chunk's instructions.
	chunkInstrs int
	chunkOf     []int32 // the chunk of each block
	chunk       int32   // the chunk being built
	code        []byte  // the chunks assembled so far
	// blockOff is the code offset of each block of an assembled chunk.
	blockOff []int
	// Of the chunk being built: the instructions' bytecode offsets, and
	// the far branches (to blocks of other chunks) whose displacements
	// are patched in finish.
	posMarks []posMark
	far      []farBranch
	// Of the assembled chunks: positions, far branches and the
	// assembler's relocations, with offsets in the function's code.
	posMap  []PosEntry
	patches []patch
	relocs  []obj.Reloc
}

// farBranch is the 32-bit displacement field p (a LONG) of a branch to
// block target in another chunk.
type farBranch struct {
	p      *obj.Prog
	target int
}

// patch is a far branch's displacement field at offset off of the code.
type patch struct {
	off, target int
}

type jumpTable struct {
	sym     *obj.LSym
	targets []int // block IDs
}

type posMark struct {
	p   *obj.Prog
	pos int32
}

// Options tune Func.
type Options struct {
	// ChunkInstrs is the number of machine IR instructions after which
	// the encoder starts a new chunk at the next block boundary (0: the
	// default, DefaultChunkInstrs). A function is assembled a chunk at a
	// time, each chunk followed by its own out-of-line stubs, so the
	// assembler's memory is bounded by a chunk; branches between chunks
	// take 32-bit displacements. A function that fits in one chunk is
	// encoded exactly as if it were not chunked.
	ChunkInstrs int
	// CounterOffset is the displacement from the context (R15) of the
	// function's counter slot 0: OpCount increments the word at
	// R15+CounterOffset+8*Aux, and OpCountAdd adds to it, with one add to
	// memory. The counters lie below the context (runtime.Thread), so it
	// is negative when the function counts; every counter's displacement
	// must fit in 32 bits.
	CounterOffset int64
	// Consume lets the encoder drop each block's instruction list once it
	// has encoded the block, so that a huge function's machine IR goes as
	// its code comes; the function must not be used afterwards.
	Consume bool
}

// DefaultChunkInstrs is the default Options.ChunkInstrs.
const DefaultChunkInstrs = 1 << 13

// Func encodes an allocated function with the default options. It must
// pass mir.Verify and contain no φs or parallel copies (sequentialize
// them first).
func Func(f *mir.Func) (*Code, error) {
	return FuncOptions(f, Options{})
}

// FuncOptions is Func with options.
func FuncOptions(f *mir.Func, opts Options) (*Code, error) {
	if f.Form != mir.FormAllocated {
		return nil, fmt.Errorf("encode %s: function is in %s form, not allocated", f.Name, f.Form)
	}
	chunk := opts.ChunkInstrs
	if chunk <= 0 {
		chunk = DefaultChunkInstrs
	}
	a := getAssembler()
	defer putAssembler(a)
	e := &encoder{a: a, f: f, frame: layoutFrame(f), pool: &obj.LSym{Name: "pool"}, poolIndex: map[[2]uint64]int64{},
		chunkInstrs: chunk, counterOffset: opts.CounterOffset, consume: opts.Consume}
	if err := e.encode(); err != nil {
		return nil, fmt.Errorf("encode %s: %w", f.Name, err)
	}
	code, err := e.finish()
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", f.Name, err)
	}
	return code, nil
}

// isCold reports whether a block only traps.
func isCold(b *mir.Block) bool {
	t := b.Terminator()
	return t != nil && t.Op == mir.OpTRAP
}

func (e *encoder) encode() error {
	f := e.f
	e.labels = make([]*obj.Prog, len(f.Blocks))
	e.blockOff = make([]int, len(f.Blocks))
	e.order = blockOrder(f)
	e.next = make([]int, len(f.Blocks))
	e.chunkOf = make([]int32, len(f.Blocks))
	chunk, size, largest := int32(0), 0, 0
	for _, id := range e.order {
		if size >= e.chunkInstrs {
			chunk, size = chunk+1, 0
		}
		e.chunkOf[id] = chunk
		size += len(f.Blocks[id].Instrs)
		largest = max(largest, size)
	}
	e.posMarks = make([]posMark, 0, largest) // at most one a machine IR instruction
	// A chunk's stubs follow its last block, so that block never falls
	// through: it ends with a jump to the next chunk.
	for i, id := range e.order {
		e.next[id] = -1
		if i+1 < len(e.order) && e.chunkOf[e.order[i+1]] == e.chunkOf[id] {
			e.next[id] = e.order[i+1]
		}
	}
	e.prologue()
	for _, id := range e.order {
		if e.chunkOf[id] != e.chunk {
			if err := e.flush(); err != nil {
				return err
			}
			e.chunk = e.chunkOf[id]
		}
		b := f.Blocks[id]
		e.a.bind(e.label(id))
		for i, in := range b.Instrs {
			start := e.a.last
			if err := e.instr(b, in); err != nil {
				return fmt.Errorf("b%d[%d] (%s): %w", b.ID, i, in.Op, err)
			}
			if in.Pos >= 0 && e.a.last != start {
				// The first instruction emitted for in.
				first := e.a.first
				if start != nil {
					first = start.Link
				}
				e.posMarks = append(e.posMarks, posMark{first, in.Pos})
			}
		}
		if e.consume {
			b.Instrs = nil
		}
	}
	return e.flush()
}

// label returns the label of block id, which must be in the current
// chunk.
func (e *encoder) label(id int) *obj.Prog {
	if e.labels[id] == nil {
		e.labels[id] = e.a.label()
		e.bound = append(e.bound, id)
	}
	return e.labels[id]
}

// branch emits a branch as (JMP or a conditional jump) to block id.
func (e *encoder) branch(as obj.As, id int) {
	if e.chunkOf[id] == e.chunk {
		branchTo(e.a.add(as), e.label(id))
		return
	}
	// rel32 forms: E9 for JMP, 0F 80+cc for Jcc.
	if as == obj.AJMP {
		e.a.add(x86.ABYTE).From = constOp(0xe9)
	} else {
		e.a.add(x86.ABYTE).From = constOp(0x0f)
		e.a.add(x86.ABYTE).From = constOp(0x80 + int64(jccCode(as)))
	}
	p := e.a.add(x86.ALONG)
	p.From = constOp(0)
	e.far = append(e.far, farBranch{p, id})
}

// jccCode returns the condition code of conditional jump as.
func jccCode(as obj.As) int {
	for cc, j := range jcc {
		if j == as {
			return cc
		}
	}
	panic(fmt.Sprintf("encode: %v is not a conditional jump", as))
}

// flush emits the current chunk's stubs, assembles the chunk, appends its
// code and records where its blocks, positions, far branches and
// relocations are.
func (e *encoder) flush() error {
	for len(e.stubs) > 0 {
		stubs := e.stubs
		e.stubs = nil
		for _, s := range stubs {
			s()
		}
	}
	code, relocs, err := e.a.assemble()
	if err != nil {
		return err
	}
	// A chunk starts on a CodeAlign boundary, for the padding of its jumps
	// to keep them off the boundaries; the chunk before ends with its
	// stubs, so the filler between is never run.
	for len(e.code)%CodeAlign != 0 {
		e.code = append(e.code, 0xcc)
	}
	base := len(e.code)
	e.code = append(e.code, code...)
	for _, id := range e.bound {
		e.blockOff[id] = base + int(e.labels[id].Pc)
		e.labels[id] = nil
	}
	e.bound = e.bound[:0]
	for _, m := range e.posMarks {
		off := base + int(m.p.Pc)
		if n := len(e.posMap); n > 0 && e.posMap[n-1].Pos == m.pos && e.posMap[n-1].Offset <= off {
			continue // the entry before covers it
		}
		e.posMap = append(e.posMap, PosEntry{Offset: off, Pos: m.pos})
	}
	for _, b := range e.far {
		e.patches = append(e.patches, patch{off: base + int(b.p.Pc), target: b.target})
	}
	for _, r := range relocs {
		r.Off += int32(base)
		e.relocs = append(e.relocs, r)
	}
	e.posMarks, e.far = e.posMarks[:0], e.far[:0]
	e.a.reset()
	return nil
}

// prologue checks the stack limit, reserves the frame and saves the
// callee-saved registers the function writes.
func (e *encoder) prologue() {
	a := e.a
	p := a.add(x86.ALEAQ)
	p.From, p.To = memOp(mir.RSP, -e.frame.size), regOp(mir.ScratchGPR)
	p = a.add(x86.ACMPQ)
	p.From, p.To = regOp(mir.ScratchGPR), ctxOp(CtxStackLimit)
	overflow := a.label()
	p = a.add(x86.AJCS)
	branchTo(p, overflow)
	p = a.add(x86.AMOVQ)
	p.From, p.To = regOp(mir.ScratchGPR), regOp(mir.RSP)
	for i, r := range e.frame.saved {
		p = a.add(x86.AMOVQ)
		p.From, p.To = regOp(r), memOp(mir.RSP, e.frame.saveBase+8*int64(i))
	}
	e.stubs = append(e.stubs, func() {
		a.bind(overflow)
		e.exitCall(ExitPrologueOverflow, 0, -1)
		a.add(x86.AINT).From = constOp(3)
	})
}

// epilogue restores the saved registers, frees the frame and returns.
func (e *encoder) epilogue() {
	a := e.a
	for i, r := range e.frame.saved {
		p := a.add(x86.AMOVQ)
		p.From, p.To = memOp(mir.RSP, e.frame.saveBase+8*int64(i)), regOp(r)
	}
	p := a.add(x86.AADDQ)
	p.From, p.To = constOp(e.frame.size), regOp(mir.RSP)
	a.add(obj.ARET)
}

// newSite records an exit site and returns its number.
func (e *encoder) newSite(pos int32) int {
	e.sites = append(e.sites, Site{Pos: pos})
	return len(e.sites) - 1
}

// exitCall emits the stores that describe an exit and the call of the
// exit stub. site is the exit site, or -1 for the prologue's overflow
// (the caller's call site describes that one).
func (e *encoder) exitCall(code, arg int64, site int) {
	a := e.a
	store := func(off int64, v int64) {
		p := a.add(x86.AMOVL)
		p.From, p.To = constOp(v), ctxOp(off)
	}
	store(CtxExitCode, code)
	store(CtxExitArg, arg)
	if site >= 0 {
		store(CtxExitFunc, int64(e.f.Index))
		store(CtxExitSite, int64(site))
	}
	p := a.add(obj.ACALL)
	p.To = ctxOp(CtxExitStub)
}

// constant returns the pool offset of a 16-byte constant (lo, hi),
// 16-byte aligned so SSE instructions may use it as a memory operand.
func (e *encoder) constant(lo, hi uint64) int64 {
	key := [2]uint64{lo, hi}
	if off, ok := e.poolIndex[key]; ok {
		return off
	}
	off := int64(len(e.poolBytes))
	e.poolBytes = binary.LittleEndian.AppendUint64(e.poolBytes, lo)
	e.poolBytes = binary.LittleEndian.AppendUint64(e.poolBytes, hi)
	e.poolIndex[key] = off
	return off
}

func (e *encoder) poolOp(lo uint64) obj.Addr { return symOp(e.pool, e.constant(lo, 0)) }

// move copies src to dst (registers or memory; never both memory).
func (e *encoder) move(dst, src mir.Reg) error {
	if dst == src {
		return nil
	}
	d, err := e.location(dst)
	if err != nil {
		return err
	}
	s, err := e.location(src)
	if err != nil {
		return err
	}
	if dst.IsMem() && src.IsMem() {
		return fmt.Errorf("memory-to-memory move %s <- %s", dst, src)
	}
	xmm := dst.Class() == mir.XMM || src.Class() == mir.XMM
	as := obj.As(x86.AMOVQ)
	switch {
	case xmm && dst.IsPhys() && src.IsPhys():
		if dst.Class() != src.Class() {
			return fmt.Errorf("move between classes %s <- %s", dst, src)
		}
		as = x86.AMOVAPS
	case xmm:
		as = x86.AMOVSD
	}
	p := e.a.add(as)
	p.From, p.To = s, d
	return nil
}

func (e *encoder) finish() (*Code, error) {
	code := e.code
	for _, p := range e.patches {
		disp := int64(e.blockOff[p.target]) - int64(p.off) - 4
		if disp != int64(int32(disp)) {
			return nil, fmt.Errorf("branch displacement %d out of range", disp)
		}
		binary.LittleEndian.PutUint32(code[p.off:], uint32(int32(disp)))
	}
	c := &Code{Func: e.f.Index, Name: e.f.Name, Sites: e.sites, FrameSize: e.frame.size, CodeSize: len(code)}
	// The pool, then the jump tables, each 16-byte aligned.
	align := func() {
		for len(code)%16 != 0 {
			code = append(code, 0xcc)
		}
	}
	align()
	poolOff := len(code)
	code = append(code, e.poolBytes...)
	symOff := map[*obj.LSym]int{e.pool: poolOff}
	for i := range e.tables {
		align()
		t := &e.tables[i]
		symOff[t.sym] = len(code)
		for _, target := range t.targets {
			c.Relocs = append(c.Relocs, Reloc{Offset: len(code), Target: e.blockOff[target]})
			code = binary.LittleEndian.AppendUint64(code, 0)
		}
	}
	for _, r := range e.relocs {
		if r.Sym == nil {
			continue // indirect calls through registers or memory
		}
		off, ok := symOff[r.Sym]
		if !ok || r.Siz != 4 {
			return nil, fmt.Errorf("unexpected relocation %v to %s", r.Type, r.Sym.Name)
		}
		disp := int64(off) + r.Add - int64(r.Off) - 4
		if disp != int64(int32(disp)) {
			return nil, fmt.Errorf("pool displacement %d out of range", disp)
		}
		binary.LittleEndian.PutUint32(code[r.Off:], uint32(int32(disp)))
	}
	c.Bytes = code
	// Chunks are assembled in order and each one's positions are marked
	// in the order of its instructions, so the map is sorted (flush
	// leaves out an entry with the position of the one before it).
	if !slices.IsSortedFunc(e.posMap, func(x, y PosEntry) int { return x.Offset - y.Offset }) {
		return nil, errors.New("internal error: the position map is out of order")
	}
	c.PosMap = slices.Clone(e.posMap)
	return c, nil
}

// PosAt returns the bytecode offset of the machine code at offset off, or
// -1.
func (c *Code) PosAt(off int) int32 {
	i, found := slices.BinarySearchFunc(c.PosMap, off, func(e PosEntry, t int) int { return e.Offset - t })
	if !found {
		i--
	}
	if i < 0 {
		return -1
	}
	return c.PosMap[i].Pos
}

// Float constants of the expanded conversions.
var (
	bits2p63 = math.Float64bits(9223372036854775808.0)
	bits2p64 = math.Float64bits(18446744073709551616.0)
)

// trapKinds checks a TRAP instruction's kind.
func trapKind(k int32) bool {
	return bytecode.TrapKind(k).Valid()
}
