package fuzz

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/runtime"
	"github.com/kiln-jit/kiln/sched"
)

// referenceConfig runs the reference interpreter, which every other
// configuration is compared with.
var referenceConfig = config{name: "interp", about: "the reference interpreter", start: startInterp}

// configs lists every configuration Check compares with the reference, in
// pipeline order: each back-end stage's output run in the machine-IR
// interpreter (which also checks the allocated code's register
// constraints), then the tiers through the embedding API.
var configs = []config{
	{"mir-ssa", "lowered SSA machine IR, every CPU feature", func(h *harness) (*instance, error) {
		return h.startMIR("mir-ssa", lower.FullTarget(), nil)
	}},
	{"mir-ssa-sse2", "lowered SSA machine IR for plain SSE2 x86-64", func(h *harness) (*instance, error) {
		return h.startMIR("mir-ssa-sse2", lower.Target{}, nil)
	}},
	{"mir-nonssa", "after naive out-of-SSA translation", func(h *harness) (*instance, error) {
		return h.startMIR("mir-nonssa", lower.FullTarget(), func(f *mir.Func) (*mir.Func, error) {
			return f, alloc.NaiveDestruct(f)
		})
	}},
	{"mir-baseline", "after baseline register allocation (naive out of SSA), checked by alloc.CheckAllocation", func(h *harness) (*instance, error) {
		return h.startMIR("mir-baseline", lower.FullTarget(), func(f *mir.Func) (*mir.Func, error) {
			g := f.Clone()
			if err := alloc.NaiveDestruct(g); err != nil {
				return nil, err
			}
			return checkedBaseline(g)
		})
	}},
	{"mir-coalesce", "after out-of-SSA translation with coalescing only (as the baseline tier), checked by alloc.CheckDestructed", func(h *harness) (*instance, error) {
		return h.startMIR("mir-coalesce", lower.FullTarget(), checkedCoalesce)
	}},
	{"mir-destruct", "after out-of-SSA translation with coalescing and pinning, checked by alloc.CheckDestructed", func(h *harness) (*instance, error) {
		return h.startMIR("mir-destruct", lower.FullTarget(), checkedDestruct)
	}},
	{"mir-destruct-baseline", "after out-of-SSA translation with coalescing and pinning and baseline allocation", func(h *harness) (*instance, error) {
		return h.startMIR("mir-destruct-baseline", lower.FullTarget(), func(f *mir.Func) (*mir.Func, error) {
			g, err := checkedDestruct(f)
			if err != nil {
				return nil, err
			}
			return checkedBaseline(g)
		})
	}},
	{"mir-sched", "after the optimizing tier's integrated scheduling and register assignment (package sched)", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched", lower.FullTarget(), schedStage(sched.Options{}))
	}},
	{"mir-sched-nomotion", "after the integrated pass with parallel copy motion off (critical edges split wherever they carry reconciliation code; every other mir-sched configuration runs the motion)", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched-nomotion", lower.FullTarget(), schedStage(sched.Options{NoCopyMotion: true}))
	}},
	{"mir-sched-nomotion-tight", "after the integrated pass with parallel copy motion off and the tight register set", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched-nomotion-tight", lower.FullTarget(), schedStage(sched.Options{NoCopyMotion: true, Regs: tightRegs}))
	}},
	{"mir-sched-source", "after the integrated pass in source order (no reordering)", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched-source", lower.FullTarget(), schedStage(sched.Options{SourceOrder: true}))
	}},
	{"mir-sched-up", "after the integrated pass with regions in DFS-up order", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched-up", lower.FullTarget(), schedStage(sched.Options{Order: sched.DFSUp}))
	}},
	{"mir-sched-tight", "after the integrated pass with four GPRs and three XMM registers besides the pinned ones (heavy spilling; spill victims by expected distance, seed 002, and spill placement, as by default)", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched-tight", lower.FullTarget(), schedStage(sched.Options{Regs: tightRegs}))
	}},
	{"mir-sched-cmp-tight", "after the integrated pass with spill victims by the thesis's comparator and the tight register set", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched-cmp-tight", lower.FullTarget(), schedStage(sched.Options{Oracle: sched.OracleThesis, Regs: tightRegs}))
	}},
	{"mir-sched-noplace-tight", "after the integrated pass as it was before expected-distance spilling: the comparator, no spill placement, no waiting under register pressure, the tight register set", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched-noplace-tight", lower.FullTarget(), schedStage(sched.Options{Oracle: sched.OracleThesis, NoPlacement: true, NoPressureWait: true, Regs: tightRegs}))
	}},
	{"mir-sched-nnu-tight", "after the integrated pass with spill victims by nearest next use and the tight register set", func(h *harness) (*instance, error) {
		return h.startMIR("mir-sched-nnu-tight", lower.FullTarget(), schedStage(sched.Options{Oracle: sched.OracleNNU, Regs: tightRegs}))
	}},
	{"mir-separate", "after the comparison pipeline (prepass scheduling, linear scan, postpass), checked by alloc.CheckAllocation", func(h *harness) (*instance, error) {
		return h.startMIR("mir-separate", lower.FullTarget(), checkedSched(func(g *mir.Func) (*sched.Result, error) {
			r, err := sched.Separate(g, sched.Options{})
			if err != nil {
				return nil, err
			}
			return &r.Result, nil
		}))
	}},
	{"jit-interp", "the interpreter tier through the embedding API", func(h *harness) (*instance, error) {
		return h.startJIT("jit-interp", jit.Options{Tier: jit.TierInterp})
	}},
	{"jit-baseline", "the baseline compiled tier (coalescing out of SSA), this machine's CPU features", func(h *harness) (*instance, error) {
		return h.startJIT("jit-baseline", jit.Options{Tier: jit.TierBaseline, CheckAllocations: true})
	}},
	{"jit-baseline-naive", "the baseline compiled tier with naive φ instantiation", func(h *harness) (*instance, error) {
		return h.startJIT("jit-baseline-naive", jit.Options{Tier: jit.TierBaseline, NaiveOutOfSSA: true, CheckAllocations: true})
	}},
	{"jit-baseline-sse2", "the baseline compiled tier for plain SSE2 x86-64", func(h *harness) (*instance, error) {
		return h.startJIT("jit-baseline-sse2", jit.Options{Tier: jit.TierBaseline, Features: &lower.Target{}, CheckAllocations: true})
	}},
	{"jit-optimizing", "the optimizing compiled tier, this machine's CPU features, every allocation checked", func(h *harness) (*instance, error) {
		return h.startJIT("jit-optimizing", jit.Options{Tier: jit.TierOptimizing, CheckAllocations: true})
	}},
	{"jit-auto", "the auto tier with synchronous tier-up after the first call: the first call interpreted, the later ones in optimizing code compiled with its edge counts, memory, globals and table carried over", func(h *harness) (*instance, error) {
		return h.startJIT("jit-auto", jit.Options{Tier: jit.TierAuto, SynchronousTierUp: true, TierUpCalls: 1, CheckAllocations: true})
	}},
	{"jit-auto-osr", "the auto tier with a synchronous tier-up once 16 backward branches are taken and frames offered every 8 polls: a loop of the first call moves into optimizing code at its header (on-stack replacement), with the call's fuel and depth", func(h *harness) (*instance, error) {
		return h.startJIT("jit-auto-osr", jit.Options{Tier: jit.TierAuto, SynchronousTierUp: true, TierUpCalls: 1 << 40, TierUpBackEdges: 16, OSRInterval: 8, CheckAllocations: true})
	}},
	{"jit-auto-reopt", "the auto tier re-optimizing on any drift: a synchronous tier-up after the first call, then a synchronous recompile with the latest counts whenever two looks in a row find a function's counts more than 1% away from the profile its code was compiled with (up to 8 times; generated programs that repeat their calls reach it)", func(h *harness) (*instance, error) {
		return h.startJIT("jit-auto-reopt", jit.Options{Tier: jit.TierAuto, SynchronousTierUp: true, TierUpCalls: 1, TierUpBackEdges: 8,
			ReoptimizeDrift: 0.01, MaxReoptimizations: 8, CheckAllocations: true})
	}},
	{"jit-optimizing-mixed", "the optimizing compiled tier with about half the functions (chosen by a hash of their names and the module's size) left in the interpreter: compiled code and the interpreter call each other, every allocation checked", func(h *harness) (*instance, error) {
		return h.startJIT("jit-optimizing-mixed", jit.Options{Tier: jit.TierOptimizing, Interpreted: h.someFuncs(), CheckAllocations: true})
	}},
	{"jit-auto-mixed", "jit-auto-osr with about half the functions kept in the interpreter (as jit-optimizing-mixed): the tier-up compiles the others that have run, on-stack replacement enters a mixed module", func(h *harness) (*instance, error) {
		return h.startJIT("jit-auto-mixed", jit.Options{Tier: jit.TierAuto, SynchronousTierUp: true, TierUpCalls: 1 << 40, TierUpBackEdges: 16, OSRInterval: 8,
			Interpreted: h.someFuncs(), CheckAllocations: true})
	}},
	{"jit-optimizing-counting", "the optimizing compiled tier with edge counting in the code (the chords of each function's flow graph), every allocation checked", func(h *harness) (*instance, error) {
		return h.startJIT("jit-optimizing-counting", jit.Options{Tier: jit.TierOptimizing, CountEdges: true, CheckAllocations: true})
	}},
	{"jit-optimizing-nomotion", "the optimizing compiled tier with parallel copy motion off, every allocation checked", func(h *harness) (*instance, error) {
		return h.startJIT("jit-optimizing-nomotion", jit.Options{Tier: jit.TierOptimizing, NoCopyMotion: true, CheckAllocations: true})
	}},
	{"jit-optimizing-sse2", "the optimizing compiled tier for plain SSE2 x86-64, every allocation checked", func(h *harness) (*instance, error) {
		return h.startJIT("jit-optimizing-sse2", jit.Options{Tier: jit.TierOptimizing, Features: &lower.Target{}, CheckAllocations: true})
	}},
}

