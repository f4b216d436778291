package alloc

import (
	"fmt"
	"slices"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// lsTightRegs is a small register set that forces heavy spilling: three
// GPRs (one callee-saved) and two XMM registers.
var lsTightRegs = mir.MakeRegSet(mir.R8, mir.R9, mir.RBX, mir.X8, mir.X9)

// lsConfigs are the option sets the module-level tests run.
var lsConfigs = []struct {
	name string
	opts LinearScanOptions
}{
	{"rpo", LinearScanOptions{}},
	{"layout", LinearScanOptions{Order: LinearLayout}},
	{"no-hints", LinearScanOptions{NoHints: true}},
	{"tight", LinearScanOptions{Regs: lsTightRegs}},
	{"tight-layout", LinearScanOptions{Regs: lsTightRegs, Order: LinearLayout, NoHints: true}},
}

// lsAllocateModule lowers m, takes every function out of SSA with
// Destruct and allocates it with LinearScan, checking each result with
// mir.Verify, CheckAllocation and its statistics against its code. It
// returns the allocated functions and the summed statistics.
func lsAllocateModule(t testing.TB, m *bc.Module, opts LinearScanOptions) ([]*mir.Func, LinearScanStats) {
	t.Helper()
	funcs, err := lower.Module(m, lower.FullTarget())
	if err != nil {
		t.Fatal(err)
	}
	var total LinearScanStats
	out := make([]*mir.Func, len(funcs))
	for i, f := range funcs {
		d, err := Destruct(f, DestructOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before := mir.Format(d.Func)
		r, err := LinearScan(d.Func, opts)
		if err != nil {
			t.Fatalf("linear scan %s: %v\n%s", f.Name, err, before)
		}
		if got := mir.Format(d.Func); got != before {
			t.Fatalf("linear scan %s modified its input", f.Name)
		}
		if err := mir.Verify(r.Func); err != nil {
			t.Fatalf("allocated %s: %v\n%s", f.Name, err, mir.Format(r.Func))
		}
		if err := CheckAllocation(d.Func, r.Func, r.Origins); err != nil {
			t.Fatalf("check %s: %v\ninput:\n%s\nallocated:\n%s", f.Name, err, before, mir.Format(r.Func))
		}
		lsCheckStats(t, r)
		lsAddStats(&total, &r.Stats)
		out[i] = r.Func
	}
	if err := mir.VerifyModule(out, lower.HostSigs(m)); err != nil {
		t.Fatal(err)
	}
	return out, total
}

// lsCheckStats checks the reported spill code against the code.
func lsCheckStats(t testing.TB, r *LinearScanResult) {
	t.Helper()
	var n [5]int
	for b, blk := range r.Func.Blocks {
		for i, in := range blk.Instrs {
			switch in.Op {
			case mir.OpSpill, mir.OpReload, mir.OpCopy, mir.OpXchg:
				// Inserted, or made from a copy of the input.
			default:
				if r.Origins.Instr[b][i] >= 0 {
					continue // an instruction of the input
				}
			}
			n[lsKind(in)]++
		}
	}
	st := &r.Stats
	if n[lsKindSpill] != st.Spills || n[lsKindReload] != st.Reloads || n[lsKindRemat] != st.Remats || n[lsKindMove] != st.Moves {
		t.Errorf("%s: code has %d spills, %d reloads, %d remats, %d moves; stats say %d, %d, %d, %d",
			r.Func.Name, n[lsKindSpill], n[lsKindReload], n[lsKindRemat], n[lsKindMove], st.Spills, st.Reloads, st.Remats, st.Moves)
	}
	if st.Slots != len(r.Func.Slots) {
		t.Errorf("%s: %d slots, stats say %d", r.Func.Name, len(r.Func.Slots), st.Slots)
	}
}

func lsAddStats(s, o *LinearScanStats) {
	s.Instrs += o.Instrs
	s.Intervals += o.Intervals
	s.SpilledIntervals += o.SpilledIntervals
	s.Evictions += o.Evictions
	s.Spills += o.Spills
	s.Reloads += o.Reloads
	s.Remats += o.Remats
	s.Moves += o.Moves
	s.Slots += o.Slots
}

// TestLinearScanCases allocates every shared case's module in every
// configuration (a tight register set among them), checks each function
// with the verifier and the allocation checker, and runs the cases in the
// mir interpreter.
func TestLinearScanCases(t *testing.T) {
	cases := testprogs.AllCases()
	for _, cfg := range lsConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			done := map[*bc.Module][]*mir.Func{}
			var total LinearScanStats
			for _, c := range cases {
				funcs, ok := done[c.Module]
				if !ok {
					var st LinearScanStats
					funcs, st = lsAllocateModule(t, c.Module, cfg.opts)
					lsAddStats(&total, &st)
					done[c.Module] = funcs
				}
				got, err, mem := testrun.MIR(t, c.Module, funcs, c.Func, c.Args)
				if err := c.Check(got, err, mem); err != nil {
					t.Errorf("%s: %v", c.Name, err)
				}
			}
			t.Logf("%d modules, %d instructions, %d intervals, %d spilled, %d evictions; spill code %d (%d stores, %d reloads, %d remats), %d moves",
				len(done), total.Instrs, total.Intervals, total.SpilledIntervals, total.Evictions,
				total.SpillCode(), total.Spills, total.Reloads, total.Remats, total.Moves)
			if cfg.opts.Regs != 0 && total.SpilledIntervals == 0 {
				t.Errorf("a tight register set spilled nothing")
			}
		})
	}
}

