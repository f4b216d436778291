package link_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	w "github.com/kiln-jit/kiln/wasm/internal/wasmtest"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/translate"
)

var tiers = []jit.Tier{jit.TierInterp, jit.TierBaseline, jit.TierOptimizing}

var (
	i32 = binary.I32
	i64 = binary.I64
)

func vt(ts ...binary.ValType) []binary.ValType { return ts }

// translateBytes decodes and translates a module of WebAssembly 1.0,
// whose segments are checked to fit before any is written.
func translateBytes(t *testing.T, b []byte) *translate.Module {
	t.Helper()
	m, err := binary.DecodeFeatures(b, binary.Features1)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := translate.Translate(m, translate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// hostModule builds a module that imports env.add (i32 i32 -> i32) and
// the immutable global env.base, puts the import in its table at entry
// base and data at byte base, initializes a global from base, has a start
// function that stores add(base, 1) at byte 0 of memory, and exports the
// imported function and a function that calls it through the table.
func hostModule() []byte {
	var b w.Builder
	add := b.Type(vt(i32, i32), vt(i32))
	void := b.Type(nil, nil)
	get := b.Type(vt(i32), vt(i32))
	fAdd := b.ImportFunc("env", "add", add)
	base := b.ImportGlobal("env", "base", i32, false)
	b.Table(8, -1)
	b.Memory(1, 1)
	g := b.Global(i32, false, w.Op(binary.OpGlobalGet, base))
	start := b.Func(void, nil,
		w.I32Const(0),
		w.Op(binary.OpGlobalGet, base), w.I32Const(1), w.Op(binary.OpCall, fAdd),
		w.Mem(binary.OpI32Store8, 0, 0))
	viaTable := b.Func(add, nil,
		w.Op(binary.OpLocalGet, 0), w.Op(binary.OpLocalGet, 1),
		w.Op(binary.OpGlobalGet, base), w.Op(binary.OpCallIndirect, add), []byte{0})
	load := b.Func(get, nil, w.Op(binary.OpLocalGet, 0), w.Mem(binary.OpI32Load8U, 0, 0))
	b.Start(start)
	b.Elem(w.Op(binary.OpGlobalGet, base), fAdd)
	b.Data(w.Op(binary.OpGlobalGet, base), []byte{42})
	b.Export("add", binary.ExternFunc, fAdd)
	b.Export("via_table", binary.ExternFunc, viaTable)
	b.Export("load", binary.ExternFunc, load)
	b.Export("g", binary.ExternGlobal, g)
	b.Export("", binary.ExternMemory, 0)
	return b.Bytes()
}

func env(base int32, calls *int) link.Imports {
	return link.Imports{"env": {
		"add": &link.Func{Type: binary.FuncType{Params: vt(i32, i32), Results: vt(i32)}, Fn: func(_ *jit.Caller, args, results []uint64) error {
			*calls++
			results[0] = uint64(uint32(int32(args[0]) + int32(args[1])))
			return nil
		}},
		"base": &link.Global{Type: binary.GlobalType{Type: i32}, Value: uint64(uint32(base))},
	}}
}

func TestImportsAndStart(t *testing.T) {
	m := translateBytes(t, hostModule())
	ctx := context.Background()
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			engine, err := jit.NewEngine(jit.Options{Tier: tier})
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			inst, err := link.Instantiate(ctx, engine, m, env(5, &calls).Resolve)
			if err != nil {
				t.Fatal(err)
			}
			if calls != 1 {
				t.Errorf("the start function made %d host calls, want 1", calls)
			}
			for _, c := range []struct {
				fn   string
				args []uint64
				want uint64
			}{
				{"load", []uint64{0}, 6},  // written by the start function: add(5, 1)
				{"load", []uint64{5}, 42}, // the data segment at base
				{"add", []uint64{2, 3}, 5},
				{"via_table", []uint64{7, 8}, 15},
			} {
				got, err := inst.Call(ctx, c.fn, c.args...)
				if err != nil || len(got) != 1 || got[0] != c.want {
					t.Errorf("%s%v = %v, %v; want %d", c.fn, c.args, got, err, c.want)
				}
			}
			if g, err := inst.Global("g"); err != nil || g != 5 {
				t.Errorf("global g = %d, %v; want 5", g, err)
			}
			if calls != 3 {
				t.Errorf("%d host calls, want 3", calls)
			}
			if e, ok := m.Export(""); !ok || e.Kind != binary.ExternMemory {
				t.Errorf("memory export: %+v %v", e, ok)
			}
		})
	}
}

