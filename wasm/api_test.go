package wasm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm"
	"github.com/kiln-jit/kiln/wasm/text"
)

// tiers are the engine tiers the API's tests run on.
var tiers = []jit.Tier{jit.TierInterp, jit.TierBaseline, jit.TierOptimizing, jit.TierAuto}

func newRuntime(t *testing.T, cfg wasm.RuntimeConfig) *wasm.Runtime {
	t.Helper()
	r, err := wasm.NewRuntime(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

func compile(t *testing.T, r *wasm.Runtime, src string) *wasm.CompiledModule {
	t.Helper()
	c, err := r.CompileModule(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const counterWat = `(module
  (memory (export "memory") 1)
  (global $n (mut i32) (i32.const 0))
  (func (export "next") (result i32)
    (global.set $n (i32.add (global.get $n) (i32.const 1)))
    (global.get $n))
  (func (export "store") (param $addr i32) (param $v i64)
    (i64.store (local.get $addr) (local.get $v)))
  (func (export "load") (param $addr i32) (result i64)
    (i64.load (local.get $addr))))`

// TestInstantiateMany makes several instances of one compiled module:
// each has its own globals and memory.
func TestInstantiateMany(t *testing.T) {
	ctx := context.Background()
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			r := newRuntime(t, wasm.RuntimeConfig{Engine: jit.Options{Tier: tier}})
			c := compile(t, r, counterWat)
			var mods []*wasm.Module
			for i := range 4 {
				m, err := r.InstantiateModule(ctx, c, wasm.NewModuleConfig())
				if err != nil {
					t.Fatal(err)
				}
				for range i + 1 {
					if _, err := m.ExportedFunction("next").Call(ctx); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := m.ExportedFunction("store").Call(ctx, 8, uint64(100+i)); err != nil {
					t.Fatal(err)
				}
				mods = append(mods, m)
			}
			for i, m := range mods {
				got, err := m.ExportedFunction("next").Call(ctx)
				if err != nil || got[0] != uint64(i+2) {
					t.Errorf("instance %d: next = %v, %v; want %d", i, got, err, i+2)
				}
				v, err := m.Memory().ReadUint64Le(8)
				if err != nil || v != uint64(100+i) {
					t.Errorf("instance %d: memory at 8 = %d, %v; want %d", i, v, err, 100+i)
				}
			}
		})
	}
}

// TestHostFunctions imports Go functions of every supported shape.
func TestHostFunctions(t *testing.T) {
	ctx := context.Background()
	errHost := errors.New("host says no")
	type key struct{}
	tests := []struct {
		name    string
		fn      any
		sig     string // the import's (param ...) (result ...)
		args    []uint64
		want    []uint64
		wantErr error
	}{
		{"i32", func(a, b int32) int32 { return a - b }, "(param i32 i32) (result i32)",
			[]uint64{2, 5}, []uint64{uint64(uint32(0xfffffffd))}, nil},
		{"uint32", func(a uint32) uint32 { return a >> 1 }, "(param i32) (result i32)",
			[]uint64{0xffffffff}, []uint64{0x7fffffff}, nil},
		{"i64", func(a int64, b uint64) int64 { return a * int64(b) }, "(param i64 i64) (result i64)",
			[]uint64{jit.I64(-3), 7}, []uint64{jit.I64(-21)}, nil},
		{"floats", func(a float32, b float64) (float64, float32) { return float64(a) + b, a * 2 }, "(param f32 f64) (result f64 f32)",
			[]uint64{uint64(math.Float32bits(1.5)), math.Float64bits(0.25)}, []uint64{math.Float64bits(1.75), uint64(math.Float32bits(3))}, nil},
		{"context", func(ctx context.Context) int64 {
			if ctx.Value(key{}) == "v" {
				return 1
			}
			return 0
		}, "(result i64)", nil, []uint64{1}, nil},
		{"error", func(x int32) (int32, error) { return 0, errHost }, "(param i32) (result i32)",
			[]uint64{1}, nil, errHost},
		{"no error", func(x int32) (int32, error) { return x, nil }, "(param i32) (result i32)",
			[]uint64{9}, []uint64{9}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRuntime(t, wasm.RuntimeConfig{})
			if _, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().WithFunc(tt.fn).Export("f").Instantiate(ctx); err != nil {
				t.Fatal(err)
			}
			params, results := wasmSig(tt.sig)
			src := fmt.Sprintf(`(module (import "env" "f" (func $f %s))
  (func (export "call") %s %s (call $f %s)))`, tt.sig, params, results, localGets(len(tt.args)))
			m, err := r.Instantiate(ctx, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.ExportedFunction("call").Call(context.WithValue(ctx, key{}, "v"), tt.args...)
			if tt.wantErr != nil {
				var trap *bytecode.Trap
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &trap) || trap.Kind != bytecode.TrapHostError {
					t.Fatalf("error %v, want a host error trap wrapping %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("call = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// wasmSig splits "(param ...) (result ...)" in its two parts.
func wasmSig(sig string) (params, results string) {
	if i := strings.Index(sig, "(result"); i >= 0 {
		return strings.TrimSpace(sig[:i]), sig[i:]
	}
	return sig, ""
}

func localGets(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "(local.get %d) ", i)
	}
	return b.String()
}

// TestHostCallerAndRaw: a host function reads the caller's memory, and a
// raw one has explicit types.
func TestHostCallerAndRaw(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t, wasm.RuntimeConfig{})
	var seen string
	_, err := r.NewHostModuleBuilder("host").
		NewFunctionBuilder().WithFunc(func(c *wasm.Caller, ptr, n uint32) error {
		b, err := c.Memory().Read(uint64(ptr), uint64(n))
		seen = string(b)
		return err
	}).Export("log").
		NewFunctionBuilder().WithRawFunc(func(c *wasm.Caller, args, results []uint64) error {
		results[0] = args[0] + args[1]
		return c.Memory().WriteUint32Le(0, 7)
	}, []wasm.ValueType{wasm.ValueTypeI64, wasm.ValueTypeI64}, []wasm.ValueType{wasm.ValueTypeI64}).Export("add").
		Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Instantiate(ctx, []byte(`(module
  (import "host" "log" (func $log (param i32 i32)))
  (import "host" "add" (func $add (param i64 i64) (result i64)))
  (memory 1)
  (data (i32.const 100) "kiln")
  (func (export "run") (result i64)
    (call $log (i32.const 100) (i32.const 4))
    (call $add (i64.const 40) (i64.const 2))))`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.ExportedFunction("run").Call(ctx)
	if err != nil || got[0] != 42 || seen != "kiln" {
		t.Fatalf("run = %v, %v, logged %q; want 42 and \"kiln\"", got, err, seen)
	}
	if v, err := m.Memory().ReadUint32Le(0); err != nil || v != 7 {
		t.Errorf("the raw function's store: %d, %v; want 7", v, err)
	}
}

// TestHostFunctionErrors: Go functions that cannot be host functions are
// refused with a message that says why.
func TestHostFunctionErrors(t *testing.T) {
	tests := []struct {
		name string
		fn   any
		want string
	}{
		{"not a function", 42, "int is not a function"},
		{"string param", func(s string) {}, "parameter 1 is a string"},
		{"bool result", func() bool { return true }, "result 1 is a bool"},
		{"variadic", func(x ...int32) {}, "variadic"},
		{"nil", nil, "is not a function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRuntime(t, wasm.RuntimeConfig{})
			_, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().WithFunc(tt.fn).Export("f").Instantiate(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), `wasm: host module "env": function "f": `) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestMemory reads and writes an instance's memory from Go.
func TestMemory(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t, wasm.RuntimeConfig{})
	m, err := r.InstantiateModule(ctx, compile(t, r, counterWat), wasm.NewModuleConfig())
	if err != nil {
		t.Fatal(err)
	}
	mem := m.ExportedMemory("memory")
	if mem == nil || mem.Size() != 65536 || mem.Pages() != 1 {
		t.Fatalf("memory %v of %d bytes, want one page", mem, mem.Size())
	}
	if m.ExportedMemory("nothing") != nil || m.ExportedFunction("nothing") != nil || m.ExportedGlobal("next") != nil {
		t.Error("an export that is not there is not nil")
	}
	if err := mem.Write(16, []byte{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	got, err := m.ExportedFunction("load").Call(ctx, 16)
	if err != nil || got[0] != 0x0807060504030201 {
		t.Errorf("load = %x, %v", got, err)
	}
	if err := mem.WriteUint32Le(65532, 0xdeadbeef); err != nil {
		t.Fatal(err)
	}
	if v, err := mem.ReadUint32Le(65532); err != nil || v != 0xdeadbeef {
		t.Errorf("ReadUint32Le = %x, %v", v, err)
	}
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"read past the end", func() error { _, err := mem.Read(65535, 2); return err }()},
		{"write past the end", mem.Write(65536, []byte{1})},
		{"uint64 past the end", func() error { _, err := mem.ReadUint64Le(65530); return err }()},
	} {
		if tt.err == nil || !strings.Contains(tt.err.Error(), "outside memory") {
			t.Errorf("%s: error %v, want an out-of-memory error", tt.name, tt.err)
		}
	}
}

// TestGlobalsAndImports: a named instance's exports are imported by
// another module; exported globals are read from Go.
func TestGlobalsAndImports(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t, wasm.RuntimeConfig{})
	lib := compile(t, r, `(module
  (global (export "answer") i64 (i64.const 42))
  (global $c (export "calls") (mut i32) (i32.const 0))
  (func (export "twice") (param i32) (result i32)
    (global.set $c (i32.add (global.get $c) (i32.const 1)))
    (i32.mul (local.get 0) (i32.const 2))))`)
	libInst, err := r.InstantiateModule(ctx, lib, wasm.NewModuleConfig().WithName("lib"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Module("lib") != libInst {
		t.Error("Runtime.Module does not find the named instance")
	}
	if _, err := r.InstantiateModule(ctx, lib, wasm.NewModuleConfig().WithName("lib")); err == nil || !strings.Contains(err.Error(), `an instance named "lib" exists`) {
		t.Errorf("a second instance named lib: %v", err)
	}
	app, err := r.Instantiate(ctx, []byte(`(module
  (import "lib" "twice" (func $twice (param i32) (result i32)))
  (import "lib" "answer" (global $a i64))
  (func (export "run") (result i64)
    (i64.add (global.get $a) (i64.extend_i32_u (call $twice (i32.const 5))))))`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := app.ExportedFunction("run").Call(ctx)
	if err != nil || got[0] != 52 {
		t.Errorf("run = %v, %v; want 52", got, err)
	}
	g := libInst.ExportedGlobal("calls")
	if v, err := g.Get(); err != nil || v != 1 || !g.Type().Mutable || g.Type().Type != wasm.ValueTypeI32 {
		t.Errorf("calls = %d (%v), %v; want a mutable i32 1", v, g.Type(), err)
	}
	if v, err := libInst.ExportedGlobal("answer").Get(); err != nil || v != 42 {
		t.Errorf("answer = %d, %v", v, err)
	}
	defs := lib.Exports()
	if len(defs) != 3 || defs[2].Name != "twice" || defs[2].Kind != wasm.ExternFunc || defs[2].Func.String() != "[i32] -> [i32]" {
		t.Errorf("exports %+v", defs)
	}
	imps := app.CompiledModule().Imports()
	if len(imps) != 2 || imps[1].Module != "lib" || imps[1].Kind != wasm.ExternGlobal || imps[1].Global.Type != wasm.ValueTypeI64 {
		t.Errorf("imports %+v", imps)
	}
}

const helloWat = `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "hello\n")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 6))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (drop (call $args (i32.const 32) (i32.const 36)))
    ;; exit with the number of arguments minus one
    (call $exit (i32.sub (i32.load (i32.const 32)) (i32.const 1)))))`

// TestWASI runs a WASI command: its output, and its exit status.
func TestWASI(t *testing.T) {
	ctx := context.Background()
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			r := newRuntime(t, wasm.RuntimeConfig{Engine: jit.Options{Tier: tier}, WASI: true})
			c := compile(t, r, helloWat)
			for _, tt := range []struct {
				args []string
				code uint32
			}{
				{[]string{"hello"}, 0},
				{[]string{"hello", "a", "b", "c"}, 3},
			} {
				var out bytes.Buffer
				m, err := r.InstantiateModule(ctx, c, wasm.NewModuleConfig().WithStdout(&out).WithArgs(tt.args...))
				var exit *wasm.ExitError
				switch {
				case tt.code == 0 && (err != nil || m == nil):
					t.Errorf("args %q: %v, want success", tt.args, err)
				case tt.code != 0 && (!errors.As(err, &exit) || exit.Code != tt.code || m != nil):
					t.Errorf("args %q: %v, want exit status %d", tt.args, err, tt.code)
				}
				if out.String() != "hello\n" {
					t.Errorf("args %q: output %q", tt.args, out.String())
				}
			}
		})
	}
}

// TestWASIOff: without RuntimeConfig.WASI, a WASI import is unknown, and
// the error says why.
func TestWASIOff(t *testing.T) {
	r := newRuntime(t, wasm.RuntimeConfig{})
	_, err := r.InstantiateModule(context.Background(), compile(t, r, helloWat), wasm.NewModuleConfig())
	if err == nil || !strings.Contains(err.Error(), "unknown import") || !strings.Contains(err.Error(), "WASI is off") {
		t.Errorf("error %v", err)
	}
}

// TestStartFunctions: the config chooses what runs at instantiation.
func TestStartFunctions(t *testing.T) {
	ctx := context.Background()
	src := `(module
  (global $g (export "g") (mut i32) (i32.const 0))
  (func $s (global.set $g (i32.add (global.get $g) (i32.const 1))))
  (start $s)
  (func (export "_start") (global.set $g (i32.add (global.get $g) (i32.const 10))))
  (func (export "init") (global.set $g (i32.add (global.get $g) (i32.const 100)))))`
	tests := []struct {
		name string
		cfg  wasm.ModuleConfig
		want uint64
	}{
		{"default", wasm.NewModuleConfig(), 11},
		{"none", wasm.NewModuleConfig().WithStartFunctions(), 1},
		{"init and missing", wasm.NewModuleConfig().WithStartFunctions("init", "missing", "init"), 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRuntime(t, wasm.RuntimeConfig{})
			m, err := r.InstantiateModule(ctx, compile(t, r, src), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := m.ExportedGlobal("g").Get(); err != nil || v != tt.want {
				t.Errorf("g = %d, %v; want %d", v, err, tt.want)
			}
		})
	}
}

// TestCancel: cancelling the context stops an infinite loop on every tier.
func TestCancel(t *testing.T) {
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			r := newRuntime(t, wasm.RuntimeConfig{Engine: jit.Options{Tier: tier}})
			m, err := r.Instantiate(context.Background(), []byte(`(module
  (func (export "spin") (loop $l (br $l))))`))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				time.Sleep(20 * time.Millisecond)
				cancel()
			}()
			_, err = m.ExportedFunction("spin").Call(ctx)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `wasm: call "spin": trap: `) {
				t.Errorf("error %v, want a cancelled call", err)
			}
		})
	}
}

// TestTrap: a trap names the specification's message and the byte
// offset of the instruction.
func TestTrap(t *testing.T) {
	r := newRuntime(t, wasm.RuntimeConfig{})
	m, err := r.Instantiate(context.Background(), []byte(`(module
  (func (export "div") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1))))`))
	if err != nil {
		t.Fatal(err)
	}
	f := m.ExportedFunction("div")
	if f.Type().String() != "[i32 i32] -> [i32]" || f.Name() != "div" {
		t.Errorf("function %s of type %s", f.Name(), f.Type())
	}
	_, err = f.Call(context.Background(), 1, 0)
	var trap *bytecode.Trap
	if !errors.As(err, &trap) || trap.Kind != bytecode.TrapDivideByZero ||
		!strings.HasPrefix(err.Error(), `wasm: call "div": trap: integer divide by zero in `) || !strings.Contains(err.Error(), " at byte 0x") {
		t.Errorf("error %v", err)
	}
	if _, err := f.Call(context.Background(), 1); err == nil || !strings.Contains(err.Error(), "takes 2 parameters, got 1") {
		t.Errorf("a call with one argument: %v", err)
	}
}

// TestClose: closing is idempotent, and what is closed refuses use.
func TestClose(t *testing.T) {
	ctx := context.Background()
	r, err := wasm.NewRuntime(ctx, wasm.RuntimeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c := compile(t, r, counterWat)
	m, err := r.InstantiateModule(ctx, c, wasm.NewModuleConfig().WithName("counter"))
	if err != nil {
		t.Fatal(err)
	}
	next, mem := m.ExportedFunction("next"), m.Memory()
	m2, err := r.InstantiateModule(ctx, c, wasm.NewModuleConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := next.Call(ctx); err == nil || !strings.Contains(err.Error(), `module "counter" closed`) {
		t.Errorf("call after Close: %v", err)
	}
	if _, err := mem.Read(0, 1); err == nil || mem.Size() != 0 {
		t.Errorf("memory after Close: %v, size %d", err, mem.Size())
	}
	if r.Module("counter") != nil {
		t.Error("a closed instance is still found by name")
	}
	// The name is free again.
	if _, err := r.InstantiateModule(ctx, c, wasm.NewModuleConfig().WithName("counter")); err != nil {
		t.Errorf("reusing a closed instance's name: %v", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.InstantiateModule(ctx, c, wasm.NewModuleConfig()); err == nil || !strings.Contains(err.Error(), "compiled module closed") {
		t.Errorf("instantiating a closed compiled module: %v", err)
	}
	if _, err := m2.ExportedFunction("next").Call(ctx); err != nil {
		t.Errorf("an instance of a closed compiled module: %v", err)
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(ctx); err != nil {
		t.Errorf("second Close of the runtime: %v", err)
	}
	if _, err := m2.ExportedFunction("next").Call(ctx); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("call after the runtime's Close: %v", err)
	}
	if _, err := r.CompileModule(ctx, []byte(counterWat)); err == nil || !strings.Contains(err.Error(), "runtime closed") {
		t.Errorf("compiling after Close: %v", err)
	}
	if _, err := r.NewHostModuleBuilder("env").Instantiate(ctx); err == nil || !strings.Contains(err.Error(), "runtime closed") {
		t.Errorf("a host module after Close: %v", err)
	}
}

// TestCompileErrors: bad input is an error that says what is wrong.
func TestCompileErrors(t *testing.T) {
	wasmBin, err := text.ToBinary([]byte(`(module (func (export "f")))`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		src  []byte
		want string
	}{
		{"empty", nil, "wasm: compile module: empty input"},
		{"two bytes", []byte("\x00a"), "wasm: compile module: malformed module: at byte 0x2: unexpected end"},
		{"four bytes", []byte("\x00asm"), "wasm: compile module: malformed module: at byte 0x4: unexpected end"},
		{"truncated", wasmBin[:len(wasmBin)-1], "wasm: compile module: malformed module: section code"},
		{"text", []byte("(module (func (export \"f\") (i32.bogus)))"), "wasm: compile module: text format: 1:29: unknown operator"},
		{"invalid", []byte("(module (func (result i32)))"), "wasm: compile module: "},
	}
	r := newRuntime(t, wasm.RuntimeConfig{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.CompileModule(context.Background(), tt.src)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want one starting %q", err, tt.want)
			}
		})
	}
	if !wasm.IsBinary([]byte("\x00")) || !wasm.IsBinary(wasmBin) || wasm.IsBinary([]byte("(module)")) || wasm.IsBinary(nil) {
		t.Error("IsBinary is wrong")
	}
}

// TestUnknownImport: the error names the import and what the runtime has.
func TestUnknownImport(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t, wasm.RuntimeConfig{})
	if _, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().WithFunc(func(int32) {}).Export("print").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src, want string
	}{
		{`(module (import "env" "puts" (func (param i32))))`, `link: import "env" "puts": unknown import: nothing provides this func (host module "env" exports "print")`},
		{`(module (import "sys" "puts" (func (param i32))))`, `(no module "sys" to import from; the runtime has "env")`},
		{`(module (import "env" "print" (func (param i64))))`, `incompatible import type: function of type [i32] -> [], the module imports [i64] -> []`},
	}
	for _, tt := range tests {
		_, err := r.Instantiate(ctx, []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "wasm: instantiate module: ") {
			t.Errorf("%s: error %v, want one containing %q", tt.src, err, tt.want)
		}
	}
}

// TestConcurrentInstances instantiates one compiled module from several
// goroutines at once and calls each instance on its own goroutine.
func TestConcurrentInstances(t *testing.T) {
	ctx := context.Background()
	r := newRuntime(t, wasm.RuntimeConfig{Engine: jit.Options{Tier: jit.TierBaseline}})
	c := compile(t, r, counterWat)
	const n = 4
	errs := make(chan error, n)
	for g := range n {
		go func() {
			m, err := r.InstantiateModule(ctx, c, wasm.NewModuleConfig().WithName(fmt.Sprint("counter", g)))
			if err != nil {
				errs <- err
				return
			}
			next := m.ExportedFunction("next")
			for i := range 100 {
				got, err := next.Call(ctx)
				if err != nil || got[0] != uint64(i+1) {
					errs <- fmt.Errorf("instance %d, call %d: %v, %v", g, i, got, err)
					return
				}
			}
			errs <- m.Close(ctx)
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
