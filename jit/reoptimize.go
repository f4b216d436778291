package jit

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/profilecounters"
)

// Re-optimization (TierAuto).
//
// The code a tier-up compiles counts its edges (the chords of each
// function's flow graph, profilecounters.ChordPlan). After its outermost
// calls the instance looks at what each function did since it last looked
// (a window): once a window holds enough branch executions
// (Options.TierUpBackEdges, doubled after each re-optimization), its
// behaviour is compared with the profile the code was compiled with
// (profilecounters.Drift). When one function's window drifted further than
// Options.ReoptimizeDrift, and did in the look before too (a window
// that straddles the change is not trusted to steer the compile), the
// module is compiled again in the background, each function steered by
// its latest window (or, if it has none, by the profile it had), and the
// next outermost call switches to the new code. Each look starts new
// windows for the functions whose windows it compared. Calls running at the switch finish
// in the code they started in (there is none at an outermost call, as
// host functions' calls back into the instance nest in the running
// code); old code is freed by the garbage collector once nothing refers
// to it. At most Options.MaxReoptimizations compiles follow the tier-up.
//
// The instance looks after 1, 2, 4, ... calls: every 16 calls at most
// while windows fill, every 1,024 while none does, so that an instance of
// short calls does not pay for the looking. A call that never returns (a program's main loop) is
// not re-optimized: there is no on-stack replacement from compiled code
// to compiled code yet.

// reoptimizer is the re-optimization state of a TierAuto instance whose
// tier-up compile finished.
type reoptimizer struct {
	// prog is the module the tier-up compiled; current is the instance's
	// code compiled from it, which the instance runs while nothing else
	// replaced it.
	prog    *interp.Program
	current *compiledInstance
	// profiled holds, per function, the counts (layout form) the current
	// code was compiled with; windowStart the counts its code had made
	// when the window began.
	profiled    [][]uint64
	windowStart [][]uint64
	// window holds the latest full window of each function (nil: none).
	window [][]uint64
	// calls counts outermost calls since the last look; interval is how
	// many pass between two looks.
	calls, interval uint64
	// fixedInterval, when positive, replaces the back-off (tests).
	fixedInterval uint64
	// confirming is set when the last full windows drifted: the next
	// full window decides.
	confirming bool
	// running is set while a compile runs; done holds its result.
	running bool
	done    chan *autoResult
	// count is the number of re-optimizations made, elapsed their total
	// compile time, err the last failure.
	count   int
	elapsed time.Duration
	err     error
}

// Look intervals, in outermost calls: after 1, 2, 4, ... calls, at most
// fullLookInterval while windows fill and maxLookInterval while they do
// not.
const (
	fullLookInterval = 16
	maxLookInterval  = 1024
)

// newReoptimizer starts re-optimization for the code ci that prog was
// compiled into with the counts profiled.
func newReoptimizer(prog *interp.Program, ci *compiledInstance, profiled [][]uint64, fixedInterval uint64) *reoptimizer {
	r := &reoptimizer{prog: prog, done: make(chan *autoResult, 1), fixedInterval: fixedInterval}
	r.reset(ci, profiled)
	return r
}

// reset makes ci, compiled with the counts profiled, the current code.
func (r *reoptimizer) reset(ci *compiledInstance, profiled [][]uint64) {
	r.current, r.profiled = ci, profiled
	r.windowStart = make([][]uint64, len(profiled))
	r.window = make([][]uint64, len(profiled))
	r.calls, r.interval, r.confirming = 0, 1, false
	if r.fixedInterval > 0 {
		r.interval = r.fixedInterval
	}
}

// needSamples is how many branch executions a window needs.
func (i *Instance) needSamples() uint64 {
	r := i.auto.reopt
	return i.module.engine.opts.TierUpBackEdges << min(r.count, 16)
}

// lookForDrift runs after an outermost call of an instance that runs the
// code of its tier-up: every interval calls it compares the windows that
// are full, and starts a compile when one drifted.
func (i *Instance) lookForDrift() {
	r := i.auto.reopt
	opts := &i.module.engine.opts
	if r.running || r.count >= opts.MaxReoptimizations || i.compiled != r.current {
		return
	}
	r.calls++
	if r.calls < r.interval {
		return
	}
	r.calls = 0
	if i.interpretedGotHot() {
		i.startReoptimize()
		return
	}
	need := i.needSamples()
	full, drifted := false, false
	for fn, prev := range r.profiled {
		now := r.current.edgeCounters(fn)
		if now == nil {
			continue
		}
		window := slices.Clone(now)
		if start := r.windowStart[fn]; start != nil {
			for s := range window {
				window[s] -= min(start[s], window[s]) // derived counts may dip
			}
		}
		l := r.prog.Layouts[fn]
		d := l.Drift(profilecounters.TakeSnapshot(prev), addCounts(slices.Clone(prev), window))
		if d.Samples < need {
			continue
		}
		full = true
		r.window[fn], r.windowStart[fn] = window, now
		if d.Distance > opts.ReoptimizeDrift {
			drifted = true
		}
	}
	if r.fixedInterval == 0 {
		if full {
			r.interval = min(2*r.interval, fullLookInterval)
		} else {
			r.interval = min(2*r.interval, maxLookInterval)
		}
	}
	if !full {
		return
	}
	// A window that drifted may straddle the change of behaviour: the
	// next full window, all after it, confirms the drift and steers the
	// compile.
	if drifted && r.confirming {
		r.confirming = false
		i.startReoptimize()
		return
	}
	r.confirming = drifted
}

