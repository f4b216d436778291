package bytecode

import (
	"fmt"
	"slices"
)

// Type is the type of a register, parameter or result.
type Type uint8

// The value types. The zero Type is invalid, so a forgotten type is caught by
// the verifier instead of silently meaning i64.
const (
	I64 Type = 1 // 64-bit integer; signedness is chosen by each operation
	F64 Type = 2 // IEEE-754 binary64
	I32 Type = 3 // 32-bit integer; signedness is chosen by each operation
	F32 Type = 4 // IEEE-754 binary32
)

// String returns the type's name in the text form ("i64", "f32").
func (t Type) String() string {
	switch t {
	case I64:
		return "i64"
	case F64:
		return "f64"
	case I32:
		return "i32"
	case F32:
		return "f32"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Valid reports whether t is one of the value types.
func (t Type) Valid() bool { return t >= I64 && t <= F32 }

// Is32 reports whether t is a 32-bit type, I32 or F32.
func (t Type) Is32() bool { return t == I32 || t == F32 }

// Narrow clears the upper 32 bits of each i32 and f32 value of vs, whose
// types are ts (values beyond ts are left alone): what a 32-bit value
// crossing into or out of kiln keeps.
func Narrow(ts []Type, vs []uint64) {
	for i, t := range ts {
		if i < len(vs) && t.Is32() {
			vs[i] = uint64(uint32(vs[i]))
		}
	}
}

// IsInt reports whether t is an integer type, I32 or I64.
func (t Type) IsInt() bool { return t == I32 || t == I64 }

// Reg names a virtual register of a function. The parameters are the first
// registers: parameter i is register i.
type Reg uint32

// Signature lists the parameter and result types of a function or host
// import.
type Signature struct {
	Params  []Type
	Results []Type
}

// Equal reports whether s and o have the same parameter and result types.
func (s Signature) Equal(o Signature) bool {
	return slices.Equal(s.Params, o.Params) && slices.Equal(s.Results, o.Results)
}

// String formats the signature as in the text form: "(i64 f64) -> (i64)".
func (s Signature) String() string {
	return typeList(s.Params) + " -> " + typeList(s.Results)
}

func typeList(ts []Type) string {
	b := []byte{'('}
	for i, t := range ts {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, t.String()...)
	}
	return string(append(b, ')'))
}

// PageSize is the size in bytes of one page of linear memory.
const PageSize = 64 << 10

// MaxPages is the largest memory size a module may declare (4 GiB).
const MaxPages = 1 << 16

// Memory declares the module's linear memory: its size in pages when an
// instance starts, and the most it may grow to. A module without memory has
// MinPages == MaxPages == 0; every access to it traps.
//
// An imported memory (Import not empty) belongs to whoever supplies it
// (another instance, for example) and may be shared by several instances.
// The module then states what its code may assume of it: at least
// MinPages pages when the instance starts (a shared memory only grows, so
// from then on), and never more than MaxPages. Its data segments are
// copied into the imported memory when an instance starts. An exported
// memory (Export not empty) may be handed to other instances to import.
// Code of a module whose memory is imported or exported expects another
// instance to grow it during any host call, as its own memory.grow would.
type Memory struct {
	MinPages uint32
	MaxPages uint32
	// Import, when not empty, makes the memory an import under this name.
	Import string
	// Export, when not empty, lets the embedder share the memory with
	// other instances under this name.
	Export string
}

// DataSegment is copied into linear memory at Offset when an instance
// starts (an active segment), or is kept for memory.init to copy from (a
// passive one, whose Offset is 0). Each instance may drop its segments
// (data.drop); an active segment counts as dropped once the instance has
// started, as in WebAssembly.
type DataSegment struct {
	Offset uint32
	Bytes  []byte
	// Passive makes the segment passive: the instance does not copy it
	// into memory when it starts.
	Passive bool
}

// HostImport declares a function the embedder provides. Name is how the
// embedder's import table refers to it; call_host instructions refer to it by
// its index in Module.Hosts.
type HostImport struct {
	Name string
	Sig  Signature
}

// Global is a module-level variable of one value type. Functions read it
// with global.get and, when it is mutable, write it with global.set; both
// refer to it by its index in Module.Globals.
type Global struct {
	// Name identifies the global in the text form. It is an identifier (see
	// Function.Name); names are unique among the module's globals.
	Name    string
	Type    Type
	Mutable bool
	// Init is the global's value when an instance starts, as a bit
	// pattern: an i64 value, an i32 value zero-extended, the bits of an
	// f64, or the bits of an f32 in the low 32 bits (the upper 32 bits of
	// a 32-bit global's Init are zero). It must be 0 for an imported
	// global.
	Init uint64
	// Import, when not empty, makes the global an import: the embedder
	// supplies its initial value under this name when it instantiates the
	// module, and Init is unused.
	Import string
	// Export, when not empty, is the name under which the embedder can
	// read (and, for a mutable global, write) the global.
	Export string
}

// Table declares a table of references: of function references, which
// call_indirect calls through, or (Extern) of the embedder's opaque
// references. Module.Table is table 0 and Module.MoreTables are tables
// 1, 2, ... An instance's table starts with Min entries, entries that no
// element segment initialises being null; table.grow may add entries up
// to Max (when HasMax) or MaxTableSize. A Table 0 with Min == 0, HasMax
// false and no Import or Export means the module has no table (see
// Module.HasTable).
type Table struct {
	Min uint32
	// Max is the declared maximum size when HasMax is set (at least Min);
	// it must be 0 otherwise.
	Max    uint32
	HasMax bool
	// Import, when not empty, makes the table an import under this name:
	// each instance gets its contents from the embedder (package jit's
	// TableImport), and the embedder may change its entries later.
	Import string
	// Export, when not empty, gives the table a public name.
	Export string
	// Extern makes the table one of external references (Wasm's
	// externref), which call_indirect cannot call through.
	Extern bool
}

// ElemMode says when an element segment is used.
type ElemMode uint8

// The element segment modes.
const (
	ElemActive      ElemMode = iota // applied to its table when an instance starts, then dropped
	ElemPassive                     // kept for table.init until elem.drop
	ElemDeclarative                 // never applied: dropped from the start
)

// NullFunc in ElemSegment.Funcs stands for a null reference.
const NullFunc = ^uint32(0)

// ElemSegment holds references: the functions Funcs lists (indices into
// Module.Funcs, or NullFunc for a null reference). An active segment
// initialises entries Offset, Offset+1, ... of table Table when an
// instance starts; segments are applied in order, so a later one
// overwrites what an earlier one wrote to the same entries. A passive
// one is what table.init copies from; Offset and Table are 0 but for
// active segments.
type ElemSegment struct {
	Offset uint32
	Funcs  []uint32
	Table  uint32
	Mode   ElemMode
}

// FuncRef returns the reference value of function fn, whose canonical
// signature id (Module.SignatureIDs) is sigID: the id in the upper 32
// bits, the index in the lower 32.
func FuncRef(sigID, fn uint32) uint64 { return uint64(sigID)<<32 | uint64(fn) }

// NullRef is the value of a null reference, of either kind (see the
// package documentation's section on tables).
const NullRef = ^uint64(0)

// Export gives a function a public name.
type Export struct {
	Name string
	Func uint32 // index into Module.Funcs
}

// Function is a function in kiln bytecode.
type Function struct {
	// Name identifies the function in the text form and in trap reports. It
	// is an identifier: a letter or '_' followed by letters, digits, '_' and
	// '.'; names are unique within a module.
	Name string
	Sig  Signature
	// Regs holds the type of every register. The first len(Sig.Params)
	// entries are the parameters and must equal Sig.Params.
	Regs []Type
	// Code is the instruction sequence. An instruction's index in Code is
	// its bytecode offset: branch targets and trap reports use it.
	Code []Instr
}

// Module is a unit of kiln bytecode: functions, host imports, one linear
// memory with its initial contents, globals, a table of function
// references with its initial contents, and exported names.
type Module struct {
	Memory  Memory
	Data    []DataSegment
	Hosts   []HostImport
	Funcs   []*Function
	Exports []Export
	// Globals are the module's global variables; global.get and
	// global.set refer to them by index.
	Globals []Global
	// Types are the signatures call_indirect refers to by index (its
	// Callee).
	Types []Signature
	// Table is the module's table 0, if it has one (see HasTable).
	Table Table
	// MoreTables are tables 1, 2, ...; a module with one has table 0.
	MoreTables []Table
	// Elems are the element segments.
	Elems []ElemSegment
}

// NumTables returns the number of tables of the module.
func (m *Module) NumTables() int {
	if !m.HasTable() {
		return 0
	}
	return 1 + len(m.MoreTables)
}

// TableAt returns table i (i < NumTables).
func (m *Module) TableAt(i uint32) *Table {
	if i == 0 {
		return &m.Table
	}
	return &m.MoreTables[i-1]
}

// DynamicTables reports whether the module's tables may change while an
// instance runs, or need more than one table 0 of function references set
// by active segments: the module has several tables, a table of external
// references, a segment that is not active or that initialises another
// table than 0, or an instruction that reads or changes a table other
// than call_indirect. Executors keep such tables in the form table.grow
// can change (package interp's Tables); the others as constants.
func (m *Module) DynamicTables() bool {
	if len(m.MoreTables) > 0 || m.Table.Extern {
		return true
	}
	for _, e := range m.Elems {
		if e.Mode != ElemActive || e.Table != 0 {
			return true
		}
	}
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		for i := range f.Code {
			if f.Code[i].Op.IsTableOp() {
				return true
			}
		}
	}
	return false
}

