package alloc

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// destructChecked runs Destruct on f, verifies the output and runs both
// checkers.
func destructChecked(t *testing.T, f *mir.Func, opts DestructOptions) *Destructed {
	t.Helper()
	d, err := Destruct(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := mir.Verify(d.Func); err != nil {
		t.Fatalf("%v\n%s", err, mir.Format(d.Func))
	}
	if err := CheckDestructed(f, d); err != nil {
		t.Fatalf("%v\n%s", err, mir.Format(d.Func))
	}
	return d
}

// The virtual swap (Budimlić et al., section 3.6, Figure 4): copy folding
// made x2 and y2 take a1 and b1 in opposite orders from the two
// predecessors. Test 5 keeps b1 out of x2's class and test 4 keeps a1 out
// of y2's, so the classes are {x2, a1} and {y2, b1}; renaming then turns the
// second edge's copies into a swap, which the edge's parallel copy
// performs.
const virtualSwapSrc = `func vswap #0 (gpr) -> (gpr) ssa
  vregs 6
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $10
  v2:gpr = MOVQconst $3
  CMPQconst v0, $0
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  JMP -> b3 1
b2: preds=b0 freq=0.5
  JMP -> b3 1
b3: preds=b1,b2 freq=1
  v3:gpr = Phi v1, v2
  v4:gpr = Phi v2, v1
  v5:gpr = SUBQ v3, v4
  RET v5
end
`

// TestPaperExamples runs the lost-copy, swap and virtual-swap programs
// through Destruct with the copy counts the algorithms must reach, and
// checks the results in the interpreter.
func TestPaperExamples(t *testing.T) {
	cases := []struct {
		name     string
		src      string
		phi      int // φ copies left
		filtered [5]int
		run      func(t *testing.T, g *mir.Func)
	}{
		{"lost copy", igLostCopySrc, 1, [5]int{0, 1, 0, 0, 0}, func(t *testing.T, g *mir.Func) {
			for _, n := range []int64{-3, 0, 1, 2, 5, 10} {
				if got := testrun.Call(t, g, uint64(n)); int64(got[0]) != max(n, 1)-1 {
					t.Errorf("lost(%d) = %d", n, int64(got[0]))
				}
			}
		}},
		// The values entering the loop are arguments, pinned to their
		// registers, so they reach the φs by copy; the back edge's
		// arguments are live out of the loop header (test 2), so the swap
		// stays as one parallel copy of two moves.
		{"swap", igSwapSrc, 5, [5]int{0, 2, 0, 0, 0}, func(t *testing.T, g *mir.Func) {
			for n := uint64(0); n < 6; n++ {
				want := []uint64{7, 9}
				if n%2 == 1 {
					want = []uint64{9, 7}
				}
				if got := testrun.Call(t, g, 7, 9, n); !slices.Equal(got, want) {
					t.Errorf("swap(7, 9, %d) = %v, want %v", n, got, want)
				}
			}
		}},
		{"virtual swap", virtualSwapSrc, 2, [5]int{0, 0, 0, 1, 1}, func(t *testing.T, g *mir.Func) {
			if got := testrun.Call(t, g, 0); int64(got[0]) != 7 {
				t.Errorf("vswap(0) = %d, want 7", int64(got[0]))
			}
			if got := testrun.Call(t, g, 1); int64(got[0]) != -7 {
				t.Errorf("vswap(1) = %d, want -7", int64(got[0]))
			}
		}},
		{"counter", igCounterSrc, 0, [5]int{}, func(t *testing.T, g *mir.Func) {
			if got := testrun.Call(t, g, 5); got[0] != 10 {
				t.Errorf("sum(5) = %d, want 10", got[0])
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := testrun.ParseFunc(t, c.src)
			d := destructChecked(t, f, DestructOptions{NoPhiPinning: true, NoUsePinning: true})
			if d.Stats.PhiCopies != c.phi || d.Stats.Filtered != c.filtered {
				t.Errorf("%d φ copies, filters %v; want %d and %v\n%s", d.Stats.PhiCopies, d.Stats.Filtered, c.phi, c.filtered, mir.Format(d.Func))
			}
			c.run(t, d.Func)
			full := destructChecked(t, f, DestructOptions{})
			c.run(t, full.Func)
			if full.Stats.Copies() > d.Stats.Copies() {
				t.Errorf("pinning added copies: %d, without %d\n%s", full.Stats.Copies(), d.Stats.Copies(), mir.Format(full.Func))
			}
		})
	}
}

// TestVirtualSwapIsOneParallelCopy checks where the virtual swap's copies
// go: both on the second edge, in one parallel copy.
func TestVirtualSwapIsOneParallelCopy(t *testing.T) {
	d := destructChecked(t, testrun.ParseFunc(t, virtualSwapSrc), DestructOptions{})
	var pc []*mir.Instr
	for _, b := range d.Func.Blocks {
		for _, in := range b.Instrs {
			if in.Op == mir.OpParCopy {
				pc = append(pc, in)
			}
		}
	}
	if len(pc) != 1 || len(pc[0].Defs) != 2 || pc[0].Defs[0] != pc[0].Uses[1] || pc[0].Defs[1] != pc[0].Uses[0] {
		t.Errorf("want one parallel copy swapping two registers:\n%s", mir.Format(d.Func))
	}
}

// randomSSA lowers the random programs the interference-graph coalescer's
// tests use (swaps, rotations, nested loops, early exits, shared switch
// targets) to SSA functions.
func randomSSA(t testing.TB, seed uint64, n int) []*mir.Func {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []*mir.Func
	for len(out) < n {
		m, err := bytecode.Assemble([]byte(igRandomProgram(rng)))
		if err != nil {
			t.Fatal(err)
		}
		funcs, err := lower.Module(m, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, funcs...)
	}
	return out
}

// TestDominanceForestMatchesDefinition compares the stack-built forest with
// Definition 3.1 applied directly: a value's parent is the member whose
// definition dominates it and is dominated by every other such member.
func TestDominanceForestMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for _, f := range randomSSA(t, 7, 60) {
		s := newSSAInfo(f)
		var all []int
		for v := range f.VRegs {
			if s.defBlock[v] >= 0 {
				all = append(all, v)
			}
		}
		for trial := 0; trial < 20 && len(all) > 1; trial++ {
			var members []int
			for _, v := range all {
				if rng.IntN(3) == 0 {
					members = append(members, v)
				}
			}
			co := &coalescer{s: s}
			co.sortDominance(members)
			parent := dominanceForest(s, members)
			dom := func(a, b int) bool { // a's definition dominates b's (a != b)
				if s.defBlock[a] == s.defBlock[b] {
					return s.defIdx[a] < s.defIdx[b] || (s.defIdx[a] == s.defIdx[b] && a < b)
				}
				return s.an.Dom.Dominates(int(s.defBlock[a]), int(s.defBlock[b]))
			}
			for i, v := range members {
				want := -1
				for j, u := range members {
					if j == i || !dom(u, v) {
						continue
					}
					if want < 0 || dom(members[want], u) {
						want = j
					}
				}
				if parent[i] != want {
					t.Fatalf("%s: parent of %s is %d, want %d", f.Name, mir.VReg(v), parent[i], want)
				}
				checked++
			}
		}
	}
	t.Logf("%d forest nodes checked", checked)
}

// TestInterferenceOracle compares ssaInfo.interfere, which uses block
// liveness, dominance and last-use positions, with interference read off
// instruction-level liveness, on every pair of values of random functions;
// and checks the paper's Theorems 2.1 and 2.2 on every interfering pair.
func TestInterferenceOracle(t *testing.T) {
	pairs, interfering := 0, 0
	for _, f := range randomSSA(t, 8, 40) {
		s := newSSAInfo(f)
		after := pointLiveness(f)
		liveAfterDef := func(x, d int) bool { // x live just after d's definition
			b, k := int(s.defBlock[d]), int(s.defIdx[d])
			if s.isPhi[d] {
				k = len(f.Blocks[b].Phis()) - 1
			}
			return after[b][k][x]
		}
		var vals []int
		for v := range f.VRegs {
			if s.defBlock[v] >= 0 {
				vals = append(vals, v)
			}
		}
		for i, a := range vals {
			for _, b := range vals[i+1:] {
				pairs++
				want := liveAfterDef(a, b) || liveAfterDef(b, a) || s.defInstr[a] == s.defInstr[b] ||
					(s.defBlock[a] == s.defBlock[b] && s.isPhi[a] && s.isPhi[b]) ||
					s.clobbersUse(a, b) || s.clobbersUse(b, a)
				got := s.interfere(a, b)
				if got != want {
					t.Fatalf("%s: interfere(%s, %s) = %v, instruction liveness says %v\n%s",
						f.Name, mir.VReg(a), mir.VReg(b), got, want, mir.Format(f))
				}
				if !got {
					continue
				}
				interfering++
				// Theorem 2.1: one definition dominates the other.
				if !s.dominatesDef(a, b) && !s.dominatesDef(b, a) && s.defInstr[a] != s.defInstr[b] &&
					!(s.isPhi[a] && s.isPhi[b]) {
					t.Fatalf("%s: %s and %s interfere but neither definition dominates", f.Name, mir.VReg(a), mir.VReg(b))
				}
				// Theorem 2.2: the dominating one is live into the other's
				// block, or both are defined in one block.
				x, y := a, b
				if s.dominatesDef(b, a) {
					x, y = b, a
				}
				if s.defBlock[x] != s.defBlock[y] && !s.live.LiveIn(int(s.defBlock[y]), x) && !s.clobbersUse(y, x) {
					t.Fatalf("%s: %s and %s interfere against Theorem 2.2", f.Name, mir.VReg(x), mir.VReg(y))
				}
			}
		}
	}
	t.Logf("%d pairs, %d interfering", pairs, interfering)
}

// TestDestructRandomPrograms runs Destruct on the random programs, checks
// the output with both checkers, and compares its results with the
// interpreter's.
func TestDestructRandomPrograms(t *testing.T) {
	funcs := randomSSA(t, 9, 150)
	for _, f := range funcs {
		for _, opts := range []DestructOptions{{}, {NoCoalesce: true}, {NoPhiPinning: true}, {NoUsePinning: true}, {NoConstraints: true}} {
			destructChecked(t, f, opts)
		}
	}
	t.Logf("%d random functions", len(funcs))
}

// TestCheckersCatchBrokenOutput breaks correct Destruct outputs in the
// ways a bug would (a copy dropped, a copy's source changed, two
// interfering classes given one name, an operand renamed) and requires
// the checkers to notice each.
func TestCheckersCatchBrokenOutput(t *testing.T) {
	f := testrun.ParseFunc(t, igSwapSrc)
	broken := []struct {
		name   string
		mutate func(d *Destructed) bool
		want   string
	}{
		{"dropped copy", func(d *Destructed) bool {
			for _, b := range d.Func.Blocks {
				for i, in := range b.Instrs {
					if in.Op == mir.OpParCopy || in.Op == mir.OpCopy {
						b.Instrs = slices.Delete(b.Instrs, i, i+1)
						return true
					}
				}
			}
			return false
		}, "holds"},
		{"wrong source", func(d *Destructed) bool {
			for _, b := range d.Func.Blocks {
				for _, in := range b.Instrs {
					if in.Op == mir.OpParCopy {
						in.Uses[0], in.Uses[1] = in.Uses[1], in.Uses[0]
						return true
					}
				}
			}
			return false
		}, "holds"},
		{"merged interfering values", func(d *Destructed) bool {
			// The two φs of the loop header swap: give them one name.
			phis := f.Blocks[1].Phis()
			a, b := d.Names[phis[0].Defs[0].Index()], d.Names[phis[1].Defs[0].Index()]
			for i, n := range d.Names {
				if n == b {
					d.Names[i] = a
				}
			}
			for _, blk := range d.Func.Blocks {
				for _, in := range blk.Instrs {
					for i, r := range in.Defs {
						if r == b {
							in.Defs[i] = a
						}
					}
					for i, r := range in.Uses {
						if r == b {
							in.Uses[i] = a
						}
					}
				}
			}
			return true
		}, "share"},
		{"renamed operand", func(d *Destructed) bool {
			for _, b := range d.Func.Blocks {
				for _, in := range b.Instrs {
					if in.Op == mir.OpSUBQconst {
						in.Uses[0] = d.Func.NewVReg(mir.GPR)
						d.Func.Pins = append(d.Func.Pins[:len(d.Func.VRegs)-1], mir.NoReg)
						return true
					}
				}
			}
			return false
		}, "reads"},
	}
	for _, c := range broken {
		d := destructChecked(t, f, DestructOptions{NoPhiPinning: true, NoUsePinning: true})
		if !c.mutate(d) {
			t.Fatalf("%s: nothing to break in\n%s", c.name, mir.Format(d.Func))
		}
		err := CheckDestructed(f, d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: checkers said %v, want an error containing %q\n%s", c.name, err, c.want, mir.Format(d.Func))
		}
	}
}
