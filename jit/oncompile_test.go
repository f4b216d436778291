package jit

import (
	"errors"
	"sync"
	"testing"

	"github.com/kiln-jit/kiln/runtime"
)

// compileLog collects the events Options.OnCompile reports.
type compileLog struct {
	mu     sync.Mutex
	events []CompileEvent
}

func (l *compileLog) record(ev CompileEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

func (l *compileLog) reasons() []CompileReason {
	l.mu.Lock()
	defer l.mu.Unlock()
	var rs []CompileReason
	for _, ev := range l.events {
		rs = append(rs, ev.Reason)
	}
	return rs
}

// TestOnCompile checks that Options.OnCompile hears of every compile: at
// load, a failed one at load, a tier-up and a re-optimization of a TierAuto
// instance, and Instance.Optimize, each with its module, instance, tier,
// time and statistics.
func TestOnCompile(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	m := phaseModule(t)

	t.Run("load", func(t *testing.T) {
		var log compileLog
		mod, err := newEngine(t, Options{Tier: TierOptimizing, OnCompile: log.record}).Load(m)
		if err != nil {
			t.Fatal(err)
		}
		if len(log.events) != 1 {
			t.Fatalf("%d events, want 1", len(log.events))
		}
		ev := log.events[0]
		if ev.Reason != CompileAtLoad || ev.Module != mod || ev.Instance != nil || ev.Tier != TierOptimizing ||
			ev.Err != nil || ev.Elapsed <= 0 || ev.Stats.Functions != len(m.Funcs) {
			t.Errorf("event %+v", ev)
		}
	})

	t.Run("load fails", func(t *testing.T) {
		var log compileLog
		mod, err := newEngine(t, Options{Tier: TierOptimizing, MaxCompileBytes: 1, OnCompile: log.record}).Load(m)
		if err != nil {
			t.Fatal(err)
		}
		var limit *LimitError
		if len(log.events) != 1 || !errors.As(log.events[0].Err, &limit) || mod.Tier() != TierInterp {
			t.Fatalf("events %+v, module tier %s: want one failed compile at load", log.events, mod.Tier())
		}
	})

	t.Run("tier-up, re-optimization and Optimize", func(t *testing.T) {
		var log compileLog
		inst := phaseInstance(t, m, Options{SynchronousTierUp: true, OnCompile: log.record})
		if rs := log.reasons(); len(rs) != 0 {
			t.Fatalf("events %v before any call", rs)
		}
		want0, want1 := phaseWant(t, m, 1000, 0), phaseWant(t, m, 1000, 1)
		phaseRun(t, inst, 1000, 0, 600, want0)
		phaseRun(t, inst, 1000, 1, 2000, want1)
		if n, _, err := inst.Reoptimizations(); n == 0 || err != nil {
			t.Fatalf("%d re-optimizations (%v): the phase change did not recompile", n, err)
		}
		if err := inst.Optimize(); err != nil {
			t.Fatal(err)
		}
		rs := log.reasons()
		if len(rs) < 3 || rs[0] != CompileTierUp || rs[1] != CompileReoptimize || rs[len(rs)-1] != CompileOptimize {
			t.Fatalf("reasons %v: want tier-up, re-optimizations, optimize", rs)
		}
		for _, ev := range log.events {
			if ev.Instance != inst || ev.Module != inst.Module() || ev.Tier != TierOptimizing || ev.Err != nil ||
				ev.Elapsed <= 0 || ev.Stats.Functions == 0 {
				t.Errorf("%s event %+v", ev.Reason, ev)
			}
		}
	})
}

// TestCompileReasonNames checks the names of the compile reasons.
func TestCompileReasonNames(t *testing.T) {
	for r, want := range map[CompileReason]string{CompileAtLoad: "load", CompileTierUp: "tier-up",
		CompileReoptimize: "reoptimize", CompileOptimize: "optimize", 9: "CompileReason(9)"} {
		if got := r.String(); got != want {
			t.Errorf("%d: %q, want %q", int(r), got, want)
		}
	}
}
