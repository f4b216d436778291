// Package link instantiates translated WebAssembly modules on kiln: it
// resolves a module's imports (host functions written in Go, the exports
// of other instances, global values) with the types Wasm requires,
// evaluates the constant expressions that read imported globals, checks
// that the element and data segments fit, loads the kiln module into an
// engine, runs the start function, and calls exports with Wasm's types.
package link

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// Extern is what an import resolves to: a *Func, a *Global, a *Table or
// a *Memory.
type Extern interface {
	kind() binary.ExternKind
}

// Func is a function a module can import: its Wasm type and its code,
// which works on values in the API representation of package jit (32-bit
// values zero-extended, floats as their bits).
type Func struct {
	Type binary.FuncType
	Fn   jit.RawHostFunc

	// owner and name identify a function an instance exports: its kiln
	// function, which the owner's table views call directly.
	owner *Instance
	name  string
}

func (*Func) kind() binary.ExternKind { return binary.ExternFunc }

// Global is the value of a global a module imports. A mutable global is
// shared by the instances that import it: the first to import a *Global
// of a mutable type (or the instance exporting it) keeps its value in a
// cell, starting with Value, and every instance that imports the same
// *Global reads and writes that cell. Value is not updated: read the
// exporting instance's Global instead.
type Global struct {
	Type  binary.GlobalType
	Value uint64

	cell *atomic.Uint64 // the value of a mutable global
}

// sharedCell returns the cell of a mutable global, made on first use.
func (g *Global) sharedCell() *atomic.Uint64 {
	if g.cell == nil {
		g.cell = new(atomic.Uint64)
		g.cell.Store(g.Value)
	}
	return g.cell
}

func (*Global) kind() binary.ExternKind { return binary.ExternGlobal }

// Resolver finds what an import (module name, field name) refers to; ok
// is false when nothing does.
type Resolver func(module, name string) (x Extern, ok bool)

// Imports is a Resolver over a map from module name to field name.
type Imports map[string]map[string]Extern

// Resolve looks the import up in the map.
func (im Imports) Resolve(module, name string) (Extern, bool) {
	x, ok := im[module][name]
	return x, ok
}

// Error reports an import that cannot be satisfied, in the
// specification's words ("unknown import", "incompatible import type").
type Error struct {
	Module, Name string
	Msg          string
}

// Error formats the error with the import's names.
func (e *Error) Error() string {
	return fmt.Sprintf("link: import %q %q: %s", e.Module, e.Name, e.Msg)
}

// Instance is an instantiated module.
type Instance struct {
	Module *translate.Module
	// Kiln is the kiln instance: its memory, globals and statistics.
	Kiln *jit.Instance

	// funcs holds the imported functions by function index; table and
	// memory are the instance's table and memory when other instances
	// may share them; globals holds the cells of its shared mutable
	// globals by global index.
	funcs   []*Func
	table   *Table
	memory  *Memory
	globals map[uint32]*Global
}

