// Package binary decodes the WebAssembly binary format, of 1.0 (MVP) and
// 2.0, into a Module: every section (custom, type, import, function,
// table, memory, global, export, start, element in all eight forms of
// 2.0, data count, code, data in its three forms), with LEB128 integers
// held to the specification's size limits and names checked to be UTF-8.
// It also reads function bodies and constant expressions instruction by
// instruction (CodeReader), for the validator and the translator: every
// instruction of 2.0, the SIMD ones (prefix 0xFD) included, whose
// immediates it reads without interpreting them.
//
// Decode rejects malformed input (what the specification's binary grammar
// does not derive) with an *Error that names the section, the function and
// the byte offset. It checks the block structure of every body (each block,
// loop and if closed by an end, else only inside an if, the body ending
// exactly at its last end) and that memory.init and data.drop come with a
// data count section, but not types: that is validation (package
// validate). Decoding never panics, takes time linear in the input, and
// allocates memory bounded by a small multiple of the input's size: every
// count read from the input is checked against the bytes that remain
// before anything is allocated for it, and runs of declared locals are
// kept as (count, type) pairs, never expanded.
//
// Decode accepts WebAssembly 2.0; DecodeFeatures takes the features
// (Features) a module may use, and with Features1 decodes WebAssembly 1.0
// exactly: the 2.0 opcodes, types, encodings and sections are malformed
// there, as that specification says.
package binary

import "fmt"

// ValType is a value type, encoded as in the binary format.
type ValType byte

// The value types: the numbers of WebAssembly 1.0, then the vector and
// reference types of 2.0.
const (
	I32       ValType = 0x7F
	I64       ValType = 0x7E
	F32       ValType = 0x7D
	F64       ValType = 0x7C
	V128      ValType = 0x7B
	FuncRef   ValType = 0x70
	ExternRef ValType = 0x6F
)

// BlockEmpty is the block type of a block without a result.
const BlockEmpty ValType = 0x40

// Valid reports whether t is one of the four number types (the value
// types of WebAssembly 1.0).
func (t ValType) Valid() bool { return t == I32 || t == I64 || t == F32 || t == F64 }

// IsRef reports whether t is a reference type (funcref or externref).
func (t ValType) IsRef() bool { return t == FuncRef || t == ExternRef }

// String returns the type's name in the text format ("i32").
func (t ValType) String() string {
	switch t {
	case I32:
		return "i32"
	case I64:
		return "i64"
	case F32:
		return "f32"
	case F64:
		return "f64"
	case V128:
		return "v128"
	case FuncRef:
		return "funcref"
	case ExternRef:
		return "externref"
	case BlockEmpty:
		return "empty"
	}
	return fmt.Sprintf("valtype(0x%02x)", byte(t))
}

// FuncType is a function type: parameter and result types.
type FuncType struct {
	Params  []ValType
	Results []ValType
}

// String formats the type as "[i32 i32] -> [i64]".
func (ft FuncType) String() string {
	return typeList(ft.Params) + " -> " + typeList(ft.Results)
}

// Equal reports whether ft and o have the same parameters and results.
func (ft FuncType) Equal(o FuncType) bool {
	if len(ft.Params) != len(o.Params) || len(ft.Results) != len(o.Results) {
		return false
	}
	for i := range ft.Params {
		if ft.Params[i] != o.Params[i] {
			return false
		}
	}
	for i := range ft.Results {
		if ft.Results[i] != o.Results[i] {
			return false
		}
	}
	return true
}

func typeList(ts []ValType) string {
	b := []byte{'['}
	for i, t := range ts {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, t.String()...)
	}
	return string(append(b, ']'))
}

// Limits bound the size of a memory (in 64 KiB pages) or a table (in
// entries).
type Limits struct {
	Min    uint32
	Max    uint32 // valid when HasMax
	HasMax bool
}

// ElemFuncRef is the only element type of WebAssembly 1.0 tables.
const ElemFuncRef = 0x70

// TableType is the type of a table: its element type (funcref, or in 2.0
// externref, as a ValType's byte) and limits.
type TableType struct {
	Elem   byte
	Limits Limits
}

// GlobalType is the type of a global: its value type and mutability.
type GlobalType struct {
	Type    ValType
	Mutable bool
}

// ExternKind says what an import or export is.
type ExternKind byte

// The kinds of imports and exports, encoded as in the binary format.
const (
	ExternFunc   ExternKind = 0
	ExternTable  ExternKind = 1
	ExternMemory ExternKind = 2
	ExternGlobal ExternKind = 3
)

// String names the kind ("func", "table", "memory", "global").
func (k ExternKind) String() string {
	switch k {
	case ExternFunc:
		return "func"
	case ExternTable:
		return "table"
	case ExternMemory:
		return "memory"
	case ExternGlobal:
		return "global"
	}
	return fmt.Sprintf("externkind(%d)", byte(k))
}

// Import is one entry of the import section. Which of Type, Table, Memory
// and Global is meaningful depends on Kind.
type Import struct {
	Module, Name string
	Kind         ExternKind
	Type         uint32 // type index of an imported function
	Table        TableType
	Memory       Limits
	Global       GlobalType
	Offset       int // byte offset of the entry in the module
}

// ConstExpr is an initializer expression (of a global, or the offset of an
// element or data segment) as it appears in the module: its instructions,
// the final end included. Decode checks only that it is well formed;
// validation checks that it is constant and of the right type.
type ConstExpr struct {
	Code   []byte
	Offset int // byte offset of Code[0] in the module
}

