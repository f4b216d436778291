package jit

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/runtime"
)

// TestTableCasesInEveryTier runs the shared cases of globals,
// call_indirect and unreachable in every configuration; on a platform with
// compiled tiers, each compiled configuration runs them as machine code.
func TestTableCasesInEveryTier(t *testing.T) {
	cases := testprogs.TableCases()
	for _, cfg := range tierConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			mod, err := newEngine(t, cfg.opts).Load(cases[0].Module)
			if err != nil {
				t.Fatal(err)
			}
			checkCompiled(t, cfg.opts.Tier, mod)
			for _, c := range cases {
				runCase(t, mod, c)
			}
		})
	}
}

// checkCompiled checks that a module loaded for tier runs in it, on a
// platform with compiled tiers.
func checkCompiled(t *testing.T, tier Tier, mod *Module) {
	t.Helper()
	if (tier == TierInterp || runtime.Supported()) && mod.Tier() != tier {
		t.Fatalf("module runs in tier %s (%v), want %s", mod.Tier(), mod.CompileError(), tier)
	}
}

// TestGlobalsTableOpsInEveryTier runs each op of globals, the table and
// unreachable, in reachable code and in code no branch reaches, in each
// tier, with the interpreter's outcome; Instance.Optimize compiles such a
// module too.
func TestGlobalsTableOpsInEveryTier(t *testing.T) {
	tests := []struct {
		name, body string
		arg        uint64
		want       uint64
		trap       bytecode.TrapKind
		trapOffset int
	}{
		{"global.get", "  global.get r1, g\n  i64.add r1, r1, r0\n  ret r1", 2, 44, 0, 0},
		{"global.set", "  global.set g, r0\n  global.get r1, g\n  ret r1", 7, 7, 0, 0},
		{"constant global", "  global.get r1, k\n  i64.add r1, r1, r0\n  ret r1", 2, 1002, 0, 0},
		{"call_indirect", "  call_indirect t, r1 (r0) -> (r0)\n  ret r0", 5, 6, 0, 0},
		{"call_indirect null", "  i64.const r1, 1\n  call_indirect t, r1 (r0) -> (r0)\n  ret r0", 5, 0, bytecode.TrapUninitializedElement, 1},
		{"call_indirect beyond the table", "  i64.const r1, 2\n  call_indirect t, r1 (r0) -> (r0)\n  ret r0", 5, 0, bytecode.TrapUndefinedElement, 1},
		{"call_indirect far beyond the table", "  i64.const r1, -1\n  call_indirect t, r1 (r0) -> (r0)\n  ret r0", 5, 0, bytecode.TrapUndefinedElement, 1},
		{"call_indirect signature", "  i64.const r1, 0\n  call_indirect u, r1 (r0, r0) -> (r0)\n  ret r0", 5, 0, bytecode.TrapIndirectCallTypeMismatch, 1},
		{"unreachable", "  br_if r0, L\n  unreachable\nL:\n  ret r0", 0, 0, bytecode.TrapUnreachable, 1},
		{"unreachable not reached", "  br_if r0, L\n  unreachable\nL:\n  ret r0", 3, 3, 0, 0},
		{"unreachable in dead code", "  ret r0\n  unreachable", 9, 9, 0, 0},
	}
	for _, tt := range tests {
		src := "global g i64 mut = 42\nglobal k i64 = 1000\ntype t (i64) -> (i64)\ntype u (i64 i64) -> (i64)\n" +
			"table 2\nelem 0 inc\n" +
			"func inc (i64) -> (i64)\n  i64.add r0, r0, 1\n  ret r0\nend\n" +
			"func f (i64) -> (i64)\n  regs i64\n" + tt.body + "\nend\nexport \"f\" f\n"
		for _, tier := range []Tier{TierInterp, TierBaseline, TierOptimizing} {
			t.Run(tt.name+"/"+tier.String(), func(t *testing.T) {
				mod, err := newEngine(t, Options{Tier: tier, CheckAllocations: true}).LoadText([]byte(src))
				if err != nil {
					t.Fatal(err)
				}
				checkCompiled(t, tier, mod)
				inst, err := mod.Instantiate(nil)
				if err != nil {
					t.Fatal(err)
				}
				c := testprogs.Case{Name: tt.name, Module: mod.prog.Module, Func: "f", Args: []uint64{tt.arg},
					Want: []uint64{tt.want}, Trap: tt.trap, TrapOffset: tt.trapOffset}
				got, err := inst.Call(context.Background(), "f", tt.arg)
				if err := c.Check(got, err, nil); err != nil {
					t.Fatal(err)
				}
				if tier != TierInterp || !runtime.Supported() {
					return
				}
				if err := inst.Optimize(); err != nil {
					t.Fatalf("Optimize: %v", err)
				}
				got, err = inst.Call(context.Background(), "f", tt.arg)
				if err := c.Check(got, err, nil); err != nil {
					t.Fatalf("after Optimize: %v", err)
				}
			})
		}
	}
}