// Instantiate links m with the imports resolve finds, loads it into
// engine and runs its start function. A trap in the start function is
// returned as an error wrapping the *bytecode.Trap; what the element and
// data segments wrote into a shared table or memory stays, as
// WebAssembly specifies.
func Instantiate(ctx context.Context, engine *jit.Engine, m *translate.Module, resolve Resolver) (*Instance, error) {
	imports := jit.Imports{}
	i := &Instance{Module: m}
	b := translate.Bindings{}
	var table *Table
	for _, im := range m.Imports {
		var x Extern
		ok := false
		if resolve != nil {
			x, ok = resolve(im.Module, im.Name)
		}
		if !ok || x == nil {
			return nil, &Error{Module: im.Module, Name: im.Name, Msg: "unknown import: nothing provides this " + im.Kind.String()}
		}
		if x.kind() != im.Kind {
			return nil, &Error{Module: im.Module, Name: im.Name, Msg: fmt.Sprintf("incompatible import type: a %s, the module imports a %s", x.kind(), im.Kind)}
		}
		switch x := x.(type) {
		case *Func:
			if !x.Type.Equal(im.Func) {
				return nil, &Error{Module: im.Module, Name: im.Name, Msg: fmt.Sprintf("incompatible import type: function of type %s, the module imports %s", x.Type, im.Func)}
			}
			sig := m.Bytecode().Hosts[im.Index].Sig
			imports[im.Key] = jit.RawHost(sig.Params, sig.Results, x.Fn)
			for len(i.funcs) <= im.Index {
				i.funcs = append(i.funcs, nil)
			}
			i.funcs[im.Index] = x
		case *Global:
			if x.Type != im.Global {
				return nil, &Error{Module: im.Module, Name: im.Name, Msg: fmt.Sprintf("incompatible import type: global of type %s, the module imports %s", globalTypeString(x.Type), globalTypeString(im.Global))}
			}
			if x.Type.Mutable {
				// Shared: read and written through the accessors.
				i.shareGlobal(uint32(im.Index), x)
				b.Globals = append(b.Globals, x.sharedCell().Load())
				break
			}
			v := x.Value
			if x.Type.Type == binary.I32 || x.Type.Type == binary.F32 {
				v = uint64(uint32(v))
			}
			b.Globals = append(b.Globals, v)
			g := m.Bytecode().Globals[im.Index]
			imports[im.Key] = jit.GlobalValue(g.Type, v)
		case *Memory:
			actual := x.limits
			actual.Min = uint32(x.mem.Pages())
			if !limitsMatch(actual, im.Memory) {
				return nil, &Error{Module: im.Module, Name: im.Name, Msg: fmt.Sprintf("incompatible import type: memory of %s pages, the module imports %s", limitsString(actual), limitsString(im.Memory))}
			}
			b.MemoryPages, b.MemoryMaxPages = actual.Min, maxPages(actual)
			imports[im.Key] = x.mem
			i.memory = x
		case *Table:
			if x.unshared {
				return nil, &Error{Module: im.Module, Name: im.Name, Msg: "unsupported: kiln does not share a table whose contents change (table instructions, several tables) with other instances"}
			}
			actual := x.limits
			actual.Min = x.Size()
			if !limitsMatch(actual, im.Table.Limits) {
				return nil, &Error{Module: im.Module, Name: im.Name, Msg: fmt.Sprintf("incompatible import type: table of %s entries, the module imports %s", limitsString(actual), limitsString(im.Table.Limits))}
			}
			b.TableSize = actual.Min
			table = x
		}
	}
	bm, segTrap, err := m.ResolveSegments(b)
	if err != nil {
		return nil, err
	}
	for _, sg := range m.SharedGlobals {
		if sg.Import < 0 {
			i.shareGlobal(sg.Index, &Global{Type: sg.Type, Value: bm.Globals[sg.Index].Init})
		}
		cell := i.globals[sg.Index].sharedCell()
		mask := ^uint64(0)
		if sg.Type.Type == binary.I32 || sg.Type.Type == binary.F32 {
			mask = math.MaxUint32
		}
		ty := bm.Globals[sg.Index].Type
		imports[sg.Get] = jit.RawHost(nil, []bytecode.Type{ty}, func(_ *jit.Caller, _, results []uint64) error {
			results[0] = cell.Load()
			return nil
		})
		imports[sg.Set] = jit.RawHost([]bytecode.Type{ty}, nil, func(_ *jit.Caller, args, _ []uint64) error {
			cell.Store(args[0] & mask)
			return nil
		})
	}
	var elems []bytecode.ElemSegment
	if m.Table != nil {
		elems = bm.Elems
		if table != nil {
			// They go into the shared table, and from it into every view.
			bm.Elems = nil
			imports[bm.Table.Import] = table.view(i)
		}
		stubHosts(imports, m, i)
	}
	mod, err := engine.LoadContext(ctx, bm)
	if err != nil {
		return nil, fmt.Errorf("link: loading the kiln module: %w", err)
	}
	inst, err := mod.Instantiate(imports)
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	i.Kiln = inst
	if m.Table != nil {
		if err := i.shareTable(table, elems); err != nil {
			return nil, err
		}
	}
	if bm.Memory.Export != "" && i.memory == nil {
		mem, err := inst.ExportedMemory()
		if err != nil {
			return nil, fmt.Errorf("link: %w", err)
		}
		i.memory = &Memory{limits: m.MemoryLimits, mem: mem}
	}
	if segTrap != nil {
		// The segments before the one that does not fit are written.
		return nil, fmt.Errorf("link: instantiation: %w", segTrap)
	}
	if m.Start != "" {
		if _, err := inst.Call(ctx, m.Start); err != nil {
			return nil, fmt.Errorf("start function: %w", err)
		}
	}
	return i, nil
}

