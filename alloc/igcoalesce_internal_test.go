package alloc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// igCheckPair runs igCoalesce in both modes on f and checks what must hold
// whatever the input: verified non-SSA output, the same code from both
// modes, no more copies than naive translation, a compact matrix no larger
// than the full one. It returns the compact result and both stats.
func igCheckPair(t testing.TB, f *mir.Func) (*mir.Func, igStats, igStats) {
	t.Helper()
	before := mir.Format(f)
	full, fst, err := igCoalesce(f, false)
	if err != nil {
		t.Fatalf("%s: full: %v", f.Name, err)
	}
	cmp, cst, err := igCoalesce(f, true)
	if err != nil {
		t.Fatalf("%s: compact: %v", f.Name, err)
	}
	if mir.Format(f) != before {
		t.Fatalf("%s: igCoalesce modified its input", f.Name)
	}
	for _, g := range []*mir.Func{full, cmp} {
		if err := mir.Verify(g); err != nil {
			t.Fatalf("%s: %v\n%s", f.Name, err, mir.Format(g))
		}
		if g.Form != mir.FormNonSSA {
			t.Fatalf("%s: result in %s form", f.Name, g.Form)
		}
	}
	if a, b := mir.Format(full), mir.Format(cmp); a != b {
		t.Fatalf("%s: compact and full namespaces disagree\nfull:\n%s\ncompact:\n%s", f.Name, a, b)
	}
	if fst.Rounds != cst.Rounds || fst.Coalesced != cst.Coalesced {
		t.Fatalf("%s: full %d rounds %d coalesced, compact %d rounds %d coalesced",
			f.Name, fst.Rounds, fst.Coalesced, cst.Rounds, cst.Coalesced)
	}
	for r := range cst.MatrixBits {
		if cst.MatrixBits[r] > fst.MatrixBits[r] {
			t.Fatalf("%s: round %d: compact matrix %d bits, full %d", f.Name, r, cst.MatrixBits[r], fst.MatrixBits[r])
		}
	}
	// Never more copies than naive translation.
	naive := f.Clone()
	if err := NaiveDestruct(naive); err != nil {
		t.Fatal(err)
	}
	ns, nw := countCopies(naive)
	if ns != cst.CopiesBefore || nw != cst.WeightedBefore {
		t.Fatalf("%s: naive copies %d (%g), stats say %d (%g)", f.Name, ns, nw, cst.CopiesBefore, cst.WeightedBefore)
	}
	s, w := countCopies(cmp)
	if s != cst.CopiesAfter || w != cst.WeightedAfter {
		t.Fatalf("%s: coalesced copies %d (%g), stats say %d (%g)", f.Name, s, w, cst.CopiesAfter, cst.WeightedAfter)
	}
	if s > ns || w > nw*(1+1e-9) {
		t.Fatalf("%s: %d copies (%g weighted) after coalescing, %d (%g) after naive translation", f.Name, s, w, ns, nw)
	}
	if s > ns-cst.Coalesced {
		// Each coalescing turns at least its own copy into a self-copy.
		t.Fatalf("%s: %d naive copies, %d coalesced, %d left", f.Name, ns, cst.Coalesced, s)
	}
	// Deterministic.
	again, _, err := igCoalesce(f, true)
	if err != nil {
		t.Fatal(err)
	}
	if mir.Format(again) != mir.Format(cmp) {
		t.Fatalf("%s: two runs differ", f.Name)
	}
	return cmp, fst, cst
}

