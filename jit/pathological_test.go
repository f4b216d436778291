package jit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	kilnrt "github.com/kiln-jit/kiln/runtime"
)

// loadCost is what loading one module cost: bytes and objects allocated
// (counted by the Go runtime, so steady from run to run) and wall time.
type loadCost struct {
	bytes, objects uint64
	elapsed        time.Duration
}

// measureLoad loads m on an engine with opts and reports what it cost.
func measureLoad(t testing.TB, opts Options, m *bytecode.Module) (*Module, loadCost) {
	t.Helper()
	e, err := NewEngine(opts)
	if err != nil {
		t.Fatal(err)
	}
	// Two collections empty the pools' caches (they keep objects through
	// one), so that no load reuses what the one before left in a pool.
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	mod, err := e.LoadContext(context.Background(), m)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if opts.Tier != TierInterp && mod.CompileError() != nil {
		t.Fatalf("compile: %v", mod.CompileError())
	}
	return mod, loadCost{after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs, elapsed}
}

// pathologicalTiers are the tiers the pathological suite loads on.
func pathologicalTiers() []Tier {
	if kilnrt.Supported() {
		return []Tier{TierInterp, TierBaseline, TierOptimizing}
	}
	return []Tier{TierInterp}
}

// pathologicalConfigs are the options the pathological suite loads with:
// every tier of pathologicalTiers, the interpreter first, and the compiled
// tiers also with edge counting (CountEdges, as every tier-up of TierAuto
// compiles), whose plan and counting code are paths of their own.
func pathologicalConfigs() []Options {
	var configs []Options
	for _, tier := range pathologicalTiers() {
		configs = append(configs, Options{Tier: tier})
		if tier != TierInterp {
			configs = append(configs, Options{Tier: tier, CountEdges: true})
		}
	}
	return configs
}

// configName names a configuration of pathologicalConfigs.
func configName(opts Options) string {
	if opts.CountEdges {
		return opts.Tier.String() + "+counting"
	}
	return opts.Tier.String()
}

// runMain calls main(0x5a5a) on a fresh instance and returns its result or
// the trap kind as text, for comparing tiers.
func runMain(t testing.TB, mod *Module) string {
	t.Helper()
	inst, err := mod.Instantiate(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := inst.Call(context.Background(), "main", I64(0x5a5a))
	var trap *bytecode.Trap
	switch {
	case errors.As(err, &trap):
		return "trap: " + trap.Kind.String()
	case err != nil:
		t.Fatalf("call: %v", err)
	}
	return fmt.Sprint(int64(res[0]))
}

// TestPathologicalScaling loads every pathological shape on every tier at
// 10k and 100k instructions, checks that the tiers compute the same result,
// and fails when the memory allocated (bytes or objects) grows more than
// 20 times from 10k to 100k: every analysis on the load and compile paths
// must be near-linear on every shape. Allocation counts are steady where
// wall time on this kind of machine is not; the benchmark reports time.
func TestPathologicalScaling(t *testing.T) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = []int{1_000, 10_000}
	}
	const maxGrowth = 20
	for _, shape := range testprogs.Pathological {
		t.Run(shape.Name, func(t *testing.T) {
			var small, large *bytecode.Module = shape.Build(sizes[0]), shape.Build(sizes[1])
			// The interpreter's results, which every compiled tier must
			// compute; pathologicalTiers lists the interpreter first.
			var wantS, wantL string
			for _, opts := range pathologicalConfigs() {
				tier := opts.Tier
				modS, costS := measureLoad(t, opts, small)
				modL, costL := measureLoad(t, opts, large)
				nS, nL := small.Instructions(), large.Instructions()
				t.Logf("%-16s %7d instrs: %6.0f B/instr %5.1f objs/instr %6.2f µs/instr | %7d instrs: %6.0f B/instr %5.1f objs/instr %6.2f µs/instr",
					configName(opts), nS, float64(costS.bytes)/float64(nS), float64(costS.objects)/float64(nS), float64(costS.elapsed.Microseconds())/float64(nS),
					nL, float64(costL.bytes)/float64(nL), float64(costL.objects)/float64(nL), float64(costL.elapsed.Microseconds())/float64(nL))
				if g := float64(costL.bytes) / float64(costS.bytes); g > maxGrowth {
					t.Errorf("%s: bytes allocated grow %.1f× from %d to %d instructions (limit %d×)", configName(opts), g, nS, nL, maxGrowth)
				}
				if g := float64(costL.objects) / float64(costS.objects); g > maxGrowth {
					t.Errorf("%s: objects allocated grow %.1f× from %d to %d instructions (limit %d×)", configName(opts), g, nS, nL, maxGrowth)
				}
				if tier == TierInterp {
					wantS, wantL = runMain(t, modS), runMain(t, modL)
					continue
				}
				if got := runMain(t, modS); got != wantS {
					t.Errorf("%s at %d instructions: main = %s, interpreter %s", configName(opts), nS, got, wantS)
				}
				if got := runMain(t, modL); got != wantL {
					t.Errorf("%s at %d instructions: main = %s, interpreter %s", configName(opts), nL, got, wantL)
				}
			}
		})
	}
}

