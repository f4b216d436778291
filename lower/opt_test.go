package lower

import (
	"math/rand/v2"
	"testing"

	"github.com/kiln-jit/kiln/mir"
)

// slowSimplifyPhis is simplifyPhis as first written, with full passes
// over every φ until one changes nothing: the reference for
// TestSimplifyPhisMatchesReference.
func slowSimplifyPhis(f *mir.Func) {
	alias := map[mir.Reg]mir.Reg{}
	find := func(r mir.Reg) mir.Reg {
		for {
			a, ok := alias[r]
			if !ok {
				return r
			}
			r = a
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			for _, phi := range b.Phis() {
				d := phi.Defs[0]
				if _, dead := alias[d]; dead {
					continue
				}
				same := mir.NoReg
				trivial := true
				for _, u := range phi.Uses {
					u = find(u)
					if u == d || u == same {
						continue
					}
					if same != mir.NoReg {
						trivial = false
						break
					}
					same = u
				}
				if trivial && same != mir.NoReg {
					alias[d] = same
					changed = true
				}
			}
		}
	}
	if len(alias) == 0 {
		return
	}
	for _, b := range f.Blocks {
		instrs := b.Instrs[:0]
		for _, in := range b.Instrs {
			if in.Op == mir.OpPhi {
				if _, dead := alias[in.Defs[0]]; dead {
					continue
				}
			}
			for i, u := range in.Uses {
				in.Uses[i] = find(u)
			}
			instrs = append(instrs, in)
		}
		b.Instrs = instrs
	}
}

// randomPhiWeb builds a function whose blocks hold φs over each other's
// results and a few other values, many of them trivial or trivial once
// others are replaced: only the φs matter to simplifyPhis.
func randomPhiWeb(r *rand.Rand) *mir.Func {
	f := mir.NewFunc("web", 0, nil, nil)
	nb := 1 + r.IntN(6)
	for range nb {
		f.NewBlock()
	}
	base := []mir.Reg{f.NewVReg(mir.GPR), f.NewVReg(mir.GPR)}
	var phis []mir.Reg
	for _, b := range f.Blocks {
		for k := r.IntN(5); k > 0; k-- {
			d := f.NewVReg(mir.GPR)
			phis = append(phis, d)
			b.Append(&mir.Instr{Op: mir.OpPhi, Defs: []mir.Reg{d}})
		}
	}
	all := append(base, phis...)
	for _, b := range f.Blocks {
		for _, in := range b.Phis() {
			for k := 1 + r.IntN(3); k > 0; k-- {
				var u mir.Reg
				switch r.IntN(3) {
				case 0:
					u = in.Defs[0]
				case 1:
					u = base[r.IntN(len(base))]
				default:
					u = all[r.IntN(len(all))]
				}
				in.Uses = append(in.Uses, u)
			}
		}
		b.Append(&mir.Instr{Op: mir.OpRET, Uses: []mir.Reg{all[r.IntN(len(all))]}})
	}
	return f
}

// TestSimplifyPhisMatchesReference compares simplifyPhis with full passes
// on random webs of φs.
func TestSimplifyPhisMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for iter := 0; iter < 3000; iter++ {
		f := randomPhiWeb(r)
		g := f.Clone()
		simplifyPhis(f)
		slowSimplifyPhis(g)
		if got, want := mir.Format(f), mir.Format(g); got != want {
			t.Fatalf("iteration %d: got\n%s\nwant\n%s", iter, got, want)
		}
	}
}
