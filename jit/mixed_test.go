package jit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/runtime"
)

// mixedSource is a module whose functions call each other in every way
// (call, call_indirect, recursion through two functions, a host function
// that calls back into the instance), trap, grow memory and use
// globals and i32 values: TestMixedModules runs it with every subset of
// its functions interpreted.
const mixedSource = `
memory 1 4
type unop (i64) -> (i64)
table 3
elem 0 leaf twice
global acc i64 mut = 0
host note (i64) -> (i64)
host back (i64) -> (i64)

; leaf(x): x+1, counted in acc; traps (divide by zero) at x = 40.
func leaf (i64) -> (i64)
  regs i64
  global.get r1, acc
  i64.add r1, r1, r0
  global.set acc, r1
  i64.sub r1, r0, 40
  br.ne r1, 0, ok
  i64.div_s r0, r0, r1
ok:
  i64.add r0, r0, 1
  ret r0
end

; twice(x) = leaf(leaf(x)), the second through the table.
func twice (i64) -> (i64)
  regs i64
  call leaf (r0) -> (r0)
  i64.const r1, 0
  call_indirect unop, r1 (r0) -> (r0)
  ret r0
end

; ping(n) and pong(n) recurse through each other n deep; pong stores
; its depth in memory, grows it once, and at depth 2 calls back (whose
; nested calls are checked against the depth of the frames below).
func ping (i64) -> (i64)
  regs i64
  br.eq r0, 0, base
  i64.sub r1, r0, 1
  call pong (r1) -> (r1)
  i64.add r1, r1, 1
  ret r1
base:
  ret r0
end

func pong (i64) -> (i64)
  regs i64
  i64.store [r0+8], r0
  br.ne r0, 7, back
  i64.const r1, 1
  memory.grow r1, r1
back:
  br.ne r0, 2, rec
  call_host back (r0) -> (r1)
rec:
  call ping (r0) -> (r0)
  i64.add r0, r0, 2
  ret r0
end

; narrow(x): an i32 round trip through a call.
func narrow32 (i32) -> (i32)
  i32.add r0, r0, 5
  ret r0
end

; main(x): a loop of n = x mod 50 iterations calling twice and note, then
; back(x) (which calls main2 through the instance), ping(x mod 30),
; narrow32, and finally the table entry x mod 3 (the third is null).
func main (i64) -> (i64)
  regs i64 i64 i64 i32
  i64.rem_u r1, r0, 50
  i64.const r2, 0
loop:
  br.eq r1, 0, done
  call twice (r1) -> (r3)
  i64.add r2, r2, r3
  call_host note (r2) -> (r3)
  i64.sub r1, r1, 1
  jump loop
done:
  call_host back (r0) -> (r3)
  i64.add r2, r2, r3
  i64.rem_u r1, r0, 30
  call ping (r1) -> (r3)
  i64.add r2, r2, r3
  i32.wrap_i64 r4, r0
  call narrow32 (r4) -> (r4)
  i64.extend_i32_u r3, r4
  i64.add r2, r2, r3
  i64.rem_u r1, r0, 3
  call_indirect unop, r1 (r2) -> (r2)
  ret r2
end

; main2(x) = twice(x) + ping(x), called back by the host.
func main2 (i64) -> (i64)
  regs i64
  call ping (r0) -> (r1)
  call twice (r0) -> (r0)
  i64.add r0, r0, r1
  ret r0
end

export "main" main
export "main2" main2
export "ping" ping
`

// mixedRun is what one call of mixedSource did.
type mixedRun struct {
	results []uint64
	err     string
	notes   []uint64
	mem     []byte
	acc     uint64
}

// runMixed runs fn(x) on a fresh instance of mod and records everything
// observable.
func runMixed(t *testing.T, mod *Module, ctx context.Context, fn string, x uint64) mixedRun {
	t.Helper()
	inst, notes := mixedInstance(t, mod)
	return inst.callMixed(ctx, notes, fn, x)
}

// mixedInst is an instance of mixedSource and the arguments of its note
// calls.
type mixedInst struct{ *Instance }

// mixedInstance instantiates mod (mixedSource) with its host functions;
// notes collects the arguments of note's calls.
func mixedInstance(t testing.TB, mod *Module) (mixedInst, *[]uint64) {
	notes := new([]uint64)
	inst, err := mod.Instantiate(Imports{
		"note": RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64},
			func(c *Caller, args, results []uint64) error {
				*notes = append(*notes, args[0])
				results[0] = args[0] ^ 0x55
				return nil
			}),
		"back": RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64},
			func(c *Caller, args, results []uint64) error {
				if args[0]%11 == 5 {
					return errors.New("back refuses")
				}
				r, err := c.Call("main2", args[0]%40)
				if err != nil {
					return err
				}
				results[0] = r[0]
				return nil
			}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return mixedInst{inst}, notes
}