// TestLinearScanGenerated allocates the generated functions of 1k and 10k
// instructions, checks them and runs them against the reference
// interpreter (results and memory).
func TestLinearScanGenerated(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		m := testprogs.GeneratedModule(n, 1)
		for _, cfg := range []struct {
			name string
			opts LinearScanOptions
		}{{"default", LinearScanOptions{}}, {"tight", LinearScanOptions{Regs: lsTightRegs}}} {
			funcs, st := lsAllocateModule(t, m, cfg.opts)
			for _, arg := range []int64{0, 7, -123456789} {
				args := []uint64{uint64(arg)}
				want, werr, wmem := testrun.Reference(t, m, "gen", args)
				got, gerr, gmem := testrun.MIR(t, m, funcs, "gen", args)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(want, got) || !slices.Equal(wmem, gmem) {
					t.Errorf("n=%d %s gen(%d): got %v, %v; want %v, %v (memory equal: %v)",
						n, cfg.name, arg, got, gerr, want, werr, slices.Equal(wmem, gmem))
				}
			}
			t.Logf("n=%d %s: %d instrs, %d intervals, %d spilled, %d evictions, spill code %d, moves %d, slots %d",
				n, cfg.name, st.Instrs, st.Intervals, st.SpilledIntervals, st.Evictions, st.SpillCode(), st.Moves, st.Slots)
		}
	}
}

