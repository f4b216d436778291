package jit

import (
	"context"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/internal/testprogs"
)

// TestOptimizeWithProfile runs every kernel in the interpreter, then
// recompiles the instance with the optimizing tier steered by the counts
// it recorded, and checks the results before and after, the tier, and
// that the profile (not the static estimate) weighted the compilation.
func TestOptimizeWithProfile(t *testing.T) {
	ctx := context.Background()
	for _, k := range testprogs.Kernels() {
		t.Run(k.Name, func(t *testing.T) {
			e := newEngine(t, Options{CheckAllocations: true})
			mod, err := e.Load(k.Module)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := mod.Instantiate(nil)
			if err != nil {
				t.Fatal(err)
			}
			want := k.Native(k.SmallArgs)
			got, err := inst.Call(ctx, k.Func, k.SmallArgs...)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("interpreted: %v %v, want %v", got, err, want)
			}
			if inst.Tier() != TierInterp {
				t.Fatalf("tier %s before Optimize", inst.Tier())
			}
			if err := inst.Optimize(); err != nil {
				t.Fatal(err)
			}
			if inst.Tier() != TierOptimizing {
				t.Fatalf("tier %s after Optimize", inst.Tier())
			}
			for _, args := range [][]uint64{k.SmallArgs, k.SmallArgs} {
				got, err := inst.Call(ctx, k.Func, args...)
				if err != nil || !slices.Equal(got, k.Native(args)) {
					t.Fatalf("optimized: %v %v, want %v", got, err, k.Native(args))
				}
			}
			profiled := inst.CompileStats()
			static := newEngine(t, Options{Tier: TierOptimizing}).mustLoad(t, k).CompileStats()
			if profiled.Tier != TierOptimizing || profiled.Functions != static.Functions {
				t.Fatalf("profiled compile stats %+v", profiled)
			}
			if profiled.Sched.WeightedCycles == static.Sched.WeightedCycles {
				t.Errorf("the profile did not change any block frequency (weighted cycles %v both)", profiled.Sched.WeightedCycles)
			}
		})
	}
}

func (e *Engine) mustLoad(t *testing.T, k testprogs.Kernel) *Module {
	t.Helper()
	m, err := e.Load(k.Module)
	if err != nil {
		t.Fatal(err)
	}
	if m.Tier() != TierOptimizing {
		t.Fatalf("module runs in %s: %v", m.Tier(), m.CompileError())
	}
	return m
}
