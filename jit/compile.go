package jit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
	"github.com/kiln-jit/kiln/runtime"
	"github.com/kiln-jit/kiln/sched"
)

// CompileStats reports what compiling a module cost, stage by stage.
type CompileStats struct {
	Tier Tier
	// Functions counts the functions compiled; Interpreted those left to
	// the interpreter (Options.Interpreted, not run before a tier-up, or
	// failed to compile at a tier-up: see Instance.Stats).
	Functions    int
	Interpreted  int
	Instructions int // bytecode instructions compiled
	CodeBytes    int // machine code, constant pools and jump tables
	// CountedEdges is the number of counters the code increments (the
	// chords of each counting function's flow graph, its entry counter
	// included when the calls are counted rather than derived); zero when
	// the code does not count.
	CountedEdges int
	// Lower is SSA construction and instruction selection; OutOfSSA the
	// translation out of SSA form (alloc.Destruct); Alloc the register
	// allocation proper (the baseline's stack slots, or the optimizing
	// tier's integrated scheduling and register assignment); Check the
	// allocation checker when Options.CheckAllocations is set.
	Lower    time.Duration
	OutOfSSA time.Duration
	Alloc    time.Duration
	Check    time.Duration
	Encode   time.Duration
	Install  time.Duration
	// Sched sums the optimizing tier's statistics over the module's
	// functions (zero for the baseline).
	Sched sched.Stats
}

// Total returns the whole compile time.
func (s CompileStats) Total() time.Duration {
	return s.Lower + s.OutOfSSA + s.Alloc + s.Check + s.Encode + s.Install
}

// String summarises the statistics on one line: the tier, what was
// compiled, and the time of each stage.
func (s CompileStats) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
	interpreted := ""
	if s.Interpreted > 0 {
		interpreted = fmt.Sprintf(" (%d left interpreted)", s.Interpreted)
	}
	out := fmt.Sprintf("compile: tier %s, %d functions%s, %d instructions, %d bytes of code in %s (lower %s, out of SSA %s, alloc %s",
		s.Tier, s.Functions, interpreted, s.Instructions, s.CodeBytes, ms(s.Total()), ms(s.Lower), ms(s.OutOfSSA), ms(s.Alloc))
	if s.Check > 0 {
		out += ", check " + ms(s.Check)
	}
	return out + ", encode " + ms(s.Encode) + ", install " + ms(s.Install) + ")"
}

// compiledModule is a module's machine code, shared by its instances.
type compiledModule struct {
	code    *runtime.Code
	funcs   []*encode.Code
	entries []uintptr
	params  [][]mir.Class
	results [][]mir.Class
	// Calling-convention locations, computed once: each function's
	// arguments and results as its callee sees them (for calls from Go),
	// and each host import's as compiled code passes them.
	args, rets         [][]mir.Reg
	slots              []int
	hostArgs, hostRets [][]mir.Reg
	hosts              []mir.HostSig
	// Value masks at the boundary with Go, by the same indexes (nil when
	// a signature has no 32-bit type): an i32 or f32 value crosses it as
	// its low 32 bits, zero-extended, whatever the upper half of the
	// register or of the caller's word holds.
	argMasks, retMasks         [][]uint64
	hostArgMasks, hostRetMasks [][]uint64
	// tableEntries is the table as compiled code reads it
	// (mir.TableEntries), shared by every instance: nothing writes the
	// table after instantiation.
	tableEntries []uint64
	// plans says, for each function that counts its edges, which edges
	// its code counts (nil: it does not count).
	plans []*profilecounters.ChordPlan
	// counterBelow says, for each counting function, how many words below
	// an instance's context (runtime.Thread.Counters) its counter slot 0
	// lies; its slots follow upward. The first function to count takes the
	// words nearest the context, so that a small module's counters are
	// within a byte's displacement of R15. counterWords is the number of
	// counter words.
	counterBelow []int
	counterWords int
	stats        CompileStats
	// hostCount is the number of the module's own host imports; compiled
	// code of a mixed module exits through host imports beyond them to
	// run function stubImport - hostCount in the interpreter (mixed.go).
	hostCount int
	// stubs marks the functions compiled as stubs that run them in the
	// interpreter, failed holds why one of them did not compile (nil
	// for both when the module is not mixed).
	stubs  []bool
	failed []error
}

