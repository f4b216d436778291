package alloc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// funcSet is a named collection of SSA functions to measure on.
type funcSet struct {
	name  string
	funcs []*mir.Func
}

// comparisonSets returns the kernels, the shared test programs, random
// programs with many φs, and large generated functions.
func comparisonSets(t testing.TB) []funcSet {
	lowerAll := func(ms []*bytecode.Module) []*mir.Func {
		var out []*mir.Func
		for _, m := range ms {
			funcs, err := lower.Module(m, lower.FullTarget())
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, funcs...)
		}
		return out
	}
	var kernels, programs []*bytecode.Module
	for _, k := range testprogs.Kernels() {
		kernels = append(kernels, k.Module)
	}
	seen := map[*bytecode.Module]bool{}
	for _, c := range testprogs.ProgramCases() {
		if !seen[c.Module] {
			seen[c.Module] = true
			programs = append(programs, c.Module)
		}
	}
	var big []*bytecode.Module
	for _, n := range []int{1000, 4000} {
		big = append(big, phiHeavyModule(n, uint64(n)))
	}
	return []funcSet{
		{"kernels", lowerAll(kernels)},
		{"programs", lowerAll(programs)},
		{"random", randomSSA(t, 11, 200)},
		{"generated", lowerAll(big)},
	}
}

// phiHeavyModule returns a module with one function of about n bytecode
// instructions: 24 live registers updated in a chain of diamonds, switch
// joins and counted loops, so that most joins need φs for several
// registers.
func phiHeavyModule(n int, seed uint64) *bytecode.Module {
	r := rand.New(rand.NewPCG(seed, 3))
	const nregs = 24
	mb := bytecode.NewModuleBuilder()
	params := make([]bytecode.Type, 4)
	for i := range params {
		params[i] = bytecode.I64
	}
	fb := mb.Func("gen", params, []bytecode.Type{bytecode.I64})
	regs := []bytecode.Reg{0, 1, 2, 3}
	for len(regs) < nregs {
		regs = append(regs, fb.NewReg(bytecode.I64))
	}
	pick := func() bytecode.Reg { return regs[r.IntN(len(regs))] }
	ops := []bytecode.Op{bytecode.OpI64Add, bytecode.OpI64Sub, bytecode.OpI64Xor, bytecode.OpI64Mul}
	update := func() {
		fb.Binary(ops[r.IntN(len(ops))], pick(), pick(), pick())
	}
	for _, reg := range regs[4:] {
		fb.I64Const(reg, int64(r.IntN(100)))
	}
	for fb.Len() < n {
		switch r.IntN(4) {
		case 0, 1: // diamond
			els, end := fb.NewLabel(), fb.NewLabel()
			fb.BrCmp(bytecode.OpBrLtS, pick(), pick(), els)
			for k := 1 + r.IntN(3); k > 0; k-- {
				update()
			}
			fb.Jump(end)
			fb.Bind(els)
			for k := 1 + r.IntN(3); k > 0; k-- {
				update()
			}
			fb.Bind(end)
		case 2: // counted loop with a swap inside
			c := fb.NewReg(bytecode.I64)
			fb.BinaryImm(bytecode.OpI64And, c, pick(), 3)
			head := fb.NewLabel()
			fb.Bind(head)
			a, b, t := pick(), pick(), fb.NewReg(bytecode.I64)
			fb.Mov(t, a)
			fb.Mov(a, b)
			fb.Mov(b, t)
			update()
			fb.BinaryImm(bytecode.OpI64Sub, c, c, 1)
			fb.BrCmpImm(bytecode.OpBrGtS, c, 0, head)
		default: // switch join
			idx := fb.NewReg(bytecode.I64)
			fb.BinaryImm(bytecode.OpI64And, idx, pick(), 3)
			cases := []bytecode.Label{fb.NewLabel(), fb.NewLabel(), fb.NewLabel()}
			end := fb.NewLabel()
			fb.Switch(idx, cases, end)
			for _, l := range cases {
				fb.Bind(l)
				update()
				fb.Jump(end)
			}
			fb.Bind(end)
		}
	}
	acc := fb.NewReg(bytecode.I64)
	for _, reg := range regs {
		fb.Binary(bytecode.OpI64Add, acc, acc, reg)
	}
	fb.Return(acc)
	mb.Export("gen", fb)
	m, err := mb.Build()
	if err != nil {
		panic(err)
	}
	return m
}

// variant is one way of going out of SSA, measured by the moves it leaves
// in non-SSA code.
type variant struct {
	name string
	run  func(*mir.Func) (*mir.Func, error)
}

