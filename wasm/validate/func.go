package validate

import (
	"fmt"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// unknown is the type of an operand popped from the polymorphic stack of
// unreachable code.
const unknown binary.ValType = 0

type ctrlFrame struct {
	op              binary.Opcode // block, loop, if, else; OpNop for the function
	params, results []binary.ValType
	height          int
	unreachable     bool
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
	popped []binary.ValType
}

func (f *funcValidator) errf(format string, args ...any) error {
	return &Error{Section: "code", Func: f.fn, Offset: f.in.Offset, Msg: fmt.Sprintf(format, args...)}
}

// unsupported reports the instruction being validated as one of feature
// that kiln does not support.
func (f *funcValidator) unsupported(feature binary.Features) error {
	return &UnsupportedError{Feature: feature.Name(), What: f.in.Op.String(), Section: "code", Func: f.fn, Offset: f.in.Offset}
}

func (f *funcValidator) push(t binary.ValType) { f.vals = append(f.vals, t) }

func (f *funcValidator) pushAll(ts []binary.ValType) { f.vals = append(f.vals, ts...) }

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

// popAll pops values of the types ts (the last one first).
func (f *funcValidator) popAll(ts []binary.ValType) error {
	for i := len(ts) - 1; i >= 0; i-- {
		if _, err := f.popExpect(ts[i]); err != nil {
			return err
		}
	}
	return nil
}

func (f *funcValidator) pushCtrl(op binary.Opcode, params, results []binary.ValType) {
	f.ctrls = append(f.ctrls, ctrlFrame{op: op, params: params, results: results, height: len(f.vals)})
	f.pushAll(params)
}

func (f *funcValidator) popCtrl() (ctrlFrame, error) {
	top := f.ctrls[len(f.ctrls)-1]
	if err := f.popAll(top.results); err != nil {
		return top, err
	}
	if len(f.vals) != top.height {
		return top, f.errf("type mismatch: %d values left on the stack at the end of the block", len(f.vals)-top.height)
	}
	f.ctrls = f.ctrls[:len(f.ctrls)-1]
	return top, nil
}

// labelTypes returns the types a branch to the frame carries: a loop's
// parameters, the results of any other block.
func labelTypes(c *ctrlFrame) []binary.ValType {
	if c.op == binary.OpLoop {
		return c.params
	}
	return c.results
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

// blockType returns the parameters and results of a block type.
func (f *funcValidator) blockType() (params, results []binary.ValType, err error) {
	in := &f.in
	switch {
	case in.Block == binary.BlockEmpty:
		return nil, nil, nil
	case in.Block == binary.BlockIndexed:
		if int(in.Index) >= len(f.v.m.Types) {
			return nil, nil, f.errf("unknown type %d", in.Index)
		}
		t := f.v.m.Types[in.Index]
		return t.Params, t.Results, nil
	}
	if err := f.v.valueType(in.Block, "code", f.fn, in.Offset); err != nil {
		return nil, nil, err
	}
	return nil, []binary.ValType{in.Block}, nil
}

func (f *funcValidator) function(v *validator, fn int, code *binary.Code) error {
	m := v.m
	f.v, f.fn = v, fn
	ft := m.Types[v.funcTypes[fn]]
	f.locals.reset(ft.Params, code.Locals)
	for _, r := range code.Locals {
		if err := v.valueType(r.Type, "code", fn, code.Offset); err != nil {
			return err
		}
	}
	f.vals = f.vals[:0]
	f.ctrls = f.ctrls[:0]
	f.ctrls = append(f.ctrls, ctrlFrame{op: binary.OpNop, results: ft.Results})
	f.cr.Reset(code.Body, code.Offset, "code", fn)
	for len(f.ctrls) > 0 {
		if f.cr.Done() {
			return &Error{Section: "code", Func: fn, Offset: f.cr.Offset(), Msg: "unexpected end of the function body"}
		}
		if err := f.cr.Next(&f.in); err != nil {
			return err
		}
		if err := f.instr(ft.Results); err != nil {
			return err
		}
	}
	if !f.cr.Done() {
		return &Error{Section: "code", Func: fn, Offset: f.cr.Offset(), Msg: "instructions after the function's final end"}
	}
	return nil
}

func (f *funcValidator) instr(fnResults []binary.ValType) error {
	in := &f.in
	m := f.v.m
	switch op := in.Op; op {
	case binary.OpUnreachable:
		f.setUnreachable()
	case binary.OpNop:
	case binary.OpBlock, binary.OpLoop, binary.OpIf:
		if op == binary.OpIf {
			if _, err := f.popExpect(binary.I32); err != nil {
				return err
			}
		}
		params, results, err := f.blockType()
		if err != nil {
			return err
		}
		if err := f.popAll(params); err != nil {
			return err
		}
		f.pushCtrl(op, params, results)
	case binary.OpElse:
		c, err := f.popCtrl()
		if err != nil {
			return err
		}
		if c.op != binary.OpIf {
			return f.errf("else without a matching if")
		}
		f.pushCtrl(binary.OpElse, c.params, c.results)
	case binary.OpEnd:
		c, err := f.popCtrl()
		if err != nil {
			return err
		}
		if c.op == binary.OpIf && !equalTypes(c.params, c.results) {
			return f.errf("type mismatch: if of type %s without else", binary.FuncType{Params: c.params, Results: c.results})
		}
		f.pushAll(c.results)
	case binary.OpBr:
		c, err := f.label(in.Index)
		if err != nil {
			return err
		}
		if err := f.popAll(labelTypes(c)); err != nil {
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
		ts := labelTypes(c)
		if err := f.popAll(ts); err != nil {
			return err
		}
		f.pushAll(ts)
	case binary.OpBrTable:
		return f.brTable()
	case binary.OpReturn:
		if err := f.popAll(fnResults); err != nil {
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
		et, ok := f.v.tableElem(in.Index2)
		if !ok {
			return f.errf("unknown table %d", in.Index2)
		}
		if int(in.Index) >= len(m.Types) {
			return f.errf("unknown type %d", in.Index)
		}
		if et != binary.FuncRef {
			return f.errf("type mismatch: call_indirect through table %d of %s", in.Index2, et)
		}
		if _, err := f.popExpect(binary.I32); err != nil {
			return err
		}
		return f.call(m.Types[in.Index])
	case binary.OpDrop:
		if _, err := f.pop(); err != nil {
			return err
		}
	case binary.OpSelectT:
		if len(in.Types) != 1 {
			return f.errf("invalid result arity: select of %d types", len(in.Types))
		}
		if err := f.v.valueType(in.Types[0], "code", f.fn, in.Offset); err != nil {
			return err
		}
		return f.operands([]binary.ValType{in.Types[0], in.Types[0], binary.I32}, in.Types[0])
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
		if t1.IsRef() || t1 == binary.V128 {
			return f.errf("type mismatch: select without a type of %s operands", t1)
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
	case binary.OpMemoryCopy, binary.OpMemoryFill:
		if m.NumMems() == 0 {
			return f.errf("unknown memory 0: %s in a module without memory", op)
		}
		return f.operands([]binary.ValType{binary.I32, binary.I32, binary.I32}, 0)
	case binary.OpMemoryInit, binary.OpDataDrop:
		if op == binary.OpMemoryInit && m.NumMems() == 0 {
			return f.errf("unknown memory 0: %s in a module without memory", op)
		}
		if !m.HasDataCount || in.Index >= m.DataCount {
			return f.errf("unknown data segment %d", in.Index)
		}
		if op == binary.OpDataDrop {
			return nil
		}
		return f.operands([]binary.ValType{binary.I32, binary.I32, binary.I32}, 0)
	case binary.OpRefNull:
		if err := f.v.valueType(in.RefType, "code", f.fn, in.Offset); err != nil || !in.RefType.IsRef() {
			return f.errf("malformed reference type %s", in.RefType)
		}
		f.push(in.RefType)
	case binary.OpRefIsNull:
		t, err := f.pop()
		if err != nil {
			return err
		}
		if t != unknown && !t.IsRef() {
			return f.errf("type mismatch: ref.is_null of %s", t)
		}
		f.push(binary.I32)
	case binary.OpRefFunc:
		if int(in.Index) >= len(f.v.funcTypes) {
			return f.errf("unknown function %d", in.Index)
		}
		if !f.v.refs[in.Index] {
			return f.errf("undeclared function reference %d", in.Index)
		}
		f.push(binary.FuncRef)
	case binary.OpTableGet, binary.OpTableSet, binary.OpTableSize, binary.OpTableGrow, binary.OpTableFill:
		et, ok := f.v.tableElem(in.Index)
		if !ok {
			return f.errf("unknown table %d", in.Index)
		}
		switch op {
		case binary.OpTableGet:
			return f.operands([]binary.ValType{binary.I32}, et)
		case binary.OpTableSet:
			return f.operands([]binary.ValType{binary.I32, et}, 0)
		case binary.OpTableSize:
			f.push(binary.I32)
		case binary.OpTableGrow:
			return f.operands([]binary.ValType{et, binary.I32}, binary.I32)
		default:
			return f.operands([]binary.ValType{binary.I32, et, binary.I32}, 0)
		}
	case binary.OpTableCopy:
		dt, ok := f.v.tableElem(in.Index)
		if !ok {
			return f.errf("unknown table %d", in.Index)
		}
		st, ok := f.v.tableElem(in.Index2)
		if !ok {
			return f.errf("unknown table %d", in.Index2)
		}
		if dt != st {
			return f.errf("type mismatch: table.copy from a table of %s to one of %s", st, dt)
		}
		return f.operands([]binary.ValType{binary.I32, binary.I32, binary.I32}, 0)
	case binary.OpTableInit:
		tt, ok := f.v.tableElem(in.Index2)
		if !ok {
			return f.errf("unknown table %d", in.Index2)
		}
		if int64(in.Index) >= int64(len(m.Elems)) {
			return f.errf("unknown elem segment %d", in.Index)
		}
		if et := m.Elems[in.Index].Type; et != tt {
			return f.errf("type mismatch: table.init of a segment of %s into a table of %s", et, tt)
		}
		return f.operands([]binary.ValType{binary.I32, binary.I32, binary.I32}, 0)
	case binary.OpElemDrop:
		if int64(in.Index) >= int64(len(m.Elems)) {
			return f.errf("unknown elem segment %d", in.Index)
		}
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
		if ins, out, ok := op.Numeric(); ok {
			return f.operands(ins, out)
		}
		if feat := op.Feature(); feat != 0 {
			return f.unsupported(feat)
		}
		return f.errf("illegal opcode %s", op)
	}
	return nil
}

// brTable validates br_table: every label carries as many values as the
// default, each label's types are checked against the stack, and (in
// WebAssembly 1.0) every label carries the same types.
func (f *funcValidator) brTable() error {
	in := &f.in
	if _, err := f.popExpect(binary.I32); err != nil {
		return err
	}
	d, err := f.label(in.Index)
	if err != nil {
		return err
	}
	ts := labelTypes(d)
	for _, l := range in.Labels {
		c, err := f.label(l)
		if err != nil {
			return err
		}
		lt := labelTypes(c)
		if len(lt) != len(ts) || !f.v.m.Features.Has(binary.FeatureMultiValue) && !equalTypes(lt, ts) {
			return f.errf("type mismatch: br_table label %d carries %v, the default label %v", l, lt, ts)
		}
		// Check the stack against the label's types, keeping it.
		f.popped = f.popped[:0]
		for i := len(lt) - 1; i >= 0; i-- {
			t, err := f.pop()
			if err != nil {
				return err
			}
			if t != lt[i] && t != unknown {
				return f.errf("type mismatch: br_table label %d expects %s, found %s", l, lt[i], t)
			}
			f.popped = append(f.popped, t)
		}
		for i := len(f.popped) - 1; i >= 0; i-- {
			f.push(f.popped[i])
		}
	}
	if err := f.popAll(ts); err != nil {
		return err
	}
	f.setUnreachable()
	return nil
}

func equalTypes(a, b []binary.ValType) bool {
	return binary.FuncType{Params: a}.Equal(binary.FuncType{Params: b})
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