// Configurations returns the names of the configurations Check compares
// with the reference interpreter.
func Configurations() []string {
	names := make([]string, len(configs))
	for i, c := range configs {
		names[i] = c.name
	}
	return names
}

// DescribeConfiguration says what configuration name runs ("" for an
// unknown name).
func DescribeConfiguration(name string) string {
	if c := findConfig(name); c != nil {
		return c.about
	}
	return ""
}

func findConfig(name string) *config {
	for i := range configs {
		if configs[i].name == name {
			return &configs[i]
		}
	}
	return nil
}

func startInterp(h *harness) (*instance, error) {
	prog, err := interp.Prepare(h.m)
	if err != nil {
		return nil, err
	}
	return h.startMachine(func(hosts []interp.HostFunc, mem *interp.Memory) (machine, []uint64, error) {
		mach, err := interp.NewMachine(prog, h.machineConfig(), hosts, mem)
		if err != nil {
			return nil, nil, err
		}
		globals := mach.Globals()
		copy(globals, h.initialGlobals())
		return mach, globals, nil
	})
}

// machine is what interp.Machine and mir.Machine have in common.
type machine interface {
	Call(ctx context.Context, fn int, args, results []uint64) error
	FuelLeft() int64
}

// startMachine creates an instance's memory and host functions and runs
// it on the machine newMachine makes, which also returns the machine's
// storage of the globals, holding their initial values.
func (h *harness) startMachine(newMachine func([]interp.HostFunc, *interp.Memory) (machine, []uint64, error)) (*instance, error) {
	mem, err := h.newMemory()
	if err != nil {
		return nil, err
	}
	env := &hostEnv{m: h.m, hosts: h.hosts()}
	var mach machine
	hosts := env.machineHosts(func() []byte { return mem.Bytes }, func(ctx context.Context, fn int, args, results []uint64) error {
		return mach.Call(ctx, fn, args, results)
	})
	var globals []uint64
	if mach, globals, err = newMachine(hosts, mem); err != nil {
		return nil, err
	}
	return &instance{call: h.callFunc(mach.Call), memory: func() []byte { return mem.Bytes }, fuelLeft: mach.FuelLeft, env: env,
		globals: func() ([]uint64, error) { return slices.Clone(globals), nil }}, nil
}

