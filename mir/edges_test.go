package mir

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// edgeFunc builds a function with the given successor lists and, when
// preds is not nil, the given predecessor lists (otherwise the ones the
// successors imply, in block order).
func edgeFunc(succs, preds [][]int) *Func {
	f := NewFunc("edges", 0, nil, nil)
	for range succs {
		f.NewBlock()
	}
	for b, ss := range succs {
		for _, s := range ss {
			f.AddEdge(b, s, 1/float64(len(ss)))
		}
	}
	for b, ps := range preds {
		f.Blocks[b].Preds = ps
	}
	return f
}

// slowPredPositions pairs edges by counting occurrences, one edge at a
// time.
func slowPredPositions(f *Func) [][]int {
	out := make([][]int, len(f.Blocks))
	for _, b := range f.Blocks {
		for k, s := range b.Succs {
			occurrence := 0
			for _, t := range b.Succs[:k] {
				if t == s {
					occurrence++
				}
			}
			pos := -1
			for i, p := range f.Blocks[s].Preds {
				if p == b.ID {
					if occurrence == 0 {
						pos = i
						break
					}
					occurrence--
				}
			}
			out[b.ID] = append(out[b.ID], pos)
		}
	}
	return out
}

// predRows returns the table as a row of positions per block.
func predRows(p EdgePositions) [][]int {
	rows := make([][]int, p.Blocks())
	for b := range rows {
		for _, i := range p.Row(b) {
			rows[b] = append(rows[b], int(i))
		}
	}
	return rows
}

func TestPredPositions(t *testing.T) {
	tests := []struct {
		name         string
		succs, preds [][]int
		want         [][]int
	}{
		{"diamond", [][]int{{1, 2}, {3}, {3}, nil}, nil, [][]int{{0, 0}, {0}, {1}, {}}},
		{"join listed in another order", [][]int{{1, 2}, {3}, {3}, nil}, [][]int{nil, {0}, {0}, {2, 1}}, [][]int{{0, 0}, {1}, {0}, {}}},
		{"parallel edges", [][]int{{1, 1, 2}, {2}, nil}, nil, [][]int{{0, 1, 0}, {1}, {}}},
		{"parallel edges interleaved", [][]int{{2, 1, 2}, {2}, nil}, [][]int{nil, {0}, {1, 0, 0}}, [][]int{{1, 0, 2}, {0}, {}}},
		{"self loop", [][]int{{1}, {1, 2}, nil}, nil, [][]int{{0}, {1, 0}, {}}},
		{"missing predecessor entry", [][]int{{1, 1}, nil}, [][]int{nil, {0}}, [][]int{{0, -1}, {}}},
		{"no edges", [][]int{nil}, nil, [][]int{{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := edgeFunc(tt.succs, tt.preds)
			got := predRows(PredPositions(f))
			for b := range tt.want {
				if !slices.Equal(got[b], tt.want[b]) && len(got[b])+len(tt.want[b]) > 0 {
					t.Errorf("b%d: got %v, want %v", b, got[b], tt.want[b])
				}
			}
		})
	}
}

// TestPredPositionsRandom compares PredPositions with pairing edges one at
// a time on random graphs with parallel edges and shuffled predecessor
// lists.
func TestPredPositionsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		n := 1 + r.IntN(8)
		succs := make([][]int, n)
		for b := range succs {
			for k := r.IntN(4); k > 0; k-- {
				succs[b] = append(succs[b], r.IntN(n))
			}
		}
		f := edgeFunc(succs, nil)
		for _, b := range f.Blocks {
			r.Shuffle(len(b.Preds), func(i, j int) { b.Preds[i], b.Preds[j] = b.Preds[j], b.Preds[i] })
			if len(b.Preds) > 0 && r.IntN(5) == 0 {
				b.Preds = b.Preds[:len(b.Preds)-1] // an edge s does not list
			}
		}
		got, want := predRows(PredPositions(f)), slowPredPositions(f)
		for b := range want {
			if !slices.Equal(got[b], want[b]) && !(len(got[b]) == 0 && len(want[b]) == 0) {
				t.Fatalf("iteration %d, b%d (succs %v): got %v, want %v", iter, b, succs, got[b], want[b])
			}
		}
	}
}

// TestPredPositionsOutOfRange checks that edges naming blocks that do not
// exist are left unpaired rather than indexed.
func TestPredPositionsOutOfRange(t *testing.T) {
	f := edgeFunc([][]int{{1}, nil}, nil)
	f.Blocks[0].Succs = []int{1, 7, -1}
	f.Blocks[1].Preds = []int{0, 9}
	if got, want := predRows(PredPositions(f))[0], []int{0, -1, -1}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