var (
	exitStubOnce sync.Once
	exitStubCode *runtime.Code
	exitStubErr  error
)

// exitStub installs the shared exit stub once per process.
func exitStub() (uintptr, error) {
	exitStubOnce.Do(func() {
		var b []byte
		if b, exitStubErr = encode.ExitStub(); exitStubErr == nil {
			exitStubCode, exitStubErr = runtime.Install([]runtime.Part{{Bytes: b}})
		}
	})
	if exitStubErr != nil {
		return 0, exitStubErr
	}
	return exitStubCode.Addr(0), nil
}

// compileConfig says how to compile a module.
type compileConfig struct {
	tier   Tier
	target lower.Target
	// profile returns the profile function i is compiled with (nil: the
	// static estimate).
	profile func(i int) *profilecounters.Profile
	// countFuncs is the number of functions, from the first, whose code
	// counts edges (see profilecounters.ChordPlan).
	countFuncs int
	// interpreted marks the functions (by index, of the module's own)
	// that stay in the interpreter; fallback leaves a function whose
	// compile fails there too instead of failing the module (mixed.go).
	interpreted []bool
	fallback    bool
	naive       bool          // baseline: naive φ instantiation
	sched       sched.Options // optimizing: options of the integrated pass
	check       bool          // run alloc.CheckAllocation on every allocation
	// pipeline is the optimizing tier's allocation pipeline.
	pipeline Pipeline
	// maxCompileBytes bounds EstimateCompileBytes per function (negative:
	// no bound).
	maxCompileBytes int64
	// encode are the encoder's options.
	encode encode.Options
	// perfMap and jitDump write the installed functions to the perf map
	// file and the jitdump file.
	perfMap, jitDump bool
	// code is the packed code of a loaded module's functions, for a
	// program whose module keeps none (nil: the module holds its code).
	code *moduleCode
}

// bytesPerLiveEntry is what one entry of a block's live-in or live-out set
// costs the compiled tiers (the out-of-SSA pass's and the allocators'
// per-block tables), rounded up.
const bytesPerLiveEntry = 64

// checkLiveSets applies the compile memory bound to the live sets of f's
// SSA form mf, which EstimateCompileBytes cannot see: they can grow
// quadratically with the function's size (loop counters live across deep
// nests of inner loops). Counting stops at the bound, so the check costs
// at most what it allows.
func (cfg *compileConfig) checkLiveSets(f *bytecode.Function, instrs int, mf *mir.Func) error {
	if cfg.maxCompileBytes < 0 {
		return nil
	}
	est := estimateCompileBytes(instrs, len(f.Regs), cfg.tier)
	limit := (cfg.maxCompileBytes - est) / bytesPerLiveEntry
	if mir.LiveSetsWithin(mf, int(min(limit, math.MaxInt32))) {
		return nil
	}
	return &LimitError{Limit: "MaxCompileBytes", Func: f.Name, Value: est + (limit+1)*bytesPerLiveEntry, Max: cfg.maxCompileBytes}
}

// checkCompileBytes applies the compile memory bound to f, of instrs
// instructions.
func (cfg *compileConfig) checkCompileBytes(f *bytecode.Function, instrs int) error {
	if cfg.maxCompileBytes < 0 {
		return nil
	}
	if est := estimateCompileBytes(instrs, len(f.Regs), cfg.tier); est > cfg.maxCompileBytes {
		return &LimitError{Limit: "MaxCompileBytes", Func: f.Name, Value: est, Max: cfg.maxCompileBytes}
	}
	return nil
}