// shareGlobal makes g the cell of the instance's mutable global idx.
func (i *Instance) shareGlobal(idx uint32, g *Global) {
	if i.globals == nil {
		i.globals = map[uint32]*Global{}
	}
	g.sharedCell()
	i.globals[idx] = g
}

func limitsString(l binary.Limits) string {
	if l.HasMax {
		return fmt.Sprintf("%d..%d", l.Min, l.Max)
	}
	return fmt.Sprintf("%d..", l.Min)
}

func globalTypeString(g binary.GlobalType) string {
	if g.Mutable {
		return "(mut " + g.Type.String() + ")"
	}
	return g.Type.String()
}

// Call calls the exported function name with args (in the API
// representation) and returns its results.
func (i *Instance) Call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	e, ok := i.Module.Export(name)
	if !ok || e.Kind != binary.ExternFunc {
		return nil, fmt.Errorf("no exported function %q", name)
	}
	if len(args) != len(e.Func.Params) {
		return nil, fmt.Errorf("function %q takes %d arguments (%s), got %d", name, len(e.Func.Params), e.Func, len(args))
	}
	return i.Kiln.Call(ctx, e.Key, args...)
}

// Export returns the export name as an Extern that another module can
// import: a *Func that calls into this instance (or the function the
// instance imported, for a re-export), a *Global holding the global's
// current value, or the instance's *Table or *Memory, which the importing
// instance then shares.
func (i *Instance) Export(name string) (Extern, error) {
	e, ok := i.Module.Export(name)
	if !ok {
		return nil, fmt.Errorf("no export %q", name)
	}
	switch e.Kind {
	case binary.ExternFunc:
		if int(e.Index) < len(i.funcs) && i.funcs[e.Index] != nil {
			return i.funcs[e.Index], nil
		}
		f, err := i.Kiln.Func(e.Key)
		if err != nil {
			return nil, err
		}
		return &Func{Type: e.Func, owner: i, name: i.Module.FuncNames[e.Index], Fn: func(c *jit.Caller, args, results []uint64) error {
			return f.CallInto(c.Context(), args, results)
		}}, nil
	case binary.ExternGlobal:
		if g := i.globals[e.Index]; g != nil {
			return g, nil
		}
		v, _, err := i.Kiln.Global(e.Key)
		if err != nil {
			return nil, err
		}
		return &Global{Type: e.Global, Value: v}, nil
	case binary.ExternTable:
		if e.Key == "" {
			// A table whose contents change: it can be named, not shared.
			return &Table{unshared: true}, nil
		}
		if i.table == nil {
			return nil, fmt.Errorf("export %q: internal error: the instance's table is not shared", name)
		}
		return i.table, nil
	case binary.ExternMemory:
		if i.memory == nil {
			return nil, fmt.Errorf("export %q: internal error: the instance's memory is not shared", name)
		}
		return i.memory, nil
	}
	return nil, fmt.Errorf("export %q is a %s", name, e.Kind)
}

// Global returns the value of the exported global name.
func (i *Instance) Global(name string) (uint64, error) {
	e, ok := i.Module.Export(name)
	if !ok || e.Kind != binary.ExternGlobal {
		return 0, fmt.Errorf("no exported global %q", name)
	}
	if g := i.globals[e.Index]; g != nil {
		return g.sharedCell().Load(), nil
	}
	v, _, err := i.Kiln.Global(e.Key)
	return v, err
}
