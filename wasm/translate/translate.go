// Package translate turns a valid WebAssembly module into a kiln
// bytecode module (WebAssembly 1.0 and the parts of 2.0 that package
// validate accepts: sign extension, non-trapping conversions,
// multi-value, typed select, element segments of ref.func expressions,
// passive and declarative segments, memory.copy, memory.fill,
// memory.init and data.drop, which become kiln's instructions of the same
// names, with kiln's data segments numbered as Wasm's; reference types,
// several tables and the table instructions, a reference being a kiln i64
// value): every Wasm function becomes one kiln function with the
// same index (an imported function becomes a host import plus a small
// kiln function that calls it, so that tables and exports can hold it),
// Wasm's types, globals, table, element and data segments, memory and
// exports become kiln's, and the start function is exported under a name
// of its own for the embedder to call after instantiation (package link
// does all of that).
//
// # Registers instead of a stack
//
// The operand stack exists only at translation time. Each Wasm local
// (parameters first, as kiln wants them) is a kiln register; each stack
// slot is the register R(h, t) of its height h and type t, created on
// first use. An instruction reads the registers of its operands and
// writes the register of the slot its result lands in: i32.add at height
// h+2 is "i32.add R(h), R(h), R(h+1)", with no moves. Three things remove
// most of the remaining moves:
//
//   - local.get and the constants are deferred: the slot remembers the
//     local's register or the constant, and the instruction that consumes
//     it reads the local directly, or takes the constant as an immediate
//     (i32 and i64 arithmetic, comparisons and compare-and-branch), so
//     "local.get 0; i32.const 1; i32.add" is one "i32.add R(h), r0, 1". A
//     deferred local is copied into its slot's register only when the
//     local is written while the slot still needs the old value, and at
//     the entry of a block (so the stack below a block never depends on a
//     local the block changes; constants need no such care).
//   - local.set and local.tee retarget the instruction that computed the
//     value (when it is the last one emitted and no label lies between):
//     "i32.add; local.set 3" writes the local directly.
//   - A block's results live in R(base+k, t), where base is the height
//     at the block's entry below its parameters, which is exactly where
//     the fall-through values already are; only a branch that carries
//     values from a different height needs moves. A loop's parameters
//     (multi-value) live there too: they are put into those registers
//     at the loop's entry, and a branch back to the loop moves the
//     values it carries there. An if's parameters are put there before
//     the condition branches, so that the else arm finds them.
//
// Control flow maps onto kiln labels: block and if ends, loop heads and
// else arms are labels; br is a jump (to a function's outermost block, a
// ret); an integer comparison or eqz right before br_if or if becomes one
// fused compare-and-branch (br.i32.lt_s and friends; if branches on the
// negated condition to its else arm); br_if and br_table that must move a
// value or return go through a small landing pad; br_table is a kiln
// switch. Unreachable code after br, br_table, return and unreachable is
// skipped.
//
// Memory accesses add Wasm's unsigned 32-bit offset to the i32 address:
// offsets below 2^31 become kiln's immediate offset on the zero-extended
// address, larger ones are added in an i64 register first; either way the
// effective address is the exact 33-bit sum, and anything at or above
// the memory's size, 4 GiB and beyond included, traps as out of bounds.
// memory.grow is limited by the module's maximum (65536 pages without
// one).
//
// # What kiln cannot express
//
// Translate returns an *UnsupportedError for:
//
//   - a module whose tables change (table instructions, several tables,
//     element segments that table.init uses) and that imports a table,
//     and more than one imported table: kiln shares table 0 of constant
//     contents between instances only (a module whose tables change may
//     export them, but no other instance can import them);
//
//   - shapes beyond kiln's limits (package bytecode's MaxParams and the
//     others): more than 256 parameters or results, a table of more than
//     2^24 entries, a br_table of more than 65536 labels, more than 2^20
//     functions, globals or types, 65536 imported functions, 2^24 kiln
//     instructions or 2^20 registers in a function, and more locals than
//     Options.MaxFunctionLocals.
//
// Other differences between the models are bridged rather than refused:
//
//   - kiln copies an imported global's value into each instance, so a
//     mutable global that is imported or exported (which other instances
//     may then write) is kept outside kiln instead, in a cell the
//     embedder provides (see SharedGlobal): the module reads and writes
//     it through host imports;
//   - a memory is shared between instances as kiln's imported and
//     exported memories (bytecode.Memory.Import and Export): the code of
//     a module that imports or exports its memory reads its size again
//     after every call, since another instance may grow it;
//   - kiln's table holds the module's own functions only, so a table
//     that is imported or exported (and may hold other instances'
//     functions) is seen by each instance through its own kiln table, a
//     view: see TableLinkage. Such modules store the index of every
//     call_indirect in a global first, which calls through a table no
//     other instance shares do not;
//   - kiln's segment offsets and global initial values are constants:
//     constant expressions that read an imported global are evaluated by
//     Module.Resolve once the imported values are known, so such a module
//     is loaded (and compiled) once per instance;
//   - kiln's table holds module functions only, and its host imports need
//     identifier names: each imported function becomes a host import
//     named "f<index>_<module>.<name>" (Import.Key) and a kiln function
//     that calls it;
//   - kiln has no start function and no empty export names: the start
//     function is exported as Module.Start, an empty name gets a generated
//     one (Export.Key).
//
// Translate validates the module first (package validate) and relies on
// that: it never panics, whatever its input.
//
// # Traps
//
// kiln's trap kinds are WebAssembly's: TrapMessage gives the
// specification's message for each ("integer divide by zero", "call stack
// exhausted"), TrapOf finds the trap behind an error (the innermost one
// when instances call each other through host functions), and
// Module.SourceOffset maps a trap back to the byte offset of the Wasm
// instruction it came from.
package translate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/validate"
)