// HasTable reports whether the module declares a table: one with a
// non-zero minimum size, a maximum, an import or an export name. (A table
// of no entries needs one of the last three to exist.)
func (m *Module) HasTable() bool {
	t := &m.Table
	return t.Min != 0 || t.HasMax || t.Import != "" || t.Export != ""
}

// GlobalIndex returns the index of the global with the given name, or -1.
func (m *Module) GlobalIndex(name string) int {
	for i := range m.Globals {
		if m.Globals[i].Name == name {
			return i
		}
	}
	return -1
}

// ExportedGlobal returns the index of the global exported under name, or
// -1.
func (m *Module) ExportedGlobal(name string) int {
	if name == "" {
		return -1
	}
	for i := range m.Globals {
		if m.Globals[i].Export == name {
			return i
		}
	}
	return -1
}

// TableFuncs returns the initial contents of the table of a verified
// module: for each of its first n entries, the index of the function the
// element segments put there, or -1 for a null entry, where n is the end
// of the last initialised entry. Entries from n up to the table's size
// (Table.Min) are null. The slice is new.
func (m *Module) TableFuncs() []int32 {
	n := m.InitialisedTableLen()
	t := make([]int32, n)
	for i := range t {
		t[i] = -1
	}
	m.ApplyElems(t)
	return t
}

