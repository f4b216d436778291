package jit

import (
	"fmt"
	"time"
)

// CompileReason says why code was compiled (CompileEvent).
type CompileReason int

const (
	// CompileAtLoad is a module compiled when it loads (a compiled
	// Options.Tier).
	CompileAtLoad CompileReason = iota
	// CompileTierUp is a TierAuto instance's tier-up: the hot module
	// compiled with its counts, with on-stack-replacement entries for its
	// hottest loops.
	CompileTierUp
	// CompileReoptimize is a TierAuto instance's module compiled again
	// because its profile drifted (Options.ReoptimizeDrift).
	CompileReoptimize
	// CompileOptimize is a compile Instance.Optimize asked for.
	CompileOptimize
	// CompileJoin is one function that a TierAuto instance's tier-up left
	// in the interpreter (it had not run yet), compiled on its own once
	// hot to join the tier-up's code (join.go).
	CompileJoin
)

var compileReasonNames = [...]string{CompileAtLoad: "load", CompileTierUp: "tier-up",
	CompileReoptimize: "reoptimize", CompileOptimize: "optimize", CompileJoin: "join"}

// String returns the reason's name: load, tier-up, reoptimize, optimize
// or join.
func (r CompileReason) String() string {
	if r >= 0 && int(r) < len(compileReasonNames) {
		return compileReasonNames[r]
	}
	return fmt.Sprintf("CompileReason(%d)", int(r))
}

// CompileEvent describes a finished compile, for Options.OnCompile.
type CompileEvent struct {
	// Reason is why the code was compiled.
	Reason CompileReason
	// Module is the module compiled; Instance the instance whose counts
	// steered the compile (nil for a compile at load).
	Module   *Module
	Instance *Instance
	// Tier is the tier the code was compiled for.
	Tier Tier
	// Elapsed is the compile's wall time, Stats what it did (zero when it
	// failed).
	Elapsed time.Duration
	Stats   CompileStats
	// Err says why the compile failed, if it did: the code that ran
	// before runs on (a module compiled at load runs in the interpreter).
	Err error
}

// notifyCompile calls Options.OnCompile, if set, with the event of a
// compile that took elapsed and produced cm (nil when it failed with err).
func (m *Module) notifyCompile(reason CompileReason, inst *Instance, tier Tier, elapsed time.Duration, cm *compiledModule, err error) {
	on := m.engine.opts.OnCompile
	if on == nil {
		return
	}
	ev := CompileEvent{Reason: reason, Module: m, Instance: inst, Tier: tier, Elapsed: elapsed, Err: err}
	if cm != nil {
		ev.Stats = cm.stats
	}
	on(ev)
}