// callMixed calls fn(x) and records its outcome, the note calls made
// since the last one, memory and the global acc.
func (inst mixedInst) callMixed(ctx context.Context, notes *[]uint64, fn string, x uint64) mixedRun {
	var run mixedRun
	var err error
	run.results, err = inst.Call(ctx, fn, x)
	if err != nil {
		run.err = err.Error()
		var tr *bytecode.Trap
		if errors.As(err, &tr) {
			run.err = fmt.Sprintf("%s in %s at %d", tr.Kind, tr.FuncName, tr.Offset)
		}
	}
	run.notes, *notes = *notes, nil
	run.mem = slices.Clone(inst.Memory())
	run.acc = inst.machine.Globals()[0]
	return run
}

func (r mixedRun) String() string {
	return fmt.Sprintf("results %v err %q notes %d acc %d mem %d bytes", r.results, r.err, len(r.notes), r.acc, len(r.mem))
}

func (r mixedRun) equal(o mixedRun) bool {
	return slices.Equal(r.results, o.results) && r.err == o.err && slices.Equal(r.notes, o.notes) &&
		slices.Equal(r.mem, o.mem) && r.acc == o.acc
}

// TestMixedModules runs mixedSource with every subset of its functions
// interpreted, in both compiled tiers, under fuel and call-depth limits,
// and requires exactly the interpreter's results, traps (kind, function,
// offset), host calls, memory and globals.
func TestMixedModules(t *testing.T) {
	funcs := []string{"leaf", "twice", "ping", "pong", "narrow32", "main", "main2"}
	inputs := []uint64{0, 1, 9, 10, 12, 13, 16, 29, 44, 49, 98, 1<<32 + 3}
	limits := []Options{{}, {Fuel: 120}, {MaxCallDepth: 20}}
	ctx := context.Background()
	for _, lim := range limits {
		ref, err := newEngine(t, Options{Tier: TierInterp, Fuel: lim.Fuel, MaxCallDepth: lim.MaxCallDepth}).LoadText([]byte(mixedSource))
		if err != nil {
			t.Fatal(err)
		}
		want := map[uint64]mixedRun{}
		for _, x := range inputs {
			want[x] = runMixed(t, ref, ctx, "main", x)
		}
		for _, tier := range []Tier{TierBaseline, TierOptimizing} {
			for set := range 1 << len(funcs) {
				if set%3 != 0 && tier == TierBaseline {
					continue // the baseline sees a third of the subsets
				}
				keep := func(name string) bool {
					i := slices.Index(funcs, name)
					return set&(1<<i) != 0
				}
				opts := Options{Tier: tier, Fuel: lim.Fuel, MaxCallDepth: lim.MaxCallDepth, Interpreted: keep, CheckAllocations: true}
				mod, err := newEngine(t, opts).LoadText([]byte(mixedSource))
				if err != nil {
					t.Fatal(err)
				}
				if got := mod.CompileStats().Interpreted; got != bitCount(set) {
					t.Fatalf("set %b: %d functions interpreted, want %d", set, got, bitCount(set))
				}
				for _, x := range inputs {
					if got := runMixed(t, mod, ctx, "main", x); !got.equal(want[x]) {
						t.Fatalf("%s, fuel %d, depth %d, interpreted %s: main(%d):\n got %s\nwant %s",
							tier, lim.Fuel, lim.MaxCallDepth, names(funcs, set), x, got, want[x])
					}
				}
			}
		}
	}
}

func bitCount(set int) int {
	n := 0
	for ; set != 0; set &= set - 1 {
		n++
	}
	return n
}

func names(funcs []string, set int) string {
	var out []string
	for i, f := range funcs {
		if set&(1<<i) != 0 {
			out = append(out, f)
		}
	}
	return "[" + strings.Join(out, " ") + "]"
}