// lsStackArgsModule returns a module whose export "caller" calls a
// function with more arguments and results than the calling convention
// passes in registers (eight integer arguments, three integer results),
// keeping values live across the call. (It stays within three outgoing
// stack slots.)
func lsStackArgsModule(t testing.TB) *bc.Module {
	t.Helper()
	mb := bc.NewModuleBuilder()
	ints := func(n int) []bc.Type { return slices.Repeat([]bc.Type{bc.I64}, n) }
	params := append(ints(8), bc.F64, bc.F64)
	callee := mb.Func("callee", params, append(ints(3), bc.F64, bc.F64))
	acc := callee.NewReg(bc.I64)
	callee.I64Const(acc, 1)
	for i := 0; i < 8; i++ {
		callee.Binary(bc.OpI64Mul, acc, acc, callee.Param(i))
		callee.BinaryImm(bc.OpI64Add, acc, acc, int64(i))
	}
	f := callee.NewReg(bc.F64)
	callee.Binary(bc.OpF64Add, f, callee.Param(8), callee.Param(9))
	callee.Return(acc, callee.Param(7), callee.Param(0), f, callee.Param(9))
	caller := mb.Func("caller", []bc.Type{bc.I64}, []bc.Type{bc.I64})
	x := caller.Param(0)
	var args []bc.Reg
	for i := 0; i < 8; i++ {
		r := caller.NewReg(bc.I64)
		caller.BinaryImm(bc.OpI64Add, r, x, int64(3*i+1))
		args = append(args, r)
	}
	for i := 0; i < 2; i++ {
		r := caller.NewReg(bc.F64)
		caller.Unary(bc.OpF64ConvertI64S, r, args[i])
		args = append(args, r)
	}
	var res []bc.Reg
	for _, ty := range []bc.Type{bc.I64, bc.I64, bc.I64, bc.F64, bc.F64} {
		res = append(res, caller.NewReg(ty))
	}
	caller.Call(callee.Index(), args, res)
	sum := caller.NewReg(bc.I64)
	caller.Mov(sum, x)
	for _, r := range args[:8] {
		caller.Binary(bc.OpI64Xor, sum, sum, r) // live across the call
	}
	for _, r := range res[:3] {
		caller.Binary(bc.OpI64Add, sum, sum, r)
	}
	for _, r := range res[3:] {
		t := caller.NewReg(bc.I64)
		caller.Unary(bc.OpI64TruncF64S, t, r)
		caller.Binary(bc.OpI64Add, sum, sum, t)
	}
	caller.Return(sum)
	mb.Export("caller", caller)
	m, err := mb.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLinearScanStackArguments checks arguments and results passed in
// stack-argument slots, with many values live across the call, in every
// configuration.
func TestLinearScanStackArguments(t *testing.T) {
	m := lsStackArgsModule(t)
	for _, cfg := range lsConfigs {
		funcs, _ := lsAllocateModule(t, m, cfg.opts)
		for _, x := range []int64{0, 1, 5, -77} {
			args := []uint64{uint64(x)}
			want, werr, _ := testrun.Reference(t, m, "caller", args)
			got, gerr, _ := testrun.MIR(t, m, funcs, "caller", args)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(want, got) {
				t.Errorf("%s caller(%d): got %v, %v; want %v, %v", cfg.name, x, got, gerr, want, werr)
			}
		}
	}
}

// lsAllocate allocates f, checks the result and returns it.
func lsAllocate(t *testing.T, f *mir.Func, opts LinearScanOptions) *LinearScanResult {
	t.Helper()
	r, err := LinearScan(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := mir.Verify(r.Func); err != nil {
		t.Fatalf("%v\n%s", err, mir.Format(r.Func))
	}
	if err := CheckAllocation(f, r.Func, r.Origins); err != nil {
		t.Fatalf("%v\n%s", err, mir.Format(r.Func))
	}
	lsCheckStats(t, r)
	return r
}

// lsCount counts the instructions of f with op.
func lsCount(f *mir.Func, op mir.Op) int {
	n := 0
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == op {
				n++
			}
		}
	}
	return n
}

// TestLinearScanSpillsFurthestEnd: with two registers and three values
// live at once, the scan spills the interval that ends furthest (v1), not
// the one that starts last; the spilled value is stored after each
// definition and reloaded before each use, into registers found at those
// instructions.
func TestLinearScanSpillsFurthestEnd(t *testing.T) {
	f := testrun.ParseFunc(t, `func t #0 (gpr) -> (gpr) nonssa
  vregs 5
  pins v0=rdi v4=rax
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = LEAQ v0, $1
  v2:gpr = LEAQ v0, $2
  v3:gpr = LEAQ v0, $3
  v2:gpr = ADDQ v2, v3
  v1:gpr = ADDQ v1, v2
  v4:gpr = Copy v1
  RET v4
end
`)
	r := lsAllocate(t, f, LinearScanOptions{Regs: mir.MakeRegSet(mir.R8, mir.R9)})
	if got := testrun.Call(t, r.Func, 10); got[0] != 36 {
		t.Errorf("t(10) = %d, want 36", got[0])
	}
	st := r.Stats
	if st.SpilledIntervals != 1 || st.Spills != 2 || st.Reloads != 2 || st.Evictions != 0 {
		t.Errorf("spilled %d, %d stores, %d reloads, %d evictions; want 1, 2, 2, 0\n%s",
			st.SpilledIntervals, st.Spills, st.Reloads, st.Evictions, mir.Format(r.Func))
	}
}

// TestLinearScanCallCrossing: a value live across a call gets a
// callee-saved register; one that is not gets a caller-saved one.
func TestLinearScanCallCrossing(t *testing.T) {
	f := testrun.ParseFunc(t, `func t #0 (gpr) -> (gpr) nonssa
  vregs 5
  pins v0=rdi v2=rdi v3=rax
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = LEAQ v0, $1
  v4:gpr = LEAQ v0, $5
  v2:gpr = LEAQ v4, $2
  v3:gpr = CALL #1 v2
  v3:gpr = ADDQ v3, v1
  RET v3
end
`)
	r := lsAllocate(t, f, LinearScanOptions{})
	b := r.Func.Blocks[0].Instrs
	var v1, v4 mir.Reg
	for _, in := range b {
		if in.Op == mir.OpLEAQ && in.Imm == 1 {
			v1 = in.Defs[0]
		}
		if in.Op == mir.OpLEAQ && in.Imm == 5 {
			v4 = in.Defs[0]
		}
	}
	if !mir.CalleeSaved.Has(v1) {
		t.Errorf("v1 (live across the call) is in %s", v1)
	}
	if !mir.CallerSaved.Has(v4) {
		t.Errorf("v4 (not live across the call) is in %s", v4)
	}
	if r.Stats.SpillCode() != 0 {
		t.Errorf("spill code %d, want 0\n%s", r.Stats.SpillCode(), mir.Format(r.Func))
	}
}

