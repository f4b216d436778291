// # Host functions that panic
//
// A panic in a host function does not escape the call that ran the host
// function: the call recovers it and ends with a *bytecode.Trap of kind
// bytecode.TrapHostPanic naming the guest function and the bytecode offset
// of its call_host instruction, the same in every tier. The trap's Cause
// is a *HostPanicError holding the panic value and the stack of the
// panicking goroutine (errors.As reaches it; when the value is an error,
// errors.Is and errors.As reach that too). When calls nest (host function,
// Caller.Call, guest, host function), the innermost call is the one that
// ends that way, and the host function that made it gets the trap as the
// error of Caller.Call. Recovering costs host calls nothing: every call
// has one deferred function, which restores the instance and recovers
// panics.
//
// Options.RepanicHostPanics opts out: the panic is not recovered but
// propagates, with its original value and stack, through the calls it is
// nested in to the caller of Call (or Function.Call, CallInto).
//
// Either way the instance is restored on the way out: fuel, call depth,
// the busy flag, the Caller nesting, the interpreter's frames and the
// compiled code's machine stack and context are as before the call, so
// the next call behaves like a call on a fresh instance. Memory and edge
// counters keep what the call did before the panic, as they do after any
// trap. A host function that calls runtime.Goexit unwinds the call the
// same way: its goroutine exits, and the instance is left ready for calls
// from other goroutines.
//
// Errors of nested calls chain: a host function that returns the error of
// its Caller.Call makes the outer call trap with TrapHostError wrapping
// the nested trap. bytecode.Trap's Error names the outermost and the
// innermost trap and the nesting depth, however deep the chain;
// Trap.Innermost returns the innermost trap.
package jit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"

	"github.com/kiln-jit/kiln/bytecode"
)

// HostFunction is a Go function a module can import. Build one with Host
// (from a plain Go func) or RawHost (working on raw values).
type HostFunction struct {
	sig bytecode.Signature
	fn  RawHostFunc
}

// Signature returns the bytecode signature of the host function.
func (h HostFunction) Signature() bytecode.Signature { return h.sig }

// RawHostFunc is the low-level form of a host function: it reads args and
// writes results (f64 values as bits). c gives access to the calling
// instance. A non-nil error stops the call with a HostError trap wrapping
// it; a panic stops it with a HostPanic trap (see HostPanicError).
type RawHostFunc func(c *Caller, args, results []uint64) error

// RawHost returns a host function with the given signature that works on
// raw values. It is the fastest form: no reflection and no allocation per
// call.
func RawHost(params, results []bytecode.Type, fn RawHostFunc) HostFunction {
	return HostFunction{sig: bytecode.Signature{Params: params, Results: results}, fn: fn}
}

// Caller is what a host function sees of the instance that called it: its
// memory, and re-entrant calls into it. It is valid only during the host
// call.
type Caller struct {
	inst *Instance
	ctx  context.Context
}

// Context returns the context of the running call.
func (c *Caller) Context() context.Context { return c.ctx }

// Memory returns the instance's linear memory. The slice is valid until the
// memory grows (memory.grow in bytecode or a nested call that grows it).
func (c *Caller) Memory() []byte { return c.inst.mem.Bytes }

// ReadMemory copies n bytes at offset out of the instance's memory.
func (c *Caller) ReadMemory(offset, n uint64) ([]byte, error) { return c.inst.ReadMemory(offset, n) }

// WriteMemory copies data into the instance's memory at offset.
func (c *Caller) WriteMemory(offset uint64, data []byte) error {
	return c.inst.WriteMemory(offset, data)
}

// Call calls an exported function of the instance from inside a host
// function (a nested call, sharing the outer call's limits and fuel). A
// trap in the nested call, a HostPanic trap for a host function that
// panicked in it included, is its error; returning that error from the
// host function makes the outer call trap with a HostError wrapping it.
func (c *Caller) Call(name string, args ...uint64) ([]uint64, error) {
	f, err := c.inst.Func(name)
	if err != nil {
		return nil, err
	}
	results := make([]uint64, len(f.sig.Results))
	if err := c.inst.callNested(c.ctx, f.index, args, results); err != nil {
		return nil, err
	}
	return results, nil
}

var (
	callerType = reflect.TypeFor[*Caller]()
	ctxType    = reflect.TypeFor[context.Context]()
	errorType  = reflect.TypeFor[error]()
)

