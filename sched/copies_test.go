package sched

import (
	"testing"

	"github.com/kiln-jit/kiln/mir"
)

// copyDefSrc is a loop nest whose outer loop carries v2 (a φ web: the
// latch defines it by a copy) through an inner loop that does not read
// it; with three general-purpose registers the inner loop evicts v2 or
// another value.
const copyDefSrc = `func copydef #0 (gpr) -> (gpr) nonssa
  vregs 8
  pins v0=rdi v7=rax
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $0
  v2:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0,b4 freq=10
  v3:gpr = MOVQconst $0
  JMP -> b2 1
b2: preds=b1,b3 freq=1000
  v4:gpr = Copy v3
  v4:gpr = ADDQ v4, v3
  v5:gpr = Copy v4
  v5:gpr = ADDQ v5, v1
  v3:gpr = LEAQ v3, $1
  CMPQ v3, v0
  JCC.l -> b3 0.99, b4 0.01
b3: preds=b2 freq=990
  JMP -> b2 1
b4: preds=b2 freq=10
  v6:gpr = Copy v2
  v6:gpr = ADDQ v6, v5
  v1:gpr = LEAQ v1, $1
  v2:gpr = Copy v6
  CMPQ v1, v0
  JCC.l -> b1 0.9, b5 0.1
b5: preds=b4 freq=1
  v7:gpr = Copy v2
  RET v7
end
`

// TestCopyDefinitionStores allocates copyDefSrc with three
// general-purpose registers (tightRegs) and checks that every spill store
// executes outside the inner loop once placement has run (the value the outer latch's copy defines is stored
// after that copy, not where the inner loop evicts it), that placement
// stored values after definitions, and that no definition mark is left in
// the output.
func TestCopyDefinitionStores(t *testing.T) {
	f := parseFunc(t, copyDefSrc)
	for _, oracle := range VictimOracles {
		for _, noPlace := range []bool{true, false} {
			r := allocateChecked(t, pipelines[0], f, Options{Regs: tightRegs, Oracle: oracle, NoPlacement: noPlace})
			inLoop := 0
			for b, blk := range r.Func.Blocks {
				for _, in := range blk.Instrs {
					if in.Op == mir.OpCopy && in.Defs[0] == in.Uses[0] {
						t.Errorf("%v (placement %v): b%d keeps %s = Copy %s", oracle, !noPlace, b, in.Defs[0], in.Uses[0])
					}
					if in.Op == mir.OpSpill && in.Defs[0].IsSlot() && blk.Freq >= 990 {
						inLoop++
					}
				}
			}
			t.Logf("%v placement %v: %d stores in the inner loop, %d placed, %+v", oracle, !noPlace, inLoop, r.Stats.PlacedStoresAdded, r.Stats.PlacedValues)
			if !noPlace && inLoop > 0 {
				t.Errorf("%v: %d stores left in the inner loop\n%s", oracle, inLoop, mir.Format(r.Func))
			}
		}
	}
}

// copyDestSrc copies v1 and v3 into v4 and v5, which only the loop after
// the copy reads, while v1, v2 and v3 stay live to the loop's exit: with
// three registers, two of the values the loop does not read must give
// their registers to the copy's destinations.
const copyDestSrc = `func copydest #0 (gpr) -> (gpr) nonssa
  vregs 8
  pins v0=rdi v7=rax
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = LEAQ v0, $1
  v2:gpr = LEAQ v0, $2
  v3:gpr = LEAQ v0, $3
  v4:gpr, v5:gpr = ParCopy v1, v3
  JMP -> b1 1
b1: preds=b0,b2 freq=100
  v4:gpr = ADDQ v4, v5
  v5:gpr = LEAQ v5, $-1
  CMPQ v5, v0
  JCC.l -> b2 0.99, b3 0.01
b2: preds=b1 freq=99
  JMP -> b1 1
b3: preds=b1 freq=1
  v6:gpr = Copy v4
  v6:gpr = ADDQ v6, v1
  v6:gpr = ADDQ v6, v2
  v6:gpr = ADDQ v6, v3
  v7:gpr = Copy v6
  RET v7
end
`

// TestCopyDestinationCompetes allocates copyDestSrc with three
// general-purpose registers (tightRegs) and every spill heuristic: a copy's destination with no use left in its
// region competes with the values in registers as a spill candidate
// rather than going straight to its slot, so the destinations, used next,
// take the registers of two values used only after the loop, which are
// stored once and reloaded once each, and nothing passes through a slot
// on its way into the loop.
func TestCopyDestinationCompetes(t *testing.T) {
	f := parseFunc(t, copyDestSrc)
	for _, oracle := range VictimOracles {
		r := allocateChecked(t, pipelines[0], f, Options{Regs: tightRegs, Oracle: oracle})
		var stores, reloads int
		for _, blk := range r.Func.Blocks {
			for _, in := range blk.Instrs {
				switch {
				case in.Op == mir.OpSpill && in.Defs[0].IsSlot():
					stores++
				case in.Op == mir.OpReload && in.Uses[0].IsSlot():
					reloads++
					if blk.ID != 3 {
						t.Errorf("%v: a reload in b%d", oracle, blk.ID)
					}
				}
			}
		}
		if stores != 2 || reloads != 2 {
			t.Errorf("%v: %d stores and %d reloads, want 2 and 2\n%s", oracle, stores, reloads, mir.Format(r.Func))
		}
	}
}
