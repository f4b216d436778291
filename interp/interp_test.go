package interp

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// newMachine prepares m and returns a machine with the given hosts.
func newMachine(t testing.TB, m *bc.Module, cfg Config, hosts ...HostFunc) *Machine {
	t.Helper()
	p, err := Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	mem := NewMemory(m.Memory.MinPages, m.Memory.MaxPages)
	m.ApplyData(mem.Bytes)
	mach, err := NewMachine(p, cfg, hosts, mem)
	if err != nil {
		t.Fatal(err)
	}
	return mach
}

func call(t testing.TB, mach *Machine, ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	t.Helper()
	m := mach.Program().Module
	fn := m.ExportedFunc(name)
	if fn < 0 {
		t.Fatalf("no export %q", name)
	}
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	err := mach.Call(ctx, fn, args, res)
	return res, err
}

func TestInstructionSemantics(t *testing.T) {
	for _, c := range testprogs.InstructionCases() {
		t.Run(c.Name, func(t *testing.T) {
			mach := newMachine(t, c.Module, Config{})
			got, err := call(t, mach, context.Background(), c.Func, c.Args...)
			if err := c.Check(got, err, mach.Memory.Bytes); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func assemble(t testing.TB, build func(b *bc.ModuleBuilder)) *bc.Module {
	t.Helper()
	b := bc.NewModuleBuilder()
	build(b)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// countdown(n) loops n times and returns the number of iterations.
func countdownModule(t testing.TB) *bc.Module {
	return assemble(t, func(b *bc.ModuleBuilder) {
		f := b.Func("countdown", []bc.Type{bc.I64}, []bc.Type{bc.I64})
		n, i := f.Param(0), f.NewReg(bc.I64)
		loop, done := f.NewLabel(), f.NewLabel()
		f.Bind(loop)
		f.BrCmpImm(bc.OpBrLeS, n, 0, done)
		f.BinaryImm(bc.OpI64Sub, n, n, 1)
		f.BinaryImm(bc.OpI64Add, i, i, 1)
		f.Jump(loop)
		f.Bind(done)
		f.Return(i)
		b.Export("countdown", f)
	})
}

func TestEdgeCounting(t *testing.T) {
	m := countdownModule(t)
	mach := newMachine(t, m, Config{})
	for _, n := range []uint64{3, 5} {
		got, err := call(t, mach, context.Background(), "countdown", n)
		if err != nil || got[0] != n {
			t.Fatalf("countdown(%d) = %v, %v", n, got, err)
		}
	}
	layout := mach.Program().Layouts[0]
	counts := layout.EdgeCounts(mach.Counters[0])
	// Edges: header taken (exit), header not taken, back jump.
	if len(counts) != 3 || counts[0] != 2 || counts[1] != 8 || counts[2] != 8 {
		t.Fatalf("edge counts = %v, want [2 8 8]", counts)
	}
	if mach.Counters[0][0] != 2 {
		t.Fatalf("entry count = %d, want 2", mach.Counters[0][0])
	}
	if got := layout.ExecutedInstructions(mach.Counters[0]); got != 2*1+8*4+2 {
		t.Fatalf("executed instructions = %d", got)
	}
}

func TestSwitchAndCalls(t *testing.T) {
	// classify(x) = switch x { 0: 10, 1: 11, 2: 10, default: sq(x) }.
	m := assemble(t, func(b *bc.ModuleBuilder) {
		sq := b.Func("sq", []bc.Type{bc.I64}, []bc.Type{bc.I64, bc.I64})
		sq.Binary(bc.OpI64Mul, 0, 0, 0)
		sq.Return(0, 0)
		f := b.Func("classify", []bc.Type{bc.I64}, []bc.Type{bc.I64})
		r := f.NewReg(bc.I64)
		l10, l11, def := f.NewLabel(), f.NewLabel(), f.NewLabel()
		f.Switch(0, []bc.Label{l10, l11, l10}, def)
		f.Bind(l10)
		f.I64Const(r, 10)
		f.Return(r)
		f.Bind(l11)
		f.I64Const(r, 11)
		f.Return(r)
		f.Bind(def)
		// Argument and result registers may coincide.
		f.Call(sq.Index(), []bc.Reg{0}, []bc.Reg{r, 0})
		f.Binary(bc.OpI64Add, r, r, 0)
		f.Return(r)
		b.Export("classify", f)
	})
	mach := newMachine(t, m, Config{})
	for in, want := range map[int64]int64{0: 10, 1: 11, 2: 10, 3: 18, -1: 2, 1 << 40: 0} {
		got, err := call(t, mach, context.Background(), "classify", uint64(in))
		if err != nil || int64(got[0]) != want {
			t.Errorf("classify(%d) = %v, %v; want %d", in, got, err, want)
		}
	}
	counts := mach.Program().Layouts[1].EdgeCounts(mach.Counters[1])
	// Switch edges: case 0, case 1, case 2, default.
	if counts[0] != 1 || counts[1] != 1 || counts[2] != 1 || counts[3] != 3 {
		t.Errorf("switch edge counts = %v", counts[:4])
	}
}

// recurseModule: deep(n) = n == 0 ? 0 : 1 + deep(n-1).
func recurseModule(t testing.TB) *bc.Module {
	return assemble(t, func(b *bc.ModuleBuilder) {
		f := b.Func("deep", []bc.Type{bc.I64}, []bc.Type{bc.I64})
		r := f.NewReg(bc.I64)
		base := f.NewLabel()
		f.BrCmpImm(bc.OpBrEq, 0, 0, base)
		f.BinaryImm(bc.OpI64Sub, r, 0, 1)
		f.Call(f.Index(), []bc.Reg{r}, []bc.Reg{r})
		f.BinaryImm(bc.OpI64Add, r, r, 1)
		f.Return(r)
		f.Bind(base)
		f.Return(0)
		b.Export("deep", f)
	})
}

func TestRecursionAndStackOverflow(t *testing.T) {
	mach := newMachine(t, recurseModule(t), Config{MaxCallDepth: 1000})
	got, err := call(t, mach, context.Background(), "deep", 999)
	if err != nil || got[0] != 999 {
		t.Fatalf("deep(999) = %v, %v", got, err)
	}
	_, err = call(t, mach, context.Background(), "deep", 1000)
	var trap *bc.Trap
	if !errors.As(err, &trap) || trap.Kind != bc.TrapStackOverflow || trap.Offset != 2 || trap.FuncName != "deep" {
		t.Fatalf("deep(1000) error = %v, want a stack overflow at instruction 2", err)
	}
	// The machine is usable after a trap.
	got, err = call(t, mach, context.Background(), "deep", 10)
	if err != nil || got[0] != 10 {
		t.Fatalf("after overflow: deep(10) = %v, %v", got, err)
	}
	// The register stack limit also traps.
	mach = newMachine(t, recurseModule(t), Config{MaxStackSlots: 2 * 100})
	if _, err = call(t, mach, context.Background(), "deep", 200); !errors.As(err, &trap) || trap.Kind != bc.TrapStackOverflow {
		t.Fatalf("stack slot limit: error = %v", err)
	}
}

func TestHostCallsAndReentry(t *testing.T) {
	// outer(x) calls host twice(x), which calls back into inner(x) = x+1
	// and doubles its result; outer returns twice(x) + 100.
	m := assemble(t, func(b *bc.ModuleBuilder) {
		b.Memory(1, 1)
		twice := b.Host("twice", []bc.Type{bc.I64}, []bc.Type{bc.I64})
		inner := b.Func("inner", []bc.Type{bc.I64}, []bc.Type{bc.I64})
		inner.BinaryImm(bc.OpI64Add, 0, 0, 1)
		inner.Return(0)
		outer := b.Func("outer", []bc.Type{bc.I64}, []bc.Type{bc.I64})
		r := outer.NewReg(bc.I64)
		outer.CallHost(twice, []bc.Reg{0}, []bc.Reg{r})
		outer.BinaryImm(bc.OpI64Add, r, r, 100)
		outer.Return(r)
		b.Export("outer", outer)
		b.Export("inner", inner)
	})
	var mach *Machine
	host := func(ctx context.Context, args, results []uint64) error {
		res := make([]uint64, 1)
		if err := mach.Call(ctx, 0, args, res); err != nil {
			return err
		}
		results[0] = 2 * res[0]
		return nil
	}
	mach = newMachine(t, m, Config{}, host)
	got, err := call(t, mach, context.Background(), "outer", 20)
	if err != nil || got[0] != 142 {
		t.Fatalf("outer(20) = %v, %v; want 142", got, err)
	}
	// A host error becomes a HostError trap wrapping it.
	boom := errors.New("boom")
	mach = newMachine(t, m, Config{}, func(context.Context, []uint64, []uint64) error { return boom })
	_, err = call(t, mach, context.Background(), "outer", 1)
	var trap *bc.Trap
	if !errors.As(err, &trap) || trap.Kind != bc.TrapHostError || trap.Offset != 0 || !errors.Is(err, boom) {
		t.Fatalf("host error = %v", err)
	}
}

func TestExplicitTrap(t *testing.T) {
	m := assemble(t, func(b *bc.ModuleBuilder) {
		f := b.Func("f", nil, nil)
		f.Trap(77)
		b.Export("f", f)
	})
	_, err := call(t, newMachine(t, m, Config{}), context.Background(), "f")
	var trap *bc.Trap
	if !errors.As(err, &trap) || trap.Kind != bc.TrapExplicit || trap.Code != 77 {
		t.Fatalf("error = %v", err)
	}
	if want := "trap: explicit trap 77 in f at instruction 0"; err.Error() != want {
		t.Fatalf("message %q, want %q", err.Error(), want)
	}
}

func infiniteModule(t testing.TB) *bc.Module {
	return assemble(t, func(b *bc.ModuleBuilder) {
		f := b.Func("spin", nil, []bc.Type{bc.I64})
		i := f.NewReg(bc.I64)
		loop := f.NewLabel()
		f.Bind(loop)
		f.BinaryImm(bc.OpI64Add, i, i, 1)
		f.Jump(loop)
		b.Export("spin", f)
	})
}

func TestContextInterruptsLoop(t *testing.T) {
	mach := newMachine(t, infiniteModule(t), Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := call(t, mach, ctx, "spin")
	var trap *bc.Trap
	if !errors.As(err, &trap) || trap.Kind != bc.TrapInterrupted || trap.Offset != 1 {
		t.Fatalf("error = %v, want an interrupt at instruction 1", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v does not wrap the context's error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("interrupt took %v", d)
	}
	// An already cancelled context stops the call before it starts.
	if _, err := call(t, mach, ctx, "spin"); !errors.As(err, &trap) || trap.Kind != bc.TrapInterrupted {
		t.Fatalf("cancelled context: %v", err)
	}
}

func TestFuel(t *testing.T) {
	// countdown(n) takes n backward jumps.
	m := countdownModule(t)
	for _, tt := range []struct {
		fuel int64
		n    uint64
		ok   bool
	}{{10, 10, true}, {10, 11, false}, {5000, 5000, true}, {5000, 5001, false}, {1, 0, true}} {
		mach := newMachine(t, m, Config{Fuel: tt.fuel})
		got, err := call(t, mach, context.Background(), "countdown", tt.n)
		if tt.ok {
			if err != nil || got[0] != tt.n {
				t.Errorf("fuel %d, n %d: %v, %v", tt.fuel, tt.n, got, err)
			}
			if left := mach.FuelLeft(); left != tt.fuel-int64(tt.n) {
				t.Errorf("fuel %d, n %d: %d left", tt.fuel, tt.n, left)
			}
			continue
		}
		var trap *bc.Trap
		if !errors.As(err, &trap) || trap.Kind != bc.TrapFuelExhausted || trap.Offset != 3 {
			t.Errorf("fuel %d, n %d: error %v, want fuel exhausted at instruction 3", tt.fuel, tt.n, err)
		}
	}
	// Calls spend fuel too: deep(n) makes n calls.
	mach := newMachine(t, recurseModule(t), Config{Fuel: 50})
	if _, err := call(t, mach, context.Background(), "deep", 50); err != nil {
		t.Errorf("deep(50) with fuel 50: %v", err)
	}
	var trap *bc.Trap
	if _, err := call(t, mach, context.Background(), "deep", 51); !errors.As(err, &trap) || trap.Kind != bc.TrapFuelExhausted {
		t.Errorf("deep(51) with fuel 50: %v", err)
	}
}

func TestMemoryGrow(t *testing.T) {
	m := assemble(t, func(b *bc.ModuleBuilder) {
		b.Memory(1, 3)
		f := b.Func("grow", []bc.Type{bc.I64}, []bc.Type{bc.I64, bc.I64, bc.I64})
		old, size, v := f.NewReg(bc.I64), f.NewReg(bc.I64), f.NewReg(bc.I64)
		f.MemoryGrow(old, 0)
		f.MemorySize(size)
		// Load the last byte of the grown memory (zero), after storing 7
		// just below it.
		f.BinaryImm(bc.OpI64Mul, v, size, bc.PageSize)
		f.I64Const(0, 7)
		f.Store(bc.OpI64Store8, v, 0, -2)
		f.Load(bc.OpI64Load8U, v, v, -1)
		f.Return(old, size, v)
		b.Export("grow", f)
	})
	mach := newMachine(t, m, Config{})
	got, err := call(t, mach, context.Background(), "grow", 1)
	if err != nil || got[0] != 1 || got[1] != 2 || got[2] != 0 {
		t.Fatalf("grow(1) = %v, %v", got, err)
	}
	if mach.Memory.Bytes[2*bc.PageSize-2] != 7 {
		t.Fatal("store into grown memory lost")
	}
	got, err = call(t, mach, context.Background(), "grow", 2)
	if err != nil || int64(got[0]) != -1 || got[1] != 2 {
		t.Fatalf("grow(2) beyond max = %v, %v", got, err)
	}
	got, err = call(t, mach, context.Background(), "grow", math.MaxUint64)
	if err != nil || int64(got[0]) != -1 {
		t.Fatalf("grow(huge) = %v, %v", got, err)
	}
}

func TestRegistersStartAtZero(t *testing.T) {
	// f fills registers with garbage and calls g, whose registers must
	// still read as zero, of every type.
	for _, ts := range [][2]bc.Type{{bc.I64, bc.F64}, {bc.I32, bc.F32}} {
		m := assemble(t, func(b *bc.ModuleBuilder) {
			g := b.Func("g", nil, ts[:])
			gi, gf := g.NewReg(ts[0]), g.NewReg(ts[1])
			g.Return(gi, gf)
			f := b.Func("f", nil, ts[:])
			for i := 0; i < 4; i++ {
				f.I64Const(f.NewReg(bc.I64), -1)
			}
			r1, r2 := f.NewReg(ts[0]), f.NewReg(ts[1])
			f.Call(g.Index(), nil, []bc.Reg{r1, r2})
			f.Call(g.Index(), nil, []bc.Reg{r1, r2})
			f.Return(r1, r2)
			b.Export("f", f)
		})
		got, err := call(t, newMachine(t, m, Config{}), context.Background(), "f")
		if err != nil || got[0] != 0 || got[1] != 0 {
			t.Fatalf("%v: f() = %v, %v", ts, got, err)
		}
	}
}

func TestCallArgumentErrors(t *testing.T) {
	mach := newMachine(t, countdownModule(t), Config{})
	if err := mach.Call(context.Background(), 5, nil, nil); err == nil {
		t.Error("out-of-range function accepted")
	}
	if err := mach.Call(context.Background(), 0, nil, make([]uint64, 1)); err == nil {
		t.Error("wrong argument count accepted")
	}
	if _, err := NewMachine(mach.Program(), Config{}, []HostFunc{nil}, NewMemory(0, 0)); err == nil {
		t.Error("host count mismatch accepted")
	}
}