// ApplyData copies the data segments into the memory bytes mem, in
// segment order (a later segment overwrites an earlier one). Verify checks
// that every segment fits the initial memory, so a verified module's
// segments fit a memory of at least its minimum size.
func (m *Module) ApplyData(mem []byte) {
	for _, d := range m.Data {
		if !d.Passive {
			copy(mem[d.Offset:], d.Bytes)
		}
	}
}

// ApplyElems writes the functions of the element segments into the table
// entries t, in segment order (a later segment overwrites an earlier
// one); entries beyond t are left out. It is how an instance's table
// starts: from null entries, or from an imported table's contents.
func (m *Module) ApplyElems(t []int32) {
	for _, e := range m.Elems {
		if e.Mode != ElemActive || e.Table != 0 {
			continue
		}
		for k, f := range e.Funcs {
			if i := uint64(e.Offset) + uint64(k); i < uint64(len(t)) {
				t[i] = int32(f) // NullFunc is -1
			}
		}
	}
}

// InitialisedTableLen returns the end of the last table entry the element
// segments of a verified module initialise (at most the table's size):
// the length of TableFuncs.
func (m *Module) InitialisedTableLen() uint64 {
	n := uint64(0)
	for _, e := range m.Elems {
		if len(e.Funcs) > 0 && e.Mode == ElemActive && e.Table == 0 {
			n = max(n, uint64(e.Offset)+uint64(len(e.Funcs)))
		}
	}
	return min(n, uint64(m.Table.Min))
}