// compileModule compiles every function of a prepared module with the
// configuration's tier: lowering to SSA machine IR, out of SSA (the
// baseline: alloc.Destruct's coalescer, or naive φ instantiation; the
// optimizing tier: alloc.Destruct with renaming constraints), register
// allocation (the baseline's stack slots, or sched's integrated scheduling
// and register assignment), encoding, installation.
func compileModule(ctx context.Context, prog *interp.Program, cfg compileConfig) (*compiledModule, error) {
	if !runtime.Supported() {
		return nil, fmt.Errorf("jit: compiled tiers are not supported on this platform")
	}
	if _, err := exitStub(); err != nil {
		return nil, err
	}
	orig := prog.Module
	// m is the module compiled: the prepared one, or for a mixed module
	// one whose interpreted functions are stubs (mixed.go).
	m := orig
	var info *lower.ModuleInfo
	if cfg.code != nil {
		info = cfg.code.info
	} else {
		info = lower.NewModuleInfo(orig)
	}
	mixed := cfg.interpreted != nil || cfg.fallback
	cm := &compiledModule{hostCount: len(orig.Hosts), tableEntries: mir.TableEntries(orig),
		stats: CompileStats{Tier: cfg.tier}}
	if mixed {
		m = withStubImports(orig)
		info = info.StandIn(m)
		cm.stubs = make([]bool, len(m.Funcs))
		cm.failed = make([]error, len(m.Funcs))
	}
	cm.hosts = lower.HostSigs(m)
	// The compile memory bound is checked before anything compiles: a
	// function over it fails the module, or with fallback stays
	// interpreted.
	for i, f := range orig.Funcs {
		if i < len(cfg.interpreted) && cfg.interpreted[i] {
			cm.stub(m, i, nil)
		} else if err := cfg.checkCompileBytes(f, cfg.code.len(orig, i)); err != nil {
			if !cfg.fallback {
				return nil, err
			}
			cm.stub(m, i, err)
		}
	}
	parts := make([]runtime.Part, len(m.Funcs))
	for i := range m.Funcs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("jit: compile %s: %w", orig.Funcs[i].Name, err)
		}
		part, err := cm.compileFunc(ctx, prog, m, info, i, cfg)
		if err != nil && cfg.fallback && !cm.stubs[i] && ctx.Err() == nil {
			// The function stays interpreted; the others compile.
			cm.stub(m, i, err)
			part, err = cm.compileFunc(ctx, prog, m, info, i, cfg)
		}
		if err != nil {
			return nil, err
		}
		parts[i] = part
	}
	for i := range m.Funcs {
		cm.args = append(cm.args, mir.ArgLocations(cm.params[i], true))
		cm.rets = append(cm.rets, mir.ResultLocations(cm.params[i], cm.results[i], true))
		cm.slots = append(cm.slots, slotsOf(cm.params[i], cm.results[i]))
	}
	for _, h := range cm.hosts {
		cm.hostArgs = append(cm.hostArgs, mir.ArgLocations(h.Params, false))
		cm.hostRets = append(cm.hostRets, mir.ResultLocations(h.Params, h.Results, false))
	}
	for _, f := range m.Funcs {
		cm.argMasks = append(cm.argMasks, valueMasks(f.Sig.Params))
		cm.retMasks = append(cm.retMasks, valueMasks(f.Sig.Results))
	}
	for _, h := range m.Hosts {
		cm.hostArgMasks = append(cm.hostArgMasks, valueMasks(h.Sig.Params))
		cm.hostRetMasks = append(cm.hostRetMasks, valueMasks(h.Sig.Results))
	}
	start := time.Now()
	code, err := runtime.Install(parts)
	if err != nil {
		return nil, err
	}
	cm.stats.Install = time.Since(start)
	cm.code = code
	for i := range parts {
		cm.entries = append(cm.entries, code.Addr(i))
	}
	if cfg.perfMap {
		syms := make([]perfSymbol, len(parts))
		for i, f := range m.Funcs {
			syms[i] = perfSymbol{addr: code.Addr(i), size: cm.funcs[i].CodeSize, name: perfName(cfg.tier, f.Name)}
		}
		if err := processPerfMap.write(syms); err != nil {
			return nil, err
		}
	}
	if cfg.jitDump {
		syms := make([]jitSymbol, len(parts))
		for i, f := range m.Funcs {
			c := cm.funcs[i]
			syms[i] = jitSymbol{addr: code.Addr(i), code: code.CopyBytes(i, c.CodeSize), name: perfName(cfg.tier, f.Name), pos: c.PosMap}
		}
		if err := processJITDump.write(syms); err != nil {
			return nil, err
		}
	}
	// Of each function's encoding only the trap sites are read from now
	// on: the bytes were copied into executable memory.
	for _, c := range cm.funcs {
		c.Bytes, c.Relocs, c.PosMap = nil, nil, nil
	}
	return cm, nil
}

