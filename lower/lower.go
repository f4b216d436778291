// Package lower turns a bytecode function into SSA machine IR for x86-64.
//
// It builds SSA directly from the register bytecode with the algorithm of
// Braun et al. ("Simple and Efficient Construction of Static Single
// Assignment Form", CC 2013): bytecode registers are the variables; a move
// only rebinds its destination to the source's value (copies are folded
// while SSA is built, as the fast copy coalescer expects); φs are created
// on demand, completed when a block is sealed, and removed as soon as they
// turn out trivial. Instruction selection happens in the same pass:
// constants are folded, immediates that fit go into instruction forms that
// take them, compare-and-branch pairs are fused, and every trap condition
// (division by zero and overflow, memory bounds, float-to-int conversions)
// becomes an explicit compare and branch to a cold trap block. Calls,
// returns and arguments carry their calling-convention registers as
// operand constraints from the op table, not as hidden moves. Afterwards
// dead code is removed.
//
// Block frequencies and edge probabilities come from a profilecounters
// profile when one is given, and from the static estimate otherwise; the
// extra blocks lowering creates (trap blocks, the blocks after a check,
// blocks on backward edges that hold a poll) get frequencies derived from
// the block or edge they split.
//
// Linear memory is addressed as [base + address], where the base and the
// length of memory are SSA values read from the execution context at entry
// and again after anything that may grow memory. memory.copy and
// memory.fill check their ranges against the length (trapping before
// anything is written), then become one MEMMOVE or MEMFILL on host
// addresses, which the encoder expands to REP MOVSB and REP STOSB.
package lower

import (
	"errors"
	"fmt"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
)

// ProbTrap is the probability given to the edge into a cold block: a
// trap, or a rare slow path such as a signature mismatch.
const ProbTrap = 1e-6

// ErrUnsupported is returned (wrapped) when a function needs a CPU feature
// the target lacks and has no fallback; such a function stays in the
// interpreter.
var ErrUnsupported = errors.New("lower: unsupported on this target")

// Options configure lowering.
type Options struct {
	// Profile is the function's profile; nil means the static estimate.
	Profile *profilecounters.Profile
	// Target lists the CPU features code may use.
	Target Target
	// Counters, when not nil, makes the code count edges as the plan says
	// (profilecounters.ChordPlan): an OpCount for every counted slot, on
	// its edge (in the jump's block, at the start of its target when the
	// plan says so (AtHead), or else a block of its own on a conditional
	// edge), at the start of a block without successors for its exit
	// edge, and in the entry block for the calls when they are counted. A
	// self-loop (an edge from a block to itself) is counted in a register
	// instead: zero on entering the block, one more on each iteration,
	// added to its counter (OpCountAdd) on each edge that leaves the
	// block, so a tight loop pays a register increment rather than a
	// memory one; a trap or cancellation inside the loop loses the
	// iterations of that visit. The plan must be one of this function's
	// layout.
	Counters *profilecounters.ChordPlan
	// Module holds what lowering needs to know about the whole module;
	// nil computes it for this call. A caller lowering many functions of
	// one module computes it once with NewModuleInfo, so that the work
	// stays linear in the module's size.
	Module *ModuleInfo
	// Packed, when not nil, is the function's code, for a module that
	// keeps its functions' code packed elsewhere (m.Funcs[fn].Code is then
	// ignored, and Module is required: the module facts need every
	// function's code, so they come from NewModuleInfo of the module with
	// its code, made to stand for m by ModuleInfo.StandIn; so is a
	// profile with the function's layout). It must be the code m was
	// verified with. Lowering unpacks it a block at a time, so that a huge
	// function's instructions are never all unpacked at once.
	Packed *bc.PackedCode
	// OnPass, when not nil, is called with the function being lowered at
	// each step of its construction, for dumps that show every step:
	// after SSA construction ("ssa": instructions selected, φs placed,
	// copies folded; unreachable blocks may remain), after the removal of
	// unreachable blocks ("unreachable": blocks renumbered in reverse
	// postorder, trivial φs removed) and after dead code elimination
	// ("deadcode": virtual registers renumbered; this is the function Func
	// returns). The function is still being worked on: OnPass must not
	// modify it, and a caller that keeps it past the call must Clone it.
	// Lowering does the same with or without OnPass.
	OnPass func(pass string, f *mir.Func)
	// OSRHeaders lists the on-stack-replacement entries of the function:
	// bytecode offsets of blocks (loop headers, typically) where compiled
	// code can continue a frame the interpreter ran up to there. The
	// entry block then checks, before anything else, whether the
	// execution context asks for an entry at the function's call depth
	// (mir.CtxOSRDepth, -1 when not), and if so jumps to entry
	// mir.CtxOSREntry (from 1: OSRHeaders[k-1]), which loads every
	// register the function writes from the frame at mir.CtxOSRFrame (8
	// bytes each, as the interpreter keeps them; the parameters the
	// function never writes come as arguments) and jumps to the header.
	// One compiled function thus continues frames at any of its entries,
	// with no copy of the function per loop. With Counters, whose plan
	// must have the same entries (profilecounters.NewChordPlanOSR), an
	// entry counts its own slot and takes back the call the entry block
	// counted, so that the counts stay exact.
	OSRHeaders []int
}

