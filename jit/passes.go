package jit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/sched"
)

// The compiled tiers' pipeline is one list of passes, from lowering to
// encoding (passes, below), as Go's compiler keeps its pass table: every
// compile of a function (at load, at a tier-up, at a re-optimization, for
// Instance.Optimize) runs the rows of the list that apply to its tier and
// allocation pipeline, in order, timing each into CompileStats.Passes
// and its stage, checking for cancellation between them, and telling
// Options.OnPass what each left, for dumps. The integrated pass's steps
// (sched.Steps) are rows of their own. Options.DisablePasses turns off a
// row or a part of one by the names of passSwitches.

// Pass describes a pass of the compiled tiers' pipeline (see Passes).
type Pass struct {
	// Name names the pass: "lower", "destruct", "sched.regions", ...
	Name string
	// Doc says what it does.
	Doc string
	// Stage is the CompileStats field its time is part of: "lower",
	// "out of SSA", "alloc", "check" or "encode".
	Stage string
}

// PassSwitch names what Options.DisablePasses can turn off: a pass, or
// a part of one ("sched.reconcile/copy-motion").
type PassSwitch struct {
	Name string
	Doc  string
}

// PassTime is the time a pass took, summed over a compile's functions.
type PassTime struct {
	Name string
	Time time.Duration
}

// PassEvent is what Options.OnPass hears after a pass of a function's
// compile.
type PassEvent struct {
	// Func is the function's name, Pass the pass's (a sub-step of
	// lowering is "lower/ssa", "lower/unreachable", "lower/deadcode").
	Func, Pass string
	// IR is the function as the pass left it, still being worked on: the
	// hook must not modify it, and must Clone it to keep it past the
	// call. Nil after encoding, with Code set instead.
	IR *mir.Func
	// Code is the encoded function, after "encode".
	Code *encode.Code
}

// stage is a CompileStats stage field.
type stage int

const (
	stageLower stage = iota
	stageOutOfSSA
	stageAlloc
	stageCheck
	stageEncode
)

var stageNames = [...]string{"lower", "out of SSA", "alloc", "check", "encode"}

// field returns the CompileStats field of the stage.
func (s stage) field(st *CompileStats) *time.Duration {
	return [...]*time.Duration{&st.Lower, &st.OutOfSSA, &st.Alloc, &st.Check, &st.Encode}[s]
}

// pass is a row of the pipeline.
type pass struct {
	name, doc string
	stage     stage
	// applies reports whether the pass runs in a compile of cfg.
	applies func(cfg *compileConfig) bool
	run     func(c *funcCompile) error
	// step is the integrated pass's step the row runs (run is nil).
	step *sched.Step
}

// passes is the pipeline of the compiled tiers.
var passes = slices.Concat([]pass{
	{name: "lower", stage: stageLower, applies: always, run: (*funcCompile).lowerPass,
		doc: "SSA construction, instruction selection, unreachable blocks and dead code removed (package lower); the compile memory bound on the live sets"},
	{name: "coalesce", stage: stageOutOfSSA, applies: baselineOnly, run: (*funcCompile).coalesce,
		doc: "out of SSA by copy coalescing, or by naive φ instantiation (Options.NaiveOutOfSSA) (alloc.BaselineOutOfSSA)"},
	{name: "destruct", stage: stageOutOfSSA, applies: optimizingOnly, run: (*funcCompile).destruct,
		doc: "out of SSA by fast copy coalescing with renaming constraints resolved by pinning (alloc.Destruct)"},
	{name: "stack slots", stage: stageAlloc, applies: baselineOnly, run: (*funcCompile).stackSlots,
		doc: "every value in a stack slot, operands in scratch registers (alloc.BaselineNonSSA)"},
	{name: "sched.start", stage: stageAlloc, applies: integrated, run: (*funcCompile).schedStart,
		doc: "the integrated pass's checks and tables (sched.Start)"},
}, schedStepPasses(), []pass{
	{name: "separate", stage: stageAlloc, applies: separate, run: (*funcCompile).separate,
		doc: "prepass list scheduling, linear scan, postpass scheduling, or linear scan alone (sched.Separate, sched.LinearScanOnly; Options.Pipeline)"},
	{name: "check", stage: stageCheck, applies: func(cfg *compileConfig) bool { return cfg.check }, run: (*funcCompile).check,
		doc: "the allocation checker (alloc.CheckAllocation; Options.CheckAllocations)"},
	{name: "encode", stage: stageEncode, applies: always, run: (*funcCompile).encodePass,
		doc: "block layout, x86-64 machine code, exits, constant pool and jump tables (package encode)"},
})

