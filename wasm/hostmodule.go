package wasm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/link"
)

// Caller is what a host function sees of the instance that called it: the
// call's context and the instance's memory. It is valid only during the
// host call.
type Caller struct {
	c *jit.Caller
}

// Context returns the context of the call from Go that led to this host
// call.
func (c *Caller) Context() context.Context { return c.c.Context() }

// Memory returns the calling instance's memory (of size 0 when it has
// none).
func (c *Caller) Memory() *Memory { return &Memory{acc: c.c} }

// RawFunc is a host function over values in the representation of
// Function.Call: args holds one value per parameter, and the function
// stores one per result in results.
type RawFunc func(c *Caller, args, results []uint64) error

// HostModuleBuilder defines a host module: functions written in Go (and
// memories) that modules import under its name. Build it with
// NewFunctionBuilder and ExportMemory, then Instantiate it.
type HostModuleBuilder struct {
	rt      *Runtime
	name    string
	externs map[string]link.Extern
	order   []string
	err     error
}

// NewHostModuleBuilder starts a host module that modules import from as
// name (the first part of their imports' names, such as "env").
func (r *Runtime) NewHostModuleBuilder(name string) *HostModuleBuilder {
	return &HostModuleBuilder{rt: r, name: name, externs: map[string]link.Extern{}}
}

// HostFunctionBuilder defines one function of a host module: WithFunc or
// WithRawFunc gives its code, Export its name.
type HostFunctionBuilder struct {
	b   *HostModuleBuilder
	fn  *link.Func
	err error
}

// NewFunctionBuilder starts a function of the host module.
func (b *HostModuleBuilder) NewFunctionBuilder() *HostFunctionBuilder {
	return &HostFunctionBuilder{b: b}
}

// WithFunc makes fn, a Go function, the host function. Its parameters and
// results are numbers of the WebAssembly types by their kind: int32 and
// uint32 for i32, int64 and uint64 for i64, float32 for f32, float64 for
// f64. It may take a context.Context (the call's) or a *Caller as its
// first parameter, and may return an error as its last result, which
// ends the guest's call with a trap wrapping it. For example:
//
//	func(a, b int32) int32
//	func(ctx context.Context, x float64) (float64, error)
//	func(c *wasm.Caller, ptr, n uint32) error
func (f *HostFunctionBuilder) WithFunc(fn any) *HostFunctionBuilder {
	f.fn, f.err = reflectFunc(fn)
	return f
}

// WithRawFunc makes fn the host function, of the given parameter and
// result types.
func (f *HostFunctionBuilder) WithRawFunc(fn RawFunc, params, results []ValueType) *HostFunctionBuilder {
	f.fn, f.err = nil, nil
	if fn == nil {
		f.err = errors.New("nil function")
		return f
	}
	for _, t := range slices.Concat(params, results) {
		if !numeric(t) {
			f.err = fmt.Errorf("value type %s: kiln's host functions take numbers only (i32, i64, f32, f64)", t)
			return f
		}
	}
	f.fn = &link.Func{
		Type: FunctionType{Params: slices.Clone(params), Results: slices.Clone(results)},
		Fn: func(c *jit.Caller, args, res []uint64) error {
			return fn(&Caller{c}, args, res)
		},
	}
	return f
}

func numeric(t ValueType) bool {
	return t == ValueTypeI32 || t == ValueTypeI64 || t == ValueTypeF32 || t == ValueTypeF64
}

// Export adds the function to the host module under name and returns the
// module's builder. An error in the function's definition is reported by
// Instantiate.
func (f *HostFunctionBuilder) Export(name string) *HostModuleBuilder {
	b := f.b
	switch {
	case f.err != nil:
		b.fail(fmt.Errorf("function %q: %w", name, f.err))
	case f.fn == nil:
		b.fail(fmt.Errorf("function %q: no code: call WithFunc or WithRawFunc", name))
	default:
		b.add(name, f.fn)
	}
	return b
}

// ExportMemory adds a memory of the given limits (in 64 KiB pages) under
// name, for modules that import their memory, such as a C program linked
// with --import-memory. Every instance that imports it shares it. The
// runtime's RuntimeConfig.Engine.MaxMemoryPages caps its maximum.
func (b *HostModuleBuilder) ExportMemory(name string, limits Limits) *HostModuleBuilder {
	if maxPages := b.rt.cfg.Engine.MaxMemoryPages; maxPages > 0 && (!limits.HasMax || limits.Max > maxPages) && limits.Min <= maxPages {
		limits.Max, limits.HasMax = maxPages, true
	}
	mem, err := link.NewMemory(limits)
	if err != nil {
		b.fail(fmt.Errorf("memory %q: %w", name, err))
		return b
	}
	b.add(name, mem)
	return b
}

func (b *HostModuleBuilder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *HostModuleBuilder) add(name string, x link.Extern) {
	if _, ok := b.externs[name]; ok {
		b.fail(fmt.Errorf("%q is exported twice", name))
		return
	}
	b.externs[name] = x
	b.order = append(b.order, name)
}

// Instantiate adds the host module to the runtime, for the modules
// instantiated afterwards to import from. Its name must not be taken by
// another host module or a named instance.
func (b *HostModuleBuilder) Instantiate(ctx context.Context) (*HostModule, error) {
	if b.err != nil {
		return nil, fmt.Errorf("wasm: host module %q: %w", b.name, b.err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("wasm: host module %q: %w", b.name, err)
	}
	h := &HostModule{rt: b.rt, name: b.name, externs: b.externs, order: b.order}
	r := b.rt
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return nil, fmt.Errorf("wasm: host module %q: runtime %w", b.name, errClosed)
	case b.name == "":
		return nil, errors.New("wasm: host module: the name is empty")
	case r.hosts[b.name] != nil:
		return nil, fmt.Errorf("wasm: host module %q: a host module of that name exists", b.name)
	}
	if _, ok := r.named[b.name]; ok {
		return nil, fmt.Errorf("wasm: host module %q: an instance of that name exists", b.name)
	}
	r.hosts[b.name] = h
	// The builder may go on: what it adds from now on is not h's.
	b.externs, b.order = map[string]link.Extern{}, nil
	return h, nil
}