// ModuleInfo is what lowering a function needs to know about its module:
// whether memory can move, the table's initialised length and the
// signatures' type identities.
type ModuleInfo struct {
	m           *bc.Module
	growsMemory bool
	tableLen    uint64
	typeIDs     []uint32
	// dynamic: the tables may change (bc.Module.DynamicTables), and
	// compiled code reads them in package interp's Tables layout;
	// funcIDs are then the functions' canonical signature ids.
	dynamic bool
	funcIDs []uint32
}

// NewModuleInfo computes the module facts of m for Options.Module. m must
// not change while they are in use.
func NewModuleInfo(m *bc.Module) *ModuleInfo {
	info := &ModuleInfo{m: m, growsMemory: moduleGrowsMemory(m), tableLen: mir.TableLength(m), typeIDs: m.TypeIDs(), dynamic: m.DynamicTables()}
	if info.dynamic || moduleHasRefFunc(m) {
		info.funcIDs, _ = m.SignatureIDs()
	}
	return info
}

// StandIn returns the module facts of i's module for m, a module that
// stands in for it: the same memory, table and signatures, with some
// functions replaced by calls out of the module (to code that runs them
// elsewhere, the interpreter for instance) through host imports added
// after its own, or with its functions' code kept elsewhere
// (Options.Packed).
// Memory moves in m exactly when it does in i's module: the functions run
// elsewhere are its functions.
func (i *ModuleInfo) StandIn(m *bc.Module) *ModuleInfo {
	c := *i
	c.m = m
	return &c
}