// TestLinearScanRematerializes: a constant live across a call in an XMM
// register (all of them caller-saved) is spilled and recomputed at its
// use, never stored or reloaded.
func TestLinearScanRematerializes(t *testing.T) {
	f := testrun.ParseFunc(t, `func t #0 (xmm) -> (xmm) nonssa
  vregs 3
  pins v0=xmm0 v2=xmm0
b0: freq=1
  v0:xmm = Arg #0
  v1:xmm = MOVSDconst $4607182418800017408
  v2:xmm = CALL #1 v0
  v2:xmm = ADDSD v2, v1
  RET v2
end
`)
	r := lsAllocate(t, f, LinearScanOptions{})
	st := r.Stats
	if st.SpilledIntervals != 1 || st.Remats != 1 || st.Spills != 0 || st.Reloads != 0 || len(r.Func.Slots) != 0 {
		t.Errorf("spilled %d, %d remats, %d stores, %d reloads, %d slots; want 1, 1, 0, 0, 0\n%s",
			st.SpilledIntervals, st.Remats, st.Spills, st.Reloads, len(r.Func.Slots), mir.Format(r.Func))
	}
	if n := lsCount(r.Func, mir.OpMOVSDconst); n != 2 {
		t.Errorf("%d MOVSDconst, want 2 (the input's and the recomputation)", n)
	}
}

// TestLinearScanCopyHints: a copy whose source dies there vanishes when
// the destination takes the source's register (the copy hint), though
// another register comes first in the preference order.
func TestLinearScanCopyHints(t *testing.T) {
	f := testrun.ParseFunc(t, `func t #0 (gpr) -> (gpr) nonssa
  vregs 5
  pins v0=rdi v3=rax
b0: freq=1
  v0:gpr = Arg #0
  v4:gpr = LEAQ v0, $2
  v1:gpr = LEAQ v0, $1
  CMPQ v4, v0
  v2:gpr = Copy v1
  v2:gpr = ADDQ v2, v0
  v3:gpr = LEAQ v2, $0
  RET v3
end
`)
	for _, tc := range []struct {
		noHints bool
		moves   int
	}{{false, 0}, {true, 1}} {
		r := lsAllocate(t, f, LinearScanOptions{NoHints: tc.noHints})
		if r.Stats.Moves != tc.moves {
			t.Errorf("no hints %v: %d moves, want %d\n%s", tc.noHints, r.Stats.Moves, tc.moves, mir.Format(r.Func))
		}
		if got := testrun.Call(t, r.Func, 5); got[0] != 11 {
			t.Errorf("t(5) = %d, want 11", got[0])
		}
	}
}

// TestLinearScanEvictsForTemporaries: with two registers, both holding
// values live across an instruction whose operands are spilled, the
// temporaries get registers by saving one of those values around it.
func TestLinearScanEvictsForTemporaries(t *testing.T) {
	// v1 and v2 live long; v3, v4 and v5 are used by the store in the
	// middle and spilled.
	f := testrun.ParseFunc(t, `func t #0 (gpr) -> (gpr) nonssa
  vregs 7
  pins v0=rdi v6=rax
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = LEAQ v0, $1
  v2:gpr = LEAQ v0, $2
  v3:gpr = LEAQ v0, $3
  v4:gpr = LEAQ v0, $4
  v5:gpr = LEAQ v0, $5
  v1:gpr = ADDQ v1, v3
  v2:gpr = ADDQ v2, v4
  v1:gpr = ADDQ v1, v5
  v1:gpr = ADDQ v1, v2
  v6:gpr = LEAQ v1, $0
  RET v6
end
`)
	r := lsAllocate(t, f, LinearScanOptions{Regs: mir.MakeRegSet(mir.R8, mir.R9)})
	if got := testrun.Call(t, r.Func, 1); got[0] != 2+3+4+5+6 {
		t.Errorf("t(1) = %d, want %d\n%s", got[0], 2+3+4+5+6, mir.Format(r.Func))
	}
	// The scan keeps v3 and v4 and spills v1, v2 and v5; the definition
	// of v5 and the first use of v1 find no free register.
	if st := r.Stats; st.SpilledIntervals != 3 || st.Evictions != 2 {
		t.Errorf("spilled %d, evictions %d; want 3 and 2\n%s", st.SpilledIntervals, st.Evictions, mir.Format(r.Func))
	}
}

