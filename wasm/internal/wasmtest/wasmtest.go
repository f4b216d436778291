// Package wasmtest encodes WebAssembly binary modules for tests: LEB128
// and vector primitives for hand-made (and deliberately malformed) bytes,
// and a Builder that assembles well-formed modules from function bodies
// written as opcode bytes.
package wasmtest

import (
	"math"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// U32 returns the unsigned LEB128 encoding of v.
func U32(v uint32) []byte { return binary.AppendU32(nil, v) }

// S64 returns the signed LEB128 encoding of v.
func S64(v int64) []byte { return binary.AppendS64(nil, v) }

// S32 returns the signed LEB128 encoding of v.
func S32(v int32) []byte { return S64(int64(v)) }

// Cat concatenates byte slices.
func Cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// Name encodes a name: its length, then its bytes.
func Name(s string) []byte { return Cat(U32(uint32(len(s))), []byte(s)) }

// Vec encodes a vector: the count of items, then the items.
func Vec(items ...[]byte) []byte { return Cat(U32(uint32(len(items))), Cat(items...)) }

// Section encodes a section: its id, its size, its payload.
func Section(id byte, payload ...[]byte) []byte {
	p := Cat(payload...)
	return Cat([]byte{id}, U32(uint32(len(p))), p)
}

// Header is the magic number and version that open every module.
var Header = []byte{0, 'a', 's', 'm', binary.Version, 0, 0, 0}

// Module encodes a module from its sections.
func Module(sections ...[]byte) []byte { return Cat(Header, Cat(sections...)) }

// I32Const encodes i32.const v.
func I32Const(v int32) []byte { return Cat([]byte{byte(binary.OpI32Const)}, S32(v)) }

// I64Const encodes i64.const v.
func I64Const(v int64) []byte { return Cat([]byte{byte(binary.OpI64Const)}, S64(v)) }

// F32Const encodes f32.const v.
func F32Const(v float32) []byte {
	u := math.Float32bits(v)
	return []byte{byte(binary.OpF32Const), byte(u), byte(u >> 8), byte(u >> 16), byte(u >> 24)}
}

// F64Const encodes f64.const v.
func F64Const(v float64) []byte {
	u := math.Float64bits(v)
	b := []byte{byte(binary.OpF64Const)}
	for i := 0; i < 8; i++ {
		b = append(b, byte(u>>(8*i)))
	}
	return b
}

// Op encodes an instruction with a LEB128 u32 immediate (local.get 3,
// call 1, br 0, global.set 2).
func Op(op binary.Opcode, imm uint32) []byte { return Cat([]byte{byte(op)}, U32(imm)) }

// Mem encodes a load or store with its alignment (log2) and offset.
func Mem(op binary.Opcode, align, offset uint32) []byte {
	return Cat([]byte{byte(op)}, U32(align), U32(offset))
}

// Ops encodes instructions without immediates.
func Ops(ops ...binary.Opcode) []byte {
	b := make([]byte, len(ops))
	for i, op := range ops {
		b[i] = byte(op)
	}
	return b
}

// Builder assembles a module. Index-returning methods give the index of
// what they add in its index space; imports must be added before
// definitions of the same kind.
type Builder struct {
	types, imports, funcs, tables, mems, globals, exports, elems, codes, datas [][]byte
	start                                                                      []byte
	nFuncs, nGlobals                                                           uint32
}

// Type adds a function type.
func (b *Builder) Type(params, results []binary.ValType) uint32 {
	b.types = append(b.types, Cat([]byte{0x60}, valTypes(params), valTypes(results)))
	return uint32(len(b.types) - 1)
}

func valTypes(ts []binary.ValType) []byte {
	items := make([][]byte, len(ts))
	for i, t := range ts {
		items[i] = []byte{byte(t)}
	}
	return Vec(items...)
}

// ImportFunc imports a function of type typ.
func (b *Builder) ImportFunc(module, name string, typ uint32) uint32 {
	b.imports = append(b.imports, Cat(Name(module), Name(name), []byte{0}, U32(typ)))
	b.nFuncs++
	return b.nFuncs - 1
}

// ImportGlobal imports a global.
func (b *Builder) ImportGlobal(module, name string, t binary.ValType, mutable bool) uint32 {
	b.imports = append(b.imports, Cat(Name(module), Name(name), []byte{3, byte(t), mut(mutable)}))
	b.nGlobals++
	return b.nGlobals - 1
}

// ImportRaw adds an import entry given as its encoded kind and
// description (for memories and tables).
func (b *Builder) ImportRaw(module, name string, desc ...byte) {
	b.imports = append(b.imports, Cat(Name(module), Name(name), desc))
}

func mut(m bool) byte {
	if m {
		return 1
	}
	return 0
}

// Func defines a function of type typ with the given declared locals
// (one run per entry) and body; the final end is appended.
func (b *Builder) Func(typ uint32, locals []binary.ValType, body ...[]byte) uint32 {
	b.funcs = append(b.funcs, U32(typ))
	runs := make([][]byte, len(locals))
	for i, t := range locals {
		runs[i] = []byte{1, byte(t)}
	}
	code := Cat(Vec(runs...), Cat(body...), []byte{byte(binary.OpEnd)})
	b.codes = append(b.codes, Cat(U32(uint32(len(code))), code))
	b.nFuncs++
	return b.nFuncs - 1
}

// Limits encodes limits; max < 0 means none.
func Limits(min uint32, max int64) []byte {
	if max < 0 {
		return Cat([]byte{0}, U32(min))
	}
	return Cat([]byte{1}, U32(min), U32(uint32(max)))
}

// Memory defines a memory; max < 0 means no maximum.
func (b *Builder) Memory(min uint32, max int64) {
	b.mems = append(b.mems, Limits(min, max))
}

// Table defines a funcref table; max < 0 means no maximum.
func (b *Builder) Table(min uint32, max int64) {
	b.tables = append(b.tables, Cat([]byte{binary.ElemFuncRef}, Limits(min, max)))
}

// Global defines a global with an initializer (its instructions, without
// the final end).
func (b *Builder) Global(t binary.ValType, mutable bool, init []byte) uint32 {
	b.globals = append(b.globals, Cat([]byte{byte(t), mut(mutable)}, init, []byte{byte(binary.OpEnd)}))
	b.nGlobals++
	return b.nGlobals - 1
}

// Export exports index idx of kind under name.
func (b *Builder) Export(name string, kind binary.ExternKind, idx uint32) {
	b.exports = append(b.exports, Cat(Name(name), []byte{byte(kind)}, U32(idx)))
}

// Start makes f the start function.
func (b *Builder) Start(f uint32) { b.start = U32(f) }

// Elem adds an element segment at the offset the instructions compute.
func (b *Builder) Elem(offset []byte, funcs ...uint32) {
	items := make([][]byte, len(funcs))
	for i, f := range funcs {
		items[i] = U32(f)
	}
	b.elems = append(b.elems, Cat([]byte{0}, offset, []byte{byte(binary.OpEnd)}, Vec(items...)))
}

// Data adds a data segment at the offset the instructions compute.
func (b *Builder) Data(offset []byte, data []byte) {
	b.datas = append(b.datas, Cat([]byte{0}, offset, []byte{byte(binary.OpEnd)}, U32(uint32(len(data))), data))
}

// Bytes encodes the module, leaving out empty sections.
func (b *Builder) Bytes() []byte {
	out := append([]byte(nil), Header...)
	sec := func(id byte, items [][]byte) {
		if len(items) > 0 {
			out = append(out, Section(id, Vec(items...))...)
		}
	}
	sec(1, b.types)
	sec(2, b.imports)
	sec(3, b.funcs)
	sec(4, b.tables)
	sec(5, b.mems)
	sec(6, b.globals)
	sec(7, b.exports)
	if b.start != nil {
		out = append(out, Section(8, b.start)...)
	}
	sec(9, b.elems)
	sec(10, b.codes)
	sec(11, b.datas)
	return out
}