// interpretedGotHot reports whether a function the instance's code left
// interpreted may now join it (joins).
func (i *Instance) interpretedGotHot() bool {
	cm := i.auto.reopt.current.cm
	for fn := range i.module.prog.Module.Funcs {
		if i.joins(cm, fn) {
			return true
		}
	}
	return false
}

// joins reports whether function fn, which cm left interpreted because it
// had not run at the tier-up, has reached a tier-up threshold since: a
// re-optimization compiles it. Functions Options.Interpreted keeps and
// functions that failed to compile stay interpreted.
func (i *Instance) joins(cm *compiledModule, fn int) bool {
	return cm.isStub(fn) && cm.failed[fn] == nil && !i.module.keptInterpreted(fn) && i.hotFunc(fn)
}

// addCounts adds b to a, slot by slot, and returns a.
func addCounts(a, b []uint64) []uint64 {
	for s := range a {
		a[s] += b[s]
	}
	return a
}

// startReoptimize compiles the module again, each function steered by its
// latest full window, or the profile it had.
func (i *Instance) startReoptimize() {
	r := i.auto.reopt
	r.running = true
	profiled := make([][]uint64, len(r.profiled))
	for fn := range profiled {
		if w := r.window[fn]; w != nil && w[profilecounters.EntryCounter] > 0 {
			profiled[fn] = w
		} else {
			profiled[fn] = r.profiled[fn]
		}
	}
	m, prog := i.module, r.prog
	// The interpreted functions that got hot join the compiled code,
	// steered by what the interpreter counted.
	cm := r.current.cm
	var interpreted []bool
	if cm.stubs != nil {
		interpreted = make([]bool, len(profiled))
		for fn := range profiled {
			if i.joins(cm, fn) {
				profiled[fn] = slices.Clone(i.machine.Counters[fn])
			} else {
				interpreted[fn] = cm.isStub(fn)
			}
		}
	}
	compile := func() {
		start := time.Now()
		cfg := m.engine.compileConfig(TierOptimizing, func(fn int) *profilecounters.Profile {
			if fn < len(profiled) {
				return prog.Layouts[fn].Profile(profiled[fn])
			}
			return nil
		})
		cfg.countFuncs = len(profiled)
		cfg.interpreted, cfg.fallback, cfg.code = interpreted, true, m.code
		cm, err := compileModule(context.Background(), prog, cfg)
		m.notifyCompile(CompileReoptimize, i, TierOptimizing, time.Since(start), cm, err)
		r.done <- &autoResult{cm: cm, prog: prog, profiled: profiled, err: err, elapsed: time.Since(start)}
	}
	m.engine.runCompile(compile)
}

// takeReoptimized switches an instance that runs its tier-up's code to
// the code a finished re-optimization produced, at the start of an
// outermost call.
func (i *Instance) takeReoptimized() {
	r := i.auto.reopt
	if !r.running {
		return
	}
	var res *autoResult
	select {
	case res = <-r.done:
	default:
		return
	}
	r.running = false
	r.count++
	r.elapsed += res.elapsed
	if res.err != nil {
		r.err = fmt.Errorf("jit: re-optimize: %w", res.err)
		return
	}
	if i.compiled != r.current {
		return // Optimize replaced the code meanwhile
	}
	ci, err := newCompiledInstance(res.prog, res.cm, i.cfg, i.module.engine.opts.MaxStackBytes, i.hosts, i.mem, i.machine.Globals(), i.table, i.machine.Segments(), i.machine.Tables())
	if err != nil {
		r.err = fmt.Errorf("jit: re-optimize: %w", err)
		return
	}
	ci.poll = r.current.poll
	if err := i.attach(ci); err != nil {
		r.err = fmt.Errorf("jit: re-optimize: %w", err)
		return
	}
	i.retire(r.current)
	i.compiled = ci
	r.reset(ci, res.profiled)
}

// retire adds what the counting code ci counted to the instance's totals,
// before the instance stops running it.
func (i *Instance) retire(ci *compiledInstance) {
	n := len(i.module.prog.Layouts)
	if i.retired == nil {
		i.retired = make([][]uint64, n)
	}
	for fn := range n {
		if c := ci.edgeCounters(fn); c != nil {
			if i.retired[fn] == nil {
				i.retired[fn] = c
			} else {
				addCounts(i.retired[fn], c)
			}
		}
	}
}

// allCounters returns function fn's counts over the instance's life in
// its layout's form: the interpreter's, plus what counting compiled code
// counted (the code it runs and the code it retired).
func (i *Instance) allCounters(fn int) []uint64 {
	c := slices.Clone(i.machine.Counters[fn])
	if fn < len(i.retired) && i.retired[fn] != nil {
		addCounts(c, i.retired[fn])
	}
	if i.compiled != nil {
		if now := i.compiled.edgeCounters(fn); now != nil {
			addCounts(c, now)
		}
	}
	return c
}

// Reoptimizations returns how many times a TierAuto instance was compiled
// again after its tier-up because its profile drifted, what those
// compiles took in all, and why the last one failed (nil if it did not).
func (i *Instance) Reoptimizations() (count int, elapsed time.Duration, err error) {
	if i.auto == nil || i.auto.reopt == nil {
		return 0, 0, nil
	}
	r := i.auto.reopt
	return r.count, r.elapsed, r.err
}