// schedStepPasses returns a row for each step of the integrated pass.
func schedStepPasses() []pass {
	rows := make([]pass, len(sched.Steps))
	for i := range sched.Steps {
		s := &sched.Steps[i]
		rows[i] = pass{name: "sched." + s.Name, doc: s.Doc, stage: stageAlloc, applies: integrated, step: s}
	}
	return rows
}

func always(*compileConfig) bool           { return true }
func baselineOnly(cfg *compileConfig) bool { return cfg.tier != TierOptimizing }
func optimizingOnly(cfg *compileConfig) bool {
	return cfg.tier == TierOptimizing
}
func integrated(cfg *compileConfig) bool {
	return cfg.tier == TierOptimizing && cfg.pipeline == PipelineIntegrated
}
func separate(cfg *compileConfig) bool {
	return cfg.tier == TierOptimizing && cfg.pipeline != PipelineIntegrated
}

// Passes returns the passes a compile for tier (TierBaseline or
// TierOptimizing; TierAuto compiles for TierOptimizing) with pipeline runs,
// in order, the allocation checker included.
func Passes(tier Tier, pipeline Pipeline) []Pass {
	if tier == TierAuto {
		tier = TierOptimizing
	}
	cfg := &compileConfig{tier: tier, pipeline: pipeline, check: true}
	var out []Pass
	for i := range passes {
		if p := &passes[i]; p.applies(cfg) {
			out = append(out, Pass{Name: p.name, Doc: p.doc, Stage: stageNames[p.stage]})
		}
	}
	return out
}

// passSwitch is a name Options.DisablePasses takes and what it does to the
// integrated pass's options.
type passSwitch struct {
	name, doc string
	off       func(o *sched.Options)
}

// passSwitches are the parts of the pipeline that can be turned off, for
// measuring what each costs and gains (the ablation of the integrated
// pass). The older Options booleans (SourceOrderSchedule,
// NoPressureWait, NoSpillPlacement, NoCopyMotion) are the same switches.
var passSwitches = []passSwitch{
	{name: "sched.regions/scheduling", doc: "latency-driven list scheduling: off keeps each block's instructions in their input order, registers still assigned together",
		off: func(o *sched.Options) { o.SourceOrder = true }},
	{name: "sched.regions/pressure-wait", doc: "waiting for instructions in flight rather than evicting a value for a ready one",
		off: func(o *sched.Options) { o.NoPressureWait = true }},
	{name: "sched.regions/hints", doc: "register hints that carry a value's register across regions",
		off: func(o *sched.Options) { o.NoHints = true }},
	{name: "sched.reconcile/copy-motion", doc: "parallel copy motion of the reconciliation moves off critical edges",
		off: func(o *sched.Options) { o.NoCopyMotion = true }},
	{name: "sched.reconcile/block-motion", doc: "sliding moved copies to the cheapest point inside their block",
		off: func(o *sched.Options) { o.NoBlockMotion = true }},
	{name: "sched.reconcile/edge-hoisting", doc: "critical edges' stores and free-register reloads put at the end of the edge's source",
		off: func(o *sched.Options) { o.NoEdgeHoisting = true }},
	{name: "sched.reconcile/reload-sinking", doc: "a value's moves and reloads on a join's in-edges replaced by one reload at its top",
		off: func(o *sched.Options) { o.NoReloadSinking = true }},
	{name: "sched.placement", doc: "spill stores and reloads moved by minimum cuts (the whole step)",
		off: func(o *sched.Options) { o.NoPlacement = true }},
}

// PassSwitches returns the names Options.DisablePasses takes.
func PassSwitches() []PassSwitch {
	out := make([]PassSwitch, len(passSwitches))
	for i, s := range passSwitches {
		out[i] = PassSwitch{Name: s.name, Doc: s.doc}
	}
	return out
}

// applyPassSwitches turns off in o what names say, or says which name it
// does not know.
func applyPassSwitches(names []string, o *sched.Options) error {
	for _, n := range names {
		k := slices.IndexFunc(passSwitches, func(s passSwitch) bool { return s.name == n })
		if k < 0 {
			known := make([]string, len(passSwitches))
			for i, s := range passSwitches {
				known[i] = s.name
			}
			return fmt.Errorf("jit: DisablePasses: unknown pass or part %q (known: %s)", n, strings.Join(known, ", "))
		}
		passSwitches[k].off(o)
	}
	return nil
}

// funcCompile is one function's compile going through the pipeline.
type funcCompile struct {
	cfg       *compileConfig
	m         *bytecode.Module
	fn        int
	lowerOpts lower.Options
	// instrs is the function's number of bytecode instructions.
	instrs int
	// f is the function as the passes so far left it; pre the
	// allocation's input as it was, for the checker.
	f, pre     *mir.Func
	origins    *alloc.Origins
	run        *sched.Run
	sched      sched.Stats
	encodeOpts encode.Options
	code       *encode.Code
	// params and results are the function's register classes.
	params, results []mir.Class
}