// Global is a global defined by the module.
type Global struct {
	Type GlobalType
	Init ConstExpr
}

// Export is one entry of the export section.
type Export struct {
	Name   string
	Kind   ExternKind
	Index  uint32
	Offset int
}

// SegmentMode says when a segment is used: an active one at
// instantiation, a passive one by table.init or memory.init, a
// declarative one never (it declares the functions ref.func may name).
type SegmentMode uint8

// The segment modes.
const (
	SegmentActive SegmentMode = iota
	SegmentPassive
	SegmentDeclarative
)

// Elem is an element segment: references to put into a table (from an
// offset on, when active).
type Elem struct {
	Mode   SegmentMode
	Table  uint32
	Offset ConstExpr // of an active segment
	// Type is the segment's reference type (FuncRef in WebAssembly 1.0).
	Type ValType
	// Funcs are the functions of a segment given by function indices;
	// Exprs the constant expressions of one given by expressions
	// (WebAssembly 2.0's flags 4 to 7). One of them is nil.
	Funcs []uint32
	Exprs []ConstExpr
	Pos   int // byte offset of the segment in the module
}

// Data is a data segment: bytes to copy into a memory (from an offset on,
// when active).
type Data struct {
	Mode   SegmentMode // active or passive
	Memory uint32
	Offset ConstExpr // of an active segment
	Bytes  []byte
	Pos    int
}

// LocalRun declares Count locals of one type.
type LocalRun struct {
	Count uint32
	Type  ValType
}

// Code is the body of a defined function: its declared locals (after the
// parameters) and its instructions.
type Code struct {
	Locals []LocalRun
	// NumLocals is the total of the runs' counts (below 2^32).
	NumLocals uint64
	// Body holds the instructions, the final end included.
	Body []byte
	// Offset is the byte offset of Body[0] in the module.
	Offset int
}

// Custom is a custom section: a name and uninterpreted bytes.
type Custom struct {
	Name   string
	Data   []byte
	Offset int
}

// Module is a decoded WebAssembly module. Index spaces (functions,
// tables, memories, globals) count the imports of their kind first, then
// the module's own definitions, as in the specification.
type Module struct {
	Types   []FuncType
	Imports []Import
	// Funcs holds the type index of each function the module defines.
	Funcs   []uint32
	Tables  []TableType
	Mems    []Limits
	Globals []Global
	Exports []Export
	// Start is the index of the start function when HasStart is set.
	Start    uint32
	HasStart bool
	Elems    []Elem
	// Codes holds the bodies of the defined functions, one per entry of
	// Funcs.
	Codes   []Code
	Datas   []Data
	Customs []Custom
	// DataCount is the data count section's count, when HasDataCount.
	DataCount    uint32
	HasDataCount bool
	// Features are the features the module was decoded with.
	Features Features

	// Counts of imports of each kind.
	NumImportedFuncs, NumImportedTables, NumImportedMems, NumImportedGlobals int
}

// NumFuncs returns the size of the function index space.
func (m *Module) NumFuncs() int { return m.NumImportedFuncs + len(m.Funcs) }

// NumGlobals returns the size of the global index space.
func (m *Module) NumGlobals() int { return m.NumImportedGlobals + len(m.Globals) }

// NumTables returns the size of the table index space.
func (m *Module) NumTables() int { return m.NumImportedTables + len(m.Tables) }

// NumMems returns the size of the memory index space.
func (m *Module) NumMems() int { return m.NumImportedMems + len(m.Mems) }

// FuncTypeIndex returns the type index of function f (imported or
// defined), or false when f is out of range.
func (m *Module) FuncTypeIndex(f uint32) (uint32, bool) {
	if int(f) < m.NumImportedFuncs {
		n := 0
		for i := range m.Imports {
			if m.Imports[i].Kind == ExternFunc {
				if n == int(f) {
					return m.Imports[i].Type, true
				}
				n++
			}
		}
	}
	d := int64(f) - int64(m.NumImportedFuncs)
	if d >= 0 && d < int64(len(m.Funcs)) {
		return m.Funcs[d], true
	}
	return 0, false
}

// ImportedFuncTypes returns the type index of every imported function, in
// index order.
func (m *Module) ImportedFuncTypes() []uint32 {
	ts := make([]uint32, 0, m.NumImportedFuncs)
	for i := range m.Imports {
		if m.Imports[i].Kind == ExternFunc {
			ts = append(ts, m.Imports[i].Type)
		}
	}
	return ts
}

// GlobalTypes returns the type of every global, imported ones first.
func (m *Module) GlobalTypes() []GlobalType {
	ts := make([]GlobalType, 0, m.NumGlobals())
	for i := range m.Imports {
		if m.Imports[i].Kind == ExternGlobal {
			ts = append(ts, m.Imports[i].Global)
		}
	}
	for i := range m.Globals {
		ts = append(ts, m.Globals[i].Type)
	}
	return ts
}

// TableTypes returns the type of every table, imported ones first.
func (m *Module) TableTypes() []TableType {
	var ts []TableType
	for i := range m.Imports {
		if m.Imports[i].Kind == ExternTable {
			ts = append(ts, m.Imports[i].Table)
		}
	}
	return append(ts, m.Tables...)
}

// MemTypes returns the limits of every memory, imported ones first.
func (m *Module) MemTypes() []Limits {
	var ts []Limits
	for i := range m.Imports {
		if m.Imports[i].Kind == ExternMemory {
			ts = append(ts, m.Imports[i].Memory)
		}
	}
	return append(ts, m.Mems...)
}