// Module lowers every function of a verified module with the static
// estimate. The returned functions are indexed like m.Funcs.
func Module(m *bc.Module, target Target) ([]*mir.Func, error) {
	out := make([]*mir.Func, len(m.Funcs))
	info := NewModuleInfo(m)
	for i := range m.Funcs {
		f, err := Func(m, i, Options{Target: target, Module: info})
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// HostSigs returns the register-class signatures of m's host imports, for
// mir.VerifyModule.
func HostSigs(m *bc.Module) []mir.HostSig {
	out := make([]mir.HostSig, len(m.Hosts))
	for i, h := range m.Hosts {
		out[i] = mir.HostSig{Params: Classes(h.Sig.Params), Results: Classes(h.Sig.Results)}
	}
	return out
}

// Classes maps bytecode types to register classes.
func Classes(ts []bc.Type) []mir.Class {
	cs := make([]mir.Class, len(ts))
	for i, t := range ts {
		cs[i] = classOf(t)
	}
	return cs
}

func classOf(t bc.Type) mir.Class {
	if t == bc.F64 || t == bc.F32 {
		return mir.XMM
	}
	return mir.GPR
}

// Supports reports whether the compiled tiers lower op: every valid op.
func Supports(op bc.Op) bool { return op.Valid() }

// Func lowers function fn of the verified module m to SSA machine IR.
func Func(m *bc.Module, fn int, opts Options) (*mir.Func, error) {
	if fn < 0 || fn >= len(m.Funcs) {
		return nil, fmt.Errorf("lower: function index %d out of range", fn)
	}
	bf := m.Funcs[fn]
	codeLen := len(bf.Code)
	if opts.Packed != nil {
		if opts.Module == nil {
			return nil, fmt.Errorf("lower func %s: packed code given without the module facts", bf.Name)
		}
		codeLen = opts.Packed.Len()
	}
	prof := opts.Profile
	var layout *profilecounters.Layout
	if prof != nil && prof.Layout != nil && len(prof.EdgeProb) == len(prof.Layout.Edges) &&
		len(prof.BlockFreq) == len(prof.Layout.Blocks) && len(prof.Layout.Blocks) > 0 &&
		int(prof.Layout.Blocks[len(prof.Layout.Blocks)-1].End) == codeLen {
		layout = prof.Layout
	} else {
		if opts.Packed != nil {
			return nil, fmt.Errorf("lower func %s: packed code given without its layout", bf.Name)
		}
		layout = profilecounters.NewLayout(bf)
		prof = layout.Profile(nil)
	}
	if c := opts.Counters; c != nil && (c.Layout() != layout) {
		return nil, fmt.Errorf("lower func %s: the counter plan is not of the profile's layout", bf.Name)
	}
	info := opts.Module
	if info == nil || info.m != m {
		info = NewModuleInfo(m)
	}
	l := &lowerer{
		m: m, bf: bf, packed: opts.Packed, layout: layout, prof: prof, target: opts.Target, info: info, counters: opts.Counters,
		f: mir.NewFunc(bf.Name, fn, Classes(bf.Sig.Params), Classes(bf.Sig.Results)),
	}
	l.memoryMoves = info.growsMemory
	l.onPass = opts.OnPass
	l.osrHeaders = opts.OSRHeaders
	if err := l.run(); err != nil {
		return nil, fmt.Errorf("lower func %s: %w", bf.Name, err)
	}
	return l.f, nil
}

// moduleGrowsMemory reports whether linear memory can ever move or change
// size: only memory.grow changes it, and only when the maximum exceeds the
// minimum. An imported or exported memory may be shared with instances
// that grow it while a host function runs: during any call out of the
// module's code, if it has host imports. (Between two calls into the
// module it may change too, which every entry into code reads.)
func moduleGrowsMemory(m *bc.Module) bool {
	if m.Memory.MaxPages == m.Memory.MinPages {
		return false
	}
	if (m.Memory.Import != "" || m.Memory.Export != "") && len(m.Hosts) > 0 {
		return true
	}
	for _, f := range m.Funcs {
		for i := range f.Code {
			if f.Code[i].Op == bc.OpMemoryGrow {
				return true
			}
		}
	}
	return false
}

// lowerer holds the state of one function's lowering.
type lowerer struct {
	m  *bc.Module
	bf *bc.Function
	// osrHeaders are the on-stack-replacement entries (Options.OSRHeaders).
	osrHeaders []int
	// packed is the function's code when bf holds none (Options.Packed);
	// codeBuf holds the block blockCode unpacked last.
	packed  *bc.PackedCode
	codeBuf []bc.Instr
	layout  *profilecounters.Layout
	prof    *profilecounters.Profile
	target  Target
	// counters is the plan of the edges the code counts (nil: none).
	counters *profilecounters.ChordPlan
	// loopVars lists, per bytecode block, the variables counting its
	// self-loop edges in a register (Options.Counters).
	loopVars [][]loopVar
	// countAtHead marks the bytecode blocks whose head counts the edge
	// entering them (ChordPlan.AtHead), set when that edge is lowered.
	countAtHead []bool
	f           *mir.Func

	// memoryMoves is set when memory may be grown, so its base and length
	// must be read again after calls.
	memoryMoves bool

	ssa ssaBuilder

	// head is the mir block of each bytecode block (-1 when unreachable);
	// pendingPreds counts the edges into it not yet lowered or dropped, and
	// edgeDone marks the bytecode edges already accounted for.
	head         []int
	pendingPreds []int
	edgeDone     []bool

	cur     *mir.Block // the block instructions go to; nil after a terminator
	curFreq float64
	pc      int // bytecode offset being lowered

	// consts records the value of virtual registers known to be constant
	// (by register number); compares records the compare that computed a
	// 0/1 value, for fusing it into a later branch or select.
	consts   constTable
	compares map[int]compareInfo

	// info holds the module facts (see ModuleInfo).
	info *ModuleInfo
	// onPass is Options.OnPass.
	onPass func(pass string, f *mir.Func)

	entryBlock *mir.Block
	// err is the first internal inconsistency found while lowering.
	err  error
	zero [3]mir.Reg // lazily made zero constants, by class
}

type compareInfo struct {
	cond mir.Cond
	op   mir.Op  // the compare instruction
	a, b mir.Reg // its uses (b is NoReg for a compare with an immediate)
	imm  int64
}

// Variables: the bytecode registers, then the memory base, the memory
// length and the four access bounds (context fields CtxMemBase onwards).
func (l *lowerer) varMemBase() int { return len(l.bf.Regs) }
func (l *lowerer) varMemLen() int  { return len(l.bf.Regs) + 1 }
func (l *lowerer) varMemBound(size int) int {
	return len(l.bf.Regs) + int(mir.MemBoundField(size))
}

// numMemoryVars is the number of variables describing memory.
const numMemoryVars = 6

func (l *lowerer) varClass(v int) mir.Class {
	if v < len(l.bf.Regs) {
		return classOf(l.bf.Regs[v])
	}
	return mir.GPR
}

func (l *lowerer) run() error {
	l.compares = map[int]compareInfo{}
	nvars := len(l.bf.Regs) + numMemoryVars
	firstLoopVar := nvars
	nvars += l.planLoopVars(nvars)
	l.ssa.init(l, nvars)
	// About a block per bytecode block and per edge (edges that count or
	// poll get one): reserved at once, not regrown block by block.
	l.ssa.reserve(1 + len(l.layout.Blocks) + len(l.layout.Edges))
	var err error
	if l.ssa.stable, err = l.stableVars(nvars); err != nil {
		return err
	}
	for x := firstLoopVar; x < nvars; x++ {
		l.ssa.stable[x] = false
	}

	// The entry block: arguments, the memory base and length, then a jump
	// to the first bytecode block.
	entry := l.f.NewBlock()
	entry.Freq = 1
	l.entryBlock = entry
	l.ssa.entry = entry.ID
	l.ssa.addBlock(entry.ID, true)
	l.cur, l.curFreq = entry, 1
	for i, t := range l.bf.Sig.Params {
		v := l.f.NewVReg(classOf(t))
		l.emit(mir.Instr{Op: mir.OpArg, Defs: []mir.Reg{v}, Aux: int32(i), Pos: -1})
		l.ssa.write(i, entry.ID, v)
	}
	l.count(profilecounters.EntryCounter)
	l.loadMemoryState()
	l.enterLoop(0)

	// One head block per reachable bytecode block.
	g := l.layout.Graph()
	reach := g.Reachable()
	l.head = make([]int, len(l.layout.Blocks))
	l.pendingPreds = make([]int, len(l.layout.Blocks))
	for b := range l.layout.Blocks {
		l.head[b] = -1
		if !reach[b] {
			continue
		}
		hb := l.f.NewBlock()
		hb.Freq = l.prof.BlockFreq[b]
		l.head[b] = hb.ID
		l.ssa.addBlock(hb.ID, false)
		for _, e := range l.layout.Preds(b) {
			if reach[l.layout.Edges[e].From] {
				l.pendingPreds[b]++
			}
		}
	}
	l.edgeDone = make([]bool, len(l.layout.Edges))
	l.countAtHead = make([]bool, len(l.layout.Blocks))
	// The entry block jumps to bytecode block 0, or to an on-stack-
	// replacement entry.
	l.pendingPreds[0]++
	if len(l.osrHeaders) > 0 {
		if err := l.osrEntries(entry); err != nil {
			return err
		}
	} else {
		l.emit(mir.Instr{Op: mir.OpJMP, Pos: -1})
		l.f.AddEdge(entry.ID, l.head[0], 1)
	}
	l.ssa.seal(entry.ID)
	l.predArrived(0)
	l.cur = nil

	for _, b := range g.ReversePostorder() {
		if err := l.lowerBlock(b); err != nil {
			return err
		}
	}
	if l.err != nil {
		return l.err
	}
	l.ssa.finish()
	l.afterPass("ssa")
	removeUnreachable(l.f)
	l.afterPass("unreachable")
	eliminateDeadCode(l.f)
	l.afterPass("deadcode")
	return nil
}

// afterPass calls Options.OnPass, if set, after the named pass.
func (l *lowerer) afterPass(pass string) {
	if l.onPass != nil {
		l.onPass(pass, l.f)
	}
}

// stableVars reports, per variable, whether no instruction writes it: its
// value everywhere is the one the entry block gives it (an argument, the
// memory state, or zero), so reading it needs no lookup and no φ, however
// many loops enclose the read.
func (l *lowerer) stableVars(nvars int) ([]bool, error) {
	stable := make([]bool, nvars)
	for i := range stable {
		stable[i] = true
	}
	var defs []bc.Reg
	for b := range l.layout.Blocks {
		code, err := l.blockCode(b)
		if err != nil {
			return nil, err
		}
		for i := range code {
			in := &code[i]
			defs = in.Defs(defs[:0])
			for _, r := range defs {
				stable[r] = false
			}
			if in.Op == bc.OpMemoryGrow || l.memoryMoves && (in.Op == bc.OpCall || in.Op == bc.OpCallHost || in.Op == bc.OpCallIndirect) {
				for v := l.varMemBase(); v < nvars; v++ {
					stable[v] = false
				}
			}
		}
	}
	return stable, nil
}

// blockCode returns the instructions of bytecode block b, valid until the
// next call.
func (l *lowerer) blockCode(b int) ([]bc.Instr, error) {
	blk := &l.layout.Blocks[b]
	if l.packed == nil {
		return l.bf.Code[int(blk.Start):int(blk.End)], nil
	}
	var err error
	l.codeBuf, err = l.packed.UnpackRange(l.codeBuf[:0], int(blk.Start), int(blk.End))
	return l.codeBuf, err
}

// osrFreq is the frequency of the on-stack-replacement path, relative
// to the entry's: one call in a million enters there, at most.
const osrFreq = 1e-6

// osrEntries ends the entry block with the check for an on-stack-
// replacement entry (Options.OSRHeaders): the call depth against
// mir.CtxOSRDepth, on to bytecode block 0 when they differ, else a
// chain of compares of mir.CtxOSREntry selecting the entry block of each
// header, which loads the frame's registers and jumps to the header.
func (l *lowerer) osrEntries(entry *mir.Block) error {
	ctxLoad := func(field mir.CtxField) mir.Reg {
		v := l.newG()
		l.emit(mir.Instr{Op: mir.OpCtxLoad, Defs: []mir.Reg{v}, Aux: int32(field), Pos: -1})
		return v
	}
	if l.counters != nil && l.counters.NumOSR() != len(l.osrHeaders) {
		return fmt.Errorf("the counter plan has %d on-stack-replacement entries, the options %d", l.counters.NumOSR(), len(l.osrHeaders))
	}
	headers := make([]int, len(l.osrHeaders))
	for k, pc := range l.osrHeaders {
		if pc < 0 || pc >= int(l.layout.Blocks[len(l.layout.Blocks)-1].End) {
			return fmt.Errorf("on-stack-replacement entry at %d: out of the function", pc)
		}
		b := l.layout.BlockAt(pc)
		if int(l.layout.Blocks[b].Start) != pc || l.head[b] < 0 {
			return fmt.Errorf("on-stack-replacement entry at %d: not the start of a reachable block", pc)
		}
		headers[k] = b
	}
	depth, want := ctxLoad(mir.CtxDepth), ctxLoad(mir.CtxOSRDepth)
	l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{depth, want}, Pos: -1})
	l.emit(mir.Instr{Op: mir.OpJCC, Cond: mir.CondNE, Pos: -1})
	l.f.AddEdge(entry.ID, l.head[0], 1-osrFreq)
	dispatch := l.newSealedBlock(osrFreq)
	l.f.AddEdge(entry.ID, dispatch.ID, osrFreq)
	l.ssa.seal(dispatch.ID)
	l.cur, l.curFreq = dispatch, osrFreq
	which, frame := ctxLoad(mir.CtxOSREntry), ctxLoad(mir.CtxOSRFrame)
	freq := osrFreq / float64(len(headers))
	for k, b := range headers {
		enter := l.newSealedBlock(freq)
		if k < len(headers)-1 {
			l.emit(mir.Instr{Op: mir.OpCMPQconst, Uses: []mir.Reg{which}, Imm: int64(k + 1), Pos: -1})
			l.emit(mir.Instr{Op: mir.OpJCC, Cond: mir.CondE, Pos: -1})
			next := l.newSealedBlock(osrFreq)
			l.f.AddEdge(l.cur.ID, enter.ID, 1/float64(len(headers)-k))
			l.f.AddEdge(l.cur.ID, next.ID, 1-1/float64(len(headers)-k))
			l.ssa.seal(enter.ID)
			l.ssa.seal(next.ID)
			l.enterAt(enter, frame, k, b)
			l.cur, l.curFreq = next, osrFreq
			continue
		}
		l.emit(mir.Instr{Op: mir.OpJMP, Pos: -1})
		l.f.AddEdge(l.cur.ID, enter.ID, 1)
		l.ssa.seal(enter.ID)
		l.enterAt(enter, frame, k, b)
	}
	return nil
}