// startMIR lowers the module for target, applies stage to every function
// (when not nil), checks the result with the mir verifier and runs it in
// the machine-IR interpreter, with the module's globals (imported values
// applied) and table.
func (h *harness) startMIR(name string, target lower.Target, stage func(*mir.Func) (*mir.Func, error)) (*instance, error) {
	funcs, err := h.lower(target)
	if errors.Is(err, lower.ErrUnsupported) {
		return nil, &skipError{err.Error()}
	}
	if err != nil {
		return nil, stageFailure(name, "lowering failed: %v", err)
	}
	if stage != nil {
		for i, f := range funcs {
			g, err := stage(f)
			if err != nil {
				return nil, stageFailure(name, "stage failed on %s: %v", f.Name, err)
			}
			funcs[i] = g
		}
	}
	for _, f := range funcs {
		if err := mir.Verify(f); err != nil {
			return nil, stageFailure(name, "invalid machine IR: %v", err)
		}
	}
	if err := mir.VerifyModule(funcs, lower.HostSigs(h.m)); err != nil {
		return nil, stageFailure(name, "invalid machine IR: %v", err)
	}
	return h.startMachine(func(hosts []interp.HostFunc, mem *interp.Memory) (machine, []uint64, error) {
		mach, err := mir.NewMachine(funcs, h.machineConfig(), narrowHostResults(h.m, hosts), mem)
		if err != nil {
			return nil, nil, stageFailure(name, "%v", err)
		}
		mach.Globals = h.initialGlobals()
		mach.Table = mir.TableEntries(h.m)
		mach.Segments = interp.NewSegments(h.m)
		if t := interp.NewTables(h.m); t != nil {
			mach.Tables, mach.Table = t, t.Words()
		}
		return boundaryMachine{mach, h.m}, mach.Globals, nil
	})
}

