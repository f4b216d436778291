package sched

import (
	"slices"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/alloc"
	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/mir"
)

// weightedReloads sums the block frequencies of f's loads from stack
// slots.
func weightedReloads(f *mir.Func) (n int, w float64) {
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == mir.OpReload && in.Uses[0].IsSlot() {
				n++
				w += b.Freq
			}
		}
	}
	return n, w
}

// TestValueHolders checks the analysis of where a value's current value
// is, on single blocks after a definition of v (the value whose home slot
// is s0) into rbx at instruction 0.
func TestValueHolders(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		want       []mir.Reg
	}{
		{"definition", "", []mir.Reg{mir.RBX}},
		{"store", "s0 = Spill rbx", []mir.Reg{mir.RBX, mir.SlotReg(0)}},
		{"store from elsewhere", "s0 = Spill rcx", []mir.Reg{mir.RBX}},
		{"copies", "rcx = Copy rbx\n  rdx = Copy rcx\n  rbx = MOVQconst $1", []mir.Reg{mir.RCX, mir.RDX}},
		{"exchange", "rbx, rcx = Xchg rbx, rcx", []mir.Reg{mir.RCX}},
		{"reload", "s0 = Spill rbx\n  rbx = MOVQconst $1\n  rsi = Reload s0", []mir.Reg{mir.RSI, mir.SlotReg(0)}},
		{"other slot", "s1 = Spill rbx\n  rsi = Reload s1", []mir.Reg{mir.RBX}},
		{"call", "rdi = Copy rbx\n  r12 = Copy rbx\n  rax = CALL #0 rdi", []mir.Reg{mir.RBX, mir.R12}},
		{"redefinition", "s0 = Spill rbx\n  rcx = Copy rbx\n  rbx = ADDQ rbx, rcx", []mir.Reg{mir.RBX}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "func f #0 () -> (gpr) allocated\n  slots gpr gpr\n  vregs 0\nb0: freq=1\n  rbx = MOVQconst $7\n  " +
				tc.code + "\n  RET rax\nend\n"
			f := parseFunc(t, src)
			defs := []placeDef{{placeAt{0, 0}, mir.RBX}}
			if tc.name == "redefinition" {
				defs = append(defs, placeDef{placeAt{0, 3}, mir.RBX})
			}
			vh := newValueHolders(f)
			if !vh.compute(defs, nil, mir.SlotReg(0)) {
				t.Fatal("budget exhausted")
			}
			var got []mir.Reg
			for _, r := range append(mir.Allocatable.Regs(), mir.SlotReg(0), mir.SlotReg(1)) {
				if vh.holds(vh.end[0], r) {
					got = append(got, r)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("held by %v, want %v", got, tc.want)
			}
		})
	}
}

// loadCutSrc is a loop (b1, b2, b3) whose body overwrites rbx, the
// register of the value v (defined in b0 and stored to s0), which the
// latch b3 reloads on every iteration though only the exit b4 reads it.
// With join set, b4 is also reached from b5, where rbx holds something
// else.
func loadCutSrc(join bool) string {
	s := `func loadcut #0 () -> (gpr) allocated
  slots gpr
  vregs 0
b0: freq=1
  rbx = MOVQconst $7
  s0 = Spill rbx
  rcx = MOVQconst $0
  CMPQ rcx, rcx
  JCC.l -> b1 0.5, b5 0.5
b1: preds=b0,b3 freq=100
  CMPQ rcx, rdx
  JCC.l -> b2 0.99, b4 0.01
b2: preds=b1 freq=99
  rbx = MOVQconst $1
  rcx = ADDQ rcx, rbx
  JMP -> b3 1
b3: preds=b2 freq=99
  rbx = Reload s0
  JMP -> b1 1
b4: preds=b1,b5 freq=2
  rax = Copy rbx
  RET rax
b5: preds=b0 freq=1
  rbx = MOVQconst $3
  JMP -> b4 1
end
`
	if !join {
		s = strings.Replace(s, "preds=b1,b5", "preds=b1", 1)
		s = strings.Replace(s, "JMP -> b4 1\nend", "RET rbx\nend", 1)
	}
	return s
}

