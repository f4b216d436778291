// Package kernels holds WebAssembly twins of kiln's benchmark kernels (the
// kasm programs of internal/testprogs): the same algorithm with the same
// loop structure, the kasm's value types (i64 and f64 arithmetic where the
// kasm uses them, i32 and f32 where it uses those), and the kasm's memory
// layout, so that wazero runs what kiln runs. The i64 kernels' addresses
// are i64 values wrapped to i32 at each access; the i32 kernels' addresses
// are their i32 values.
//
// mandel, crc32 and mandel32 return two values, which needs WebAssembly
// 2.0's multi-value feature (enabled by default in wazero); the other
// twins are WebAssembly 1.0.
package kernels

import (
	"fmt"
	"maps"
	"slices"

	w "github.com/kiln-jit/kiln/bench/wasm"
)

var builders = map[string]func(m *w.Module){
	"fib":        fib,
	"sieve":      sieve,
	"matmul":     matmul,
	"mandel":     mandel,
	"switchloop": switchloop,
	"crc32":      crc32,
	"sieve32":    sieve32,
	"hash32":     hash32,
	"mandel32":   mandel32,
}

// WithoutTwin lists the kernels of internal/testprogs that have no
// WebAssembly twin, sorted; the peer comparison leaves them out. It is
// empty while every kernel has a twin; a kernel added to internal/testprogs
// before its twin must be listed here (TestTwins checks it).
var WithoutTwin []string

// Names returns the names of the kernels that have a twin, sorted.
func Names() []string { return slices.Sorted(maps.Keys(builders)) }

// Wasm returns the binary module of the twin of the kernel named name. It
// exports one function under the kernel's name, with the kernel's
// signature (the kasm function's parameter and result types).
func Wasm(name string) ([]byte, error) {
	build, ok := builders[name]
	if !ok {
		return nil, fmt.Errorf("kernels: no WebAssembly twin of %q", name)
	}
	m := w.NewModule()
	build(m)
	return m.Encode()
}

var (
	i64  = []w.ValType{w.I64}
	f64  = []w.ValType{w.F64}
	i32  = []w.ValType{w.I32}
	i64s = func(n int) []w.ValType { return slices.Repeat(i64, n) }
	i32s = func(n int) []w.ValType { return slices.Repeat(i32, n) }
)

// fn adds a few shorthands for the twins' recurring shapes to a function
// builder.
type fn struct{ *w.Func }

// set pops into l: set(l, code) computes code, then stores it.
func (f fn) set(l w.Local, code func()) {
	code()
	f.Set(l)
}

// addr pushes i64 local l as an i32 address.
func (f fn) addr(l w.Local) {
	f.Get(l)
	f.Op(w.I32WrapI64)
}

// inc adds the constant d to i64 local l.
func (f fn) inc(l w.Local, d int64) {
	f.Get(l)
	f.I64Const(d)
	f.Op(w.I64Add)
	f.Set(l)
}

// inc32 adds the constant d to i32 local l.
func (f fn) inc32(l w.Local, d int32) {
	f.Get(l)
	f.I32Const(d)
	f.Op(w.I32Add)
	f.Set(l)
}

// brIfCmp branches to label when the comparison cmp (of either integer
// type) of locals a and b holds.
func (f fn) brIfCmp(a w.Local, cmp w.Opcode, b w.Local, label w.Label) {
	f.Get(a)
	f.Get(b)
	f.Op(cmp)
	f.BrIf(label)
}

// brIfCmpConst branches to label when the i64 comparison cmp of local a
// and the constant c holds.
func (f fn) brIfCmpConst(a w.Local, cmp w.Opcode, c int64, label w.Label) {
	f.Get(a)
	f.I64Const(c)
	f.Op(cmp)
	f.BrIf(label)
}

// brIfCmpConst32 branches to label when the i32 comparison cmp of local a
// and the constant c holds.
func (f fn) brIfCmpConst32(a w.Local, cmp w.Opcode, c int32, label w.Label) {
	f.Get(a)
	f.I32Const(c)
	f.Op(cmp)
	f.BrIf(label)
}

// newFunc declares an exported function of the twin.
func newFunc(m *w.Module, name string, params, results []w.ValType) fn {
	f := m.Func(params, results)
	m.Export(name, f)
	return fn{f}
}