// TestLinearScanRejects checks the input requirements.
func TestLinearScanRejects(t *testing.T) {
	f := testrun.ParseFunc(t, `func t #0 (gpr) -> (gpr) ssa
  vregs 1
b0: freq=1
  v0:gpr = Arg #0
  RET v0
end
`)
	if _, err := LinearScan(f, LinearScanOptions{}); err == nil {
		t.Error("SSA input accepted")
	}
	g := f.Clone()
	g.Form = mir.FormNonSSA
	if _, err := LinearScan(g, LinearScanOptions{}); err == nil {
		t.Error("input without pins accepted")
	}
	h := testrun.ParseFunc(t, `func t #0 (gpr) -> (gpr) nonssa
  vregs 3
  pins v0=rdi v2=rax
b0: freq=1
  v0:gpr = Arg #0
  v1:xmm = CVTSQ2SD v0
  v2:gpr = CVTTSD2SQ v1
  RET v2
end
`)
	if _, err := LinearScan(h, LinearScanOptions{Regs: mir.MakeRegSet(mir.R8)}); err == nil {
		t.Error("no XMM register allowed, but accepted")
	}
}

// TestLinearScanDeterministic allocates the same functions repeatedly: the
// output text and origins must never change.
func TestLinearScanDeterministic(t *testing.T) {
	var funcs []*mir.Func
	for _, m := range []*bc.Module{testprogs.GeneratedModule(1000, 2), testprogs.Kernels()[2].Module} {
		fs, err := lower.Module(m, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			d, err := Destruct(f, DestructOptions{})
			if err != nil {
				t.Fatal(err)
			}
			funcs = append(funcs, d.Func)
		}
	}
	for _, f := range funcs {
		for _, opts := range []LinearScanOptions{{}, {Regs: lsTightRegs}} {
			first, err := LinearScan(f, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := mir.Format(first.Func) + fmt.Sprint(first.Origins)
			for i := 0; i < 5; i++ {
				r, err := LinearScan(f, opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := mir.Format(r.Func) + fmt.Sprint(r.Origins); got != want {
					t.Fatalf("%s: run %d differs", f.Name, i)
				}
			}
		}
	}
}

// TestLinearScanJumpTableVictim: with two registers, both holding values
// live out of a block that ends in a JMPTABLE whose spilled index needs a
// register, the evicted value is restored on the outgoing edges (new
// blocks), not after the terminator.
func TestLinearScanJumpTableVictim(t *testing.T) {
	f := testrun.ParseFunc(t, `func t #0 (gpr) -> (gpr) nonssa
  vregs 6
  pins v0=rdi v5=rax
b0: freq=1
  v0:gpr = Arg #0
  v3:gpr = Copy v0
  v3:gpr = ANDQconst v3, $1
  v1:gpr = LEAQ v0, $10
  v2:gpr = LEAQ v0, $20
  JMPTABLE v3 -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  v4:gpr = Copy v1
  v4:gpr = ADDQ v4, v2
  v5:gpr = LEAQ v4, $0
  RET v5
b2: preds=b0 freq=0.5
  v4:gpr = Copy v2
  v4:gpr = SUBQ v4, v1
  v4:gpr = ADDQ v4, v3
  v5:gpr = LEAQ v4, $0
  RET v5
end
`)
	r := lsAllocate(t, f, LinearScanOptions{Regs: mir.MakeRegSet(mir.R8, mir.R9)})
	for _, c := range []struct{ arg, want uint64 }{{4, 4 + 10 + 4 + 20}, {5, 10 + 1}} {
		if got := testrun.Call(t, r.Func, c.arg); got[0] != c.want {
			t.Errorf("t(%d) = %d, want %d\n%s", c.arg, got[0], c.want, mir.Format(r.Func))
		}
	}
	if len(r.Func.Blocks) != len(f.Blocks)+2 || r.Stats.Evictions == 0 {
		t.Errorf("got %d blocks and %d evictions; want the two edges split after an eviction\n%s",
			len(r.Func.Blocks), r.Stats.Evictions, mir.Format(r.Func))
	}
}
