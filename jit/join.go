package jit

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/profilecounters"
	"github.com/kiln-jit/kiln/runtime"
)

// Functions joining the tier-up's code one at a time (TierAuto).
//
// A tier-up compiles only the functions that have run; the others stay in
// the interpreter behind stubs (mixed.go). Re-optimization brings them in
// at an outermost call (reoptimize.go), but a call that never returns
// (a WASI program's _start, a script's main loop) has none: a function
// first called after the tier-up would run in the interpreter for the
// rest of the call, each call from compiled code an exit to Go, slower
// than if nothing had been compiled. So when compiled code's call of a
// stub returns, or the interpreter offers a frame of the function for
// on-stack replacement, and the function has become hot (the tier-up's
// thresholds on the interpreter's counts of it), the function is
// compiled on its own in the background, steered by those counts, for
// the code it joins: lowered in the tier-up's stand-in module (every
// other function as the tier-up left it) so that it calls, reads globals
// and tables as that code does, without counting its edges. When a later
// stub return or offer on the instance's goroutine finds the compile done, it
// installs the code, points the instance's entry table at it (compiled
// callers and the table's call_indirect go through that table) and marks
// the function external for the interpreter: from the next call on it
// runs compiled. A compile that fails leaves the function interpreted for
// good. OnCompile hears of each such compile as CompileJoin.

// joiner is the state of the functions joining a tier-up's code ci.
type joiner struct {
	// external is the interpreter's marks of the functions it calls in
	// compiled code (Machine.SetExternal), which a join sets.
	external []bool
	// started marks the functions whose compile started.
	started []bool
	mu      sync.Mutex
	done    []*joinResult // finished compiles, not installed yet
	// code keeps the joined functions' executable memory alive.
	code []*runtime.Code
}

// joinResult is a finished compile of one function.
type joinResult struct {
	job     *funcJob
	elapsed time.Duration
}

// newJoiner prepares ci, code of a tier-up with the interpreter's
// external marks external, for functions joining it.
func newJoiner(ci *compiledInstance, external []bool) *joiner {
	return &joiner{external: external, started: make([]bool, len(ci.cm.stubs))}
}

// considerJoin runs on the instance's goroutine when compiled code's call
// of the stub of function fn returned, or the interpreter offers a frame
// of fn for on-stack replacement while ci's code waits for the next call:
// it starts fn's compile if fn is a hot stub and installs the joins that
// finished.
func (i *Instance) considerJoin(ci *compiledInstance, fn int) {
	j, cm := ci.join, ci.cm
	if !j.started[fn] && cm.isStub(fn) && cm.failed[fn] == nil && !i.module.keptInterpreted(fn) && i.hotFunc(fn) {
		j.started[fn] = true
		m := i.module
		counts := slices.Clone(i.machine.Counters[fn])
		m.engine.runCompile(func() {
			start := time.Now()
			prog := ci.prog
			cfg := m.engine.compileConfig(TierOptimizing, func(int) *profilecounters.Profile {
				return prog.Layouts[fn].Profile(counts)
			})
			cfg.code = m.code
			job := compileJoin(prog, cm, fn, cfg)
			r := &joinResult{job: job, elapsed: time.Since(start)}
			j.mu.Lock()
			j.done = append(j.done, r)
			j.mu.Unlock()
		})
	}
	j.mu.Lock()
	done := j.done
	j.done = nil
	j.mu.Unlock()
	for _, r := range done {
		i.installJoin(ci, r)
	}
}

// compileJoin compiles function fn of prog, a stub in cm (the tier-up's
// code), for cm: in the module cm compiled, with fn's own code in place
// of its stub. It runs on a compiling goroutine and reads only what the
// instance does not change.
func compileJoin(prog *interp.Program, cm *compiledModule, fn int, cfg compileConfig) *funcJob {
	orig := prog.Module
	m := *cm.standIn
	m.Funcs = slices.Clone(m.Funcs)
	m.Funcs[fn] = orig.Funcs[fn]
	j := &funcJob{fn: fn, prof: cfg.profile(fn)}
	if j.err = cfg.checkCompileBytes(orig.Funcs[fn], cfg.code.len(orig, fn)); j.err != nil {
		return j
	}
	j.compile(context.Background(), prog, &m, cm.standInInfo.StandIn(&m), cfg)
	return j
}

// installJoin makes a finished compile of a function the one compiled
// code and the interpreter call from now on (a failed one leaves it
// interpreted).
func (i *Instance) installJoin(ci *compiledInstance, r *joinResult) {
	cm, job := ci.cm, r.job
	fn := job.fn
	var err error
	var code *runtime.Code
	if job.err == nil {
		part := partOf(job.enc)
		code, err = runtime.Install([]runtime.Part{part})
	} else {
		err = job.err
	}
	st := CompileStats{Tier: TierOptimizing}
	if err == nil {
		st.Functions, st.Instructions, st.CodeBytes = 1, job.stats.Instructions, len(job.enc.Bytes)
		st.Lower, st.OutOfSSA, st.Alloc, st.Check, st.Encode = job.stats.Lower, job.stats.OutOfSSA, job.stats.Alloc, job.stats.Check, job.stats.Encode
		st.Sched, st.Passes = job.stats.Sched, job.stats.Passes
		st.Wall = r.elapsed
		enc := job.enc
		enc.Bytes, enc.Relocs, enc.PosMap = nil, nil, nil
		ci.join.code = append(ci.join.code, code)
		cm.funcs[fn] = enc
		cm.stubs[fn] = false
		ci.table[fn] = code.Addr(0)
		ci.join.external[fn] = true
		cm.stats.Functions++
		cm.stats.Interpreted--
		cm.stats.Instructions += st.Instructions
		cm.stats.CodeBytes += st.CodeBytes
	} else {
		cm.failed[fn] = err
	}
	on := i.module.engine.opts.OnCompile
	if on != nil {
		on(CompileEvent{Reason: CompileJoin, Module: i.module, Instance: i, Tier: TierOptimizing, Elapsed: r.elapsed, Stats: st, Err: err})
	}
}

// partOf returns the installable part of an encoded function.
func partOf(enc *encode.Code) runtime.Part {
	relocs := make([]runtime.Reloc, len(enc.Relocs))
	for k, r := range enc.Relocs {
		relocs[k] = runtime.Reloc{Offset: r.Offset, Target: r.Target}
	}
	return runtime.Part{Bytes: enc.Bytes, Relocs: relocs}
}