// Options bound what Translate accepts.
type Options struct {
	// MaxFunctionLocals is the most locals (parameters included) one
	// function may have; 0 means 50,000. Every local is a kiln register,
	// and a few bytes of input can declare millions of them.
	MaxFunctionLocals int
}

// Error reports a problem translating one function.
type Error struct {
	Func   int
	Offset int
	Msg    string
}

// Error formats the error with its location.
func (e *Error) Error() string {
	return fmt.Sprintf("translate: func %d: at byte 0x%x: %s", e.Func, e.Offset, e.Msg)
}

// UnsupportedError reports a valid module that uses something kiln
// cannot express.
type UnsupportedError struct {
	What string
}

// Error says what is unsupported.
func (e *UnsupportedError) Error() string { return "unsupported: " + e.What }

// LinkError reports that a module cannot be instantiated with the given
// imports, in the specification's words ("data segment does not fit").
type LinkError struct {
	Msg string
}

// Error returns the message.
func (e *LinkError) Error() string { return "link: " + e.Msg }

// Import describes one import of the module and the name under which
// the kiln module expects it in jit.Imports.
type Import struct {
	Module, Name string
	Kind         binary.ExternKind
	// Index is the import's index in the index space of its kind.
	Index int
	// Key is the name in jit.Imports: of a host function for a function,
	// of an imported global for a global, of the imported table or memory
	// for a table or a memory.
	Key    string
	Func   binary.FuncType   // for a function
	Global binary.GlobalType // for a global
	Table  binary.TableType  // for a table
	Memory binary.Limits     // for a memory
}

// Export describes one export of the module.
type Export struct {
	Name  string
	Kind  binary.ExternKind
	Index uint32
	// Key is the kiln export name (of a function, global, table or
	// memory).
	Key string
	// Func is the type of an exported function.
	Func binary.FuncType
	// Global is the type of an exported global.
	Global binary.GlobalType
}

// Module is a translated module: kiln bytecode and what an embedder
// needs to link and run it.
type Module struct {
	// Imports and Exports list the module's imports and exports in order.
	Imports []Import
	Exports []Export
	// Start is the kiln export name of the start function, or "".
	Start string
	// HasMemory is set when the module defines or imports a memory.
	HasMemory bool
	// MemoryLimits and TableLimits are the limits the module declares for
	// its memory and its table, defined or imported.
	MemoryLimits, TableLimits binary.Limits
	// Table is set when the module imports or exports its table, which
	// other instances may then share (see TableLinkage).
	Table *TableLinkage
	// SharedGlobals lists the mutable globals the module imports or
	// exports, which its code reads and writes through host imports.
	SharedGlobals []SharedGlobal
	// FuncTypes[f] is the type of function f, FuncNames[f] its kiln name
	// (for an imported function, of the kiln function that calls it).
	FuncTypes []binary.FuncType
	FuncNames []string
	// SourceMap[f][pc] is the byte offset in the Wasm module of the
	// instruction kiln instruction pc of function f was translated from.
	SourceMap [][]int32

	template *bc.Module
	// Initializers that read imported globals, resolved by Resolve.
	globalInits []globalInit
	datas       []segment
	elems       []segment
	// segmentTraps: a segment that does not fit traps at instantiation
	// after the segments before it are written (WebAssembly 2.0), rather
	// than failing to link with nothing written (1.0).
	segmentTraps bool
	memBytes     uint64
	tableSize    uint64
	// tableSizes are the initial sizes of tables 1, 2, ...
	tableSizes []uint64
	// keepElems: the kiln module has every element segment, with Wasm's
	// indices (the code uses table.init or elem.drop).
	keepElems bool
	// memImport and tableImport are the index in Imports of the memory
	// and table import, or -1.
	memImport, tableImport int
}

// TableLinkage describes how a module's table is shared with other
// instances. Each instance of the module sees the shared table through
// its own kiln table (a view): an entry holding one of the instance's own
// functions holds it directly, so calls through it are plain
// call_indirect; an entry holding another instance's function holds the
// stub of its type, which finds the entry again (every call_indirect
// first stores its index in a global of the module) and calls the
// function through a host import the embedder provides. A function whose
// type the module does not know gets the Mismatch function, which no
// call_indirect of the module expects.
type TableLinkage struct {
	// Stubs has one stub per distinct function type of the module.
	Stubs []TableStub
	// Mismatch is the kiln function for entries of a type the module
	// does not know.
	Mismatch string
	// FuncKeys maps each function of the module's element segments that
	// the module defines to the kiln export under which it can be called.
	FuncKeys map[uint32]string
}

