package cfg

import (
	"math"
	"math/rand/v2"
	"testing"
)

func closeTo(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// cycleSetForest returns the cycle sets f was built from as a forest of
// their own, each set's Headers being the entries Frequencies uses for it:
// the loop's headers for a set that is a loop, the primary header alone
// for a set merged into its parent.
func cycleSetForest(f *LoopForest) *LoopForest {
	ns := &f.cycles
	sf := &LoopForest{Loops: make([]Loop, len(ns.header)), LoopOf: make([]int, len(ns.of))}
	for s := range sf.Loops {
		l := Loop{Header: int(ns.header[s]), Parent: int(ns.parent[s]), Depth: 1, Last: s, Headers: []int{int(ns.header[s])}}
		if l.Parent >= 0 {
			l.Depth = sf.Loops[l.Parent].Depth + 1
			sf.Loops[l.Parent].Children = append(sf.Loops[l.Parent].Children, s)
		}
		if f.kept(int32(s)) {
			l.Headers = f.Loops[ns.loop[s]].Headers
		}
		sf.Loops[s] = l
	}
	for s := len(sf.Loops) - 1; s >= 0; s-- {
		if p := sf.Loops[s].Parent; p >= 0 {
			sf.Loops[p].Last = max(sf.Loops[p].Last, sf.Loops[s].Last)
		}
	}
	for u, s := range ns.of {
		sf.LoopOf[u] = int(s)
		if s >= 0 {
			sf.Loops[s].Blocks = append(sf.Loops[s].Blocks, u)
		}
	}
	return sf
}

// TestFrequenciesAgainstExitLists compares Frequencies with the propagation
// by exit lists on every kind of random graph, irreducible ones included
// (where both apply the same approximation to the same cycle sets).
func TestFrequenciesAgainstExitLists(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for iter := 0; iter < 3000; iter++ {
		var g *Graph
		switch iter % 3 {
		case 0:
			g = richGraph(r, 1+r.IntN(30))
		case 1:
			g = randomGraph(r, 2+r.IntN(30))
		default:
			g = tangledGraph(r, 2+r.IntN(30))
		}
		prob := randomProbs(r, g)
		f := Loops(g)
		got, want := Frequencies(g, f, prob), exitListFrequencies(g, cycleSetForest(f), prob)
		for u := range got {
			if !closeTo(got[u], want[u], 1e-9) {
				t.Fatalf("graph %v entry %d prob %v: freq[%d] = %v, want %v", g.Succs, g.Entry, prob, u, got[u], want[u])
			}
		}
	}
}

// TestFrequenciesShapes checks the frequencies of the scaling shapes, at a
// size small enough for the results to be well conditioned (nested loops
// multiply their iteration counts), against the exact solution (reducible
// shapes) or the exit-list propagation (irreducible ones).
func TestFrequenciesShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			g := sh.build(40)
			prob := randomProbs(r, g)
			f := Loops(g)
			got := Frequencies(g, f, prob)
			want := exitListFrequencies(g, cycleSetForest(f), prob)
			if exact, ok := exactFrequencies(g, prob); ok && isReducible(g) {
				want = exact
			}
			for u := range got {
				if !closeTo(got[u], want[u], 1e-6) {
					t.Fatalf("freq[%d] = %v, want %v", u, got[u], want[u])
				}
			}
		})
	}
}

func TestFrequenciesEmptyAndUnreachable(t *testing.T) {
	if f := Frequencies(New(0, nil), Loops(New(0, nil)), nil); len(f) != 0 {
		t.Fatalf("empty graph: %v", f)
	}
	// 2 is unreachable and jumps into the loop 1 <-> 1.
	g := New(0, [][]int{{1}, {1, 3}, {1}, {}})
	f := Frequencies(g, Loops(g), [][]float64{{1}, {0.75, 0.25}, {1}, {}})
	want := []float64{1, 4, 0, 1}
	for u := range want {
		if !closeTo(f[u], want[u], 1e-12) {
			t.Fatalf("freq = %v, want %v", f, want)
		}
	}
}

// TestFrequenciesSaturate nests loops deep enough that their scales
// overflow float64: every frequency stays finite and at most MaxFrequency,
// and the innermost body saturates.
func TestFrequenciesSaturate(t *testing.T) {
	const d = 2000 // each level scales by 10: 10^2000 overflows
	// Node 2i is header i, 2i+1 its exit; node 2d is the innermost body.
	succs := make([][]int, 2*d+2)
	for i := range d {
		succs[2*i] = []int{2*i + 2, 2*i + 1}
		if i == 0 {
			succs[2*i+1] = []int{2*d + 1}
		} else {
			succs[2*i+1] = []int{2*i - 2}
		}
	}
	succs[2*d] = []int{2*d - 2}
	g := New(0, succs)
	prob := make([][]float64, len(succs))
	for u, ss := range succs {
		switch len(ss) {
		case 2:
			prob[u] = []float64{0.9, 0.1}
		case 1:
			prob[u] = []float64{1}
		}
	}
	freq := Frequencies(g, Loops(g), prob)
	for u, f := range freq {
		if math.IsNaN(f) || math.IsInf(f, 0) || f > MaxFrequency || f < 0 {
			t.Fatalf("node %d: frequency %v", u, f)
		}
	}
	if freq[2*d] != MaxFrequency {
		t.Errorf("innermost body: frequency %v, want the cap %v", freq[2*d], MaxFrequency)
	}
}