// compileFunc runs the pipeline over c's function, adding the passes'
// times to st (st.Passes, in the pipeline's order, and the stages).
func (c *funcCompile) compile(ctx interface{ Err() error }, st *CompileStats) (err error) {
	defer func() {
		if c.run != nil {
			c.run.Close()
			c.run = nil
		}
	}()
	name := c.m.Funcs[c.fn].Name
	k := 0
	for i := range passes {
		p := &passes[i]
		if !p.applies(c.cfg) {
			continue
		}
		start := time.Now()
		if p.step != nil {
			err = c.run.Do(p.step)
		} else {
			err = p.run(c)
		}
		d := time.Since(start)
		if err != nil {
			return err
		}
		if k == len(st.Passes) {
			st.Passes = append(st.Passes, PassTime{Name: p.name})
		}
		st.Passes[k].Time += d
		k++
		*p.stage.field(st) += d
		if c.cfg.onPass != nil {
			ev := PassEvent{Func: name, Pass: p.name, IR: c.f}
			if c.run != nil {
				ev.IR = c.run.Func()
			}
			if c.code != nil {
				ev.IR, ev.Code = nil, c.code
			}
			c.cfg.onPass(ev)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("jit: compile %s: %w", name, err)
		}
	}
	st.Sched.Add(&c.sched) // zero for the baseline
	return nil
}

func (c *funcCompile) lowerPass() error {
	opts := c.lowerOpts
	if hook := c.cfg.onPass; hook != nil {
		name := c.m.Funcs[c.fn].Name
		opts.OnPass = func(pass string, f *mir.Func) { hook(PassEvent{Func: name, Pass: "lower/" + pass, IR: f}) }
	}
	f, err := lower.Func(c.m, c.fn, opts)
	if err != nil {
		return err
	}
	if err := c.cfg.checkLiveSets(c.m.Funcs[c.fn], c.instrs, f); err != nil {
		return err
	}
	c.f, c.params, c.results = f, f.Params, f.Results
	return nil
}

// The SSA form is garbage once it is out of SSA: nothing below refers to
// it, so a large function's SSA form is not kept through allocation and
// encoding.

func (c *funcCompile) coalesce() error {
	g, err := alloc.BaselineOutOfSSA(c.f, c.cfg.naive, true)
	if err != nil {
		return err
	}
	c.f = g
	return nil
}

func (c *funcCompile) destruct() error {
	d, err := alloc.Destruct(c.f, alloc.DestructOptions{InPlace: true})
	if err != nil {
		return err
	}
	c.f = d.Func
	return nil
}

func (c *funcCompile) stackSlots() error {
	g := c.f
	if c.cfg.check {
		c.pre = g.Clone() // the baseline allocates g in place
	}
	var err error
	if c.cfg.check {
		c.f, c.origins, err = alloc.BaselineNonSSAWithOrigins(g)
	} else {
		c.f, err = alloc.BaselineNonSSA(g) // no origins: nothing reads them
	}
	return err
}

func (c *funcCompile) schedStart() error {
	// The pass makes its result out of its input's instructions; the
	// checker needs the input as it was.
	in, opts := c.f, c.cfg.sched
	opts.InPlace = true
	if c.cfg.check {
		c.pre = in.Clone()
	}
	r, err := sched.Start(in, opts)
	if err != nil {
		return err
	}
	c.run = r
	return nil
}

// takeSched ends the integrated pass: its result becomes the function.
func (c *funcCompile) takeSched() {
	if c.run == nil {
		return
	}
	r := c.run.Result()
	c.f, c.origins, c.sched = r.Func, r.Origins, r.Stats
	c.run.Close()
	c.run = nil
}

func (c *funcCompile) separate() error {
	run := sched.Separate
	if c.cfg.pipeline == PipelineLinearScan {
		run = sched.LinearScanOnly
	}
	c.pre = c.f
	sr, err := run(c.f, c.cfg.sched)
	if err != nil {
		return err
	}
	c.f, c.origins, c.sched = sr.Func, sr.Origins, sr.Stats
	return nil
}

func (c *funcCompile) check() error {
	c.takeSched()
	if err := alloc.CheckAllocation(c.pre, c.f, c.origins); err != nil {
		return fmt.Errorf("jit: %s: %w", c.m.Funcs[c.fn].Name, err)
	}
	c.pre = nil
	return nil
}

func (c *funcCompile) encodePass() error {
	c.takeSched()
	opts := c.encodeOpts
	opts.Consume = true // the function is not used after it is encoded
	code, err := encode.FuncOptions(c.f, opts)
	if err != nil {
		return err
	}
	c.f, c.code = nil, code
	return nil
}