// enterAt fills block enter, on-stack-replacement entry k, of bytecode
// block b: the registers the function writes from the frame at frame
// (the interpreter's 8-byte words, which an argument also is), when the
// code counts the entry counted and the call taken back, the counting
// variables of a self-loop at b started, and a jump to b's head.
func (l *lowerer) enterAt(enter *mir.Block, frame mir.Reg, k, b int) {
	l.cur, l.curFreq = enter, enter.Freq
	for x, t := range l.bf.Regs {
		if l.ssa.stable[x] {
			continue // a parameter never written: the argument
		}
		op := mir.OpMOVQload
		if classOf(t) == mir.XMM {
			op = mir.OpMOVSDload
		}
		v := l.f.NewVReg(classOf(t))
		l.emit(mir.Instr{Op: op, Defs: []mir.Reg{v}, Uses: []mir.Reg{frame, mir.NoReg}, Scale: 1, Imm: int64(8 * x), Pos: -1})
		l.ssa.write(x, enter.ID, v)
	}
	if l.counters != nil {
		l.count(l.counters.OSRCounter(k))
	}
	if l.counted(profilecounters.EntryCounter) {
		// The entry block counted a call: this is none.
		minus := l.newG()
		l.emit(mir.Instr{Op: mir.OpMOVQconst, Defs: []mir.Reg{minus}, Imm: -1, Pos: -1})
		l.consts.set(minus, -1)
		l.emit(mir.Instr{Op: mir.OpCountAdd, Uses: []mir.Reg{minus}, Aux: int32(profilecounters.EntryCounter), Pos: -1})
	}
	l.enterLoop(b)
	l.emit(mir.Instr{Op: mir.OpJMP, Pos: -1})
	l.f.AddEdge(enter.ID, l.head[b], 1)
	l.pendingPreds[b]++
	l.predArrived(b)
}