// SharedGlobal is a mutable global that instances share: one the module
// imports, or one it defines and exports (which other instances may
// import). The module's code reads it by calling host import Get (no
// parameters, the global's value) and writes it by calling Set (the new
// value, no results); the embedder keeps the value. The kiln global of
// the same index is unused.
type SharedGlobal struct {
	// Index is the global's index in the module.
	Index uint32
	Type  binary.GlobalType
	// Import is the global's index in Imports, or -1 for a defined one,
	// whose initial value is the Init of kiln global Index in the module
	// Resolve returns.
	Import   int
	Get, Set string
}

// TableStub is the kiln function for table entries of one function type
// that belong to other instances.
type TableStub struct {
	Type binary.FuncType
	// Func is the kiln function to put in the view's entry.
	Func string
	// Host is the name of the host import the stub calls with the entry's
	// index (an i32) and the call's arguments; it must call the entry's
	// function and return its results.
	Host string
}

// Bindings are the facts Resolve needs about what an instance imports.
type Bindings struct {
	// Globals are the imported globals' values, in index order, in the
	// API representation of package jit.
	Globals []uint64
	// MemoryPages and MemoryMaxPages are the imported memory's current
	// size and the size it may grow to, in pages.
	MemoryPages, MemoryMaxPages uint32
	// TableSize is the imported table's size.
	TableSize uint32
}

type globalInit struct {
	global int // kiln global index
	from   int // imported global index
}

// offsetExpr is a constant i32 offset, or the value of an imported
// global when from >= 0.
type offsetExpr struct {
	value uint32
	from  int
}

type segment struct {
	offset offsetExpr
	data   []byte
	funcs  []uint32
	// passive marks a passive data segment, which has no offset.
	passive bool
	// mode and table are an element segment's (mode ElemActive: of
	// the table, at the offset).
	mode  bc.ElemMode
	table uint32
}

// Bytecode returns the kiln module without its data and element
// segments, whose offsets may depend on imported globals; Resolve gives
// the complete module. The result is shared: do not change it.
func (m *Module) Bytecode() *bc.Module { return m.template }

// Export returns the export named name.
func (m *Module) Export(name string) (*Export, bool) {
	for i := range m.Exports {
		if m.Exports[i].Name == name {
			return &m.Exports[i], true
		}
	}
	return nil, false
}

// Resolve returns the complete kiln module for an instance whose
// imported globals have the given values (in index order, in the API
// representation of package jit), and whose imported memory and table,
// if any, have the sizes the module declares: ResolveWith with those
// Bindings.
func (m *Module) Resolve(importedGlobals []uint64) (*bc.Module, error) {
	b := Bindings{Globals: importedGlobals}
	if m.memImport >= 0 {
		b.MemoryPages, b.MemoryMaxPages = m.template.Memory.MinPages, m.template.Memory.MaxPages
	}
	if m.tableImport >= 0 {
		b.TableSize = m.template.Table.Min
	}
	return m.ResolveWith(b)
}

// SegmentTrap reports that instantiating a WebAssembly 2.0 module
// trapped applying an active segment that does not fit its table or
// memory. The segments before it have been written (into an imported
// table or memory, where it shows), and the start function has not run.
type SegmentTrap struct {
	// Data tells a data segment from an element segment; Segment is its
	// index among the module's active segments of its kind.
	Data    bool
	Segment int
	// Msg is the specification's message: "out of bounds memory access"
	// or "out of bounds table access".
	Msg string
}

// Error formats the trap with the segment.
func (e *SegmentTrap) Error() string {
	kind := "element"
	if e.Data {
		kind = "data"
	}
	return fmt.Sprintf("trap: %s: %s segment %d does not fit", e.Msg, kind, e.Segment)
}

// ResolveSegments is ResolveWith for instantiation. When a segment of a
// WebAssembly 2.0 module does not fit, it returns the module with the
// segments before it (elements come before data) and the trap, which
// instantiation reports after loading that module; a 1.0 module gets the
// *LinkError of ResolveWith instead.
func (m *Module) ResolveSegments(b Bindings) (*bc.Module, *SegmentTrap, error) {
	return m.resolve(b)
}

// ResolveWith returns the complete kiln module for an instance with the
// given Bindings: global initializers and segment offsets that read an
// imported global are evaluated, the imported memory and table get their
// actual sizes, and every segment is checked to fit its table or memory,
// as instantiation in Wasm does. It returns a *LinkError when a segment
// does not fit (a 2.0 module: the *SegmentTrap of ResolveSegments).
func (m *Module) ResolveWith(b Bindings) (*bc.Module, error) {
	bm, trap, err := m.resolve(b)
	switch {
	case err != nil:
		return nil, err
	case trap != nil:
		return nil, trap
	}
	return bm, nil
}

