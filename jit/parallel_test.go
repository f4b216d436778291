package jit

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	kilnrt "github.com/kiln-jit/kiln/runtime"
)

// TestParallelCompileDeterministic compiles modules of many functions
// (the benchmark kernels, generated modules, many small functions) on
// both compiled tiers, counting edges and not, with one compile worker
// and with four, and requires the same machine code, relocations, trap
// sites and counter layout for every function.
func TestParallelCompileDeterministic(t *testing.T) {
	if !kilnrt.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	mods := map[string]*bytecode.Module{
		"generated-a": testprogs.GeneratedModule(3000, 1),
		"generated-b": testprogs.GeneratedModule(3000, 7),
		"functions":   testprogs.ManyFunctions(3000),
	}
	for _, k := range testprogs.Kernels() {
		mods["kernel-"+k.Name] = k.Module
	}
	names := make([]string, 0, len(mods))
	for name := range mods {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, tier := range []Tier{TierBaseline, TierOptimizing} {
			for _, count := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/count=%v", name, tier, count), func(t *testing.T) {
					var got [2]*compiledModule
					for k, workers := range []int{1, 4} {
						mod, err := newEngine(t, Options{Tier: tier, CountEdges: count, CompileWorkers: workers, keepCode: true}).Load(mods[name])
						if err != nil {
							t.Fatal(err)
						}
						if mod.CompileError() != nil {
							t.Fatal(mod.CompileError())
						}
						got[k] = mod.compiled
					}
					one, four := got[0], got[1]
					if len(one.funcs) != len(four.funcs) || !slices.Equal(one.counterBelow, four.counterBelow) || one.counterWords != four.counterWords {
						t.Fatalf("functions or counter layout differ: %d/%d functions, counters %v/%v", len(one.funcs), len(four.funcs), one.counterBelow, four.counterBelow)
					}
					for i := range one.funcs {
						a, b := one.funcs[i], four.funcs[i]
						if !bytes.Equal(a.Bytes, b.Bytes) || !slices.Equal(a.Relocs, b.Relocs) || !slices.Equal(a.Sites, b.Sites) {
							t.Fatalf("function %d compiles differently with one worker and with four", i)
						}
					}
					if one.stats.CodeBytes != four.stats.CodeBytes || one.stats.Instructions != four.stats.Instructions {
						t.Errorf("statistics differ: %+v / %+v", one.stats, four.stats)
					}
				})
			}
		}
	}
}