// BenchmarkPathological loads every shape with every configuration of
// pathologicalConfigs at 1k, 10k and 100k instructions and reports the
// cost per instruction.
func BenchmarkPathological(b *testing.B) {
	for _, shape := range testprogs.Pathological {
		for _, n := range []int{1_000, 10_000, 100_000} {
			benchmarkLoads(b, fmt.Sprintf("%s/%d", shape.Name, n), shape.Build(n))
		}
	}
}

// benchmarkLoads loads m with every configuration of pathologicalConfigs,
// as sub-benchmarks of b named after name, and reports the cost per
// bytecode instruction.
func benchmarkLoads(b *testing.B, name string, m *bytecode.Module) {
	instrs := m.Instructions()
	for _, opts := range pathologicalConfigs() {
		b.Run(name+"/"+configName(opts), func(b *testing.B) {
			var total loadCost
			for range b.N {
				_, c := measureLoad(b, opts, m)
				total.bytes += c.bytes
				total.elapsed += c.elapsed
			}
			per := float64(b.N) * float64(instrs)
			b.ReportMetric(float64(total.elapsed.Nanoseconds())/per, "ns/instr")
			b.ReportMetric(float64(total.bytes)/per, "B/instr")
		})
	}
}

// BenchmarkSwitchScaling loads the switch shapes with 1k, 10k and 65,536
// distinct cases (one full switch table: bytecode.MaxSwitchTable) with
// every configuration of pathologicalConfigs: the time per instruction
// must stay flat as the cases grow, with edge counting on and off.
func BenchmarkSwitchScaling(b *testing.B) {
	shapes := []struct {
		name  string
		build func(int) *bytecode.Module
		per   int // instructions per case
	}{
		{"switch", testprogs.HugeSwitch, 3},
		{"switchloop", testprogs.SwitchLoop, 5},
		{"switchcalls", testprogs.SwitchCalls, 5},
		{"switchfall", testprogs.SwitchFallthrough, 3},
	}
	for _, sh := range shapes {
		for _, cases := range []int{1_000, 10_000, bytecode.MaxSwitchTable} {
			benchmarkLoads(b, fmt.Sprintf("%s/%d", sh.name, cases), sh.build(sh.per*cases))
		}
	}
}

// TestLoadedModuleRetainsLittle loads the deep loop nest at two sizes on
// every tier and bounds what a loaded module keeps on the heap for each
// further instruction once the load's garbage is collected: the prepared
// interpreter code and the block layout, the bytecode packed, and for the
// compiled tiers what the running code needs (trap sites, counters); not
// the bytecode as instructions, the machine IR or the compile's tables.
// Retained bytes are steady from run to run, where the resident peak is
// not; the difference of two sizes leaves out what every load keeps
// whatever its size (pooled assemblers, exit stubs).
func TestLoadedModuleRetainsLittle(t *testing.T) {
	sizes := [2]int{10_000, 100_000}
	if testing.Short() {
		sizes = [2]int{10_000, 40_000}
	}
	const maxPerInstr = 200
	for _, tier := range pathologicalTiers() {
		var retained, instrs [2]float64
		var mods [2]*Module
		for i, n := range sizes {
			m := testprogs.DeepNest(n)
			instrs[i] = float64(m.Instructions())
			e := newEngine(t, Options{Tier: tier})
			// Two collections empty the pools' caches (they keep objects
			// through one), so that neither reading counts what an
			// earlier load left in a pool.
			runtime.GC()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			mod, err := e.Load(m)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(m) // the caller's module is not the loaded one's
			retained[i] = float64(after.HeapAlloc) - float64(before.HeapAlloc)
			mods[i] = mod
		}
		per := (retained[1] - retained[0]) / (instrs[1] - instrs[0])
		t.Logf("%s: %.0f bytes retained per further instruction (%.0f and %.0f bytes for %.0f and %.0f instructions)",
			tier, per, retained[0], retained[1], instrs[0], instrs[1])
		if per > maxPerInstr {
			t.Errorf("%s: a loaded module retains %.0f bytes per further instruction (limit %d)", tier, per, maxPerInstr)
		}
		runtime.KeepAlive(mods)
	}
}