func (m *Module) resolve(b Bindings) (*bc.Module, *SegmentTrap, error) {
	importedGlobals := b.Globals
	eval := func(o offsetExpr) (uint64, error) {
		if o.from < 0 {
			return uint64(o.value), nil
		}
		if o.from >= len(importedGlobals) {
			return 0, &LinkError{Msg: fmt.Sprintf("no value for imported global %d", o.from)}
		}
		return uint64(uint32(importedGlobals[o.from])), nil
	}
	bm := m.template.Clone()
	memBytes, tableSize := m.memBytes, m.tableSize
	if m.memImport >= 0 {
		bm.Memory.MinPages, bm.Memory.MaxPages = b.MemoryPages, b.MemoryMaxPages
		memBytes = uint64(b.MemoryPages) * bc.PageSize
	}
	if m.tableImport >= 0 {
		bm.Table.Min, bm.Table.Max, bm.Table.HasMax = b.TableSize, b.TableSize, true
		tableSize = uint64(b.TableSize)
	}
	for _, gi := range m.globalInits {
		if gi.from >= len(importedGlobals) {
			return nil, nil, &LinkError{Msg: fmt.Sprintf("no value for imported global %d", gi.from)}
		}
		v := importedGlobals[gi.from]
		if bm.Globals[gi.global].Type.Is32() {
			v = uint64(uint32(v))
		}
		bm.Globals[gi.global].Init = v
	}
	// With every segment kept, the template's placeholders stay for the
	// segments after one that does not fit.
	if !m.keepElems {
		bm.Elems = nil
	}
	active := 0
	for k, e := range m.elems {
		seg := bc.ElemSegment{Mode: e.mode, Funcs: e.funcs}
		if e.mode == bc.ElemActive {
			i := active
			active++
			off, err := eval(e.offset)
			if err != nil {
				return nil, nil, err
			}
			size := tableSize
			if e.table > 0 {
				size = m.tableSizes[e.table-1]
			}
			if off+uint64(len(e.funcs)) > size {
				if m.segmentTraps {
					return bm, &SegmentTrap{Segment: i, Msg: "out of bounds table access"}, nil
				}
				return nil, nil, &LinkError{Msg: fmt.Sprintf("elements segment does not fit: segment %d covers entries %d..%d of a table of %d", i, off, off+uint64(len(e.funcs)), size)}
			}
			seg.Offset, seg.Table = uint32(off), e.table
		}
		if m.keepElems {
			bm.Elems[k] = seg
		} else {
			bm.Elems = append(bm.Elems, seg)
		}
	}
	// The template's placeholders stay for the segments after one that
	// does not fit: empty passive segments, which nothing copies.
	active = 0
	for k, d := range m.datas {
		if d.passive {
			bm.Data[k] = bc.DataSegment{Passive: true, Bytes: d.data}
			continue
		}
		i := active
		active++
		off, err := eval(d.offset)
		if err != nil {
			return nil, nil, err
		}
		if off+uint64(len(d.data)) > memBytes {
			if m.segmentTraps {
				return bm, &SegmentTrap{Data: true, Segment: i, Msg: "out of bounds memory access"}, nil
			}
			return nil, nil, &LinkError{Msg: fmt.Sprintf("data segment does not fit: segment %d covers bytes %d..%d of a memory of %d", i, off, off+uint64(len(d.data)), memBytes)}
		}
		bm.Data[k] = bc.DataSegment{Offset: uint32(off), Bytes: d.data}
	}
	return bm, nil, nil
}

// Translate validates m and translates it.
func Translate(m *binary.Module, opts Options) (*Module, error) {
	if err := validate.Module(m); err != nil {
		return nil, err
	}
	if opts.MaxFunctionLocals <= 0 {
		opts.MaxFunctionLocals = 50000
	}
	t := &translator{m: m, opts: opts, out: &Module{memImport: -1, tableImport: -1, segmentTraps: m.Features.Has(binary.FeatureBulkMemory)}}
	if err := t.module(); err != nil {
		return nil, err
	}
	return t.out, nil
}

type translator struct {
	m         *binary.Module
	opts      Options
	out       *Module
	funcTypes []uint32
	globals   []binary.GlobalType
	funcNames []string
	// sharedTable is set when the module imports or exports its table;
	// slotGlobal is then the kiln global each call_indirect stores its
	// table index in (see TableLinkage).
	sharedTable bool
	slotGlobal  uint32
	// sharedGlobals maps a shared mutable global (see SharedGlobal) to its
	// index in Module.SharedGlobals.
	sharedGlobals map[uint32]int
	// changingTables: the module's tables change (tablesChange).
	changingTables bool
	// refGlobals are the globals whose initializer is ref.func (from: the
	// function).
	refGlobals []globalInit
	// localBudget bounds the locals of all functions together.
	localBudget int64
	ft          funcTranslator
}

