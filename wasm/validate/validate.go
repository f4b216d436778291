// Package validate checks that a decoded WebAssembly module is valid:
// the module-level rules (indices in range, at most one memory, limits,
// constant expressions, the start function's type, unique export names,
// result arity in WebAssembly 1.0) and every function body by the
// specification's validation algorithm (an operand stack of value types
// and a stack of control frames with their parameters and results, the
// stack of unreachable code being polymorphic). Which rules of
// WebAssembly 1.0 and 2.0 apply follows the features the module was
// decoded with (binary.Module.Features).
//
// Of WebAssembly 2.0 it checks the sign-extension operators, the
// non-trapping conversions, multi-value blocks and functions, typed
// select, passive and declarative segments, element segments of
// expressions, the bulk memory and table instructions, reference types
// (funcref and externref values, ref.null, ref.is_null, ref.func of a
// declared function, several tables, call_indirect through any table of
// funcref). A module that uses a feature kiln does not support (SIMD, a
// global.get in an element segment) fails with an *UnsupportedError
// naming the feature and the instruction; validation stops there.
//
// Module returns the first problem as an *Error naming the section, the
// function and the byte offset, with a message that starts with the
// specification's words ("type mismatch", "unknown label"). Validation
// takes time linear in the module and memory bounded by its size; it
// never panics. A module that passes is safe to translate: the translator
// relies on what this package checks.
package validate

