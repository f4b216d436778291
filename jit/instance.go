package jit

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/profilecounters"
)

// ErrBusy is returned by a call on an instance that is already running a
// call on another goroutine. Host functions call back into their instance
// through their *Caller instead.
var ErrBusy = errors.New("jit: instance is busy with a call on another goroutine (host functions call back through their *jit.Caller)")

// Instance is a module instantiated with its host functions and its own
// memory, registers and edge counters.
type Instance struct {
	module *Module
	// table is the instance's packed table for compiled code when the
	// module imports its table or the instance changed an entry
	// (SetTableEntry); nil: the module's own, shared.
	table []uint64
	mem   *interp.Memory
	// shared is set when the module imports or exports its memory: the
	// memory other instances may use too, and hold the hold of the
	// instance's outermost call on it (see memory.go).
	shared *sharedMemory
	hold   memoryHold
	// auto is the tier-up state of a TierAuto instance (autotier.go).
	auto *autoTier
	// retired holds, per function, what compiled code that the instance
	// no longer runs counted (reoptimize.go).
	retired  [][]uint64
	machine  *interp.Machine
	compiled *compiledInstance // nil when the instance runs interpreted
	tier     Tier
	hosts    []interp.HostFunc
	cfg      interp.Config
	busy     atomic.Bool
	// callers holds the Caller of each nesting depth of host calls.
	callers     []*Caller
	callerDepth int
}

// Instantiate creates an instance. Every host import must be provided
// with a HostFunction of a matching signature and every imported global
// with a GlobalImport of its type, an imported table with a TableImport
// and an imported memory with a MemoryImport; extra entries in imports
// are an error too (they are most likely misspelt names). The memory is
// created (or for an imported one, taken from imports) and the data
// segments copied in; the globals start with their initial values and the
// imported ones with the values in imports.
func (m *Module) Instantiate(imports Imports) (*Instance, error) {
	bm := m.prog.Module
	opts := m.engine.opts
	maxPages := bm.Memory.MaxPages
	if opts.MaxMemoryPages > 0 && maxPages > opts.MaxMemoryPages {
		maxPages = opts.MaxMemoryPages
	}
	for name, v := range imports {
		if v == nil {
			return nil, fmt.Errorf("jit: instantiate: import %q is nil", name)
		}
	}
	inst := &Instance{module: m}
	hosts := make([]interp.HostFunc, len(bm.Hosts))
	for i, imp := range bm.Hosts {
		v, ok := imports[imp.Name]
		if !ok {
			return nil, fmt.Errorf("jit: instantiate: missing host function %q %s", imp.Name, imp.Sig)
		}
		h, ok := v.(HostFunction)
		if !ok {
			return nil, fmt.Errorf("jit: instantiate: import %q is a %s; the module imports a host function %s", imp.Name, v.importKind(), imp.Sig)
		}
		if h.fn == nil {
			return nil, fmt.Errorf("jit: instantiate: host function %q is empty", imp.Name)
		}
		if !h.sig.Equal(imp.Sig) {
			return nil, fmt.Errorf("jit: instantiate: host function %q has signature %s; the module imports it as %s", imp.Name, h.sig, imp.Sig)
		}
		hosts[i] = inst.wrapHost(h.fn)
	}
	for name, v := range imports {
		if bm.HostIndex(name) < 0 && !isGlobalImport(bm, name) && name != bm.Table.Import && name != bm.Memory.Import {
			return nil, fmt.Errorf("jit: instantiate: the module imports no %s %q", v.importKind(), name)
		}
	}
	sm, err := memoryFor(bm.Memory, imports, maxPages)
	if err != nil {
		return nil, fmt.Errorf("jit: instantiate: %w", err)
	}
	if bm.Memory.Import != "" || bm.Memory.Export != "" {
		inst.shared = sm
	}
	mem := sm.mem
	bm.ApplyData(mem.Bytes)
	cfg := interp.Config{
		MaxCallDepth:  opts.MaxCallDepth,
		MaxStackSlots: opts.MaxStackBytes / 8,
		MaxGoStack:    opts.MaxGoStackBytes,
		Fuel:          opts.Fuel,
	}
	if !opts.RepanicHostPanics {
		cfg.RecoverHostPanic = func(h int, v any) error { return newHostPanicError(bm.Hosts[h].Name, v) }
	}
	mach, err := interp.NewMachine(m.prog, cfg, hosts, mem)
	if err != nil {
		return nil, fmt.Errorf("jit: instantiate: %w", err)
	}
	inst.machine, inst.mem, inst.hosts, inst.cfg = mach, mem, hosts, cfg
	if err := inst.initGlobals(imports); err != nil {
		return nil, fmt.Errorf("jit: instantiate: %w", err)
	}
	if err := inst.initTable(imports); err != nil {
		return nil, fmt.Errorf("jit: instantiate: %w", err)
	}
	inst.tier = TierInterp
	if opts.Tier == TierAuto {
		inst.auto = &autoTier{}
		mach.OSR = inst.onStackReplace
		mach.Poller().Periodic = true
		mach.Poller().Interval = int64(opts.OSRInterval)
	}
	if m.compiled != nil {
		inst.compiled, err = newCompiledInstance(m.prog, m.compiled, cfg, opts.MaxStackBytes, hosts, mem, mach.Globals(), inst.table, mach.Segments(), mach.Tables())
		if err == nil {
			err = inst.attach(inst.compiled)
		}
		if err != nil {
			return nil, fmt.Errorf("jit: instantiate: %w", err)
		}
		inst.tier = m.compiled.stats.Tier
	}
	return inst, nil
}

