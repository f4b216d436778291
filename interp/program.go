// Package interp is kiln's reference interpreter and tier 0. It defines by
// example the semantics written in package bytecode's documentation: every
// compiled tier must compute what it computes, with the same traps at the
// same offsets.
//
// A Program is a verified module pre-decoded into a compact instruction
// array (one entry per bytecode instruction, so indices are bytecode
// offsets): immediate operands, branch targets, edge-counter slots and call
// lists are resolved ahead of time, so the dispatch loop is a single switch
// with no allocation, no map lookup and no interface call per instruction.
// A Machine executes a Program for one instance: it owns the register stack,
// the call frames, the globals and the edge counters of every function
// (laid out by package profilecounters) and shares the instance's linear
// memory.
//
// Registers of all active frames live in one []uint64 stack (f64 values as
// their bits).
//
// Globals live in the Machine, one uint64 each (see Machine.Globals); the
// table is part of the Program, because nothing changes it after the
// element segments are applied: each entry holds the function's index and
// its canonical signature id (bytecode.Module.SignatureIDs), and a null
// entry an id no signature has, so call_indirect checks the index against
// the initialised part of the table and the entry's id against its own
// with two comparisons, and works out which trap applies only when one of
// them fails.
//
// Representation of the 32-bit types: every register slot is a uint64, and
// an i32 or f32 value (the f32 as its bits) is kept in the low 32 bits with
// the upper 32 bits zero, always. Every operation producing an i32 or f32
// writes its result zero-extended, registers start at zero, and the values
// that enter from outside are narrowed on the way in: Machine.Call clears
// the upper halves of 32-bit arguments and a call_host clears those of the
// host function's 32-bit results. So a comparison's 0 or 1 is the same in an
// i32 or an i64 destination, and a condition, a switch index, a memory
// address or a memory.grow delta held in an i32 register is read as the
// whole slot: zero extension is exactly their unsigned WebAssembly meaning.
// memory.grow into an i32 register writes the failure value -1 as
// 0xFFFFFFFF; decodeFunc picks that form from the register's type, as it
// picks every operation's form ahead of time, so no instruction tests a
// type while it runs. The i32 operations whose result on zero-extended
// operands is already zero-extended (and, or, xor, div_u, rem_u, popcnt,
// eq, ne and the unsigned compares and branches, i64.extend_i32_u, the
// loads and stores of 32 bits and less) share the i64 code, with i32
// immediates zero-extended when decoded. f32 arithmetic is IEEE binary32
// with round-to-nearest-even and follows the NaN rule of f64 (package
// internal/floatbits): every tier computes the same NaN bits.
//
// Calls between bytecode functions do not recurse in Go: they
// push a frame record and switch the register window. Host functions are
// called directly and may call back into the same Machine; such nested
// calls run above the caller's frames and share its depth limit, fuel and
// counters. A host function's error ends the call with a HostError trap. A
// panic in a host function ends it with a HostPanic trap when
// Config.RecoverHostPanic is set (package jit sets it), and otherwise
// unwinds out of Machine.Call; either way the machine restores its state,
// so it is ready for the next call. Calls pay for this with one deferred
// function each; host calls only record where they are.
//
// Polling: every taken backward branch (target offset <= its own) and
// every call spends one unit of a budget; when the budget runs out the
// machine checks the call's context for cancellation and, when the call has
// a fuel limit, charges the fuel. With neither a cancellable context nor a
// fuel limit the budget never runs out.
package interp

import (
	"context"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/profilecounters"
)

// Program is a verified module pre-decoded for the interpreter. It is
// immutable and may be shared by any number of Machines.
type Program struct {
	Module  *bytecode.Module
	Layouts []*profilecounters.Layout
	funcs   []*funcCode
	// table is the initial table up to its last initialised entry (see
	// bytecode.Module.TableFuncs); the entries beyond, up to tableSize,
	// are null. In a module whose tables do not change
	// (bytecode.Module.DynamicTables), every Machine shares it; the others
	// have their own Tables.
	table     []tableEntry
	tableSize uint64
	funcIDs   []uint32 // canonical signature id of each function
	// dynamicTables is the module's DynamicTables, found while it had
	// its code (an embedder may drop the code of Module once prepared).
	dynamicTables bool
}

// DynamicTables reports whether the program's tables change
// (bytecode.Module.DynamicTables of the module it was prepared from).
func (p *Program) DynamicTables() bool { return p.dynamicTables }

// tableEntry is a table entry in the interpreter's form: the function's
// index and canonical signature id (bytecode.Module.SignatureIDs), or fn
// -1 and sig nullSig for a null entry, so that call_indirect checks an
// entry with one comparison of sig with the id it expects.
type tableEntry struct {
	fn  int32
	sig uint32
}