// loadCutFunc parses loadCutSrc(join) as an allocated function whose
// instructions all count as inserted.
func loadCutFunc(t *testing.T, join bool) (*mir.Func, *alloc.Origins) {
	t.Helper()
	f := parseFunc(t, loadCutSrc(join))
	org := &alloc.Origins{}
	for _, b := range f.Blocks {
		org.Block = append(org.Block, b.ID)
		org.Instr = append(org.Instr, minusOnes(len(b.Instrs)))
	}
	return f, org
}

// TestLoadCut checks the load problem on a hand-made loop: the reload on
// the back edge (99 a run) goes to the exit, at the top of b4 when b4 has
// no other predecessor, and on a new block splitting the exit edge when
// rbx holds another value on b4's other in-edge.
func TestLoadCut(t *testing.T) {
	for _, join := range []bool{false, true} {
		f, org := loadCutFunc(t, join)
		vh := newValueHolders(f)
		if !vh.compute([]placeDef{{placeAt{0, 0}, mir.RBX}}, nil, mir.SlotReg(0)) {
			t.Fatal("budget exhausted")
		}
		if got := vh.reloadable(vh.top[4], mir.RBX); got == join {
			t.Errorf("join %v: rbx and s0 hold v at the top of b4: %v", join, got)
		}
		if !vh.reloadable(vh.end[1], mir.RBX) || vh.reloadable(vh.end[2], mir.RBX) {
			t.Errorf("join %v: holders wrong at the ends of b1 (want v) or b2 (want not)", join)
		}
		a := &allocator{}
		ins, drop := newReloadInserts(), map[placeAt]bool{}
		a.placeReloadGroup(f, []placeAt{{3, 0}}, mir.RBX, vh, newLoadGraph(f, new(MinCutProblem)), ins, drop, nil)
		ins.apply(f, org, drop, &a.stats)
		st := a.stats
		wantCost := 1.0
		if join {
			wantCost *= 1 + splitEdgeCost
		}
		if st.PlacedReloadValues != 1 || st.PlacedReloadsRemoved != 1 || st.PlacedReloadsAdded != 1 ||
			st.WeightedReloadPlacementGain != 99-wantCost {
			t.Errorf("join %v: stats %+v", join, st)
		}
		if slices.ContainsFunc(f.Blocks[3].Instrs, func(in *mir.Instr) bool { return in.Op == mir.OpReload }) {
			t.Errorf("join %v: the latch still reloads:\n%s", join, mir.Format(f))
		}
		at := f.Blocks[4]
		if join {
			if len(f.Blocks) != 7 || st.SplitEdges != 1 || f.Blocks[1].Succs[1] != 6 {
				t.Fatalf("join %v: the exit edge is not split:\n%s", join, mir.Format(f))
			}
			at = f.Blocks[6]
		}
		if in := at.Instrs[0]; in.Op != mir.OpReload || in.Defs[0] != mir.RBX || in.Uses[0] != mir.SlotReg(0) {
			t.Errorf("join %v: b%d does not start with the reload:\n%s", join, at.ID, mir.Format(f))
		}
		if len(org.Block) != len(f.Blocks) || len(org.Instr[at.ID]) != len(at.Instrs) || len(org.Instr[3]) != len(f.Blocks[3].Instrs) {
			t.Errorf("join %v: origins not kept in step with the code", join)
		}
	}
}

// TestDeadRegs checks the search for registers nothing reads again on
// the loop of loadCutSrc.
func TestDeadRegs(t *testing.T) {
	f := parseFunc(t, loadCutSrc(false))
	for _, tc := range []struct {
		b, i int32
		r    mir.Reg
		dead bool
	}{
		{3, 0, mir.RBX, false}, // read at the exit, around the loop
		{0, 2, mir.RCX, false}, // read in its block
		{2, 1, mir.RDX, false}, // read by the loop's test, through the latch
		{0, 0, mir.RSI, true},  // never touched again
		{2, 1, mir.RBX, true},  // the latch reloads it first
		{2, 0, mir.RBX, false}, // the next instruction reads it
	} {
		if got := newDeadRegs(f).after(tc.b, tc.i, tc.r); got != tc.dead {
			t.Errorf("%s after b%d[%d]: dead %v, want %v", tc.r, tc.b, tc.i, got, tc.dead)
		}
	}
}

