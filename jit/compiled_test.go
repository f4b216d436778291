package jit

import (
	"bufio"
	"context"
	"errors"
	"os"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
)

func loadTier(t testing.TB, tier Tier, opts Options, src string) *Module {
	t.Helper()
	opts.Tier = tier
	mod, err := newEngine(t, opts).LoadText([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if mod.Tier() != tier {
		t.Fatalf("module runs in %s (%v), want %s", mod.Tier(), mod.CompileError(), tier)
	}
	return mod
}

const spinSrc = `
func spin (i64) -> (i64)
loop:
  i64.add r0, r0, 1
  jump loop
end
export "spin" spin
`

// TestCompiledLoopLetsGCRun runs an endless compiled loop on one goroutine
// while another forces garbage collections, then cancels the loop: the
// loop's polls must let the collector stop the world, and cancellation
// must end the call promptly.
func TestCompiledLoopLetsGCRun(t *testing.T) {
	mod := loadTier(t, TierBaseline, Options{}, spinSrc)
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := inst.Call(ctx, "spin", 0)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	for i := 0; i < 5; i++ {
		gcDone := make(chan struct{})
		go func() { goruntime.GC(); close(gcDone) }()
		select {
		case <-gcDone:
		case <-time.After(10 * time.Second):
			t.Fatal("runtime.GC did not finish while compiled code looped")
		}
		goruntime.Gosched()
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		var trap *bytecode.Trap
		if !errors.As(err, &trap) || trap.Kind != bytecode.TrapInterrupted || trap.Offset != 1 || !errors.Is(err, context.Canceled) {
			t.Fatalf("spin ended with %v, want an interrupt at instruction 1", err)
		}
		t.Logf("cancellation took %v", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("cancellation did not stop compiled code")
	}
}

// TestCompiledTrapsAndLimits checks the traps the shared cases do not
// reach, with their offsets, in every configuration: stack overflow from deep
// recursion, fuel exhaustion, host errors and interruption by a deadline.
func TestCompiledTrapsAndLimits(t *testing.T) {
	const src = `
host fail (i64) -> (i64)
func deep (i64) -> (i64)
  regs i64
  br.eq r0, 0, base
  i64.sub r1, r0, 1
  call deep (r1) -> (r1)
  i64.add r1, r1, 1
  ret r1
base:
  ret r0
end
func count (i64) -> (i64)
  regs i64
loop:
  br.ge_s r1, r0, out
  i64.add r1, r1, 1
  jump loop
out:
  ret r1
end
func callsfail (i64) -> (i64)
  call_host fail (r0) -> (r0)
  ret r0
end
export "deep" deep
export "count" count
export "callsfail" callsfail
`
	boom := errors.New("boom")
	imports := Imports{"fail": MustHost(func(x int64) (int64, error) {
		if x < 0 {
			return 0, boom
		}
		return x * 2, nil
	})}
	for _, cfg := range tierConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			mod := loadTier(t, cfg.opts.Tier, cfg.with(Options{MaxCallDepth: 500, Fuel: 1000}), src)
			inst, err := mod.Instantiate(imports)
			if err != nil {
				t.Fatal(err)
			}
			check := func(name string, arg int64, kind bytecode.TrapKind, fn string, off int) {
				t.Helper()
				_, err := inst.Call(context.Background(), name, I64(arg))
				var trap *bytecode.Trap
				if !errors.As(err, &trap) || trap.Kind != kind || trap.FuncName != fn || trap.Offset != off {
					t.Errorf("%s(%d) = %v, want %s in %s at %d", name, arg, err, kind, fn, off)
				}
			}
			if res, err := inst.Call(context.Background(), "deep", 400); err != nil || res[0] != 400 {
				t.Errorf("deep(400) = %v, %v", res, err)
			}
			check("deep", 600, bytecode.TrapStackOverflow, "deep", 2)
			if res, err := inst.Call(context.Background(), "count", 900); err != nil || res[0] != 900 {
				t.Errorf("count(900) = %v, %v", res, err)
			}
			check("count", 1001, bytecode.TrapFuelExhausted, "count", 2)
			if res, err := inst.Call(context.Background(), "callsfail", 21); err != nil || res[0] != 42 {
				t.Errorf("callsfail(21) = %v, %v", res, err)
			}
			check("callsfail", -1, bytecode.TrapHostError, "callsfail", 0)
			_, err = inst.Call(context.Background(), "callsfail", I64(-1))
			if !errors.Is(err, boom) {
				t.Errorf("host error %v does not wrap boom", err)
			}
			// The instance keeps working after traps.
			if res, err := inst.Call(context.Background(), "deep", 10); err != nil || res[0] != 10 {
				t.Errorf("deep(10) after traps = %v, %v", res, err)
			}
		})
	}
}

