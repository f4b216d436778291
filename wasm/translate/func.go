package translate

import (
	"fmt"
	"math"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/wasm/binary"
)

// slotKind says where the value of an operand stack slot is.
type slotKind uint8

const (
	inReg   slotKind = iota // in the slot's own register R(height, type)
	inLocal                 // still in a local's register (a deferred local.get)
	isConst                 // a constant not yet in any register
)

type slot struct {
	t    bc.Type
	kind slotKind
	reg  bc.Reg // the register, for inReg and inLocal
	imm  int64  // the constant's bits, for isConst
}

type frameKind uint8

const (
	kBlock frameKind = iota
	kLoop
	kIf
	kFunc
)

type frame struct {
	kind frameKind
	base int // operand stack height at entry, below the parameters
	// params and results are the block's types; a branch carries a
	// loop's parameters and any other block's results, in R(base+k).
	params, results []bc.Type
	label           int // branch target: the loop head, or the end
	// elseLabel is where an if goes when its condition is false.
	elseLabel int
	hasElse   bool
	// dead is set while the code being translated in the frame cannot be
	// reached (after br, br_table, return, unreachable).
	dead bool
	// branched is set when some branch targets the frame's end.
	branched bool
}

// cond is a branch condition: an integer register (true when non-zero)
// or a fused integer comparison of a with b (or the immediate imm).
type cond struct {
	fused  bool
	c      bc.Cond
	t      bc.Type // operand type of a fused comparison
	a, b   bc.Reg
	useImm bool
	imm    int64
	reg    bc.Reg
}

// funcTranslator translates one function body at a time.
type funcTranslator struct {
	mt  *translator
	fn  int // Wasm function index
	sig binary.FuncType

	regs    []bc.Type
	code    []bc.Instr
	src     []int32 // Wasm byte offset of the instruction each kiln instruction comes from
	labels  []int   // kiln pc per label, -1 while unbound
	fixups  []int   // instructions whose Target and Table hold label numbers
	nLocals int
	// stackRegs[t][h] is R(h, t) plus one, 0 while unassigned.
	stackRegs [5][]bc.Reg
	scratch   bc.Reg // an i64 register for addresses with large offsets, 0 while unassigned

	stack  []slot
	frames []frame
	// localRefs[x] counts the inLocal slots that hold local x.
	localRefs []int32
	// matFrom: no slot below it is inLocal.
	matFrom int
	// lastDef is the pc of the last instruction when it only writes a
	// stack register that nothing else has read yet, and no label has
	// been bound after it; -1 otherwise. local.set retargets it.
	lastDef int
	// boundAt is the pc at which the last label was bound.
	boundAt int

	deadDepth int // blocks opened inside dead code

	cr      binary.CodeReader
	in      binary.Instr
	next    binary.Instr
	hasNext bool
	curOff  int32
}

func (t *funcTranslator) errf(format string, args ...any) error {
	return &Error{Func: t.fn, Offset: int(t.curOff), Msg: fmt.Sprintf(format, args...)}
}

// emit appends an instruction.
func (t *funcTranslator) emit(in bc.Instr) {
	t.code = append(t.code, in)
	t.src = append(t.src, t.curOff)
	t.lastDef = -1
}

// emitDef appends an instruction that writes a fresh stack register and
// remembers it for local.set.
func (t *funcTranslator) emitDef(in bc.Instr) {
	t.emit(in)
	t.lastDef = len(t.code) - 1
}

func (t *funcTranslator) emitBranch(in bc.Instr, label int) {
	in.Target = uint32(label)
	t.fixups = append(t.fixups, len(t.code))
	t.emit(in)
}

func (t *funcTranslator) newLabel() int {
	t.labels = append(t.labels, -1)
	return len(t.labels) - 1
}

func (t *funcTranslator) bind(l int) {
	t.labels[l] = len(t.code)
	t.lastDef = -1
	t.boundAt = len(t.code)
}

func (t *funcTranslator) newReg(ty bc.Type) bc.Reg {
	t.regs = append(t.regs, ty)
	return bc.Reg(len(t.regs) - 1)
}

// stackReg returns R(h, ty), the register of stack height h for type ty.
func (t *funcTranslator) stackReg(h int, ty bc.Type) bc.Reg {
	rs := t.stackRegs[ty]
	for len(rs) <= h {
		rs = append(rs, 0)
	}
	t.stackRegs[ty] = rs
	if rs[h] == 0 {
		rs[h] = t.newReg(ty) + 1
	}
	return rs[h] - 1
}

func (t *funcTranslator) push(s slot) {
	if s.kind == inLocal {
		t.localRefs[s.reg]++
	}
	t.stack = append(t.stack, s)
}