func (t *translator) module() error {
	m := t.m
	bm := &bc.Module{}
	out := t.out
	t.funcTypes = append(m.ImportedFuncTypes(), m.Funcs...)
	t.globals = m.GlobalTypes()
	size := 0
	for i := range m.Codes {
		size += len(m.Codes[i].Body) + 16
	}
	t.localBudget = int64(t.opts.MaxFunctionLocals) + 16*int64(size)

	for _, lim := range []struct {
		what   string
		n, max int
	}{
		{"functions", len(t.funcTypes), bc.MaxFuncs},
		{"imported functions", m.NumImportedFuncs, bc.MaxHosts},
		{"globals", m.NumGlobals(), bc.MaxGlobals},
		{"types", len(m.Types), bc.MaxTypes},
	} {
		if lim.n > lim.max {
			return &UnsupportedError{What: fmt.Sprintf("%d %s; kiln allows %d", lim.n, lim.what, lim.max)}
		}
	}
	for i, ft := range m.Types {
		if len(ft.Params) > bc.MaxParams || len(ft.Results) > bc.MaxParams {
			return &UnsupportedError{What: fmt.Sprintf("type %d has %d parameters; kiln allows %d", i, len(ft.Params), bc.MaxParams)}
		}
		bm.Types = append(bm.Types, bc.Signature{Params: kilnTypes(ft.Params), Results: kilnTypes(ft.Results)})
	}

	// Names: kiln identifiers, unique.
	exportNames := map[string]bool{}
	for _, e := range m.Exports {
		exportNames[e.Name] = true
	}
	funcExport := map[uint32]string{}
	for _, e := range m.Exports {
		if e.Kind == binary.ExternFunc {
			if _, ok := funcExport[e.Index]; !ok {
				funcExport[e.Index] = e.Name
			}
		}
	}
	t.funcNames = make([]string, len(t.funcTypes))
	fi, gi := 0, 0
	for i := range m.Imports {
		im := &m.Imports[i]
		imp := Import{Module: im.Module, Name: im.Name, Kind: im.Kind}
		switch im.Kind {
		case binary.ExternFunc:
			imp.Index = fi
			imp.Key = fmt.Sprintf("%s.%s", ident(im.Module), ident(im.Name))
			imp.Key = "f" + strconv.Itoa(fi) + "_" + imp.Key
			imp.Func = m.Types[im.Type]
			bm.Hosts = append(bm.Hosts, bc.HostImport{Name: imp.Key, Sig: bm.Types[im.Type]})
			t.funcNames[fi] = "import" + strconv.Itoa(fi) + "_" + ident(im.Name)
			fi++
		case binary.ExternGlobal:
			imp.Index = gi
			imp.Key = "g" + strconv.Itoa(gi) + "_" + ident(im.Module) + "." + ident(im.Name)
			imp.Global = im.Global
			if im.Global.Mutable {
				// Kept by the embedder; the kiln global is a placeholder.
				t.shareGlobal(uint32(gi), im.Global, len(out.Imports))
				bm.Globals = append(bm.Globals, bc.Global{Name: "g" + strconv.Itoa(gi), Type: kilnType(im.Global.Type), Mutable: true})
				gi++
				break
			}
			bm.Globals = append(bm.Globals, bc.Global{Name: "g" + strconv.Itoa(gi), Type: kilnType(im.Global.Type), Import: imp.Key})
			gi++
		case binary.ExternMemory:
			imp.Key = "memory_" + ident(im.Module) + "." + ident(im.Name)
			imp.Memory = im.Memory
			max := uint32(validate.MaxPages)
			if im.Memory.HasMax {
				max = im.Memory.Max
			}
			bm.Memory = bc.Memory{MinPages: im.Memory.Min, MaxPages: max, Import: imp.Key}
			out.MemoryLimits = im.Memory
			out.HasMemory = true
			out.memBytes = uint64(im.Memory.Min) * bc.PageSize
			out.memImport = len(out.Imports)
		case binary.ExternTable:
			l := im.Table.Limits
			if l.Min > bc.MaxTableSize {
				return &UnsupportedError{What: fmt.Sprintf("a table of %d entries; kiln allows %d", l.Min, bc.MaxTableSize)}
			}
			if m.NumImportedTables > 1 {
				return &UnsupportedError{What: fmt.Sprintf("%d imported tables; kiln imports one", m.NumImportedTables)}
			}
			imp.Key = "table_" + ident(im.Module) + "." + ident(im.Name)
			imp.Table = im.Table
			bm.Table = bc.Table{Min: l.Min, Max: l.Min, HasMax: true, Import: imp.Key, Extern: binary.ValType(im.Table.Elem) == binary.ExternRef}
			out.TableLimits = l
			out.tableSize = uint64(l.Min)
			out.tableImport = len(out.Imports)
			t.sharedTable = true
		}
		out.Imports = append(out.Imports, imp)
	}
	for i := m.NumImportedFuncs; i < len(t.funcTypes); i++ {
		t.funcNames[i] = "f" + strconv.Itoa(i)
	}
	for f, name := range funcExport {
		t.funcNames[f] += "_" + ident(name)
	}
	out.FuncNames = t.funcNames
	out.FuncTypes = make([]binary.FuncType, len(t.funcTypes))
	for f, ti := range t.funcTypes {
		out.FuncTypes[f] = m.Types[ti]
	}

	// Globals.
	for i := range m.Globals {
		g := &m.Globals[i]
		k := len(bm.Globals)
		kg := bc.Global{Name: "g" + strconv.Itoa(k), Type: kilnType(g.Type.Type), Mutable: g.Type.Mutable}
		v, from, err := t.constValue(g.Init)
		if err != nil {
			return err
		}
		if from <= refFuncFrom {
			// ref.func: the reference is known once every function is.
			t.refGlobals = append(t.refGlobals, globalInit{global: k, from: refFuncFrom - from})
			from = -1
		}
		if from >= 0 {
			out.globalInits = append(out.globalInits, globalInit{global: k, from: from})
		} else {
			kg.Init = v
		}
		bm.Globals = append(bm.Globals, kg)
	}

	// Memory.
	if len(m.Mems) > 0 {
		l := m.Mems[0]
		max := uint32(validate.MaxPages)
		if l.HasMax {
			max = l.Max
		}
		bm.Memory = bc.Memory{MinPages: l.Min, MaxPages: max}
		out.MemoryLimits = l
		out.HasMemory = true
		out.memBytes = uint64(l.Min) * bc.PageSize
	}

	// Tables: table 0 (imported above, or the first defined one), then
	// the others.
	for k, tt := range m.Tables {
		l := tt.Limits
		if l.Min > bc.MaxTableSize {
			return &UnsupportedError{What: fmt.Sprintf("a table of %d entries; kiln allows %d", l.Min, bc.MaxTableSize)}
		}
		kt := bc.Table{Min: l.Min, Max: l.Max, HasMax: l.HasMax, Extern: binary.ValType(tt.Elem) == binary.ExternRef}
		if m.NumImportedTables+k > 0 {
			bm.MoreTables = append(bm.MoreTables, kt)
			out.tableSizes = append(out.tableSizes, uint64(l.Min))
			continue
		}
		bm.Table = kt
		out.TableLimits = l
		if !l.HasMax && l.Min == 0 && l.Max == 0 {
			// kiln needs a maximum to tell an empty table from none;
			// table.grow finds no room in any case.
			bm.Table.HasMax = true
			if len(m.Tables) > 1 || m.Features.Has(binary.FeatureReferenceTypes) {
				// A table that may grow: the largest maximum.
				bm.Table.Max = bc.MaxTableSize
			}
		}
		out.tableSize = uint64(l.Min)
	}
	if len(bm.MoreTables) > bc.MaxTables-1 {
		return &UnsupportedError{What: fmt.Sprintf("%d tables; kiln allows %d", 1+len(bm.MoreTables), bc.MaxTables)}
	}
	// Tables that change are kept by the instance alone: exporting one
	// works, but no other instance can import it (see
	// link.Instance.Export); importing one is unsupported.
	t.changingTables = tablesChange(m)
	for _, e := range m.Exports {
		if e.Kind == binary.ExternTable && !t.changingTables {
			t.sharedTable = true
		}
	}
	// Mutable globals other instances may write: the imported ones (seen
	// above) and the exported ones the module defines.
	for _, e := range m.Exports {
		if e.Kind == binary.ExternGlobal && int(e.Index) >= m.NumImportedGlobals && t.globals[e.Index].Mutable {
			t.shareGlobal(e.Index, t.globals[e.Index], -1)
		}
	}
	for k := range out.SharedGlobals {
		g := &out.SharedGlobals[k]
		ty := kilnType(g.Type.Type)
		bm.Hosts = append(bm.Hosts,
			bc.HostImport{Name: g.Get, Sig: bc.Signature{Results: []bc.Type{ty}}},
			bc.HostImport{Name: g.Set, Sig: bc.Signature{Params: []bc.Type{ty}}})
	}
	if t.sharedTable {
		t.slotGlobal = uint32(len(bm.Globals))
		bm.Globals = append(bm.Globals, bc.Global{Name: "table_slot", Type: bc.I32, Mutable: true})
	}

	// Element segments: the active ones, and when the code uses table.init
	// or elem.drop every one, with Wasm's indices (the template holds a
	// declarative placeholder in the place of each, which Resolve
	// replaces).
	out.keepElems = usesElemSegments(m)
	for i := range m.Elems {
		e := &m.Elems[i]
		if out.keepElems {
			bm.Elems = append(bm.Elems, bc.ElemSegment{Mode: bc.ElemDeclarative})
		}
		if e.Mode != binary.SegmentActive {
			if out.keepElems {
				mode := bc.ElemPassive
				if e.Mode == binary.SegmentDeclarative {
					mode = bc.ElemDeclarative
				}
				out.elems = append(out.elems, segment{mode: mode, funcs: elemFuncs(e)})
			}
			continue
		}
		off, err := t.offset(e.Offset)
		if err != nil {
			return err
		}
		out.elems = append(out.elems, segment{offset: off, funcs: elemFuncs(e), table: e.Table})
	}
	for i := range m.Datas {
		d := &m.Datas[i]
		// The template has an empty passive segment in the place of each
		// (Resolve puts in the real ones), so that memory.init and
		// data.drop refer to Wasm's segment indices.
		bm.Data = append(bm.Data, bc.DataSegment{Passive: true})
		if d.Mode != binary.SegmentActive {
			out.datas = append(out.datas, segment{passive: true, data: d.Bytes})
			continue
		}
		off, err := t.offset(d.Offset)
		if err != nil {
			return err
		}
		out.datas = append(out.datas, segment{offset: off, data: d.Bytes})
	}

	// Functions: import thunks, then the bodies.
	out.SourceMap = make([][]int32, len(t.funcTypes))
	for f := 0; f < m.NumImportedFuncs; f++ {
		bm.Funcs = append(bm.Funcs, thunk(t.funcNames[f], uint32(f), bm.Types[t.funcTypes[f]]))
	}
	for i := range m.Codes {
		fn := m.NumImportedFuncs + i
		f, src, err := t.ft.function(t, fn, &m.Codes[i])
		if err != nil {
			return err
		}
		bm.Funcs = append(bm.Funcs, f)
		out.SourceMap[fn] = src
	}
	if t.sharedTable && bm.DynamicTables() {
		return &UnsupportedError{What: "an imported table in a module whose tables change (table instructions, several tables, segments kept for table.init)"}
	}
	if t.sharedTable {
		if err := t.tableLinkage(bm); err != nil {
			return err
		}
	}
	if len(t.refGlobals) > 0 {
		funcIDs, _ := bm.SignatureIDs()
		for _, g := range t.refGlobals {
			bm.Globals[g.global].Init = bc.FuncRef(funcIDs[g.from], uint32(g.from))
		}
	}

	// Exports.
	used := map[string]bool{}
	for name := range exportNames {
		used[name] = true
	}
	reserve := func(base string) string {
		name := base
		for k := 1; used[name]; k++ {
			name = base + strconv.Itoa(k)
		}
		used[name] = true
		return name
	}
	for _, e := range m.Exports {
		x := Export{Name: e.Name, Kind: e.Kind, Index: e.Index}
		key := e.Name
		if key == "" {
			key = reserve("__wasm_export")
		}
		switch e.Kind {
		case binary.ExternFunc:
			x.Key = key
			x.Func = m.Types[t.funcTypes[e.Index]]
			bm.Exports = append(bm.Exports, bc.Export{Name: key, Func: e.Index})
		case binary.ExternGlobal:
			x.Global = t.globals[e.Index]
			if _, shared := t.sharedGlobals[e.Index]; shared {
				// Kept by the embedder: the kiln global is a placeholder.
				x.Key = key
				break
			}
			g := &bm.Globals[e.Index]
			if g.Export == "" {
				g.Export = key
			}
			x.Key = g.Export
			x.Global = t.globals[e.Index]
		case binary.ExternTable:
			if t.changingTables {
				break // not shared: Key stays empty
			}
			if bm.Table.Export == "" {
				bm.Table.Export = key
			}
			x.Key = bm.Table.Export
		case binary.ExternMemory:
			if bm.Memory.Export == "" {
				bm.Memory.Export = key
			}
			x.Key = bm.Memory.Export
		}
		out.Exports = append(out.Exports, x)
	}
	if m.HasStart {
		out.Start = reserve("__wasm_start")
		bm.Exports = append(bm.Exports, bc.Export{Name: out.Start, Func: m.Start})
	}
	if out.Table != nil {
		// The defined functions of the element segments can be called
		// from other instances that share the table.
		for _, seg := range out.elems {
			for _, f := range seg.funcs {
				if f == bc.NullFunc || int(f) < m.NumImportedFuncs || out.Table.FuncKeys[f] != "" {
					continue
				}
				key := reserve("__table_func" + strconv.Itoa(int(f)))
				out.Table.FuncKeys[f] = key
				bm.Exports = append(bm.Exports, bc.Export{Name: key, Func: f})
			}
		}
	}
	if err := bc.Verify(bm); err != nil {
		return fmt.Errorf("translate: internal error: the kiln module does not verify: %w", err)
	}
	out.template = bm
	return nil
}

