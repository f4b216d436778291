package jit

import (
	"context"
	"fmt"
	"math"
	goruntime "runtime"
	"unsafe"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/runtime"
)

// compiledInstance runs an instance's calls in compiled code: it owns the
// runtime thread (context and machine stack) and the entry table through
// which compiled functions call each other, and turns exits into the same
// traps, host calls, fuel and cancellation behaviour as the interpreter.
type compiledInstance struct {
	prog   *interp.Program
	cm     *compiledModule
	thread *runtime.Thread
	table  []uintptr
	// osrFrame holds the registers of the interpreter frame an
	// on-stack replacement continues (callOSR), for the entry to read.
	osrFrame []uint64
	mem      *interp.Memory
	// segs is the instance's segment state, tables its tables when they
	// change (nil otherwise): the interpreter's, shared.
	segs   *interp.Segments
	tables *interp.Tables
	// globals is the instance's globals (the interpreter's, shared), which
	// compiled code reaches through the context.
	globals []uint64
	// tableEntries is the packed table compiled code reads (the module's,
	// or the instance's own for an imported table), kept alive here.
	tableEntries []uint64
	hosts        []interp.HostFunc
	cfg          interp.Config
	// poll is the instance's poller: its own, or for a TierAuto instance
	// the interpreter's, which on-stack replacement continues a call with.
	poll   *interp.Poller
	active int
	// hostBuf is a stack of words for host-call arguments and results.
	hostBuf []uint64
	hostTop int
	// inHost is set while the innermost call runs a host function.
	inHost bool
	// suspended holds, for each nesting depth of calls, the context of
	// the compiled code a nested call suspended (see Call), in chunks of
	// suspendedChunk, so that a deep nest allocates a chunk at a time
	// rather than copying one growing array.
	suspended [][]runtime.SavedState
	// counters[fn] is function fn's part of the thread's counters (nil:
	// its code does not count), in its plan's slots (cm.counterBelow);
	// compiled code reaches them from the context.
	counters [][]uint64
	// interpret runs a function of a mixed module in the interpreter for
	// its stub (mixed.go); nil when every function is compiled.
	interpret interp.ExternalCall
	// join is the state of the functions joining a TierAuto tier-up's
	// code (join.go); nil for other code.
	join *joiner
}

func newCompiledInstance(prog *interp.Program, cm *compiledModule, cfg interp.Config, stackBytes int,
	hosts []interp.HostFunc, mem *interp.Memory, globals, table []uint64, segs *interp.Segments, tables *interp.Tables) (*compiledInstance, error) {
	stub, err := exitStub()
	if err != nil {
		return nil, err
	}
	th, err := runtime.NewThread(stackBytes, stub, cm.counterWords)
	if err != nil {
		return nil, err
	}
	c := &compiledInstance{prog: prog, cm: cm, thread: th, table: append([]uintptr(nil), cm.entries...),
		mem: mem, globals: globals, hosts: hosts, cfg: cfg, segs: segs, tables: tables}
	c.poll = &interp.Poller{}
	c.poll.Periodic = true
	if len(c.table) > 0 {
		th.Ctx.FuncTable = uintptr(unsafe.Pointer(&c.table[0]))
	}
	if len(globals) > 0 {
		th.Ctx.Globals = uintptr(unsafe.Pointer(&globals[0]))
	}
	if table == nil {
		table = cm.tableEntries
	}
	if tables != nil {
		table = tables.Words()
	}
	c.setTable(table)
	th.Ctx.MaxDepth = int64(cfg.MaxCallDepth)
	if cm.counterWords > 0 {
		c.counters = make([][]uint64, len(cm.plans))
		for fn, p := range cm.plans {
			if p != nil {
				b := len(th.Counters) - cm.counterBelow[fn]
				c.counters[fn] = th.Counters[b : b+p.NumCounters() : b+p.NumCounters()]
			}
		}
	}
	return c, nil
}

// edgeCounters returns function fn's counters in its layout's form (the
// entry counter and every edge), derived from what its code counted, or
// nil when its code does not count.
func (c *compiledInstance) edgeCounters(fn int) []uint64 {
	if fn >= len(c.counters) || c.counters[fn] == nil {
		return nil
	}
	return c.cm.plans[fn].Reconstruct(c.counters[fn])
}