// loadMemoryState reads the memory base, length and bounds from the
// context into their variables (dead code elimination drops the ones no
// access uses).
func (l *lowerer) loadMemoryState() {
	for field := mir.CtxMemBase; field <= mir.CtxMemBound8; field++ {
		v := l.f.NewVReg(mir.GPR)
		l.emit(mir.Instr{Op: mir.OpCtxLoad, Defs: []mir.Reg{v}, Aux: int32(field), Pos: -1})
		l.assign(l.varMemBase()+int(field), v)
	}
}

// emit appends an instruction to the current block, allocated in the
// function's arena.
func (l *lowerer) emit(in mir.Instr) *mir.Instr {
	return l.cur.Append(l.f.NewInstr(in))
}

// newBlock creates a block with a single predecessor edge from the current
// block (added by the caller's terminator) and seals it.
func (l *lowerer) newSealedBlock(freq float64) *mir.Block {
	b := l.f.NewBlock()
	b.Freq = freq
	l.ssa.addBlock(b.ID, false)
	return b
}

// predArrived notes that one of the edges into bytecode block b's head has
// been lowered or dropped, and seals the head when it was the last.
func (l *lowerer) predArrived(b int) {
	l.pendingPreds[b]--
	if l.pendingPreds[b] == 0 {
		l.ssa.seal(l.head[b])
	}
}

