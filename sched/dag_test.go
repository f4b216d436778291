package sched

import (
	"testing"

	"github.com/kiln-jit/kiln/internal/testrun"
)

// guardedBlock checks a table index and a divisor with conditional traps;
// the table load and the division must stay after their checks, the
// independent arithmetic need not.
const guardedBlock = `
func f #0 (gpr gpr) -> (gpr) ssa
  vregs 9
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  JMP -> b1 1
b1: preds=b0 freq=1
  CMPQconst v0, $8
  TRAPCC.ae #4
  v2:gpr = TABLEload v0
  v3:gpr = LEAQ v1, $1
  TESTQ v1, v1
  TRAPCC.e #2
  v6:gpr, v7:gpr = DIVQ v0, v1
  v4:gpr = LEAQ v3, $2
  v5:gpr = ADDQ v6, v2
  v8:gpr = ADDQ v5, v4
  RET v8
end
`

// reaches reports whether node to depends, directly or not, on node from.
func (g *depGraph) reaches(from, to int) bool {
	seen := make([]bool, len(g.nodes))
	stack := []int{from}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == to {
			return true
		}
		for _, e := range g.edges[g.nodes[n].succ0:g.nodes[n].succ1] {
			if !seen[e.to] {
				seen[e.to] = true
				stack = append(stack, int(e.to))
			}
		}
	}
	return false
}

// TestGuardedOpsFollowTheirChecks checks the dependence graph orders
// Guarded ops (mir.OpInfo.Guarded) after the conditional traps before
// them and leaves independent instructions free to move above the checks.
func TestGuardedOpsFollowTheirChecks(t *testing.T) {
	f := testrun.ParseFunc(t, guardedBlock)
	g := newGraphBuilder(f, DefaultModel()).build(f.Blocks[1].Instrs, 0, false)
	node := map[int]int{} // instruction index -> node
	for n, nd := range g.nodes {
		for i := nd.first; i <= nd.last; i++ {
			node[int(i)] = n
		}
	}
	ins := f.Blocks[1].Instrs
	for _, tt := range []struct {
		from, to int
		want     bool
	}{
		{1, 2, true},  // the table load follows the check of its index
		{5, 6, true},  // the division follows the check of its divisor
		{1, 6, true},  // and every check before it
		{1, 3, false}, // the independent LEAQ may move above the checks
		{5, 7, false},
	} {
		if got := g.reaches(node[tt.from], node[tt.to]); got != tt.want {
			t.Errorf("%s depends on %s: %v, want %v", ins[tt.to].Op, ins[tt.from].Op, got, tt.want)
		}
	}
}
