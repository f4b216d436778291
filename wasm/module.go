package wasm

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/translate"
	"github.com/kiln-jit/kiln/wasm/wasi"
)

// ValueType is a WebAssembly value type: ValueTypeI32, ValueTypeI64,
// ValueTypeF32 or ValueTypeF64 (the ones kiln supports).
type ValueType = binary.ValType

// The value types of parameters and results.
const (
	ValueTypeI32 = binary.I32
	ValueTypeI64 = binary.I64
	ValueTypeF32 = binary.F32
	ValueTypeF64 = binary.F64
)

// FunctionType is a function's parameter and result types; its String
// method writes it as "[i32 i64] -> [f64]".
type FunctionType = binary.FuncType

// GlobalType is a global's value type and mutability.
type GlobalType = binary.GlobalType

// Limits bound a memory's size in 64 KiB pages (or a table's in entries).
type Limits = binary.Limits

// ExternKind says what an import or export is: ExternFunc, ExternTable,
// ExternMemory or ExternGlobal.
type ExternKind = binary.ExternKind

// The kinds of imports and exports.
const (
	ExternFunc   = binary.ExternFunc
	ExternTable  = binary.ExternTable
	ExternMemory = binary.ExternMemory
	ExternGlobal = binary.ExternGlobal
)

// ImportDefinition describes one import of a module.
type ImportDefinition struct {
	// Module and Name are the import's two-level name.
	Module, Name string
	Kind         ExternKind
	// Func is the type of an imported function, Global of a global, and
	// Limits the size of a memory or a table.
	Func   FunctionType
	Global GlobalType
	Limits Limits
}

// ExportDefinition describes one export of a module.
type ExportDefinition struct {
	Name string
	Kind ExternKind
	// Func is the type of an exported function, Global of a global.
	Func   FunctionType
	Global GlobalType
}

// CompiledModule is a module decoded, validated and translated once, to
// be instantiated any number of times (Runtime.InstantiateModule). It is
// safe for concurrent use.
type CompiledModule struct {
	rt          *Runtime
	module      *translate.Module
	imports     []ImportDefinition
	exports     []ExportDefinition
	importsWASI bool
	closed      atomic.Bool
}

func newCompiledModule(r *Runtime, tm *translate.Module) *CompiledModule {
	c := &CompiledModule{rt: r, module: tm}
	for _, im := range tm.Imports {
		d := ImportDefinition{Module: im.Module, Name: im.Name, Kind: im.Kind, Func: im.Func, Global: im.Global}
		switch im.Kind {
		case binary.ExternMemory:
			d.Limits = im.Memory
		case binary.ExternTable:
			d.Limits = im.Table.Limits
		}
		c.imports = append(c.imports, d)
		c.importsWASI = c.importsWASI || im.Module == wasi.ModuleName
	}
	for _, e := range tm.Exports {
		c.exports = append(c.exports, ExportDefinition{Name: e.Name, Kind: e.Kind, Func: e.Func, Global: e.Global})
	}
	return c
}

// Imports lists the module's imports in order.
func (c *CompiledModule) Imports() []ImportDefinition {
	return append([]ImportDefinition(nil), c.imports...)
}

// Exports lists the module's exports in order.
func (c *CompiledModule) Exports() []ExportDefinition {
	return append([]ExportDefinition(nil), c.exports...)
}

// ExportedFunction returns the type of the exported function name, and
// whether the module exports a function of that name.
func (c *CompiledModule) ExportedFunction(name string) (FunctionType, bool) {
	e, ok := c.module.Export(name)
	if !ok || e.Kind != binary.ExternFunc {
		return FunctionType{}, false
	}
	return e.Func, true
}

// ExportedFunctionList lists the names of the exported functions, quoted
// and separated by commas ("none" when there are none), for messages that
// tell which functions a module has.
func (c *CompiledModule) ExportedFunctionList() string {
	var names []string
	for _, e := range c.exports {
		if e.Kind == binary.ExternFunc {
			names = append(names, strconv.Quote(e.Name))
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Close releases the compiled module: instantiating it afterwards is an
// error, and the instances made from it go on working. Closing again
// does nothing.
func (c *CompiledModule) Close(context.Context) error {
	if c.closed.Swap(true) {
		return nil
	}
	c.rt.mu.Lock()
	delete(c.rt.compiled, c)
	c.rt.mu.Unlock()
	return nil
}