// lowerEdge accounts for bytecode edge e: it now exists in mir.
func (l *lowerer) lowerEdge(e int) {
	l.edgeDone[e] = true
	l.predArrived(int(l.layout.Edges[e].To))
}

// counted reports whether the code counts counter slot s.
func (l *lowerer) counted(s int) bool {
	return l.counters != nil && l.counters.Counted(s)
}

// count emits the increment of counter slot s into the current block if
// the code counts it.
func (l *lowerer) count(s int) {
	if l.counted(s) {
		l.emit(mir.Instr{Op: mir.OpCount, Aux: int32(s), Pos: int32(l.pc)})
	}
}

// loopVar is a variable counting self-loop edge edge of a bytecode block
// in a register (see Options.Counters).
type loopVar struct{ edge, x int }

// planLoopVars gives every counted self-loop edge a variable, numbered
// from first, and returns how many there are.
func (l *lowerer) planLoopVars(first int) int {
	l.loopVars = make([][]loopVar, len(l.layout.Blocks))
	if l.counters == nil {
		return 0
	}
	n := 0
	for e, ed := range l.layout.Edges {
		if ed.From == ed.To && l.counted(profilecounters.EdgeCounter(e)) {
			l.loopVars[ed.From] = append(l.loopVars[ed.From], loopVar{edge: e, x: first + n})
			n++
		}
	}
	return n
}