import (
	"fmt"
	"sort"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// MaxPages is the largest memory size WebAssembly 1.0 allows, in 64 KiB
// pages (4 GiB).
const MaxPages = 65536

// Error reports an invalid module: what rule it breaks and where.
type Error struct {
	// Section names the section the problem is in ("code", "export", ...).
	Section string
	// Func is the index of the function (in the function index space)
	// whose body is invalid, or -1.
	Func int
	// Offset is the byte offset in the module of the entry or instruction
	// at fault.
	Offset int
	Msg    string
}

// Error formats the error as "invalid module: section code: func 3: at
// byte 0x2a: type mismatch: ...".
func (e *Error) Error() string {
	return binary.FormatError("invalid module", e.Section, e.Func, e.Offset, e.Msg)
}

// UnsupportedError reports a module that uses a feature of WebAssembly
// 2.0 that kiln does not support (yet): which feature, what in the module
// needs it, and where. Validation stops at the first such use, so the
// rest of the module is not validated.
type UnsupportedError struct {
	// Feature names the feature ("bulk memory", "reference types").
	Feature string
	// What names the instruction or construct ("memory.copy", "an
	// externref table").
	What string
	// Section, Func and Offset say where, as in Error.
	Section string
	Func    int
	Offset  int
}

// Error formats the error as "unsupported: memory.init (bulk memory) at
// byte 0x1234 in function 5" (or "in section table" for what is not in
// a function, without the offset where the module does not record one).
func (e *UnsupportedError) Error() string {
	s := fmt.Sprintf("unsupported: %s (%s)", e.What, e.Feature)
	if e.Offset > 0 {
		s += fmt.Sprintf(" at byte 0x%x", e.Offset)
	}
	if e.Func >= 0 {
		s += fmt.Sprintf(" in function %d", e.Func)
	} else if e.Section != "" {
		s += " in section " + e.Section
	}
	return s
}

// valueType checks that t is a value type kiln supports: a number or,
// with reference types, a reference.
func (v *validator) valueType(t binary.ValType, section string, fn, offset int) error {
	switch {
	case t.Valid():
		return nil
	case t.IsRef() && v.m.Features.Has(binary.FeatureReferenceTypes):
		return nil
	case t.IsRef():
		return errf(section, fn, offset, "invalid value type %s (reference types are not enabled)", t)
	case t == binary.V128:
		return &UnsupportedError{Feature: binary.FeatureSIMD.Name(), What: "v128 values", Section: section, Func: fn, Offset: offset}
	}
	return errf(section, fn, offset, "invalid value type %s", t)
}

func (v *validator) unsupported(feature binary.Features, section string, offset int, format string, args ...any) error {
	return &UnsupportedError{Feature: feature.Name(), What: fmt.Sprintf(format, args...), Section: section, Func: -1, Offset: offset}
}

func errf(section string, fn, offset int, format string, args ...any) error {
	return &Error{Section: section, Func: fn, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

// Module validates m.
func Module(m *binary.Module) error {
	v := &validator{m: m}
	return v.module()
}

type validator struct {
	m         *binary.Module
	funcTypes []uint32 // type index of every function, imports first
	globals   []binary.GlobalType
	tables    []binary.TableType
	// refs holds the functions ref.func may name in function bodies.
	refs map[uint32]bool
	fv   funcValidator
}

func (v *validator) module() error {
	m := v.m
	for i, t := range m.Types {
		if len(t.Results) > 1 && !m.Features.Has(binary.FeatureMultiValue) {
			return errf("type", -1, 0, "invalid result arity: type %d has %d results", i, len(t.Results))
		}
		for _, vt := range append(t.Params[:len(t.Params):len(t.Params)], t.Results...) {
			if err := v.valueType(vt, "type", -1, 0); err != nil {
				return err
			}
		}
	}
	for i := range m.Imports {
		im := &m.Imports[i]
		switch im.Kind {
		case binary.ExternFunc:
			if int(im.Type) >= len(m.Types) {
				return errf("import", -1, im.Offset, "unknown type %d (the module has %d types)", im.Type, len(m.Types))
			}
		case binary.ExternTable:
			if err := tableLimits(im.Table.Limits); err != nil {
				return errf("import", -1, im.Offset, "%v", err)
			}
			if err := v.tableType(im.Table, "import", im.Offset); err != nil {
				return err
			}
		case binary.ExternGlobal:
			if err := v.valueType(im.Global.Type, "import", -1, im.Offset); err != nil {
				return err
			}
		case binary.ExternMemory:
			if err := memLimits(im.Memory); err != nil {
				return errf("import", -1, im.Offset, "%v", err)
			}
		}
	}
	v.funcTypes = append(m.ImportedFuncTypes(), m.Funcs...)
	v.tables = m.TableTypes()
	for i, t := range m.Funcs {
		if int(t) >= len(m.Types) {
			return errf("function", -1, 0, "unknown type %d of function %d (the module has %d types)", t, m.NumImportedFuncs+i, len(m.Types))
		}
	}
	if m.NumTables() > 1 && !m.Features.Has(binary.FeatureReferenceTypes) {
		return errf("table", -1, 0, "multiple tables")
	}
	for _, t := range m.Tables {
		if err := tableLimits(t.Limits); err != nil {
			return errf("table", -1, 0, "%v", err)
		}
		if err := v.tableType(t, "table", 0); err != nil {
			return err
		}
	}
	if m.NumMems() > 1 {
		return errf("memory", -1, 0, "multiple memories")
	}
	for _, l := range m.Mems {
		if err := memLimits(l); err != nil {
			return errf("memory", -1, 0, "%v", err)
		}
	}
	v.globals = m.GlobalTypes()
	v.declareRefs()
	for i := range m.Globals {
		g := &m.Globals[i]
		if err := v.valueType(g.Type.Type, "global", -1, g.Init.Offset); err != nil {
			return err
		}
		if err := v.constExpr("global", g.Init, g.Type.Type); err != nil {
			return err
		}
	}
	names := make(map[string]bool, len(m.Exports))
	for i := range m.Exports {
		e := &m.Exports[i]
		if names[e.Name] {
			return errf("export", -1, e.Offset, "duplicate export name %q", e.Name)
		}
		names[e.Name] = true
		var n int
		switch e.Kind {
		case binary.ExternFunc:
			n = m.NumFuncs()
		case binary.ExternTable:
			n = m.NumTables()
		case binary.ExternMemory:
			n = m.NumMems()
		case binary.ExternGlobal:
			n = m.NumGlobals()
		}
		if int64(e.Index) >= int64(n) {
			return errf("export", -1, e.Offset, "unknown %s %d (export %q)", kindWord(e.Kind), e.Index, e.Name)
		}
	}
	if m.HasStart {
		if int(m.Start) >= len(v.funcTypes) {
			return errf("start", -1, 0, "unknown function %d", m.Start)
		}
		if t := m.Types[v.funcTypes[m.Start]]; len(t.Params) != 0 || len(t.Results) != 0 {
			return errf("start", -1, 0, "start function %d has type %s, want [] -> []", m.Start, t)
		}
	}
	for i := range m.Elems {
		if err := v.elem(&m.Elems[i]); err != nil {
			return err
		}
	}
	for i := range m.Datas {
		d := &m.Datas[i]
		if d.Mode != binary.SegmentActive {
			continue
		}
		if int(d.Memory) >= m.NumMems() {
			return errf("data", -1, d.Pos, "unknown memory %d", d.Memory)
		}
		if err := v.constExpr("data", d.Offset, binary.I32); err != nil {
			return err
		}
	}
	for i := range m.Codes {
		if err := v.fv.function(v, m.NumImportedFuncs+i, &m.Codes[i]); err != nil {
			return err
		}
	}
	return nil
}

// tableType checks that a table holds references.
func (v *validator) tableType(t binary.TableType, section string, offset int) error {
	if !binary.ValType(t.Elem).IsRef() {
		return errf(section, -1, offset, "malformed reference type %s", binary.ValType(t.Elem))
	}
	return nil
}

// declareRefs records the functions that ref.func may name in code: the
// ones element segments, exports and global initializers name.
func (v *validator) declareRefs() {
	m := v.m
	v.refs = make(map[uint32]bool)
	for i := range m.Elems {
		e := &m.Elems[i]
		for _, f := range e.Funcs {
			v.refs[f] = true
		}
		for _, x := range e.Exprs {
			v.exprRefs(x)
		}
	}
	for _, e := range m.Exports {
		if e.Kind == binary.ExternFunc {
			v.refs[e.Index] = true
		}
	}
	for i := range m.Globals {
		v.exprRefs(m.Globals[i].Init)
	}
}

// exprRefs records the function of a ref.func constant expression.
func (v *validator) exprRefs(x binary.ConstExpr) {
	cr := binary.NewCodeReader(x.Code, x.Offset, "", -1)
	var in binary.Instr
	for cr.Next(&in) == nil && in.Op != binary.OpEnd {
		if in.Op == binary.OpRefFunc {
			v.refs[in.Index] = true
		}
	}
}

// tableElem returns the element type of table t.
func (v *validator) tableElem(t uint32) (binary.ValType, bool) {
	ts := v.tables
	if uint64(t) >= uint64(len(ts)) {
		return 0, false
	}
	return binary.ValType(ts[t].Elem), true
}

// elem validates an element segment: of function indices, or of
// constant expressions (ref.func, ref.null, global.get of an imported
// global) of the segment's type.
func (v *validator) elem(e *binary.Elem) error {
	if e.Mode == binary.SegmentActive {
		et, ok := v.tableElem(e.Table)
		if !ok {
			return errf("element", -1, e.Pos, "unknown table %d", e.Table)
		}
		if err := v.constExpr("element", e.Offset, binary.I32); err != nil {
			return err
		}
		if et != e.Type {
			return errf("element", -1, e.Pos, "type mismatch: a segment of %s for a table of %s", e.Type, et)
		}
	}
	if !e.Type.IsRef() {
		return errf("element", -1, e.Pos, "malformed reference type %s", e.Type)
	}
	if e.Exprs == nil && e.Type != binary.FuncRef {
		return errf("element", -1, e.Pos, "type mismatch: function indices in a segment of %s", e.Type)
	}
	for _, f := range e.Funcs {
		if int(f) >= len(v.funcTypes) {
			return errf("element", -1, e.Pos, "unknown function %d", f)
		}
	}
	for _, x := range e.Exprs {
		if err := v.elemExpr(e, x); err != nil {
			return err
		}
	}
	return nil
}

// elemExpr checks an element expression: ref.func of a function or
// ref.null of the segment's type, then end.
func (v *validator) elemExpr(e *binary.Elem, x binary.ConstExpr) error {
	cr := binary.NewCodeReader(x.Code, x.Offset, "element", -1)
	var in binary.Instr
	if err := cr.Next(&in); err != nil {
		return err
	}
	switch in.Op {
	case binary.OpRefFunc:
		if int(in.Index) >= len(v.funcTypes) {
			return errf("element", -1, in.Offset, "unknown function %d", in.Index)
		}
		if e.Type != binary.FuncRef {
			return errf("element", -1, in.Offset, "type mismatch: ref.func in a segment of %s", e.Type)
		}
	case binary.OpRefNull:
		if in.RefType != e.Type {
			return errf("element", -1, in.Offset, "type mismatch: ref.null %s in a segment of %s", in.RefType, e.Type)
		}
	case binary.OpGlobalGet:
		if err := v.constExpr("element", x, e.Type); err != nil {
			return err
		}
		return v.unsupported(binary.FeatureReferenceTypes, "element", in.Offset, "global.get in an element segment")
	default:
		if in.Op.Valid() && in.Op.Feature() == 0 && in.Op != binary.OpEnd {
			return errf("element", -1, in.Offset, "type mismatch: %s in an element segment of %s", in.Op, e.Type)
		}
		return errf("element", -1, in.Offset, "constant expression required: %s is not constant", in.Op)
	}
	if err := cr.Next(&in); err != nil {
		return err
	}
	if in.Op != binary.OpEnd {
		return errf("element", -1, in.Offset, "type mismatch: an element expression of more than one instruction")
	}
	return nil
}

func kindWord(k binary.ExternKind) string {
	if k == binary.ExternFunc {
		return "function"
	}
	return k.String()
}

func tableLimits(l binary.Limits) error {
	if l.HasMax && l.Max < l.Min {
		return fmt.Errorf("size minimum must not be greater than maximum: table limits %d..%d", l.Min, l.Max)
	}
	return nil
}

func memLimits(l binary.Limits) error {
	if l.Min > MaxPages || l.HasMax && l.Max > MaxPages {
		return fmt.Errorf("memory size must be at most %d pages (4GiB)", MaxPages)
	}
	if l.HasMax && l.Max < l.Min {
		return fmt.Errorf("size minimum must not be greater than maximum: memory limits %d..%d", l.Min, l.Max)
	}
	return nil
}

// constExpr checks that e is a constant expression of type want: one
// t.const or a global.get of an imported immutable global, then end.
func (v *validator) constExpr(section string, e binary.ConstExpr, want binary.ValType) error {
	cr := binary.NewCodeReader(e.Code, e.Offset, section, -1)
	var in binary.Instr
	var stack []binary.ValType
	for {
		if err := cr.Next(&in); err != nil {
			return err
		}
		switch in.Op {
		case binary.OpI32Const:
			stack = append(stack, binary.I32)
		case binary.OpI64Const:
			stack = append(stack, binary.I64)
		case binary.OpF32Const:
			stack = append(stack, binary.F32)
		case binary.OpF64Const:
			stack = append(stack, binary.F64)
		case binary.OpGlobalGet:
			if int(in.Index) >= v.m.NumImportedGlobals {
				return errf(section, -1, in.Offset, "unknown global %d (a constant expression may only read the %d imported globals)", in.Index, v.m.NumImportedGlobals)
			}
			g := v.globals[in.Index]
			if g.Mutable {
				return errf(section, -1, in.Offset, "constant expression required: global %d is mutable", in.Index)
			}
			stack = append(stack, g.Type)
		case binary.OpRefNull:
			if !in.RefType.IsRef() {
				return errf(section, -1, in.Offset, "malformed reference type %s", in.RefType)
			}
			stack = append(stack, in.RefType)
		case binary.OpRefFunc:
			if int(in.Index) >= len(v.funcTypes) {
				return errf(section, -1, in.Offset, "unknown function %d", in.Index)
			}
			stack = append(stack, binary.FuncRef)
		case binary.OpEnd:
			if len(stack) != 1 || stack[0] != want {
				return errf(section, -1, e.Offset, "type mismatch: constant expression has type %v, want [%s]", stack, want)
			}
			return nil
		default:
			return errf(section, -1, in.Offset, "constant expression required: %s is not constant", in.Op)
		}
		if len(stack) > 1 {
			return errf(section, -1, in.Offset, "type mismatch: constant expression produces more than one value")
		}
	}
}

// localTypes gives the type of every local of a function (parameters, then
// declared runs) without expanding the runs.
type localTypes struct {
	params []binary.ValType
	runs   []binary.LocalRun
	ends   []uint64 // ends[i]: index after the last local of runs[i]
	total  uint64
}

func (l *localTypes) reset(params []binary.ValType, runs []binary.LocalRun) {
	l.params, l.runs = params, runs
	l.ends = l.ends[:0]
	n := uint64(len(params))
	for _, r := range runs {
		n += uint64(r.Count)
		l.ends = append(l.ends, n)
	}
	l.total = n
}

func (l *localTypes) get(i uint32) (binary.ValType, bool) {
	if uint64(i) >= l.total {
		return 0, false
	}
	if int(i) < len(l.params) {
		return l.params[i], true
	}
	k := sort.Search(len(l.ends), func(k int) bool { return l.ends[k] > uint64(i) })
	return l.runs[k].Type, true
}
