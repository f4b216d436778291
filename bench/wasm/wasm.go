// Package wasm encodes WebAssembly binary modules from Go: a module builder
// (function types, imported functions, one memory, exported functions) and a
// function body builder with one method per instruction form, whose
// structured control (block, loop, if) is addressed by labels instead of
// relative depths.
//
// It covers what the peer benchmarks need: the WebAssembly 1.0 instruction
// set without tables, globals and data segments. Function types may have
// more than one result (the multi-value feature of WebAssembly 2.0, which
// wazero enables by default); everything else is 1.0. The encoder checks
// the structure it can see cheaply (balanced blocks, labels in scope,
// known functions and locals) and leaves type checking to the consumer:
// compile the result with a validating runtime.
package wasm

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// ValType is a WebAssembly value type (the front end's binary.ValType).
type ValType = binary.ValType

// The value types of WebAssembly 1.0.
const (
	I32 = binary.I32
	I64 = binary.I64
	F32 = binary.F32
	F64 = binary.F64
)

type funcType struct {
	params, results []ValType
}

func (a funcType) equal(b funcType) bool {
	return slices.Equal(a.params, b.params) && slices.Equal(a.results, b.results)
}

type funcImport struct {
	module, name string
	typ          uint32
}

type export struct {
	name string
	fn   uint32
}

// Module builds a WebAssembly module. Imports must be declared before the
// first function, because imported functions take the lowest function
// indices. Misuse is recorded and reported by Encode.
type Module struct {
	types   []funcType
	imports []funcImport
	funcs   []*Func
	memory  *[2]uint32 // minimum and maximum pages
	exports []export
	err     error
}

// NewModule returns an empty module.
func NewModule() *Module { return &Module{} }

func (m *Module) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

// typeIndex returns the index of the function type, adding it when new.
func (m *Module) typeIndex(params, results []ValType) uint32 {
	t := funcType{slices.Clone(params), slices.Clone(results)}
	for i, u := range m.types {
		if u.equal(t) {
			return uint32(i)
		}
	}
	m.types = append(m.types, t)
	return uint32(len(m.types) - 1)
}

// ImportFunc declares an imported function and returns its function index.
func (m *Module) ImportFunc(module, name string, params, results []ValType) uint32 {
	if len(m.funcs) > 0 {
		m.fail(fmt.Errorf("wasm: import %s.%s declared after a function", module, name))
	}
	m.imports = append(m.imports, funcImport{module, name, m.typeIndex(params, results)})
	return uint32(len(m.imports) - 1)
}

// Memory declares the module's memory, its size in 64 KiB pages.
func (m *Module) Memory(minPages, maxPages uint32) {
	if minPages > maxPages || maxPages > 1<<16 {
		m.fail(fmt.Errorf("wasm: memory limits %d..%d are invalid", minPages, maxPages))
	}
	m.memory = &[2]uint32{minPages, maxPages}
}

// Func declares a function and returns the builder of its body. Its
// parameters are its first locals.
func (m *Module) Func(params, results []ValType) *Func {
	f := &Func{
		m:       m,
		index:   uint32(len(m.imports) + len(m.funcs)),
		typ:     m.typeIndex(params, results),
		nparams: len(params),
		types:   slices.Clone(params),
	}
	m.funcs = append(m.funcs, f)
	return f
}

// Export exports function f under name.
func (m *Module) Export(name string, f *Func) {
	for _, e := range m.exports {
		if e.name == name {
			m.fail(fmt.Errorf("wasm: export %q declared twice", name))
		}
	}
	m.exports = append(m.exports, export{name, f.index})
}

// Section ids.
const (
	secType     = 1
	secImport   = 2
	secFunction = 3
	secMemory   = 5
	secExport   = 7
	secCode     = 10
)