// boundaryMachine runs machine IR as the jit runs compiled code: machine
// IR knows register classes, not value types, so the upper 32 bits of an
// i32 or f32 value crossing the boundary with Go are cleared there.
// Call clears them in the arguments and in the results; host results are
// cleared by narrowHostResults.
type boundaryMachine struct {
	*mir.Machine
	m *bytecode.Module
}

func (b boundaryMachine) Call(ctx context.Context, fn int, args, results []uint64) error {
	if fn < 0 || fn >= len(b.m.Funcs) {
		return b.Machine.Call(ctx, fn, args, results)
	}
	sig := b.m.Funcs[fn].Sig
	masked := slices.Clone(args)
	bytecode.Narrow(sig.Params, masked)
	err := b.Machine.Call(ctx, fn, masked, results)
	bytecode.Narrow(sig.Results, results)
	return err
}

// narrowHostResults wraps each host function of m so that the upper 32
// bits of its i32 and f32 results are cleared, as the jit clears them.
func narrowHostResults(m *bytecode.Module, hosts []interp.HostFunc) []interp.HostFunc {
	out := make([]interp.HostFunc, len(hosts))
	for i, host := range hosts {
		ts := m.Hosts[i].Sig.Results
		out[i] = func(ctx context.Context, args, results []uint64) error {
			err := host(ctx, args, results)
			bytecode.Narrow(ts, results)
			return err
		}
	}
	return out
}

// checkedDestruct runs alloc.Destruct and judges its output with
// alloc.CheckDestructed.
func checkedDestruct(f *mir.Func) (*mir.Func, error) {
	return checkedDestructWith(f, alloc.DestructOptions{})
}

// checkedCoalesce runs alloc.Destruct's coalescer without renaming
// constraints, as the baseline tier does, and checks its output.
func checkedCoalesce(f *mir.Func) (*mir.Func, error) {
	return checkedDestructWith(f, alloc.DestructOptions{NoConstraints: true})
}

