package cfg

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// richGraph returns a random graph of n nodes whose shape varies with the
// draw: sparse or dense, mostly forward (loop-like) or arbitrary, with self
// loops, parallel edges, nodes without successors and unreachable nodes.
func richGraph(r *rand.Rand, n int) *Graph {
	succs := make([][]int, n)
	maxOut := 1 + r.IntN(4)
	forward := r.Float64()       // share of edges that go to a later node
	unreachable := r.IntN(3)     // the last nodes only jump into the graph
	selfLoops := r.Float64() / 4 // probability of a self loop per node
	for u := range succs {
		k := r.IntN(maxOut + 1)
		for range k {
			var v int
			switch {
			case u+1 < n && r.Float64() < forward:
				v = u + 1 + r.IntN(min(n-u-1, 3))
			default:
				v = r.IntN(n)
			}
			succs[u] = append(succs[u], v)
		}
		if r.Float64() < selfLoops {
			succs[u] = append(succs[u], u)
		}
		if len(succs[u]) > 0 && r.IntN(8) == 0 {
			succs[u] = append(succs[u], succs[u][0]) // parallel edge
		}
	}
	// Keep the last few nodes out of reach: nothing reachable jumps to
	// them, but they may jump anywhere.
	cut := n - unreachable
	for u := 0; u < cut; u++ {
		for i, v := range succs[u] {
			if v >= cut {
				succs[u][i] = v % max(cut, 1)
			}
		}
	}
	return New(r.IntN(max(cut, 1)), succs)
}

func sameDomTree(t *testing.T, g *Graph, got, want *DomTree) {
	t.Helper()
	if !slices.Equal(got.Idom, want.Idom) || !slices.Equal(got.Pre, want.Pre) || !slices.Equal(got.Last, want.Last) || !slices.Equal(got.Order, want.Order) {
		t.Fatalf("graph %v entry %d:\nidom %v pre %v last %v order %v\nwant idom %v pre %v last %v order %v",
			g.Succs, g.Entry, got.Idom, got.Pre, got.Last, got.Order, want.Idom, want.Pre, want.Last, want.Order)
	}
	for u := range got.Children {
		if !slices.Equal(got.Children[u], want.Children[u]) {
			t.Fatalf("graph %v: children of %d = %v, want %v", g.Succs, u, got.Children[u], want.Children[u])
		}
	}
}

// TestDominatorsAgainstCHK compares Lengauer-Tarjan with the iterative
// algorithm of Cooper, Harvey and Kennedy on random graphs.
func TestDominatorsAgainstCHK(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 3000; iter++ {
		var g *Graph
		if iter%2 == 0 {
			g = richGraph(r, 1+r.IntN(40))
		} else {
			g = randomGraph(r, 2+r.IntN(30))
		}
		sameDomTree(t, g, Dominators(g), chkDominators(g))
	}
}

// TestDominatorsRichAgainstBruteForce checks dominance on the richer random
// graphs against its definition.
func TestDominatorsRichAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for iter := 0; iter < 300; iter++ {
		g := richGraph(r, 1+r.IntN(16))
		d := Dominators(g)
		for a := 0; a < g.Len(); a++ {
			for b := 0; b < g.Len(); b++ {
				if got, want := d.Dominates(a, b), bruteDominates(g, a, b); got != want {
					t.Fatalf("graph %v entry %d: Dominates(%d,%d) = %v, want %v", g.Succs, g.Entry, a, b, got, want)
				}
			}
		}
	}
}

func TestDominatorsTable(t *testing.T) {
	tests := []struct {
		name  string
		entry int
		succs [][]int
		idom  []int
	}{
		{"empty", 0, [][]int{}, []int{}},
		{"single", 0, [][]int{{}}, []int{-1}},
		{"self loop", 0, [][]int{{0, 1}, {1}}, []int{-1, 0}},
		{"diamond", 0, [][]int{{1, 2}, {3}, {3}, {}}, []int{-1, 0, 0, 0}},
		{"parallel edges", 0, [][]int{{1, 1}, {2, 2}, {}}, []int{-1, 0, 1}},
		{"unreachable jumps in", 0, [][]int{{1}, {2}, {}, {2}}, []int{-1, 0, 1, -1}},
		{"irreducible", 0, [][]int{{1, 2}, {2}, {1, 3}, {}}, []int{-1, 0, 0, 2}},
		{"entry not 0", 2, [][]int{{1}, {0}, {0}}, []int{2, 0, -1}},
		// The classic graph of Lengauer and Tarjan's paper (R=0, A..L=1..12).
		{"lengauer-tarjan", 0, [][]int{
			{1, 2, 3}, {4}, {1, 4, 5}, {6, 7}, {12}, {8}, {9}, {9, 10},
			{5, 11}, {11}, {9}, {0, 9}, {8},
		}, []int{-1, 0, 0, 0, 0, 0, 3, 3, 0, 0, 7, 0, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := New(tc.entry, tc.succs)
			d := Dominators(g)
			if !slices.Equal(d.Idom, tc.idom) {
				t.Fatalf("idom = %v, want %v", d.Idom, tc.idom)
			}
			sameDomTree(t, g, d, chkDominators(g))
		})
	}
}