// setTable makes compiled code read the packed table entries, which must
// have the module's packed length (mir.TableLength).
func (c *compiledInstance) setTable(entries []uint64) {
	c.tableEntries = entries
	c.thread.Ctx.Table = 0
	if len(entries) > 0 {
		c.thread.Ctx.Table = uintptr(unsafe.Pointer(&entries[0]))
	}
}

// syncMemory tells compiled code where linear memory is now, and where
// the tables are when they may have moved (table.grow, in compiled code
// or in the interpreter).
func (c *compiledInstance) syncMemory() {
	x := c.thread.Ctx
	if c.tables != nil {
		if w := c.tables.Words(); len(w) > 0 && x.Table != uintptr(unsafe.Pointer(&w[0])) {
			c.setTable(w)
		}
	}
	b := c.mem.Bytes
	base := uintptr(0)
	if len(b) > 0 {
		base = uintptr(unsafe.Pointer(&b[0]))
	}
	if x.MemBase == base && x.MemLen == uint64(len(b)) && base != 0 {
		return // unchanged since the last exit
	}
	x.MemBase = base
	x.MemLen = uint64(len(b))
	for i := range x.MemBound {
		x.MemBound[i] = mir.MemBound(mir.CtxMemBound1+mir.CtxField(i), x.MemLen)
	}
}

// value reads a value from its calling-convention location, in the context
// (registers) or on the machine stack (slots, relative to sp).
func (c *compiledInstance) value(loc mir.Reg, sp uintptr) (uint64, error) {
	x := c.thread.Ctx
	switch {
	case loc.IsPhys() && loc.Class() == mir.XMM:
		return x.XRegs[loc-mir.X0], nil
	case loc.IsPhys():
		return x.Regs[loc], nil
	}
	return c.thread.Load(sp + 8*uintptr(loc.Index()))
}

// setValue writes a value to its calling-convention location.
func (c *compiledInstance) setValue(loc mir.Reg, sp uintptr, v uint64) error {
	x := c.thread.Ctx
	switch {
	case loc.IsPhys() && loc.Class() == mir.XMM:
		x.XRegs[loc-mir.X0] = v
	case loc.IsPhys():
		x.Regs[loc] = v
	default:
		return c.thread.Store(sp+8*uintptr(loc.Index()), v)
	}
	return nil
}

// slotsOf counts the stack slots a call with these arguments and results
// uses.
func slotsOf(params, results []mir.Class) int {
	n := 0
	for _, l := range mir.ArgLocations(params, false) {
		if l.IsArgSlot() {
			n = max(n, l.Index()+1)
		}
	}
	for _, l := range mir.ResultLocations(params, results, false) {
		if l.IsArgSlot() {
			n = max(n, l.Index()+1)
		}
	}
	return n
}

// Call runs function fn like interp.Machine.Call, host panics included.
func (c *compiledInstance) Call(ctx context.Context, fn int, args, results []uint64) error {
	return c.call(ctx, fn, args, results, -1)
}

// callWithin runs fn for the interpreter, as a frame at call depth depth
// within its running call: under its context and with its fuel, which the
// instance's poller shares: a compiled function of a mixed module that the
// interpreter calls (mixed.go).
func (c *compiledInstance) callWithin(fn int, args, results []uint64, depth int) error {
	return c.call(c.poll.Context(), fn, args, results, int64(depth))
}

// callOSR continues an interpreter frame of function fn, whose registers
// are regs, at the function's on-stack-replacement entry entry (from 1:
// lower.Options.OSRHeaders), as callWithin runs a call: the parameters
// are passed as arguments and the context asks the function's entry at
// the frame's depth to take that entry, reading the registers from a copy
// of regs; the request ends at the first exit, when the entry has read it
// (run), so no other call takes it.
func (c *compiledInstance) callOSR(fn, entry int, regs, results []uint64, depth int) error {
	c.osrFrame = append(c.osrFrame[:0], regs...)
	x := c.thread.Ctx
	x.OSRDepth, x.OSREntry = int64(depth), uint64(entry)
	x.OSRFrame = uintptr(unsafe.Pointer(unsafe.SliceData(c.osrFrame)))
	defer c.endOSR()
	return c.callWithin(fn, regs[:len(c.cm.args[fn])], results, depth)
}

