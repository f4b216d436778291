package alloc

import (
	"testing"

	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// destructResources runs Destruct's steps on f up to building the
// resources (with constraints), as Destruct does.
func destructResources(t testing.TB, f *mir.Func) *resources {
	t.Helper()
	g := f.Clone()
	splitPhiEdges(g)
	s := newSSAInfo(g)
	eligible := make([]bool, len(g.VRegs))
	for v := range eligible {
		eligible[v] = s.defBlock[v] >= 0
	}
	for _, b := range g.Blocks {
		for _, in := range b.Instrs {
			for i, d := range in.Defs {
				if d.IsVirtual() && g.DefSpec(in, i).Fixed.IsPhys() {
					eligible[d.Index()] = false
				}
			}
		}
	}
	var stats DestructStats
	co := newCoalescer(s, eligible, &stats)
	co.unionPhis()
	co.unionTied()
	co.computeCosts()
	classes := co.classes()
	co.resolve(classes)
	return newResources(s, co, classes, true)
}

// TestKilledMatchesDefinition compares the killed values computeKilled
// finds with killedInitially, value by value, on the kernels, the test
// programs, random programs and small pathological programs (many calls,
// long call chains).
func TestKilledMatchesDefinition(t *testing.T) {
	mods := checkModules()
	for _, shape := range testprogs.Pathological {
		mods = append(mods, shape.Build(300))
	}
	mods = append(mods, testprogs.GeneratedModule(2000, 3))
	var funcs []*mir.Func
	for _, m := range mods {
		fs, err := lower.Module(m, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		funcs = append(funcs, fs...)
	}
	funcs = append(funcs, randomSSA(t, 17, 200)...)
	killed := 0
	for _, f := range funcs {
		rs := destructResources(t, f)
		for p := range rs.events {
			members := rs.members[rs.root(rs.n+p)]
			for _, w := range members {
				want := rs.killedInitially(w, p, members)
				if rs.killed[w] != want {
					t.Fatalf("%s: %s in %s: killed %v, want %v\n%s", f.Name, mir.VReg(w), mir.Reg(p), rs.killed[w], want, mir.Format(rs.s.f))
				}
				if want {
					killed++
				}
			}
		}
	}
	t.Logf("%d functions, %d killed values", len(funcs), killed)
}

// TestEventIndex checks eventIndex.others against a scan of the events.
func TestEventIndex(t *testing.T) {
	events := []regEvent{
		{block: 0, idx: 2, value: 1},
		{block: 0, idx: 2, value: -1},
		{block: 0, idx: 5, value: 3, before: true},
		{block: 1, idx: 0, value: 1, before: true},
		{block: 1, idx: 4, value: 1},
		{block: 2, idx: 1, value: 2},
	}
	x := newEventIndex(events)
	for v := int32(0); v < 4; v++ {
		for b := int32(0); b < 3; b++ {
			for lo := int32(-2); lo < 7; lo++ {
				for hi := lo - 1; hi < 8; hi++ {
					want := false
					for _, e := range events {
						p := e.idx
						if e.before {
							p--
						}
						if e.block == b && p >= lo && p < hi && e.value != v {
							want = true
						}
					}
					if got := x.others(v, b, lo, hi); got != want {
						t.Fatalf("others(v%d, b%d, [%d, %d)) = %v, want %v", v, b, lo, hi, got, want)
					}
				}
			}
		}
	}
}