// TestIGCoalesceDifferential coalesces every function of every shared test
// module in both namespaces and checks each case's expectations in the mir
// interpreter.
func TestIGCoalesceDifferential(t *testing.T) {
	cases := testprogs.AllCases()
	done := map[*bc.Module][]*mir.Func{}
	var fullBits, compactBits, naive, left int
	nfuncs := 0
	for _, c := range cases {
		funcs, ok := done[c.Module]
		if !ok {
			funcs = allocateModule(t, c.Module, func(f *mir.Func) (*mir.Func, error) {
				g, fst, cst := igCheckPair(t, f)
				fullBits += fst.TotalBits()
				compactBits += cst.TotalBits()
				naive += cst.CopiesBefore
				left += cst.CopiesAfter
				nfuncs++
				return g, nil
			})
			done[c.Module] = funcs
		}
		got, err, mem := testrun.MIR(t, c.Module, funcs, c.Func, c.Args)
		if err := c.Check(got, err, mem); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	t.Logf("%d functions: %d naive copies, %d after coalescing; matrix bits: full %d, compact %d",
		nfuncs, naive, left, fullBits, compactBits)
	if compactBits >= fullBits {
		t.Errorf("compact matrices (%d bits) not smaller than full ones (%d bits)", compactBits, fullBits)
	}
}

// The swap problem: a and b trade places every iteration. The two φ
// results are written by one parallel copy, so they interfere and the
// swap itself stays; the entry copies and the counter are coalesced.
const igSwapSrc = `func swap #0 (gpr gpr gpr) -> (gpr gpr) ssa
  vregs 7
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  v2:gpr = Arg #2
  JMP -> b1 1
b1: preds=b0,b2 freq=10
  v3:gpr = Phi v0, v4
  v4:gpr = Phi v1, v3
  v5:gpr = Phi v2, v6
  CMPQconst v5, $0
  JCC.le -> b3 0.1, b2 0.9
b2: preds=b1 freq=9
  v6:gpr = SUBQconst v5, $1
  JMP -> b1 1
b3: preds=b1 freq=1
  RET v3, v4
end
`

// The lost-copy problem: the loop is a single block whose back edge is
// critical, and the φ's old value is used after the loop.
const igLostCopySrc = `func lost #0 (gpr) -> (gpr) ssa
  vregs 4
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0,b1 freq=10
  v2:gpr = Phi v1, v3
  v3:gpr = ADDQconst v2, $1
  CMPQ v3, v0
  JCC.l -> b1 0.9, b2 0.1
b2: preds=b1 freq=1
  RET v2
end
`

// A counted loop summing 0..n-1, each φ's old value dying at its update.
const igCounterSrc = `func sum #0 (gpr) -> (gpr) ssa
  vregs 7
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $0
  v2:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0,b2 freq=10
  v3:gpr = Phi v1, v6
  v4:gpr = Phi v2, v5
  CMPQ v3, v0
  JCC.ge -> b3 0.1, b2 0.9
b2: preds=b1 freq=9
  v5:gpr = ADDQ v4, v3
  v6:gpr = ADDQconst v3, $1
  JMP -> b1 1
b3: preds=b1 freq=1
  RET v4
end
`

func TestIGCoalesceSwap(t *testing.T) {
	f := testrun.ParseFunc(t, igSwapSrc)
	g, _, st := igCheckPair(t, f)
	if st.CopiesBefore != 6 || st.CopiesAfter != 2 {
		t.Errorf("copies: naive %d, coalesced %d; want 6 and 2\n%s", st.CopiesBefore, st.CopiesAfter, mir.Format(g))
	}
	for n := uint64(0); n < 6; n++ {
		got := testrun.Call(t, g, 7, 9, n)
		want := []uint64{7, 9}
		if n%2 == 1 {
			want = []uint64{9, 7}
		}
		if !slices.Equal(got, want) {
			t.Errorf("swap(7, 9, %d) = %v, want %v", n, got, want)
		}
	}
}

func TestIGCoalesceLostCopy(t *testing.T) {
	f := testrun.ParseFunc(t, igLostCopySrc)
	g, _, st := igCheckPair(t, f)
	if st.CopiesBefore != 2 || st.CopiesAfter != 1 {
		t.Errorf("copies: naive %d, coalesced %d; want 2 and 1\n%s", st.CopiesBefore, st.CopiesAfter, mir.Format(g))
	}
	for _, n := range []int64{-3, 0, 1, 2, 5, 10} {
		want := max(n, 1) - 1
		if got := testrun.Call(t, g, uint64(n)); int64(got[0]) != want {
			t.Errorf("lost(%d) = %d, want %d\n%s", n, int64(got[0]), want, mir.Format(g))
		}
	}
}

func TestIGCoalesceCounter(t *testing.T) {
	f := testrun.ParseFunc(t, igCounterSrc)
	g, _, st := igCheckPair(t, f)
	if st.CopiesBefore != 4 || st.CopiesAfter != 0 {
		t.Errorf("copies: naive %d, coalesced %d; want 4 and 0\n%s", st.CopiesBefore, st.CopiesAfter, mir.Format(g))
	}
	for _, n := range []int64{-1, 0, 1, 4, 100} {
		want := int64(0)
		for i := int64(0); i < n; i++ {
			want += i
		}
		if got := testrun.Call(t, g, uint64(n)); int64(got[0]) != want {
			t.Errorf("sum(%d) = %d, want %d", n, int64(got[0]), want)
		}
	}
}

// The same three patterns written as bytecode and lowered.
const igBytecodeSrc = `
func swap (i64 i64 i64) -> (i64)
  ; r0 a, r1 b, r2 n, r3 t
  regs i64
  br.le_s r2, 0, done
loop:
  mov r3, r0
  mov r0, r1
  mov r1, r3
  i64.sub r2, r2, 1
  br.gt_s r2, 0, loop
done:
  i64.mul r0, r0, 1000
  i64.add r0, r0, r1
  ret r0
end

func lost (i64) -> (i64)
  ; r0 n, r1 i, r2 previous i
  regs i64 i64
  i64.const r1, 0
loop:
  mov r2, r1
  i64.add r1, r1, 1
  br.lt_s r1, r0, loop
  ret r2
end

func sum (i64) -> (i64)
  ; r0 n, r1 i, r2 s
  regs i64 i64
  i64.const r1, 0
  i64.const r2, 0
  br.ge_s r1, r0, done
loop:
  i64.add r2, r2, r1
  i64.add r1, r1, 1
  br.lt_s r1, r0, loop
done:
  ret r2
end

export "swap" swap
export "lost" lost
export "sum" sum
`

func TestIGCoalesceLoweredPatterns(t *testing.T) {
	m, err := bc.Assemble([]byte(igBytecodeSrc))
	if err != nil {
		t.Fatal(err)
	}
	stats := map[string]igStats{}
	funcs := allocateModule(t, m, func(f *mir.Func) (*mir.Func, error) {
		g, _, st := igCheckPair(t, f)
		stats[f.Name] = st
		return g, nil
	})
	for _, name := range []string{"swap", "lost", "sum"} {
		st := stats[name]
		t.Logf("%s: %d naive copies, %d coalesced, %d rounds, matrix bits %v", name, st.CopiesBefore, st.CopiesAfter, st.Rounds, st.MatrixBits)
	}
	if st := stats["sum"]; st.CopiesAfter != 0 {
		t.Errorf("sum: %d copies left, want 0\n%s", st.CopiesAfter, mir.Format(funcs[m.ExportedFunc("sum")]))
	}
	if st := stats["swap"]; st.CopiesAfter == 0 || st.CopiesAfter >= st.CopiesBefore {
		t.Errorf("swap: %d copies left of %d\n%s", st.CopiesAfter, st.CopiesBefore, mir.Format(funcs[m.ExportedFunc("swap")]))
	}
	if st := stats["lost"]; st.CopiesAfter == 0 {
		t.Errorf("lost: no copy left\n%s", mir.Format(funcs[m.ExportedFunc("lost")]))
	}
	for n := int64(-1); n < 6; n++ {
		got, err, _ := testrun.MIR(t, m, funcs, "swap", []uint64{7, 9, uint64(n)})
		want := int64(7009)
		if n > 0 && n%2 == 1 {
			want = 9007
		}
		if err != nil || int64(got[0]) != want {
			t.Errorf("swap(7, 9, %d) = %d, %v; want %d", n, int64(got[0]), err, want)
		}
		got, err, _ = testrun.MIR(t, m, funcs, "lost", []uint64{uint64(n)})
		if want := max(n, 1) - 1; err != nil || int64(got[0]) != want {
			t.Errorf("lost(%d) = %d, %v; want %d", n, int64(got[0]), err, want)
		}
		got, err, _ = testrun.MIR(t, m, funcs, "sum", []uint64{uint64(n)})
		want = 0
		for i := int64(0); i < n; i++ {
			want += i
		}
		if err != nil || int64(got[0]) != want {
			t.Errorf("sum(%d) = %d, %v; want %d", n, int64(got[0]), err, want)
		}
	}
}

// igRandomProgram writes a random terminating bytecode function
// "f (i64 i64 i64) -> (i64)" that shuffles values between registers a lot:
// moves, swaps and rotations (through temporaries) inside nested counted
// loops with early exits, if/else chains, switches whose cases share
// targets, and f64 registers, so that its SSA form is full of φ webs, φ
// cycles, critical edges and values live across loop exits.
func igRandomProgram(rng *rand.Rand) string {
	// r0 n; r1..r6 i64 data (r1, r2 parameters); r7..r9 loop counters;
	// r10..r12 f64 data; r13 i64 temporary; r14 f64 temporary.
	var b strings.Builder
	label := 0
	newLabel := func() string { label++; return fmt.Sprintf("L%d", label) }
	emit := func(format string, args ...any) { fmt.Fprintf(&b, "  "+format+"\n", args...) }
	gp := func() int { return 1 + rng.IntN(6) }
	fp := func() int { return 10 + rng.IntN(3) }
	two := func(pick func() int) (int, int) {
		x, y := pick(), pick()
		for y == x {
			y = pick()
		}
		return x, y
	}
	conds := []string{"eq", "ne", "lt_s", "le_s", "gt_s", "ge_s", "lt_u", "ge_u"}
	budget := 40 + rng.IntN(60)
	var block func(depth int, exits []string)
	stmt := func(depth int, exits []string) {
		budget--
		switch k := rng.IntN(20); {
		case k < 3:
			x, y := two(gp)
			emit("mov r%d, r%d", x, y)
		case k < 6:
			ops := []string{"add", "sub", "xor", "mul", "rotl"}
			if rng.IntN(2) == 0 {
				emit("i64.%s r%d, r%d, r%d", ops[rng.IntN(len(ops))], gp(), gp(), gp())
			} else {
				emit("i64.%s r%d, r%d, %d", ops[rng.IntN(len(ops))], gp(), gp(), rng.IntN(100)-50)
			}
		case k < 8:
			x, y := two(gp)
			emit("mov r13, r%d", x)
			emit("mov r%d, r%d", x, y)
			emit("mov r%d, r13", y)
		case k < 9:
			x, y := two(gp)
			z := gp()
			for z == x || z == y {
				z = gp()
			}
			emit("mov r13, r%d", x)
			emit("mov r%d, r%d", x, y)
			emit("mov r%d, r%d", y, z)
			emit("mov r%d, r13", z)
		case k < 10:
			x, y := two(fp)
			if rng.IntN(2) == 0 {
				emit("mov r14, r%d", x)
				emit("mov r%d, r%d", x, y)
				emit("mov r%d, r14", y)
			} else {
				emit("f64.add r%d, r%d, r%d", x, y, fp())
			}
		case k < 11:
			if rng.IntN(2) == 0 {
				emit("f64.convert_i64_s r%d, r%d", fp(), gp())
			} else {
				emit("i64.trunc_sat_f64_s r%d, r%d", gp(), fp())
			}
		case k < 12:
			emit("select r%d, r%d, r%d, r%d", gp(), gp(), gp(), gp())
		case k < 15 && depth < 4:
			els, end := newLabel(), newLabel()
			emit("br.%s r%d, r%d, %s", conds[rng.IntN(len(conds))], gp(), gp(), els)
			block(depth+1, exits)
			if rng.IntN(3) > 0 {
				emit("jump %s", end)
				fmt.Fprintf(&b, "%s:\n", els)
				block(depth+1, exits)
				fmt.Fprintf(&b, "%s:\n", end)
			} else {
				fmt.Fprintf(&b, "%s:\n", els)
			}
		case k < 17 && len(exits) < 3:
			c := 7 + len(exits)
			top, exit := newLabel(), newLabel()
			emit("i64.const r%d, %d", c, 1+rng.IntN(4))
			fmt.Fprintf(&b, "%s:\n", top)
			block(depth+1, append(exits, exit))
			emit("i64.sub r%d, r%d, 1", c, c)
			emit("br.gt_s r%d, 0, %s", c, top)
			fmt.Fprintf(&b, "%s:\n", exit)
		case k < 18 && len(exits) > 0:
			emit("br.%s r%d, %d, %s", conds[rng.IntN(len(conds))], gp(), rng.IntN(20)-5, exits[rng.IntN(len(exits))])
		case k < 19 && depth < 4:
			targets := []string{newLabel(), newLabel(), newLabel()}
			end := newLabel()
			emit("i64.and r13, r%d, 3", gp())
			cases := make([]string, 4)
			for i := range cases {
				cases[i] = targets[rng.IntN(len(targets))]
			}
			emit("switch r13, [%s], %s", strings.Join(cases, ", "), targets[rng.IntN(len(targets))])
			for _, t := range targets {
				fmt.Fprintf(&b, "%s:\n", t)
				block(depth+1, exits)
				emit("jump %s", end)
			}
			fmt.Fprintf(&b, "%s:\n", end)
		default:
			x, y := two(gp)
			emit("mov r%d, r%d", x, y)
		}
	}
	block = func(depth int, exits []string) {
		for n := 1 + rng.IntN(4); n > 0 && budget > 0; n-- {
			stmt(depth, exits)
		}
	}
	b.WriteString("func f (i64 i64 i64) -> (i64)\n")
	b.WriteString("  regs i64 i64 i64 i64 i64 i64 i64 f64 f64 f64 i64 f64\n")
	emit("i64.const r3, %d", rng.IntN(1000))
	emit("i64.add r4, r1, r2")
	emit("i64.const r5, %d", rng.IntN(1000)-500)
	emit("mov r6, r0")
	emit("f64.convert_i64_s r10, r1")
	emit("f64.convert_i64_s r11, r2")
	emit("f64.convert_i64_s r12, r5")
	for budget > 0 {
		block(0, nil)
	}
	for _, f := range []int{10, 11, 12} {
		emit("i64.trunc_sat_f64_s r13, r%d", f)
		emit("i64.xor r1, r1, r13")
	}
	for r := 2; r <= 6; r++ {
		emit("i64.mul r1, r1, 31")
		emit("i64.add r1, r1, r%d", r)
	}
	emit("ret r1")
	b.WriteString("end\nexport \"f\" f\n")
	return b.String()
}

// TestIGCoalesceRandom runs random register-shuffling programs coalesced
// in the mir interpreter against the bytecode interpreter.
func TestIGCoalesceRandom(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 50
	}
	var naive, left int
	for seed := range n {
		src := igRandomProgram(rand.New(rand.NewPCG(uint64(seed), 7)))
		m, err := bc.Assemble([]byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		funcs := allocateModule(t, m, func(f *mir.Func) (*mir.Func, error) {
			g, _, st := igCheckPair(t, f)
			naive += st.CopiesBefore
			left += st.CopiesAfter
			return g, nil
		})
		prog, err := interp.Prepare(m)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := interp.NewMachine(prog, interp.Config{}, nil, interp.NewMemory(m.Memory.MinPages, m.Memory.MaxPages))
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]uint64{{0, 1, 2}, {5, 100, 7}, {uint64(seed), 3, 0xdeadbeef}} {
			want := make([]uint64, 1)
			if err := ref.Call(context.Background(), 0, args, want); err != nil {
				t.Fatalf("seed %d: reference: %v", seed, err)
			}
			got, err, _ := testrun.MIR(t, m, funcs, "f", args)
			if err != nil || got[0] != want[0] {
				t.Fatalf("seed %d, args %v: got %#x, %v; want %#x\n%s\n%s", seed, args, got, err, want[0], src, mir.Format(funcs[0]))
			}
		}
	}
	t.Logf("%d programs: %d naive copies, %d after coalescing", n, naive, left)
}