// endOSR withdraws the context's on-stack-replacement request.
func (c *compiledInstance) endOSR() {
	x := c.thread.Ctx
	x.OSRDepth, x.OSREntry, x.OSRFrame = -1, 0, 0
}

// call is Call, or callWithin when osrDepth >= 0.
func (c *compiledInstance) call(ctx context.Context, fn int, args, results []uint64, osrDepth int64) (err error) {
	prog := c.prog
	if fn < 0 || fn >= len(prog.Module.Funcs) {
		return fmt.Errorf("jit: function index %d out of range", fn)
	}
	cm := c.cm
	if len(args) != len(cm.args[fn]) || len(results) != len(cm.rets[fn]) {
		return fmt.Errorf("jit: func %s takes %d arguments and returns %d results; got %d and %d",
			prog.Module.Funcs[fn].Name, len(cm.args[fn]), len(cm.rets[fn]), len(args), len(results))
	}
	x := c.thread.Ctx
	s := compiledCall{outermost: c.active == 0}
	sp := c.thread.StackTop()
	if s.outermost {
		// Start from the top of the stack at depth 0, with no host-call
		// words in use.
		x.Depth, c.hostTop = 0, 0
	} else {
		// A host function calls back while compiled code is suspended:
		// run below the suspended frames (ExitSP points at the exit
		// site's return address), and give the suspended code its
		// context back afterwards.
		for c.active >= len(c.suspended)*suspendedChunk {
			c.suspended = append(c.suspended, make([]runtime.SavedState, suspendedChunk))
		}
		c.suspended[c.active/suspendedChunk][c.active%suspendedChunk] = x.Save()
		sp = (x.ExitSP - 256) &^ 15
	}
	s.active, s.depth, s.hostTop, s.inHost = c.active, x.Depth, c.hostTop, c.inHost
	// A call continued from the interpreter keeps the interpreter call's
	// context and fuel, as a nested call does, and its depth.
	s.pollOutermost = s.outermost && osrDepth < 0
	if osrDepth >= 0 {
		x.Depth = osrDepth - 1
	}
	var kind bytecode.TrapKind
	var cause error
	if s.within = osrDepth >= 0; !s.within {
		s.poll, kind, cause = c.poll.Enter(ctx, s.pollOutermost, c.cfg.Fuel)
	}
	c.inHost = false
	// One deferred function restores the instance whether the call
	// returns or a host function's panic unwinds it (the host function
	// that made a nested call may recover the panic and return, resuming
	// the suspended code).
	defer c.leave(&s, &err)
	if kind != bytecode.TrapNone {
		return &bytecode.Trap{Kind: kind, Func: uint32(fn), FuncName: prog.Module.Funcs[fn].Name, Cause: cause}
	}
	if c.poll.GoStackOver(c.cfg.MaxGoStack, c.active) {
		return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: prog.Module.Funcs[fn].Name}
	}
	return c.enter(fn, args, results, sp)
}

// compiledCall is what Call saves for leave.
type compiledCall struct {
	poll      interp.PollState
	outermost bool
	// pollOutermost is outermost, except for a call the interpreter
	// continues in compiled code (callWithin).
	pollOutermost bool
	// within is set for callWithin: the call runs within the
	// interpreter's, with its poller's context and budget as they are
	// (the budget carries on through every exit), so it neither enters
	// nor leaves the poller.
	within  bool
	active  int
	depth   int64
	hostTop int
	inHost  bool
}

// maxKeptSuspended is the most saved states of suspended code an instance
// keeps between calls (300 bytes each), in chunks of suspendedChunk.
const (
	maxKeptSuspended = 256
	suspendedChunk   = 256
)