// HostModule is a host module added to a runtime.
type HostModule struct {
	rt      *Runtime
	name    string
	externs map[string]link.Extern
	order   []string
	closed  atomic.Bool
}

// Name returns the name modules import the host module by.
func (h *HostModule) Name() string { return h.name }

// exportList lists what the host module exports, quoted.
func (h *HostModule) exportList() string {
	names := make([]string, len(h.order))
	for i, n := range h.order {
		names[i] = strconv.Quote(n)
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

// Close removes the host module from the runtime: modules instantiated
// afterwards cannot import from it, and those that did go on working.
// Closing again does nothing.
func (h *HostModule) Close(context.Context) error {
	if h.closed.Swap(true) {
		return nil
	}
	h.rt.mu.Lock()
	defer h.rt.mu.Unlock()
	if h.rt.hosts[h.name] == h {
		delete(h.rt.hosts, h.name)
	}
	return nil
}

var (
	contextType = reflect.TypeFor[context.Context]()
	callerType  = reflect.TypeFor[*Caller]()
	errorType   = reflect.TypeFor[error]()
)

// valueType returns the WebAssembly type of a Go parameter or result.
func valueType(t reflect.Type) (ValueType, bool) {
	switch t.Kind() {
	case reflect.Int32, reflect.Uint32:
		return ValueTypeI32, true
	case reflect.Int64, reflect.Uint64:
		return ValueTypeI64, true
	case reflect.Float32:
		return ValueTypeF32, true
	case reflect.Float64:
		return ValueTypeF64, true
	}
	return 0, false
}

// fromBits makes a Go value of type t from a value in the API
// representation.
func fromBits(t reflect.Type, v uint64) reflect.Value {
	x := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Int32:
		x.SetInt(int64(int32(uint32(v))))
	case reflect.Uint32:
		x.SetUint(uint64(uint32(v)))
	case reflect.Int64:
		x.SetInt(int64(v))
	case reflect.Uint64:
		x.SetUint(v)
	case reflect.Float32:
		x.SetFloat(float64(math.Float32frombits(uint32(v))))
	case reflect.Float64:
		x.SetFloat(math.Float64frombits(v))
	}
	return x
}

// toBits returns a Go value in the API representation.
func toBits(x reflect.Value) uint64 {
	switch x.Kind() {
	case reflect.Int32:
		return uint64(uint32(int32(x.Int())))
	case reflect.Uint32:
		return uint64(uint32(x.Uint()))
	case reflect.Int64:
		return uint64(x.Int())
	case reflect.Uint64:
		return x.Uint()
	case reflect.Float32:
		return uint64(math.Float32bits(float32(x.Float())))
	case reflect.Float64:
		return math.Float64bits(x.Float())
	}
	return 0
}

// reflectFunc makes a host function of a Go function (see WithFunc).
func reflectFunc(fn any) (*link.Func, error) {
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.Kind() != reflect.Func || v.IsNil() {
		return nil, fmt.Errorf("%T is not a function", fn)
	}
	t := v.Type()
	if t.IsVariadic() {
		return nil, fmt.Errorf("%v: a variadic function cannot be a host function", t)
	}
	first, withCtx, withCaller := 0, false, false
	if t.NumIn() > 0 {
		switch t.In(0) {
		case contextType:
			first, withCtx = 1, true
		case callerType:
			first, withCaller = 1, true
		}
	}
	var ft FunctionType
	var params []reflect.Type
	for i := first; i < t.NumIn(); i++ {
		vt, ok := valueType(t.In(i))
		if !ok {
			return nil, fmt.Errorf("%v: parameter %d is a %v; host functions take int32, uint32, int64, uint64, float32 and float64 (and a context.Context or *wasm.Caller first)", t, i+1, t.In(i))
		}
		ft.Params = append(ft.Params, vt)
		params = append(params, t.In(i))
	}
	nOut, withErr := t.NumOut(), false
	if nOut > 0 && t.Out(nOut-1) == errorType {
		nOut, withErr = nOut-1, true
	}
	for i := 0; i < nOut; i++ {
		vt, ok := valueType(t.Out(i))
		if !ok {
			return nil, fmt.Errorf("%v: result %d is a %v; host functions return int32, uint32, int64, uint64, float32 and float64 (and an error last)", t, i+1, t.Out(i))
		}
		ft.Results = append(ft.Results, vt)
	}
	call := func(c *jit.Caller, args, results []uint64) error {
		in := make([]reflect.Value, 0, t.NumIn())
		switch {
		case withCtx:
			ctx := c.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			in = append(in, reflect.ValueOf(&ctx).Elem())
		case withCaller:
			in = append(in, reflect.ValueOf(&Caller{c}))
		}
		for i, p := range params {
			in = append(in, fromBits(p, args[i]))
		}
		out := v.Call(in)
		if withErr {
			if e := out[nOut]; !e.IsNil() {
				return e.Interface().(error)
			}
		}
		for i := range nOut {
			results[i] = toBits(out[i])
		}
		return nil
	}
	return &link.Func{Type: ft, Fn: call}, nil
}