// pushReg pushes a value computed into its slot's register and returns
// that register.
func (t *funcTranslator) pushReg(ty bc.Type) bc.Reg {
	r := t.stackReg(len(t.stack), ty)
	t.stack = append(t.stack, slot{t: ty, kind: inReg, reg: r})
	return r
}

// popN removes the top n slots.
func (t *funcTranslator) popN(n int) {
	for _, s := range t.stack[len(t.stack)-n:] {
		if s.kind == inLocal {
			t.localRefs[s.reg]--
		}
	}
	t.stack = t.stack[:len(t.stack)-n]
	t.matFrom = min(t.matFrom, len(t.stack))
}

// truncate drops the slots above height h.
func (t *funcTranslator) truncate(h int) {
	if len(t.stack) > h {
		t.popN(len(t.stack) - h)
	}
}

// use returns a register holding the value of slot i, loading a
// constant into the slot's own register. The slot is about to be
// consumed.
func (t *funcTranslator) use(i int) bc.Reg {
	s := &t.stack[i]
	switch s.kind {
	case inReg, inLocal:
		return s.reg
	}
	r := t.stackReg(i, s.t)
	t.emit(constInstr(s.t, r, s.imm))
	return r
}

func constInstr(ty bc.Type, dst bc.Reg, bits int64) bc.Instr {
	var op bc.Op
	switch ty {
	case bc.I32:
		op, bits = bc.OpI32Const, int64(int32(bits))
	case bc.I64:
		op = bc.OpI64Const
	case bc.F32:
		op = bc.OpF32Const
	default:
		op = bc.OpF64Const
	}
	return bc.Instr{Op: op, Dst: dst, Imm: bits}
}

// moveTo puts the value of slot i into register dst.
func (t *funcTranslator) moveTo(dst bc.Reg, i int) {
	s := &t.stack[i]
	switch {
	case s.kind == isConst:
		t.emit(constInstr(s.t, dst, s.imm))
	case s.reg != dst:
		t.emit(bc.Instr{Op: bc.OpMov, Dst: dst, A: s.reg})
	}
}

// materialize puts slot i into its own register.
func (t *funcTranslator) materialize(i int) {
	s := &t.stack[i]
	if s.kind == inReg {
		return
	}
	r := t.stackReg(i, s.t)
	t.moveTo(r, i)
	if s.kind == inLocal {
		t.localRefs[s.reg]--
	}
	*s = slot{t: s.t, kind: inReg, reg: r}
}

// materializeLocals moves every deferred local.get into its slot's
// register, so that the stack below a block does not depend on locals
// the block may change.
func (t *funcTranslator) materializeLocals() {
	for i := t.matFrom; i < len(t.stack); i++ {
		if t.stack[i].kind == inLocal {
			t.materialize(i)
		}
	}
	t.matFrom = len(t.stack)
}

// beforeLocalWrite materializes the slots that still read local x.
func (t *funcTranslator) beforeLocalWrite(x bc.Reg) {
	if t.localRefs[x] == 0 {
		return
	}
	if len(t.stack)-t.matFrom > 32 {
		t.materializeLocals()
		return
	}
	for i := t.matFrom; i < len(t.stack); i++ {
		if s := &t.stack[i]; s.kind == inLocal && s.reg == x {
			t.materialize(i)
		}
	}
}

func (t *funcTranslator) top() *frame { return &t.frames[len(t.frames)-1] }

// readNext decodes the next instruction into t.in, from the lookahead
// when there is one.
func (t *funcTranslator) readNext() error {
	if t.hasNext {
		t.in, t.hasNext = t.next, false
		if t.in.Op == binary.OpBrTable {
			// t.next's Labels alias the reader's buffer, still intact.
			t.in.Labels = t.next.Labels
		}
		return nil
	}
	return t.cr.Next(&t.in)
}

// peek returns the opcode of the instruction after t.in.
func (t *funcTranslator) peek() (binary.Opcode, error) {
	if !t.hasNext {
		if t.cr.Done() {
			return binary.OpEnd, nil
		}
		if err := t.cr.Next(&t.next); err != nil {
			return 0, err
		}
		t.hasNext = true
	}
	return t.next.Op, nil
}