// TestReloadPlacement allocates every kernel and a generated module with
// few registers, with and without placement, and checks that placement
// never executes more reloads by the block frequencies, that both
// allocations pass the checker and compute the same results in the
// machine-IR interpreter, and that some reload moves and some orphaned
// definition goes.
func TestReloadPlacement(t *testing.T) {
	type prog struct {
		name string
		fs   []*mir.Func
		run  func(fs []*mir.Func) error
	}
	var moved, gain, orphans float64
	var progs []prog
	for _, k := range testprogs.Kernels() {
		want := k.Native(k.SmallArgs)
		progs = append(progs, prog{k.Name, destructModule(t, k.Module), func(fs []*mir.Func) error {
			got, err, _ := testrun.MIR(t, k.Module, fs, k.Func, k.SmallArgs)
			if err == nil && !slices.Equal(got, want) {
				t.Errorf("%s: got %v, want %v", k.Name, got, want)
			}
			return err
		}})
	}
	progs = append(progs, prog{"generated", destructModule(t, testprogs.GeneratedModule(3000, 3)), nil})
	for _, p := range progs {
		var outs [2][]*mir.Func
		for i, noPlace := range []bool{true, false} {
			for _, f := range p.fs {
				r, err := Allocate(f, Options{Regs: tightRegs, Oracle: OracleED, NoPlacement: noPlace})
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
					t.Fatalf("%s (placement %v): %v", f.Name, !noPlace, err)
				}
				moved += float64(r.Stats.PlacedReloadValues)
				orphans += float64(r.Stats.OrphansDeleted)
				gain += r.Stats.WeightedReloadPlacementGain
				outs[i] = append(outs[i], r.Func)
			}
			if p.run != nil {
				if err := p.run(outs[i]); err != nil {
					t.Errorf("%s (placement %v): %v", p.name, !noPlace, err)
				}
			}
		}
		for i := range p.fs {
			_, wOff := weightedReloads(outs[0][i])
			_, wOn := weightedReloads(outs[1][i])
			if wOn > wOff+1e-9 {
				t.Errorf("%s: %.2f weighted reloads with placement, %.2f without", p.fs[i].Name, wOn, wOff)
			}
		}
	}
	if moved == 0 || gain <= 0 {
		t.Errorf("no reload moved (%v problems, gain %v)", moved, gain)
	}
	if orphans == 0 {
		t.Error("no orphaned definition deleted")
	}
	t.Logf("load problems with a cheaper cut: %v, weighted reloads saved %.1f, orphans deleted %v", moved, gain, orphans)
}

// TestUnsplitEmpty splits two edges of loadCutSrc's function, leaves code
// on the second only, and checks that unsplitEmpty removes the first
// block, joins its edge again and renumbers the second with its origins.
func TestUnsplitEmpty(t *testing.T) {
	f, org := loadCutFunc(t, true)
	split := func(b, k int) *mir.Block {
		nb := alloc.SplitEdge(f, f.Blocks[b], k)
		org.Block = append(org.Block, -1)
		org.Instr = append(org.Instr, minusOnes(len(nb.Instrs)))
		return nb
	}
	split(1, 1) // b1 -> b4: b6, empty
	kept := split(0, 1)
	kept.Instrs = append([]*mir.Instr{f.NewInstr(mir.Instr{Op: mir.OpCopy, Defs: []mir.Reg{mir.RBX}, Uses: []mir.Reg{mir.RCX}, Pos: -1})}, kept.Instrs...)
	org.Instr[kept.ID] = minusOnes(len(kept.Instrs))
	if n := unsplitEmpty(f, org); n != 1 {
		t.Fatalf("%d blocks removed, want 1", n)
	}
	if err := mir.Verify(f); err != nil {
		t.Fatalf("%v\n%s", err, mir.Format(f))
	}
	if len(f.Blocks) != 7 || f.Blocks[1].Succs[1] != 4 || !slices.Contains(f.Blocks[4].Preds, 1) ||
		f.Blocks[0].Succs[1] != 6 || f.Blocks[6].ID != 6 || f.Blocks[6].Succs[0] != 5 || f.Blocks[5].Preds[0] != 6 {
		t.Errorf("wrong graph:\n%s", mir.Format(f))
	}
	if len(org.Block) != 7 || org.Block[6] != -1 || len(org.Instr[6]) != 2 {
		t.Errorf("origins not renumbered: %v %v", org.Block, org.Instr)
	}
}

