package jit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/runtime"
)

// autoSrc sums 1..n in a loop; twice calls it through a call.
const autoSrc = `func sum (i64) -> (i64)
  regs i64
  i64.const r1, 0
L:
  br.eq r0, 0, E
  i64.add r1, r1, r0
  i64.sub r0, r0, 1
  jump L
E:
  ret r1
end

func twice (i64) -> (i64)
  call sum (r0) -> (r0)
  i64.add r0, r0, r0
  ret r0
end

export "sum" sum
export "twice" twice
`

func autoInstance(t *testing.T, opts Options) *Instance {
	t.Helper()
	opts.Tier = TierAuto
	mod, err := newEngine(t, opts).LoadText([]byte(autoSrc))
	if err != nil {
		t.Fatal(err)
	}
	if mod.Tier() != TierAuto {
		t.Fatalf("module tier %s, want auto", mod.Tier())
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Tier() != TierInterp {
		t.Fatalf("a new instance runs in %s, want the interpreter", inst.Tier())
	}
	return inst
}

func callSum(t *testing.T, inst *Instance, name string, n uint64) {
	t.Helper()
	got, err := inst.Call(context.Background(), name, n)
	want := n * (n + 1) / 2
	if name == "twice" {
		want *= 2
	}
	if err != nil || got[0] != want {
		t.Fatalf("%s(%d) = %v, %v; want %d", name, n, got, err, want)
	}
}

// TestTierAutoByCalls checks that an instance moves to the optimizing
// tier after the call that makes a function reach TierUpCalls, with
// synchronous compiles, and keeps computing the same results.
func TestTierAutoByCalls(t *testing.T) {
	inst := autoInstance(t, Options{SynchronousTierUp: true, TierUpCalls: 3, TierUpBackEdges: 1 << 40})
	for k := range 3 {
		callSum(t, inst, "sum", 10)
		if inst.Tier() != TierInterp {
			t.Fatalf("after call %d the instance runs in %s; the calls run in the interpreter until the one after the threshold", k+1, inst.Tier())
		}
	}
	callSum(t, inst, "twice", 10)
	want := TierOptimizing
	if !runtime.Supported() {
		want = TierInterp
		if inst.TierUpError() == nil {
			t.Error("no tier-up error on a platform without compiled tiers")
		}
	}
	if inst.Tier() != want || (want == TierOptimizing && inst.TierUpError() != nil) {
		t.Fatalf("after the threshold the instance runs in %s (%v), want %s", inst.Tier(), inst.TierUpError(), want)
	}
	if want == TierOptimizing && inst.TierUpTime() <= 0 {
		t.Error("TierUpTime is zero after a tier-up")
	}
	for n := range uint64(50) {
		callSum(t, inst, "twice", n)
	}
}

// TestTierUpThresholdsExactly checks the documented thresholds at their
// default values, with compiles in the background: calls that leave every
// function one call or one backward branch short of TierUpCalls or
// TierUpBackEdges start no compile; the call that reaches one does (the
// engine's OnCompile hears of it), whether it comes from Go, from a call
// within the instance or from loops; the first call after the compile
// finished runs the compiled code.
func TestTierUpThresholdsExactly(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	tests := []struct {
		name string
		// below makes the instance one step short of a threshold; reach
		// takes the step.
		below, reach func(t *testing.T, inst *Instance)
	}{
		{"calls from Go", func(t *testing.T, inst *Instance) {
			for range DefaultTierUpCalls - 1 {
				callSum(t, inst, "sum", 0)
			}
		}, func(t *testing.T, inst *Instance) { callSum(t, inst, "sum", 0) }},
		{"calls within", func(t *testing.T, inst *Instance) {
			// twice calls sum: sum is one call ahead of twice.
			for range DefaultTierUpCalls - 2 {
				callSum(t, inst, "twice", 0)
			}
			callSum(t, inst, "sum", 0)
		}, func(t *testing.T, inst *Instance) { callSum(t, inst, "twice", 0) }},
		{"backward branches", func(t *testing.T, inst *Instance) {
			// sum(n) takes n backward branches.
			callSum(t, inst, "sum", DefaultTierUpBackEdges-3)
			callSum(t, inst, "sum", 2)
		}, func(t *testing.T, inst *Instance) { callSum(t, inst, "sum", 1) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			compiles := make(chan CompileEvent, 4)
			inst := autoInstance(t, Options{OnCompile: func(e CompileEvent) { compiles <- e }})
			tc.below(t, inst)
			select {
			case e := <-compiles:
				t.Fatalf("a compile below the thresholds: %+v", e)
			case <-time.After(100 * time.Millisecond):
			}
			tc.reach(t, inst)
			select {
			case e := <-compiles:
				if e.Reason != CompileTierUp || e.Err != nil {
					t.Fatalf("compile at the threshold: %+v", e)
				}
			case <-time.After(time.Minute):
				t.Fatal("no compile within a minute of reaching the threshold")
			}
			if inst.Tier() != TierInterp {
				t.Fatalf("the instance runs in %s before its next call", inst.Tier())
			}
			// OnCompile runs just before the compile hands its code
			// over: the next call or one soon after switches.
			for k := 0; inst.Tier() != TierOptimizing; k++ {
				if k == 100 {
					t.Fatalf("100 calls after the compile the instance runs in %s", inst.Tier())
				}
				time.Sleep(time.Millisecond)
				callSum(t, inst, "sum", 10)
			}
		})
	}
}

// TestTierAutoByBackEdges checks that one long call makes the instance hot
// through its loop's backward branch, and that the thresholds are not met
// before.
func TestTierAutoByBackEdges(t *testing.T) {
	inst := autoInstance(t, Options{SynchronousTierUp: true, TierUpCalls: 1 << 40, TierUpBackEdges: 500})
	callSum(t, inst, "sum", 100)
	callSum(t, inst, "sum", 100)
	if inst.Tier() != TierInterp {
		t.Fatalf("the instance runs in %s after 200 backward branches; the threshold is 500", inst.Tier())
	}
	callSum(t, inst, "sum", 1000)
	callSum(t, inst, "sum", 7)
	if runtime.Supported() && inst.Tier() != TierOptimizing {
		t.Fatalf("the instance runs in %s after 1,200 backward branches (%v)", inst.Tier(), inst.TierUpError())
	}
}

// TestTierAutoBackground checks that the compile runs in the background:
// calls go on in the interpreter until it is done, and the instance then
// switches.
func TestTierAutoBackground(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	inst := autoInstance(t, Options{TierUpCalls: 2})
	// A liveness bound, not a timing assertion: the compile of two small
	// functions either finishes or something is broken.
	deadline := time.Now().Add(time.Minute)
	n := uint64(0)
	for ; inst.Tier() != TierOptimizing; n++ {
		if time.Now().After(deadline) {
			t.Fatalf("no tier-up after %d calls (%v)", n, inst.TierUpError())
		}
		callSum(t, inst, "twice", n%100)
		time.Sleep(time.Millisecond)
	}
	if n < 3 {
		t.Errorf("the instance switched after %d calls; the threshold is 2 calls and the switch comes at a later call", n)
	}
	t.Logf("switched at call %d, the compile took %v", n, inst.TierUpTime())
	callSum(t, inst, "twice", 1000)
}

// TestTierAutoCompileFailure checks that a compile that fails leaves the
// instance in the interpreter, working, and reports why.
func TestTierAutoCompileFailure(t *testing.T) {
	inst := autoInstance(t, Options{SynchronousTierUp: true, TierUpCalls: 1, MaxCompileBytes: 1})
	for n := range uint64(40) {
		callSum(t, inst, "twice", n)
	}
	var le *LimitError
	if inst.Tier() != TierInterp || !errors.As(inst.TierUpError(), &le) {
		t.Fatalf("tier %s, error %v; want the interpreter and a limit error", inst.Tier(), inst.TierUpError())
	}
}

// TestTierAutoConcurrentInstances runs instances of one module on several
// goroutines while their background compiles run (the race detector
// checks the sharing).
func TestTierAutoConcurrentInstances(t *testing.T) {
	mod, err := newEngine(t, Options{Tier: TierAuto, TierUpCalls: 5}).LoadText([]byte(autoSrc))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inst, err := mod.Instantiate(nil)
			if err != nil {
				errs <- err
				return
			}
			for n := range uint64(300) {
				got, err := inst.Call(context.Background(), "twice", n)
				if err != nil || got[0] != n*(n+1) {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("instance: %v", err)
	}
}

// TestTierAutoAfterOptimize checks that Instance.Optimize ends tier-up.
func TestTierAutoAfterOptimize(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	inst := autoInstance(t, Options{SynchronousTierUp: true, TierUpCalls: 1})
	if err := inst.Optimize(); err != nil {
		t.Fatal(err)
	}
	for n := range uint64(20) {
		callSum(t, inst, "twice", n)
	}
	if inst.Tier() != TierOptimizing || inst.TierUpTime() != 0 {
		t.Fatalf("tier %s, tier-up time %v; want the optimized code and no tier-up", inst.Tier(), inst.TierUpTime())
	}
}

// BenchmarkTierUpLatency measures, for generated functions of about 20,
// 200 and 2,000 instructions, how long an instance keeps interpreting
// after the call that makes it hot (the background compile of its module
// and the switch at the next call), and the slowest call on another
// goroutine's instance of the module meanwhile (calls never wait for a
// compile). Metrics: latency-ms, worst-call-µs, and the interpreted
// calls made while waiting.
func BenchmarkTierUpLatency(b *testing.B) {
	if !runtime.Supported() {
		b.Skip("no compiled tiers on this platform")
	}
	for _, n := range []int{20, 200, 2000} {
		b.Run(fmt.Sprintf("instrs=%d", n), func(b *testing.B) {
			m := testprogs.GeneratedModule(n, 1)
			var latency, worst time.Duration
			waited := 0
			for range b.N {
				mod, err := newEngine(b, Options{Tier: TierAuto, TierUpCalls: 1}).Load(m)
				if err != nil {
					b.Fatal(err)
				}
				hot, err := mod.Instantiate(nil)
				if err != nil {
					b.Fatal(err)
				}
				other, err := mod.Instantiate(nil)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				if _, err := hot.Call(ctx, "gen", 3); err != nil {
					b.Fatal(err)
				}
				start := time.Now() // the compile has started
				for hot.Tier() != TierOptimizing {
					if hot.TierUpError() != nil {
						b.Fatal(hot.TierUpError())
					}
					t0 := time.Now()
					if _, err := other.Call(ctx, "gen", 3); err != nil {
						b.Fatal(err)
					}
					worst = max(worst, time.Since(t0))
					if _, err := hot.Call(ctx, "gen", 3); err != nil {
						b.Fatal(err)
					}
					waited++
				}
				latency += time.Since(start)
			}
			b.ReportMetric(float64(latency.Microseconds())/1e3/float64(b.N), "latency-ms")
			b.ReportMetric(float64(worst.Microseconds()), "worst-call-µs")
			b.ReportMetric(float64(waited)/float64(b.N), "calls-waiting")
		})
	}
}

// osrSrc loops n times in one call; when n reaches 0 it divides by the
// second argument, so a zero traps after the loop.
const osrSrc = `func run (i64 i64) -> (i64)
  regs i64 i64
  i64.const r2, 0
L:
  br.eq r0, 0, E
  i64.add r2, r2, r0
  i64.xor r3, r2, r0
  i64.add r2, r2, r3
  i64.sub r0, r0, 1
  jump L
E:
  i64.div_s r2, r2, r1
  ret r2
end

export "run" run
`

// TestTierAutoOnStackReplacement checks that one long call moves into
// compiled code at its loop header, that it computes what the
// interpreter computes, and that a trap after the move, and one when fuel
// runs out, are reported as the interpreter reports them.
func TestTierAutoOnStackReplacement(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		n, d    uint64
		fuel    int64
		wantOSR bool
	}{
		{"result", 300000, 1, 0, true},
		{"trap after the move", 300000, 0, 0, true},
		{"fuel runs out after the move", 300000, 1, 200000, true},
		{"too short to move", 10, 3, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := newEngine(t, Options{Fuel: tc.fuel}).LoadText([]byte(osrSrc))
			if err != nil {
				t.Fatal(err)
			}
			refInst, err := ref.Instantiate(nil)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := refInst.Call(ctx, "run", tc.n, tc.d)
			for _, sync := range []bool{true, false} {
				mod, err := newEngine(t, Options{Tier: TierAuto, SynchronousTierUp: sync, TierUpBackEdges: 1000, Fuel: tc.fuel}).LoadText([]byte(osrSrc))
				if err != nil {
					t.Fatal(err)
				}
				inst, err := mod.Instantiate(nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := inst.Call(ctx, "run", tc.n, tc.d)
				if !sameOutcome(got, err, want, wantErr) {
					t.Errorf("sync %v: run = %v, %v; the interpreter gives %v, %v", sync, got, err, want, wantErr)
				}
				if sync && (inst.OSREntries() > 0) != tc.wantOSR {
					t.Errorf("sync %v: %d on-stack replacements, want some: %v", sync, inst.OSREntries(), tc.wantOSR)
				}
			}
		})
	}
}

// TestTierAutoOnStackReplacementInCallee checks a frame that moves while
// an interpreted caller waits for it: the caller gets the results, and
// the instance runs the compiled code from the end of that call on.
func TestTierAutoOnStackReplacementInCallee(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	inst := autoInstance(t, Options{SynchronousTierUp: true, TierUpCalls: 1 << 40, TierUpBackEdges: 100, OSRInterval: 16})
	callSum(t, inst, "twice", 100000)
	if inst.OSREntries() == 0 {
		t.Fatal("the loop of sum, called by twice, did not move")
	}
	if inst.Tier() != TierOptimizing {
		t.Errorf("the instance runs in %s after a call that moved into the compiled code, want it to stay there", inst.Tier())
	}
	callSum(t, inst, "twice", 7)
	if inst.Tier() != TierOptimizing {
		t.Errorf("the instance runs in %s after its first call, want the compiled code", inst.Tier())
	}
}

// TestTierAutoTableChangeAfterMove changes an exported table's entry
// after a call that moved into the tier-up's code (on-stack replacement),
// which the instance then runs: the next call sees the change.
func TestTierAutoTableChangeAfterMove(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	src := "type unop (i64) -> (i64)\ntable 2 export \"tab\"\nelem 0 inc\n" + incDblSource + `
func pick (i64 i64) -> (i64)
  regs i64
  i64.const r2, 0
L:
  br.eq r1, 0, E
  i64.add r2, r2, r1
  i64.sub r1, r1, 1
  jump L
E:
  call_indirect unop, r0 (r2) -> (r2)
  ret r2
end

export "pick" pick
`
	mod, err := newEngine(t, Options{SynchronousTierUp: true, TierUpCalls: 1 << 40, TierUpBackEdges: 100, OSRInterval: 16}).LoadText([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got, err := inst.Call(ctx, "pick", 0, 10000); err != nil || got[0] != 50005001 {
		t.Fatalf("pick(0, 10000) = %v, %v; want 50005001", got, err)
	}
	if inst.OSREntries() == 0 || inst.Tier() != TierOptimizing {
		t.Fatalf("%d on-stack replacements, tier %s: the test needs the first call to move, and the instance to run the compiled code after it", inst.OSREntries(), inst.Tier())
	}
	if err := inst.SetTableEntry(1, "dbl"); err != nil {
		t.Fatal(err)
	}
	if got, err := inst.Call(ctx, "pick", 1, 3); err != nil || got[0] != 12 {
		t.Fatalf("pick(1, 3) = %v, %v after the table change; want 12", got, err)
	}
	if inst.Tier() != TierOptimizing {
		t.Fatalf("the second call runs in %s, want the switched code", inst.Tier())
	}
}

// sameOutcome reports whether two calls returned the same results, or
// trapped alike (kind, function and offset).
func sameOutcome(got []uint64, err error, want []uint64, wantErr error) bool {
	var t1, t2 *bytecode.Trap
	switch {
	case err == nil && wantErr == nil:
		return slices.Equal(got, want)
	case errors.As(err, &t1) && errors.As(wantErr, &t2):
		return t1.Kind == t2.Kind && t1.Func == t2.Func && t1.FuncName == t2.FuncName && t1.Offset == t2.Offset
	}
	return false
}

// osrShapesSrc runs two loops in one call, so that a frame moves into
// compiled code at either header: registers of every type live across
// them, memory read and written, and in the second loop, every 4,096
// iterations, a recursive call and a host function calling back into the
// instance, which must run the function from its start although the
// context asked for an entry of a frame further out.
const osrShapesSrc = `memory 1 1
host again (i64) -> (i64)
func run (i64 i64) -> (i64)
  regs f64 f32 i32 i64 i64 i64
  f64.const r2, 1.5
  f32.const r3, 0.25
  i32.const r4, 7
  i64.const r7, 0
L1:
  br.eq r0, 0, M
  f64.convert_i64_s r2, r0
  f64.add r2, r2, r2
  f32.convert_i32_u r3, r4
  i32.wrap_i64 r4, r0
  i32.mul r4, r4, r4
  i64.add r7, r7, r0
  i64.store [r6+8], r7
  i64.sub r0, r0, 1
  jump L1
M:
  mov r0, r1
L2:
  br.eq r0, 0, E
  i64.load r5, [r6+8]
  i64.xor r5, r5, r0
  i64.add r7, r7, r5
  i64.and r5, r0, 4095
  br.ne r5, 0, N
  i64.const r5, 3
  call run (r5, r5) -> (r5)
  i64.add r7, r7, r5
  call_host again (r0) -> (r5)
  i64.add r7, r7, r5
N:
  i64.sub r0, r0, 1
  jump L2
E:
  i64.trunc_f64_s r5, r2
  i64.add r7, r7, r5
  i64.reinterpret_f64 r5, r2
  i64.xor r7, r7, r5
  f64.promote_f32 r2, r3
  i64.reinterpret_f64 r5, r2
  i64.add r7, r7, r5
  i64.extend_i32_u r5, r4
  i64.add r7, r7, r5
  ret r7
end
export "run" run
`

// TestOnStackReplacementEntries moves long calls of osrShapesSrc into
// compiled code at each of its two loop headers (the first loop long or
// the second), with and without edge counting in the tier-up's code, and
// compares the results with the interpreter's, and with counting the
// statistics: calls, instructions and every edge's count.
func TestOnStackReplacementEntries(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	ctx := context.Background()
	imports := func() Imports {
		return Imports{"again": MustHost(func(c *Caller, x int64) (int64, error) {
			r, err := c.Call("run", 2, uint64(x&7))
			if err != nil {
				return 0, err
			}
			return int64(r[0]), nil
		})}
	}
	run := func(opts Options, a, b uint64) (*Instance, []uint64, error) {
		mod, err := newEngine(t, opts).LoadText([]byte(osrShapesSrc))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := mod.Instantiate(imports())
		if err != nil {
			t.Fatal(err)
		}
		res, err := inst.Call(ctx, "run", a, b)
		return inst, res, err
	}
	for _, tc := range []struct {
		name string
		a, b uint64
	}{
		{"first loop", 400000, 10},
		{"second loop", 10, 400000},
		{"both", 200000, 200000},
	} {
		ref, want, wantErr := run(Options{Tier: TierInterp}, tc.a, tc.b)
		if wantErr != nil {
			t.Fatalf("%s: interpreter: %v", tc.name, wantErr)
		}
		for _, reopt := range []int{0, -1} {
			counting := reopt == 0
			opts := Options{Tier: TierAuto, SynchronousTierUp: true, TierUpBackEdges: 1000, OSRInterval: 64, MaxReoptimizations: reopt, CheckAllocations: true}
			inst, got, err := run(opts, tc.a, tc.b)
			if !sameOutcome(got, err, want, nil) {
				t.Errorf("%s, counting %v: run = %v, %v; the interpreter gives %v", tc.name, counting, got, err, want)
			}
			if inst.OSREntries() == 0 || inst.Tier() != TierOptimizing {
				t.Errorf("%s, counting %v: %d frames moved into compiled code, tier %s after the call", tc.name, counting, inst.OSREntries(), inst.Tier())
			}
			if !counting {
				continue
			}
			// The code counts its entries: the statistics are the
			// interpreter's, every edge exact.
			for fn, w := range ref.Stats() {
				g := inst.Stats()[fn]
				if g.Calls != w.Calls || g.Instructions != w.Instructions {
					t.Errorf("%s: %s: %d calls, %d instructions; the interpreter counts %d, %d", tc.name, w.Name, g.Calls, g.Instructions, w.Calls, w.Instructions)
				}
				for e := range w.Edges {
					if g.Edges[e].Count != w.Edges[e].Count {
						t.Errorf("%s: %s: edge %d->%d runs %d times; the interpreter counts %d", tc.name, w.Name, w.Edges[e].From, w.Edges[e].To, g.Edges[e].Count, w.Edges[e].Count)
					}
				}
			}
		}
	}
}