// function translates the body of function fn into a kiln function.
func (t *funcTranslator) function(mt *translator, fn int, code *binary.Code) (*bc.Function, []int32, error) {
	m := mt.m
	t.mt, t.fn = mt, fn
	t.sig = m.Types[mt.funcTypes[fn]]
	t.curOff = int32(code.Offset)
	nl := uint64(len(t.sig.Params)) + code.NumLocals
	if nl > uint64(mt.opts.MaxFunctionLocals) {
		return nil, nil, &UnsupportedError{What: fmt.Sprintf("function %d has %d locals; the translator allows %d (Options.MaxFunctionLocals)", fn, nl, mt.opts.MaxFunctionLocals)}
	}
	if mt.localBudget -= int64(nl); mt.localBudget < 0 {
		return nil, nil, &UnsupportedError{What: fmt.Sprintf("function %d: the module declares more locals than the translator allows for its size", fn)}
	}
	t.nLocals = int(nl)
	t.regs = make([]bc.Type, 0, t.nLocals+16)
	t.regs = append(t.regs, kilnTypes(t.sig.Params)...)
	for _, run := range code.Locals {
		ty := kilnType(run.Type)
		for k := uint32(0); k < run.Count; k++ {
			t.regs = append(t.regs, ty)
		}
	}
	t.code, t.src, t.labels, t.fixups = nil, nil, t.labels[:0], t.fixups[:0]
	for i := range t.stackRegs {
		t.stackRegs[i] = t.stackRegs[i][:0]
	}
	t.scratch = 0
	t.stack, t.frames = t.stack[:0], t.frames[:0]
	if cap(t.localRefs) < t.nLocals {
		t.localRefs = make([]int32, t.nLocals)
	}
	t.localRefs = t.localRefs[:t.nLocals]
	clear(t.localRefs)
	t.matFrom, t.lastDef, t.boundAt, t.deadDepth = 0, -1, -1, 0
	t.hasNext = false
	// Locals of reference types start null, which is not kiln's zero.
	r := bc.Reg(len(t.sig.Params))
	for _, run := range code.Locals {
		for k := uint32(0); k < run.Count; k++ {
			if run.Type.IsRef() {
				t.emit(bc.Instr{Op: bc.OpI64Const, Dst: r, Imm: -1})
			}
			r++
		}
	}

	t.frames = append(t.frames, frame{kind: kFunc, results: kilnTypes(t.sig.Results), label: t.newLabel()})
	t.cr.Reset(code.Body, code.Offset, "code", fn)
	for len(t.frames) > 0 {
		if !t.hasNext && t.cr.Done() {
			return nil, nil, t.errf("internal error: the body ends inside a block")
		}
		if err := t.readNext(); err != nil {
			return nil, nil, err
		}
		t.curOff = int32(t.in.Offset)
		var err error
		if t.top().dead {
			err = t.deadInstr()
		} else {
			err = t.instr()
		}
		if err != nil {
			return nil, nil, err
		}
	}
	// Make sure control cannot fall off the end, and that every label
	// points at an instruction.
	if n := len(t.code); n == 0 || t.code[n-1].FallsThrough() || t.boundAt == n {
		t.emit(bc.Instr{Op: bc.OpUnreachable})
	}
	for _, pc := range t.fixups {
		in := &t.code[pc]
		in.Target = uint32(t.labels[in.Target])
		for k, l := range in.Table {
			in.Table[k] = uint32(t.labels[l])
		}
	}
	if len(t.code) > bc.MaxCode {
		return nil, nil, &UnsupportedError{What: fmt.Sprintf("function %d translates to %d instructions; kiln allows %d", fn, len(t.code), bc.MaxCode)}
	}
	if len(t.regs) > bc.MaxRegs {
		return nil, nil, &UnsupportedError{What: fmt.Sprintf("function %d needs %d registers; kiln allows %d", fn, len(t.regs), bc.MaxRegs)}
	}
	f := &bc.Function{
		Name: mt.funcNames[fn],
		Sig:  bc.Signature{Params: kilnTypes(t.sig.Params), Results: kilnTypes(t.sig.Results)},
		Regs: t.regs,
		Code: t.code,
	}
	return f, t.src, nil
}

// deadInstr handles an instruction in unreachable code: only the block
// structure matters.
func (t *funcTranslator) deadInstr() error {
	switch t.in.Op {
	case binary.OpBlock, binary.OpLoop, binary.OpIf:
		t.deadDepth++
	case binary.OpElse:
		if t.deadDepth == 0 {
			return t.elseInstr()
		}
	case binary.OpEnd:
		if t.deadDepth > 0 {
			t.deadDepth--
			return nil
		}
		return t.endInstr()
	}
	return nil
}

// blockTypes returns the parameters and results of the block type of
// in.
func (t *funcTranslator) blockTypes(in *binary.Instr) (params, results []bc.Type) {
	switch in.Block {
	case binary.BlockEmpty:
		return nil, nil
	case binary.BlockIndexed:
		ft := t.mt.m.Types[in.Index]
		return kilnTypes(ft.Params), kilnTypes(ft.Results)
	}
	return nil, []bc.Type{kilnType(in.Block)}
}

