package jit

import (
	"github.com/kiln-jit/kiln/alloc"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// TestDestructShrinksBaselineFrames compiles every function of the shared
// modules with both out-of-SSA choices of the baseline tier and requires
// alloc.Destruct's to need no more stack slots and no more moves than
// naive φ instantiation, and fewer of each over the kernels taken together.
func TestDestructShrinksBaselineFrames(t *testing.T) {
	seen := map[*bytecode.Module]bool{}
	var mods []*bytecode.Module
	for _, k := range testprogs.Kernels() {
		mods = append(mods, k.Module)
		seen[k.Module] = true
	}
	kernels := len(mods)
	for _, c := range testprogs.ProgramCases() {
		if !seen[c.Module] {
			seen[c.Module] = true
			mods = append(mods, c.Module)
		}
	}
	var kernelSlots, kernelMoves [2]int
	for mi, m := range mods {
		for fi := range m.Funcs {
			var slots, moves [2]int
			for i, naive := range []bool{false, true} {
				f, err := lower.Func(m, fi, lower.Options{Target: lower.HostTarget()})
				if err != nil {
					t.Fatal(err)
				}
				a, err := allocBaselineForTest(f, naive)
				if err != nil {
					t.Fatalf("%s naive=%v: %v", m.Funcs[fi].Name, naive, err)
				}
				if err := mir.Verify(a); err != nil {
					t.Fatalf("%s naive=%v: %v", m.Funcs[fi].Name, naive, err)
				}
				slots[i], moves[i] = len(a.Slots), countMoves(a)
			}
			name := m.Funcs[fi].Name
			if slots[0] > slots[1] || moves[0] > moves[1] {
				t.Errorf("%s: Destruct gives %d slots and %d moves, naive %d and %d", name, slots[0], moves[0], slots[1], moves[1])
			}
			if mi < kernels {
				t.Logf("kernel %-10s slots %3d (naive %3d)  moves %4d (naive %4d)", name, slots[0], slots[1], moves[0], moves[1])
				for i := range 2 {
					kernelSlots[i] += slots[i]
					kernelMoves[i] += moves[i]
				}
			}
		}
	}
	if kernelSlots[0] >= kernelSlots[1] || kernelMoves[0] >= kernelMoves[1] {
		t.Errorf("kernels: Destruct gives %d slots and %d moves, naive %d and %d", kernelSlots[0], kernelMoves[0], kernelSlots[1], kernelMoves[1])
	}
}

// countMoves counts the instructions of allocated f that only move data:
// loads of slots, stores to slots, register copies, swaps.
func countMoves(f *mir.Func) int {
	n := 0
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			switch in.Op {
			case mir.OpCopy, mir.OpSpill, mir.OpReload, mir.OpXchg:
				n++
			case mir.OpParCopy:
				n += len(in.Defs)
			}
		}
	}
	return n
}

// allocBaselineForTest takes f out of SSA form and gives every remaining
// virtual register a stack slot, as the baseline tier does.
func allocBaselineForTest(f *mir.Func, naive bool) (*mir.Func, error) {
	g, err := alloc.BaselineOutOfSSA(f, naive, false)
	if err != nil {
		return nil, err
	}
	return alloc.BaselineNonSSA(g)
}