// TestBlockTouches checks the per-block summary of first reads and writes
// against firstTouch on every block of every kernel's allocated code and
// every register.
func TestBlockTouches(t *testing.T) {
	n := 0
	for _, k := range testprogs.Kernels() {
		for _, f := range destructModule(t, k.Module) {
			r, err := Allocate(f, Options{Regs: tightRegs})
			if err != nil {
				t.Fatal(err)
			}
			bt := newBlockTouches(r.Func)
			for b, blk := range r.Func.Blocks {
				for _, reg := range mir.Allocatable.Regs() {
					if got, want := bt.of(b, reg), firstTouch(blk.Instrs, reg); got != want {
						t.Errorf("%s b%d %s: summary %d, scan %d", f.Name, b, reg, got, want)
					}
					n++
				}
			}
		}
	}
	t.Logf("%d blocks and registers compared", n)
}

// rematLoopSrc keeps the constant v1 live through a loop whose body
// (b2) does not read it; with three general-purpose registers the body
// takes v1's register, and the integrated pass recomputes v1 on the back
// edge for the loop's header, which holds it.
const rematLoopSrc = `func rematloop #0 (gpr) -> (gpr) nonssa
  vregs 7
  pins v0=rdi v6=rax
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $12345
  v2:gpr = MOVQconst $0
  v5:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0,b2 freq=1000
  CMPQ v2, v0
  JCC.l -> b2 0.999, b3 0.001
b2: preds=b1 freq=999
  v3:gpr = Copy v2
  v3:gpr = ADDQ v3, v0
  v4:gpr = LEAQ v3, $1
  v5:gpr = ADDQ v5, v4
  v2:gpr = LEAQ v2, $1
  JMP -> b1 1
b3: preds=b1 freq=1
  v6:gpr = Copy v5
  v6:gpr = ADDQ v6, v1
  RET v6
end
`

// TestRematPlacement checks that the load problem moves
// rematerializations as it moves reloads: in rematLoopSrc the integrated
// pass recomputes the constant on the loop's back edge, where placement
// off leaves it, and placement moves it to the loop's exit, the only
// place that reads it.
func TestRematPlacement(t *testing.T) {
	f := parseFunc(t, rematLoopSrc)
	for _, noPlace := range []bool{true, false} {
		r := allocateChecked(t, pipelines[0], f, Options{Regs: tightRegs, NoPlacement: noPlace})
		var inLoop, outside int
		for _, blk := range r.Func.Blocks {
			for _, in := range blk.Instrs {
				if in.Op == mir.OpMOVQconst && in.Imm == 12345 {
					if blk.Freq >= 999 {
						inLoop++
					} else {
						outside++
					}
				}
			}
		}
		if (inLoop > 0) != noPlace || !noPlace && outside == 0 {
			t.Errorf("placement %v: %d recomputations in the loop, %d outside\n%s", !noPlace, inLoop, outside, mir.Format(r.Func))
		}
	}
}