func TestLinkErrors(t *testing.T) {
	m := translateBytes(t, hostModule())
	calls := 0
	good := env(5, &calls)
	badAdd := link.Imports{"env": {"add": &link.Func{Type: binary.FuncType{Params: vt(i32), Results: vt(i32)}}, "base": good["env"]["base"]}}
	badBase := link.Imports{"env": {"add": good["env"]["add"], "base": &link.Global{Type: binary.GlobalType{Type: i64}}}}
	swapped := link.Imports{"env": {"add": good["env"]["base"], "base": good["env"]["add"]}}
	tests := []struct {
		name    string
		imports link.Imports
		want    string
	}{
		{"missing import", link.Imports{}, `link: import "env" "add": unknown import: nothing provides this func`},
		{"function type", badAdd, `link: import "env" "add": incompatible import type: function of type [i32] -> [i32], the module imports [i32 i32] -> [i32]`},
		{"global type", badBase, `link: import "env" "base": incompatible import type: global of type i64, the module imports i32`},
		{"kind", swapped, `link: import "env" "add": incompatible import type: a global, the module imports a func`},
		{"element segment out of the table", env(8, &calls), "link: elements segment does not fit: segment 0 covers entries 8..9 of a table of 8"},
		{"element segments are checked first", env(65536, &calls), "link: elements segment does not fit: segment 0 covers entries 65536..65537 of a table of 8"},
	}
	engine, err := jit.NewEngine(jit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := link.Instantiate(context.Background(), engine, m, tc.imports.Resolve)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestDataDoesNotFit(t *testing.T) {
	var b w.Builder
	base := b.ImportGlobal("env", "base", i32, false)
	b.Memory(1, -1)
	b.Data(w.I32Const(10), []byte("ok"))
	b.Data(w.Op(binary.OpGlobalGet, base), []byte("abc"))
	m := translateBytes(t, b.Bytes())
	engine, err := jit.NewEngine(jit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		base uint64
		want string
	}{
		{65533, ""},
		{65534, "link: data segment does not fit: segment 1 covers bytes 65534..65537 of a memory of 65536"},
		{0xffffffff, "link: data segment does not fit: segment 1 covers bytes 4294967295..4294967298 of a memory of 65536"},
	} {
		imports := link.Imports{"env": {"base": &link.Global{Type: binary.GlobalType{Type: i32}, Value: c.base}}}
		inst, err := link.Instantiate(context.Background(), engine, m, imports.Resolve)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("base %d: %v", c.base, err)
		case c.want == "":
			if mem := inst.Kiln.Memory(); string(mem[10:12]) != "ok" || string(mem[65533:]) != "abc" {
				t.Errorf("base %d: the segments were not copied", c.base)
			}
		case err == nil || err.Error() != c.want:
			t.Errorf("base %d: error %v, want %q", c.base, err, c.want)
		}
	}
}

func TestStartTrap(t *testing.T) {
	var b w.Builder
	void := b.Type(nil, nil)
	b.Start(b.Func(void, nil, w.Ops(binary.OpUnreachable)))
	m := translateBytes(t, b.Bytes())
	engine, err := jit.NewEngine(jit.Options{Tier: jit.TierOptimizing})
	if err != nil {
		t.Fatal(err)
	}
	_, err = link.Instantiate(context.Background(), engine, m, nil)
	trap, ok := translate.TrapOf(err)
	if !ok || translate.TrapMessage(trap.Kind) != "unreachable" || !strings.HasPrefix(err.Error(), "start function: ") {
		t.Errorf("error %v, want a trap in the start function", err)
	}
}

// TestCrossInstance imports a function exported by another instance and
// checks that a trap in it is found as the innermost trap.
func TestCrossInstance(t *testing.T) {
	var a w.Builder
	bin := a.Type(vt(i32, i32), vt(i32))
	div := a.Func(bin, nil, w.Op(binary.OpLocalGet, 0), w.Op(binary.OpLocalGet, 1), w.Ops(0x6d))
	a.Export("div", binary.ExternFunc, div)
	gi := a.Global(i64, false, w.I64Const(-3))
	a.Export("k", binary.ExternGlobal, gi)

	var b w.Builder
	bbin := b.Type(vt(i32, i32), vt(i32))
	imp := b.ImportFunc("a", "div", bbin)
	k := b.ImportGlobal("a", "k", i64, false)
	f := b.Func(bbin, nil,
		w.Op(binary.OpLocalGet, 0), w.Op(binary.OpLocalGet, 1), w.Op(binary.OpCall, imp),
		w.Op(binary.OpGlobalGet, k), w.Ops(0xa7 /* i32.wrap_i64 */, 0x6a /* i32.add */))
	b.Export("div_plus_k", binary.ExternFunc, f)

	ma, mb := translateBytes(t, a.Bytes()), translateBytes(t, b.Bytes())
	ctx := context.Background()
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			engine, err := jit.NewEngine(jit.Options{Tier: tier})
			if err != nil {
				t.Fatal(err)
			}
			ia, err := link.Instantiate(ctx, engine, ma, nil)
			if err != nil {
				t.Fatal(err)
			}
			resolve := func(module, name string) (link.Extern, bool) {
				if module != "a" {
					return nil, false
				}
				x, err := ia.Export(name)
				return x, err == nil
			}
			ib, err := link.Instantiate(ctx, engine, mb, resolve)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ib.Call(ctx, "div_plus_k", 20, 4)
			if err != nil || got[0] != 2 {
				t.Errorf("div_plus_k(20, 4) = %v, %v; want 2", got, err)
			}
			_, err = ib.Call(ctx, "div_plus_k", 1, 0)
			trap, ok := translate.TrapOf(err)
			if !ok || translate.TrapMessage(trap.Kind) != "integer divide by zero" {
				t.Errorf("div_plus_k(1, 0): %v, want a divide by zero trap", err)
			}
			if _, err := ib.Call(ctx, "nope"); err == nil {
				t.Error("call of a missing export succeeded")
			}
		})
	}
}