// Encode returns the module in the binary format, or the first misuse of
// the builder.
func (m *Module) Encode() ([]byte, error) {
	for _, f := range m.funcs {
		if f.err == nil && len(f.open) > 0 {
			f.fail(fmt.Errorf("%d blocks left open", len(f.open)))
		}
		if f.err != nil {
			m.fail(fmt.Errorf("wasm: function %d: %w", f.index, f.err))
		}
	}
	if m.err != nil {
		return nil, m.err
	}
	out := []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
	section := func(id byte, count int, body []byte) {
		if count == 0 {
			return
		}
		content := binary.AppendU32(nil, uint32(count))
		content = append(content, body...)
		out = append(out, id)
		out = binary.AppendU32(out, uint32(len(content)))
		out = append(out, content...)
	}
	var b []byte
	for _, t := range m.types {
		b = append(b, 0x60)
		b = appendTypes(b, t.params)
		b = appendTypes(b, t.results)
	}
	section(secType, len(m.types), b)
	b = nil
	for _, im := range m.imports {
		b = binary.AppendName(b, im.module)
		b = binary.AppendName(b, im.name)
		b = append(b, 0x00) // a function
		b = binary.AppendU32(b, im.typ)
	}
	section(secImport, len(m.imports), b)
	b = nil
	for _, f := range m.funcs {
		b = binary.AppendU32(b, f.typ)
	}
	section(secFunction, len(m.funcs), b)
	if m.memory != nil {
		b = append([]byte{0x01}, binary.AppendU32(nil, m.memory[0])...)
		b = binary.AppendU32(b, m.memory[1])
		section(secMemory, 1, b)
	}
	b = nil
	for _, e := range m.exports {
		b = binary.AppendName(b, e.name)
		b = append(b, 0x00) // a function
		b = binary.AppendU32(b, e.fn)
	}
	section(secExport, len(m.exports), b)
	b = nil
	for _, f := range m.funcs {
		body := f.encodeLocals()
		body = append(body, f.code...)
		body = append(body, opEnd)
		b = binary.AppendU32(b, uint32(len(body)))
		b = append(b, body...)
	}
	section(secCode, len(m.funcs), b)
	return out, nil
}

// Label names an open block, loop or if for branches inside it.
type Label struct {
	depth int // the block's position in the stack of open blocks, from 1
}

// Func builds the body of one function.
type Func struct {
	m       *Module
	index   uint32
	typ     uint32
	nparams int
	types   []ValType // parameters, then declared locals
	code    []byte
	open    []byte // the opcode that opened each block still open
	err     error
}

// Index returns the function's index, for Call and Export.
func (f *Func) Index() uint32 { return f.index }

// Local is the index of a parameter or local variable.
type Local uint32

// Param returns the local holding parameter i.
func (f *Func) Param(i int) Local {
	if i < 0 || i >= f.nparams {
		f.fail(fmt.Errorf("parameter %d out of range", i))
		return 0
	}
	return Local(i)
}

// NewLocal declares a local variable of type t (zero when the function is
// entered).
func (f *Func) NewLocal(t ValType) Local {
	f.types = append(f.types, t)
	return Local(len(f.types) - 1)
}

func (f *Func) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// encodeLocals encodes the local declarations as runs of one type.
func (f *Func) encodeLocals() []byte {
	locals := f.types[f.nparams:]
	var runs []byte
	n := 0
	for i := 0; i < len(locals); {
		j := i
		for j < len(locals) && locals[j] == locals[i] {
			j++
		}
		runs = binary.AppendU32(runs, uint32(j-i))
		runs = append(runs, byte(locals[i]))
		n++
		i = j
	}
	return append(binary.AppendU32(nil, uint32(n)), runs...)
}

// Op emits instructions that take no immediates, such as I64Add or Drop.
func (f *Func) Op(ops ...Opcode) {
	for _, op := range ops {
		if info, ok := opInfo[op]; !ok || info.memory {
			f.fail(fmt.Errorf("opcode %#x is not an instruction without immediates", byte(op)))
			continue
		}
		f.code = append(f.code, byte(op))
	}
}

// I32Const pushes an i32 constant.
func (f *Func) I32Const(v int32) {
	f.code = binary.AppendS64(append(f.code, opI32Const), int64(v))
}

// I64Const pushes an i64 constant.
func (f *Func) I64Const(v int64) {
	f.code = binary.AppendS64(append(f.code, opI64Const), v)
}

// F32Const pushes an f32 constant.
func (f *Func) F32Const(v float32) {
	f.code = append(f.code, opF32Const)
	bits := math.Float32bits(v)
	for i := 0; i < 4; i++ {
		f.code = append(f.code, byte(bits>>(8*i)))
	}
}

// F64Const pushes an f64 constant.
func (f *Func) F64Const(v float64) {
	f.code = append(f.code, opF64Const)
	bits := math.Float64bits(v)
	for i := 0; i < 8; i++ {
		f.code = append(f.code, byte(bits>>(8*i)))
	}
}

