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
// the call frames and the edge counters of every function (laid out by
// package profilecounters) and shares the instance's linear memory.
//
// Registers of all active frames live in one []uint64 stack (f64 values as
// their bits). Calls between bytecode functions do not recurse in Go: they
// push a frame record and switch the register window. Host functions are
// called directly and may call back into the same Machine; such nested
// calls run above the caller's frames and share its depth limit, fuel and
// counters.
//
// Polling: every taken backward branch (target offset <= its own) and
// every call spends one unit of a budget; when the budget runs out the
// machine checks the call's context for cancellation and, when the call has
// a fuel limit, charges the fuel. With neither a cancellable context nor a
// fuel limit the budget never runs out.
package interp

import (
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/profilecounters"
)

// Program is a verified module pre-decoded for the interpreter. It is
// immutable and may be shared by any number of Machines.
type Program struct {
	Module  *bytecode.Module
	Layouts []*profilecounters.Layout
	funcs   []*funcCode
}

// funcCode is one function in pre-decoded form.
type funcCode struct {
	name    string
	code    []inst
	lists   []uint32 // call argument/result registers and switch tables
	nregs   int
	nparams int
	nres    int
}

// inst is a pre-decoded instruction. The meaning of its fields depends on
// op; see decodeInstr.
type inst struct {
	op  opcode
	d   uint32
	a   uint32
	b   uint32
	c   uint32
	imm int64
}

// Prepare pre-decodes a module. The module must not be modified afterwards.
// Prepare verifies it first and returns the verifier's error if it is
// invalid.
func Prepare(m *bytecode.Module) (*Program, error) {
	if err := bytecode.Verify(m); err != nil {
		return nil, err
	}
	p := &Program{Module: m}
	for _, f := range m.Funcs {
		layout := profilecounters.NewLayout(f)
		fc, err := decodeFunc(m, f, layout)
		if err != nil {
			return nil, fmt.Errorf("interp: prepare func %s: %w", f.Name, err)
		}
		p.Layouts = append(p.Layouts, layout)
		p.funcs = append(p.funcs, fc)
	}
	return p, nil
}

func decodeFunc(m *bytecode.Module, f *bytecode.Function, layout *profilecounters.Layout) (*funcCode, error) {
	fc := &funcCode{name: f.Name, code: make([]inst, len(f.Code)), nregs: len(f.Regs), nparams: len(f.Sig.Params), nres: len(f.Sig.Results)}
	for pc := range f.Code {
		in := &f.Code[pc]
		out := &fc.code[pc]
		op, ok := opFor(in.Op, in.UseImm)
		if !ok {
			return nil, fmt.Errorf("instruction %d: no interpreter form for %s", pc, in.Op)
		}
		out.op = op
		out.d, out.a, out.b, out.c, out.imm = uint32(in.Dst), uint32(in.A), uint32(in.B), uint32(in.C), in.Imm
		// The first counter slot of the block this instruction ends, for
		// branches; every branch ends its block.
		edge := uint32(profilecounters.EdgeCounter(layout.Blocks[layout.BlockAt(pc)].FirstEdge))
		switch in.Op.Info().Format {
		case bytecode.FormatJump:
			out.d, out.c = in.Target, edge
		case bytecode.FormatBranch, bytecode.FormatCmpBranch:
			out.d, out.c = in.Target, edge
		case bytecode.FormatSwitch:
			out.d, out.b, out.c = in.Target, uint32(len(in.Table)), edge
			out.imm = int64(len(fc.lists))
			fc.lists = append(fc.lists, in.Table...)
		case bytecode.FormatCall:
			out.a, out.b, out.c = in.Callee, uint32(len(in.Args)), uint32(len(in.Results))
			out.imm = int64(len(fc.lists))
			for _, r := range in.Args {
				fc.lists = append(fc.lists, uint32(r))
			}
			for _, r := range in.Results {
				fc.lists = append(fc.lists, uint32(r))
			}
		case bytecode.FormatReturn:
			out.b = uint32(len(in.Args))
			out.imm = int64(len(fc.lists))
			for _, r := range in.Args {
				fc.lists = append(fc.lists, uint32(r))
			}
		}
	}
	return fc, nil
}
