package validate

import (
	"fmt"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// unknown is the type of an operand popped from the polymorphic stack of
// unreachable code.
const unknown binary.ValType = 0

type ctrlFrame struct {
	op          binary.Opcode // block, loop, if, else; OpNop for the function
	result      binary.ValType
	height      int
	unreachable bool
}

// funcValidator validates function bodies, keeping its stacks between
// functions.
type funcValidator struct {
	v      *validator
	fn     int
	vals   []binary.ValType
	ctrls  []ctrlFrame
	locals localTypes
	cr     binary.CodeReader
	in     binary.Instr
}

func (f *funcValidator) errf(format string, args ...any) error {
	return &Error{Section: "code", Func: f.fn, Offset: f.in.Offset, Msg: fmt.Sprintf(format, args...)}
}

func (f *funcValidator) push(t binary.ValType) { f.vals = append(f.vals, t) }

func (f *funcValidator) pop() (binary.ValType, error) {
	top := &f.ctrls[len(f.ctrls)-1]
	if len(f.vals) == top.height {
		if top.unreachable {
			return unknown, nil
		}
		return 0, f.errf("type mismatch: %s needs an operand but the block's stack is empty", f.in.Op)
	}
	t := f.vals[len(f.vals)-1]
	f.vals = f.vals[:len(f.vals)-1]
	return t, nil
}

func (f *funcValidator) popExpect(want binary.ValType) (binary.ValType, error) {
	got, err := f.pop()
	if err != nil {
		return 0, err
	}
	if got != want && got != unknown && want != unknown {
		return 0, f.errf("type mismatch: %s expects %s, found %s", f.in.Op, want, got)
	}
	if got == unknown {
		return want, nil
	}
	return got, nil
}

func (f *funcValidator) pushCtrl(op binary.Opcode, result binary.ValType) {
	f.ctrls = append(f.ctrls, ctrlFrame{op: op, result: result, height: len(f.vals)})
}

func (f *funcValidator) popCtrl() (ctrlFrame, error) {
	top := f.ctrls[len(f.ctrls)-1]
	if top.result != binary.BlockEmpty {
		if _, err := f.popExpect(top.result); err != nil {
			return top, err
		}
	}
	if len(f.vals) != top.height {
		return top, f.errf("type mismatch: %d values left on the stack at the end of the block", len(f.vals)-top.height)
	}
	f.ctrls = f.ctrls[:len(f.ctrls)-1]
	return top, nil
}

// labelType returns the type a branch to the frame carries (BlockEmpty
// for none).
func labelType(c *ctrlFrame) binary.ValType {
	if c.op == binary.OpLoop {
		return binary.BlockEmpty
	}
	return c.result
}

func (f *funcValidator) setUnreachable() {
	top := &f.ctrls[len(f.ctrls)-1]
	f.vals = f.vals[:top.height]
	top.unreachable = true
}

func (f *funcValidator) label(depth uint32) (*ctrlFrame, error) {
	if uint64(depth) >= uint64(len(f.ctrls)) {
		return nil, f.errf("unknown label %d (%d enclosing blocks)", depth, len(f.ctrls))
	}
	return &f.ctrls[len(f.ctrls)-1-int(depth)], nil
}

func (f *funcValidator) popLabel(t binary.ValType) error {
	if t == binary.BlockEmpty {
		return nil
	}
	_, err := f.popExpect(t)
	return err
}

func (f *funcValidator) function(v *validator, fn int, code *binary.Code) error {
	m := v.m
	f.v, f.fn = v, fn
	ft := m.Types[v.funcTypes[fn]]
	f.locals.reset(ft.Params, code.Locals)
	f.vals = f.vals[:0]
	f.ctrls = f.ctrls[:0]
	result := binary.BlockEmpty
	if len(ft.Results) == 1 {
		result = ft.Results[0]
	}
	f.pushCtrl(binary.OpNop, result)
	f.cr.Reset(code.Body, code.Offset, "code", fn)
	for len(f.ctrls) > 0 {
		if f.cr.Done() {
			return &Error{Section: "code", Func: fn, Offset: f.cr.Offset(), Msg: "unexpected end of the function body"}
		}
		if err := f.cr.Next(&f.in); err != nil {
			return err
		}
		if err := f.instr(result); err != nil {
			return err
		}
	}
	if !f.cr.Done() {
		return &Error{Section: "code", Func: fn, Offset: f.cr.Offset(), Msg: "instructions after the function's final end"}
	}
	return nil
}

func (f *funcValidator) instr(fnResult binary.ValType) error {
	in := &f.in
	m := f.v.m
	switch op := in.Op; op {
	case binary.OpUnreachable:
		f.setUnreachable()
	case binary.OpNop:
	case binary.OpBlock, binary.OpLoop:
		f.pushCtrl(op, in.Block)
	case binary.OpIf:
		if _, err := f.popExpect(binary.I32); err != nil {
			return err
		}
		f.pushCtrl(op, in.Block)
	case binary.OpElse:
		c, err := f.popCtrl()
		if err != nil {
			return err
		}
		if c.op != binary.OpIf {
			return f.errf("else without a matching if")
		}
		f.pushCtrl(binary.OpElse, c.result)
	case binary.OpEnd:
		c, err := f.popCtrl()
		if err != nil {
			return err
		}
		if c.op == binary.OpIf && c.result != binary.BlockEmpty {
			return f.errf("type mismatch: if of type %s without else", c.result)
		}
		if c.result != binary.BlockEmpty {
			f.push(c.result)
		}
	case binary.OpBr:
		c, err := f.label(in.Index)
		if err != nil {
			return err
		}
		if err := f.popLabel(labelType(c)); err != nil {
			return err
		}
		f.setUnreachable()
	case binary.OpBrIf:
		if _, err := f.popExpect(binary.I32); err != nil {
			return err
		}
		c, err := f.label(in.Index)
		if err != nil {
			return err
		}
		t := labelType(c)
		if err := f.popLabel(t); err != nil {
			return err
		}
		if t != binary.BlockEmpty {
			f.push(t)
		}
	case binary.OpBrTable:
		if _, err := f.popExpect(binary.I32); err != nil {
			return err
		}
		d, err := f.label(in.Index)
		if err != nil {
			return err
		}
		t := labelType(d)
		for _, l := range in.Labels {
			c, err := f.label(l)
			if err != nil {
				return err
			}
			if lt := labelType(c); lt != t {
				return f.errf("type mismatch: br_table label %d carries %s, the default label %s", l, lt, t)
			}
		}
		if err := f.popLabel(t); err != nil {
			return err
		}
		f.setUnreachable()
	case binary.OpReturn:
		if err := f.popLabel(fnResult); err != nil {
			return err
		}
		f.setUnreachable()
	case binary.OpCall:
		if int(in.Index) >= len(f.v.funcTypes) {
			return f.errf("unknown function %d", in.Index)
		}
		return f.call(m.Types[f.v.funcTypes[in.Index]])
	case binary.OpCallIndirect:
		if m.NumTables() == 0 {
			return f.errf("unknown table 0: call_indirect in a module without a table")
		}
		if int(in.Index) >= len(m.Types) {
			return f.errf("unknown type %d", in.Index)
		}
		if _, err := f.popExpect(binary.I32); err != nil {
			return err
		}
		return f.call(m.Types[in.Index])
	case binary.OpDrop:
		if _, err := f.pop(); err != nil {
			return err
		}
	case binary.OpSelect:
		if _, err := f.popExpect(binary.I32); err != nil {
			return err
		}
		t1, err := f.pop()
		if err != nil {
			return err
		}
		t2, err := f.popExpect(t1)
		if err != nil {
			return err
		}
		if t1 == unknown {
			t1 = t2
		}
		f.push(t1)
	case binary.OpLocalGet, binary.OpLocalSet, binary.OpLocalTee:
		t, ok := f.locals.get(in.Index)
		if !ok {
			return f.errf("unknown local %d (the function has %d locals)", in.Index, f.locals.total)
		}
		if op != binary.OpLocalGet {
			if _, err := f.popExpect(t); err != nil {
				return err
			}
		}
		if op != binary.OpLocalSet {
			f.push(t)
		}
	case binary.OpGlobalGet, binary.OpGlobalSet:
		if int(in.Index) >= len(f.v.globals) {
			return f.errf("unknown global %d", in.Index)
		}
		g := f.v.globals[in.Index]
		if op == binary.OpGlobalGet {
			f.push(g.Type)
			break
		}
		if !g.Mutable {
			return f.errf("global is immutable: global.set of global %d", in.Index)
		}
		if _, err := f.popExpect(g.Type); err != nil {
			return err
		}
	case binary.OpMemorySize, binary.OpMemoryGrow:
		if m.NumMems() == 0 {
			return f.errf("unknown memory 0: %s in a module without memory", op)
		}
		if op == binary.OpMemoryGrow {
			if _, err := f.popExpect(binary.I32); err != nil {
				return err
			}
		}
		f.push(binary.I32)
	case binary.OpI32Const:
		f.push(binary.I32)
	case binary.OpI64Const:
		f.push(binary.I64)
	case binary.OpF32Const:
		f.push(binary.F32)
	case binary.OpF64Const:
		f.push(binary.F64)
	default:
		if ins, out, align, ok := op.Memory(); ok {
			if m.NumMems() == 0 {
				return f.errf("unknown memory 0: %s in a module without memory", op)
			}
			if in.Align > align {
				return f.errf("alignment must not be larger than natural: %s with alignment 2^%d", op, in.Align)
			}
			return f.operands(ins, out)
		}
		ins, out, ok := op.Numeric()
		if !ok {
			return f.errf("illegal opcode 0x%02x", byte(op))
		}
		return f.operands(ins, out)
	}
	return nil
}

// operands pops ins (the last one first) and pushes out (0: nothing).
func (f *funcValidator) operands(ins []binary.ValType, out binary.ValType) error {
	for i := len(ins) - 1; i >= 0; i-- {
		if _, err := f.popExpect(ins[i]); err != nil {
			return err
		}
	}
	if out != 0 {
		f.push(out)
	}
	return nil
}

func (f *funcValidator) call(t binary.FuncType) error {
	if err := f.operands(t.Params, 0); err != nil {
		return err
	}
	for _, r := range t.Results {
		f.push(r)
	}
	return nil
}