// TestMixedModuleCancel cancels a call that loops through interpreted and
// compiled functions, and checks that Stats reports each function's tier.
func TestMixedModuleCancel(t *testing.T) {
	src := `
func spin (i64) -> (i64)
again:
  call step (r0) -> (r0)
  jump again
end
func step (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end
export "spin" spin
`
	for _, interpreted := range []string{"spin", "step"} {
		mod, err := newEngine(t, Options{Tier: TierOptimizing, Interpreted: func(n string) bool { return n == interpreted }}).LoadText([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := mod.Instantiate(nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err = inst.Call(ctx, "spin", 0)
		cancel()
		var tr *bytecode.Trap
		if !errors.As(err, &tr) || tr.Kind != bytecode.TrapInterrupted {
			t.Fatalf("%s interpreted: spin returned %v; want an interrupted trap", interpreted, err)
		}
		for _, s := range inst.Stats() {
			want := TierOptimizing
			if s.Name == interpreted {
				want = TierInterp
			}
			if s.Tier != want {
				t.Errorf("%s interpreted: Stats says %s runs in %s", interpreted, s.Name, s.Tier)
			}
		}
	}
}

// TestTierUpLeavesUnrunFunctionsInterpreted tiers up during a long call:
// the tier-up compiles the functions that have run, the loop moves into
// compiled code by on-stack replacement, and a function first called
// after that (so left interpreted) runs in the interpreter above the
// frames the moved loop's callers still have there. Later calls make it
// hot, and it joins the compiled code (join.go).
func TestTierUpLeavesUnrunFunctionsInterpreted(t *testing.T) {
	src := `
func outer (i64) -> (i64)
  regs i64
  i64.const r1, 12345
  call hot (r0) -> (r0)
  i64.add r0, r0, r1
  ret r0
end

func hot (i64) -> (i64)
  regs i64 i64
loop:
  br.eq r0, 0, done
  i64.add r1, r1, r0
  br.ne r0, 3, skip
  call cold (r1) -> (r2)
  i64.add r1, r1, r2
skip:
  i64.sub r0, r0, 1
  jump loop
done:
  ret r1
end

func cold (i64) -> (i64)
  regs i64 i64
  i64.const r1, 999
  i64.const r2, 777
  i64.add r0, r0, r1
  i64.add r0, r0, r2
  ret r0
end

export "outer" outer
`
	want := func(n uint64) uint64 {
		var s uint64
		for i := n; i > 0; i-- {
			s += i
			if i == 3 {
				s += s + 999 + 777
			}
		}
		return s + 12345
	}
	var joins atomic.Int32
	inst := textInstance(t, Options{SynchronousTierUp: true, TierUpCalls: 4, TierUpBackEdges: 100, OSRInterval: 16,
		CheckAllocations: true, reoptLookEvery: 1, OnCompile: func(e CompileEvent) {
			if e.Reason == CompileJoin && e.Err == nil {
				joins.Add(1)
			}
		}}, src)
	ctx := context.Background()
	tiers := func() map[string]Tier {
		out := map[string]Tier{}
		for _, s := range inst.Stats() {
			out[s.Name] = s.Tier
		}
		return out
	}
	const n = 100000
	if got, err := inst.Call(ctx, "outer", n); err != nil || got[0] != want(n) {
		t.Fatalf("outer(%d) = %v, %v; want %d", n, got, err, want(n))
	}
	if inst.OSREntries() == 0 {
		t.Fatal("no on-stack replacement: the test needs the loop to move")
	}
	if got, err := inst.Call(ctx, "outer", 10); err != nil || got[0] != want(10) {
		t.Fatalf("outer(10) = %v, %v; want %d", got, err, want(10))
	}
	if tr := tiers(); tr["hot"] != TierOptimizing || tr["outer"] != TierOptimizing || tr["cold"] != TierInterp {
		t.Fatalf("after the tier-up: tiers %v; want cold alone interpreted", tr)
	}
	for k := uint64(0); k < 20; k++ {
		if got, err := inst.Call(ctx, "outer", 10+k); err != nil || got[0] != want(10+k) {
			t.Fatalf("outer(%d) = %v, %v; want %d", 10+k, got, err, want(10+k))
		}
	}
	if tr := tiers(); tr["cold"] != TierOptimizing {
		t.Fatalf("after cold got hot: tiers %v; want every function compiled", tr)
	}
	if n := joins.Load(); n != 1 {
		t.Fatalf("%d joins; want cold's", n)
	}
}

// TestOSRAroundInterpretedLoops moves a loop into compiled code, which
// then calls an interpreted function that takes backward branches of its
// own (and is offered for on-stack replacement too, with more results
// than the moved frame's): the moved call still returns its own results.
func TestOSRAroundInterpretedLoops(t *testing.T) {
	src := `
func main (i64) -> (i64)
  regs i64 i64 i64 i64
  i64.add r4, r0, 0
warm:
  br.eq r0, 0, second
  i64.add r1, r1, r0
  i64.sub r0, r0, 1
  jump warm
second:
  br.eq r4, 0, done
  call two (r4) -> (r2, r3)
  i64.add r1, r1, r2
  i64.add r1, r1, r3
  i64.sub r4, r4, 1
  jump second
done:
  ret r1
end

func two (i64) -> (i64 i64)
  regs i64 i64 i64
  i64.and r1, r0, 7
inner:
  br.eq r1, 0, out
  i64.add r2, r2, r0
  i64.sub r1, r1, 1
  jump inner
out:
  i64.mul r3, r0, 3
  ret r2, r3
end

export "main" main
`
	want := func(n uint64) uint64 {
		s := n * (n + 1) / 2
		for i := n; i > 0; i-- {
			s += i*(i&7) + 3*i
		}
		return s
	}
	mod, err := newEngine(t, Options{SynchronousTierUp: true, TierUpCalls: 1 << 40, TierUpBackEdges: 64, OSRInterval: 4,
		CheckAllocations: true, Interpreted: func(n string) bool { return n == "two" }}).LoadText([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5000
	if got, err := inst.Call(context.Background(), "main", n); err != nil || got[0] != want(n) {
		t.Fatalf("main(%d) = %v, %v; want %d", n, got, err, want(n))
	}
	if inst.OSREntries() == 0 {
		t.Fatal("no on-stack replacement: the test needs main's loop to move")
	}
}

// TestMixedConcurrentTierUp runs an instance of mixedSource on each of
// four goroutines in the default tier with background compiles and some
// functions kept interpreted, and compares every call with an
// interpreted instance making the same calls (run it with -race).
func TestMixedConcurrentTierUp(t *testing.T) {
	ctx := context.Background()
	ref, err := newEngine(t, Options{Tier: TierInterp}).LoadText([]byte(mixedSource))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := newEngine(t, Options{Tier: TierAuto, TierUpCalls: 3, TierUpBackEdges: 50,
		Interpreted: func(n string) bool { return n == "pong" || n == "narrow32" }}).LoadText([]byte(mixedSource))
	if err != nil {
		t.Fatal(err)
	}
	inputs := []uint64{0, 1, 12, 13, 16, 29, 44}
	const calls = 200
	input := func(g, k int) uint64 { return inputs[(g+k)%len(inputs)] }
	want := make([][]mixedRun, 4)
	for g := range want {
		inst, notes := mixedInstance(t, ref)
		for k := range calls {
			want[g] = append(want[g], inst.callMixed(ctx, notes, "main", input(g, k)))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	tiers := make([]Tier, 4)
	for g := range 4 {
		inst, notes := mixedInstance(t, mod)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range calls {
				if got := inst.callMixed(ctx, notes, "main", input(g, k)); !got.equal(want[g][k]) {
					errs <- fmt.Sprintf("instance %d, call %d: main(%d): got %s, want %s", g, k, input(g, k), got, want[g][k])
					return
				}
			}
			tiers[g] = inst.Tier()
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	t.Logf("tiers reached: %v", tiers)
}

// BenchmarkMixedCalls measures what a call across the boundary of a mixed
// module costs: a loop making a million calls of a small function, with
// both compiled (optimizing), the callee interpreted, the caller
// interpreted, and both interpreted, in one process. Metrics: ns/call of
// each, and each one's ratio to both interpreted.
func BenchmarkMixedCalls(b *testing.B) {
	if !runtime.Supported() {
		b.Skip("no compiled tiers on this platform")
	}
	src := `
func main (i64) -> (i64)
  regs i64
loop:
  br.eq r0, 0, done
  call inc (r1) -> (r1)
  i64.sub r0, r0, 1
  jump loop
done:
  ret r1
end
func inc (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end
export "main" main
`
	const n = 1_000_000
	configs := []struct {
		name string
		opts Options
	}{
		{"interp", Options{Tier: TierInterp}},
		{"compiled", Options{Tier: TierOptimizing}},
		{"callee-interpreted", Options{Tier: TierOptimizing, Interpreted: func(s string) bool { return s == "inc" }}},
		{"caller-interpreted", Options{Tier: TierOptimizing, Interpreted: func(s string) bool { return s == "main" }}},
	}
	perCall := make([]float64, len(configs))
	for b.Loop() {
		for i, c := range configs {
			mod, err := newEngine(b, c.opts).LoadText([]byte(src))
			if err != nil {
				b.Fatal(err)
			}
			inst, err := mod.Instantiate(nil)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if got, err := inst.Call(context.Background(), "main", n); err != nil || got[0] != n {
				b.Fatalf("%s: main = %v, %v", c.name, got, err)
			}
			perCall[i] += float64(time.Since(start).Nanoseconds()) / n
		}
	}
	for i, c := range configs {
		b.ReportMetric(perCall[i]/float64(b.N), c.name+"-ns/call")
		if i > 0 {
			b.ReportMetric(perCall[i]/perCall[0], c.name+"/interp")
		}
	}
}