// SignatureIDs assigns canonical signature ids: two signatures get the
// same id exactly when they have the same parameter and result types. The
// ids are dense, numbered from 0 in the order in which distinct
// signatures first appear among m.Types and then the signatures of
// m.Funcs. typeIDs[i] is the id of m.Types[i] and funcIDs[i] that of
// m.Funcs[i].Sig, so an executor checks that a table entry fits a
// call_indirect with one integer comparison of the callee's id with the
// id of the instruction's type.
func (m *Module) SignatureIDs() (funcIDs, typeIDs []uint32) {
	return m.signatureIDs(true)
}

// TypeIDs returns the canonical signature ids of m.Types, the typeIDs of
// SignatureIDs, without numbering the functions' signatures (the types
// are numbered first, so their ids do not depend on the functions).
func (m *Module) TypeIDs() []uint32 {
	_, typeIDs := m.signatureIDs(false)
	return typeIDs
}

func (m *Module) signatureIDs(withFuncs bool) (funcIDs, typeIDs []uint32) {
	ids := make(map[string]uint32, len(m.Types)+len(m.Funcs))
	var key []byte
	id := func(s Signature) uint32 {
		key = key[:0]
		for _, t := range s.Params {
			key = append(key, byte(t))
		}
		key = append(key, 0)
		for _, t := range s.Results {
			key = append(key, byte(t))
		}
		if v, ok := ids[string(key)]; ok {
			return v
		}
		v := uint32(len(ids))
		ids[string(key)] = v
		return v
	}
	typeIDs = make([]uint32, len(m.Types))
	for i, s := range m.Types {
		typeIDs[i] = id(s)
	}
	if !withFuncs {
		return nil, typeIDs
	}
	funcIDs = make([]uint32, len(m.Funcs))
	for i, f := range m.Funcs {
		if f != nil {
			funcIDs[i] = id(f.Sig)
		}
	}
	return funcIDs, typeIDs
}

// Instructions returns the number of instructions in all the module's
// functions.
func (m *Module) Instructions() int {
	n := 0
	for _, f := range m.Funcs {
		n += len(f.Code)
	}
	return n
}

// FuncIndex returns the index of the function with the given name, or -1.
func (m *Module) FuncIndex(name string) int {
	for i, f := range m.Funcs {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// HostIndex returns the index of the host import with the given name, or -1.
func (m *Module) HostIndex(name string) int {
	for i, h := range m.Hosts {
		if h.Name == name {
			return i
		}
	}
	return -1
}

// ExportedFunc returns the index of the function exported under name, or -1.
func (m *Module) ExportedFunc(name string) int {
	for _, e := range m.Exports {
		if e.Name == name {
			return int(e.Func)
		}
	}
	return -1
}

// Clone returns a deep copy of m, sharing nothing with it.
func (m *Module) Clone() *Module {
	c := &Module{Memory: m.Memory}
	for _, d := range m.Data {
		c.Data = append(c.Data, DataSegment{Offset: d.Offset, Bytes: slices.Clone(d.Bytes), Passive: d.Passive})
	}
	for _, h := range m.Hosts {
		c.Hosts = append(c.Hosts, HostImport{Name: h.Name, Sig: h.Sig.clone()})
	}
	for _, f := range m.Funcs {
		c.Funcs = append(c.Funcs, f.Clone())
	}
	c.Exports = slices.Clone(m.Exports)
	c.Globals = slices.Clone(m.Globals)
	for _, t := range m.Types {
		c.Types = append(c.Types, t.clone())
	}
	c.Table = m.Table
	c.MoreTables = slices.Clone(m.MoreTables)
	for _, e := range m.Elems {
		c.Elems = append(c.Elems, ElemSegment{Offset: e.Offset, Funcs: slices.Clone(e.Funcs), Table: e.Table, Mode: e.Mode})
	}
	return c
}

// Clone returns a deep copy of f.
func (f *Function) Clone() *Function {
	if f == nil {
		return nil
	}
	c := &Function{Name: f.Name, Sig: f.Sig.clone(), Regs: slices.Clone(f.Regs)}
	c.Code = make([]Instr, len(f.Code))
	for i, in := range f.Code {
		c.Code[i] = in.Clone()
	}
	return c
}

func (s Signature) clone() Signature {
	return Signature{Params: slices.Clone(s.Params), Results: slices.Clone(s.Results)}
}