// TestCompiledDeepRecursionHitsTheMachineStack recurses with the call
// depth limit far above what the machine stack holds: the prologue's stack
// check must trap (at the call) instead of running into the guard page.
func TestCompiledDeepRecursionHitsTheMachineStack(t *testing.T) {
	const src = `
func deep (i64) -> (i64)
  regs i64
  br.eq r0, 0, base
  i64.sub r1, r0, 1
  call deep (r1) -> (r1)
  i64.add r1, r1, 1
  ret r1
base:
  ret r0
end
export "deep" deep
`
	mod := loadTier(t, TierBaseline, Options{MaxCallDepth: 10_000_000, MaxStackBytes: 1 << 20}, src)
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = inst.Call(context.Background(), "deep", 5_000_000)
	var trap *bytecode.Trap
	if !errors.As(err, &trap) || trap.Kind != bytecode.TrapStackOverflow || trap.FuncName != "deep" || trap.Offset != 2 {
		t.Fatalf("deep(5e6) = %v, want a stack overflow at the call", err)
	}
	if res, err := inst.Call(context.Background(), "deep", 1000); err != nil || res[0] != 1000 {
		t.Fatalf("after the overflow: deep(1000) = %v, %v", res, err)
	}
}

// TestCompiledHostCallsBack has a host function call back into the
// instance (compiled code suspended, a nested compiled call on the same
// stack), several levels deep, growing memory on the way.
func TestCompiledHostCallsBack(t *testing.T) {
	const src = `
memory 1 8
host back (i64) -> (i64)
func down (i64) -> (i64)
  regs i64 i64
  br.eq r0, 0, bottom
  i64.sub r1, r0, 1
  call_host back (r1) -> (r1)
  i64.add r1, r1, r0
  i64.store [r2+8], r1
  ret r1
bottom:
  i64.const r1, 1
  memory.grow r1, r1
  memory.size r0
  ret r0
end
export "down" down
`
	for _, cfg := range tierConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			mod := loadTier(t, cfg.opts.Tier, cfg.opts, src)
			var inst *Instance
			inst, err := mod.Instantiate(Imports{"back": MustHost(func(c *Caller, x int64) (int64, error) {
				r, err := c.Call("down", uint64(x))
				if err != nil {
					return 0, err
				}
				return int64(r[0]), nil
			})})
			if err != nil {
				t.Fatal(err)
			}
			// down(n) = sum 1..n + pages after one grow.
			res, err := inst.Call(context.Background(), "down", 5)
			if err != nil || res[0] != 15+2 {
				t.Fatalf("down(5) = %v, %v; want 17", res, err)
			}
			if len(inst.Memory()) != 2*bytecode.PageSize {
				t.Fatalf("memory is %d bytes", len(inst.Memory()))
			}
			b, _ := inst.ReadMemory(8, 1)
			if b[0] != 17 {
				t.Fatalf("stored %d, want 17", b[0])
			}
		})
	}
}

// TestCompiledConcurrentInstances runs many instances of one compiled
// module on many goroutines at once (run it with -race).
func TestCompiledConcurrentInstances(t *testing.T) {
	// Compiled code does not count calls, so Stats is not checked.
	runConcurrentSums(t, loadTier(t, TierBaseline, Options{}, sumSrc), 16, 100, false)
}

// TestNoWritableExecutableMappings scans the process's memory map after
// compiling code: no mapping may be writable and executable at once.
func TestNoWritableExecutableMappings(t *testing.T) {
	mod := loadTier(t, TierBaseline, Options{}, sumSrc)
	var printed []int64
	inst, err := mod.Instantiate(sumImports(&printed))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Call(context.Background(), "sum", 10); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	defer f.Close()
	executable := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		perms := fields[1]
		if strings.Contains(perms, "x") {
			executable++
		}
		if strings.Contains(perms, "w") && strings.Contains(perms, "x") {
			t.Errorf("writable and executable mapping: %s", sc.Text())
		}
	}
	if executable == 0 {
		t.Fatal("found no executable mapping at all")
	}
	goruntime.KeepAlive(inst)
}