// openBlock pushes the frame of a block, loop or if whose parameters are
// the top slots. Those of a loop or an if are put into their own
// registers first, where branches back to the loop (and the else arm)
// find them.
func (t *funcTranslator) openBlock(kind frameKind, in *binary.Instr) *frame {
	params, results := t.blockTypes(in)
	t.materializeLocals()
	base := len(t.stack) - len(params)
	if kind != kBlock {
		for i := base; i < len(t.stack); i++ {
			t.materialize(i)
		}
	}
	t.frames = append(t.frames, frame{kind: kind, base: base, params: params, results: results, label: t.newLabel()})
	return t.top()
}

// materializeTop puts the top n slots into their own registers.
func (t *funcTranslator) materializeTop(n int) {
	for i := len(t.stack) - n; i < len(t.stack); i++ {
		t.materialize(i)
	}
}

// pushRegs pushes slots of the types ts in their own registers from
// height base on (the stack being that high).
func (t *funcTranslator) pushRegs(base int, ts []bc.Type) {
	for k, ty := range ts {
		t.stack = append(t.stack, slot{t: ty, kind: inReg, reg: t.stackReg(base+k, ty)})
	}
}

func (t *funcTranslator) instr() error {
	in := &t.in
	switch op := in.Op; op {
	case binary.OpUnreachable:
		t.emit(bc.Instr{Op: bc.OpUnreachable})
		t.setDead()
	case binary.OpNop:
	case binary.OpBlock:
		t.openBlock(kBlock, in)
	case binary.OpLoop:
		f := t.openBlock(kLoop, in)
		t.bind(f.label)
	case binary.OpIf:
		c := t.popCond(nil)
		t.ifBlock(c)
	case binary.OpElse:
		return t.elseInstr()
	case binary.OpEnd:
		return t.endInstr()
	case binary.OpBr:
		t.branchTo(in.Index)
		t.setDead()
	case binary.OpBrIf:
		c := t.popCond(nil)
		t.condBranchTo(c, in.Index)
	case binary.OpBrTable:
		return t.brTable()
	case binary.OpReturn:
		t.ret()
		t.setDead()
	case binary.OpCall:
		return t.call()
	case binary.OpCallIndirect:
		return t.callIndirect()
	case binary.OpDrop:
		t.popN(1)
	case binary.OpSelect, binary.OpSelectT:
		n := len(t.stack)
		ty := t.stack[n-2].t
		c := t.use(n - 1)
		b := t.use(n - 3)
		cc := t.use(n - 2)
		t.popN(3)
		dst := t.pushReg(ty)
		t.emitDef(bc.Instr{Op: bc.OpSelect, Dst: dst, A: c, B: b, C: cc})
	case binary.OpLocalGet:
		t.push(slot{t: t.regs[in.Index], kind: inLocal, reg: bc.Reg(in.Index)})
	case binary.OpLocalSet, binary.OpLocalTee:
		t.localSet(bc.Reg(in.Index), op == binary.OpLocalTee)
	case binary.OpGlobalGet:
		ty := kilnType(t.mt.globals[in.Index].Type)
		dst := t.pushReg(ty)
		if h, shared := t.mt.sharedGlobalHost(in.Index, false); shared {
			t.emitCall(bc.Instr{Op: bc.OpCallHost, Callee: h, Results: []bc.Reg{dst}})
			break
		}
		t.emitDef(bc.Instr{Op: bc.OpGlobalGet, Dst: dst, Callee: in.Index})
	case binary.OpGlobalSet:
		n := len(t.stack)
		r := t.use(n - 1)
		t.popN(1)
		if h, shared := t.mt.sharedGlobalHost(in.Index, true); shared {
			t.emit(bc.Instr{Op: bc.OpCallHost, Callee: h, Args: []bc.Reg{r}})
			break
		}
		t.emit(bc.Instr{Op: bc.OpGlobalSet, Callee: in.Index, A: r})
	case binary.OpMemorySize:
		dst := t.pushReg(bc.I32)
		t.emitDef(bc.Instr{Op: bc.OpMemorySize, Dst: dst})
	case binary.OpMemoryGrow:
		n := len(t.stack)
		a := t.use(n - 1)
		t.popN(1)
		dst := t.pushReg(bc.I32)
		t.emitDef(bc.Instr{Op: bc.OpMemoryGrow, Dst: dst, A: a})
	case binary.OpMemoryCopy, binary.OpMemoryFill:
		n := len(t.stack)
		kop := bc.OpMemoryCopy
		if op == binary.OpMemoryFill {
			kop = bc.OpMemoryFill
		}
		a, b, c := t.use(n-3), t.use(n-2), t.use(n-1)
		t.popN(3)
		t.emit(bc.Instr{Op: kop, A: a, B: b, C: c})
	case binary.OpMemoryInit:
		n := len(t.stack)
		a, b, c := t.use(n-3), t.use(n-2), t.use(n-1)
		t.popN(3)
		t.emit(bc.Instr{Op: bc.OpMemoryInit, Callee: in.Index, A: a, B: b, C: c})
	case binary.OpDataDrop:
		t.emit(bc.Instr{Op: bc.OpDataDrop, Callee: in.Index})
	case binary.OpRefNull, binary.OpRefIsNull, binary.OpRefFunc, binary.OpTableGet, binary.OpTableSet,
		binary.OpTableSize, binary.OpTableGrow, binary.OpTableFill, binary.OpTableCopy, binary.OpTableInit,
		binary.OpElemDrop:
		t.tableInstr()
	case binary.OpI32Const:
		t.push(slot{t: bc.I32, kind: isConst, imm: int64(uint32(in.Value))})
	case binary.OpI64Const:
		t.push(slot{t: bc.I64, kind: isConst, imm: int64(in.Value)})
	case binary.OpF32Const:
		t.push(slot{t: bc.F32, kind: isConst, imm: int64(in.Value)})
	case binary.OpF64Const:
		t.push(slot{t: bc.F64, kind: isConst, imm: int64(in.Value)})
	default:
		if kop, ok := memOps[op]; ok {
			return t.memory(kop)
		}
		return t.numeric()
	}
	return nil
}