// shareGlobal records global g of type gt (imported as import imp, or
// defined when imp < 0) as a shared mutable global, once.
func (t *translator) shareGlobal(g uint32, gt binary.GlobalType, imp int) {
	if _, ok := t.sharedGlobals[g]; ok {
		return
	}
	if t.sharedGlobals == nil {
		t.sharedGlobals = map[uint32]int{}
	}
	k := strconv.Itoa(len(t.out.SharedGlobals))
	t.sharedGlobals[g] = len(t.out.SharedGlobals)
	t.out.SharedGlobals = append(t.out.SharedGlobals, SharedGlobal{Index: g, Type: gt, Import: imp, Get: "global_get" + k, Set: "global_set" + k})
}

// sharedGlobalHost returns the host import index of the accessor (set or
// get) of shared global g, and whether g is shared.
func (t *translator) sharedGlobalHost(g uint32, set bool) (uint32, bool) {
	k, ok := t.sharedGlobals[g]
	if !ok {
		return 0, false
	}
	h := t.m.NumImportedFuncs + 2*k
	if set {
		h++
	}
	return uint32(h), true
}

// tableLinkage adds what sharing the table takes (see TableLinkage): a
// host import and a stub per distinct function type, and the function no
// call_indirect expects.
func (t *translator) tableLinkage(bm *bc.Module) error {
	tl := &TableLinkage{FuncKeys: map[uint32]string{}}
	seen := map[string]bool{}
	maxResults := 0
	for i, ft := range t.m.Types {
		maxResults = max(maxResults, len(ft.Results))
		sig := bm.Types[i]
		if seen[sig.String()] {
			continue
		}
		seen[sig.String()] = true
		if len(sig.Params) >= bc.MaxParams {
			return &UnsupportedError{What: fmt.Sprintf("a shared table and type %d of %d parameters; kiln allows %d with the table index", i, len(sig.Params), bc.MaxParams-1)}
		}
		k := strconv.Itoa(len(tl.Stubs))
		stub := TableStub{Type: ft, Func: "table_stub" + k, Host: "table_call" + k}
		host := bc.Signature{Params: append([]bc.Type{bc.I32}, sig.Params...), Results: sig.Results}
		bm.Hosts = append(bm.Hosts, bc.HostImport{Name: stub.Host, Sig: host})
		f := &bc.Function{Name: stub.Func, Sig: sig, Regs: append(append([]bc.Type(nil), sig.Params...), bc.I32)}
		slot := bc.Reg(len(sig.Params))
		args := []bc.Reg{slot}
		for r := range sig.Params {
			args = append(args, bc.Reg(r))
		}
		var results []bc.Reg
		for _, rt := range sig.Results {
			results = append(results, bc.Reg(len(f.Regs)))
			f.Regs = append(f.Regs, rt)
		}
		f.Code = []bc.Instr{
			{Op: bc.OpGlobalGet, Dst: slot, Callee: t.slotGlobal},
			{Op: bc.OpCallHost, Callee: uint32(len(bm.Hosts) - 1), Args: args, Results: results},
			{Op: bc.OpReturn, Args: results},
		}
		bm.Funcs = append(bm.Funcs, f)
		tl.Stubs = append(tl.Stubs, stub)
	}
	// More results than any type of the module has: a signature no
	// call_indirect of the module expects.
	if maxResults+1 > bc.MaxParams {
		return &UnsupportedError{What: fmt.Sprintf("a shared table and a type of %d results", maxResults)}
	}
	mismatch := &bc.Function{Name: "table_mismatch", Code: []bc.Instr{{Op: bc.OpUnreachable}}}
	for range maxResults + 1 {
		mismatch.Sig.Results = append(mismatch.Sig.Results, bc.I64)
	}
	bm.Funcs = append(bm.Funcs, mismatch)
	tl.Mismatch = mismatch.Name
	t.out.Table = tl
	return nil
}