// nullSig is the signature id of a null table entry, which no signature
// has.
const nullSig = math.MaxUint32

// funcCode is one function in pre-decoded form.
type funcCode struct {
	name    string
	code    []inst
	lists   []uint32 // call argument/result registers and switch tables
	nregs   int
	nparams int
	nres    int
	// narrowParams lists the 32-bit parameters, whose upper halves Call
	// clears.
	narrowParams []int
}

// inst is a pre-decoded instruction. Register operands (d, a, b, c, and
// the registers in lists) are byte offsets into the frame's register window
// (index*8). For branches d is the target's byte offset in the code
// (offset*instSize), c the byte offset of the first edge counter of the
// branch's block (taken, then not taken; a switch's cases then its
// default), and back is set when the target is at or before the branch.
// Calls keep the callee index in a, the argument and result counts in b and
// c, and the start of their register lists in imm; call_indirect keeps its
// index register in a and the canonical id of its signature in d, and b, c
// and imm as calls do; switches keep the table length in b and its start
// in lists in imm; ret keeps its count in b. global.get and global.set
// keep the global's byte offset (index*8) in a and d respectively, in
// place of the register they do not have.
// narrow is set on a call_host whose host import has 32-bit results, whose
// upper halves the interpreter clears.
type inst struct {
	op     opcode
	back   bool
	narrow bool
	d      uint32
	a      uint32
	b      uint32
	c      uint32
	imm    int64
}

// instSize is the size of an inst in bytes.
const instSize = int(unsafe.Sizeof(inst{}))

// Prepare pre-decodes a module. The module must not be modified afterwards.
// Prepare verifies it first and returns the verifier's error if it is
// invalid.
func Prepare(m *bytecode.Module) (*Program, error) {
	return PrepareContext(context.Background(), m)
}

// PrepareContext is Prepare with a context: it stops with the context's
// error, checked before each function, when ctx is cancelled.
func PrepareContext(ctx context.Context, m *bytecode.Module) (*Program, error) {
	if err := bytecode.Verify(m); err != nil {
		return nil, err
	}
	p := &Program{Module: m, dynamicTables: m.DynamicTables()}
	funcIDs, typeIDs := m.SignatureIDs()
	p.funcIDs = funcIDs
	p.table = p.tableOf(m.TableFuncs())
	p.tableSize = uint64(m.Table.Min)
	for _, f := range m.Funcs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("interp: prepare func %s: %w", f.Name, err)
		}
		layout := profilecounters.NewLayout(f)
		fc, err := decodeFunc(m, f, layout, funcIDs, typeIDs)
		if err != nil {
			return nil, fmt.Errorf("interp: prepare func %s: %w", f.Name, err)
		}
		p.Layouts = append(p.Layouts, layout)
		p.funcs = append(p.funcs, fc)
	}
	return p, nil
}

// tableOf returns the interpreter's form of a table whose entries hold
// the functions funcs lists (-1: null).
func (p *Program) tableOf(funcs []int32) []tableEntry {
	t := make([]tableEntry, len(funcs))
	for i, fn := range funcs {
		t[i] = tableEntry{fn: -1, sig: nullSig}
		if fn >= 0 {
			t[i] = tableEntry{fn: fn, sig: p.funcIDs[fn]}
		}
	}
	return t
}

// SignatureID returns the canonical signature id of function fn
// (bytecode.Module.SignatureIDs), computed once when the program was
// prepared.
func (p *Program) SignatureID(fn int) uint32 { return p.funcIDs[fn] }

// TableFunc returns the function in entry i of the table: its index, or -1
// when the entry is null. ok is false when i is not below the table's size
// (the module's Table.Min).
func (p *Program) TableFunc(i uint64) (fn int, ok bool) {
	switch {
	case i >= p.tableSize:
		return -1, false
	case i >= uint64(len(p.table)):
		return -1, true
	}
	return int(p.table[i].fn), true
}

// sigBits is the width of the signature id in the d field of a
// call_indirect of a module whose tables change: the table index is
// above it (bytecode.MaxTables is small enough).
const sigBits = 22

// apply rewrites the immediate imm by the rule.
func (r immRule) apply(imm int64) int64 {
	switch r.kind {
	case immZext:
		return int64(uint32(imm))
	case immNeg:
		return int64(uint32(-imm))
	case immSet:
		return r.val
	}
	return imm
}

