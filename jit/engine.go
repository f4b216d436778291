// Package jit is kiln's embedding API. An interpreter written in Go loads a
// bytecode module into an Engine, instantiates it with host functions, and
// calls its exported functions:
//
//	engine, _ := jit.NewEngine(jit.Options{})
//	mod, _ := engine.LoadText(src)
//	inst, _ := mod.Instantiate(jit.Imports{"putc": jit.MustHost(func(c int64) { ... })})
//	results, err := inst.Call(ctx, "main", 42)
//
// The interpreter (tier 0) counts the edges every function's control flow
// takes; Stats exposes those counts. Options.Tier chooses where code runs:
// the interpreter, a compiled tier for the whole module at load, or
// TierAuto, where each instance starts in the interpreter and is compiled
// in the background, steered by its own counts, once it is hot, running
// calls moving into the compiled code at loop headers (autotier.go).
// Instance.Optimize compiles an instance with its counts on request.
//
// Values cross the API as uint64: i64 values as their two's-complement bits,
// f64 values as their IEEE-754 bits (see I64, F64, AsF64).
//
// Concurrency: an Engine and a Module may be used from any number of
// goroutines. An Instance runs one call at a time: a call made while another
// goroutine's call is running on the same instance fails with ErrBusy
// instead of corrupting it. Host functions that want to call back into
// their instance use the *Caller they are given; such nested calls are
// allowed. Separate instances run in parallel freely.
package jit

import (
	"context"
	"errors"
	"fmt"
	"math"
	goruntime "runtime"
	"slices"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/profilecounters"
	"github.com/kiln-jit/kiln/sched"
)

// Tier names an execution tier.
type Tier int

// The tiers, slowest to compile first.
const (
	TierAuto       Tier = iota // the default: the interpreter first, the optimizing tier once the instance is hot (see autotier.go)
	TierInterp                 // the reference interpreter, counting edges
	TierBaseline               // naive compiled code: every function compiled when the module loads
	TierOptimizing             // profile-steered compiled code: integrated scheduling and register assignment
)

var tierNames = [...]string{"auto", "interp", "baseline", "optimizing"}

