package jit

import (
	"context"
	"errors"
	"hash/fnv"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/runtime"
)

// tierConfig is one way of running a module: a tier and the options that
// choose its pipeline.
type tierConfig struct {
	name string
	opts Options
}

// tierConfigs lists the configurations every shared case runs in; the
// first is the reference the others are compared with.
var tierConfigs = []tierConfig{
	{"interp", Options{Tier: TierInterp}},
	{"baseline", Options{Tier: TierBaseline}},
	{"baseline-naive", Options{Tier: TierBaseline, NaiveOutOfSSA: true}},
	{"optimizing", Options{Tier: TierOptimizing, CheckAllocations: true}},
	{"optimizing-source", Options{Tier: TierOptimizing, SourceOrderSchedule: true, CheckAllocations: true}},
	{"optimizing-separate", Options{Tier: TierOptimizing, Pipeline: PipelineSeparate, CheckAllocations: true}},
	// Every block its own chunk (encode.Options.ChunkInstrs): branches
	// between chunks, stubs after each chunk.
	{"baseline-chunked", Options{Tier: TierBaseline, chunkInstrs: 1}},
	{"optimizing-chunked", Options{Tier: TierOptimizing, CheckAllocations: true, chunkInstrs: 1}},
	// The other spill heuristics.
	{"optimizing-ed", Options{Tier: TierOptimizing, SpillHeuristic: SpillExpectedDistance, CheckAllocations: true}},
	{"optimizing-nnu", Options{Tier: TierOptimizing, SpillHeuristic: SpillNearestUse, CheckAllocations: true}},
	{"optimizing-noplace", Options{Tier: TierOptimizing, NoSpillPlacement: true, CheckAllocations: true}},
	// Tier-up after every instance's first call: the first call of each
	// instance is interpreted, the later ones run optimized code.
	{"auto", Options{Tier: TierAuto, SynchronousTierUp: true, TierUpCalls: 1, CheckAllocations: true}},
	// Mixed modules: about half the functions (by a hash of the name)
	// stay interpreted and call compiled code and back.
	{"baseline-mixed", Options{Tier: TierBaseline, Interpreted: halfByName}},
	{"optimizing-mixed", Options{Tier: TierOptimizing, CheckAllocations: true, Interpreted: halfByName}},
}

// halfByName keeps about half the functions of a module interpreted, by a
// hash of their names.
func halfByName(name string) bool {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()&1 == 0
}

// benchConfigs are the configurations the benchmarks compare: the tiers
// and pipelines, without the ones that only exercise the encoder.
var benchConfigs = tierConfigs[:6]

// with returns o with the configuration's tier and pipeline choices.
func (c tierConfig) with(o Options) Options {
	o.Tier, o.NaiveOutOfSSA, o.SourceOrderSchedule = c.opts.Tier, c.opts.NaiveOutOfSSA, c.opts.SourceOrderSchedule
	o.Pipeline, o.chunkInstrs, o.SpillHeuristic = c.opts.Pipeline, c.opts.chunkInstrs, c.opts.SpillHeuristic
	o.NoSpillPlacement, o.Interpreted = c.opts.NoSpillPlacement, c.opts.Interpreted
	o.SynchronousTierUp, o.TierUpCalls = c.opts.SynchronousTierUp, c.opts.TierUpCalls
	o.CheckAllocations = true
	return o
}

// TestSharedCasesInEveryTier runs the shared table of cases (every
// instruction's semantics with its edge cases, the programs and the
// kernels at several inputs) through the embedding API in every tier.
func TestSharedCasesInEveryTier(t *testing.T) {
	cases := testprogs.AllCases()
	for _, cfg := range tierConfigs {
		tier := cfg.opts.Tier
		t.Run(cfg.name, func(t *testing.T) {
			e := newEngine(t, cfg.opts)
			mods := map[*bytecode.Module]*Module{}
			for _, c := range cases {
				mod, ok := mods[c.Module]
				if !ok {
					var err error
					if mod, err = e.Load(c.Module); err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					if mod.Tier() != tier {
						t.Fatalf("%s: module runs in tier %s (%v), want %s", c.Name, mod.Tier(), mod.CompileError(), tier)
					}
					mods[c.Module] = mod
				}
				runCase(t, mod, c)
			}
		})
	}
}

// TestSharedCasesWithoutOptionalFeatures compiles the shared cases for
// plain SSE2 x86-64 (software bit counts, no rounding instructions): a
// module that needs a missing feature runs interpreted and says why; every
// case gives the same answer either way.
func TestSharedCasesWithoutOptionalFeatures(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	e := newEngine(t, Options{Tier: TierBaseline, Features: &lower.Target{}})
	mods := map[*bytecode.Module]*Module{}
	compiled, fellBack := 0, 0
	for _, c := range testprogs.AllCases() {
		mod, ok := mods[c.Module]
		if !ok {
			var err error
			if mod, err = e.Load(c.Module); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			switch mod.Tier() {
			case TierBaseline:
				compiled++
			default:
				if !errors.Is(mod.CompileError(), lower.ErrUnsupported) {
					t.Fatalf("%s: not compiled: %v", c.Name, mod.CompileError())
				}
				fellBack++
			}
			mods[c.Module] = mod
		}
		runCase(t, mod, c)
	}
	if compiled == 0 || fellBack == 0 {
		t.Errorf("%d modules compiled, %d fell back to the interpreter; want some of each", compiled, fellBack)
	}
	t.Logf("%d modules compiled for SSE2, %d need SSE4.1 and stayed interpreted", compiled, fellBack)
}

// runCase calls case c on a new instance of mod and checks the outcome.
func runCase(t *testing.T, mod *Module, c testprogs.Case) {
	t.Helper()
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	got, err := inst.Call(context.Background(), c.Func, c.Args...)
	if err := c.Check(got, err, inst.Memory()); err != nil {
		t.Errorf("%s: %v", c.Name, err)
	}
}