func decodeFunc(m *bytecode.Module, f *bytecode.Function, layout *profilecounters.Layout, funcIDs, typeIDs []uint32) (*funcCode, error) {
	dynamic := m.DynamicTables()
	fc := &funcCode{name: f.Name, code: make([]inst, len(f.Code)), nregs: len(f.Regs), nparams: len(f.Sig.Params), nres: len(f.Sig.Results)}
	for i, t := range f.Sig.Params {
		if t.Is32() {
			fc.narrowParams = append(fc.narrowParams, i)
		}
	}
	for pc := range f.Code {
		in := &f.Code[pc]
		out := &fc.code[pc]
		op, ok := opFor(in.Op, in.UseImm)
		if !ok {
			return nil, fmt.Errorf("instruction %d: no interpreter form for %s", pc, in.Op)
		}
		info := in.Op.Info()
		if in.Op == bytecode.OpMemoryGrow && f.Regs[in.Dst] == bytecode.I32 {
			// -1 (failure) must read as the i32 -1: 0xFFFFFFFF.
			op = iMemGrow32
		}
		out.op = op
		scale := func(r bytecode.Reg) uint32 { return uint32(r) * 8 }
		switch info.Format {
		case bytecode.FormatConst:
			out.d, out.imm = scale(in.Dst), in.Imm
		case bytecode.FormatUnary, bytecode.FormatBinary, bytecode.FormatSelect, bytecode.FormatLoad,
			bytecode.FormatStore, bytecode.FormatMemorySize, bytecode.FormatMemoryBulk:
			out.d, out.a, out.b, out.c, out.imm = scale(in.Dst), scale(in.A), scale(in.B), scale(in.C), in.Imm
		}
		out.imm = immRules[in.Op].apply(out.imm)
		// The first counter of the block this instruction ends, for
		// branches (every branch ends its block).
		edge := uint32(profilecounters.EdgeCounter(int(layout.Blocks[layout.BlockAt(pc)].FirstEdge))) * 8
		target := func(t uint32) uint32 { return t * uint32(instSize) }
		switch info.Format {
		case bytecode.FormatJump:
			out.d, out.c, out.back = target(in.Target), edge, int(in.Target) <= pc
		case bytecode.FormatBranch, bytecode.FormatCmpBranch:
			out.a, out.b, out.imm = scale(in.A), scale(in.B), immRules[in.Op].apply(in.Imm)
			out.d, out.c, out.back = target(in.Target), edge, int(in.Target) <= pc
		case bytecode.FormatSwitch:
			out.a, out.d, out.b, out.c = scale(in.A), target(in.Target), uint32(len(in.Table)), edge
			out.imm = int64(len(fc.lists))
			fc.lists = append(fc.lists, in.Table...)
		case bytecode.FormatGlobalGet:
			out.d, out.a = scale(in.Dst), in.Callee*8
		case bytecode.FormatGlobalSet:
			out.a, out.d = scale(in.A), in.Callee*8
		case bytecode.FormatCall, bytecode.FormatCallIndirect:
			out.a, out.b, out.c = in.Callee, uint32(len(in.Args)), uint32(len(in.Results))
			if in.Op == bytecode.OpCallIndirect {
				out.a, out.d = scale(in.A), typeIDs[in.Callee]
				if dynamic {
					out.d |= uint32(in.Imm) << sigBits
				}
			}
			out.imm = int64(len(fc.lists))
			for _, r := range in.Args {
				fc.lists = append(fc.lists, scale(r))
			}
			for _, r := range in.Results {
				fc.lists = append(fc.lists, scale(r))
			}
			if in.Op == bytecode.OpCallHost {
				out.narrow = slices.ContainsFunc(m.Hosts[in.Callee].Sig.Results, bytecode.Type.Is32)
			}
		case bytecode.FormatReturn:
			out.b = uint32(len(in.Args))
			out.imm = int64(len(fc.lists))
			for _, r := range in.Args {
				fc.lists = append(fc.lists, scale(r))
			}
		case bytecode.FormatTrap:
			out.imm = in.Imm
		case bytecode.FormatSegmentBulk:
			out.a, out.b, out.c, out.d = scale(in.A), scale(in.B), scale(in.C), in.Callee
		case bytecode.FormatSegment:
			out.d = in.Callee
		case bytecode.FormatRefFunc:
			out.d, out.imm = scale(in.Dst), int64(bytecode.FuncRef(funcIDs[in.Callee], in.Callee))
		case bytecode.FormatTableGet, bytecode.FormatTableSet, bytecode.FormatTableSize, bytecode.FormatTableGrow:
			out.d, out.a, out.b, out.c = scale(in.Dst), scale(in.A), scale(in.B), in.Callee
			if in.Op == bytecode.OpTableGrow && f.Regs[in.Dst] == bytecode.I32 {
				out.imm = 1
			}
		case bytecode.FormatTableFill:
			out.a, out.b, out.c, out.imm = scale(in.A), scale(in.B), scale(in.C), int64(in.Callee)
		case bytecode.FormatTableBulk:
			out.a, out.b, out.c, out.d, out.imm = scale(in.A), scale(in.B), scale(in.C), in.Callee, in.Imm
		}
	}
	return fc, nil
}