// setDead marks the rest of the current block unreachable.
func (t *funcTranslator) setDead() {
	f := t.top()
	t.truncate(f.base)
	f.dead = true
}

func (t *funcTranslator) elseInstr() error {
	f := t.top()
	if !f.dead {
		t.materializeTop(len(f.results))
		t.emitBranch(bc.Instr{Op: bc.OpJump}, f.label)
		f.branched = true
	}
	t.bind(f.elseLabel)
	f.hasElse, f.dead = true, false
	t.truncate(f.base)
	t.pushRegs(f.base, f.params)
	t.matFrom = len(t.stack)
	return nil
}

func (t *funcTranslator) endInstr() error {
	f := *t.top()
	fallthrough_ := !f.dead
	if f.kind == kFunc {
		// Branches to the function's block are returns, so only the
		// fall-through reaches its end.
		t.frames = t.frames[:len(t.frames)-1]
		if fallthrough_ {
			t.ret()
		}
		return nil
	}
	if fallthrough_ {
		// The results are the only slots above the base: put them in
		// R(base+k).
		t.materializeTop(len(f.results))
	}
	reachable := fallthrough_ || f.branched
	if f.kind == kIf && !f.hasElse {
		t.bind(f.elseLabel)
		reachable = true
	}
	t.frames = t.frames[:len(t.frames)-1]
	if f.kind != kLoop {
		t.bind(f.label)
	}
	t.truncate(f.base)
	if !reachable {
		t.setDead()
		return nil
	}
	t.pushRegs(f.base, f.results)
	t.matFrom = len(t.stack)
	return nil
}

// ret returns the function's results from the top of the stack.
func (t *funcTranslator) ret() {
	nr := len(t.sig.Results)
	if nr == 0 {
		t.emit(bc.Instr{Op: bc.OpReturn})
		return
	}
	args := make([]bc.Reg, nr)
	for k := range args {
		args[k] = t.use(len(t.stack) - nr + k)
	}
	t.emit(bc.Instr{Op: bc.OpReturn, Args: args})
}

// labelTypes returns the types a branch to f carries.
func labelTypes(f *frame) []bc.Type {
	if f.kind == kLoop {
		return f.params
	}
	return f.results
}

// target returns the frame a branch of depth d goes to.
func (t *funcTranslator) target(d uint32) *frame { return &t.frames[len(t.frames)-1-int(d)] }

// branchNeedsCode reports whether a branch of depth d needs instructions
// besides a jump: a return, or a move of the value it carries.
func (t *funcTranslator) branchNeedsCode(d uint32) bool {
	f := t.target(d)
	if f.kind == kFunc {
		return true
	}
	ts := labelTypes(f)
	n := len(t.stack) - len(ts)
	for k, ty := range ts {
		if s := &t.stack[n+k]; !(s.kind == inReg && s.reg == t.stackReg(f.base+k, ty)) {
			return true
		}
	}
	return false
}

// branchTo emits an unconditional branch of depth d, leaving the stack
// as it is.
func (t *funcTranslator) branchTo(d uint32) {
	f := t.target(d)
	if f.kind == kFunc {
		t.ret()
		return
	}
	// Moving in order of height is safe: a value's own register lies no
	// lower than the register it moves to, so no move overwrites a value
	// a later move reads.
	ts := labelTypes(f)
	n := len(t.stack) - len(ts)
	for k, ty := range ts {
		t.moveTo(t.stackReg(f.base+k, ty), n+k)
	}
	if f.kind != kLoop {
		f.branched = true
	}
	t.emitBranch(bc.Instr{Op: bc.OpJump}, f.label)
}

