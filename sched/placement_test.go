package sched

import (
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/mir"
)

// weightedStores sums the block frequencies of f's stores to stack slots.
func weightedStores(f *mir.Func) (n int, w float64) {
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == mir.OpSpill && in.Defs[0].IsSlot() {
				n++
				w += b.Freq
			}
		}
	}
	return n, w
}

// TestStorePlacement allocates every kernel with few registers, with and
// without store placement, and checks that placement never executes more
// stores by the block frequencies, that it reports what it did, that both
// allocations pass the checker, and that both run to the kernel's result
// in the machine-IR interpreter. On sieve it must move the store of the
// value evicted in the first loop to its definition.
func TestStorePlacement(t *testing.T) {
	moved := map[string]bool{}
	for _, k := range testprogs.Kernels() {
		pre := destructModule(t, k.Module)
		var outs [2][]*mir.Func
		for p, noPlace := range []bool{true, false} {
			for _, f := range pre {
				r, err := Allocate(f, Options{Regs: tightRegs, Oracle: OracleED, NoPlacement: noPlace})
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
					t.Fatalf("%s (placement %v): %v", f.Name, !noPlace, err)
				}
				st := r.Stats
				if noPlace && st.PlacedValues != 0 {
					t.Errorf("%s: placement off, yet %d values placed", f.Name, st.PlacedValues)
				}
				if !noPlace && st.PlacedValues > 0 {
					moved[k.Name] = true
					if st.WeightedPlacementGain <= 0 || st.PlacedStoresRemoved == 0 || st.PlacedStoresAdded == 0 {
						t.Errorf("%s: placement stats %+v", f.Name, st)
					}
				}
				outs[p] = append(outs[p], r.Func)
			}
		}
		for i := range pre {
			_, wOff := weightedStores(outs[0][i])
			_, wOn := weightedStores(outs[1][i])
			if wOn > wOff+1e-9 {
				t.Errorf("%s: %.2f weighted stores with placement, %.2f without", pre[i].Name, wOn, wOff)
			}
		}
		want := k.Native(k.SmallArgs)
		for p := range outs {
			got, err, _ := testrun.MIR(t, k.Module, outs[p], k.Func, k.SmallArgs)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("%s (placement %v): %v %v, want %v", k.Name, p == 1, got, err, want)
			}
		}
	}
	if !moved["sieve"] {
		t.Errorf("no store moved in sieve; moved in %v", moved)
	}
}

// TestEdgeCodePlacement checks the reconciliation code secondPass keeps
// off critical edges: code that fits at the end of the edge's source
// (codeFitsSource) and reloads sunk to the top of a join (sinkReloads).
// The allocation checker accepts every function, its code computes the
// interpreter's results, and some kernels with few registers use both.
func TestEdgeCodePlacement(t *testing.T) {
	hoisted, sunk := map[string]int{}, map[string]int{}
	for _, k := range testprogs.Kernels() {
		var outs []*mir.Func
		for _, f := range destructModule(t, k.Module) {
			r, err := Allocate(f, Options{Regs: tightRegs})
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if n := r.Stats.HoistedEdgeCode; n > 0 {
				hoisted[k.Name] += n
			}
			if n := r.Stats.SunkReloads; n > 0 {
				sunk[k.Name] += n
			}
			outs = append(outs, r.Func)
		}
		want := k.Native(k.SmallArgs)
		if got, err, _ := testrun.MIR(t, k.Module, outs, k.Func, k.SmallArgs); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v %v, want %v", k.Name, got, err, want)
		}
	}
	if len(hoisted) == 0 {
		t.Error("no kernel put the code of a critical edge at the end of its source")
	}
	if len(sunk) == 0 {
		t.Error("no kernel reloaded a value at the top of a join")
	}
	t.Logf("instructions hoisted off critical edges: %v; reloads sunk to joins: %v", hoisted, sunk)
}

// TestStoreCut checks the store problem's parts on a hand-made graph: a
// value defined in a cold block (d0) whose value reaches a hot store (s0),
// and in a hot block (d1) whose value reaches only a cold store (s1). Every
// store kept costs 10+1, a store after every definition 1+10; the minimum
// cut stores after d0 and keeps s1, costing 2.
//
//	b0 -> b1 (d0, freq 1) -> b3 (s0, freq 10)
//	b0 -> b2 (d1, freq 10) -> b4 (s1, freq 1)
//	b3 -> b5 (d0's value again: a definition first), b4 -> b5
func TestStoreCut(t *testing.T) {
	f := &mir.Func{}
	for i, blk := range []struct {
		succs []int
		freq  float64
	}{{[]int{1, 2}, 11}, {[]int{3}, 1}, {[]int{4}, 10}, {[]int{5}, 10}, {[]int{5}, 1}, {nil, 11}} {
		f.Blocks = append(f.Blocks, &mir.Block{ID: i, Succs: blk.succs, Freq: blk.freq})
	}
	defs := []placeAt{{1, 0}, {2, 0}, {5, 0}}
	stores := []placeAt{{3, 0}, {4, 2}}
	pairs, ok := newStoreReach(f).pairs(defs, stores)
	if !ok {
		t.Fatal("a store is reached by no definition")
	}
	want := [][]int32{{0}, {1}, nil}
	for i := range want {
		if !slices.Equal(pairs[i], want[i]) {
			t.Fatalf("definition %d reaches stores %v, want %v", i, pairs[i], want[i])
		}
	}
	a := &allocator{}
	ds := []placeDef{{at: defs[0]}, {at: defs[1]}, {at: defs[2]}}
	keep, cutDefs, gain := a.cutStores(ds, stores, pairs, f)
	if !slices.Equal(keep, []bool{false, true}) || !slices.Equal(cutDefs, []int{0}) || gain != 9 {
		t.Errorf("keep %v, store after definitions %v, gain %v; want keep [false true], after [0], gain 9", keep, cutDefs, gain)
	}
	if a.stats.PlacementCuts != 1 {
		t.Errorf("%d cuts counted, want 1", a.stats.PlacementCuts)
	}
	// A store that no definition reaches leaves the value alone.
	if _, ok := newStoreReach(f).pairs(defs[1:3], stores); ok {
		t.Error("a store reached by no definition was accepted")
	}
	// In a self-loop, each definition reaches the stores up to the next
	// definition, around the loop too.
	g := &mir.Func{Blocks: []*mir.Block{{ID: 0, Succs: []int{0}, Freq: 1}}}
	pairs, ok = newStoreReach(g).pairs([]placeAt{{0, 3}, {0, 7}}, []placeAt{{0, 1}, {0, 5}, {0, 9}})
	if !ok || !slices.Equal(pairs[0], []int32{1}) || !slices.Equal(pairs[1], []int32{2, 0}) {
		t.Errorf("self-loop: pairs %v, %v; want [[1] [2 0]]", pairs, ok)
	}
	// With one definition every store holds its value.
	if pairs, ok := newStoreReach(g).pairs([]placeAt{{0, 3}}, []placeAt{{0, 1}, {0, 5}}); !ok || !slices.Equal(pairs[0], []int32{0, 1}) {
		t.Errorf("one definition: pairs %v, %v; want [[0 1]]", pairs, ok)
	}
}