// wrapHost returns the interpreter's view of host function fn, which runs
// fn with the Caller of its nesting depth. It adds no cost to host calls
// for panics: the tiers recover them (Config.RecoverHostPanic) in the
// deferred function every call has anyway, and callNested and endCall put
// the Caller nesting depth back.
func (i *Instance) wrapHost(fn RawHostFunc) interp.HostFunc {
	return func(ctx context.Context, args, results []uint64) error {
		// A Caller is valid only during its host call, so one per nesting
		// depth serves every call: no allocation per call.
		d := i.callerDepth
		if d == len(i.callers) {
			i.callers = append(i.callers, &Caller{inst: i})
		}
		c := i.callers[d]
		c.ctx = ctx
		i.callerDepth = d + 1
		err := fn(c, args, results)
		i.callerDepth = d
		c.ctx = nil
		return err
	}
}

// Tier returns the tier the instance's calls run in.
func (i *Instance) Tier() Tier { return i.tier }

// Optimize compiles the instance's module with the optimizing tier,
// steered by the edge counts this instance recorded while it ran in the
// interpreter (a function it never ran in the interpreter gets the static
// estimate), and runs the instance's later calls in that code. Memory and
// host functions carry over; the module and its other instances are not
// affected. It fails with ErrBusy while a call runs on the instance, and
// returns the compile error (leaving the instance as it was) when the
// module cannot be compiled on this machine.
func (i *Instance) Optimize() error {
	if !i.busy.CompareAndSwap(false, true) {
		return ErrBusy
	}
	defer i.busy.Store(false)
	m := i.module
	counters := i.machine.Counters
	cfg := m.engine.compileConfig(TierOptimizing, func(fn int) *profilecounters.Profile {
		return m.prog.Layouts[fn].Profile(counters[fn])
	})
	if m.engine.opts.CountEdges {
		cfg.countFuncs = len(m.prog.Module.Funcs)
	}
	cfg.interpreted, cfg.code = m.interpreted, m.code
	start := time.Now()
	cm, err := compileModule(context.Background(), m.prog, cfg)
	m.notifyCompile(CompileOptimize, i, TierOptimizing, time.Since(start), cm, err)
	if err != nil {
		return fmt.Errorf("jit: optimize: %w", err)
	}
	ci, err := newCompiledInstance(m.prog, cm, i.cfg, m.engine.opts.MaxStackBytes, i.hosts, i.mem, i.machine.Globals(), i.table, i.machine.Segments(), i.machine.Tables())
	if err == nil {
		err = i.attach(ci)
	}
	if err != nil {
		return fmt.Errorf("jit: optimize: %w", err)
	}
	if i.compiled != nil {
		i.retire(i.compiled)
	}
	i.compiled, i.tier = ci, TierOptimizing
	if i.auto != nil {
		i.auto.started = true // no tier-up after this
	}
	return nil
}

// CompileStats returns what compiling the code the instance runs cost
// (zero when it runs in the interpreter).
func (i *Instance) CompileStats() CompileStats {
	if i.compiled == nil {
		return CompileStats{}
	}
	return i.compiled.cm.stats
}

// Module returns the module the instance was created from.
func (i *Instance) Module() *Module { return i.module }

// Function is an exported function of an instance, resolved once so calls
// skip the name lookup.
type Function struct {
	inst  *Instance
	index int
	name  string
	sig   bytecode.Signature
}

