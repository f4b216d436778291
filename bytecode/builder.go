package bytecode

import (
	"errors"
	"fmt"
	"math"
)

// ModuleBuilder assembles a Module from Go code. Functions may be declared
// before their bodies are written, so that calls can refer to functions
// defined later. Misuse is recorded and reported by Build, never panics.
type ModuleBuilder struct {
	m     Module
	funcs []*FuncBuilder
	err   error
}

// NewModuleBuilder returns an empty module builder.
func NewModuleBuilder() *ModuleBuilder { return &ModuleBuilder{} }

func (b *ModuleBuilder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Memory declares the module's linear memory size in 64 KiB pages.
func (b *ModuleBuilder) Memory(minPages, maxPages uint32) *ModuleBuilder {
	b.m.Memory = Memory{MinPages: minPages, MaxPages: maxPages}
	return b
}

// Data adds a data segment that initialises memory at offset.
func (b *ModuleBuilder) Data(offset uint32, bytes []byte) *ModuleBuilder {
	b.m.Data = append(b.m.Data, DataSegment{Offset: offset, Bytes: append([]byte(nil), bytes...)})
	return b
}

// Host declares a host import and returns its index for CallHost.
func (b *ModuleBuilder) Host(name string, params, results []Type) uint32 {
	b.m.Hosts = append(b.m.Hosts, HostImport{Name: name, Sig: Signature{Params: params, Results: results}})
	return uint32(len(b.m.Hosts) - 1)
}

// Global adds a global and returns its index for GlobalGet and GlobalSet.
func (b *ModuleBuilder) Global(g Global) uint32 {
	b.m.Globals = append(b.m.Globals, g)
	return uint32(len(b.m.Globals) - 1)
}

// Type adds a signature to Module.Types and returns its index for
// CallIndirect.
func (b *ModuleBuilder) Type(params, results []Type) uint32 {
	b.m.Types = append(b.m.Types, Signature{Params: params, Results: results})
	return uint32(len(b.m.Types) - 1)
}

// Table declares the module's table.
func (b *ModuleBuilder) Table(t Table) *ModuleBuilder {
	b.m.Table = t
	return b
}

// Elem adds an element segment that puts fns into the table from entry
// offset on.
func (b *ModuleBuilder) Elem(offset uint32, fns ...*FuncBuilder) *ModuleBuilder {
	e := ElemSegment{Offset: offset}
	for _, f := range fns {
		e.Funcs = append(e.Funcs, f.index)
	}
	b.m.Elems = append(b.m.Elems, e)
	return b
}

// PassiveData adds a passive data segment and returns its index for
// memory.init and data.drop.
func (b *ModuleBuilder) PassiveData(bytes []byte) uint32 {
	b.m.Data = append(b.m.Data, DataSegment{Bytes: append([]byte(nil), bytes...), Passive: true})
	return uint32(len(b.m.Data) - 1)
}

// MoreTable declares the next table after table 0 (which Table declares)
// and returns its index.
func (b *ModuleBuilder) MoreTable(t Table) uint32 {
	b.m.MoreTables = append(b.m.MoreTables, t)
	return uint32(len(b.m.MoreTables))
}

// Segment adds an element segment (of any mode and table; its Funcs are
// function indices or NullFunc) and returns its index for table.init and
// elem.drop.
func (b *ModuleBuilder) Segment(e ElemSegment) uint32 {
	b.m.Elems = append(b.m.Elems, e)
	return uint32(len(b.m.Elems) - 1)
}

// Func declares a function and returns the builder of its body. Its index
// (for Call) is FuncBuilder.Index.
func (b *ModuleBuilder) Func(name string, params, results []Type) *FuncBuilder {
	f := &Function{Name: name, Sig: Signature{Params: params, Results: results}}
	f.Regs = append(f.Regs, params...)
	fb := &FuncBuilder{mb: b, f: f, index: uint32(len(b.m.Funcs))}
	b.m.Funcs = append(b.m.Funcs, f)
	b.funcs = append(b.funcs, fb)
	return fb
}

// Export exports function fn under name.
func (b *ModuleBuilder) Export(name string, fn *FuncBuilder) *ModuleBuilder {
	b.m.Exports = append(b.m.Exports, Export{Name: name, Func: fn.index})
	return b
}

// Build resolves labels, verifies the module and returns it. The builder
// must not be used afterwards.
func (b *ModuleBuilder) Build() (*Module, error) {
	for _, fb := range b.funcs {
		if fb.err != nil {
			b.fail(fmt.Errorf("build func %s: %w", fb.f.Name, fb.err))
		}
		if err := fb.resolve(); err != nil {
			b.fail(fmt.Errorf("build func %s: %w", fb.f.Name, err))
		}
	}
	if b.err != nil {
		return nil, b.err
	}
	m := b.m
	if err := Verify(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

// Label is a position in a function's code, created by NewLabel and placed by
// Bind. Branches may refer to a label before it is bound.
type Label int

// FuncBuilder appends instructions to one function.
type FuncBuilder struct {
	mb     *ModuleBuilder
	f      *Function
	index  uint32
	labels []int // instruction index per label, -1 while unbound
	// fixups lists instructions whose Target and Table hold label numbers.
	fixups []int
	err    error
}

// Index returns the function's index in the module, for Call.
func (fb *FuncBuilder) Index() uint32 { return fb.index }

// Param returns the register holding parameter i.
func (fb *FuncBuilder) Param(i int) Reg {
	if i < 0 || i >= len(fb.f.Sig.Params) {
		fb.fail(fmt.Errorf("parameter %d out of range", i))
		return 0
	}
	return Reg(i)
}

// NewReg adds a register of type t.
func (fb *FuncBuilder) NewReg(t Type) Reg {
	fb.f.Regs = append(fb.f.Regs, t)
	return Reg(len(fb.f.Regs) - 1)
}

// NewLabel returns a new, unbound label.
func (fb *FuncBuilder) NewLabel() Label {
	fb.labels = append(fb.labels, -1)
	return Label(len(fb.labels) - 1)
}

// Bind places label l at the next instruction to be emitted.
func (fb *FuncBuilder) Bind(l Label) {
	if int(l) < 0 || int(l) >= len(fb.labels) {
		fb.fail(fmt.Errorf("bind of unknown label %d", l))
		return
	}
	if fb.labels[l] >= 0 {
		fb.fail(fmt.Errorf("label %d bound twice", l))
		return
	}
	fb.labels[l] = len(fb.f.Code)
}

// Len returns the number of instructions emitted so far: the offset of the
// next instruction.
func (fb *FuncBuilder) Len() int { return len(fb.f.Code) }

func (fb *FuncBuilder) fail(err error) {
	if fb.err == nil {
		fb.err = err
	}
}

// Emit appends an instruction that does not branch. Branches must use Jump,
// BrIf, BrCmp, BrCmpImm or Switch, which take labels.
func (fb *FuncBuilder) Emit(in Instr) {
	if in.Op.Info().Branch {
		fb.fail(fmt.Errorf("instruction %d: Emit of branch %s; use the label-taking methods", len(fb.f.Code), in.Op))
	}
	fb.f.Code = append(fb.f.Code, in)
}

// I64Const emits dst = v.
func (fb *FuncBuilder) I64Const(dst Reg, v int64) { fb.Emit(Instr{Op: OpI64Const, Dst: dst, Imm: v}) }

// F64Const emits dst = v.
func (fb *FuncBuilder) F64Const(dst Reg, v float64) {
	fb.Emit(Instr{Op: OpF64Const, Dst: dst, Imm: int64(math.Float64bits(v))})
}

// Mov emits dst = src.
func (fb *FuncBuilder) Mov(dst, src Reg) { fb.Emit(Instr{Op: OpMov, Dst: dst, A: src}) }

// Unary emits dst = op a for a unary op (including conversions and
// memory.grow).
func (fb *FuncBuilder) Unary(op Op, dst, a Reg) { fb.Emit(Instr{Op: op, Dst: dst, A: a}) }

// Binary emits dst = a op b.
func (fb *FuncBuilder) Binary(op Op, dst, a, b Reg) { fb.Emit(Instr{Op: op, Dst: dst, A: a, B: b}) }

// BinaryImm emits dst = a op imm.
func (fb *FuncBuilder) BinaryImm(op Op, dst, a Reg, imm int64) {
	fb.Emit(Instr{Op: op, Dst: dst, A: a, UseImm: true, Imm: imm})
}

// Select emits dst = cond != 0 ? ifTrue : ifFalse.
func (fb *FuncBuilder) Select(dst, cond, ifTrue, ifFalse Reg) {
	fb.Emit(Instr{Op: OpSelect, Dst: dst, A: cond, B: ifTrue, C: ifFalse})
}

// Load emits dst = memory[addr + offset] for a load op.
func (fb *FuncBuilder) Load(op Op, dst, addr Reg, offset int32) {
	fb.Emit(Instr{Op: op, Dst: dst, A: addr, Imm: int64(offset)})
}

// Store emits memory[addr + offset] = val for a store op.
func (fb *FuncBuilder) Store(op Op, addr, val Reg, offset int32) {
	fb.Emit(Instr{Op: op, A: addr, B: val, Imm: int64(offset)})
}

// MemoryCopy emits memory.copy: n bytes from address src to address dst.
func (fb *FuncBuilder) MemoryCopy(dst, src, n Reg) {
	fb.Emit(Instr{Op: OpMemoryCopy, A: dst, B: src, C: n})
}

// MemoryFill emits memory.fill: n bytes from address dst on set to the
// low byte of val.
func (fb *FuncBuilder) MemoryFill(dst, val, n Reg) {
	fb.Emit(Instr{Op: OpMemoryFill, A: dst, B: val, C: n})
}

// MemorySize emits dst = memory size in pages.
func (fb *FuncBuilder) MemorySize(dst Reg) { fb.Emit(Instr{Op: OpMemorySize, Dst: dst}) }

// MemoryGrow emits dst = memory.grow(delta).
func (fb *FuncBuilder) MemoryGrow(dst, delta Reg) {
	fb.Emit(Instr{Op: OpMemoryGrow, Dst: dst, A: delta})
}

func (fb *FuncBuilder) branch(in Instr) {
	fb.fixups = append(fb.fixups, len(fb.f.Code))
	fb.f.Code = append(fb.f.Code, in)
}

// Jump emits an unconditional jump to l.
func (fb *FuncBuilder) Jump(l Label) { fb.branch(Instr{Op: OpJump, Target: uint32(l)}) }

// BrIf emits a branch to l taken when cond != 0.
func (fb *FuncBuilder) BrIf(cond Reg, l Label) {
	fb.branch(Instr{Op: OpBrIf, A: cond, Target: uint32(l)})
}

// BrCmp emits a compare-and-branch (OpBrEq..OpBrGeU) of a with b.
func (fb *FuncBuilder) BrCmp(op Op, a, b Reg, l Label) {
	fb.branch(Instr{Op: op, A: a, B: b, Target: uint32(l)})
}

// BrCmpImm emits a compare-and-branch of a with the constant imm.
func (fb *FuncBuilder) BrCmpImm(op Op, a Reg, imm int64, l Label) {
	fb.branch(Instr{Op: op, A: a, UseImm: true, Imm: imm, Target: uint32(l)})
}

// Switch emits a jump to cases[index], or to def when index (unsigned) is
// not below len(cases).
func (fb *FuncBuilder) Switch(index Reg, cases []Label, def Label) {
	table := make([]uint32, len(cases))
	for i, l := range cases {
		table[i] = uint32(l)
	}
	fb.branch(Instr{Op: OpSwitch, A: index, Table: table, Target: uint32(def)})
}

// Call emits a call of function callee (its index) with the given argument
// and result registers.
func (fb *FuncBuilder) Call(callee uint32, args, results []Reg) {
	fb.Emit(Instr{Op: OpCall, Callee: callee, Args: args, Results: results})
}

// CallHost emits a call of host import host (its index).
func (fb *FuncBuilder) CallHost(host uint32, args, results []Reg) {
	fb.Emit(Instr{Op: OpCallHost, Callee: host, Args: args, Results: results})
}

// CallIndirect emits a call through table entry index (a register) of a
// function of signature typ (an index into Module.Types).
func (fb *FuncBuilder) CallIndirect(typ uint32, index Reg, args, results []Reg) {
	fb.Emit(Instr{Op: OpCallIndirect, Callee: typ, A: index, Args: args, Results: results})
}

// GlobalGet emits dst = global g.
func (fb *FuncBuilder) GlobalGet(dst Reg, g uint32) {
	fb.Emit(Instr{Op: OpGlobalGet, Dst: dst, Callee: g})
}

// GlobalSet emits global g = src.
func (fb *FuncBuilder) GlobalSet(g uint32, src Reg) {
	fb.Emit(Instr{Op: OpGlobalSet, Callee: g, A: src})
}

// Unreachable emits an unreachable instruction, which traps.
func (fb *FuncBuilder) Unreachable() { fb.Emit(Instr{Op: OpUnreachable}) }

// Return emits a return of the given registers.
func (fb *FuncBuilder) Return(values ...Reg) { fb.Emit(Instr{Op: OpReturn, Args: values}) }

// Trap emits an explicit trap with the given code.
func (fb *FuncBuilder) Trap(code int64) { fb.Emit(Instr{Op: OpTrap, Imm: code}) }

var errUnboundLabel = errors.New("branch to a label that was never bound")

func (fb *FuncBuilder) resolve() error {
	pos := func(l uint32) (uint32, error) {
		if int(l) >= len(fb.labels) {
			return 0, fmt.Errorf("branch to unknown label %d", l)
		}
		if fb.labels[l] < 0 {
			return 0, fmt.Errorf("label %d: %w", l, errUnboundLabel)
		}
		return uint32(fb.labels[l]), nil
	}
	for _, pc := range fb.fixups {
		in := &fb.f.Code[pc]
		var err error
		if in.Target, err = pos(in.Target); err != nil {
			return fmt.Errorf("instruction %d: %w", pc, err)
		}
		for i, l := range in.Table {
			if in.Table[i], err = pos(l); err != nil {
				return fmt.Errorf("instruction %d: %w", pc, err)
			}
		}
	}
	fb.fixups = nil
	return nil
}
