package wasm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/kiln-jit/kiln/jit"
	wbin "github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/wasi"
)

// Module is an instance of a compiled module: its memory, globals and
// exported functions. An instance runs one call at a time (a call made
// while another goroutine's call runs on it fails with jit.ErrBusy);
// separate instances run in parallel.
type Module struct {
	rt       *Runtime
	name     string
	compiled *CompiledModule
	inst     *link.Instance
	sys      *wasi.System // nil without WASI
	closed   atomic.Bool
}

// Name returns the name the instance was made with (ModuleConfig.WithName),
// "" for an anonymous one.
func (m *Module) Name() string { return m.name }

// CompiledModule returns the compiled module m is an instance of.
func (m *Module) CompiledModule() *CompiledModule { return m.compiled }

// Kiln returns the underlying kiln instance, for its statistics, tier
// and compile costs (package jit).
func (m *Module) Kiln() *jit.Instance { return m.inst.Kiln }

// check returns an error once m is closed.
func (m *Module) check() error {
	if m.closed.Load() {
		return fmt.Errorf("module%s %w", quoteName(m.name), errClosed)
	}
	return nil
}

// ExportedFunction returns the exported function name, or nil when m
// exports no function of that name.
func (m *Module) ExportedFunction(name string) *Function {
	e, ok := m.compiled.module.Export(name)
	if !ok || e.Kind != wbin.ExternFunc {
		return nil
	}
	f, err := m.inst.Kiln.Func(e.Key)
	if err != nil {
		return nil
	}
	return &Function{m: m, name: name, typ: e.Func, f: f}
}

// Memory returns the instance's memory (defined or imported), or nil
// when it has none.
func (m *Module) Memory() *Memory {
	if !m.compiled.module.HasMemory {
		return nil
	}
	return &Memory{acc: m.inst.Kiln, check: m.check}
}

// ExportedMemory returns the memory exported as name, or nil when m
// exports no memory of that name.
func (m *Module) ExportedMemory(name string) *Memory {
	e, ok := m.compiled.module.Export(name)
	if !ok || e.Kind != wbin.ExternMemory {
		return nil
	}
	return m.Memory()
}

// ExportedGlobal returns the global exported as name, or nil when m
// exports no global of that name.
func (m *Module) ExportedGlobal(name string) *Global {
	e, ok := m.compiled.module.Export(name)
	if !ok || e.Kind != wbin.ExternGlobal {
		return nil
	}
	return &Global{m: m, name: name, typ: e.Global}
}

// Close closes the instance: calling its functions or using its memory
// afterwards is an error, and other modules can no longer import from
// it. It closes the files its WASI program left open. Closing again does
// nothing.
func (m *Module) Close(context.Context) error {
	if m.closed.Swap(true) {
		return nil
	}
	m.rt.release(m)
	return nil
}

// Function is an exported function of an instance.
type Function struct {
	m    *Module
	name string
	typ  FunctionType
	f    *jit.Function
}

// Name returns the export name.
func (f *Function) Name() string { return f.name }

// Type returns the function's type.
func (f *Function) Type() FunctionType { return f.typ }

// Call calls the function with params, one per parameter, and returns its
// results. Values are passed as uint64: i32 as its 32 bits zero-extended
// (uint64(uint32(x))), i64 as its two's-complement bits, f32 and f64 as
// their IEEE-754 bits (math.Float32bits, math.Float64bits; package jit's
// I32, I64, F32 and F64 convert too). Cancelling ctx stops the call at
// the next backward branch or call it makes, with an error; a trap is
// an error that names the specification's message, the function and the
// byte offset in the module of the instruction that trapped (errors.As
// finds the *bytecode.Trap), and a WASI program's exit an error wrapping
// an *ExitError.
func (f *Function) Call(ctx context.Context, params ...uint64) ([]uint64, error) {
	if err := f.m.check(); err != nil {
		return nil, fmt.Errorf("wasm: call %q: %w", f.name, err)
	}
	if len(params) != len(f.typ.Params) {
		return nil, fmt.Errorf("wasm: call %q: the function %s takes %d parameters, got %d", f.name, f.typ, len(f.typ.Params), len(params))
	}
	results, err := f.f.Call(ctx, params...)
	if err != nil {
		return nil, fmt.Errorf("wasm: call %q: %w", f.name, describe(f.m.compiled.module, err))
	}
	return results, nil
}

// memAccess is what a Memory reads and writes: an instance, or the
// instance calling a host function.
type memAccess interface {
	Memory() []byte
	ReadMemory(offset, n uint64) ([]byte, error)
	WriteMemory(offset uint64, data []byte) error
}

// Memory is an instance's linear memory. Its methods must not be used
// while a call runs on the instance from another goroutine (a host
// function uses its Caller's Memory instead).
type Memory struct {
	acc   memAccess
	check func() error
}

var errNoMemory = errors.New("wasm: memory: the instance is gone")

func (mem *Memory) ok() error {
	if mem == nil || mem.acc == nil {
		return errNoMemory
	}
	if mem.check != nil {
		if err := mem.check(); err != nil {
			return fmt.Errorf("wasm: memory: %w", err)
		}
	}
	return nil
}

// Size returns the memory's size in bytes (0 once its instance is closed).
func (mem *Memory) Size() uint64 {
	if mem.ok() != nil {
		return 0
	}
	return uint64(len(mem.acc.Memory()))
}

// Pages returns the memory's size in 64 KiB pages.
func (mem *Memory) Pages() uint64 { return mem.Size() / 65536 }

// Read returns a copy of n bytes at offset.
func (mem *Memory) Read(offset, n uint64) ([]byte, error) {
	if err := mem.ok(); err != nil {
		return nil, err
	}
	b, err := mem.acc.ReadMemory(offset, n)
	if err != nil {
		return nil, fmt.Errorf("wasm: memory: %w", err)
	}
	return b, nil
}

// Write copies data into the memory at offset.
func (mem *Memory) Write(offset uint64, data []byte) error {
	if err := mem.ok(); err != nil {
		return err
	}
	if err := mem.acc.WriteMemory(offset, data); err != nil {
		return fmt.Errorf("wasm: memory: %w", err)
	}
	return nil
}

// ReadUint32Le reads the little-endian uint32 at offset, as WebAssembly
// stores an i32.
func (mem *Memory) ReadUint32Le(offset uint64) (uint32, error) {
	b, err := mem.Read(offset, 4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// ReadUint64Le reads the little-endian uint64 at offset.
func (mem *Memory) ReadUint64Le(offset uint64) (uint64, error) {
	b, err := mem.Read(offset, 8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// WriteUint32Le writes v little-endian at offset.
func (mem *Memory) WriteUint32Le(offset uint64, v uint32) error {
	return mem.Write(offset, binary.LittleEndian.AppendUint32(nil, v))
}

// WriteUint64Le writes v little-endian at offset.
func (mem *Memory) WriteUint64Le(offset uint64, v uint64) error {
	return mem.Write(offset, binary.LittleEndian.AppendUint64(nil, v))
}

// Global is an exported global of an instance.
type Global struct {
	m    *Module
	name string
	typ  GlobalType
}

// Type returns the global's type.
func (g *Global) Type() GlobalType { return g.typ }

// Get returns the global's current value, in the representation of
// Function.Call's values.
func (g *Global) Get() (uint64, error) {
	if err := g.m.check(); err != nil {
		return 0, fmt.Errorf("wasm: global %q: %w", g.name, err)
	}
	v, err := g.m.inst.Global(g.name)
	if err != nil {
		return 0, fmt.Errorf("wasm: global %q: %w", g.name, err)
	}
	return v, nil
}
