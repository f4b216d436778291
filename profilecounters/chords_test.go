package profilecounters_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/profilecounters"
)

// walkCounts simulates calls of the function of l: random walks from the
// entry block that take a random successor edge of each block until they
// reach a block without successors. It returns the counts in layout form
// (every edge, fall-through edges included) and in the chord plan's form
// (exit edges too), counting only walks that end within a step bound, so
// flow is conserved exactly.
func walkCounts(l *profilecounters.Layout, p *profilecounters.ChordPlan, r *rand.Rand, calls int) (layoutForm, planForm []uint64) {
	layoutForm = make([]uint64, l.NumCounters())
	planForm = make([]uint64, p.NumCounters())
	walk := make([]uint64, p.NumCounters())
	for range calls {
		clear(walk)
		walk[profilecounters.EntryCounter] = 1
		b, finished := 0, false
		for step := 0; step < 10000; step++ {
			blk := &l.Blocks[b]
			if blk.NumEdges == 0 {
				walk[p.ExitSlot(b)]++
				finished = true
				break
			}
			e := int(blk.FirstEdge) + r.IntN(int(blk.NumEdges))
			walk[profilecounters.EdgeCounter(e)]++
			b = int(l.Edges[e].To)
		}
		if !finished {
			continue
		}
		for s, c := range walk {
			planForm[s] += c
			if s < len(layoutForm) {
				layoutForm[s] += c
			}
		}
	}
	return layoutForm, planForm
}

// TestChordPlanReconstructs checks that counting only the chords of the
// plan and deriving the rest gives every edge's count, on the layouts of
// the kernels and of generated functions, under random profiles.
func TestChordPlanReconstructs(t *testing.T) {
	var layouts []*profilecounters.Layout
	names := []string{}
	for _, k := range testprogs.Kernels() {
		for _, f := range k.Module.Funcs {
			layouts = append(layouts, profilecounters.NewLayout(f))
			names = append(names, k.Name+"."+f.Name)
		}
	}
	for seed := range uint64(4) {
		m := testprogs.GeneratedModule(400, seed)
		for _, f := range m.Funcs {
			layouts = append(layouts, profilecounters.NewLayout(f))
			names = append(names, "generated."+f.Name)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i, l := range layouts {
		// Plan with a profile of one set of walks, count another.
		plan0 := profilecounters.NewChordPlan(l, nil)
		train, _ := walkCounts(l, plan0, r, 50)
		plan := profilecounters.NewChordPlan(l, l.Profile(train))
		truth, counted := walkCounts(l, plan, r, 200)
		chords := 0
		for s := range counted {
			if plan.Counted(s) {
				chords++
			} else {
				counted[s] = 0 // compiled code never increments it
			}
		}
		if chords != plan.NumChords() {
			t.Errorf("%s: NumChords %d, counted slots %d", names[i], plan.NumChords(), chords)
		}
		if truth[profilecounters.EntryCounter] < 100 {
			t.Errorf("%s: only %d walks finished", names[i], truth[profilecounters.EntryCounter])
		}
		got := plan.Reconstruct(counted)
		if !slices.Equal(got, truth) {
			t.Errorf("%s: reconstructed counts differ:\n got %v\nwant %v", names[i], got, truth)
		}
		// A spanning tree of n+1 nodes has n edges: the rest are chords.
		nodes := len(l.Blocks) + 1
		edges := plan.NumCounters()
		if want := edges - (nodes - 1); plan.NumChords() < want {
			t.Errorf("%s: %d chords, fewer than %d edges - %d tree edges", names[i], plan.NumChords(), edges, nodes-1)
		}
	}
}

// TestChordPlanLeavesHotEdgesUncounted checks the maximum spanning tree:
// a loop's back edge, the hottest edge of a loop, is not counted when the
// loop's exit is.
func TestChordPlanLeavesHotEdgesUncounted(t *testing.T) {
	checked := 0
	for _, k := range testprogs.Kernels() {
		if !slices.Contains([]string{"sieve", "matmul", "mandel", "crc32"}, k.Name) {
			continue
		}
		f := k.Module.Funcs[0]
		l := profilecounters.NewLayout(f)
		plan := profilecounters.NewChordPlan(l, nil)
		prof := l.Profile(nil)
		// The hottest edge by the static estimate must be a tree edge
		// unless it is a self-loop.
		best, bestW := -1, -1.0
		for e, ed := range l.Edges {
			if w := prof.BlockFreq[ed.From] * prof.EdgeProb[e]; w > bestW && ed.From != ed.To {
				best, bestW = e, w
			}
		}
		checked++
		if best >= 0 && plan.Counted(profilecounters.EdgeCounter(best)) {
			t.Errorf("%s: the hottest edge %d (%v) is counted", k.Name, best, l.Edges[best])
		}
		if !plan.Counted(profilecounters.EntryCounter) {
			t.Errorf("%s: the entry counter is not counted", k.Name)
		}
	}
	if checked != 4 {
		t.Fatalf("checked %d kernels, want 4", checked)
	}
}