// countEdge counts bytecode edge e in the current block, which the edge
// alone reaches (its own block, or the block its jump ends): a self-loop
// counted in a register adds one to its variable; an edge leaving a block
// with such loops adds their variables to their counters; an edge
// entering one starts its variables from zero; other counted edges
// increment their counters.
func (l *lowerer) countEdge(e int) {
	ed := l.layout.Edges[e]
	if ed.From == ed.To {
		for _, lv := range l.loopVars[ed.From] {
			if lv.edge == e {
				next := l.newG()
				l.emit(mir.Instr{Op: mir.OpLEAQ, Defs: []mir.Reg{next}, Uses: []mir.Reg{l.ssa.read(lv.x, l.cur.ID)}, Imm: 1, Pos: int32(l.pc)})
				l.ssa.write(lv.x, l.cur.ID, next)
				return
			}
		}
		l.count(profilecounters.EdgeCounter(e))
		return
	}
	for _, lv := range l.loopVars[ed.From] {
		l.emit(mir.Instr{Op: mir.OpCountAdd, Uses: []mir.Reg{l.ssa.read(lv.x, l.cur.ID)},
			Aux: int32(profilecounters.EdgeCounter(lv.edge)), Pos: int32(l.pc)})
	}
	l.count(profilecounters.EdgeCounter(e))
	l.enterLoop(int(ed.To))
}

// enterLoop starts the loop variables of bytecode block b from zero at the
// end of the current block, a predecessor of b's head. Each start is a
// zero of its own, defined there (before the block's terminator, when it
// has one), rather than the function's shared zero: that one is defined
// in the entry block and would hold a register from there to every loop
// entered.
func (l *lowerer) enterLoop(b int) {
	if len(l.loopVars[b]) == 0 {
		return
	}
	z := l.newG()
	in := l.f.NewInstr(mir.Instr{Op: mir.OpMOVQconst, Defs: []mir.Reg{z}, Pos: int32(l.pc)})
	if t := l.cur.Terminator(); t != nil && t.Op.Info().Terminator {
		n := len(l.cur.Instrs)
		l.cur.Instrs = append(l.cur.Instrs[:n-1], in, t)
	} else {
		l.cur.Append(in)
	}
	l.consts.set(z, 0)
	for _, lv := range l.loopVars[b] {
		l.ssa.write(lv.x, l.cur.ID, z)
	}
}

// backward reports whether bytecode edge e, leaving the branch at the
// current offset, goes to a block at or before it: a loop's back edge,
// which polls.
func (l *lowerer) backward(e int) bool {
	return int(l.layout.Blocks[l.layout.Edges[e].To].Start) <= l.pc
}

// edgeTarget returns the mir block bytecode edge e should enter from the
// branch at the current offset: the target's head, or a new block of the
// edge's own (edgeBlock) when the edge needs code, a poll for a backward
// edge or the increment of a counted one that its target's head does not
// count (ChordPlan.AtHead). freq is the edge's frequency.
func (l *lowerer) edgeTarget(e int, freq float64) (target int, edgeBlock *mir.Block) {
	counted := l.counted(profilecounters.EdgeCounter(e))
	if !l.backward(e) && (!counted || l.counters.AtHead(e)) && len(l.loopVars[l.layout.Edges[e].From]) == 0 {
		return l.head[l.layout.Edges[e].To], nil
	}
	eb := l.newSealedBlock(freq)
	return eb.ID, eb
}

// connect adds the mir edge for bytecode edge e from the current block to
// target (from edgeTarget), completing the edge's block if there is one:
// the count, the poll, the jump to the head. The current block's
// terminator must already be emitted.
func (l *lowerer) connect(from *mir.Block, e, target int, edgeBlock *mir.Block, prob float64) {
	l.f.AddEdge(from.ID, target, prob)
	if edgeBlock == nil {
		// No code of its own: the target's head counts the edge if it is
		// counted, neither end counts a self-loop in a register, but the
		// target's loop variables start from zero.
		if l.counted(profilecounters.EdgeCounter(e)) {
			l.countAtHead[l.layout.Edges[e].To] = true
		}
		saved := l.cur
		l.cur = from
		l.enterLoop(int(l.layout.Edges[e].To))
		l.cur = saved
		l.lowerEdge(e)
		return
	}
	l.ssa.seal(edgeBlock.ID)
	saved, savedFreq := l.cur, l.curFreq
	l.cur, l.curFreq = edgeBlock, edgeBlock.Freq
	l.countEdge(e)
	if l.backward(e) {
		l.emit(mir.Instr{Op: mir.OpPoll, Pos: int32(l.pc)})
	}
	l.emit(mir.Instr{Op: mir.OpJMP, Pos: int32(l.pc)})
	l.f.AddEdge(edgeBlock.ID, l.head[l.layout.Edges[e].To], 1)
	l.lowerEdge(e)
	l.cur, l.curFreq = saved, savedFreq
}