// leave ends a Call: when the call is unwinding out of a host function it
// ran (a panic, or runtime.Goexit) and Config.RecoverHostPanic is set, it
// recovers the panic and makes *err the HostPanic trap of the exit that
// called the host function; in every case it restores the state s saved.
func (c *compiledInstance) leave(s *compiledCall, err *error) {
	x := c.thread.Ctx
	inHost := c.inHost
	host, fn, site := int(x.ExitArg), x.ExitFunc, x.ExitSite
	c.active, c.hostTop, c.inHost = s.active, s.hostTop, s.inHost
	x.Depth = s.depth
	if !s.outermost {
		x.Restore(c.suspended[s.active/suspendedChunk][s.active%suspendedChunk])
	} else if kept := maxKeptSuspended / suspendedChunk; len(c.suspended) > kept {
		// A deep nest of host calls back: give the saved states beyond
		// the first chunks back rather than keep them for the instance's
		// life.
		clear(c.suspended[kept:])
		c.suspended = c.suspended[:kept]
	}
	if !s.within {
		c.poll.Leave(s.poll, s.pollOutermost)
	}
	goruntime.KeepAlive(c.cm.code)
	if !inHost || c.cfg.RecoverHostPanic == nil {
		return
	}
	v := recover()
	t := c.cm.trapAt(c.prog, bytecode.TrapHostPanic, fn, site)
	t.Cause = c.cfg.RecoverHostPanic(host, v)
	*err = t
}

// enter runs function fn with its stack starting below sp, and handles its
// exits until it returns or traps. Call undoes the setup.
func (c *compiledInstance) enter(fn int, args, results []uint64, sp uintptr) error {
	prog, cm := c.prog, c.cm
	x := c.thread.Ctx
	depth := x.Depth
	if depth >= int64(c.cfg.MaxCallDepth) {
		return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: prog.Module.Funcs[fn].Name}
	}
	sp -= uintptr(8*cm.slots[fn]+15) &^ 15
	if sp < x.StackLimit+4096 {
		return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: prog.Module.Funcs[fn].Name}
	}
	masks := cm.argMasks[fn]
	for i, loc := range cm.args[fn] {
		v := args[i]
		if masks != nil {
			v &= masks[i]
		}
		if err := c.setValue(loc, sp, v); err != nil {
			return err
		}
	}
	x.JitSP = sp
	x.Depth = depth + 1
	x.CallFunc = math.MaxUint32
	c.active++
	return c.run(fn, results, sp)
}

// run enters the code and serves its exits.
func (c *compiledInstance) run(fn int, results []uint64, sp uintptr) error {
	prog, cm := c.prog, c.cm
	x := c.thread.Ctx
	c.syncMemory()
	x.Budget = c.poll.Budget
	c.thread.Enter(c.table[fn])
	if x.OSRDepth >= 0 {
		c.endOSR() // the entry has read it
	}
	for {
		c.poll.Budget = x.Budget
		switch x.ExitCode {
		case encode.ExitDone:
			masks := cm.retMasks[fn]
			for i, loc := range cm.rets[fn] {
				var err error
				if results[i], err = c.value(loc, sp); err != nil {
					return err
				}
				if masks != nil {
					results[i] &= masks[i]
				}
			}
			return nil
		case encode.ExitTrap:
			return cm.trapAt(prog, bytecode.TrapKind(x.ExitArg), x.ExitFunc, x.ExitSite)
		case encode.ExitPrologueOverflow:
			if x.CallFunc == math.MaxUint32 {
				return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: prog.Module.Funcs[fn].Name}
			}
			return cm.trapAt(prog, bytecode.TrapStackOverflow, x.CallFunc, x.CallSite)
		case encode.ExitPoll:
			if kind, cause := c.poll.Slow(); kind != bytecode.TrapNone {
				t := cm.trapAt(prog, kind, x.ExitFunc, x.ExitSite)
				t.Cause = cause
				return t
			}
		case encode.ExitHost:
			if err := c.hostCall(int(x.ExitArg)); err != nil {
				if int(x.ExitArg) >= c.cm.hostCount {
					// A stub's: the interpreted function's error, a
					// trap for instance, is the call's as it is.
					return err
				}
				t := cm.trapAt(prog, bytecode.TrapHostError, x.ExitFunc, x.ExitSite)
				t.Cause = err
				return t
			}
		case encode.ExitRuntime:
			if err := c.runtimeCall(int(x.ExitArg)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("jit: compiled code exited with unknown code %d", x.ExitCode)
		}
		x.Budget = c.poll.Budget
		c.syncMemory()
		c.thread.Resume()
	}
}

