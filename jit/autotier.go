package jit

import (
	"cmp"
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
// A call that is running when the compile finishes moves into the
// compiled code at its next backward branch (on-stack replacement): the
// compile gives the functions of the hottest loops (by the counts of their
// backward branches, at most maxOSREntries loops) an on-stack-replacement
// entry at each such loop's header (lower.Options.OSRHeaders): a path
// from the function's entry block, taken when the execution context asks
// for it, that loads the registers of an interpreter frame and jumps to
// the header. The interpreter, when a frame of that function takes a
// backward branch to that header (checked every Options.OSRInterval
// backward branches and calls, interp.PollInterval by default, the poller
// being periodic), calls the compiled function with the frame's registers
// under the call's context, fuel and call depth, asking for that entry,
// and returns the function's results from the frame. The function is
// compiled once, its entries included: no copy of it per loop. While a
// call runs, the function of
// the frame offered is checked against the thresholds alone (its calls or
// its backward branches), so a long call whose function gets hot starts
// the compile itself, and a program that spends its time in one long call
// benefits too. A host function the moved code calls
// that calls back into the instance nests in the compiled code, which
// knows the call depth.
//
// The tier-up compiles the functions that have run; the others stay in
// the interpreter (a mixed module, mixed.go), as does a function whose
// compile fails (Instance.Stats reports its error), and join the compiled
// code when they get hot, at a re-optimization. The tier-up's code counts
// its edges, and is compiled again when its behaviour drifts
// (reoptimize.go).

// counterRef names the counter of one edge: function, counter slot.
type counterRef struct {
	fn, slot int32
}

// backwardEdges lists the counters of every edge of prog that goes to a
// block at or before its own (the back edges of loops among them), by
// function: those of function fn are out[from[fn]:from[fn+1]].
func backwardEdges(prog *interp.Program) (out []counterRef, from []int32) {
	from = make([]int32, len(prog.Layouts)+1)
	for fn, l := range prog.Layouts {
		from[fn] = int32(len(out))
		for e, ed := range l.Edges {
			if ed.To <= ed.From {
				out = append(out, counterRef{int32(fn), int32(profilecounters.EdgeCounter(e))})
			}
		}
	}
	from[len(prog.Layouts)] = int32(len(out))
	return out, from
}

// maxOSREntries bounds the loops a tier-up gives an on-stack-replacement
// entry.
const maxOSREntries = 8

// osrEntry is one on-stack-replacement entry: the function and loop
// header it continues, and its number among the function's entries (from
// 1, lower.Options.OSRHeaders).
type osrEntry struct {
	fn, header, entry int
}

// autoTier is an instance's tier-up state.
type autoTier struct {
	// target is the finished compile's code, ready for on-stack
	// replacement before the next call switches to it; osr lists its
	// entries.
	target *compiledInstance
	osr    []osrEntry
	// osrEntries counts the on-stack replacements made.
	osrEntries int
	// callsSeen and backSeen are what heat read last, when the machine's
	// work (polls charged plus entries from outside) was workSeen: the
	// instance checks whether it is hot after every outermost call, and
	// reads the counters only when enough work was done since to make it
	// hot (mayBeHot).
	callsSeen, backSeen, workSeen uint64
	// started is set once a compile has been started (or the instance was
	// compiled otherwise); no second one starts.
	started bool
	// done holds the finished compile until the next call takes it.
	done atomic.Pointer[autoResult]
	// err is why the compile failed, once a call has taken the result.
	err error
	// elapsed is what the compile took.
	elapsed time.Duration
	// reopt is the re-optimization state once the instance has the
	// tier-up's code (reoptimize.go); nil when its code does not count.
	reopt *reoptimizer
}

// autoResult is a finished compile.
type autoResult struct {
	cm   *compiledModule
	prog *interp.Program // the module compiled
	osr  []osrEntry
	// profiled holds the counts each function was compiled with, when
	// the code counts its edges.
	profiled [][]uint64
	err      error
	elapsed  time.Duration
}

// heat returns the most calls any function has had and the backward
// branches all functions have taken together: what the tier-up
// thresholds are about. It reads a counter per function and per backward
// edge.
func (i *Instance) heat() (calls, back uint64) {
	counters := i.machine.Counters
	for _, c := range counters {
		calls = max(calls, c[profilecounters.EntryCounter])
	}
	for _, r := range i.module.backEdges {
		back += counters[r.fn][r.slot]
	}
	return calls, back
}

// mayBeHot reports whether the instance can have reached a tier-up
// threshold since heat was last read, without reading the counters: no
// counter can have grown by more than the polls the instance's code
// charged (each call it makes and each backward branch it takes) plus the
// calls that entered it from outside since then.
func (i *Instance) mayBeHot() bool {
	a, opts := i.auto, &i.module.engine.opts
	work := uint64(i.machine.Poller().Spent()) + i.machine.Entries()
	grown := work - a.workSeen
	return a.callsSeen+grown >= opts.TierUpCalls || a.backSeen+grown >= opts.TierUpBackEdges
}

// hot reports whether the instance has reached a tier-up threshold,
// reading the counters only when mayBeHot says that it can have.
func (i *Instance) hot() bool {
	if !i.mayBeHot() {
		return false
	}
	a, opts := i.auto, &i.module.engine.opts
	a.workSeen = uint64(i.machine.Poller().Spent()) + i.machine.Entries()
	a.callsSeen, a.backSeen = i.heat()
	return a.callsSeen >= opts.TierUpCalls || a.backSeen >= opts.TierUpBackEdges
}

// hotFunc reports whether function fn alone has reached a tier-up
// threshold: what the interpreter checks while a long call runs (reading
// every function's counters there would cost a large module's calls
// dearly).
func (i *Instance) hotFunc(fn int) bool {
	opts := &i.module.engine.opts
	c := i.machine.Counters[fn]
	if c[profilecounters.EntryCounter] >= opts.TierUpCalls {
		return true
	}
	m := i.module
	var back uint64
	for _, r := range m.backEdges[m.backEdgesFrom[fn]:m.backEdgesFrom[fn+1]] {
		back += c[r.slot]
	}
	return back >= opts.TierUpBackEdges
}

// afterCall runs at the end of an outermost call of a TierAuto instance
// that still interprets: it starts the compile when the instance is hot.
func (i *Instance) afterCall() {
	a := i.auto
	if a == nil {
		return
	}
	if a.started {
		if i.compiled == nil && a.target != nil {
			// A frame of the call moved into the tier-up's code: the
			// instance runs it from now on, and its statistics say so
			// (and count what the compiled code ran).
			i.compiled, i.tier = a.target, TierOptimizing
			a.target = nil
		}
		if a.reopt != nil {
			i.lookForDrift()
		}
		return
	}
	if i.hot() {
		i.startTierUp()
	}
}

// startTierUp copies the counters and compiles the module with them, with
// on-stack-replacement entries at the hottest loops.
func (i *Instance) startTierUp() {
	a := i.auto
	a.started = true
	snapshot := make([][]uint64, len(i.machine.Counters))
	for fn, c := range i.machine.Counters {
		snapshot[fn] = slices.Clone(c)
	}
	m := i.module
	compile := func() {
		start := time.Now()
		prog := m.prog
		osr, headers := m.hotLoops(snapshot)
		cfg := m.engine.compileConfig(TierOptimizing, func(fn int) *profilecounters.Profile {
			return prog.Layouts[fn].Profile(snapshot[fn])
		})
		// Only the functions that have run are compiled; a compile that
		// fails leaves its function interpreted (mixed.go).
		cfg.interpreted, cfg.fallback, cfg.code, cfg.osr = m.notRun(snapshot), true, m.code, headers
		var profiled [][]uint64
		if m.engine.opts.MaxReoptimizations >= 0 {
			cfg.countFuncs = len(snapshot)
			profiled = snapshot
		}
		cm, err := compileModule(context.Background(), prog, cfg)
		m.notifyCompile(CompileTierUp, i, TierOptimizing, time.Since(start), cm, err)
		a.done.Store(&autoResult{cm: cm, prog: prog, osr: osr, profiled: profiled, err: err, elapsed: time.Since(start)})
	}
	m.engine.runCompile(compile)
}

// beforeCall runs at the start of an outermost call of a TierAuto
// instance: it switches to the code a finished compile produced.
func (i *Instance) beforeCall() {
	a := i.auto
	if a == nil {
		return
	}
	if i.compiled != nil {
		if a.reopt != nil {
			i.takeReoptimized()
		}
		return // the tier-up's code, or the instance was optimized meanwhile
	}
	if i.takeTierUp(); a.target != nil {
		i.compiled, i.tier = a.target, TierOptimizing
		a.target = nil
	}
}

// takeTierUp makes a finished compile's code the target of on-stack
// replacement (and of the next call).
func (i *Instance) takeTierUp() {
	a := i.auto
	r := a.done.Swap(nil)
	if r == nil {
		return
	}
	a.elapsed = r.elapsed
	if r.err != nil {
		a.err = fmt.Errorf("jit: tier-up: %w", r.err)
		return
	}
	ci, err := newCompiledInstance(r.prog, r.cm, i.cfg, i.module.engine.opts.MaxStackBytes, i.hosts, i.mem, i.machine.Globals(), i.table, i.machine.Segments(), i.machine.Tables())
	if err != nil {
		a.err = fmt.Errorf("jit: tier-up: %w", err)
		return
	}
	// The compiled code continues the interpreter's calls: one poller
	// holds their context and fuel. The interpreter's calls of compiled
	// functions go to the compiled code from now on, and the entries of a
	// function that did not compile are not entered.
	ci.poll = i.machine.Poller()
	if err := i.attach(ci); err != nil {
		a.err = fmt.Errorf("jit: tier-up: %w", err)
		return
	}
	osr := r.osr[:0:0]
	for _, e := range r.osr {
		if !r.cm.isStub(e.fn) {
			osr = append(osr, e)
		}
	}
	a.target, a.osr = ci, osr
	if r.profiled != nil {
		a.reopt = newReoptimizer(r.prog, ci, r.profiled, i.module.engine.opts.reoptLookEvery)
	}
}

// onStackReplace is the interpreter's Machine.OSR for a TierAuto
// instance: it starts the compile when a long call makes the instance
// hot, and once the code is there, continues a frame at a loop header
// that has an entry in it.
func (i *Instance) onStackReplace(fn, header int, regs []uint64, depth int, results []uint64) (bool, error) {
	a := i.auto
	if i.compiled != nil {
		return false, nil
	}
	if !a.started {
		if i.hotFunc(fn) {
			i.startTierUp()
		}
		return false, nil
	}
	if a.target == nil {
		if i.takeTierUp(); a.target == nil {
			return false, nil
		}
	}
	if a.target.join != nil {
		// An interpreted frame of a function the tier-up left
		// interpreted: it may join the code too (join.go).
		i.considerJoin(a.target, fn)
	}
	for _, e := range a.osr {
		if e.fn != fn || e.header != header {
			continue
		}
		a.osrEntries++
		return true, a.target.callOSR(fn, e.entry, regs, results, depth)
	}
	return false, nil
}

// OSREntries returns how many interpreter frames of a TierAuto instance
// moved into compiled code at a loop header.
func (i *Instance) OSREntries() int {
	if i.auto == nil {
		return 0
	}
	return i.auto.osrEntries
}

// hotLoops returns the hottest loops of m (by the counts of their
// backward branches in counters), at most maxOSREntries, as on-stack-
// replacement entries, and the headers of each function's entries in
// their order (lower.Options.OSRHeaders), indexed by function.
func (m *Module) hotLoops(counters [][]uint64) ([]osrEntry, [][]int) {
	type hot struct {
		fn, header int
		count      uint64
	}
	var loops []hot
	seen := map[[2]int]int{}
	for _, r := range m.backEdges {
		c := counters[r.fn][r.slot]
		if c == 0 || m.keptInterpreted(int(r.fn)) {
			continue // not run, or kept in the interpreter
		}
		l := m.prog.Layouts[r.fn]
		header := int(l.Blocks[l.Edges[r.slot-1].To].Start)
		k := [2]int{int(r.fn), header}
		if x, ok := seen[k]; ok {
			loops[x].count += c
			continue
		}
		seen[k] = len(loops)
		loops = append(loops, hot{int(r.fn), header, c})
	}
	slices.SortStableFunc(loops, func(x, y hot) int { return cmp.Compare(y.count, x.count) })
	var osr []osrEntry
	var headers [][]int
	for _, h := range loops[:min(len(loops), maxOSREntries)] {
		if headers == nil {
			headers = make([][]int, len(counters))
		}
		headers[h.fn] = append(headers[h.fn], h.header)
		osr = append(osr, osrEntry{fn: h.fn, header: h.header, entry: len(headers[h.fn])})
	}
	return osr, headers
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

// runCompile runs compile on the engine's pool of background compiles, or
// on the calling goroutine with SynchronousTierUp.
func (e *Engine) runCompile(compile func()) {
	if e.opts.SynchronousTierUp {
		compile()
		return
	}
	go func() {
		e.compiles <- struct{}{}
		defer func() { <-e.compiles }()
		compile()
	}()
}

// notRun returns which functions the tier-up leaves in the interpreter:
// those Options.Interpreted names and those the counts show never ran (nil
// when none).
func (m *Module) notRun(counts [][]uint64) []bool {
	var out []bool
	for fn, c := range counts {
		if c[profilecounters.EntryCounter] == 0 || m.keptInterpreted(fn) {
			if out == nil {
				out = make([]bool, len(counts))
			}
			out[fn] = true
		}
	}
	return out
}

// keptInterpreted reports whether Options.Interpreted keeps function fn in
// the interpreter.
func (m *Module) keptInterpreted(fn int) bool {
	return fn < len(m.interpreted) && m.interpreted[fn]
}
