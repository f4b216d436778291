package jit

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/internal/testprogs"
	kilnrt "github.com/kiln-jit/kiln/runtime"
	"github.com/kiln-jit/kiln/sched"
)

// TestPassesList checks the pipeline each tier and allocation pipeline
// runs, by name and in order.
func TestPassesList(t *testing.T) {
	integrated := []string{"lower", "destruct", "sched.start", "sched.distance", "sched.dataflow", "sched.regions",
		"sched.reconcile", "sched.placement", "check", "encode"}
	for _, tc := range []struct {
		tier     Tier
		pipeline Pipeline
		want     []string
	}{
		{TierBaseline, PipelineIntegrated, []string{"lower", "coalesce", "stack slots", "check", "encode"}},
		{TierOptimizing, PipelineIntegrated, integrated},
		{TierAuto, PipelineIntegrated, integrated},
		{TierOptimizing, PipelineSeparate, []string{"lower", "destruct", "separate", "check", "encode"}},
		{TierOptimizing, PipelineLinearScan, []string{"lower", "destruct", "separate", "check", "encode"}},
	} {
		var got []string
		for _, p := range Passes(tc.tier, tc.pipeline) {
			if p.Doc == "" || !slices.Contains(stageNames[:], p.Stage) {
				t.Errorf("%s: pass %q has doc %q and stage %q", tc.tier, p.Name, p.Doc, p.Stage)
			}
			got = append(got, p.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s pipeline %d: passes %v, want %v", tc.tier, tc.pipeline, got, tc.want)
		}
	}
}

// TestPassSwitches checks that each name DisablePasses takes sets the
// option of the integrated pass it stands for, and that NewEngine
// rejects a name it does not know.
func TestPassSwitches(t *testing.T) {
	for _, tc := range []struct {
		name string
		want sched.Options
	}{
		{"sched.regions/scheduling", sched.Options{SourceOrder: true}},
		{"sched.regions/pressure-wait", sched.Options{NoPressureWait: true}},
		{"sched.regions/hints", sched.Options{NoHints: true}},
		{"sched.reconcile/copy-motion", sched.Options{NoCopyMotion: true}},
		{"sched.reconcile/block-motion", sched.Options{NoBlockMotion: true}},
		{"sched.reconcile/edge-hoisting", sched.Options{NoEdgeHoisting: true}},
		{"sched.reconcile/reload-sinking", sched.Options{NoReloadSinking: true}},
		{"sched.placement", sched.Options{NoPlacement: true}},
	} {
		var got sched.Options
		if err := applyPassSwitches([]string{tc.name}, &got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: options %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if n := len(PassSwitches()); n != 8 {
		t.Errorf("%d switches, the table above tests 8", n)
	}
	_, err := NewEngine(Options{DisablePasses: []string{"sched.placement", "sched.nothing"}})
	if err == nil || !strings.Contains(err.Error(), `"sched.nothing"`) || !strings.Contains(err.Error(), "sched.placement") {
		t.Errorf("unknown pass: error %v, want one naming it and the known ones", err)
	}
}

// TestDisablePassesRun runs every kernel compiled with each part of the
// pipeline turned off, every allocation checked, against its native
// version, and checks that turning off placement leaves nothing placed.
func TestDisablePassesRun(t *testing.T) {
	if !kilnrt.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	ctx := context.Background()
	for _, sw := range PassSwitches() {
		t.Run(sw.Name, func(t *testing.T) {
			e := newEngine(t, Options{Tier: TierOptimizing, CheckAllocations: true, DisablePasses: []string{sw.Name}})
			for _, k := range testprogs.Kernels() {
				mod, err := e.Load(k.Module)
				if err != nil {
					t.Fatal(err)
				}
				if err := mod.CompileError(); err != nil {
					t.Fatalf("%s: %v", k.Name, err)
				}
				st := mod.CompileStats().Sched
				if sw.Name == "sched.placement" && st.PlacedReloadValues+st.PlacedValues+st.OrphansDeleted != 0 {
					t.Errorf("%s: placement off, yet %d reload and %d store values placed, %d orphans deleted", k.Name, st.PlacedReloadValues, st.PlacedValues, st.OrphansDeleted)
				}
				inst, err := mod.Instantiate(nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := inst.Call(ctx, k.Func, k.SmallArgs...)
				if want := k.Native(k.SmallArgs); err != nil || !slices.Equal(got, want) {
					t.Errorf("%s: %v %v, want %v", k.Name, got, err, want)
				}
			}
		})
	}
}

// TestOnPass checks that Options.OnPass hears every pass of every
// function in the pipeline's order, lowering's steps before "lower", with
// the function's IR and, after encoding, its code; and that the compile's
// statistics list the same passes with stage times that add up.
func TestOnPass(t *testing.T) {
	if !kilnrt.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	k := testprogs.Kernels()[0]
	for _, tier := range []Tier{TierBaseline, TierOptimizing} {
		t.Run(tier.String(), func(t *testing.T) {
			var mu sync.Mutex
			heard := map[string][]string{}
			e := newEngine(t, Options{Tier: tier, OnPass: func(ev PassEvent) {
				if (ev.Pass == "encode") != (ev.IR == nil) || (ev.Pass == "encode") != (ev.Code != nil) {
					t.Errorf("%s after %s: IR %v, code %v", ev.Func, ev.Pass, ev.IR != nil, ev.Code != nil)
				}
				mu.Lock()
				heard[ev.Func] = append(heard[ev.Func], ev.Pass)
				mu.Unlock()
			}})
			mod, err := e.Load(k.Module)
			if err != nil {
				t.Fatal(err)
			}
			var want, names []string
			for _, p := range Passes(tier, PipelineIntegrated) {
				if p.Name == "check" {
					continue
				}
				if p.Name == "lower" {
					want = append(want, "lower/ssa", "lower/unreachable", "lower/deadcode")
				}
				want = append(want, p.Name)
				names = append(names, p.Name)
			}
			if len(heard) != len(k.Module.Funcs) {
				t.Fatalf("heard of %d functions, the module has %d", len(heard), len(k.Module.Funcs))
			}
			for fn, got := range heard {
				if !slices.Equal(got, want) {
					t.Errorf("%s: passes %v, want %v", fn, got, want)
				}
			}
			st := mod.CompileStats()
			var got []string
			stages := map[string]time.Duration{}
			for _, p := range st.Passes {
				got = append(got, p.Name)
				for _, q := range Passes(tier, PipelineIntegrated) {
					if q.Name == p.Name {
						stages[q.Stage] += p.Time
					}
				}
			}
			if !slices.Equal(got, names) {
				t.Errorf("CompileStats.Passes %v, want %v", got, names)
			}
			for s, d := range map[string]time.Duration{"lower": st.Lower, "out of SSA": st.OutOfSSA, "alloc": st.Alloc, "encode": st.Encode} {
				if stages[s] != d {
					t.Errorf("stage %s: passes add up to %v, the stage says %v", s, stages[s], d)
				}
			}
		})
	}
}