// condBranchTo emits a branch of depth d taken when c holds.
func (t *funcTranslator) condBranchTo(c cond, d uint32) {
	if !t.branchNeedsCode(d) {
		f := t.target(d)
		if f.kind != kLoop {
			f.branched = true
		}
		t.branchIf(c, false, f.label)
		return
	}
	skip := t.newLabel()
	t.branchIf(c, true, skip)
	t.branchTo(d)
	t.bind(skip)
}

// branchIf emits a branch to label taken when c holds (when it does not,
// if negated).
func (t *funcTranslator) branchIf(c cond, negated bool, label int) {
	if !c.fused {
		if negated {
			t.emitBranch(bc.Instr{Op: bc.OpBrI32Eq, A: c.reg, UseImm: true}, label)
		} else {
			t.emitBranch(bc.Instr{Op: bc.OpBrIf, A: c.reg}, label)
		}
		return
	}
	cc := c.c
	if negated {
		cc = cc.Negate()
	}
	in := bc.Instr{Op: cmpOp(cc, c.t, true), A: c.a, B: c.b, UseImm: c.useImm, Imm: c.imm}
	t.emitBranch(in, label)
}

// popCond pops the condition of br_if or if: an i32 register, or the
// comparison the previous instruction left pending.
func (t *funcTranslator) popCond(pending *cond) cond {
	if pending != nil {
		return *pending
	}
	n := len(t.stack)
	r := t.use(n - 1)
	t.popN(1)
	return cond{reg: r}
}

func (t *funcTranslator) brTable() error {
	in := &t.in
	if len(in.Labels) > bc.MaxSwitchTable {
		return &UnsupportedError{What: fmt.Sprintf("br_table of %d labels in function %d; a kiln switch has at most %d", len(in.Labels), t.fn, bc.MaxSwitchTable)}
	}
	n := len(t.stack)
	idx := t.use(n - 1)
	t.popN(1)
	// One label per distinct depth: the target itself, or a landing pad
	// that moves the carried value or returns.
	pads := map[uint32]int{}
	var padOrder []uint32
	labelOf := func(d uint32) int {
		if l, ok := pads[d]; ok {
			return l
		}
		var l int
		if t.branchNeedsCode(d) {
			l = t.newLabel()
			padOrder = append(padOrder, d)
		} else {
			f := t.target(d)
			if f.kind != kLoop {
				f.branched = true
			}
			l = f.label
		}
		pads[d] = l
		return l
	}
	table := make([]uint32, len(in.Labels))
	for i, d := range in.Labels {
		table[i] = uint32(labelOf(d))
	}
	def := labelOf(in.Index)
	t.fixups = append(t.fixups, len(t.code))
	t.emit(bc.Instr{Op: bc.OpSwitch, A: idx, Table: table, Target: uint32(def)})
	for _, d := range padOrder {
		t.bind(pads[d])
		t.branchTo(d)
	}
	t.setDead()
	return nil
}

func (t *funcTranslator) localSet(x bc.Reg, tee bool) {
	n := len(t.stack)
	s := t.stack[n-1]
	if s.kind == inLocal && s.reg == x {
		if !tee {
			t.popN(1)
		}
		return
	}
	t.beforeLocalWrite(x)
	switch {
	case s.kind == inReg && t.lastDef == len(t.code)-1 && t.lastDef >= 0 && t.retarget(t.lastDef, s.reg, x):
		// The instruction that computed the value writes the local.
	case s.kind == isConst:
		t.emit(constInstr(s.t, x, s.imm))
	default:
		t.emit(bc.Instr{Op: bc.OpMov, Dst: x, A: s.reg})
	}
	t.popN(1)
	if tee {
		t.push(slot{t: s.t, kind: inLocal, reg: x})
	}
}

// retarget makes instruction pc write x instead of the stack register r.
func (t *funcTranslator) retarget(pc int, r, x bc.Reg) bool {
	in := &t.code[pc]
	switch in.Op.Info().Format {
	case bc.FormatCall, bc.FormatCallIndirect:
		if len(in.Results) == 1 && in.Results[0] == r {
			in.Results[0] = x
			return true
		}
		return false
	}
	if in.Dst != r {
		return false
	}
	in.Dst = x
	return true
}

func (t *funcTranslator) call() error {
	f := t.in.Index
	ft := t.mt.m.Types[t.mt.funcTypes[f]]
	args, results := t.callOperands(ft)
	op := bc.OpCall
	if int(f) < t.mt.m.NumImportedFuncs {
		op = bc.OpCallHost
	}
	t.emitCall(bc.Instr{Op: op, Callee: f, Args: args, Results: results})
	return nil
}

