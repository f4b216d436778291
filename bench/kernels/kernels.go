// Package kernels holds WebAssembly twins of kiln's benchmark kernels (the
// kasm programs of internal/testprogs): the same algorithm with the same
// loop structure, i64 arithmetic where the kasm uses i64, and the kasm's
// memory layout, so that wazero runs what kiln runs. Addresses are i64
// values wrapped to i32 at each access.
//
// mandel and crc32 return two values, which needs WebAssembly 2.0's
// multi-value feature (enabled by default in wazero); the other twins are
// WebAssembly 1.0.
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
}

// WithoutTwin lists the kernels of internal/testprogs that have no
// WebAssembly twin yet (the i32/f32 kernels); the peer comparison leaves
// them out.
var WithoutTwin = []string{"hash32", "mandel32", "sieve32"}

// Names returns the names of the kernels that have a twin, sorted.
func Names() []string { return slices.Sorted(maps.Keys(builders)) }

// Wasm returns the binary module of the twin of the kernel named name. It
// exports one function under the kernel's name, with the kernel's
// signature (i64 parameters, i64 or f64 results).
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
	i64s = func(n int) []w.ValType { return slices.Repeat(i64, n) }
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

// brIfCmp branches to label when the i64 comparison cmp of locals a and b
// holds.
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

// newFunc declares an exported function of the twin.
func newFunc(m *w.Module, name string, params, results []w.ValType) fn {
	f := m.Func(params, results)
	m.Export(name, f)
	return fn{f}
}
