package jit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

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
	// Wall is the compile's wall time; the stage times above are summed
	// over the functions, which compile in parallel (Options.CompileWorkers).
	Wall time.Duration
	// Sched sums the optimizing tier's statistics over the module's
	// functions (zero for the baseline).
	Sched sched.Stats
	// Passes are the times of the pipeline's passes (Passes), summed over
	// the functions, in the order they ran; each is part of one of the
	// stage times above.
	Passes []PassTime
}

// addPasses adds the times of passes, a compile's of one function, to
// those of s, a compile's of all functions so far (every function of a
// compile goes through the same passes).
func (s *CompileStats) addPasses(passes []PassTime) {
	for k, p := range passes {
		if k == len(s.Passes) {
			s.Passes = append(s.Passes, PassTime{Name: p.Name})
		}
		s.Passes[k].Time += p.Time
	}
}

// Total returns the whole compile time, the stages' times summed (the
// work; see Wall for the wall time).
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
	out := fmt.Sprintf("compile: tier %s, %d functions%s, %d instructions, %d bytes of code in %s, %s of work (lower %s, out of SSA %s, alloc %s",
		s.Tier, s.Functions, interpreted, s.Instructions, s.CodeBytes, ms(s.Wall), ms(s.Total()), ms(s.Lower), ms(s.OutOfSSA), ms(s.Alloc))
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
	// for both when the module is not mixed). A TierAuto instance's
	// tier-up code is its own: functions joining it (join.go) change
	// stubs, failed and funcs on the instance's goroutine.
	stubs  []bool
	failed []error
	// standIn is the module a mixed module's code was compiled from (its
	// interpreted functions stubs), standInInfo its lowering information,
	// for the compiles of functions joining the code.
	standIn     *bytecode.Module
	standInInfo *lower.ModuleInfo
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
	// workers is how many functions compile at once (Options.CompileWorkers).
	workers int
	// keepCode keeps the functions' encodings after installation (tests).
	keepCode bool
	// onPass is Options.OnPass.
	onPass func(PassEvent)
	// osr lists, per function, the bytecode offsets of its on-stack-
	// replacement entries (lower.Options.OSRHeaders; the optimizing tier
	// only).
	osr [][]int
}

// osrHeaders returns the on-stack-replacement entries of function fn.
func (cfg *compileConfig) osrHeaders(fn int) []int {
	if cfg.tier != TierOptimizing || fn >= len(cfg.osr) {
		return nil
	}
	return cfg.osr[fn]
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
	began := time.Now()
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
		cm.standIn, cm.standInInfo = m, info
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
	jobs, err := cm.planFuncs(prog, m, cfg)
	if err != nil {
		return nil, err
	}
	cfg.runJobs(ctx, jobs, func(j *funcJob) { j.compile(ctx, prog, m, info, cfg) })
	// A function whose compile failed stays interpreted with fallback:
	// its stub compiles once the others are done (they read the
	// module's functions, which stub replaces).
	for _, j := range jobs {
		if j.err != nil && cfg.fallback && !cm.stubs[j.fn] && ctx.Err() == nil {
			cm.stub(m, j.fn, j.err)
			*j = funcJob{fn: j.fn, below: j.below}
			j.compile(ctx, prog, m, info, cfg)
		}
	}
	parts := make([]runtime.Part, len(m.Funcs))
	for i, j := range jobs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("jit: compile %s: %w", orig.Funcs[i].Name, err)
		}
		if j.err != nil {
			return nil, j.err
		}
		parts[i] = cm.account(j)
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
		if !cfg.keepCode {
			c.Bytes, c.Relocs, c.PosMap = nil, nil, nil
		}
	}
	cm.stats.Wall = time.Since(began)
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

// funcJob is the compile of one function of a module: its counter plan
// and place (planFuncs), then what compile produced.
type funcJob struct {
	fn   int
	prof *profilecounters.Profile
	// plan is the function's counter plan (nil: its code does not
	// count); below is where its counters lie (compiledModule.counterBelow).
	plan  *profilecounters.ChordPlan
	below int
	// What compile produced: the code, the signature's classes, the
	// stage times and statistics; or why it failed.
	enc             *encode.Code
	params, results []mir.Class
	stats           CompileStats
	err             error
}