func (t *funcTranslator) callIndirect() error {
	ft := t.mt.m.Types[t.in.Index]
	n := len(t.stack)
	idx := t.use(n - 1)
	t.popN(1)
	args, results := t.callOperands(ft)
	if t.mt.sharedTable {
		// The stub of an entry from another instance finds it here.
		t.emit(bc.Instr{Op: bc.OpGlobalSet, Callee: t.mt.slotGlobal, A: idx})
	}
	t.emitCall(bc.Instr{Op: bc.OpCallIndirect, Callee: t.in.Index, Imm: int64(t.in.Index2), A: idx, Args: args, Results: results})
	return nil
}

// tableInstr translates the reference and table instructions.
func (t *funcTranslator) tableInstr() {
	in := &t.in
	n := len(t.stack)
	pop := func(k int) []bc.Reg {
		rs := make([]bc.Reg, k)
		for i := range rs {
			rs[i] = t.use(n - k + i)
		}
		t.popN(k)
		return rs
	}
	switch in.Op {
	case binary.OpRefNull:
		t.push(slot{t: bc.I64, kind: isConst, imm: -1})
	case binary.OpRefIsNull:
		a := pop(1)[0]
		dst := t.pushReg(bc.I32)
		t.emitDef(bc.Instr{Op: bc.OpI64Eq, Dst: dst, A: a, UseImm: true, Imm: -1})
	case binary.OpRefFunc:
		dst := t.pushReg(bc.I64)
		t.emitDef(bc.Instr{Op: bc.OpRefFunc, Dst: dst, Callee: in.Index})
	case binary.OpTableGet:
		a := pop(1)[0]
		dst := t.pushReg(bc.I64)
		t.emitDef(bc.Instr{Op: bc.OpTableGet, Dst: dst, Callee: in.Index, A: a})
	case binary.OpTableSet:
		rs := pop(2)
		t.emit(bc.Instr{Op: bc.OpTableSet, Callee: in.Index, A: rs[0], B: rs[1]})
	case binary.OpTableSize:
		dst := t.pushReg(bc.I32)
		t.emitDef(bc.Instr{Op: bc.OpTableSize, Dst: dst, Callee: in.Index})
	case binary.OpTableGrow:
		rs := pop(2)
		dst := t.pushReg(bc.I32)
		t.emitDef(bc.Instr{Op: bc.OpTableGrow, Dst: dst, Callee: in.Index, A: rs[0], B: rs[1]})
	case binary.OpTableFill:
		rs := pop(3)
		t.emit(bc.Instr{Op: bc.OpTableFill, Callee: in.Index, A: rs[0], B: rs[1], C: rs[2]})
	case binary.OpTableCopy:
		rs := pop(3)
		t.emit(bc.Instr{Op: bc.OpTableCopy, Callee: in.Index, Imm: int64(in.Index2), A: rs[0], B: rs[1], C: rs[2]})
	case binary.OpTableInit:
		rs := pop(3)
		t.emit(bc.Instr{Op: bc.OpTableInit, Callee: in.Index, Imm: int64(in.Index2), A: rs[0], B: rs[1], C: rs[2]})
	case binary.OpElemDrop:
		t.emit(bc.Instr{Op: bc.OpElemDrop, Callee: in.Index})
	}
}

// callOperands pops a call's arguments and pushes its results, returning
// their registers.
func (t *funcTranslator) callOperands(ft binary.FuncType) (args, results []bc.Reg) {
	n := len(t.stack)
	k := len(ft.Params)
	if k > 0 {
		args = make([]bc.Reg, k)
		for i := range args {
			args[i] = t.use(n - k + i)
		}
	}
	t.popN(k)
	if len(ft.Results) > 0 {
		results = make([]bc.Reg, len(ft.Results))
		for i, rt := range ft.Results {
			results[i] = t.pushReg(kilnType(rt))
		}
	}
	return args, results
}

func (t *funcTranslator) emitCall(in bc.Instr) {
	if len(in.Results) == 1 {
		t.emitDef(in)
	} else {
		t.emit(in)
	}
}

// address returns the register and immediate offset of a memory access
// to the i32 address in slot i plus offset. kiln adds a signed 32-bit
// offset to the 64-bit address; the i32 address is zero-extended, so an
// offset below 2^31 gives exactly the 33-bit sum Wasm specifies. A larger
// offset is added in an i64 register.
func (t *funcTranslator) address(i int, offset uint32) (bc.Reg, int64) {
	a := t.use(i)
	if offset <= math.MaxInt32 {
		return a, int64(offset)
	}
	if t.scratch == 0 {
		t.scratch = t.newReg(bc.I64)
	}
	t.emit(bc.Instr{Op: bc.OpI64ExtendI32U, Dst: t.scratch, A: a})
	t.emit(bc.Instr{Op: bc.OpI64Add, Dst: t.scratch, A: t.scratch, UseImm: true, Imm: int64(offset)})
	return t.scratch, 0
}

