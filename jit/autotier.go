package jit

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/profilecounters"
)

// Tier-up (TierAuto).
//
// Every instance of a TierAuto module starts in the interpreter, which
// counts each function's calls and edges. After its calls the instance
// checks whether it is hot: a function called TierUpCalls times, or
// TierUpBackEdges backward branches taken (a branch to a block at or
// before its own, which every loop iteration takes) in all functions
// together. The first time it is, the instance's counters are copied and
// the whole module is compiled with the optimizing tier steered by them:
// in the background, on a pool of goroutines the engine bounds to half
// the processors, or on the calling goroutine with SynchronousTierUp. The
// instance keeps running in the interpreter meanwhile, and the call after
// the compile finishes runs the compiled code; memory, globals, the table
// and host functions carry over, as with Instance.Optimize. A compile
// that fails leaves the instance interpreted for good, and
// Instance.TierUpError reports why.
//
// The unit is the instance's module: a function does not yet get a tier
// of its own, compiled code does not count edges (so an instance tiers up
// once), and a call already running stays in the tier it started in, so a
// program that spends its time in one long call (no on-stack replacement
// yet) does not benefit.

// counterRef names the counter of one edge: function, counter slot.
type counterRef struct {
	fn, slot int32
}

// backwardEdges lists the counters of every edge of prog that goes to a
// block at or before its own (the back edges of loops among them).
func backwardEdges(prog *interp.Program) []counterRef {
	var out []counterRef
	for fn, l := range prog.Layouts {
		for e, ed := range l.Edges {
			if ed.To <= ed.From {
				out = append(out, counterRef{int32(fn), int32(profilecounters.EdgeCounter(e))})
			}
		}
	}
	return out
}

// autoTier is an instance's tier-up state.
type autoTier struct {
	// calls counts the instance's outermost calls; the instance checks
	// whether it is hot after some of them (checkEvery).
	calls uint64
	// started is set once a compile has been started (or the instance was
	// compiled otherwise); no second one starts.
	started bool
	// done holds the finished compile until the next call takes it.
	done atomic.Pointer[autoResult]
	// err is why the compile failed, once a call has taken the result.
	err error
	// elapsed is what the compile took.
	elapsed time.Duration
}

// autoResult is a finished compile.
type autoResult struct {
	cm      *compiledModule
	err     error
	elapsed time.Duration
}

// checkEvery is how many outermost calls pass between two hotness checks
// once the instance has made more than that many: a check reads a counter
// per function and per backward edge.
const checkEvery = 16

// hot reports whether the instance has reached a tier-up threshold.
func (i *Instance) hot() bool {
	opts := &i.module.engine.opts
	counters := i.machine.Counters
	for _, c := range counters {
		if c[profilecounters.EntryCounter] >= opts.TierUpCalls {
			return true
		}
	}
	var back uint64
	for _, r := range i.module.backEdges {
		back += counters[r.fn][r.slot]
		if back >= opts.TierUpBackEdges {
			return true
		}
	}
	return false
}

// afterCall runs at the end of an outermost call of a TierAuto instance
// that still interprets: it starts the compile when the instance is hot.
func (i *Instance) afterCall() {
	a := i.auto
	if a == nil || a.started {
		return
	}
	a.calls++
	if a.calls > checkEvery && a.calls%checkEvery != 0 || !i.hot() {
		return
	}
	a.started = true
	snapshot := make([][]uint64, len(i.machine.Counters))
	for fn, c := range i.machine.Counters {
		snapshot[fn] = slices.Clone(c)
	}
	m := i.module
	compile := func() {
		start := time.Now()
		cfg := m.engine.compileConfig(TierOptimizing, func(fn int) *profilecounters.Profile {
			return m.prog.Layouts[fn].Profile(snapshot[fn])
		})
		cm, err := compileModule(context.Background(), m.prog, cfg)
		a.done.Store(&autoResult{cm: cm, err: err, elapsed: time.Since(start)})
	}
	if m.engine.opts.SynchronousTierUp {
		compile()
		return
	}
	go func() {
		m.engine.compiles <- struct{}{}
		defer func() { <-m.engine.compiles }()
		compile()
	}()
}

// beforeCall runs at the start of an outermost call of a TierAuto
// instance: it switches to the code a finished compile produced.
func (i *Instance) beforeCall() {
	a := i.auto
	if a == nil {
		return
	}
	r := a.done.Swap(nil)
	if r == nil || i.compiled != nil {
		return // none, or the instance was optimized meanwhile
	}
	a.elapsed = r.elapsed
	if r.err != nil {
		a.err = fmt.Errorf("jit: tier-up: %w", r.err)
		return
	}
	ci, err := newCompiledInstance(i.module.prog, r.cm, i.cfg, i.module.engine.opts.MaxStackBytes, i.hosts, i.mem, i.machine.Globals(), i.table)
	if err != nil {
		a.err = fmt.Errorf("jit: tier-up: %w", err)
		return
	}
	i.compiled, i.tier = ci, TierOptimizing
}

// TierUpError returns why a TierAuto instance's compile failed, leaving it
// in the interpreter, or nil.
func (i *Instance) TierUpError() error {
	if i.auto == nil {
		return nil
	}
	return i.auto.err
}

// TierUpTime returns how long a TierAuto instance's compile took, once
// the instance has switched to its code (or given up on it); zero before.
func (i *Instance) TierUpTime() time.Duration {
	if i.auto == nil {
		return 0
	}
	return i.auto.elapsed
}
