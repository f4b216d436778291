package cfg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// diamondLoop is: 0 -> 1; 1 -> 2, 3; 2 -> 4; 3 -> 4; 4 -> 1 (back), 5; 6 is
// unreachable and jumps into the loop.
func diamondLoop() *Graph {
	return New(0, [][]int{{1}, {2, 3}, {4}, {4}, {1, 5}, {}, {2}})
}

func TestReversePostorder(t *testing.T) {
	g := diamondLoop()
	rpo := g.ReversePostorder()
	if want := []int{0, 1, 3, 2, 4, 5}; !slices.Equal(rpo, want) {
		t.Fatalf("rpo = %v, want %v", rpo, want)
	}
	if r := g.Reachable(); r[6] || !r[5] {
		t.Fatalf("reachable = %v", r)
	}
}

func TestCriticalEdges(t *testing.T) {
	g := New(0, [][]int{{1, 2}, {2}, {}})
	if !g.IsCriticalEdge(0, 1) || g.IsCriticalEdge(0, 0) || g.IsCriticalEdge(1, 0) {
		t.Fatal("critical edge classification is wrong")
	}
}

// bruteDominates: a dominates b iff b is unreachable from the entry once a is
// removed (and both are reachable).
func bruteDominates(g *Graph, a, b int) bool {
	reach := g.Reachable()
	if !reach[a] || !reach[b] {
		return false
	}
	if a == b {
		return true
	}
	seen := make([]bool, g.Len())
	var stack []int
	if g.Entry != a {
		stack = append(stack, g.Entry)
		seen[g.Entry] = true
	}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if u == b {
			return false
		}
		for _, v := range g.Succs[u] {
			if v != a && !seen[v] {
				seen[v] = true
				stack = append(stack, v)
			}
		}
	}
	return true
}

func randomGraph(r *rand.Rand, n int) *Graph {
	succs := make([][]int, n)
	for u := range succs {
		k := r.IntN(3)
		if u == n-1 {
			k = 0
		}
		for i := 0; i < k; i++ {
			succs[u] = append(succs[u], r.IntN(n))
		}
	}
	return New(0, succs)
}

func TestDominatorsAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 300; iter++ {
		g := randomGraph(r, 2+r.IntN(14))
		d := Dominators(g)
		for a := 0; a < g.Len(); a++ {
			for b := 0; b < g.Len(); b++ {
				if got, want := d.Dominates(a, b), bruteDominates(g, a, b); got != want {
					t.Fatalf("graph %v: Dominates(%d,%d) = %v, want %v", g.Succs, a, b, got, want)
				}
			}
		}
		for u, id := range d.Idom {
			if id >= 0 && !d.StrictlyDominates(id, u) {
				t.Fatalf("idom(%d) = %d does not strictly dominate it", u, id)
			}
		}
	}
}

func TestLoopsNestedAndIrreducible(t *testing.T) {
	// 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> 2 | 4; 4 -> 1 | 5.
	g := New(0, [][]int{{1}, {2}, {3}, {2, 4}, {1, 5}, {}})
	f := Loops(g)
	if len(f.Loops) != 2 {
		t.Fatalf("got %d loops, want 2: %+v", len(f.Loops), f.Loops)
	}
	outer, inner := f.Loops[0], f.Loops[1]
	if outer.Header != 1 || outer.Depth != 1 || !slices.Equal(outer.Blocks, []int{1, 4}) || !slices.Equal(loopNodes(f, 0), []int{1, 2, 3, 4}) {
		t.Errorf("outer loop = %+v", outer)
	}
	if inner.Header != 2 || inner.Depth != 2 || inner.Parent != 0 || !slices.Equal(inner.Blocks, []int{2, 3}) {
		t.Errorf("inner loop = %+v", inner)
	}
	wantDepth := []int{0, 1, 2, 2, 1, 0}
	for u, w := range wantDepth {
		if f.Depth(u) != w {
			t.Errorf("depth(%d) = %d, want %d", u, f.Depth(u), w)
		}
	}
	if !f.Contains(0, 3) || f.Contains(1, 4) || !f.IsHeader(2) || f.IsHeader(3) {
		t.Error("Contains/IsHeader wrong")
	}

	// Irreducible: 0 -> 1, 2; 1 <-> 2; 2 -> 3.
	g = New(0, [][]int{{1, 2}, {2}, {1, 3}, {}})
	f = Loops(g)
	if len(f.Loops) != 1 || !f.Loops[0].Irreducible() || len(f.Loops[0].Headers) != 2 {
		t.Fatalf("irreducible loop not found: %+v", f.Loops)
	}

	// Self loop and an entry that is a loop header.
	g = New(0, [][]int{{0, 1}, {1}})
	f = Loops(g)
	if len(f.Loops) != 2 || f.Loops[0].Header != 0 || f.Loops[1].Header != 1 {
		t.Fatalf("self loops: %+v", f.Loops)
	}
}

func TestLoopsRandomInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 300; iter++ {
		g := randomGraph(r, 2+r.IntN(20))
		f := Loops(g)
		d := Dominators(g)
		for li, l := range f.Loops {
			in := map[int]bool{}
			for _, u := range l.Blocks {
				if f.LoopOf[u] != li {
					t.Fatalf("block %d of loop %d has innermost loop %d", u, li, f.LoopOf[u])
				}
			}
			for _, u := range loopNodes(f, li) {
				in[u] = true
				if !f.Contains(li, u) {
					t.Fatalf("loop %d does not contain its block %d", li, u)
				}
			}
			// Every header is an entry; a reducible loop's header dominates
			// all its blocks.
			for _, h := range l.Headers {
				if !in[h] {
					t.Fatalf("header %d outside loop", h)
				}
			}
			if !l.Irreducible() {
				for _, u := range loopNodes(f, li) {
					if !d.Dominates(l.Header, u) {
						t.Fatalf("graph %v: header %d of reducible loop %+v does not dominate %d", g.Succs, l.Header, l, u)
					}
				}
			}
			if l.Parent >= 0 {
				for _, u := range loopNodes(f, li) {
					if !f.Contains(l.Parent, u) {
						t.Fatalf("inner loop block %d outside parent", u)
					}
				}
			}
		}
	}
}

// loopNodes returns every node of loop l, inner loops' nodes included: the
// direct blocks of loops l through Last, sorted.
func loopNodes(f *LoopForest, l int) []int {
	var nodes []int
	for x := l; x <= f.Loops[l].Last; x++ {
		nodes = append(nodes, f.Loops[x].Blocks...)
	}
	slices.Sort(nodes)
	return nodes
}

// exactFrequencies solves f = e + P^T f by Gaussian elimination.
func exactFrequencies(g *Graph, prob [][]float64) ([]float64, bool) {
	n := g.Len()
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n+1)
		a[i][i] = 1
	}
	a[g.Entry][n] = 1
	for u, ss := range g.Succs {
		for i, v := range ss {
			a[v][u] -= prob[u][i]
		}
	}
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		if math.Abs(a[piv][col]) < 1e-9 {
			return nil, false
		}
		a[col], a[piv] = a[piv], a[col]
		for r := 0; r < n; r++ {
			if r != col && a[r][col] != 0 {
				k := a[r][col] / a[col][col]
				for c := col; c <= n; c++ {
					a[r][c] -= k * a[col][c]
				}
			}
		}
	}
	f := make([]float64, n)
	for i := range f {
		f[i] = a[i][n] / a[i][i]
	}
	return f, true
}

func randomProbs(r *rand.Rand, g *Graph) [][]float64 {
	prob := make([][]float64, g.Len())
	for u, ss := range g.Succs {
		prob[u] = make([]float64, len(ss))
		sum := 0.0
		for i := range ss {
			prob[u][i] = 0.05 + r.Float64()
			sum += prob[u][i]
		}
		for i := range ss {
			prob[u][i] /= sum
		}
	}
	return prob
}

func TestFrequenciesSimpleLoop(t *testing.T) {
	// 0 -> 1 (header) -> 2 -> 1 (0.9) | 3 (0.1)
	g := New(0, [][]int{{1}, {2}, {1, 3}, {}})
	prob := [][]float64{{1}, {1}, {0.9, 0.1}, {}}
	f := Frequencies(g, Loops(g), prob)
	want := []float64{1, 10, 10, 1}
	for i := range want {
		if math.Abs(f[i]-want[i]) > 1e-9 {
			t.Fatalf("freq = %v, want %v", f, want)
		}
	}
}

func TestFrequenciesHotLoopAndNoExit(t *testing.T) {
	g := New(0, [][]int{{1}, {1, 2}, {}})
	prob := [][]float64{{1}, {0.999999, 0.000001}, {}}
	f := Frequencies(g, Loops(g), prob)
	if math.Abs(f[1]-1e6)/1e6 > 1e-6 || math.Abs(f[2]-1) > 1e-6 {
		t.Fatalf("hot loop freq = %v", f)
	}
	// A loop without exits gets a large, finite frequency.
	g = New(0, [][]int{{1}, {1}})
	f = Frequencies(g, Loops(g), [][]float64{{1}, {1}})
	if math.IsInf(f[1], 0) || math.IsNaN(f[1]) || f[1] < 1e9 {
		t.Fatalf("endless loop freq = %v", f)
	}
}

func isReducible(g *Graph) bool {
	for _, l := range Loops(g).Loops {
		if l.Irreducible() {
			return false
		}
	}
	return true
}

func TestFrequenciesMatchLinearSystem(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	compared, irreducible := 0, 0
	for iter := 0; iter < 2000; iter++ {
		g := randomGraph(r, 2+r.IntN(16))
		prob := randomProbs(r, g)
		got := Frequencies(g, Loops(g), prob)
		for u, f := range got {
			if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				t.Fatalf("graph %v: freq[%d] = %v", g.Succs, u, f)
			}
		}
		exact, ok := exactFrequencies(g, prob)
		if !ok {
			continue
		}
		if !isReducible(g) {
			irreducible++
			continue
		}
		compared++
		for u := range got {
			if math.Abs(got[u]-exact[u]) > 1e-6*math.Max(1, exact[u]) {
				t.Fatalf("graph %v prob %v: freq[%d] = %v, exact %v", g.Succs, prob, u, got[u], exact[u])
			}
		}
	}
	if compared < 500 || irreducible == 0 {
		t.Fatalf("compared %d reducible graphs (irreducible: %d); the generator needs tuning", compared, irreducible)
	}
}