// String returns the tier's name as flags spell it.
func (t Tier) String() string {
	if t >= 0 && int(t) < len(tierNames) {
		return tierNames[t]
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// ParseTier parses a tier name ("interp", "baseline", "optimizing").
func ParseTier(s string) (Tier, error) {
	for i, n := range tierNames {
		if n == s {
			return Tier(i), nil
		}
	}
	return 0, fmt.Errorf("jit: unknown tier %q (want interp, baseline, optimizing or auto)", s)
}

// Options configure an Engine. The zero value gives the defaults.
type Options struct {
	// Tier is the tier functions run in: TierAuto (the default), where
	// every instance starts in the interpreter and moves to the optimizing
	// tier, compiled with its own edge counts in the background, once it
	// is hot (TierUpCalls, TierUpBackEdges; running calls move at loop
	// headers; see Instance.Tier); TierInterp, the interpreter only;
	// TierBaseline, which compiles every function of a module when it is
	// loaded, keeping every value in a stack slot; or TierOptimizing,
	// which compiles every function when it is loaded with the optimizing
	// pipeline (package sched: integrated instruction scheduling and
	// register assignment steered by block frequencies), using the static
	// frequency estimate. Instance.Optimize recompiles a module for one
	// instance with the edge counts it recorded in the interpreter. A
	// module that cannot be compiled on this machine (another
	// architecture, a CPU feature it needs is missing) runs in the
	// interpreter instead; Module.Tier and Module.CompileError tell (an
	// auto instance reports it in Instance.TierUpError).
	Tier Tier

	// TierUpCalls is the number of calls after which a function becomes a
	// candidate for compilation, and TierUpBackEdges the number of taken
	// backward branches (0: defaults). With TierAuto, an instance is
	// compiled once one of its functions reaches either.
	TierUpCalls     uint64
	TierUpBackEdges uint64
	// SynchronousTierUp makes TierAuto compile on the calling goroutine,
	// at the end of the call that made the instance hot, instead of in
	// the background: the next call runs compiled code. For tests and for
	// embedders that prefer a predictable pause.
	SynchronousTierUp bool
	// OSRInterval is how many backward branches and calls an interpreted
	// call of a TierAuto instance makes between two offers of its frame
	// for on-stack replacement (0: interp.PollInterval). Smaller moves long
	// calls into compiled code sooner and costs a little interpreter speed.
	OSRInterval int
	// ReoptimizeDrift is the profile drift distance (0..1, see
	// profilecounters.Drift) beyond which a TierAuto instance's compiled
	// code is compiled again with the counts its code made since (0: the
	// default). See MaxReoptimizations.
	ReoptimizeDrift float64
	// MaxReoptimizations caps how often a TierAuto instance is compiled
	// again after its tier-up (0: DefaultMaxReoptimizations; negative: never,
	// and its compiled code does not count edges).
	MaxReoptimizations int

	// OnCompile, when set, is called after each compile of a module's code
	// finishes, successful or not: at load, at a TierAuto instance's
	// tier-up and re-optimizations, and for Instance.Optimize (see
	// CompileEvent), for embedders that log or measure compiles. It runs on
	// the goroutine that compiled: a background goroutine for tier-up and
	// re-optimization (before the new code first runs, at the instance's
	// next outermost call), the caller's for the others. It must be safe
	// for concurrent use, return quickly and not call into the instance.
	OnCompile func(CompileEvent)
	// Interpreted, when set, is asked for each function of a module as it
	// loads, by name: a function it returns true for stays in the
	// interpreter in every tier, and the compiled tiers (at load, at a
	// TierAuto tier-up, Instance.Optimize) compile the others. Compiled
	// code and the interpreter call each other across the boundary with
	// the results, traps, fuel, cancellation and host calls of a module
	// run in one tier (see mixed.go), at the cost of an exit to Go per
	// crossing. For a function too large or too rarely run to be worth
	// compiling, or to debug one function in the interpreter.
	Interpreted func(name string) bool

	// CountEdges makes the code that the baseline and optimizing tiers
	// compile at load (and Instance.Optimize) count its edges, as
	// TierAuto's compiles do, so that Instance.Stats and Instance.Profile
	// see what it executes. Counting costs a few percent of run time.
	CountEdges bool

	// MaxCallDepth limits nested calls (default interp.DefaultMaxCallDepth),
	// frames of host functions that call back into the instance included.
	// NewEngine lowers it to MaxStackBytes/16, the frames a stack of that
	// size holds at the least a frame costs, so that on every tier memory
	// runs out only as a StackOverflow trap.
	MaxCallDepth int
	// MaxStackBytes limits the stack of a call on one instance, on each
	// tier: the interpreter's registers (8 bytes each; its frame records,
	// 12 bytes a frame, come on top) and the machine stack of compiled
	// code, which every compiled instance reserves (mapped, not yet
	// touched) in full. Default 32 MiB; at most MaxStackBytesLimit.
	MaxStackBytes int
	// MaxGoStackBytes limits the Go stack a call's nesting takes on the
	// calling goroutine, beyond what its caller had in use: a host
	// function's call back into the instance (Caller.Call), a call
	// between a compiled and an interpreted function of a mixed module
	// and a call moved into compiled code by on-stack replacement nest on
	// the Go stack, where the other calls of every tier do not. A host
	// function's call back costs about 2 KiB of Go stack besides the host
	// function's own frames, a crossing between compiled and
	// interpreted code about 1.5 KiB (TestNestingStackCost); a call that
	// would start beyond the limit, or with the goroutine's stack beyond
	// interp.MaxGoStackLimit, traps StackOverflow. Default
	// interp.DefaultMaxGoStack; at most interp.MaxGoStackLimit.
	MaxGoStackBytes int
	// MaxMemoryPages caps every instance's linear memory below the module's
	// own maximum (0: no extra cap).
	MaxMemoryPages uint32
	// Fuel, when positive, limits each call from Go to that many backward
	// branches and calls; the next traps FuelExhausted.
	Fuel int64
	// RepanicHostPanics lets a panic in a host function propagate to the
	// caller of Call (through any host functions it is nested in) with
	// its original value and stack, instead of ending the call with a
	// bytecode.TrapHostPanic trap. The instance is restored either way
	// and is ready for the next call.
	RepanicHostPanics bool

	// Features, when not nil, restricts the optional x86-64 features
	// compiled code may use to those it sets that this machine also has;
	// nil uses every feature the machine has. Tests and the differential
	// fuzzer use it to run the code paths for older processors (software
	// bit counts, no rounding instructions) on a newer one.
	Features *lower.Target

	// NaiveOutOfSSA makes the baseline tier take functions out of SSA form
	// by naive φ instantiation (a copy per φ argument, a stack slot per
	// SSA value) instead of alloc.Destruct's copy coalescer, which gives φ
	// webs one slot. The coalescer costs some compile time (10–15% of the
	// baseline's) and gives smaller frames, smaller code and fewer copies;
	// the naive path is kept for comparison and as a fallback. (The
	// baseline does not use Destruct's renaming constraints: it meets
	// fixed-register and two-address operands in scratch registers.)
	NaiveOutOfSSA bool

	// Pipeline selects the register allocation pipeline of the optimizing
	// tier: the integrated pass (the default), or, for measuring against
	// it, the separate pipeline (prepass list scheduling, linear scan,
	// postpass scheduling) or linear scan alone (see package sched).
	Pipeline Pipeline

	// SourceOrderSchedule makes the optimizing tier keep every block's
	// instructions in their original order (registers are still assigned
	// by the integrated pass), for measuring what latency scheduling
	// gains on this machine.
	SourceOrderSchedule bool

	// SpillHeuristic selects how the integrated pass of the optimizing
	// tier chooses the value to spill when it runs out of registers: the
	// value whose next use is furthest by expected distance, with the
	// function's edge counts (the default), or by nearest next use, or the
	// scheduler's comparator of candidates (see sched.VictimOracle). The
	// alternatives are there for measuring them.
	SpillHeuristic SpillHeuristic

	// PerfMap makes every tier that installs machine code add a line per
	// function to /tmp/perf-PID.map, the map file Linux perf reads to name
	// JIT code in its reports (see perfmap.go). Writing the file fails a
	// load like a compile error: the module runs in the interpreter.
	PerfMap bool

	// JITDump makes every tier that installs machine code record each
	// function, with its code and its machine-code-to-bytecode-offset
	// line table, in /tmp/jit-PID.dump, the jitdump file perf inject --jit
	// reads (see jitdump.go; Linux only). Writing the file fails a load
	// like a compile error.
	JITDump bool

	// NoSpillPlacement keeps the optimizing tier's spill stores and
	// reloads where the integrated pass placed them, instead of moving
	// reloads towards their uses and a value's stores to its definitions
	// where that executes fewer (sched.Options.NoPlacement); for measuring
	// the placement.
	NoSpillPlacement bool

	// NoPressureWait makes the optimizing tier's list scheduler issue an
	// instruction that evicts a value while others are in flight, as the
	// thesis's scheduler does (sched.Options.NoPressureWait); for
	// measuring the wait.
	NoPressureWait bool

	// NoCopyMotion turns off the optimizing tier's parallel copy motion
	// (sched.Options.NoCopyMotion): reconciliation moves on critical edges
	// then stay on new blocks splitting those edges instead of moving into
	// a neighbouring block by renaming registers; for measuring the motion.
	NoCopyMotion bool

	// DisablePasses turns off passes of the compiled tiers' pipeline, or
	// parts of them, by name (PassSwitches lists the names:
	// "sched.placement", "sched.reconcile/copy-motion", ...), for
	// measuring what each costs and gains; NewEngine rejects a name it
	// does not know. The booleans above are shorthands for some of them.
	DisablePasses []string

	// OnPass, when set, is called after every pass of every function's
	// compile (Passes lists them) with the function as the pass left it,
	// for tools that dump or measure each step (kiln dump -html still
	// runs its own copy of the pipeline). It runs on the compiling
	// goroutine, one of several when functions compile in parallel
	// (CompileWorkers), and must not modify what it is given.
	OnPass func(PassEvent)

	// Limits on the modules Load accepts, for embedders that load code
	// they did not write. Zero leaves only the bytecode format's own
	// limits (bytecode.MaxFuncs, MaxCode, MaxRegs); a module over a limit
	// fails to load with a *LimitError naming it. MaxModuleBytes bounds
	// the input of LoadText and LoadBinary, MaxFunctions the functions of
	// a module, MaxFunctionInstrs the size of one function (its
	// instructions plus the entries of its switch tables, which cost code
	// as instructions do: bytecode.FuncSize) and MaxRegisters its
	// registers. LoadText and LoadBinary refuse an input as soon as it
	// crosses a limit, before reading the rest.
	MaxModuleBytes    int
	MaxFunctions      int
	MaxFunctionInstrs int
	MaxRegisters      int

	// MaxCompileBytes bounds the memory a compiled tier may spend
	// compiling one function, estimated from the function's size before
	// any work is done (see EstimateCompileBytes). A module with a function
	// over the bound is not compiled: it runs in the interpreter and
	// Module.CompileError returns a *LimitError naming the limit. Zero
	// means DefaultMaxCompileBytes; negative, no bound.
	MaxCompileBytes int64

	// CompileWorkers is how many functions of a module the compiled
	// tiers compile at once, each on a goroutine of its own (0:
	// runtime.GOMAXPROCS; 1: one after the other on the goroutine that
	// compiles). The machine code is the same whatever the number;
	// CompileStats gives the stages' times summed over the functions
	// and the compile's wall time.
	CompileWorkers int

	// CheckAllocations runs the static allocation checker
	// (alloc.CheckAllocation) on every function a compiled tier
	// allocates; a function it rejects makes the module's compilation
	// fail. It costs about as much as the allocation itself; tests and
	// the differential fuzzer turn it on.
	CheckAllocations bool

	// chunkInstrs sets encode.Options.ChunkInstrs; tests make it tiny so
	// that every function is encoded in many chunks.
	chunkInstrs int
	// keepCode keeps each compiled function's encoding (bytes,
	// relocations) after installation, for tests that compare the code.
	keepCode bool
	// reoptLookEvery, when positive, makes a TierAuto instance look for
	// drift after every that many outermost calls, with no back-off (tests).
	reoptLookEvery uint64
}

// Pipeline names a register allocation pipeline of the optimizing tier.
type Pipeline int

// The pipelines.
const (
	PipelineIntegrated Pipeline = iota // sched.Allocate: integrated scheduling and register assignment
	PipelineSeparate                   // sched.Separate: prepass scheduling, linear scan, postpass scheduling
	PipelineLinearScan                 // sched.LinearScanOnly: linear scan alone
)

// SpillHeuristic names a spill-victim heuristic of the optimizing tier.
type SpillHeuristic int

// The spill heuristics.
const (
	SpillExpectedDistance SpillHeuristic = iota // sched.OracleED: furthest expected distance to the next use (Burroughs)
	SpillComparator                             // sched.OracleThesis: the scheduler's comparator of candidates
	SpillNearestUse                             // sched.OracleNNU: furthest nearest next use (Braun and Hack)
)

var spillOracles = [...]sched.VictimOracle{
	SpillComparator: sched.OracleThesis, SpillExpectedDistance: sched.OracleED, SpillNearestUse: sched.OracleNNU,
}

// MaxStackBytesLimit is the largest Options.MaxStackBytes NewEngine
// takes: 256 MiB, which on the compiled tiers every instance reserves as
// address space and a call that recurses to its end touches.
const MaxStackBytesLimit = interp.MaxStackSlotsLimit * 8

// Defaults for the tiering options.
const (
	DefaultTierUpCalls     = 1000
	DefaultTierUpBackEdges = 10000
	DefaultReoptimizeDrift = 0.25
	// DefaultMaxReoptimizations bounds a TierAuto instance's compiles
	// after its tier-up.
	DefaultMaxReoptimizations = 4
)

// Engine loads modules under one set of options. It is safe for
// concurrent use.
type Engine struct {
	opts Options
	// compiles bounds the background compiles of TierAuto running at once.
	compiles chan struct{}
}

// NewEngine validates opts, fills in defaults and returns an engine.
func NewEngine(opts Options) (*Engine, error) {
	if opts.Tier < TierAuto || opts.Tier > TierOptimizing {
		return nil, fmt.Errorf("jit: unknown tier %d", int(opts.Tier))
	}
	if opts.MaxCallDepth < 0 || opts.MaxStackBytes < 0 || opts.MaxGoStackBytes < 0 || opts.Fuel < 0 {
		return nil, errors.New("jit: negative limit in options")
	}
	if opts.MaxStackBytes > MaxStackBytesLimit {
		return nil, fmt.Errorf("jit: MaxStackBytes %d is over the limit of %d", opts.MaxStackBytes, MaxStackBytesLimit)
	}
	if opts.MaxGoStackBytes > interp.MaxGoStackLimit {
		return nil, fmt.Errorf("jit: MaxGoStackBytes %d is over the limit of %d", opts.MaxGoStackBytes, interp.MaxGoStackLimit)
	}
	if opts.Pipeline < PipelineIntegrated || opts.Pipeline > PipelineLinearScan {
		return nil, fmt.Errorf("jit: unknown pipeline %d", int(opts.Pipeline))
	}
	if opts.SpillHeuristic < SpillExpectedDistance || opts.SpillHeuristic > SpillNearestUse {
		return nil, fmt.Errorf("jit: unknown spill heuristic %d", int(opts.SpillHeuristic))
	}
	if opts.ReoptimizeDrift < 0 || opts.ReoptimizeDrift > 1 {
		return nil, fmt.Errorf("jit: ReoptimizeDrift %v is outside [0, 1]", opts.ReoptimizeDrift)
	}
	if opts.OSRInterval < 0 {
		return nil, errors.New("jit: negative OSRInterval")
	}
	if opts.CompileWorkers < 0 {
		return nil, errors.New("jit: negative CompileWorkers")
	}
	if err := applyPassSwitches(opts.DisablePasses, new(sched.Options)); err != nil {
		return nil, err
	}
	opts.DisablePasses = slices.Clone(opts.DisablePasses)
	if opts.CompileWorkers == 0 {
		opts.CompileWorkers = goruntime.GOMAXPROCS(0)
	}
	if opts.TierUpCalls == 0 {
		opts.TierUpCalls = DefaultTierUpCalls
	}
	if opts.TierUpBackEdges == 0 {
		opts.TierUpBackEdges = DefaultTierUpBackEdges
	}
	if opts.ReoptimizeDrift == 0 {
		opts.ReoptimizeDrift = DefaultReoptimizeDrift
	}
	if opts.MaxReoptimizations == 0 {
		opts.MaxReoptimizations = DefaultMaxReoptimizations
	}
	if opts.MaxCallDepth == 0 {
		opts.MaxCallDepth = interp.DefaultMaxCallDepth
	}
	if opts.MaxStackBytes == 0 {
		opts.MaxStackBytes = interp.DefaultMaxStackSlots * 8
	}
	opts.MaxCallDepth = min(opts.MaxCallDepth, opts.MaxStackBytes/16)
	if opts.MaxGoStackBytes == 0 {
		opts.MaxGoStackBytes = interp.DefaultMaxGoStack
	}
	if opts.Features != nil {
		f := *opts.Features
		opts.Features = &f
	}
	if opts.MaxModuleBytes < 0 || opts.MaxFunctions < 0 || opts.MaxFunctionInstrs < 0 || opts.MaxRegisters < 0 {
		return nil, errors.New("jit: negative module limit in options")
	}
	if opts.MaxCompileBytes == 0 {
		opts.MaxCompileBytes = DefaultMaxCompileBytes
	}
	if opts.MaxMemoryPages > bytecode.MaxPages {
		return nil, fmt.Errorf("jit: MaxMemoryPages %d exceeds %d", opts.MaxMemoryPages, bytecode.MaxPages)
	}
	return &Engine{opts: opts, compiles: make(chan struct{}, max(1, goruntime.GOMAXPROCS(0)/2))}, nil
}

// target returns the features compiled code may use.
func (e *Engine) target() lower.Target {
	t := lower.HostTarget()
	if f := e.opts.Features; f != nil {
		t.POPCNT = t.POPCNT && f.POPCNT
		t.LZCNT = t.LZCNT && f.LZCNT
		t.BMI1 = t.BMI1 && f.BMI1
		t.SSE41 = t.SSE41 && f.SSE41
	}
	return t
}

// Options returns the engine's options with defaults filled in.
func (e *Engine) Options() Options { return e.opts }

// Module is a verified, loaded module. It is immutable and safe for
// concurrent use; Instantiate it to run it.
type Module struct {
	engine *Engine
	// prog is the module prepared for the interpreter; its module holds
	// no code: code has it (code.go).
	prog       *interp.Program
	code       *moduleCode
	compiled   *compiledModule
	compileErr error
	// backEdges lists, for TierAuto, the counters of every backward
	// branch, those of function fn from backEdgesFrom[fn] up to
	// backEdgesFrom[fn+1] (see autotier.go).
	backEdges     []counterRef
	backEdgesFrom []int32
	// interpreted marks the functions Options.Interpreted keeps in the
	// interpreter (nil: none).
	interpreted []bool
}

// Load verifies m and loads a copy of it: later changes to m do not affect
// the loaded module. It is LoadContext with a background context.
func (e *Engine) Load(m *bytecode.Module) (*Module, error) {
	return e.LoadContext(context.Background(), m)
}

// LoadContext is Load under a context: cancelling ctx stops loading
// (between functions and between compile stages) with an error wrapping
// the context's. Loading a module is near-linear in its size on every
// tier, and the Options limits bound that size.
func (e *Engine) LoadContext(ctx context.Context, m *bytecode.Module) (*Module, error) {
	if m == nil {
		return nil, errors.New("jit: load: nil module")
	}
	return e.load(ctx, m)
}

// load loads m, which it only reads: the module keeps a copy of what it
// needs (code.go).
func (e *Engine) load(ctx context.Context, m *bytecode.Module) (*Module, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := e.checkLimits(m); err != nil {
		return nil, fmt.Errorf("jit: load: %w", err)
	}
	prog, code, err := prepareWithoutCode(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("jit: load: %w", err)
	}
	mod := &Module{engine: e, prog: prog, code: code}
	if keep := e.opts.Interpreted; keep != nil {
		for fn, f := range prog.Module.Funcs {
			if keep(f.Name) {
				if mod.interpreted == nil {
					mod.interpreted = make([]bool, len(prog.Module.Funcs))
				}
				mod.interpreted[fn] = true
			}
		}
	}
	if e.opts.Tier == TierAuto {
		mod.backEdges, mod.backEdgesFrom = backwardEdges(prog)
	} else if e.opts.Tier != TierInterp {
		cfg := e.compileConfig(e.opts.Tier, nil)
		if e.opts.CountEdges {
			cfg.countFuncs = len(prog.Module.Funcs)
		}
		cfg.interpreted, cfg.code = mod.interpreted, mod.code
		start := time.Now()
		mod.compiled, mod.compileErr = compileModule(ctx, prog, cfg)
		mod.notifyCompile(CompileAtLoad, nil, e.opts.Tier, time.Since(start), mod.compiled, mod.compileErr)
		if mod.compileErr != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("jit: load: %w", mod.compileErr)
		}
	}
	return mod, nil
}

// compileConfig returns the configuration compiling for tier with the
// engine's options; profile gives per-function profiles (nil: the static
// estimate).
func (e *Engine) compileConfig(tier Tier, profile func(int) *profilecounters.Profile) compileConfig {
	cfg := compileConfig{
		tier: tier, target: e.target(), profile: profile,
		naive: e.opts.NaiveOutOfSSA,
		sched: sched.Options{SourceOrder: e.opts.SourceOrderSchedule, NoVerify: !e.opts.CheckAllocations,
			Oracle: spillOracles[e.opts.SpillHeuristic], NoPlacement: e.opts.NoSpillPlacement,
			NoCopyMotion: e.opts.NoCopyMotion, NoPressureWait: e.opts.NoPressureWait},
		check:           e.opts.CheckAllocations,
		pipeline:        e.opts.Pipeline,
		maxCompileBytes: e.opts.MaxCompileBytes,
		perfMap:         e.opts.PerfMap,
		jitDump:         e.opts.JITDump,
		encode:          encode.Options{ChunkInstrs: e.opts.chunkInstrs},
		workers:         e.opts.CompileWorkers,
		keepCode:        e.opts.keepCode,
		onPass:          e.opts.OnPass,
	}
	_ = applyPassSwitches(e.opts.DisablePasses, &cfg.sched) // NewEngine checked the names
	return cfg
}

// Tier returns the tier the module's functions run in when an instance
// starts: TierAuto for an engine of that tier (each instance moves to the
// optimizing tier on its own; Instance.Tier tells).
func (m *Module) Tier() Tier {
	if m.compiled != nil {
		return m.compiled.stats.Tier
	}
	if m.engine.opts.Tier == TierAuto {
		return TierAuto
	}
	return TierInterp
}

// CompileError returns why the module runs in the interpreter although the
// engine asked for a compiled tier, or nil.
func (m *Module) CompileError() error { return m.compileErr }

// CompileStats returns the cost of compiling the module (zero when it was
// not compiled).
func (m *Module) CompileStats() CompileStats {
	if m.compiled == nil {
		return CompileStats{}
	}
	return m.compiled.stats
}

// LoadText assembles a module from the text form and loads it.
func (e *Engine) LoadText(src []byte) (*Module, error) {
	return e.LoadTextContext(context.Background(), src)
}

// LoadTextContext is LoadText under a context (see LoadContext).
func (e *Engine) LoadTextContext(ctx context.Context, src []byte) (*Module, error) {
	if err := e.checkInputSize(len(src)); err != nil {
		return nil, fmt.Errorf("jit: load: %w", err)
	}
	m, err := bytecode.AssembleLimits(src, e.parseLimits())
	if err != nil {
		return nil, fmt.Errorf("jit: load: %w", asLimitError(err))
	}
	return e.load(ctx, m)
}

// parseLimits returns the module limits of the options as the parser and
// the decoder check them while they read.
func (e *Engine) parseLimits() bytecode.Limits {
	return bytecode.Limits{Funcs: e.opts.MaxFunctions, FuncSize: e.opts.MaxFunctionInstrs, Regs: e.opts.MaxRegisters}
}

// asLimitError returns the *LimitError of a parse or decode error that
// says the input is over one of the options' limits, or err as it is.
func asLimitError(err error) error {
	var le *bytecode.LimitError
	if !errors.As(err, &le) {
		return err
	}
	names := map[string]string{"Funcs": "MaxFunctions", "FuncSize": "MaxFunctionInstrs", "Regs": "MaxRegisters"}
	return &LimitError{Limit: names[le.Limit], Func: le.Func, Value: le.Value, Max: le.Max, AtLeast: le.AtLeast}
}

// LoadBinary decodes a module from the binary form and loads it.
func (e *Engine) LoadBinary(b []byte) (*Module, error) {
	return e.LoadBinaryContext(context.Background(), b)
}

// LoadBinaryContext is LoadBinary under a context (see LoadContext).
func (e *Engine) LoadBinaryContext(ctx context.Context, b []byte) (*Module, error) {
	if err := e.checkInputSize(len(b)); err != nil {
		return nil, fmt.Errorf("jit: load: %w", err)
	}
	m, err := bytecode.DecodeLimits(b, e.parseLimits())
	if err != nil {
		return nil, fmt.Errorf("jit: load: %w", asLimitError(err))
	}
	return e.load(ctx, m)
}

// Bytecode returns a copy of the module's bytecode.
func (m *Module) Bytecode() *bytecode.Module {
	full, err := m.fullModule()
	if err != nil {
		// The code was packed at load by this package and never changed.
		panic(err)
	}
	return full
}

// ExportedFunction describes an exported function.
type ExportedFunction struct {
	Name string
	Sig  bytecode.Signature
}

// Exports lists the module's exported functions in declaration order.
func (m *Module) Exports() []ExportedFunction {
	var out []ExportedFunction
	for _, e := range m.prog.Module.Exports {
		out = append(out, ExportedFunction{Name: e.Name, Sig: m.prog.Module.Funcs[e.Func].Sig})
	}
	return out
}

// HostImports lists the host functions the module imports.
func (m *Module) HostImports() []bytecode.HostImport {
	return append([]bytecode.HostImport(nil), m.prog.Module.Hosts...)
}

// I64 returns the API representation of an i64 value.
func I64(v int64) uint64 { return uint64(v) }

// F64 returns the API representation of an f64 value.
func F64(v float64) uint64 { return math.Float64bits(v) }

// AsF64 interprets an API value as f64.
func AsF64(v uint64) float64 { return math.Float64frombits(v) }

// I32 returns the API representation of an i32 value: its 32 bits,
// zero-extended.
func I32(v int32) uint64 { return uint64(uint32(v)) }

// F32 returns the API representation of an f32 value: its 32 bits,
// zero-extended.
func F32(v float32) uint64 { return uint64(math.Float32bits(v)) }

// AsI32 interprets an API value as i32 (its low 32 bits).
func AsI32(v uint64) int32 { return int32(uint32(v)) }

// AsF32 interprets an API value as f32 (its low 32 bits).
func AsF32(v uint64) float32 { return math.Float32frombits(uint32(v)) }