// stub makes function i of m (the stand-in of a mixed module) a stub that
// runs it in the interpreter; err, if not nil, is the compile failure
// that leaves it there.
func (cm *compiledModule) stub(m *bytecode.Module, i int, err error) {
	m.Funcs[i] = stubFunc(m, i)
	cm.stubs[i] = true
	if err != nil {
		cm.failed[i] = fmt.Errorf("jit: compile %s: %w", m.Funcs[i].Name, err)
	}
}

// compileFunc compiles function i of m (the prepared module, or its
// stand-in with stubs; the compile memory bound already checked),
// accounting the time and size in cm.stats, and returns its code for
// installation.
func (cm *compiledModule) compileFunc(ctx context.Context, prog *interp.Program, m *bytecode.Module, info *lower.ModuleInfo, i int, cfg compileConfig) (runtime.Part, error) {
	f := m.Funcs[i]
	stub := cm.isStub(i)
	var prof *profilecounters.Profile
	if cfg.profile != nil && !stub {
		prof = cfg.profile(i)
	}
	if prof == nil && !stub {
		prof = prog.Layouts[i].Profile(nil)
	}
	start := time.Now()
	var plan *profilecounters.ChordPlan
	if i < cfg.countFuncs && !stub {
		plan = profilecounters.NewChordPlan(prof.Layout, prof)
	}
	packed, err := cfg.code.packedOf(m, i)
	if err != nil {
		return runtime.Part{}, err
	}
	instrs := cfg.code.len(m, i)
	mf, err := lower.Func(m, i, lower.Options{Target: cfg.target, Profile: prof, Module: info, Counters: plan, Packed: packed})
	if err != nil {
		return runtime.Part{}, err
	}
	lowered := time.Since(start)
	if err := cfg.checkLiveSets(f, instrs, mf); err != nil {
		return runtime.Part{}, err
	}
	if err := ctx.Err(); err != nil {
		return runtime.Part{}, fmt.Errorf("jit: compile %s: %w", f.Name, err)
	}
	params, results := mf.Params, mf.Results
	// The SSA form is garbage once allocate has taken it out of SSA:
	// nothing below refers to mf, so a large function's SSA form is not
	// kept through encoding.
	af, err := cm.allocate(mf, cfg)
	if err != nil {
		return runtime.Part{}, err
	}
	if err := ctx.Err(); err != nil {
		return runtime.Part{}, fmt.Errorf("jit: compile %s: %w", f.Name, err)
	}
	start = time.Now()
	encOpts := cfg.encode
	below := 0
	if plan != nil {
		below = cm.counterWords + plan.NumCounters()
		encOpts.CounterOffset = -8 * int64(below)
	}
	encOpts.Consume = true // af is not used after it is encoded
	enc, err := encode.FuncOptions(af, encOpts)
	if err != nil {
		return runtime.Part{}, err
	}
	// Nothing fails below: account the function.
	cm.stats.Lower += lowered
	cm.stats.Encode += time.Since(start)
	if stub {
		cm.stats.Interpreted++
	} else {
		cm.stats.Functions++
		cm.stats.Instructions += instrs
	}
	cm.plans = append(cm.plans, plan)
	cm.counterBelow = append(cm.counterBelow, below)
	if plan != nil {
		cm.stats.CountedEdges += plan.NumChords()
		cm.counterWords = below
	}
	cm.params = append(cm.params, params)
	cm.results = append(cm.results, results)
	cm.funcs = append(cm.funcs, enc)
	relocs := make([]runtime.Reloc, len(enc.Relocs))
	for k, r := range enc.Relocs {
		relocs[k] = runtime.Reloc{Offset: r.Offset, Target: r.Target}
	}
	cm.stats.CodeBytes += len(enc.Bytes)
	return runtime.Part{Bytes: enc.Bytes, Relocs: relocs}, nil
}

