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

// pinningFuncs returns the functions the pinning tests run on: the
// kernels and test programs, every pathological shape at 300
// instructions, a generated module of 2000 instructions per seed of
// generated and 200 random SSA functions per seed of random.
func pinningFuncs(t *testing.T, generated, random []uint64) []*mir.Func {
	t.Helper()
	mods := checkModules()
	for _, shape := range testprogs.Pathological {
		mods = append(mods, shape.Build(300))
	}
	for _, seed := range generated {
		mods = append(mods, testprogs.GeneratedModule(2000, seed))
	}
	var funcs []*mir.Func
	for _, m := range mods {
		fs, err := lower.Module(m, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		funcs = append(funcs, fs...)
	}
	for _, seed := range random {
		funcs = append(funcs, randomSSA(t, seed, 200)...)
	}
	return funcs
}

// TestKilledMatchesDefinition compares the killed values computeKilled
// finds with killedInitially, value by value, on the kernels, the test
// programs, random programs and small pathological programs (many calls,
// long call chains).
func TestKilledMatchesDefinition(t *testing.T) {
	funcs := pinningFuncs(t, []uint64{3}, []uint64{17})
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

// physInterfereByDefinition is physInterfere as defined: every value of
// vs against every write of the register and every value pinned to it.
func (rs *resources) physInterfereByDefinition(r mir.Reg, res int, vs []int) bool {
	s := rs.s
	for _, v := range vs {
		if s.f.VRegs[v] != r.Class() || rs.definerUses(v, r) {
			return true
		}
		for _, e := range rs.events[physIndex(r)] {
			if int(e.value) != v && rs.liveAtEvent(v, e) {
				return true
			}
		}
		for _, w := range rs.members[res] {
			if s.interfere(v, w) && (!s.dominatesDef(w, v) || !rs.killed[w]) {
				return true
			}
		}
	}
	return false
}

// TestPhysInterfereMatchesDefinition runs φ and use pinning on the same
// functions as TestKilledMatchesDefinition, plus pathological shapes with
// many values pinned to one register, and compares every answer of
// physInterfere (which searches the index of pinned values and the event
// index) with physInterfereByDefinition.
func TestPhysInterfereMatchesDefinition(t *testing.T) {
	funcs := pinningFuncs(t, []uint64{3, 11}, []uint64{17, 23})
	var questions, yes int
	for _, f := range funcs {
		rs := destructResources(t, f)
		rs.checkPhys = func(r mir.Reg, res int, vs []int, got bool) {
			questions++
			if got {
				yes++
			}
			if want := rs.physInterfereByDefinition(r, res, vs); got != want {
				t.Fatalf("%s: pinning %v to %s: interferes %v, want %v\n%s", f.Name, vs, r, got, want, mir.Format(rs.s.f))
			}
		}
		var stats DestructStats
		rs.pinPhis(&stats)
		rs.pinUses(&stats)
	}
	t.Logf("%d functions, %d questions, %d interfering", len(funcs), questions, yes)
	if questions == 0 || yes == 0 || yes == questions {
		t.Errorf("the functions ask %d questions, %d interfering: both answers must occur", questions, yes)
	}
}