// Host wraps a plain Go function as a host function. Its parameters and
// results may be int64, uint64 (both i64) and float64 (f64); it may take a
// *Caller or a context.Context as its first parameter, and may return an
// error as its last result. For example:
//
//	func(x int64) int64
//	func(c *jit.Caller, ptr, n int64) error
//	func(ctx context.Context, x float64) (float64, int64)
//
// Common shapes are called without reflection.
func Host(fn any) (HostFunction, error) {
	if fn == nil {
		return HostFunction{}, errors.New("jit: host: nil function")
	}
	if h, ok := fastHost(fn); ok {
		return h, nil
	}
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func {
		return HostFunction{}, fmt.Errorf("jit: host: %T is not a function", fn)
	}
	if t.IsVariadic() {
		return HostFunction{}, fmt.Errorf("jit: host: %T is variadic", fn)
	}
	first := 0
	passCaller, passCtx := false, false
	if t.NumIn() > 0 {
		switch t.In(0) {
		case callerType:
			passCaller, first = true, 1
		case ctxType:
			passCtx, first = true, 1
		}
	}
	var sig bytecode.Signature
	for i := first; i < t.NumIn(); i++ {
		bt, err := goToType(t.In(i))
		if err != nil {
			return HostFunction{}, fmt.Errorf("jit: host: parameter %d of %T: %w", i, fn, err)
		}
		sig.Params = append(sig.Params, bt)
	}
	nout := t.NumOut()
	returnsErr := nout > 0 && t.Out(nout-1) == errorType
	if returnsErr {
		nout--
	}
	for i := 0; i < nout; i++ {
		bt, err := goToType(t.Out(i))
		if err != nil {
			return HostFunction{}, fmt.Errorf("jit: host: result %d of %T: %w", i, fn, err)
		}
		sig.Results = append(sig.Results, bt)
	}
	inTypes := make([]reflect.Type, t.NumIn())
	for i := range inTypes {
		inTypes[i] = t.In(i)
	}
	raw := func(c *Caller, args, results []uint64) error {
		in := make([]reflect.Value, len(inTypes))
		switch {
		case passCaller:
			in[0] = reflect.ValueOf(c)
		case passCtx:
			in[0] = reflect.ValueOf(c.ctx)
		}
		for i, a := range args {
			in[first+i] = fromRaw(inTypes[first+i], a)
		}
		out := v.Call(in)
		if returnsErr {
			if e := out[len(out)-1]; !e.IsNil() {
				return e.Interface().(error)
			}
		}
		for i := range results {
			results[i] = toRaw(out[i])
		}
		return nil
	}
	return HostFunction{sig: sig, fn: raw}, nil
}

// MustHost is Host that panics on error, for use with function literals
// whose shape is known to be valid.
func MustHost(fn any) HostFunction {
	h, err := Host(fn)
	if err != nil {
		panic(err)
	}
	return h
}

func goToType(t reflect.Type) (bytecode.Type, error) {
	switch t.Kind() {
	case reflect.Int64, reflect.Uint64:
		return bytecode.I64, nil
	case reflect.Float64:
		return bytecode.F64, nil
	}
	return 0, fmt.Errorf("type %s is not int64, uint64 or float64", t)
}

func fromRaw(t reflect.Type, v uint64) reflect.Value {
	switch t.Kind() {
	case reflect.Int64:
		return reflect.ValueOf(int64(v)).Convert(t)
	case reflect.Uint64:
		return reflect.ValueOf(v).Convert(t)
	}
	return reflect.ValueOf(math.Float64frombits(v)).Convert(t)
}

func toRaw(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Int64:
		return uint64(v.Int())
	case reflect.Uint64:
		return v.Uint()
	}
	return math.Float64bits(v.Float())
}

var (
	sigI64    = []bytecode.Type{bytecode.I64}
	sigF64    = []bytecode.Type{bytecode.F64}
	sigI64I64 = []bytecode.Type{bytecode.I64, bytecode.I64}
)