// allocate takes an SSA function out of SSA form and allocates its
// registers with the configuration's tier, accounting the time.
func (cm *compiledModule) allocate(f *mir.Func, cfg compileConfig) (*mir.Func, error) {
	name := f.Name // f is not used after it is out of SSA
	start := time.Now()
	var pre *mir.Func
	if cfg.tier == TierOptimizing {
		d, err := alloc.Destruct(f, alloc.DestructOptions{InPlace: true})
		if err != nil {
			return nil, err
		}
		pre = d.Func
	} else {
		g, err := alloc.BaselineOutOfSSA(f, cfg.naive, true)
		if err != nil {
			return nil, err
		}
		pre = g
	}
	destructed := time.Now()
	var r *sched.Result
	switch {
	case cfg.tier != TierOptimizing:
		g := pre
		if cfg.check {
			pre = g.Clone() // the baseline allocates g in place
		}
		var post *mir.Func
		var org *alloc.Origins
		var err error
		if cfg.check {
			post, org, err = alloc.BaselineNonSSAWithOrigins(g)
		} else {
			post, err = alloc.BaselineNonSSA(g) // no origins: nothing reads them
		}
		if err != nil {
			return nil, err
		}
		r = &sched.Result{Func: post, Origins: org}
	case cfg.pipeline == PipelineIntegrated:
		// The pass makes its result out of its input's instructions; the
		// checker needs the input as it was.
		in, opts := pre, cfg.sched
		opts.InPlace = true
		if cfg.check {
			in = pre.Clone()
		}
		var err error
		if r, err = sched.Allocate(in, opts); err != nil {
			return nil, err
		}
	default:
		run := sched.Separate
		if cfg.pipeline == PipelineLinearScan {
			run = sched.LinearScanOnly
		}
		sr, err := run(pre, cfg.sched)
		if err != nil {
			return nil, err
		}
		r = &sr.Result
	}
	allocated := time.Now()
	cm.stats.OutOfSSA += destructed.Sub(start)
	cm.stats.Alloc += allocated.Sub(destructed)
	cm.stats.Sched.Add(&r.Stats) // zero for the baseline
	if cfg.check {
		if err := alloc.CheckAllocation(pre, r.Func, r.Origins); err != nil {
			return nil, fmt.Errorf("jit: %s: %w", name, err)
		}
		cm.stats.Check += time.Since(allocated)
	}
	return r.Func, nil
}

// trapAt builds the trap error of exit site (fn, site).
func (cm *compiledModule) trapAt(prog *interp.Program, kind bytecode.TrapKind, fn, site uint32) *bytecode.Trap {
	t := &bytecode.Trap{Kind: kind, Func: fn}
	if int(fn) < len(prog.Module.Funcs) {
		t.FuncName = prog.Module.Funcs[fn].Name
		if int(site) < len(cm.funcs[fn].Sites) {
			s := cm.funcs[fn].Sites[site]
			t.Offset = int(s.Pos)
			if kind == bytecode.TrapExplicit {
				t.Code = s.Code
			}
		}
	}
	return t
}

// valueMasks returns the mask of each value of types ts as it crosses the
// boundary between compiled code and Go, or nil when no type needs one.
func valueMasks(ts []bytecode.Type) []uint64 {
	var masks []uint64
	for i, t := range ts {
		if t.Is32() {
			if masks == nil {
				masks = make([]uint64, len(ts))
				for k := range masks {
					masks[k] = math.MaxUint64
				}
			}
			masks[i] = math.MaxUint32
		}
	}
	return masks
}