// hostCall runs host import h with the arguments of the suspended call
// and puts its results where the compiled code expects them. A host
// import beyond the module's own is the stub of an interpreted function
// of a mixed module (mixed.go), which runs in the interpreter.
func (c *compiledInstance) hostCall(h int) error {
	if h < 0 || h >= len(c.hosts) && (c.interpret == nil || !c.cm.isStub(h-c.cm.hostCount)) {
		return fmt.Errorf("jit: host import %d out of range", h)
	}
	x := c.thread.Ctx
	// The exit stub's call pushed its return address: the outgoing
	// argument slots start just above it.
	sp := x.ExitSP + 8
	// Argument and result buffers come from a per-instance stack of words
	// (nested host calls take theirs above), so host calls do not allocate.
	n, m := len(c.cm.hostArgs[h]), len(c.cm.hostRets[h])
	top := c.hostTop
	if need := top + n + m; need > len(c.hostBuf) {
		c.hostBuf = append(c.hostBuf, make([]uint64, need-len(c.hostBuf)+64)...)
	}
	args := c.hostBuf[top : top+n : top+n]
	results := c.hostBuf[top+n : top+n+m : top+n+m]
	clear(results)
	c.hostTop = top + n + m
	err := c.callHost(h, sp, args, results)
	c.hostTop = top
	return err
}

// callHost reads the arguments of host import h, calls it and stores its
// results.
func (c *compiledInstance) callHost(h int, sp uintptr, args, results []uint64) error {
	var err error
	argMasks, retMasks := c.cm.hostArgMasks[h], c.cm.hostRetMasks[h]
	for i, loc := range c.cm.hostArgs[h] {
		if args[i], err = c.value(loc, sp); err != nil {
			return err
		}
		if argMasks != nil {
			args[i] &= argMasks[i]
		}
	}
	// A nested call from the host function saves and restores the
	// suspended code's registers and exit state itself (Call). inHost
	// tells Call's deferred function that a panic came out of the host
	// function.
	if fn := h - c.cm.hostCount; fn >= 0 {
		err = c.interpret(fn, args, results, int(c.thread.Ctx.Depth))
	} else {
		c.inHost = true
		err = c.hosts[h](c.poll.Context(), args, results)
		c.inHost = false
	}
	if err != nil {
		return err
	}
	for i, loc := range c.cm.hostRets[h] {
		if retMasks != nil {
			results[i] &= retMasks[i]
		}
		if err := c.setValue(loc, sp, results[i]); err != nil {
			return err
		}
	}
	return nil
}

// runtimeCall runs a runtime function for the suspended code.
func (c *compiledInstance) runtimeCall(fn int) error {
	x := c.thread.Ctx
	switch fn {
	case mir.RTMemoryGrow:
		x.Regs[mir.RAX] = uint64(c.mem.Grow(x.Regs[mir.RDI]))
		return nil
	case mir.RTMemoryInit:
		if !c.segs.MemoryInit(c.mem.Bytes, int(x.Regs[mir.RDI]), x.Regs[mir.RSI], x.Regs[mir.RDX], x.Regs[mir.RCX]) {
			return c.cm.trapAt(c.prog, bytecode.TrapOutOfBounds, x.ExitFunc, x.ExitSite)
		}
		return nil
	case mir.RTDataDrop:
		c.segs.DropData(int(x.Regs[mir.RDI]))
		return nil
	}
	if na, _, ok := mir.RuntimeArity(int32(fn)); ok && c.tables != nil {
		var args [6]uint64
		for k, r := range mir.ArgGPRs[:na] {
			args[k] = x.Regs[r]
		}
		r, kind := mir.RunTableFunc(c.tables, c.segs, int32(fn), args[:na])
		if kind != bytecode.TrapNone {
			return c.cm.trapAt(c.prog, kind, x.ExitFunc, x.ExitSite)
		}
		x.Regs[mir.RAX] = r
		return nil
	}
	return fmt.Errorf("jit: unknown runtime function %d", fn)
}
