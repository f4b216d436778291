package cfg

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// A shape builds a graph of about n nodes.
type shape struct {
	name  string
	build func(n int) *Graph
}

// shapes are the graphs the scaling tests and benchmarks grow.
var shapes = []shape{
	{"deep-nest", deepNest},
	{"chain", chain},
	{"two-way-chain", twoWayChain},
	{"tangle", tangle},
	{"two-entry-ladder", twoEntryLadder},
	{"two-entry-nest", twoEntryNest},
	{"random", sparseRandom},
}

// deepNest has d = (n-3)/2 nested loops: the entry 0 goes to the outermost
// header h_1; header h_i (node i) goes to h_{i+1} and to the exit e_i
// (node d+1+i); the innermost body B (node d+1) jumps back to h_d; e_i
// jumps back to h_{i-1}, and e_1 leaves to the return node 2d+2.
func deepNest(n int) *Graph {
	d := max(1, (n-3)/2)
	succs := make([][]int, 2*d+3)
	succs[0] = []int{1}
	for i := 1; i <= d; i++ {
		succs[i] = []int{i + 1, d + 1 + i}
		if i > 1 {
			succs[d+1+i] = []int{i - 1}
		} else {
			succs[d+1+i] = []int{2*d + 2}
		}
	}
	succs[d+1] = []int{d}
	return New(0, succs)
}

// chain is the straight line 0 -> 1 -> ... -> n-1.
func chain(n int) *Graph {
	succs := make([][]int, n)
	for i := 0; i+1 < n; i++ {
		succs[i] = []int{i + 1}
	}
	return New(0, succs)
}

// twoWayChain links every node to the next and back: loops nested n-1
// deep, all reducible.
func twoWayChain(n int) *Graph {
	succs := make([][]int, n)
	for i := 0; i+1 < n; i++ {
		succs[i] = append(succs[i], i+1)
		succs[i+1] = append(succs[i+1], i)
	}
	return New(0, succs)
}

// tangle is a two-way chain c_1..c_h (nodes 1..h, nested h deep) entered
// at its start, and a second chain s_1..s_h (nodes h+1..2h) every node of
// which also jumps into the middle and into the deepest node of the first:
// irreducible loops whose extra entries come from many edges that each
// enter half the nest or all of it.
func tangle(n int) *Graph {
	h := max(2, (n-1)/2)
	succs := make([][]int, 2*h+1)
	succs[0] = []int{1, h + 1}
	for i := 1; i < h; i++ {
		succs[i] = append(succs[i], i+1)
		succs[i+1] = append(succs[i+1], i)
	}
	for j := h + 1; j <= 2*h; j++ {
		if j < 2*h {
			succs[j] = append(succs[j], j+1)
		}
		succs[j] = append(succs[j], h/2, h)
	}
	return New(0, succs)
}

// twoEntryLadder is a sequence of irreducible loops: rung k has nodes
// p, a, b (3k+1..3k+3) with p -> a, b; a -> b; b -> a and on to the next
// rung's p.
func twoEntryLadder(n int) *Graph {
	rungs := max(1, (n-2)/3)
	succs := make([][]int, 3*rungs+2)
	succs[0] = []int{1}
	for k := range rungs {
		p, a, b := 3*k+1, 3*k+2, 3*k+3
		succs[p] = []int{a, b}
		succs[a] = []int{b}
		succs[b] = []int{a, b + 1}
	}
	return New(0, succs)
}

// twoEntryNest nests irreducible loops: level i has nodes a_i, b_i
// (2i-1, 2i) on a cycle a_i <-> b_i, entered from a_{i-1} at both; b_i
// also goes back out to a_{i-1}, and b_1 leaves to the return node.
func twoEntryNest(n int) *Graph {
	levels := max(1, (n-2)/2)
	ret := 2*levels + 1
	succs := make([][]int, ret+1)
	succs[0] = []int{1, 2}
	for i := 1; i <= levels; i++ {
		a, b := 2*i-1, 2*i
		succs[a] = append(succs[a], b)
		if i < levels {
			succs[a] = append(succs[a], a+2, b+2)
		}
		succs[b] = append(succs[b], a)
		if i > 1 {
			succs[b] = append(succs[b], a-2)
		} else {
			succs[b] = append(succs[b], ret)
		}
	}
	return New(0, succs)
}

// sparseRandom has two random successors per node (one for a tenth of the
// nodes), a fixed seed per size.
func sparseRandom(n int) *Graph {
	r := rand.New(rand.NewPCG(uint64(n), 99))
	succs := make([][]int, n)
	for u := range succs {
		k := 2
		if r.IntN(10) == 0 {
			k = 1
		}
		for range k {
			succs[u] = append(succs[u], r.IntN(n))
		}
	}
	return New(0, succs)
}