// thunk returns a kiln function that calls host import h with its
// parameters and returns its results.
// elemFuncs returns the functions of an element segment of funcref
// whose expressions, if it has any, are all ref.func (as validation
// requires of an active segment).
func elemFuncs(e *binary.Elem) []uint32 {
	if e.Exprs == nil {
		return e.Funcs
	}
	funcs := make([]uint32, 0, len(e.Exprs))
	var in binary.Instr
	for _, x := range e.Exprs {
		cr := binary.NewCodeReader(x.Code, x.Offset, "element", -1)
		if cr.Next(&in) == nil && in.Op == binary.OpRefFunc {
			funcs = append(funcs, in.Index)
		} else {
			funcs = append(funcs, bc.NullFunc)
		}
	}
	return funcs
}

func thunk(name string, h uint32, sig bc.Signature) *bc.Function {
	f := &bc.Function{Name: name, Sig: sig}
	f.Regs = append(f.Regs, sig.Params...)
	args := make([]bc.Reg, len(sig.Params))
	for i := range args {
		args[i] = bc.Reg(i)
	}
	var results []bc.Reg
	for _, rt := range sig.Results {
		results = append(results, bc.Reg(len(f.Regs)))
		f.Regs = append(f.Regs, rt)
	}
	f.Code = []bc.Instr{
		{Op: bc.OpCallHost, Callee: h, Args: args, Results: results},
		{Op: bc.OpReturn, Args: results},
	}
	return f
}

