package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/mir"
)

// randomEdges builds a function of n empty blocks with random edges,
// parallel ones included, and shuffled predecessor lists.
func randomEdges(r *rand.Rand) *mir.Func {
	n := 2 + r.IntN(6)
	f := mir.NewFunc("edges", 0, nil, nil)
	for range n {
		f.NewBlock()
	}
	for b := range n {
		for k := r.IntN(4); k > 0; k-- {
			f.AddEdge(b, r.IntN(n), 0.5)
		}
	}
	for _, b := range f.Blocks {
		r.Shuffle(len(b.Preds), func(i, j int) { b.Preds[i], b.Preds[j] = b.Preds[j], b.Preds[i] })
	}
	return f
}

// TestSplitEdgeFindsTheEdge checks that SplitEdge replaces the
// predecessor entry the edge stands for, parallel edges included, and
// that SplitCriticalEdges splits the same entries as SplitEdge edge by
// edge.
func TestSplitEdgeFindsTheEdge(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for iter := 0; iter < 1000; iter++ {
		f := randomEdges(r)
		b := f.Blocks[r.IntN(len(f.Blocks))]
		if len(b.Succs) > 0 {
			i := r.IntN(len(b.Succs))
			s := f.Blocks[b.Succs[i]]
			want := mir.PredPositions(f).At(b.ID, i)
			n := SplitEdge(f, b, i)
			if s.Preds[want] != n.ID || b.Succs[i] != n.ID {
				t.Fatalf("iteration %d: split b%d's edge %d: preds of b%d %v, want b%d at %d", iter, b.ID, i, s.ID, s.Preds, n.ID, want)
			}
		}
		g, h := randomEdges(rand.New(rand.NewPCG(uint64(iter), 7))), randomEdges(rand.New(rand.NewPCG(uint64(iter), 7)))
		for _, e := range mir.CriticalEdges(h) {
			SplitEdge(h, h.Blocks[e.Block], e.Succ)
		}
		SplitCriticalEdges(g)
		for k := range g.Blocks {
			if !slices.Equal(g.Blocks[k].Preds, h.Blocks[k].Preds) || !slices.Equal(g.Blocks[k].Succs, h.Blocks[k].Succs) {
				t.Fatalf("iteration %d: b%d: preds %v succs %v, want %v %v", iter, k, g.Blocks[k].Preds, g.Blocks[k].Succs, h.Blocks[k].Preds, h.Blocks[k].Succs)
			}
		}
	}
}

// TestSuccPositions checks succPositions against searching the
// predecessor's successors for every predecessor entry.
func TestSuccPositions(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for iter := 0; iter < 500; iter++ {
		f := randomEdges(r)
		got := succPositions(f)
		for _, b := range f.Blocks {
			for k, p := range b.Preds {
				want := -1
				for i, pos := range mir.PredPositions(f).Row(p) {
					if f.Blocks[p].Succs[i] == b.ID && int(pos) == k {
						want = i
					}
				}
				if got[b.ID][k] != want {
					t.Fatalf("iteration %d: b%d pred %d (b%d): got %d, want %d", iter, b.ID, k, p, got[b.ID][k], want)
				}
			}
		}
	}
}