var variants = []variant{
	{"naive φ copies", func(f *mir.Func) (*mir.Func, error) {
		g := f.Clone()
		return g, NaiveDestruct(g)
	}},
	{"Briggs* (IG)", func(f *mir.Func) (*mir.Func, error) {
		g, _, err := igCoalesce(f, true)
		return g, err
	}},
	{"fast coalescer", func(f *mir.Func) (*mir.Func, error) {
		d, err := Destruct(f, DestructOptions{NoConstraints: true, NoPhiPinning: true})
		if err != nil {
			return nil, err
		}
		return d.Func, nil
	}},
	{"fast + φ pinning", func(f *mir.Func) (*mir.Func, error) {
		d, err := Destruct(f, DestructOptions{NoConstraints: true})
		if err != nil {
			return nil, err
		}
		return d.Func, nil
	}},
	{"constrained, naive", func(f *mir.Func) (*mir.Func, error) {
		d, err := Destruct(f, DestructOptions{NoCoalesce: true, NoPhiPinning: true, NoUsePinning: true})
		if err != nil {
			return nil, err
		}
		return d.Func, nil
	}},
	{"constrained, no pinning", func(f *mir.Func) (*mir.Func, error) {
		d, err := Destruct(f, DestructOptions{NoPhiPinning: true, NoUsePinning: true})
		if err != nil {
			return nil, err
		}
		return d.Func, nil
	}},
	{"Destruct", func(f *mir.Func) (*mir.Func, error) {
		d, err := Destruct(f, DestructOptions{})
		if err != nil {
			return nil, err
		}
		return d.Func, nil
	}},
}

// TestCoalescerComparison measures every variant on every set: moves left
// (static, and weighted by block frequency) and time per mir instruction.
// The first four variants ignore renaming constraints (the moves counted
// are φ copies); the last three resolve them (the moves include copies
// into fixed registers and two-address operands, and repairs). The fast
// coalescer, with or without φ pinning, must never leave more φ copies
// than naive instantiation on any function, and φ pinning must never add
// copies to the fast coalescer's.
func TestCoalescerComparison(t *testing.T) {
	var report strings.Builder
	for _, set := range comparisonSets(t) {
		instrs := 0
		for _, f := range set.funcs {
			instrs += f.NumInstrs()
		}
		fmt.Fprintf(&report, "\n%s: %d functions, %d mir instructions\n", set.name, len(set.funcs), instrs)
		fmt.Fprintf(&report, "  %-24s %8s %14s %10s\n", "variant", "moves", "weighted", "ns/instr")
		static := make([][]int, len(variants))
		for vi, v := range variants {
			total, weighted := 0, 0.0
			start := time.Now()
			for _, f := range set.funcs {
				g, err := v.run(f)
				if err != nil {
					t.Fatalf("%s on %s: %v", v.name, f.Name, err)
				}
				n, w := countCopies(g)
				total += n
				weighted += w
				static[vi] = append(static[vi], n)
			}
			ns := float64(time.Since(start).Nanoseconds()) / float64(instrs)
			fmt.Fprintf(&report, "  %-24s %8d %14.1f %10.0f\n", v.name, total, weighted, ns)
		}
		for i, f := range set.funcs {
			if static[2][i] > static[0][i] {
				t.Errorf("%s: the fast coalescer leaves %d φ copies, naive instantiation %d", f.Name, static[2][i], static[0][i])
			}
			if static[3][i] > static[2][i] {
				t.Errorf("%s: φ pinning leaves %d φ copies, the fast coalescer alone %d", f.Name, static[3][i], static[2][i])
			}
		}
	}
	t.Log(report.String())
}

// TestDestructIsDeterministic runs Destruct many times on the same
// functions: the output text must never change (no map iteration order
// may leak into it).
func TestDestructIsDeterministic(t *testing.T) {
	sets := comparisonSets(t)
	for _, set := range sets[:3] {
		for _, f := range set.funcs {
			first, err := Destruct(f, DestructOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := mir.Format(first.Func)
			for i := 0; i < 20; i++ {
				d, _ := Destruct(f, DestructOptions{})
				if got := mir.Format(d.Func); got != want {
					t.Fatalf("%s: run %d differs:\n%s\nfirst:\n%s", f.Name, i, got, want)
				}
			}
		}
	}
}

// BenchmarkOutOfSSA times each variant on each set, per mir instruction.
func BenchmarkOutOfSSA(b *testing.B) {
	for _, set := range comparisonSets(b) {
		instrs := 0
		for _, f := range set.funcs {
			instrs += f.NumInstrs()
		}
		for _, v := range variants {
			b.Run(set.name+"/"+strings.ReplaceAll(v.name, " ", "_"), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					for _, f := range set.funcs {
						if _, err := v.run(f); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(instrs), "ns/instr")
			})
		}
	}
}

// BenchmarkDestructScaling times Destruct on generated φ-heavy functions of
// growing size: the time per instruction must stay about flat.
func BenchmarkDestructScaling(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		funcs, err := lower.Module(phiHeavyModule(n, 1), lower.FullTarget())
		if err != nil {
			b.Fatal(err)
		}
		f := funcs[0]
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Destruct(f, DestructOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(f.NumInstrs()), "ns/instr")
		})
	}
}