// fastHost wraps the most common host function shapes without reflection.
func fastHost(fn any) (HostFunction, bool) {
	switch f := fn.(type) {
	case func():
		return RawHost(nil, nil, func(*Caller, []uint64, []uint64) error { f(); return nil }), true
	case func(int64):
		return RawHost(sigI64, nil, func(_ *Caller, a, _ []uint64) error { f(int64(a[0])); return nil }), true
	case func() int64:
		return RawHost(nil, sigI64, func(_ *Caller, _, r []uint64) error { r[0] = uint64(f()); return nil }), true
	case func(int64) int64:
		return RawHost(sigI64, sigI64, func(_ *Caller, a, r []uint64) error { r[0] = uint64(f(int64(a[0]))); return nil }), true
	case func(int64, int64) int64:
		return RawHost(sigI64I64, sigI64, func(_ *Caller, a, r []uint64) error {
			r[0] = uint64(f(int64(a[0]), int64(a[1])))
			return nil
		}), true
	case func(int64) error:
		return RawHost(sigI64, nil, func(_ *Caller, a, _ []uint64) error { return f(int64(a[0])) }), true
	case func() (int64, error):
		return RawHost(nil, sigI64, func(_ *Caller, _, r []uint64) error {
			v, err := f()
			r[0] = uint64(v)
			return err
		}), true
	case func(float64) float64:
		return RawHost(sigF64, sigF64, func(_ *Caller, a, r []uint64) error {
			r[0] = math.Float64bits(f(math.Float64frombits(a[0])))
			return nil
		}), true
	case func(float64):
		return RawHost(sigF64, nil, func(_ *Caller, a, _ []uint64) error { f(math.Float64frombits(a[0])); return nil }), true
	case func(*Caller, int64, int64) error:
		return RawHost(sigI64I64, nil, func(c *Caller, a, _ []uint64) error { return f(c, int64(a[0]), int64(a[1])) }), true
	}
	return HostFunction{}, false
}

// Imports maps import names to what the embedder supplies for them: a
// HostFunction for each host import, a GlobalImport for each imported
// global, a TableImport for an imported table and a MemoryImport for an
// imported memory.
type Imports map[string]Import

// Import is a value an embedder supplies for one of a module's imports:
// a HostFunction, a GlobalImport, a TableImport or a MemoryImport.
type Import interface {
	// importKind names the kind of import ("host function", "global").
	importKind() string
}

func (HostFunction) importKind() string { return "host function" }

// HostPanicError is the cause of a bytecode.TrapHostPanic trap: a host
// function panicked, and the call that ran it recovered the panic (see
// the package documentation). Reach it with errors.As:
//
//	var hp *jit.HostPanicError
//	if errors.As(err, &hp) {
//		log.Printf("%v\n%s", hp.Value, hp.Stack())
//	}
type HostPanicError struct {
	// Host is the name of the host import that panicked.
	Host string
	// Value is the value the host function panicked with (a runtime.Error
	// for a run-time panic such as a nil dereference, a
	// *runtime.PanicNilError for panic(nil)).
	Value any
	// pcs are the return addresses of the panicking goroutine's innermost
	// frames, as runtime.Callers gives them.
	pcs []uintptr
}

// maxPanicFrames bounds the frames a HostPanicError records.
const maxPanicFrames = 64

// newHostPanicError describes the panic of host import name with value v.
// The tiers call it (as interp.Config.RecoverHostPanic) from the deferred
// function that recovers the panic, while the panicking frames are still
// on the stack.
func newHostPanicError(name string, v any) error {
	var pcs [maxPanicFrames]uintptr
	// Skip runtime.Callers and this function; the recovering frames and
	// the runtime's panic frames are dropped when the stack is formatted.
	n := runtime.Callers(2, pcs[:])
	return &HostPanicError{Host: name, Value: v, pcs: append([]uintptr(nil), pcs[:n]...)}
}

// Error describes the panic: "panic in host function NAME: VALUE".
func (e *HostPanicError) Error() string {
	return fmt.Sprintf("panic in host function %q: %v", e.Host, e.Value)
}

// Unwrap returns Value when it is an error (a host function that panics
// with an error value, or a run-time error), so that errors.Is and
// errors.As reach it; nil otherwise.
func (e *HostPanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Stack returns the stack of the panicking goroutine at the panic, one
// frame per two lines ("function" then "\tfile:line") like a Go
// traceback, innermost first, starting at the function that panicked.
// Only the return addresses of the innermost 64 frames (the recovering
// frames among them, which Stack leaves out) are captured when the panic
// is recovered, with runtime.Callers and without symbolizing them, so
// recovering stays cheap however deep the stack is; Stack symbolizes and
// formats them when it is called.
func (e *HostPanicError) Stack() string {
	var frames []runtime.Frame
	it := runtime.CallersFrames(e.pcs)
	for {
		f, more := it.Next()
		if f.Function != "" || f.File != "" {
			frames = append(frames, f)
		}
		if !more {
			break
		}
	}
	// Drop the recovering frames and the runtime's panic machinery
	// (runtime.gopanic, and the run-time error helpers that called it,
	// such as runtime.panicmem and runtime.sigpanic), which a Go
	// traceback does not show either.
	for k, f := range frames {
		if f.Function == "runtime.gopanic" {
			frames = frames[k+1:]
			break
		}
	}
	for len(frames) > 1 && strings.HasPrefix(frames[0].Function, "runtime.") {
		frames = frames[1:]
	}
	var b strings.Builder
	for _, f := range frames {
		fmt.Fprintf(&b, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
	}
	return b.String()
}
