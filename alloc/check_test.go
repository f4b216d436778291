package alloc

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// mutateDestructed breaks d in one random way: an operand or a copy
// source renamed to another register of its class, a copy dropped, or
// two operands of a copy swapped. It reports whether it changed anything.
func mutateDestructed(r *rand.Rand, d *Destructed) bool {
	g := d.Func
	type site struct {
		b, k int
	}
	var sites []site
	for bi, b := range g.Blocks {
		for k, in := range b.Instrs {
			if len(in.Uses) > 0 || len(in.Defs) > 0 {
				sites = append(sites, site{bi, k})
			}
		}
	}
	if len(sites) == 0 || len(g.VRegs) < 2 {
		return false
	}
	s := sites[r.IntN(len(sites))]
	b := g.Blocks[s.b]
	in := b.Instrs[s.k]
	other := func(x mir.Reg) mir.Reg {
		for range 8 {
			y := mir.VReg(r.IntN(len(g.VRegs)))
			if y != x && g.VRegs[y.Index()] == g.RegClass(x) && g.Pin(y) == g.Pin(x) {
				return y
			}
		}
		return x
	}
	switch r.IntN(4) {
	case 0:
		if len(in.Uses) == 0 || !in.Uses[0].IsVirtual() {
			return false
		}
		i := r.IntN(len(in.Uses))
		if !in.Uses[i].IsVirtual() {
			return false
		}
		in.Uses[i] = other(in.Uses[i])
	case 1:
		if len(in.Defs) == 0 || !in.Defs[0].IsVirtual() || in.Op == mir.OpCALL {
			return false
		}
		in.Defs[0] = other(in.Defs[0])
	case 2:
		if in.Op != mir.OpCopy && in.Op != mir.OpParCopy {
			return false
		}
		b.Instrs = append(b.Instrs[:s.k:s.k], b.Instrs[s.k+1:]...)
	default:
		if in.Op != mir.OpParCopy || len(in.Uses) < 2 {
			return false
		}
		in.Uses[0], in.Uses[1] = in.Uses[1], in.Uses[0]
	}
	return true
}

// sameCheckError reports whether two checker errors agree: both nil, or
// the same message (up to the value named as live, which the map-based
// reference picks at random among several).
func sameCheckError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	x, y := a.Error(), b.Error()
	if i := strings.Index(x, " while "); i >= 0 && strings.HasSuffix(x, "merged into it too, is live") {
		return len(y) > i && x[:i] == y[:i] && strings.HasSuffix(y, "merged into it too, is live")
	}
	return x == y
}

// TestCheckDestructedMatchesReference compares CheckDestructed with the
// first, brute-force version of the same checks on Destruct's output for
// the kernels, the test programs and random programs, intact and broken
// in random ways.
func TestCheckDestructedMatchesReference(t *testing.T) {
	funcs := randomSSA(t, 21, 150)
	for _, k := range testprogs.Kernels() {
		fs, err := lower.Module(k.Module, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		funcs = append(funcs, fs...)
	}
	for _, shape := range testprogs.Pathological {
		fs, err := lower.Module(shape.Build(60), lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		funcs = append(funcs, fs...)
	}
	r := rand.New(rand.NewPCG(9, 10))
	broken, caught := 0, 0
	for _, f := range funcs {
		for _, opts := range []DestructOptions{{}, {NoConstraints: true}, {NoCoalesce: true}} {
			d, err := Destruct(f, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckDestructed(f, d); err != nil {
				t.Fatalf("%s %+v: %v\n%s", f.Name, opts, err, mir.Format(d.Func))
			}
			for range 4 {
				m := *d
				m.Func = d.Func.Clone()
				if !mutateDestructed(r, &m) {
					continue
				}
				broken++
				got, want := CheckDestructed(f, &m), slowCheckDestructed(f, &m)
				if !sameCheckError(got, want) {
					t.Fatalf("%s %+v: CheckDestructed says %v, the reference %v\n%s", f.Name, opts, got, want, mir.Format(m.Func))
				}
				if got != nil {
					caught++
				}
			}
		}
	}
	t.Logf("%d broken outputs, %d caught", broken, caught)
}

// TestBackwardLiveness checks the block liveness of the checker against
// mir.ComputeSSALiveness on random functions.
func TestBackwardLiveness(t *testing.T) {
	for _, f := range randomSSA(t, 23, 60) {
		want := mir.ComputeSSALiveness(f)
		got := valueLiveOut(f)
		for b := range f.Blocks {
			if w := want.Out(b); !slices.Equal(w, got[b]) {
				t.Fatalf("%s b%d: live out %v, want %v\n%s", f.Name, b, got[b], w, mir.Format(f))
			}
		}
	}
}