// TestDeclaredGlobalsCompile checks that globals, a table and types that
// no instruction uses do not keep a module from being compiled, and that
// the instance's exported globals and table work in the compiled tiers.
func TestDeclaredGlobalsCompile(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	src := `global g i64 mut = 5 export "g"
type t (i64) -> (i64)
table 2 export "tab"
elem 1 f
func f (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end
export "f" f
`
	for _, tier := range []Tier{TierBaseline, TierOptimizing} {
		mod, err := newEngine(t, Options{Tier: tier}).LoadText([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if mod.Tier() != tier {
			t.Fatalf("module runs in %s (%v), want %s", mod.Tier(), mod.CompileError(), tier)
		}
		inst, err := mod.Instantiate(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := inst.Call(context.Background(), "f", 1); err != nil || got[0] != 2 {
			t.Fatalf("f(1) = %v, %v", got, err)
		}
		if err := inst.SetGlobal("g", 9); err != nil {
			t.Fatal(err)
		}
		if v, typ, err := inst.Global("g"); err != nil || v != 9 || typ != bytecode.I64 {
			t.Fatalf("Global(g) = %d, %s, %v", v, typ, err)
		}
		if name, ok, err := inst.TableEntry(1); err != nil || !ok || name != "f" {
			t.Fatalf("TableEntry(1) = %q, %v, %v", name, ok, err)
		}
	}
}

// globalsSrc imports globals of every type and exports some of its own.
const globalsSrc = `host log (i64) -> ()
global base i64 import "env.base"
global scale f64 mut import "env.scale"
global n32 i32 mut import "env.n32"
global f32in f32 import "env.f32"
global count i64 mut = 0 export "count"
global limit i32 = -2 export "limit"
global pi f64 = 3.5 export "pi"
global small f32 mut = 0.25 export "small"
global base.again i64 import "env.base2" export "base2"

; tick(d) adds d + base to count, logs and returns it.
func tick (i64) -> (i64)
  regs i64
  global.get r1, base
  i64.add r1, r1, r0
  global.get r0, count
  i64.add r0, r0, r1
  global.set count, r0
  call_host log (r0)
  ret r0
end

func imports () -> (i64 f64 i32 f32 i64)
  regs i64 f64 i32 f32 i64
  global.get r0, base
  global.get r1, scale
  global.get r2, n32
  global.get r3, f32in
  global.get r4, base.again
  ret r0, r1, r2, r3, r4
end

func set32 (i32 f32) -> ()
  global.set n32, r0
  global.set small, r1
  ret
end

func small () -> (f32)
  regs f32
  global.get r0, small
  ret r0
end

export "tick" tick
export "imports" imports
export "set32" set32
export "get_small" small
`

// globalsImports returns imports for globalsSrc; log appends to logged.
func globalsImports(logged *[]int64) Imports {
	return Imports{
		"log":       MustHost(func(v int64) { *logged = append(*logged, v) }),
		"env.base":  GlobalI64(100),
		"env.scale": GlobalF64(0.5),
		"env.n32":   GlobalI32(-7),
		"env.f32":   GlobalF32(-1.25),
		"env.base2": GlobalValue(bytecode.I64, 1<<40),
	}
}

func TestGlobalsImportedAndExported(t *testing.T) {
	mod, err := newEngine(t, Options{}).LoadText([]byte(globalsSrc))
	if err != nil {
		t.Fatal(err)
	}
	if got := mod.GlobalImports(); len(got) != 5 || got[0].Name != "base" || got[4].Import != "env.base2" {
		t.Fatalf("GlobalImports = %+v", got)
	}
	var logged []int64
	inst, err := mod.Instantiate(globalsImports(&logged))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := inst.Call(ctx, "imports")
	want := []uint64{100, F64(0.5), I32(-7), F32(-1.25), 1 << 40}
	if err != nil || len(got) != len(want) {
		t.Fatalf("imports() = %v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("imported value %d = %#x, want %#x", i, got[i], want[i])
		}
	}
	// Globals keep their values across calls.
	for d, w := range []uint64{101, 203, 306} {
		if got, err := inst.Call(ctx, "tick", uint64(d+1)); err != nil || got[0] != w {
			t.Fatalf("tick(%d) = %v, %v; want %d", d+1, got, err, w)
		}
	}
	if len(logged) != 3 || logged[2] != 306 {
		t.Fatalf("logged %v", logged)
	}
	if v, typ, err := inst.Global("count"); err != nil || typ != bytecode.I64 || v != 306 {
		t.Fatalf("Global(count) = %d, %s, %v; want 306", v, typ, err)
	}
	// SetGlobal is seen by the next call.
	if err := inst.SetGlobal("count", I64(-100)); err != nil {
		t.Fatal(err)
	}
	if got, err := inst.Call(ctx, "tick", 5); err != nil || int64(got[0]) != 5 {
		t.Fatalf("tick(5) after SetGlobal(count, -100) = %v, %v; want 5", got, err)
	}
	// 32-bit and float globals cross the API in the API representation.
	for _, tt := range []struct {
		name string
		typ  bytecode.Type
		v    uint64
	}{
		{"limit", bytecode.I32, I32(-2)},
		{"pi", bytecode.F64, F64(3.5)},
		{"small", bytecode.F32, F32(0.25)},
		{"base2", bytecode.I64, 1 << 40},
	} {
		if v, typ, err := inst.Global(tt.name); err != nil || v != tt.v || typ != tt.typ {
			t.Errorf("Global(%s) = %#x, %s, %v; want %#x, %s", tt.name, v, typ, err, tt.v, tt.typ)
		}
	}
	if _, err := inst.Call(ctx, "set32", I32(-1), F32(8)); err != nil {
		t.Fatal(err)
	}
	if v, _, err := inst.Global("small"); err != nil || AsF32(v) != 8 {
		t.Fatalf("small after set32 = %v, %v", AsF32(v), err)
	}
	if err := inst.SetGlobal("small", F32(-0.5)); err != nil {
		t.Fatal(err)
	}
	if got, err := inst.Call(ctx, "get_small"); err != nil || AsF32(got[0]) != -0.5 {
		t.Fatalf("small() = %v, %v", got, err)
	}
	// SetGlobal's refusals.
	for _, tt := range []struct {
		name string
		v    uint64
		want string
	}{
		{"limit", 1, `jit: global "limit" is constant`},
		{"nosuch", 1, `jit: no exported global "nosuch"`},
		{"base", 1, `jit: no exported global "base"`},
		{"small", 1 << 32, `jit: set global "small": value 0x100000000 does not fit in 32 bits (the global is f32)`},
	} {
		if err := inst.SetGlobal(tt.name, tt.v); err == nil || err.Error() != tt.want {
			t.Errorf("SetGlobal(%s, %#x) = %v, want %q", tt.name, tt.v, err, tt.want)
		}
	}
	if _, _, err := inst.Global("tick"); err == nil {
		t.Error("Global of a function's export name succeeded")
	}
	// Every instance has its own globals.
	other, err := mod.Instantiate(globalsImports(&logged))
	if err != nil {
		t.Fatal(err)
	}
	if v, _, err := other.Global("count"); err != nil || v != 0 {
		t.Fatalf("new instance's count = %d, %v", v, err)
	}
}

// TestGlobalAccessDuringCall checks that Global and SetGlobal refuse to
// run while a call runs on the instance.
func TestGlobalAccessDuringCall(t *testing.T) {
	mod, err := newEngine(t, Options{}).LoadText([]byte(globalsSrc))
	if err != nil {
		t.Fatal(err)
	}
	imports := globalsImports(new([]int64))
	var inst *Instance
	var setErr, getErr error
	imports["log"] = MustHost(func(int64) {
		setErr = inst.SetGlobal("count", 1)
		_, _, getErr = inst.Global("count")
	})
	if inst, err = mod.Instantiate(imports); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Call(context.Background(), "tick", 1); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(setErr, ErrBusy) || !errors.Is(getErr, ErrBusy) {
		t.Fatalf("during a call: SetGlobal %v, Global %v; want ErrBusy", setErr, getErr)
	}
	if v, _, err := inst.Global("count"); err != nil || v != 101 {
		t.Fatalf("count = %d, %v; want 101", v, err)
	}
}

func TestInstantiateGlobalErrors(t *testing.T) {
	mod, err := newEngine(t, Options{}).LoadText([]byte(globalsSrc))
	if err != nil {
		t.Fatal(err)
	}
	var logged []int64
	with := func(change func(Imports)) func() Imports {
		return func() Imports {
			im := globalsImports(&logged)
			change(im)
			return im
		}
	}
	for _, tt := range []struct {
		name    string
		imports func() Imports
		want    string
	}{
		{"missing", with(func(im Imports) { delete(im, "env.n32") }), `jit: instantiate: missing import "env.n32": the module imports global n32 (i32)`},
		{"wrong type", with(func(im Imports) { im["env.base"] = GlobalF64(1) }), `jit: instantiate: global import "env.base" has type f64; the module imports it as i64`},
		{"i64 for i32", with(func(im Imports) { im["env.n32"] = GlobalI64(1) }), `jit: instantiate: global import "env.n32" has type i64; the module imports it as i32`},
		{"empty", with(func(im Imports) { im["env.f32"] = GlobalImport{} }), `jit: instantiate: global import "env.f32" is empty (build it with jit.GlobalI64 or the like)`},
		{"32-bit value too wide", with(func(im Imports) { im["env.n32"] = GlobalValue(bytecode.I32, 1<<32) }), `jit: instantiate: global import "env.n32": value 0x100000000 does not fit in 32 bits (the global is i32)`},
		{"host function for a global", with(func(im Imports) { im["env.scale"] = MustHost(func() {}) }), `jit: instantiate: import "env.scale" is a host function; the module imports global scale (f64)`},
		{"global for a host function", with(func(im Imports) { im["log"] = GlobalI64(1) }), `jit: instantiate: import "log" is a global; the module imports a host function (i64) -> ()`},
		{"extra global", with(func(im Imports) { im["env.bass"] = GlobalI64(1) }), `jit: instantiate: the module imports no global "env.bass"`},
		{"extra host function", with(func(im Imports) { im["lg"] = MustHost(func() {}) }), `jit: instantiate: the module imports no host function "lg"`},
		{"nil", with(func(im Imports) { im["env.base"] = nil }), `jit: instantiate: import "env.base" is nil`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inst, err := mod.Instantiate(tt.imports())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if inst != nil {
				t.Fatal("Instantiate returned an instance with its error")
			}
		})
	}
}

// incDblSource is the text of two functions of type unop (i64) -> (i64):
// inc adds one, dbl doubles.
const incDblSource = `
func inc (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end

func dbl (i64) -> (i64)
  i64.add r0, r0, r0
  ret r0
end
`

// pickSource returns a module with inc and dbl (incDblSource) and an
// exported pick(i, x) that calls table entry i with x, its table declared
// by tableDecl (elem lines included).
func pickSource(tableDecl string) string {
	return "type unop (i64) -> (i64)\n" + tableDecl + "\n" + incDblSource + `
func pick (i64 i64) -> (i64)
  call_indirect unop, r0 (r1) -> (r1)
  ret r1
end

export "pick" pick
`
}

// TestTableImport supplies an imported table's contents in every tier:
// the element segments apply over them, call_indirect reaches the
// imported entries and traps on the null ones, each instance has its own
// table, and bad imports are refused.
func TestTableImport(t *testing.T) {
	src := pickSource("table 4 import \"env.table\" export \"tab\"\nelem 3 dbl")
	for _, cfg := range tierConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			mod, err := newEngine(t, cfg.opts).LoadText([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			checkCompiled(t, cfg.opts.Tier, mod)
			a, err := mod.Instantiate(Imports{"env.table": TableFuncs("inc", "", "dbl", "inc")})
			if err != nil {
				t.Fatal(err)
			}
			b, err := mod.Instantiate(Imports{"env.table": TableFuncs("dbl", "inc", "", "")})
			if err != nil {
				t.Fatal(err)
			}
			for _, tt := range []struct {
				inst      *Instance
				idx, want uint64
				trap      bytecode.TrapKind
			}{
				{a, 0, 11, 0}, {a, 1, 0, bytecode.TrapUninitializedElement}, {a, 2, 20, 0}, {a, 3, 20, 0},
				{a, 4, 0, bytecode.TrapUndefinedElement},
				{b, 0, 20, 0}, {b, 1, 11, 0}, {b, 2, 0, bytecode.TrapUninitializedElement}, {b, 3, 20, 0},
			} {
				got, err := tt.inst.Call(context.Background(), "pick", tt.idx, 10)
				var trap *bytecode.Trap
				switch {
				case tt.trap != 0 && (!errors.As(err, &trap) || trap.Kind != tt.trap):
					t.Errorf("pick(%d) = %v, %v; want a %s trap", tt.idx, got, err, tt.trap)
				case tt.trap == 0 && (err != nil || got[0] != tt.want):
					t.Errorf("pick(%d) = %v, %v; want %d", tt.idx, got, err, tt.want)
				}
			}
			if name, ok, err := b.TableEntry(1); err != nil || !ok || name != "inc" {
				t.Errorf("TableEntry(1) = %q, %v, %v; want inc", name, ok, err)
			}
			if !runtime.Supported() || cfg.opts.Tier != TierInterp {
				return
			}
			if err := a.Optimize(); err != nil {
				t.Fatal(err)
			}
			if got, err := a.Call(context.Background(), "pick", 2, 10); err != nil || got[0] != 20 {
				t.Errorf("after Optimize: pick(2) = %v, %v; want 20", got, err)
			}
		})
	}
	mod, err := newEngine(t, Options{}).LoadText([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		imports Imports
		want    string
	}{
		{"missing", nil, `jit: instantiate: missing import "env.table": the module imports its table`},
		{"wrong size", Imports{"env.table": TableFuncs("inc")}, `jit: instantiate: table import "env.table" has 1 entries; the module's table has 4`},
		{"unknown function", Imports{"env.table": TableFuncs("inc", "neg", "", "")}, `jit: instantiate: table import "env.table": entry 1 names no function of the module ("neg")`},
		{"not a table", Imports{"env.table": GlobalI64(1)}, `jit: instantiate: import "env.table" is a global; the module imports its table`},
	} {
		if _, err := mod.Instantiate(tt.imports); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestTableEntry(t *testing.T) {
	src := `type t () -> ()
table 4 8 export "tab"
elem 1 a b
elem 2 a
func a () -> ()
  ret
end
func b () -> ()
  ret
end
`
	mod, err := newEngine(t, Options{}).LoadText([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		idx     uint32
		name    string
		ok      bool
		wantErr string
	}{
		{0, "", false, ""},
		{1, "a", true, ""},
		{2, "a", true, ""},
		{3, "", false, ""},
		{4, "", false, "jit: table index 4 out of range (the table has 4 entries)"},
		{math.MaxUint32, "", false, "jit: table index 4294967295 out of range (the table has 4 entries)"},
	} {
		name, ok, err := inst.TableEntry(tt.idx)
		if name != tt.name || ok != tt.ok || (err == nil) != (tt.wantErr == "") || err != nil && err.Error() != tt.wantErr {
			t.Errorf("TableEntry(%d) = %q, %v, %v; want %q, %v, %q", tt.idx, name, ok, err, tt.name, tt.ok, tt.wantErr)
		}
	}
	// A table that is not exported cannot be inspected.
	mod, err = newEngine(t, Options{}).LoadText([]byte(strings.Replace(src, ` export "tab"`, "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if inst, err = mod.Instantiate(nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := inst.TableEntry(1); err == nil || err.Error() != "jit: the module exports no table" {
		t.Fatalf("TableEntry of an unexported table: %v", err)
	}
}

// TestIndirectCallTrapThroughAPI checks the trap an indirect call returns
// through the API: its kind, function, offset and message, and that the
// instance goes on working after it.
func TestIndirectCallTrapThroughAPI(t *testing.T) {
	mod, err := newEngine(t, Options{Tier: TierOptimizing}).Load(testprogs.TableModule())
	if err != nil {
		t.Fatal(err)
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		fn   string
		args []uint64
		kind bytecode.TrapKind
		msg  string
	}{
		{"call_unop", []uint64{12, 1}, bytecode.TrapUndefinedElement, "trap: undefined element in call_unop at instruction 0"},
		{"twice", []uint64{7, 1}, bytecode.TrapUninitializedElement, "trap: uninitialized element in twice at instruction 0"},
		{"call_binop", []uint64{1, 1, 1}, bytecode.TrapIndirectCallTypeMismatch, "trap: indirect call type mismatch in call_binop at instruction 0"},
		{"maybe", []uint64{0}, bytecode.TrapUnreachable, "trap: unreachable executed in maybe at instruction 1"},
	} {
		_, err := inst.Call(context.Background(), tt.fn, tt.args...)
		var trap *bytecode.Trap
		if !errors.As(err, &trap) || trap.Kind != tt.kind || err.Error() != tt.msg {
			t.Errorf("%s%v: error %v, want %q", tt.fn, tt.args, err, tt.msg)
		}
		if got, err := inst.Call(context.Background(), "call_unop", 0, 41); err != nil || got[0] != 42 {
			t.Fatalf("after the trap: call_unop(0, 41) = %v, %v", got, err)
		}
	}
}

// TestModuleWithoutFunctions instantiates a module of data and globals
// only, in every tier.
func TestModuleWithoutFunctions(t *testing.T) {
	for _, cfg := range tierConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			mod, err := newEngine(t, cfg.opts).LoadText([]byte("memory 1 1\ndata 3 \"abc\"\nglobal g i32 mut = 7 export \"g\"\n"))
			if err != nil {
				t.Fatal(err)
			}
			checkCompiled(t, cfg.opts.Tier, mod)
			inst, err := mod.Instantiate(nil)
			if err != nil {
				t.Fatal(err)
			}
			if v, _, err := inst.Global("g"); err != nil || v != 7 {
				t.Errorf("global g = %d, %v; want 7", v, err)
			}
			if got := string(inst.Memory()[3:6]); got != "abc" {
				t.Errorf("memory holds %q, want %q", got, "abc")
			}
		})
	}
}