func uniformProbs(g *Graph) [][]float64 {
	prob := make([][]float64, g.Len())
	for u, ss := range g.Succs {
		prob[u] = make([]float64, len(ss))
		for i := range ss {
			prob[u][i] = 1 / float64(len(ss))
		}
	}
	return prob
}

// work is what one run of the three analyses costs: elementary steps as
// the analyses count them, and bytes allocated.
type work struct{ steps, bytes uint64 }

func measure(g *Graph, prob [][]float64) work {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, s1 := findLoops(g)
	_, s2 := dominators(g)
	_, s3 := frequencies(g, f, prob)
	runtime.ReadMemStats(&after)
	return work{steps: uint64(s1 + s2 + s3), bytes: after.TotalAlloc - before.TotalAlloc}
}

// TestScaling grows every shape from 10,000 to 100,000 nodes and fails when
// the work of Loops, Dominators and Frequencies grows more than 20 times
// (near-linear growth is about 10 times; quadratic growth is 100).
func TestScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("builds graphs of 100,000 nodes")
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			small, large := sh.build(10_000), sh.build(100_000)
			ws, wl := measure(small, uniformProbs(small)), measure(large, uniformProbs(large))
			growth := float64(large.Len()) / float64(small.Len())
			steps := float64(wl.steps) / float64(ws.steps)
			bytes := float64(wl.bytes) / float64(ws.bytes)
			t.Logf("nodes %d -> %d (x%.1f): steps %d -> %d (x%.1f), bytes %d -> %d (x%.1f)",
				small.Len(), large.Len(), growth, ws.steps, wl.steps, steps, ws.bytes, wl.bytes, bytes)
			if steps > 2*growth || bytes > 2*growth {
				t.Errorf("work grows faster than near-linearly")
			}
		})
	}
}

// TestDeepNestForest checks the forest of the deep nest at a depth the
// recursive decomposition could not reach.
func TestDeepNestForest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a graph of 200,000 nodes")
	}
	const d = 100_000
	g := deepNest(2*d + 3)
	f := Loops(g)
	if len(f.Loops) != d {
		t.Fatalf("%d loops, want %d", len(f.Loops), d)
	}
	for i := range f.Loops {
		l := &f.Loops[i]
		// Loop i is headed by h_{i+1} and holds e_{i+2} directly (the
		// innermost holds the body instead).
		wantBlocks := []int{i + 1, d + 3 + i}
		if i == d-1 {
			wantBlocks = []int{d, d + 1}
		}
		if l.Header != i+1 || len(l.Headers) != 1 || l.Depth != i+1 || l.Parent != i-1 || l.Last != d-1 ||
			len(l.Blocks) != 2 || l.Blocks[0] != wantBlocks[0] || l.Blocks[1] != wantBlocks[1] {
			t.Fatalf("loop %d = %+v", i, *l)
		}
	}
	if f.Depth(d+1) != d || !f.Contains(0, d+1) || f.Contains(1, d+2) || !f.IsHeaderOf(d-1, d) {
		t.Fatal("queries on the deep nest are wrong")
	}
	freq := Frequencies(g, f, uniformProbs(g))
	if !closeTo(freq[2*d+2], 1, 1e-9) || !closeTo(freq[1], 2, 1e-9) {
		t.Fatalf("freq of the return node %v and outermost header %v, want 1 and 2", freq[2*d+2], freq[1])
	}
}

// benchSizes are the node counts of the benchmarks; the deep nest also runs
// with d = 100,000 loops.
var benchSizes = []int{10_000, 100_000}

// BenchmarkAnalyses reports the cost per node of each analysis on each
// shape: go test -bench Analyses -run '^$' ./internal/cfg
func BenchmarkAnalyses(b *testing.B) {
	for _, sh := range shapes {
		sizes := benchSizes
		if sh.name == "deep-nest" {
			sizes = append(sizes[:len(sizes):len(sizes)], 200_003)
		}
		for _, n := range sizes {
			g := sh.build(n)
			prob := uniformProbs(g)
			f := Loops(g)
			runs := []struct {
				name string
				run  func()
			}{
				{"loops", func() { Loops(g) }},
				{"dominators", func() { Dominators(g) }},
				{"frequencies", func() { Frequencies(g, f, prob) }},
				{"all", func() { Frequencies(g, Loops(g), prob); Dominators(g) }},
			}
			for _, r := range runs {
				b.Run(fmt.Sprintf("%s/n=%d/%s", sh.name, g.Len(), r.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						r.run()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(g.Len()), "ns/node")
				})
			}
		}
	}
}