func (f *Func) local(op byte, l Local) {
	if int(l) >= len(f.types) {
		f.fail(fmt.Errorf("local %d is not declared", l))
	}
	f.code = binary.AppendU32(append(f.code, op), uint32(l))
}

// Get pushes local l (local.get).
func (f *Func) Get(l Local) { f.local(opLocalGet, l) }

// Set pops into local l (local.set).
func (f *Func) Set(l Local) { f.local(opLocalSet, l) }

// Tee stores the top of the stack into local l and keeps it (local.tee).
func (f *Func) Tee(l Local) { f.local(opLocalTee, l) }

func (f *Func) begin(op byte, results []ValType) Label {
	f.code = append(f.code, op)
	switch len(results) {
	case 0:
		f.code = append(f.code, 0x40)
	case 1:
		f.code = append(f.code, byte(results[0]))
	default:
		f.fail(errors.New("a block with several results needs a type index, which this encoder does not emit"))
	}
	f.open = append(f.open, op)
	return Label{depth: len(f.open)}
}

// Block opens a block with the given results (none or one); a branch to its
// label leaves it.
func (f *Func) Block(results ...ValType) Label { return f.begin(opBlock, results) }

// Loop opens a loop with the given results (none or one); a branch to its
// label goes back to its start.
func (f *Func) Loop(results ...ValType) Label { return f.begin(opLoop, results) }

// If pops a condition and opens an if block, run when the condition is not
// zero; a branch to its label leaves it.
func (f *Func) If(results ...ValType) Label { return f.begin(opIf, results) }

// Else starts the else arm of the innermost open if.
func (f *Func) Else() {
	if len(f.open) == 0 || f.open[len(f.open)-1] != opIf {
		f.fail(errors.New("else outside an if"))
		return
	}
	f.open[len(f.open)-1] = opElse
	f.code = append(f.code, opElse)
}

// End closes the innermost open block, loop or if.
func (f *Func) End() {
	if len(f.open) == 0 {
		f.fail(errors.New("end without an open block"))
		return
	}
	f.open = f.open[:len(f.open)-1]
	f.code = append(f.code, opEnd)
}

// relDepth returns the relative depth of label l from the current position.
func (f *Func) relDepth(l Label) uint32 {
	if l.depth < 1 || l.depth > len(f.open) {
		f.fail(fmt.Errorf("branch to a label that is not open (depth %d, %d open)", l.depth, len(f.open)))
		return 0
	}
	return uint32(len(f.open) - l.depth)
}

// Br branches to label l.
func (f *Func) Br(l Label) { f.code = binary.AppendU32(append(f.code, opBr), f.relDepth(l)) }

// BrIf pops a condition and branches to label l when it is not zero.
func (f *Func) BrIf(l Label) { f.code = binary.AppendU32(append(f.code, opBrIf), f.relDepth(l)) }

// BrTable pops an i32 index and branches to labels[index], or to def when
// the index is out of range.
func (f *Func) BrTable(labels []Label, def Label) {
	f.code = binary.AppendU32(append(f.code, opBrTable), uint32(len(labels)))
	for _, l := range labels {
		f.code = binary.AppendU32(f.code, f.relDepth(l))
	}
	f.code = binary.AppendU32(f.code, f.relDepth(def))
}

// Call calls function fn (an imported or a defined function's index).
func (f *Func) Call(fn uint32) {
	if int(fn) >= len(f.m.imports)+len(f.m.funcs) {
		f.fail(fmt.Errorf("call of unknown function %d", fn))
	}
	f.code = binary.AppendU32(append(f.code, opCall), fn)
}

// Return returns from the function with the values on the stack.
func (f *Func) Return() { f.code = append(f.code, opReturn) }

// Mem emits a load or store (op must be one) at the popped i32 address plus
// offset, with the access's natural alignment.
func (f *Func) Mem(op Opcode, offset uint32) {
	info, ok := opInfo[op]
	if !ok || !info.memory {
		f.fail(fmt.Errorf("opcode %#x is not a load or store", byte(op)))
		return
	}
	f.code = append(f.code, byte(op))
	f.code = binary.AppendU32(f.code, info.alignLog2)
	f.code = binary.AppendU32(f.code, offset)
}

func appendTypes(b []byte, ts []ValType) []byte {
	b = binary.AppendU32(b, uint32(len(ts)))
	for _, t := range ts {
		b = append(b, byte(t))
	}
	return b
}
