// # Globals and the table
//
// A module's globals live in each instance: an instance starts with the
// initial values the module declares and, for imported globals, the
// values Instantiate is given (a GlobalImport per imported global in
// Imports). The instance keeps its own copy of an imported value: the
// embedder's later changes to it do not reach the instance, and the
// instance's global.set does not reach the embedder (use Instance.Global
// and SetGlobal on an exported global for that).
//
// The table holds what the module's element segments put there, with
// each function's canonical signature id (bytecode.Module.SignatureIDs),
// from the start of every instance. No instruction changes it (kiln
// bytecode, like WebAssembly 1.0, has no instruction that writes the
// table), so it is built once, when the module is loaded, and every
// instance of the module shares it; Instance.TableEntry inspects an
// exported table. A module may import its table instead: the embedder
// supplies each instance's contents (a TableImport of the module's own
// functions, of exactly the declared size), the element segments are
// applied over them, and that instance's code reads its own copy. The
// embedder may change an entry of an imported or exported table
// (Instance.SetTableEntry), which gives that instance its own copy too:
// that is how a WebAssembly embedder shares one table between instances.
//
// Compiled code shares the interpreter's globals (the context holds their
// address) and reads the table in the packed form of mir.TableEntries,
// built once per compiled module.
package jit

import (
	"fmt"
	"math"
	"slices"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/mir"
)

// GlobalImport is the value an embedder supplies for an imported global:
// a type and a value of that type. Build one with GlobalI64, GlobalF64,
// GlobalI32, GlobalF32 or GlobalValue. Its type must be the type the
// module declares for the global.
type GlobalImport struct {
	typ  bytecode.Type
	bits uint64
}

func (GlobalImport) importKind() string { return "global" }

// GlobalI64 returns an i64 global import of value v.
func GlobalI64(v int64) GlobalImport { return GlobalImport{bytecode.I64, uint64(v)} }

// GlobalF64 returns an f64 global import of value v.
func GlobalF64(v float64) GlobalImport { return GlobalImport{bytecode.F64, math.Float64bits(v)} }

// GlobalI32 returns an i32 global import of value v.
func GlobalI32(v int32) GlobalImport { return GlobalImport{bytecode.I32, uint64(uint32(v))} }

// GlobalF32 returns an f32 global import of value v.
func GlobalF32(v float32) GlobalImport {
	return GlobalImport{bytecode.F32, uint64(math.Float32bits(v))}
}

// GlobalValue returns a global import of type t whose value is v in the
// API representation (see I64, F64, I32, F32): for the 32-bit types, the
// value's 32 bits zero-extended. Instantiate rejects a 32-bit value whose
// upper 32 bits are not zero.
func GlobalValue(t bytecode.Type, v uint64) GlobalImport { return GlobalImport{t, v} }

// Type returns the global import's type.
func (g GlobalImport) Type() bytecode.Type { return g.typ }

// Value returns the global import's value in the API representation.
func (g GlobalImport) Value() uint64 { return g.bits }

// checkGlobalValue checks that v is a value of type t in the API
// representation.
func checkGlobalValue(t bytecode.Type, v uint64) error {
	if t.Is32() && v > math.MaxUint32 {
		return fmt.Errorf("value %#x does not fit in 32 bits (the global is %s)", v, t)
	}
	return nil
}

// initGlobals stores the values of the imported globals in imports into
// the instance's globals.
func (i *Instance) initGlobals(imports Imports) error {
	bm := i.module.prog.Module
	globals := i.machine.Globals()
	for k := range bm.Globals {
		g := &bm.Globals[k]
		if g.Import == "" {
			continue
		}
		imp, ok := imports[g.Import]
		if !ok {
			return fmt.Errorf("missing import %q: the module imports global %s (%s)", g.Import, g.Name, g.Type)
		}
		gi, ok := imp.(GlobalImport)
		if !ok {
			return fmt.Errorf("import %q is a %s; the module imports global %s (%s)", g.Import, imp.importKind(), g.Name, g.Type)
		}
		if gi.typ != g.Type {
			if !gi.typ.Valid() {
				return fmt.Errorf("global import %q is empty (build it with jit.GlobalI64 or the like)", g.Import)
			}
			return fmt.Errorf("global import %q has type %s; the module imports it as %s", g.Import, gi.typ, g.Type)
		}
		if err := checkGlobalValue(g.Type, gi.bits); err != nil {
			return fmt.Errorf("global import %q: %w", g.Import, err)
		}
		globals[k] = gi.bits
	}
	return nil
}

// exportedGlobal returns the index of the global exported under name.
func (i *Instance) exportedGlobal(name string) (int, error) {
	idx := i.module.prog.Module.ExportedGlobal(name)
	if idx < 0 {
		return -1, fmt.Errorf("jit: no exported global %q", name)
	}
	return idx, nil
}

// Global returns the value and type of the global exported under name, the
// value in the API representation (f64 values as their bits, 32-bit
// values zero-extended). It fails with ErrBusy while a call runs on the
// instance: read globals between calls.
func (i *Instance) Global(name string) (uint64, bytecode.Type, error) {
	if !i.busy.CompareAndSwap(false, true) {
		return 0, 0, ErrBusy
	}
	defer i.busy.Store(false)
	idx, err := i.exportedGlobal(name)
	if err != nil {
		return 0, 0, err
	}
	return i.machine.Globals()[idx], i.module.prog.Module.Globals[idx].Type, nil
}

