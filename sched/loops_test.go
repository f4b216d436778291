package sched

import (
	"testing"

	"github.com/kiln-jit/kiln/internal/cfg"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
)

// TestLoopHeaders checks the innermost loop headers against the loop
// nesting forest of internal/cfg on the kernels, the programs and a
// generated function (all reducible).
func TestLoopHeaders(t *testing.T) {
	var checked int
	check := func(name string, headers func() ([]int32, []int)) {
		got, want := headers()
		for b := range got {
			if int(got[b]) != want[b] {
				t.Errorf("%s b%d: header %d, want %d", name, b, got[b], want[b])
			}
		}
		checked++
	}
	inputs := append(testprogs.ProgramCases(), testprogs.Case{Module: testprogs.GeneratedModule(3000, 5)})
	seen := map[any]bool{}
	for _, c := range inputs {
		if seen[c.Module] {
			continue
		}
		seen[c.Module] = true
		funcs, err := lower.Module(c.Module, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range funcs {
			check(f.Name, func() ([]int32, []int) {
				var d dataflow
				d.loopHeaders(f)
				forest := cfg.Loops(f.Graph())
				want := make([]int, len(f.Blocks))
				for b := range want {
					want[b] = -1
					if l := forest.LoopOf[b]; l >= 0 {
						want[b] = forest.Loops[l].Header
					}
				}
				return d.header, want
			})
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}