// constValue evaluates a valid constant expression: its value's bits,
// or the index of the imported global it reads (from >= 0).
func (t *translator) constValue(e binary.ConstExpr) (bits uint64, from int, err error) {
	cr := binary.NewCodeReader(e.Code, e.Offset, "", -1)
	var in binary.Instr
	if err := cr.Next(&in); err != nil {
		return 0, -1, err
	}
	switch in.Op {
	case binary.OpGlobalGet:
		return 0, int(in.Index), nil
	case binary.OpI32Const, binary.OpF32Const:
		return uint64(uint32(in.Value)), -1, nil
	case binary.OpRefNull:
		return bc.NullRef, -1, nil
	case binary.OpRefFunc:
		return 0, refFuncFrom - int(in.Index), nil
	}
	return in.Value, -1, nil
}

// tablesChange reports whether the kiln module of m will have tables
// that change (bytecode.Module.DynamicTables): m has several tables, one
// of externref, or code with a table instruction other than
// call_indirect.
func tablesChange(m *binary.Module) bool {
	if m.NumTables() > 1 {
		return true
	}
	for _, tt := range m.TableTypes() {
		if binary.ValType(tt.Elem) == binary.ExternRef {
			return true
		}
	}
	return codeUses(m, binary.OpTableGet, binary.OpTableSet, binary.OpTableSize, binary.OpTableGrow,
		binary.OpTableFill, binary.OpTableCopy, binary.OpTableInit, binary.OpElemDrop)
}

// refFuncFrom - f is what constValue returns in from for ref.func f.
const refFuncFrom = -2

// usesElemSegments reports whether some function of m uses table.init or
// elem.drop, which need the element segments kept with their indices.
func usesElemSegments(m *binary.Module) bool {
	return len(m.Elems) > 0 && codeUses(m, binary.OpTableInit, binary.OpElemDrop)
}

// codeUses reports whether some function of m uses one of ops.
func codeUses(m *binary.Module, ops ...binary.Opcode) bool {
	var in binary.Instr
	for i := range m.Codes {
		c := &m.Codes[i]
		cr := binary.NewCodeReader(c.Body, c.Offset, "code", m.NumImportedFuncs+i)
		for !cr.Done() && cr.Next(&in) == nil {
			if slices.Contains(ops, in.Op) {
				return true
			}
		}
	}
	return false
}

func (t *translator) offset(e binary.ConstExpr) (offsetExpr, error) {
	v, from, err := t.constValue(e)
	if err != nil {
		return offsetExpr{}, err
	}
	if v > math.MaxUint32 {
		return offsetExpr{}, fmt.Errorf("translate: internal error: offset %d", v)
	}
	return offsetExpr{value: uint32(v), from: from}, nil
}

// ident turns a Wasm name into a short kiln identifier fragment.
func ident(name string) string {
	var b strings.Builder
	for _, c := range name {
		if b.Len() >= 32 {
			break
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
