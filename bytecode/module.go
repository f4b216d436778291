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
type Memory struct {
	MinPages uint32
	MaxPages uint32
}

// DataSegment is copied into linear memory at Offset when an instance starts.
type DataSegment struct {
	Offset uint32
	Bytes  []byte
}

// HostImport declares a function the embedder provides. Name is how the
// embedder's import table refers to it; call_host instructions refer to it by
// its index in Module.Hosts.
type HostImport struct {
	Name string
	Sig  Signature
}

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
// memory with its initial contents, and exported names.
type Module struct {
	Memory  Memory
	Data    []DataSegment
	Hosts   []HostImport
	Funcs   []*Function
	Exports []Export
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
		c.Data = append(c.Data, DataSegment{Offset: d.Offset, Bytes: slices.Clone(d.Bytes)})
	}
	for _, h := range m.Hosts {
		c.Hosts = append(c.Hosts, HostImport{Name: h.Name, Sig: h.Sig.clone()})
	}
	for _, f := range m.Funcs {
		c.Funcs = append(c.Funcs, f.Clone())
	}
	c.Exports = slices.Clone(m.Exports)
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
