package mir

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPassWorklistMatchesRoundRobin checks that the worklist visits blocks
// in exactly the order of round-robin passes over the reverse postorder
// that skip clean blocks, when each visit marks blocks dirty.
func TestPassWorklistMatchesRoundRobin(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 500; iter++ {
		nb := 1 + r.IntN(12)
		rpo := r.Perm(nb)
		if r.IntN(3) == 0 && nb > 1 {
			rpo = rpo[:nb-1] // a block outside the order
		}
		// marks[b][k] lists the blocks visit k of block b marks dirty.
		marks := make([][][]int, nb)
		for b := range marks {
			for k := r.IntN(4); k > 0; k-- {
				var m []int
				for j := r.IntN(3); j > 0; j-- {
					m = append(m, r.IntN(nb))
				}
				marks[b] = append(marks[b], m)
			}
		}
		visitMarks := func(visits []int, b int) []int {
			k := visits[b]
			visits[b]++
			if k < len(marks[b]) {
				return marks[b][k]
			}
			return nil
		}

		var want []int
		visits := make([]int, nb)
		dirty := make([]bool, nb)
		for _, b := range rpo {
			dirty[b] = true
		}
		for changed := true; changed; {
			changed = false
			for _, b := range rpo {
				if !dirty[b] {
					continue
				}
				dirty[b] = false
				want = append(want, b)
				for _, m := range visitMarks(visits, b) {
					if slices.Contains(rpo, m) {
						dirty[m] = true
						changed = true
					}
				}
			}
		}

		var got []int
		visits = make([]int, nb)
		w := NewPassWorklist(rpo, nb)
		for b, ok := w.Pop(); ok; b, ok = w.Pop() {
			got = append(got, b)
			for _, m := range visitMarks(visits, b) {
				w.Mark(m)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d (rpo %v, marks %v): visits %v, want %v", iter, rpo, marks, got, want)
		}
	}
}