// SetGlobal sets the mutable global exported under name to v, a value of
// its type in the API representation. It refuses unknown names, constant
// globals and 32-bit values with upper bits set, and fails with ErrBusy
// while a call runs on the instance (host functions included): set globals
// only between calls.
func (i *Instance) SetGlobal(name string, v uint64) error {
	if !i.busy.CompareAndSwap(false, true) {
		return ErrBusy
	}
	defer i.busy.Store(false)
	idx, err := i.exportedGlobal(name)
	if err != nil {
		return err
	}
	g := &i.module.prog.Module.Globals[idx]
	if !g.Mutable {
		return fmt.Errorf("jit: global %q is constant", name)
	}
	if err := checkGlobalValue(g.Type, v); err != nil {
		return fmt.Errorf("jit: set global %q: %w", name, err)
	}
	i.machine.Globals()[idx] = v
	return nil
}

// TableImport is the contents an embedder supplies for an imported
// table: the name of the module's function in each entry ("" for a null
// entry). Build one with TableFuncs. kiln compiles a module for its
// table's size, so an imported table has exactly the size the module
// declares (Table.Min); the module's element segments are applied over
// the imported contents, as WebAssembly applies them.
type TableImport struct {
	funcs []string
}

func (TableImport) importKind() string { return "table" }

// TableFuncs returns a table import whose entry i holds the function
// named names[i] ("" for null).
func TableFuncs(names ...string) TableImport { return TableImport{slices.Clone(names)} }

// initTable builds the instance's table when the module imports it: the
// imported contents, then the element segments.
func (i *Instance) initTable(imports Imports) error {
	bm := i.module.prog.Module
	if bm.Table.Import == "" {
		return nil
	}
	v, ok := imports[bm.Table.Import]
	if !ok {
		return fmt.Errorf("missing import %q: the module imports its table", bm.Table.Import)
	}
	ti, ok := v.(TableImport)
	if !ok {
		return fmt.Errorf("import %q is a %s; the module imports its table", bm.Table.Import, v.importKind())
	}
	if uint64(len(ti.funcs)) != uint64(bm.Table.Min) {
		return fmt.Errorf("table import %q has %d entries; the module's table has %d", bm.Table.Import, len(ti.funcs), bm.Table.Min)
	}
	funcs := make([]int32, len(ti.funcs))
	for k, name := range ti.funcs {
		funcs[k] = -1
		if name == "" {
			continue
		}
		fn := bm.FuncIndex(name)
		if fn < 0 {
			return fmt.Errorf("table import %q: entry %d names no function of the module (%q)", bm.Table.Import, k, name)
		}
		funcs[k] = int32(fn)
	}
	bm.ApplyElems(funcs)
	if err := i.machine.SetTable(funcs); err != nil {
		return err
	}
	i.table = mir.PackTable(bm, funcs)
	return nil
}

// TableEntry returns the name of the function in entry idx of the
// instance's table, which the module must export; ok is false when the
// entry is null. It fails when the module exports no table or idx is not
// below the table's size.
func (i *Instance) TableEntry(idx uint32) (funcName string, ok bool, err error) {
	bm := i.module.prog.Module
	if !bm.HasTable() || bm.Table.Export == "" {
		return "", false, fmt.Errorf("jit: the module exports no table")
	}
	fn, inRange := i.machine.TableFunc(uint64(idx))
	switch {
	case !inRange:
		return "", false, fmt.Errorf("jit: table index %d out of range (the table has %d entries)", idx, bm.Table.Min)
	case fn < 0:
		return "", false, nil
	}
	return bm.Funcs[fn].Name, true, nil
}

// SetTableEntry puts the module's function funcName into entry idx of the
// instance's table ("" makes the entry null): what a WebAssembly embedder
// does when another module's element segment writes into a table this
// instance shares. Only an imported or exported table can change; the
// instance's later calls through the entry call the new function, in
// every tier. It fails with ErrBusy while a call runs on the instance.
func (i *Instance) SetTableEntry(idx uint32, funcName string) error {
	bm := i.module.prog.Module
	if bm.Table.Import == "" && bm.Table.Export == "" {
		return fmt.Errorf("jit: the module neither imports nor exports its table")
	}
	if idx >= bm.Table.Min {
		return fmt.Errorf("jit: table index %d out of range (the table has %d entries)", idx, bm.Table.Min)
	}
	fn := int32(-1)
	if funcName != "" {
		if fn = int32(bm.FuncIndex(funcName)); fn < 0 {
			return fmt.Errorf("jit: table entry %d: the module has no function %q", idx, funcName)
		}
	}
	if !i.busy.CompareAndSwap(false, true) {
		return ErrBusy
	}
	defer i.busy.Store(false)
	if err := i.machine.SetTableEntry(uint64(idx), fn); err != nil {
		return fmt.Errorf("jit: %w", err)
	}
	if i.table == nil {
		// The first change: the instance gets its own packed table, which
		// the module's padded one (mir.TableLength) starts it with.
		i.table = mir.TableEntries(bm)
		if i.compiled != nil {
			i.compiled.setTable(i.table)
		}
		if i.auto != nil && i.auto.target != nil {
			// A tier-up's code that on-stack replacement already runs,
			// and the next call switches to.
			i.auto.target.setTable(i.table)
		}
	}
	e := mir.NullTableEntry
	if fn >= 0 {
		e = mir.TableEntry(i.module.prog.SignatureID(int(fn)), uint32(fn))
	}
	i.table[idx] = e
	return nil
}

// GlobalImports lists the globals the module imports.
func (m *Module) GlobalImports() []bytecode.Global {
	var out []bytecode.Global
	for _, g := range m.prog.Module.Globals {
		if g.Import != "" {
			out = append(out, g)
		}
	}
	return out
}

// isGlobalImport reports whether m imports a global under name.
func isGlobalImport(m *bytecode.Module, name string) bool {
	for k := range m.Globals {
		if m.Globals[k].Import == name {
			return true
		}
	}
	return false
}
