package interp

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// TestTableCases runs the shared cases of globals, call_indirect and
// unreachable, each on a fresh machine.
func TestTableCases(t *testing.T) {
	cases := testprogs.TableCases()
	p, err := Prepare(cases[0].Module)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			mach, err := NewMachine(p, Config{}, nil, NewMemory(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			got, err := call(t, mach, context.Background(), c.Func, c.Args...)
			if err := c.Check(got, err, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTrapKindsOfTable checks the text of the new trap kinds.
func TestTrapKindsOfTable(t *testing.T) {
	mach := newMachine(t, testprogs.TableModule(), Config{})
	for _, tt := range []struct {
		fn   string
		args []uint64
		want string
	}{
		{"boom", nil, "trap: unreachable executed in boom at instruction 0"},
		{"call_unop", []uint64{10, 0}, "trap: undefined element in call_unop at instruction 0"},
		{"call_unop", []uint64{2, 0}, "trap: uninitialized element in call_unop at instruction 0"},
		{"call_unop", []uint64{3, 0}, "trap: indirect call type mismatch in call_unop at instruction 0"},
		{"twice", []uint64{7, 0}, "trap: uninitialized element in twice at instruction 0"},
	} {
		_, err := call(t, mach, context.Background(), tt.fn, tt.args...)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s%v: error %v, want %q", tt.fn, tt.args, err, tt.want)
		}
	}
}

// TestGlobalsPerMachine checks that globals keep their values across calls
// of one machine, that every machine has its own, and that Globals is the
// storage global.get reads.
func TestGlobalsPerMachine(t *testing.T) {
	p, err := Prepare(testprogs.TableModule())
	if err != nil {
		t.Fatal(err)
	}
	newMach := func() *Machine {
		m, err := NewMachine(p, Config{}, nil, NewMemory(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := newMach(), newMach()
	ctx := context.Background()
	for _, want := range []uint64{13, 16, 19} {
		if got, err := call(t, a, ctx, "bump", 3); err != nil || got[0] != want {
			t.Fatalf("bump(3) = %v, %v; want %d", got, err, want)
		}
	}
	if got, err := call(t, b, ctx, "bump", 1); err != nil || got[0] != 11 {
		t.Fatalf("second machine: bump(1) = %v, %v; want 11", got, err)
	}
	counter := p.Module.GlobalIndex("counter")
	if g := a.Globals()[counter]; g != 19 {
		t.Fatalf("Globals()[counter] = %d, want 19", g)
	}
	a.Globals()[counter] = 100
	if got, err := call(t, a, ctx, "bump", 0); err != nil || got[0] != 100 {
		t.Fatalf("after writing Globals: bump(0) = %v, %v; want 100", got, err)
	}
	// A trap leaves the globals as the call set them.
	if _, err := call(t, a, ctx, "bump_twice", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, a, ctx, "call_unop", 3, 0); err == nil {
		t.Fatal("call_unop(3) did not trap")
	}
	if g := a.Globals()[counter]; g != 102 {
		t.Fatalf("counter after bump_twice(1) and a trap = %d, want 102", g)
	}
}

// TestImportedGlobals checks that imported globals start at zero and take
// the values the embedder stores before the first call, 32-bit ones
// zero-extended.
func TestImportedGlobals(t *testing.T) {
	m, err := bc.Assemble([]byte(`global a i64 import "a"
global b i32 mut import "b"
global c f32 import "c"
global d f64 = -0
func get () -> (i64 i32 f32 f64)
  regs i64 i32 f32 f64
  global.get r0, a
  global.get r1, b
  global.get r2, c
  global.get r3, d
  ret r0, r1, r2, r3
end
func setb (i32) -> ()
  global.set b, r0
  ret
end
export "get" get
export "setb" setb
`))
	if err != nil {
		t.Fatal(err)
	}
	mach := newMachine(t, m, Config{})
	negZero := math.Float64bits(math.Copysign(0, -1))
	ctx := context.Background()
	got, err := call(t, mach, ctx, "get")
	if err != nil || got[0] != 0 || got[1] != 0 || got[2] != 0 || got[3] != negZero {
		t.Fatalf("before the imports are set: get() = %x, %v", got, err)
	}
	g := mach.Globals()
	if len(g) != 4 {
		t.Fatalf("%d globals", len(g))
	}
	g[0], g[1], g[2] = 1<<40, 0xfffffffe, uint64(math.Float32bits(-1.5))
	got, err = call(t, mach, ctx, "get")
	if err != nil || got[0] != 1<<40 || got[1] != 0xfffffffe || got[2] != uint64(math.Float32bits(-1.5)) {
		t.Fatalf("get() = %x, %v", got, err)
	}
	// global.set of an i32 argument: Call narrows the argument, and the
	// global holds it zero-extended.
	if _, err := call(t, mach, ctx, "setb", 0xffffffff_00000007); err != nil {
		t.Fatal(err)
	}
	if g[1] != 7 {
		t.Fatalf("b = %#x after setb, want 7", g[1])
	}
}

// TestIndirectCallLimits checks that call_indirect spends fuel, counts the
// callee's entries and is held to the depth and stack limits exactly as
// call is: the same module runs with either kind of call.
func TestIndirectCallLimits(t *testing.T) {
	for _, instr := range []string{
		"call deep (r0) -> (r0)",
		"call_indirect t, r1 (r0) -> (r0)", // r1 is 0: entry 0 is deep
	} {
		t.Run(instr, func(t *testing.T) {
			src := `type t (i64) -> (i64)
table 1
elem 0 deep
func f (i64) -> (i64)
  regs i64
  CALL
  CALL
  CALL
  CALL
  CALL
  ret r0
end
func deep (i64) -> (i64)
  regs i64
  br.eq r0, 0, done
  i64.sub r0, r0, 1
  CALL
done:
  ret r0
end
export "f" f
export "deep" deep
`
			m, err := bc.Assemble([]byte(strings.ReplaceAll(src, "CALL", instr)))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var trap *bc.Trap

			// Five calls with fuel for three: the fourth traps.
			mach := newMachine(t, m, Config{Fuel: 3})
			_, err = call(t, mach, ctx, "f", 0)
			if !errors.As(err, &trap) || trap.Kind != bc.TrapFuelExhausted || trap.FuncName != "f" || trap.Offset != 3 {
				t.Fatalf("fuel: error %v, want fuel exhausted in f at 3", err)
			}
			if n := mach.Counters[m.FuncIndex("deep")][0]; n != 3 {
				t.Fatalf("deep entered %d times, want 3", n)
			}

			mach = newMachine(t, m, Config{MaxCallDepth: 100})
			if got, err := call(t, mach, ctx, "deep", 99); err != nil || got[0] != 0 {
				t.Fatalf("deep(99) = %v, %v", got, err)
			}
			_, err = call(t, mach, ctx, "deep", 100)
			if !errors.As(err, &trap) || trap.Kind != bc.TrapStackOverflow || trap.FuncName != "deep" || trap.Offset != 2 {
				t.Fatalf("depth: error %v, want a stack overflow in deep at 2", err)
			}
			mach = newMachine(t, m, Config{MaxStackSlots: 2 * 50})
			_, err = call(t, mach, ctx, "deep", 100)
			if !errors.As(err, &trap) || trap.Kind != bc.TrapStackOverflow || trap.Offset != 2 {
				t.Fatalf("stack slots: error %v, want a stack overflow at 2", err)
			}
		})
	}
}

func TestProgramTableFunc(t *testing.T) {
	p, err := Prepare(testprogs.TableModule())
	if err != nil {
		t.Fatal(err)
	}
	m := p.Module
	for _, tt := range []struct {
		i    uint64
		fn   string
		size bool
	}{
		{0, "inc", true}, {1, "dbl", true}, {2, "", true}, {8, "dbl", true}, {9, "forever", true},
		{10, "", false}, {math.MaxUint64, "", false},
	} {
		fn, ok := p.TableFunc(tt.i)
		name := ""
		if fn >= 0 {
			name = m.Funcs[fn].Name
		}
		if name != tt.fn || ok != tt.size {
			t.Errorf("TableFunc(%d) = %q, %v; want %q, %v", tt.i, name, ok, tt.fn, tt.size)
		}
	}
}