func checkedDestructWith(f *mir.Func, opts alloc.DestructOptions) (*mir.Func, error) {
	d, err := alloc.Destruct(f, opts)
	if err != nil {
		return nil, err
	}
	if err := alloc.CheckDestructed(f, d); err != nil {
		return nil, err
	}
	return d.Func, nil
}

// checkedBaseline runs the baseline allocator on g (out of SSA form) and
// judges its allocation with alloc.CheckAllocation.
func checkedBaseline(g *mir.Func) (*mir.Func, error) {
	pre := g.Clone()
	a, o, err := alloc.BaselineNonSSAWithOrigins(g)
	if err != nil {
		return nil, err
	}
	if err := alloc.CheckAllocation(pre, a, o); err != nil {
		return nil, err
	}
	return a, nil
}

// tightRegs is the small register set of the mir-sched-tight
// configuration.
var tightRegs = mir.MakeRegSet(mir.R8, mir.R9, mir.RBX, mir.R12, mir.X8, mir.X9, mir.X10)

// schedStage returns the stage that takes an SSA function through
// alloc.Destruct and the integrated pass with opts, and judges the
// allocation with alloc.CheckAllocation.
func schedStage(opts sched.Options) func(*mir.Func) (*mir.Func, error) {
	return checkedSched(func(g *mir.Func) (*sched.Result, error) { return sched.Allocate(g, opts) })
}

// checkedSched returns the stage that takes an SSA function through
// alloc.Destruct and then allocate, and judges the allocation with
// alloc.CheckAllocation.
func checkedSched(allocate func(*mir.Func) (*sched.Result, error)) func(*mir.Func) (*mir.Func, error) {
	return func(f *mir.Func) (*mir.Func, error) {
		d, err := alloc.Destruct(f, alloc.DestructOptions{})
		if err != nil {
			return nil, err
		}
		r, err := allocate(d.Func)
		if err != nil {
			return nil, err
		}
		if err := alloc.CheckAllocation(d.Func, r.Func, r.Origins); err != nil {
			return nil, err
		}
		return r.Func, nil
	}
}

// lower returns a fresh copy of the module lowered for target; the
// lowering itself is done once per Check.
func (h *harness) lower(target lower.Target) ([]*mir.Func, error) {
	l, ok := h.lowered[target]
	if !ok {
		l.funcs, l.err = lower.Module(h.m, target)
		if h.lowered == nil {
			h.lowered = map[lower.Target]loweredModule{}
		}
		h.lowered[target] = l
	}
	if l.err != nil {
		return nil, l.err
	}
	funcs := make([]*mir.Func, len(l.funcs))
	for i, f := range l.funcs {
		funcs[i] = f.Clone()
	}
	return funcs, nil
}

type loweredModule struct {
	funcs []*mir.Func
	err   error
}

// someFuncs returns an Options.Interpreted that picks about half of the
// module's functions, by a hash of each name and the module's size, so
// that which functions are picked varies from program to program.
func (h *harness) someFuncs() func(string) bool {
	size := 0
	for _, f := range h.m.Funcs {
		size += len(f.Code)
	}
	return func(name string) bool {
		x := fnv.New32a()
		fmt.Fprintf(x, "%s/%d", name, size)
		return x.Sum32()>>7&1 == 0
	}
}

