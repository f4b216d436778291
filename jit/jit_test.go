package jit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/profilecounters"
	kilnrt "github.com/kiln-jit/kiln/runtime"
)

const sumSrc = `
memory 1 2
data 0 "hello"
host print (i64) -> ()
host scale (f64) -> (f64)
host peek (i64) -> (i64)

; sum(n) = 0 + 1 + ... + n-1, printing each i.
func sum (i64) -> (i64)
  regs i64 i64
loop:
  br.ge_s r1, r0, done
  call_host print (r1) -> ()
  i64.add r2, r2, r1
  i64.add r1, r1, 1
  jump loop
done:
  ret r2
end

func half (f64) -> (f64)
  call_host scale (r0) -> (r0)
  ret r0
end

func first () -> (i64)
  regs i64
  call_host peek (r0) -> (r0)
  ret r0
end

func div (i64 i64) -> (i64)
  i64.div_s r0, r0, r1
  ret r0
end

export "sum" sum
export "half" half
export "first" first
export "div" div
`

func newEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	e, err := NewEngine(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func sumImports(printed *[]int64) Imports {
	return Imports{
		"print": MustHost(func(v int64) { *printed = append(*printed, v) }),
		"scale": MustHost(func(ctx context.Context, x float64) float64 { return x / 2 }),
		"peek": MustHost(func(c *Caller, off int64) (int64, error) {
			b, err := c.ReadMemory(uint64(off), 1)
			if err != nil {
				return 0, err
			}
			return int64(b[0]), nil
		}),
	}
}

// sumInstance loads sumSrc under opts and instantiates it; printed
// collects what its print host function receives.
func sumInstance(t *testing.T, opts Options, printed *[]int64) *Instance {
	t.Helper()
	mod, err := newEngine(t, opts).LoadText([]byte(sumSrc))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := mod.Instantiate(sumImports(printed))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func TestEndToEnd(t *testing.T) {
	var printed []int64
	inst := sumInstance(t, Options{}, &printed)
	ctx := context.Background()
	res, err := inst.Call(ctx, "sum", 5)
	if err != nil || res[0] != 10 {
		t.Fatalf("sum(5) = %v, %v", res, err)
	}
	if fmt.Sprint(printed) != "[0 1 2 3 4]" {
		t.Fatalf("printed %v", printed)
	}
	res, err = inst.Call(ctx, "half", F64(3))
	if err != nil || AsF64(res[0]) != 1.5 {
		t.Fatalf("half(3) = %v, %v", res, err)
	}
	res, err = inst.Call(ctx, "first")
	if err != nil || res[0] != 'h' {
		t.Fatalf("first() = %v, %v", res, err)
	}
	_, err = inst.Call(ctx, "div", 1, 0)
	var trap *bytecode.Trap
	if !errors.As(err, &trap) || trap.Kind != bytecode.TrapDivideByZero || trap.FuncName != "div" || trap.Offset != 0 {
		t.Fatalf("div(1, 0) error = %v", err)
	}
	if err := inst.WriteMemory(0, []byte("J")); err != nil {
		t.Fatal(err)
	}
	if res, _ := inst.Call(ctx, "first"); res[0] != 'J' {
		t.Fatalf("first() after WriteMemory = %v", res)
	}
	if _, err := inst.ReadMemory(2*bytecode.PageSize, 1); err == nil {
		t.Fatal("out-of-range ReadMemory succeeded")
	}
	if _, err := inst.Call(ctx, "nope"); err == nil {
		t.Fatal("call of a missing export succeeded")
	}
	if _, err := inst.Call(ctx, "sum"); err == nil {
		t.Fatal("call with too few arguments succeeded")
	}
}

func TestStats(t *testing.T) {
	var printed []int64
	// The interpreter counts; compiled code (which the default tier
	// reaches once hot) does not.
	inst := sumInstance(t, Options{Tier: TierInterp}, &printed)
	f, err := inst.Func("sum")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []uint64{10, 20} {
		if _, err := f.Call(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	s := inst.Stats()[0]
	if s.Name != "sum" || s.Calls != 2 || s.Tier != TierInterp {
		t.Fatalf("stats = %+v", s)
	}
	// sum's edges: loop test taken (exit), not taken, back jump.
	want := []EdgeStats{
		{From: 0, To: 5, Kind: profilecounters.EdgeTaken, Count: 2},
		{From: 0, To: 1, Kind: profilecounters.EdgeNotTaken, Count: 30},
		{From: 4, To: 0, Kind: profilecounters.EdgeJump, Count: 30},
	}
	if fmt.Sprint(s.Edges) != fmt.Sprint(want) {
		t.Fatalf("edges = %+v, want %+v", s.Edges, want)
	}
	if s.Instructions != 32*1+30*4+2 {
		t.Fatalf("instructions = %d", s.Instructions)
	}
	prof, err := inst.Profile("sum")
	if err != nil || !prof.Measured || prof.BlockFreq[1] < 14 || prof.BlockFreq[1] > 16 {
		t.Fatalf("profile = %+v, %v", prof, err)
	}
}

func TestInstantiateErrors(t *testing.T) {
	mod, err := newEngine(t, Options{}).LoadText([]byte(sumSrc))
	if err != nil {
		t.Fatal(err)
	}
	var printed []int64
	good := sumImports(&printed)
	for _, tt := range []struct {
		name    string
		imports func() Imports
		want    string
	}{
		{"missing", func() Imports { im := sumImports(&printed); delete(im, "scale"); return im }, `missing host function "scale" (f64) -> (f64)`},
		{"signature", func() Imports {
			im := sumImports(&printed)
			im["scale"] = MustHost(func(x int64) int64 { return x })
			return im
		}, `host function "scale" has signature (i64) -> (i64); the module imports it as (f64) -> (f64)`},
		{"extra", func() Imports { im := sumImports(&printed); im["prnt"] = good["print"]; return im }, `the module imports no host function "prnt"`},
		{"empty", func() Imports { im := sumImports(&printed); im["print"] = HostFunction{}; return im }, `host function "print" is empty`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mod.Instantiate(tt.imports())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	// The engine's memory cap applies.
	capped, err := newEngine(t, Options{MaxMemoryPages: 0}).LoadText([]byte("memory 3 4\nfunc f () -> ()\n  ret\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := capped.Instantiate(nil); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, Options{MaxMemoryPages: 2})
	m2, err := e.LoadText([]byte("memory 3 4\nfunc f () -> ()\n  ret\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Instantiate(nil); err == nil || !strings.Contains(err.Error(), "needs 3 memory pages; the engine allows 2") {
		t.Fatalf("memory cap error = %v", err)
	}
}

func TestEngineOptions(t *testing.T) {
	for _, opts := range []Options{
		{Tier: Tier(7)}, {Tier: -1}, {MaxCallDepth: -1}, {ReoptimizeDrift: 2}, {SpillHeuristic: 3}, {SpillHeuristic: -1}, {MaxMemoryPages: 1 << 20},
	} {
		if _, err := NewEngine(opts); err == nil {
			t.Errorf("NewEngine(%+v) accepted invalid options", opts)
		}
	}
	e := newEngine(t, Options{})
	if o := e.Options(); o.TierUpCalls != DefaultTierUpCalls || o.MaxCallDepth == 0 {
		t.Errorf("defaults not filled in: %+v", o)
	}
	if tier, err := ParseTier("interp"); err != nil || tier != TierInterp {
		t.Errorf("ParseTier: %v %v", tier, err)
	}
	if _, err := ParseTier("fast"); err == nil {
		t.Error("ParseTier accepted a bad name")
	}
}

func TestLoadCopiesModule(t *testing.T) {
	b := bytecode.NewModuleBuilder()
	f := b.Func("seven", nil, []bytecode.Type{bytecode.I64})
	r := f.NewReg(bytecode.I64)
	f.I64Const(r, 7)
	f.Return(r)
	b.Export("seven", f)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := newEngine(t, Options{}).Load(m)
	if err != nil {
		t.Fatal(err)
	}
	m.Funcs[0].Code[0].Imm = 8 // the caller's module changes afterwards
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := inst.Call(context.Background(), "seven"); err != nil || res[0] != 7 {
		t.Fatalf("seven() = %v, %v", res, err)
	}
	if _, err := newEngine(t, Options{}).Load(nil); err == nil {
		t.Fatal("Load(nil) succeeded")
	}
	if _, err := newEngine(t, Options{}).LoadText([]byte("func")); err == nil {
		t.Fatal("LoadText of garbage succeeded")
	}
	if _, err := newEngine(t, Options{}).LoadBinary([]byte{0, 'k'}); err == nil {
		t.Fatal("LoadBinary of garbage succeeded")
	}
}

// TestLoadKeepsCodePacked checks that a loaded module keeps its functions'
// code packed (code.go), not as instructions, and that every use of the
// code (compiling at load, Optimize, tier-up, Bytecode) gets the code that
// was loaded.
func TestLoadKeepsCodePacked(t *testing.T) {
	src := []byte(sumSrc)
	orig, err := bytecode.Assemble(src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := bytecode.Encode(orig)
	if err != nil {
		t.Fatal(err)
	}
	for _, tier := range []Tier{TierInterp, TierBaseline, TierOptimizing, TierAuto} {
		if (tier == TierBaseline || tier == TierOptimizing) && !kilnrt.Supported() {
			continue
		}
		m := orig.Clone()
		mod, err := newEngine(t, Options{Tier: tier, TierUpCalls: 2, SynchronousTierUp: true}).Load(m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.Funcs {
			m.Funcs[i].Code = nil // the caller's module changes afterwards
		}
		for _, f := range mod.prog.Module.Funcs {
			if len(f.Code) != 0 {
				t.Errorf("%s: the loaded module keeps %d instructions of %s unpacked", tier, len(f.Code), f.Name)
			}
		}
		got, err := bytecode.Encode(mod.Bytecode())
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Bytecode() differs from the module loaded (%v)", tier, err)
		}
		var printed []int64
		inst, err := mod.Instantiate(sumImports(&printed))
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if res, err := inst.Call(context.Background(), "sum", 10); err != nil || res[0] != 45 {
				t.Fatalf("%s: sum(10) = %v, %v", tier, res, err)
			}
		}
		if !kilnrt.Supported() {
			continue
		}
		if tier == TierAuto && inst.Tier() != TierOptimizing {
			t.Errorf("auto: the instance did not tier up (%v)", inst.TierUpError())
		}
		if err := inst.Optimize(); err != nil {
			t.Fatalf("%s: Optimize: %v", tier, err)
		}
		if res, err := inst.Call(context.Background(), "sum", 10); err != nil || res[0] != 45 {
			t.Fatalf("%s: after Optimize, sum(10) = %v, %v", tier, res, err)
		}
	}
}

func TestHostWrapping(t *testing.T) {
	type myInt int64
	for _, tt := range []struct {
		fn   any
		sig  string
		args []uint64
		want []uint64
	}{
		{func(a, b int64) int64 { return a - b }, "(i64 i64) -> (i64)", []uint64{5, 7}, []uint64{I64(-2)}},
		{func(a uint64, b float64) (float64, int64) { return b * 2, int64(a) + 1 }, "(i64 f64) -> (f64 i64)", []uint64{4, F64(1.25)}, []uint64{F64(2.5), 5}},
		{func(a myInt) myInt { return a * 3 }, "(i64) -> (i64)", []uint64{3}, []uint64{9}},
		{func() {}, "() -> ()", nil, nil},
		{func(x float64) float64 { return -x }, "(f64) -> (f64)", []uint64{F64(1)}, []uint64{F64(-1)}},
	} {
		h, err := Host(tt.fn)
		if err != nil {
			t.Fatalf("Host(%T): %v", tt.fn, err)
		}
		if got := h.Signature().String(); got != tt.sig {
			t.Errorf("Host(%T) signature %s, want %s", tt.fn, got, tt.sig)
		}
		res := make([]uint64, len(tt.want))
		if err := h.fn(&Caller{ctx: context.Background()}, tt.args, res); err != nil || fmt.Sprint(res) != fmt.Sprint(tt.want) {
			t.Errorf("Host(%T) call = %v, %v; want %v", tt.fn, res, err, tt.want)
		}
	}
	for _, bad := range []any{nil, 3, func(string) {}, func(...int64) {}, func() int { return 0 }} {
		if _, err := Host(bad); err == nil {
			t.Errorf("Host(%T) accepted an unsupported function", bad)
		}
	}
	// An error result becomes a HostError trap.
	boom := errors.New("boom")
	h, _ := Host(func(x int64) (int64, error) { return 0, boom })
	mod, err := newEngine(t, Options{}).LoadText([]byte("host h (i64) -> (i64)\nfunc f () -> (i64)\n  regs i64\n  call_host h (r0) -> (r0)\n  ret r0\nend\nexport \"f\" f\n"))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := mod.Instantiate(Imports{"h": h})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Call(context.Background(), "f"); !errors.Is(err, boom) {
		t.Fatalf("host error = %v", err)
	}
}

const reentrantSrc = `
host back (i64) -> (i64)
func outer (i64) -> (i64)
  call_host back (r0) -> (r0)
  i64.add r0, r0, 1
  ret r0
end
func inner (i64) -> (i64)
  i64.mul r0, r0, 10
  ret r0
end
export "outer" outer
export "inner" inner
`

func TestReentrantAndBusy(t *testing.T) {
	mod, err := newEngine(t, Options{}).LoadText([]byte(reentrantSrc))
	if err != nil {
		t.Fatal(err)
	}
	var inst *Instance
	var directErr error
	inst, err = mod.Instantiate(Imports{"back": MustHost(func(c *Caller, x int64) (int64, error) {
		// Calling through the instance directly is refused; the Caller works.
		_, directErr = inst.Call(c.Context(), "inner", uint64(x))
		r, err := c.Call("inner", uint64(x))
		if err != nil {
			return 0, err
		}
		return int64(r[0]), nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	res, err := inst.Call(context.Background(), "outer", 4)
	if err != nil || res[0] != 41 {
		t.Fatalf("outer(4) = %v, %v", res, err)
	}
	if !errors.Is(directErr, ErrBusy) {
		t.Fatalf("direct nested call error = %v, want ErrBusy", directErr)
	}
}

func TestConcurrentInstances(t *testing.T) {
	// Interpreted, so that every instance counts all its calls.
	mod, err := newEngine(t, Options{Tier: TierInterp}).LoadText([]byte(sumSrc))
	if err != nil {
		t.Fatal(err)
	}
	runConcurrentSums(t, mod, 8, 50, true)
}

// runConcurrentSums calls sum on its own instance of mod from each of
// goroutines goroutines, calls times each, and checks every result (and,
// with countsCalls, that each instance's Stats recorded its calls).
func runConcurrentSums(t *testing.T, mod *Module, goroutines, calls int, countsCalls bool) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var printed []int64
			inst, err := mod.Instantiate(sumImports(&printed))
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < calls; i++ {
				n := uint64(g*calls + i)
				res, err := inst.Call(context.Background(), "sum", n)
				if err != nil || (n > 0 && res[0] != n*(n-1)/2) {
					errs <- fmt.Errorf("goroutine %d: sum(%d) = %v, %v", g, n, res, err)
					return
				}
			}
			if countsCalls && inst.Stats()[0].Calls != uint64(calls) {
				errs <- fmt.Errorf("goroutine %d: %d calls recorded", g, inst.Stats()[0].Calls)
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestFuelOption(t *testing.T) {
	var printed []int64
	inst := sumInstance(t, Options{Fuel: 5}, &printed)
	if _, err := inst.Call(context.Background(), "sum", 5); err != nil {
		t.Fatalf("sum(5) with fuel 5: %v", err)
	}
	_, err := inst.Call(context.Background(), "sum", 6)
	var trap *bytecode.Trap
	if !errors.As(err, &trap) || trap.Kind != bytecode.TrapFuelExhausted {
		t.Fatalf("sum(6) with fuel 5: %v", err)
	}
}