func (t *funcTranslator) memory(op bc.Op) error {
	n := len(t.stack)
	info := op.Info()
	if info.Format == bc.FormatLoad {
		a, off := t.address(n-1, t.in.MemOffset)
		t.popN(1)
		dst := t.pushReg(info.Dst)
		t.emitDef(bc.Instr{Op: op, Dst: dst, A: a, Imm: off})
		return nil
	}
	v := t.use(n - 1)
	a, off := t.address(n-2, t.in.MemOffset)
	t.popN(2)
	t.emit(bc.Instr{Op: op, A: a, B: v, Imm: off})
	return nil
}

func (t *funcTranslator) numeric() error {
	op := t.in.Op
	ins, out, ok := op.Numeric()
	if !ok {
		return t.errf("internal error: unexpected %s", op)
	}
	kop, ok := numOps[op]
	if !ok {
		return t.errf("internal error: no kiln operation for %s", op)
	}
	n := len(t.stack)
	// A comparison or eqz right before br_if or if becomes a fused
	// compare-and-branch.
	if c, ty, isCmp := intCompare(op); isCmp || op == binary.OpI32Eqz || op == binary.OpI64Eqz {
		next, err := t.peek()
		if err != nil {
			return err
		}
		if next == binary.OpBrIf || next == binary.OpIf {
			var pc cond
			if isCmp {
				pc = t.fusedCompare(c, ty)
			} else {
				ty := bc.I32
				if op == binary.OpI64Eqz {
					ty = bc.I64
				}
				a := t.use(n - 1)
				t.popN(1)
				pc = cond{fused: true, c: bc.CondEq, t: ty, a: a, useImm: true}
			}
			if err := t.readNext(); err != nil {
				return err
			}
			t.curOff = int32(t.in.Offset)
			return t.fusedBranch(pc)
		}
	}
	kout := kilnType(out)
	if len(ins) == 1 {
		a := t.use(n - 1)
		t.popN(1)
		dst := t.pushReg(kout)
		t.emitDef(bc.Instr{Op: kop, Dst: dst, A: a})
		return nil
	}
	sa, sb := t.stack[n-2], t.stack[n-1]
	info := kop.Info()
	if info.Imm && sa.kind == isConst && sb.kind != isConst {
		// Put the constant second where the operation allows.
		if c, ty, isCmp := intCompare(op); isCmp {
			kop = cmpOp(c.Swapped(), ty, false)
			t.stack[n-2], t.stack[n-1] = sb, sa
		} else if commutative(kop) {
			t.stack[n-2], t.stack[n-1] = sb, sa
		}
		sa, sb = t.stack[n-2], t.stack[n-1]
	}
	in := bc.Instr{Op: kop, A: t.use(n - 2)}
	if info.Imm && sb.kind == isConst {
		in.UseImm, in.Imm = true, immOf(sb)
	} else {
		in.B = t.use(n - 1)
	}
	t.popN(2)
	in.Dst = t.pushReg(kout)
	t.emitDef(in)
	return nil
}

// immOf returns the constant of an integer slot as a kiln immediate (an
// i32 sign-extended).
func immOf(s slot) int64 {
	if s.t == bc.I32 {
		return int64(int32(s.imm))
	}
	return s.imm
}

// fusedCompare pops the operands of an integer comparison and returns it
// as a pending branch condition.
func (t *funcTranslator) fusedCompare(c bc.Cond, ty bc.Type) cond {
	n := len(t.stack)
	sa, sb := t.stack[n-2], t.stack[n-1]
	if sa.kind == isConst && sb.kind != isConst {
		c = c.Swapped()
		t.stack[n-2], t.stack[n-1] = sb, sa
		sa, sb = sb, sa
	}
	pc := cond{fused: true, c: c, t: ty, a: t.use(n - 2)}
	if sb.kind == isConst {
		pc.useImm, pc.imm = true, immOf(sb)
	} else {
		pc.b = t.use(n - 1)
	}
	t.popN(2)
	return pc
}

// fusedBranch translates the br_if or if in t.in with the pending
// condition pc.
func (t *funcTranslator) fusedBranch(pc cond) error {
	if t.in.Op == binary.OpBrIf {
		t.condBranchTo(pc, t.in.Index)
		return nil
	}
	t.ifBlock(pc)
	return nil
}

// ifBlock opens the if in t.in, branching to its else arm unless c
// holds.
func (t *funcTranslator) ifBlock(c cond) {
	f := t.openBlock(kIf, &t.in)
	f.elseLabel = t.newLabel()
	t.branchIf(c, true, f.elseLabel)
}