// startJIT loads the module into an engine with opts (and the harness's
// limits) and instantiates it with the harness's host functions and
// values of imported globals. Only exported globals can be read through
// the embedding API, so only they are compared; an exported table's
// entries are checked once, before the first call.
func (h *harness) startJIT(name string, opts jit.Options) (*instance, error) {
	if opts.Tier != jit.TierInterp && !runtime.Supported() {
		return nil, &skipError{"compiled tiers are not supported on this platform"}
	}
	opts.Fuel = h.opts.Fuel
	opts.MaxCallDepth = h.opts.MaxCallDepth
	opts.MaxMemoryPages = h.opts.MaxMemoryPages
	engine, err := jit.NewEngine(opts)
	if err != nil {
		return nil, err
	}
	mod, err := engine.Load(h.m)
	if err != nil {
		return nil, err
	}
	if mod.Tier() != opts.Tier {
		if errors.Is(mod.CompileError(), lower.ErrUnsupported) {
			return nil, &skipError{mod.CompileError().Error()}
		}
		return nil, stageFailure(name, "the module runs in tier %s: %v", mod.Tier(), mod.CompileError())
	}
	env := &hostEnv{m: h.m, hosts: h.hosts()}
	imports := jit.Imports{}
	for i, imp := range h.m.Hosts {
		imports[imp.Name] = jit.RawHost(imp.Sig.Params, imp.Sig.Results, func(c *jit.Caller, args, results []uint64) error {
			return env.invoke(c.Context(), i, args, results, c.Memory,
				func(_ context.Context, name string, args []uint64) ([]uint64, error) { return c.Call(name, args...) })
		})
	}
	initial := h.initialGlobals()
	visible := make([]bool, len(h.m.Globals))
	for k, g := range h.m.Globals {
		if g.Import != "" {
			imports[g.Import] = jit.GlobalValue(g.Type, initial[k])
		}
		visible[k] = g.Export != ""
	}
	inst, err := mod.Instantiate(imports)
	if err != nil {
		return nil, err
	}
	if err := h.checkTable(inst); err != nil {
		return nil, stageFailure(name, "%v", err)
	}
	return &instance{
		call: func(ctx context.Context, fn string, _ int, args []uint64) ([]uint64, error) {
			res, err := inst.Call(ctx, fn, args...)
			// A tier-up whose compile failed leaves the instance
			// interpreted: right results, but a compiler failure.
			if tErr := inst.TierUpError(); tErr != nil && !errors.Is(tErr, lower.ErrUnsupported) {
				return nil, stageFailure(name, "%v", tErr)
			}
			if _, _, rErr := inst.Reoptimizations(); rErr != nil && !errors.Is(rErr, lower.ErrUnsupported) {
				return nil, stageFailure(name, "%v", rErr)
			}
			return res, err
		},
		memory:  inst.Memory,
		env:     env,
		globals: func() ([]uint64, error) { return h.jitGlobals(inst) },
		visible: visible,
		reoptimizations: func() int {
			n, _, _ := inst.Reoptimizations()
			return n
		},
	}, nil
}

// jitGlobals reads the exported globals of inst through the embedding
// API; the others are left 0.
func (h *harness) jitGlobals(inst *jit.Instance) ([]uint64, error) {
	out := make([]uint64, len(h.m.Globals))
	for k, g := range h.m.Globals {
		if g.Export == "" {
			continue
		}
		v, t, err := inst.Global(g.Export)
		if err != nil {
			return nil, err
		}
		if t != g.Type {
			return nil, fmt.Errorf("global %s has type %s, want %s", g.Name, t, g.Type)
		}
		out[k] = v
	}
	return out, nil
}

// maxCheckedEntries bounds the table entries checkTable inspects.
const maxCheckedEntries = 1 << 12

// checkTable compares the entries of an exported table, as the embedding
// API reports them, with those the element segments put there (up to
// maxCheckedEntries of them), and requires the index just beyond the
// table to be refused.
func (h *harness) checkTable(inst *jit.Instance) error {
	if !h.m.HasTable() || h.m.Table.Export == "" {
		return nil
	}
	funcs := h.m.TableFuncs()
	n := min(h.m.Table.Min, maxCheckedEntries)
	for idx := uint32(0); idx < n; idx++ {
		want := -1
		if int(idx) < len(funcs) {
			want = int(funcs[idx])
		}
		name, ok, err := inst.TableEntry(idx)
		switch {
		case err != nil:
			return fmt.Errorf("table entry %d: %v", idx, err)
		case ok != (want >= 0) || ok && name != h.m.Funcs[want].Name:
			wantName := "null"
			if want >= 0 {
				wantName = h.m.Funcs[want].Name
			}
			if !ok {
				name = "null"
			}
			return fmt.Errorf("table entry %d is %s, want %s", idx, name, wantName)
		}
	}
	if _, _, err := inst.TableEntry(h.m.Table.Min); err == nil {
		return fmt.Errorf("table entry %d, beyond the table's %d entries, was not refused", h.m.Table.Min, h.m.Table.Min)
	}
	return nil
}