func TestUnsupported(t *testing.T) {
	build := func(f func(b *w.Builder)) []byte {
		var b w.Builder
		f(&b)
		return b.Bytes()
	}
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"too many parameters", build(func(b *w.Builder) { b.Type(make([]binary.ValType, 300), nil) }), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := binary.Decode(tc.in)
			if tc.want == "" {
				// 300 parameters of value type 0 are malformed; build valid ones.
				ps := make([]binary.ValType, 300)
				for i := range ps {
					ps[i] = i32
				}
				var b w.Builder
				b.Type(ps, nil)
				m, err = binary.Decode(b.Bytes())
				tc.want = "unsupported: type 0 has 300 parameters; kiln allows 256"
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = translate.Translate(m, translate.Options{})
			var u *translate.UnsupportedError
			if !errors.As(err, &u) || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestTableAndMemoryExports checks that an instance's table and memory
// exports are a *link.Table and a *link.Memory, and that a function or
// global import that resolves to one is an incompatible import.
func TestTableAndMemoryExports(t *testing.T) {
	var a w.Builder
	a.Table(1, -1)
	a.Memory(1, -1)
	a.Export("tab", binary.ExternTable, 0)
	a.Export("mem", binary.ExternMemory, 0)
	engine, err := jit.NewEngine(jit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ia, err := link.Instantiate(ctx, engine, translateBytes(t, a.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(module, name string) (link.Extern, bool) {
		x, err := ia.Export(name)
		return x, err == nil
	}
	tests := []struct {
		name   string
		build  func(b *w.Builder)
		export link.Extern
		want   string
	}{
		{"function from a table", func(b *w.Builder) { b.ImportFunc("a", "tab", b.Type(nil, nil)) }, (*link.Table)(nil),
			`link: import "a" "tab": incompatible import type: a table, the module imports a func`},
		{"global from a memory", func(b *w.Builder) { b.ImportGlobal("a", "mem", i32, false) }, (*link.Memory)(nil),
			`link: import "a" "mem": incompatible import type: a memory, the module imports a global`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b w.Builder
			tc.build(&b)
			m := translateBytes(t, b.Bytes())
			name := m.Imports[0].Name
			if x, err := ia.Export(name); err != nil || fmt.Sprintf("%T", x) != fmt.Sprintf("%T", tc.export) {
				t.Errorf("Export(%q) = %T, %v; want a %T", name, x, err, tc.export)
			}
			_, err := link.Instantiate(ctx, engine, m, resolve)
			var le *link.Error
			if !errors.As(err, &le) || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// sharedOwner defines a table of 4 entries and a memory of 1 page (at
// most 3), exports both, puts its function one (returning 1) in entry 0
// and exports call (call_indirect of type () -> i32), load (i32.load8_u)
// and size (memory.size).
func sharedOwner() []byte {
	var b w.Builder
	ret := b.Type(nil, vt(i32))
	get := b.Type(vt(i32), vt(i32))
	one := b.Func(ret, nil, w.I32Const(1))
	call := b.Func(get, nil, w.Op(binary.OpLocalGet, 0), w.Op(binary.OpCallIndirect, ret), []byte{0})
	load := b.Func(get, nil, w.Op(binary.OpLocalGet, 0), w.Mem(binary.OpI32Load8U, 0, 0))
	size := b.Func(ret, nil, w.Op(binary.OpMemorySize, 0))
	b.Table(4, -1)
	b.Memory(1, 3)
	b.Elem(w.I32Const(0), one)
	b.Export("tab", binary.ExternTable, 0)
	b.Export("mem", binary.ExternMemory, 0)
	b.Export("call", binary.ExternFunc, call)
	b.Export("load", binary.ExternFunc, load)
	b.Export("size", binary.ExternFunc, size)
	return b.Bytes()
}

// sharedUser imports a table of at least tableMin entries and a memory
// of at least 1 page (at most memMax), puts its function two (returning
// 2) in entry 1 and a function of another type in entry 2, writes byte 7
// at 100, and exports call, load and grow.
func sharedUser(tableMin, memMax byte) []byte {
	var b w.Builder
	ret := b.Type(nil, vt(i32))
	get := b.Type(vt(i32), vt(i32))
	b.ImportRaw("a", "tab", 1, 0x70, 0, tableMin)
	b.ImportRaw("a", "mem", 2, 1, 1, memMax)
	two := b.Func(ret, nil, w.I32Const(2))
	inc := b.Func(get, nil, w.Op(binary.OpLocalGet, 0), w.I32Const(1), []byte{0x6A})
	call := b.Func(get, nil, w.Op(binary.OpLocalGet, 0), w.Op(binary.OpCallIndirect, ret), []byte{0})
	load := b.Func(get, nil, w.Op(binary.OpLocalGet, 0), w.Mem(binary.OpI32Load8U, 0, 0))
	grow := b.Func(get, nil, w.Op(binary.OpLocalGet, 0), w.Op(binary.OpMemoryGrow, 0))
	b.Elem(w.I32Const(1), two, inc)
	b.Data(w.I32Const(100), []byte{7})
	b.Export("call", binary.ExternFunc, call)
	b.Export("load", binary.ExternFunc, load)
	b.Export("grow", binary.ExternFunc, grow)
	return b.Bytes()
}

// TestSharedTableAndMemory checks, in every tier, that a table and a
// memory one instance exports are shared by the instance that imports
// them: entries and bytes either writes are seen by both, calls through
// an entry reach the instance whose function it holds, and traps are the
// ones WebAssembly specifies.
func TestSharedTableAndMemory(t *testing.T) {
	ctx := context.Background()
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			engine, err := jit.NewEngine(jit.Options{Tier: tier})
			if err != nil {
				t.Fatal(err)
			}
			a, err := link.Instantiate(ctx, engine, translateBytes(t, sharedOwner()), nil)
			if err != nil {
				t.Fatal(err)
			}
			resolve := func(module, name string) (link.Extern, bool) {
				x, err := a.Export(name)
				return x, err == nil
			}
			b, err := link.Instantiate(ctx, engine, translateBytes(t, sharedUser(4, 3)), resolve)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				inst *link.Instance
				name string
				arg  uint64
				want uint64
				trap string
			}{
				{a, "call", 0, 1, ""},
				{a, "call", 1, 2, ""}, // the user's function, written by its element segment
				{b, "call", 0, 1, ""}, // the owner's function
				{b, "call", 1, 2, ""},
				{a, "call", 2, 0, "indirect call type mismatch"},
				{b, "call", 2, 0, "indirect call type mismatch"},
				{a, "call", 3, 0, "uninitialized element"},
				{b, "call", 3, 0, "uninitialized element"},
				{a, "call", 4, 0, "undefined element"},
				{a, "load", 100, 7, ""}, // the user's data segment
				{b, "grow", 1, 1, ""},
				{a, "size", 0, 2, ""},
				{a, "load", 65536 + 100, 0, ""},
			} {
				var got []uint64
				var err error
				if tc.name == "size" {
					got, err = tc.inst.Call(ctx, tc.name)
				} else {
					got, err = tc.inst.Call(ctx, tc.name, tc.arg)
				}
				who := "owner"
				if tc.inst == b {
					who = "user"
				}
				if tc.trap != "" {
					trap, ok := translate.TrapOf(err)
					if !ok || translate.TrapMessage(trap.Kind) != tc.trap {
						t.Errorf("%s %s(%d) = %v, %v; want the trap %q", who, tc.name, tc.arg, got, err, tc.trap)
					}
					continue
				}
				if err != nil || got[0] != tc.want {
					t.Errorf("%s %s(%d) = %v, %v; want %d", who, tc.name, tc.arg, got, err, tc.want)
				}
			}
			// Imports whose limits the shared table and memory do not
			// satisfy.
			for _, tc := range []struct {
				name string
				in   []byte
				want string
			}{
				{"table too small", sharedUser(5, 3), `link: import "a" "tab": incompatible import type: table of 4.. entries, the module imports 5..`},
				{"memory may grow too far", sharedUser(4, 2), `link: import "a" "mem": incompatible import type: memory of 2..3 pages, the module imports 1..2`},
			} {
				_, err := link.Instantiate(ctx, engine, translateBytes(t, tc.in), resolve)
				if err == nil || err.Error() != tc.want {
					t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
				}
			}
		})
	}
}

// TestSharedMutableGlobal checks, in every tier, that a mutable global one
// instance exports and another imports is one variable: each sees the
// other's writes, and Global reads the current value.
func TestSharedMutableGlobal(t *testing.T) {
	ctx := context.Background()
	accessors := func(b *w.Builder, g uint32) {
		get := b.Type(nil, vt(i64))
		add := b.Type(vt(i64), nil)
		b.Export("get", binary.ExternFunc, b.Func(get, nil, w.Op(binary.OpGlobalGet, g)))
		b.Export("add", binary.ExternFunc, b.Func(add, nil,
			w.Op(binary.OpGlobalGet, g), w.Op(binary.OpLocalGet, 0), []byte{0x7C}, // i64.add
			w.Op(binary.OpGlobalSet, g)))
	}
	var owner w.Builder
	g := owner.Global(i64, true, w.I64Const(40))
	owner.Export("g", binary.ExternGlobal, g)
	accessors(&owner, g)
	var user w.Builder
	ug := user.ImportGlobal("a", "g", i64, true)
	user.Export("g", binary.ExternGlobal, ug)
	accessors(&user, ug)
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			engine, err := jit.NewEngine(jit.Options{Tier: tier})
			if err != nil {
				t.Fatal(err)
			}
			a, err := link.Instantiate(ctx, engine, translateBytes(t, owner.Bytes()), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := link.Instantiate(ctx, engine, translateBytes(t, user.Bytes()), func(module, name string) (link.Extern, bool) {
				x, err := a.Export(name)
				return x, err == nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range []struct {
				inst *link.Instance
				add  uint64
			}{{a, 1}, {b, 2}, {a, 3}, {b, 4}} {
				if _, err := step.inst.Call(ctx, "add", step.add); err != nil {
					t.Fatal(err)
				}
			}
			for _, inst := range []*link.Instance{a, b} {
				if got, err := inst.Call(ctx, "get"); err != nil || got[0] != 50 {
					t.Errorf("get = %v, %v; want 50", got, err)
				}
				if v, err := inst.Global("g"); err != nil || v != 50 {
					t.Errorf("Global(g) = %d, %v; want 50", v, err)
				}
			}
			// An instance that imports the global with the wrong
			// mutability does not link.
			var c w.Builder
			c.ImportGlobal("a", "g", i64, false)
			_, err = link.Instantiate(ctx, engine, translateBytes(t, c.Bytes()), func(module, name string) (link.Extern, bool) {
				x, err := a.Export(name)
				return x, err == nil
			})
			if err == nil || !strings.Contains(err.Error(), "incompatible import type") {
				t.Errorf("immutable import of a mutable global: %v", err)
			}
		})
	}
}

// TestSegmentTrap checks that in WebAssembly 2.0 a segment that does not
// fit makes instantiation trap (after the segments before it), rather
// than fail to link.
func TestSegmentTrap(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *w.Builder)
		data  bool
		seg   int
		msg   string
	}{
		{"data", func(b *w.Builder) {
			b.Memory(1, -1)
			b.Data(w.I32Const(0), []byte("ok"))
			b.Data(w.I32Const(65535), []byte("no"))
		}, true, 1, "out of bounds memory access"},
		{"element", func(b *w.Builder) {
			b.Table(1, -1)
			b.Elem(w.I32Const(1), b.Func(b.Type(nil, nil), nil))
		}, false, 0, "out of bounds table access"},
	}
	engine, err := jit.NewEngine(jit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b w.Builder
			tc.build(&b)
			m, err := binary.Decode(b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			tm, err := translate.Translate(m, translate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = link.Instantiate(context.Background(), engine, tm, link.Imports{}.Resolve)
			var st *translate.SegmentTrap
			if !errors.As(err, &st) {
				t.Fatalf("error %v, want a SegmentTrap", err)
			}
			if st.Data != tc.data || st.Segment != tc.seg || st.Msg != tc.msg {
				t.Errorf("trap %+v, want data %v segment %d %q", st, tc.data, tc.seg, tc.msg)
			}
		})
	}
}