// Func looks up an exported function.
func (i *Instance) Func(name string) (*Function, error) {
	bm := i.module.prog.Module
	idx := bm.ExportedFunc(name)
	if idx < 0 {
		return nil, fmt.Errorf("jit: no exported function %q", name)
	}
	return &Function{inst: i, index: idx, name: name, sig: bm.Funcs[idx].Sig}, nil
}

// Signature returns the function's signature.
func (f *Function) Signature() bytecode.Signature { return f.sig }

// Call calls the function with args and returns its results. A trap is
// returned as a *bytecode.Trap error; a panic in a host function is a
// TrapHostPanic trap (see the package documentation).
func (f *Function) Call(ctx context.Context, args ...uint64) ([]uint64, error) {
	results := make([]uint64, len(f.sig.Results))
	if err := f.CallInto(ctx, args, results); err != nil {
		return nil, err
	}
	return results, nil
}

// CallInto calls the function, writing its results into results, which must
// have the length of the signature's results. It does not allocate.
func (f *Function) CallInto(ctx context.Context, args, results []uint64) error {
	if len(args) != len(f.sig.Params) {
		return fmt.Errorf("jit: %s takes %d arguments, got %d", f.name, len(f.sig.Params), len(args))
	}
	if len(results) != len(f.sig.Results) {
		return fmt.Errorf("jit: %s returns %d results, got room for %d", f.name, len(f.sig.Results), len(results))
	}
	i := f.inst
	if !i.busy.CompareAndSwap(false, true) {
		return ErrBusy
	}
	defer i.endCall()
	ctx, release, err := i.holdMemory(ctx)
	if err != nil {
		return err
	}
	if release {
		defer i.releaseMemory()
	}
	if i.auto != nil {
		i.beforeCall()
		defer i.afterCall()
	}
	return i.callNested(ctx, f.index, args, results)
}

// endCall ends an outermost call, also when a host function's panic or
// runtime.Goexit unwinds it: no host function runs any more, and the
// instance is free for the next call.
func (i *Instance) endCall() {
	i.callerDepth = 0
	i.busy.Store(false)
}

// callNested runs a call on the machine; the caller holds the busy flag.
func (i *Instance) callNested(ctx context.Context, fn int, args, results []uint64) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(args) != len(i.module.prog.Module.Funcs[fn].Sig.Params) {
		return fmt.Errorf("jit: %s takes %d arguments, got %d", i.module.prog.Module.Funcs[fn].Name,
			len(i.module.prog.Module.Funcs[fn].Sig.Params), len(args))
	}
	// A host panic recovered inside the call skips the host functions'
	// own bookkeeping of the Caller nesting depth: put it back.
	d := i.callerDepth
	var err error
	switch {
	case i.machine.InHostCall():
		// A host function that interpreted code called (a mixed
		// module's) calls back: the call nests in the interpreter,
		// whose frames know the depth; it runs a compiled function in
		// the compiled code.
		err = i.machine.Call(ctx, fn, args, results)
	case i.compiled != nil:
		err = i.compiled.Call(ctx, fn, args, results)
	case i.auto != nil && i.auto.target != nil && i.auto.target.active > 0:
		// A host function of code that on-stack replacement moved into
		// the tier-up's compiled code calls back: the call nests in that
		// code, which knows the call depth.
		err = i.auto.target.Call(ctx, fn, args, results)
	default:
		err = i.machine.Call(ctx, fn, args, results)
	}
	i.callerDepth = d
	return err
}

// Call calls the exported function name with args.
func (i *Instance) Call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	f, err := i.Func(name)
	if err != nil {
		return nil, err
	}
	return f.Call(ctx, args...)
}

// Memory returns the instance's linear memory. The slice aliases the memory
// and is valid until it grows; do not use it while a call runs on another
// goroutine.
func (i *Instance) Memory() []byte { return i.mem.Bytes }

// ReadMemory returns a copy of n bytes of memory at offset.
func (i *Instance) ReadMemory(offset, n uint64) ([]byte, error) {
	mem := i.mem.Bytes
	if offset > uint64(len(mem)) || n > uint64(len(mem))-offset {
		return nil, fmt.Errorf("jit: read of %d bytes at %d is outside memory of %d bytes", n, offset, len(mem))
	}
	return append([]byte(nil), mem[offset:offset+n]...), nil
}

// WriteMemory copies data into memory at offset.
func (i *Instance) WriteMemory(offset uint64, data []byte) error {
	mem := i.mem.Bytes
	if offset > uint64(len(mem)) || uint64(len(data)) > uint64(len(mem))-offset {
		return fmt.Errorf("jit: write of %d bytes at %d is outside memory of %d bytes", len(data), offset, len(mem))
	}
	copy(mem[offset:], data)
	return nil
}