// planFuncs returns a job for each function of m: its profile and, for a
// function that counts its edges, its counter plan and the counters'
// place, laid out in function order (the first function's nearest the
// context) whatever order the functions then compile in.
func (cm *compiledModule) planFuncs(prog *interp.Program, m *bytecode.Module, cfg compileConfig) ([]*funcJob, error) {
	jobs := make([]*funcJob, len(m.Funcs))
	words := 0
	for i := range m.Funcs {
		j := &funcJob{fn: i}
		jobs[i] = j
		if cm.isStub(i) {
			continue
		}
		if cfg.profile != nil {
			j.prof = cfg.profile(i)
		}
		if j.prof == nil {
			j.prof = prog.Layouts[i].Profile(nil)
		}
		if i < cfg.countFuncs {
			j.plan = profilecounters.NewChordPlanOSR(j.prof.Layout, j.prof, cfg.osrHeaders(i))
			words += j.plan.NumCounters()
			j.below = words
		}
	}
	return jobs, nil
}

// runJobs runs do for every job on up to cfg.workers goroutines (one:
// on the calling goroutine), stopping early when ctx is done.
func (cfg *compileConfig) runJobs(ctx context.Context, jobs []*funcJob, do func(*funcJob)) {
	workers := min(max(cfg.workers, 1), len(jobs))
	if workers <= 1 {
		for _, j := range jobs {
			if ctx.Err() != nil {
				return
			}
			do(j)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(jobs) || ctx.Err() != nil {
					return
				}
				do(jobs[k])
			}
		})
	}
	wg.Wait()
}

// compile compiles function j.fn of m (the prepared module, or its
// stand-in with stubs; the compile memory bound already checked), keeping
// its code and what it cost in j. It changes nothing shared: functions
// compile concurrently.
func (j *funcJob) compile(ctx context.Context, prog *interp.Program, m *bytecode.Module, info *lower.ModuleInfo, cfg compileConfig) {
	j.err = j.compileErr(ctx, prog, m, info, cfg)
}

func (j *funcJob) compileErr(ctx context.Context, prog *interp.Program, m *bytecode.Module, info *lower.ModuleInfo, cfg compileConfig) error {
	i := j.fn
	packed, err := cfg.code.packedOf(m, i)
	if err != nil {
		return err
	}
	c := &funcCompile{cfg: &cfg, m: m, fn: i, instrs: cfg.code.len(m, i), encodeOpts: cfg.encode,
		// j.prof is nil for a stub: its code is not the function's.
		lowerOpts: lower.Options{Target: cfg.target, Profile: j.prof, Module: info, Counters: j.plan, Packed: packed, OSRHeaders: cfg.osrHeaders(i)}}
	if j.plan != nil {
		c.encodeOpts.CounterOffset = -8 * int64(j.below)
	}
	if err := c.compile(ctx, &j.stats); err != nil {
		return err
	}
	j.params, j.results, j.enc = c.params, c.results, c.code
	j.stats.Instructions = c.instrs
	return nil
}

// account adds a compiled function (in function order) to cm: its code,
// its counters and its statistics, and returns its code for installation.
func (cm *compiledModule) account(j *funcJob) runtime.Part {
	st := &cm.stats
	st.Lower += j.stats.Lower
	st.OutOfSSA += j.stats.OutOfSSA
	st.Alloc += j.stats.Alloc
	st.Check += j.stats.Check
	st.Encode += j.stats.Encode
	st.Sched.Add(&j.stats.Sched)
	st.addPasses(j.stats.Passes)
	if cm.isStub(j.fn) {
		st.Interpreted++
	} else {
		st.Functions++
		st.Instructions += j.stats.Instructions
	}
	cm.plans = append(cm.plans, j.plan)
	cm.counterBelow = append(cm.counterBelow, j.below)
	if j.plan != nil {
		st.CountedEdges += j.plan.NumChords()
		cm.counterWords = j.below
	}
	enc := j.enc
	cm.params = append(cm.params, j.params)
	cm.results = append(cm.results, j.results)
	cm.funcs = append(cm.funcs, enc)
	st.CodeBytes += len(enc.Bytes)
	return partOf(enc)
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
