package jit

import (
	"context"
	_ "embed"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/runtime"
)

//go:embed testdata/phase.kasm
var phaseSource []byte

// phaseModule assembles testdata/phase.kasm.
func phaseModule(t testing.TB) *bytecode.Module {
	t.Helper()
	m, err := bytecode.Assemble(phaseSource)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// phaseRun calls phase(n, p) calls times on inst and checks each result
// against want (computed by the interpreter).
func phaseRun(t testing.TB, inst *Instance, n, p uint64, calls int, want uint64) {
	t.Helper()
	for range calls {
		got, err := inst.Call(context.Background(), "phase", n, p)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != want {
			t.Fatalf("phase(%d, %d) = %d, want %d", n, p, got[0], want)
		}
	}
}

// phaseInstance returns a new instance of m under opts.
func phaseInstance(t testing.TB, m *bytecode.Module, opts Options) *Instance {
	t.Helper()
	mod, err := newEngine(t, opts).Load(m)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// phaseWant returns phase(n, p) by the interpreter.
func phaseWant(t testing.TB, m *bytecode.Module, n, p uint64) uint64 {
	t.Helper()
	inst := phaseInstance(t, m, Options{Tier: TierInterp})
	got, err := inst.Call(context.Background(), "phase", n, p)
	if err != nil {
		t.Fatal(err)
	}
	return got[0]
}

// TestReoptimizeOnPhaseChange checks re-optimization: a TierAuto instance
// tiers up in the first phase, its code counts, and when the hot branch
// flips it is compiled again with the second phase's counts, once; the
// answers stay the interpreter's throughout.
func TestReoptimizeOnPhaseChange(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	m := phaseModule(t)
	want0, want1 := phaseWant(t, m, 1000, 0), phaseWant(t, m, 1000, 1)
	for _, sync := range []bool{true, false} {
		inst := phaseInstance(t, m, Options{SynchronousTierUp: sync, CheckAllocations: true})
		phaseRun(t, inst, 1000, 0, 200, want0)
		for k := 0; inst.Tier() != TierOptimizing; k++ {
			if sync || k == 10000 {
				t.Fatalf("sync=%v: tier %s after %d hot calls", sync, inst.Tier(), 200+k)
			}
			time.Sleep(time.Millisecond)
			phaseRun(t, inst, 1000, 0, 1, want0)
		}
		phaseRun(t, inst, 1000, 0, 400, want0)
		if n, _, err := inst.Reoptimizations(); n != 0 || err != nil {
			t.Fatalf("sync=%v: %d re-optimizations (%v) while the profile holds", sync, n, err)
		}
		phaseRun(t, inst, 1000, 1, 400, want1)
		for k := 0; k < 10000; k++ {
			if n, _, _ := inst.Reoptimizations(); n > 0 {
				break
			}
			if !sync {
				time.Sleep(100 * time.Microsecond)
			}
			phaseRun(t, inst, 1000, 1, 1, want1)
		}
		n, elapsed, err := inst.Reoptimizations()
		if n != 1 || err != nil {
			t.Fatalf("sync=%v: %d re-optimizations (%v) after the phase change, want 1", sync, n, err)
		}
		phaseRun(t, inst, 1000, 1, 400, want1)
		if n2, _, _ := inst.Reoptimizations(); n2 != 1 {
			t.Errorf("sync=%v: %d re-optimizations while the second phase holds, want 1", sync, n2)
		}
		// The counts of all the code the instance ran add up.
		calls := inst.Stats()[0].Calls
		if want := uint64(200 + 400 + 400 + 400); calls < want {
			t.Errorf("sync=%v: %d calls counted, want at least %d", sync, calls, want)
		}
		t.Logf("sync=%v: re-optimized once in %v; %d calls counted", sync, elapsed, calls)
	}
}

// TestReoptimizeCap checks the hysteresis: a phase that flips on every
// look recompiles at most MaxReoptimizations times, and not at all when
// re-optimization is off.
func TestReoptimizeCap(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	m := phaseModule(t)
	want := [2]uint64{phaseWant(t, m, 100, 0), phaseWant(t, m, 100, 1)}
	for _, limit := range []int{-1, 2} {
		inst := phaseInstance(t, m, Options{SynchronousTierUp: true, TierUpCalls: 1, TierUpBackEdges: 50,
			MaxReoptimizations: limit, reoptLookEvery: 1})
		for k := range 2000 {
			p := uint64(k/20) % 2
			phaseRun(t, inst, 100, p, 1, want[p])
		}
		n, _, err := inst.Reoptimizations()
		if err != nil {
			t.Fatal(err)
		}
		if wantN := max(limit, 0); n != wantN {
			t.Errorf("MaxReoptimizations %d: %d re-optimizations, want %d", limit, n, wantN)
		}
	}
}

// BenchmarkReoptimize is the phase-change benchmark: phase(1000, p) called
// with p = 0 until the instance has tiered up and then with p = 1 (the hot
// branch flips). It times second-phase calls of an instance that was
// re-optimized after the flip ("reopt"), of one that never re-optimizes
// (MaxReoptimizations -1: "stale", still compiled for the first phase)
// and of one that only ever saw the second phase ("fresh"), in alternating
// rounds, and reports recovery = fresh time / re-optimized time (1: the
// re-optimized code is as fast as code compiled for the second phase from
// the start) and stale-x-fresh.
func BenchmarkReoptimize(b *testing.B) {
	if !runtime.Supported() {
		b.Skip("compiled tiers are not supported on this platform")
	}
	m := phaseModule(b)
	want0, want1 := phaseWant(b, m, 1000, 0), phaseWant(b, m, 1000, 1)
	instance := func(opts Options, firstPhase bool) *Instance {
		opts.SynchronousTierUp = true
		inst := phaseInstance(b, m, opts)
		if firstPhase {
			phaseRun(b, inst, 1000, 0, 2000, want0)
		}
		phaseRun(b, inst, 1000, 1, 2000, want1)
		if inst.Tier() != TierOptimizing {
			b.Fatalf("tier %s", inst.Tier())
		}
		return inst
	}
	reopt := instance(Options{}, true)
	stale := instance(Options{MaxReoptimizations: -1}, true)
	fresh := instance(Options{}, false)
	if n, _, err := reopt.Reoptimizations(); n != 1 || err != nil {
		b.Fatalf("%d re-optimizations (%v), want 1", n, err)
	}
	if n, _, _ := fresh.Reoptimizations(); n != 0 {
		b.Fatalf("the fresh instance re-optimized %d times", n)
	}
	insts := []*Instance{reopt, stale, fresh}
	times := make([]time.Duration, len(insts))
	round := func() {
		for k, inst := range insts {
			start := time.Now()
			phaseRun(b, inst, 1000, 1, 20, want1)
			times[k] += time.Since(start)
		}
	}
	rounds := 0
	for b.Loop() {
		round()
		rounds++
	}
	per := func(d time.Duration) float64 { return float64(d) / float64(20*rounds) }
	b.ReportMetric(per(times[0]), "reopt-ns/call")
	b.ReportMetric(per(times[1]), "stale-ns/call")
	b.ReportMetric(per(times[2]), "fresh-ns/call")
	b.ReportMetric(float64(times[2])/float64(times[0]), "recovery")
	b.ReportMetric(float64(times[1])/float64(times[2]), "stale-x-fresh")
}
