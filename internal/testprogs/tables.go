package testprogs

import (
	"math"

	"github.com/kiln-jit/kiln/bytecode"
)

// tableSource uses globals, a table with overlapping element segments,
// call_indirect through signatures equal and not equal to the callee's (one
// of them twice in Types under different indices), with i32 and i64
// indices, and unreachable. Table entries: 0 inc, 1 dbl, 2 null, 3 add,
// 4 fact, 5 inc32, 6 bump, 7 null, 8 dbl (the last segment overwrites inc),
// 9 forever; the table has 10 entries.
const tableSource = `type unop (i64) -> (i64)
type binop (i64 i64) -> (i64)
type op32 (i32) -> (i32)
type unop2 (i64) -> (i64)
global counter i64 mut = 10
global limit i32 = -1
global fl f64 mut = 1.5
global fs f32 mut = 0.5
global big i64 = -9223372036854775808
table 10 16
elem 0 inc dbl
elem 3 add fact
elem 5 inc32 bump
elem 8 inc forever
elem 8 dbl

func inc (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end

func dbl (i64) -> (i64)
  i64.add r0, r0, r0
  ret r0
end

func add (i64 i64) -> (i64)
  i64.add r0, r0, r1
  ret r0
end

; fact(n) recurses through table entry 4.
func fact (i64) -> (i64)
  regs i64 i64
  br.le_s r0, 1, small
  i64.sub r1, r0, 1
  i64.const r2, 4
  call_indirect unop, r2 (r1) -> (r1)
  i64.mul r0, r0, r1
  ret r0
small:
  i64.const r0, 1
  ret r0
end

func inc32 (i32) -> (i32)
  i32.add r0, r0, 1
  ret r0
end

; bump(d) adds d to counter and returns the new value.
func bump (i64) -> (i64)
  regs i64
  global.get r1, counter
  i64.add r1, r1, r0
  global.set counter, r1
  ret r1
end

; forever(x) calls itself through table entry 9 until the stack overflows.
func forever (i64) -> (i64)
  regs i64
  i64.const r1, 9
  call_indirect unop, r1 (r0) -> (r0)
  ret r0
end

func call_unop (i64 i64) -> (i64)
  call_indirect unop, r0 (r1) -> (r1)
  ret r1
end

func call_unop2 (i64 i64) -> (i64)
  call_indirect unop2, r0 (r1) -> (r1)
  ret r1
end

func call_unop_i32 (i32 i64) -> (i64)
  call_indirect unop, r0 (r1) -> (r1)
  ret r1
end

func call_binop (i64 i64 i64) -> (i64)
  call_indirect binop, r0 (r1, r2) -> (r1)
  ret r1
end

func call_op32 (i64 i32) -> (i32)
  call_indirect op32, r0 (r1) -> (r1)
  ret r1
end

; twice(i, x) calls entry i on x, then on the result.
func twice (i64 i64) -> (i64)
  call_indirect unop, r0 (r1) -> (r1)
  call_indirect unop, r0 (r1) -> (r1)
  ret r1
end

; bump_twice(d) bumps counter by d twice through the table and reads it.
func bump_twice (i64) -> (i64)
  regs i64 i64
  i64.const r1, 6
  call_indirect unop, r1 (r0) -> (r2)
  call_indirect unop, r1 (r0) -> (r2)
  global.get r2, counter
  ret r2
end

func globals () -> (i64 i32 f64 f32 i64)
  regs i64 i32 f64 f32 i64
  global.get r0, counter
  global.get r1, limit
  global.get r2, fl
  global.get r3, fs
  global.get r4, big
  ret r0, r1, r2, r3, r4
end

func set_floats (f64 f32) -> (f64 f32)
  regs f64 f32
  global.set fl, r0
  global.set fs, r1
  global.get r2, fl
  global.get r3, fs
  ret r2, r3
end

func boom () -> ()
  unreachable
end

func maybe (i64) -> (i64)
  br_if r0, ok
  unreachable
ok:
  ret r0
end
`

// TableModule returns a new module using globals, a table, call_indirect
// and unreachable; TableCases calls its exported functions. Each function
// is exported under its own name.
func TableModule() *bytecode.Module {
	m, err := bytecode.Assemble([]byte(tableSource))
	if err != nil {
		panic("testprogs: table module: " + err.Error())
	}
	for i, f := range m.Funcs {
		m.Exports = append(m.Exports, bytecode.Export{Name: f.Name, Func: uint32(i)})
	}
	return m
}