// TestIGCoalesceKernels coalesces the benchmark kernels, checks their
// small inputs against the native versions, and logs the copy counts.
func TestIGCoalesceKernels(t *testing.T) {
	for _, k := range testprogs.Kernels() {
		funcs := allocateModule(t, k.Module, func(f *mir.Func) (*mir.Func, error) {
			g, fst, cst := igCheckPair(t, f)
			t.Logf("%s/%s: %d instrs, copies naive %d (%.4g weighted), coalesced %d (%.4g weighted); %d rounds, matrix bits full %v, compact %v",
				k.Name, f.Name, f.NumInstrs(), cst.CopiesBefore, cst.WeightedBefore, cst.CopiesAfter, cst.WeightedAfter,
				cst.Rounds, fst.MatrixBits, cst.MatrixBits)
			return g, nil
		})
		got, err, _ := testrun.MIR(t, k.Module, funcs, k.Func, k.SmallArgs)
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		if want := k.Native(k.SmallArgs); !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", k.Name, got, want)
		}
	}
}

func TestCountCopies(t *testing.T) {
	f := testrun.ParseFunc(t, igSwapSrc)
	if s, w := countCopies(f); s != 0 || w != 0 {
		t.Errorf("SSA function: %d copies (%g weighted)", s, w)
	}
	if err := NaiveDestruct(f); err != nil {
		t.Fatal(err)
	}
	// Entry edge: 3 copies at frequency 1; back edge: 3 at frequency 9.
	if s, w := countCopies(f); s != 6 || w != 30 {
		t.Errorf("naive: %d copies (%g weighted), want 6 (30)", s, w)
	}
}

// igKernelFuncs lowers every kernel module.
func igKernelFuncs(b *testing.B) (funcs []*mir.Func, instrs int) {
	for _, k := range testprogs.Kernels() {
		fs, err := lower.Module(k.Module, lower.FullTarget())
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range fs {
			funcs = append(funcs, f)
			instrs += f.NumInstrs()
		}
	}
	return funcs, instrs
}

func benchmarkIGCoalesce(b *testing.B, compact bool) {
	funcs, instrs := igKernelFuncs(b)
	b.ReportAllocs()
	iters := 0
	for b.Loop() {
		for _, f := range funcs {
			if _, _, err := igCoalesce(f, compact); err != nil {
				b.Fatal(err)
			}
		}
		iters++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters)/float64(instrs), "ns/instr")
}

// BenchmarkIGCoalesceKernels times the compact-namespace (Briggs*)
// coalescer on the lowered kernels, per SSA instruction.
func BenchmarkIGCoalesceKernels(b *testing.B) { benchmarkIGCoalesce(b, true) }

// BenchmarkIGCoalesceKernelsFull times the full-namespace coalescer.
func BenchmarkIGCoalesceKernelsFull(b *testing.B) { benchmarkIGCoalesce(b, false) }