// TestDeadRematStarts allocates a variant of rematLoopSrc whose loop is
// one block that takes v1's register before reading anything: v1 starts
// that block in memory (Stats.DeadRematStarts), so no in-edge recomputes
// it, even with placement off; the exit recomputes it.
func TestDeadRematStarts(t *testing.T) {
	src := strings.Replace(rematLoopSrc, `b1: preds=b0,b2 freq=1000
  CMPQ v2, v0
  JCC.l -> b2 0.999, b3 0.001
b2: preds=b1 freq=999
  v3:gpr = Copy v2`, `b1: preds=b0,b2 freq=1000
  v3:gpr = Copy v2`, 1)
	src = strings.Replace(src, `  v2:gpr = LEAQ v2, $1
  JMP -> b1 1
b3: preds=b1`, `  v2:gpr = LEAQ v2, $1
  CMPQ v2, v0
  JCC.l -> b2 0.999, b3 0.001
b2: preds=b1 freq=999
  JMP -> b1 1
b3: preds=b1`, 1)
	f := parseFunc(t, src)
	r := allocateChecked(t, pipelines[0], f, Options{Regs: tightRegs, NoPlacement: true})
	if r.Stats.DeadRematStarts == 0 {
		t.Errorf("no dead start dropped\n%s", mir.Format(r.Func))
	}
	for _, blk := range r.Func.Blocks {
		for _, in := range blk.Instrs {
			if in.Op == mir.OpMOVQconst && in.Imm == 12345 && blk.Freq >= 999 {
				t.Errorf("b%d recomputes v1 in the loop\n%s", blk.ID, mir.Format(r.Func))
			}
		}
	}
}

// wholeHolders solves vh's analysis again as defined: on every block of
// the function, visiting every instruction, from the optimistic start
// everywhere, and returns the sets at the top and end of every block.
func wholeHolders(vh *valueHolders) (top, end []uint64) {
	nb := len(vh.f.Blocks)
	top, end = make([]uint64, nb), make([]uint64, nb)
	for b := range nb {
		top[b], end[b] = ^uint64(0), ^uint64(0)
	}
	for changed := true; changed; {
		changed = false
		for b, blk := range vh.f.Blocks {
			t := ^uint64(0)
			if b == 0 {
				t = 0
			}
			for _, p := range blk.Preds {
				t &= end[p]
			}
			s := t
			for i, in := range blk.Instrs {
				at := placeAt{int32(b), int32(i)}
				if vh.goneAt[at] {
					s = 0
				}
				s = vh.step(in, s)
				if r, ok := vh.defAt[at]; ok {
					s = vh.set(0, r, true)
				}
			}
			if vh.goneAt[placeAt{int32(b), int32(len(blk.Instrs))}] {
				s = 0
			}
			if t != top[b] || s != end[b] {
				top[b], end[b] = t, s
				changed = true
			}
		}
	}
	return top, end
}

// TestValueHoldersRegion compiles the kernels, the programs and generated
// functions and compares every valueHolders analysis reload placement
// solves (on the blocks its definitions reach, visiting only the moves
// of blocks without a definition) with wholeHolders, block by block.
func TestValueHoldersRegion(t *testing.T) {
	var mods []*bc.Module
	for _, k := range testprogs.Kernels() {
		mods = append(mods, k.Module)
	}
	for _, c := range testprogs.ProgramCases() {
		mods = append(mods, c.Module)
	}
	mods = append(mods, testprogs.GeneratedModule(2000, 7), testprogs.GeneratedModule(3000, 3), testprogs.SwitchCalls(2000))
	analyses, blocks := 0, 0
	checkHolders = func(vh *valueHolders) {
		analyses++
		top, end := wholeHolders(vh)
		for b := range vh.f.Blocks {
			blocks++
			if got, want := vh.topOf(int32(b)), top[b]; got != want {
				t.Fatalf("%s: value of home %s: top of b%d %#x, want %#x", vh.f.Name, vh.h, b, got, want)
			}
			if got, want := vh.endOf(int32(b)), end[b]; got != want {
				t.Fatalf("%s: value of home %s: end of b%d %#x, want %#x", vh.f.Name, vh.h, b, got, want)
			}
		}
	}
	defer func() { checkHolders = nil }()
	for _, m := range mods {
		for _, f := range destructModule(t, m) {
			allocateChecked(t, pipelines[0], f, Options{})
			allocateChecked(t, pipelines[0], f, Options{Regs: sepTightRegs})
		}
	}
	t.Logf("%d analyses, %d block sets compared", analyses, blocks)
	if analyses == 0 {
		t.Error("no function asked for a valueHolders analysis")
	}
}