// TableCases returns cases of global.get, global.set, call_indirect (every
// trap it has, recursion and nesting through the table) and unreachable.
// All of them share one module, which has no imports; every case expects
// a fresh instance, whose globals have their initial values.
func TableCases() []Case {
	m := TableModule()
	u32 := func(v int32) uint64 { return uint64(uint32(v)) }
	f32 := func(v float32) uint64 { return uint64(math.Float32bits(v)) }
	var cases []Case
	ok := func(name, fn string, args []uint64, want ...uint64) {
		cases = append(cases, Case{Name: "table/" + name, Module: m, Func: fn, Args: args, Want: want})
	}
	trap := func(name, fn string, args []uint64, kind bytecode.TrapKind, trapFunc string, off int) {
		cases = append(cases, Case{Name: "table/" + name, Module: m, Func: fn, Args: args, Trap: kind, TrapFunc: trapFunc, TrapOffset: off})
	}
	ok("inc", "call_unop", []uint64{0, 5}, 6)
	ok("dbl", "call_unop", []uint64{1, 5}, 10)
	ok("overwritten entry", "call_unop", []uint64{8, 5}, 10)
	ok("same signature, other type index", "call_unop2", []uint64{1, 5}, 10)
	ok("i32 index", "call_unop_i32", []uint64{1, 5}, 10)
	ok("binop", "call_binop", []uint64{3, 2, 3}, 5)
	ok("op32", "call_op32", []uint64{5, 7}, 8)
	ok("op32 wraps", "call_op32", []uint64{5, u32(-1)}, 0)
	ok("recursion through the table", "call_unop", []uint64{4, 5}, 120)
	ok("deep recursion through the table", "call_unop", []uint64{4, 20}, 2432902008176640000)
	ok("nested", "twice", []uint64{1, 3}, 12)
	ok("global.set through the table", "call_unop", []uint64{6, 5}, 15)
	ok("globals across indirect calls", "bump_twice", []uint64{5}, 20)
	ok("initial globals", "globals", nil, 10, u32(-1), F(1.5), f32(0.5), I(math.MinInt64))
	ok("float globals", "set_floats", []uint64{F(-2.25), f32(3.5)}, F(-2.25), f32(3.5))
	ok("unreachable not reached", "maybe", []uint64{7}, 7)

	trap("null entry", "call_unop", []uint64{2, 5}, bytecode.TrapUninitializedElement, "", 0)
	trap("null entry past the segments", "call_unop", []uint64{7, 5}, bytecode.TrapUninitializedElement, "", 0)
	trap("binop as unop", "call_unop", []uint64{3, 5}, bytecode.TrapIndirectCallTypeMismatch, "", 0)
	trap("op32 as unop", "call_unop", []uint64{5, 5}, bytecode.TrapIndirectCallTypeMismatch, "", 0)
	trap("unop as binop", "call_binop", []uint64{0, 2, 3}, bytecode.TrapIndirectCallTypeMismatch, "", 0)
	trap("unop as op32", "call_op32", []uint64{0, 1}, bytecode.TrapIndirectCallTypeMismatch, "", 0)
	trap("index at the size", "call_unop", []uint64{10, 5}, bytecode.TrapUndefinedElement, "", 0)
	trap("index past 32 bits", "call_unop", []uint64{1 << 32, 5}, bytecode.TrapUndefinedElement, "", 0)
	trap("index -1", "call_unop", []uint64{I(-1), 5}, bytecode.TrapUndefinedElement, "", 0)
	trap("i32 index -1", "call_unop_i32", []uint64{u32(-1), 5}, bytecode.TrapUndefinedElement, "", 0)
	trap("nested null entry", "twice", []uint64{2, 3}, bytecode.TrapUninitializedElement, "", 0)
	trap("stack overflow through the table", "call_unop", []uint64{9, 1}, bytecode.TrapStackOverflow, "forever", 1)
	trap("unreachable", "boom", nil, bytecode.TrapUnreachable, "", 0)
	trap("unreachable after a branch", "maybe", []uint64{0}, bytecode.TrapUnreachable, "", 1)
	return cases
}

// AllCases returns InstructionCases, ProgramCases and TableCases, in that
// order: every shared case, each expecting a fresh instance.
func AllCases() []Case {
	cases := append(InstructionCases(), ProgramCases()...)
	return append(cases, TableCases()...)
}

// CaseModules returns the distinct modules of AllCases and then of the
// kernels, in order, for tests that take every shared module through a
// stage.
func CaseModules() []*bytecode.Module {
	var mods []*bytecode.Module
	seen := map[*bytecode.Module]bool{}
	add := func(m *bytecode.Module) {
		if !seen[m] {
			seen[m] = true
			mods = append(mods, m)
		}
	}
	for _, c := range AllCases() {
		add(c.Module)
	}
	for _, k := range Kernels() {
		add(k.Module)
	}
	return mods
}