// jumpEdge ends the current block with a jump along bytecode edge e; a
// backward jump polls first.
func (l *lowerer) jumpEdge(e int) {
	to := l.layout.Edges[e].To
	l.countEdge(e)
	if l.backward(e) {
		l.emit(mir.Instr{Op: mir.OpPoll, Pos: int32(l.pc)})
	}
	l.emit(mir.Instr{Op: mir.OpJMP, Pos: int32(l.pc)})
	l.f.AddEdge(l.cur.ID, l.head[to], 1)
	l.lowerEdge(e)
	l.cur = nil
}

// branchEdges ends the current block with a conditional branch (the flags
// set by the previous instruction) along bytecode edges taken and
// notTaken.
func (l *lowerer) branchEdges(cond mir.Cond, taken, notTaken int) {
	pTaken := l.prof.EdgeProb[taken]
	if sum := pTaken + l.prof.EdgeProb[notTaken]; sum > 0 {
		pTaken /= sum
	} else {
		pTaken = 0.5
	}
	freq := l.curFreq
	tTarget, tBlock := l.edgeTarget(taken, freq*pTaken)
	nTarget, nBlock := l.edgeTarget(notTaken, freq*(1-pTaken))
	from := l.cur
	l.emit(mir.Instr{Op: mir.OpJCC, Cond: cond, Pos: int32(l.pc)})
	l.connect(from, taken, tTarget, tBlock, pTaken)
	l.connect(from, notTaken, nTarget, nBlock, 1-pTaken)
	l.cur = nil
}

// checkTrap stops with a trap of the given kind when cond holds (on the
// flags the previous instruction set). The check is one TRAPCC
// instruction whose failure path the encoder places out of line, so it
// does not split the block: a function with a bounds check per memory
// access keeps its blocks as the bytecode has them.
func (l *lowerer) checkTrap(cond mir.Cond, kind bc.TrapKind) {
	l.emit(mir.Instr{Op: mir.OpTRAPCC, Cond: cond, Aux: int32(kind), Pos: int32(l.pc)})
}

// trapAlways ends the current block with a trap: the instruction always
// traps (for example, a division by the constant zero).
func (l *lowerer) trapAlways(kind bc.TrapKind) {
	l.emit(mir.Instr{Op: mir.OpTRAP, Aux: int32(kind), Pos: int32(l.pc)})
	l.cur = nil
}

// lowerBlock lowers bytecode block b into its head block (and the blocks
// checks split it into).
func (l *lowerer) lowerBlock(b int) error {
	blk := &l.layout.Blocks[b]
	l.cur = l.f.Blocks[l.head[b]]
	l.curFreq = l.cur.Freq
	if l.countAtHead[b] {
		// The only edge into b (lowered before b: its source dominates b).
		l.count(profilecounters.EdgeCounter(int(l.layout.Preds(b)[0])))
	}
	if l.counters != nil {
		if s := l.counters.ExitSlot(b); s >= 0 {
			l.count(s)
		}
	}
	code, err := l.blockCode(b)
	if err != nil {
		return err
	}
	for pc := int(blk.Start); pc < int(blk.End); pc++ {
		if l.cur == nil {
			// An earlier instruction always traps; the rest is dead.
			break
		}
		l.pc = pc
		in := &code[pc-int(blk.Start)]
		if err := l.instr(in, b); err != nil {
			return fmt.Errorf("instruction %d (%s): %w", pc, in.Op, err)
		}
	}
	if l.cur != nil {
		// The block falls through into the next one.
		l.pc = int(blk.End) - 1
		l.jumpEdge(int(blk.FirstEdge))
	}
	// Edges of this block that were not lowered (folded branches, or code
	// cut short by a trap) never arrive.
	for e := int(blk.FirstEdge); e < int(blk.FirstEdge)+int(blk.NumEdges); e++ {
		if !l.edgeDone[e] {
			l.edgeDone[e] = true
			l.predArrived(int(l.layout.Edges[e].To))
		}
	}
	return nil
}
