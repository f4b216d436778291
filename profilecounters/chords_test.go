package profilecounters_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
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
	return walkCountsEnding(l, p, r, calls, 0)
}

// walkCountsEnding is walkCounts with calls that end inside a block (a
// trap, a cancellation) with probability end at each block after the
// entry block; it keeps the walks that end so.
func walkCountsEnding(l *profilecounters.Layout, p *profilecounters.ChordPlan, r *rand.Rand, calls int, end float64) (layoutForm, planForm []uint64) {
	layoutForm = make([]uint64, l.NumCounters())
	planForm = make([]uint64, p.NumCounters())
	walk := make([]uint64, p.NumCounters())
	for range calls {
		clear(walk)
		walk[profilecounters.EntryCounter] = 1
		if !walkFrom(l, p, r, 0, end, walk) {
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

// walkFrom adds to walk the edges of a random walk from block b to a
// block without successors (its exit slot counted), or, with
// probability end at each block after the first, to an end inside a
// block; it reports whether the walk ended within its step bound.
func walkFrom(l *profilecounters.Layout, p *profilecounters.ChordPlan, r *rand.Rand, b int, end float64, walk []uint64) bool {
	for step := 0; step < 10000; step++ {
		blk := &l.Blocks[b]
		if step > 0 && r.Float64() < end {
			return true
		}
		if blk.NumEdges == 0 {
			walk[p.ExitSlot(b)]++
			return true
		}
		e := int(blk.FirstEdge) + r.IntN(int(blk.NumEdges))
		walk[profilecounters.EdgeCounter(e)]++
		b = int(l.Edges[e].To)
	}
	return false
}

// TestChordPlanReconstructs checks that counting only the chords of the
// plan and deriving the rest gives every edge's count, on the layouts of
// the kernels and of generated functions, under random profiles.
func TestChordPlanReconstructs(t *testing.T) {
	layouts, names := testLayouts()
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
// loop's exit is; and that the calls are counted.
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
		// The calls are counted: by the entry counter, or by the entry
		// block's successor edges.
		entry := &l.Blocks[0]
		countedOut := true
		for e := entry.FirstEdge; e < entry.FirstEdge+entry.NumEdges; e++ {
			countedOut = countedOut && plan.Counted(profilecounters.EdgeCounter(int(e)))
		}
		if plan.EntryByBlock() == plan.Counted(profilecounters.EntryCounter) || plan.EntryByBlock() && !countedOut {
			t.Errorf("%s: entry counted %v, entry block's edges counted %v, calls derived from them %v",
				k.Name, plan.Counted(profilecounters.EntryCounter), countedOut, plan.EntryByBlock())
		}
	}
	if checked != 4 {
		t.Fatalf("checked %d kernels, want 4", checked)
	}
}

// testLayouts returns the layouts of the kernels' functions and of
// generated functions, with their names.
func testLayouts() ([]*profilecounters.Layout, []string) {
	var layouts []*profilecounters.Layout
	var names []string
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
	return layouts, names
}

// TestChordPlanCallsExactWhenCallsEnd checks that the calls reconstructed
// are exact when calls end inside blocks after the entry block (which the
// plan derives the calls from only when none can end inside it), and
// that the counted edges are reconstructed exactly when none do.
func TestChordPlanCallsExactWhenCallsEnd(t *testing.T) {
	layouts, names := testLayouts()
	r := rand.New(rand.NewPCG(3, 4))
	byBlock := 0
	for i, l := range layouts {
		plan := profilecounters.NewChordPlan(l, nil)
		if plan.EntryByBlock() {
			byBlock++
		}
		truth, counted := walkCountsEnding(l, plan, r, 300, 0.05)
		for s := range counted {
			if !plan.Counted(s) {
				counted[s] = 0
			}
		}
		got := plan.Reconstruct(counted)
		if got[profilecounters.EntryCounter] != truth[profilecounters.EntryCounter] {
			t.Errorf("%s: %d calls reconstructed, want %d (entry by block %v)", names[i], got[profilecounters.EntryCounter],
				truth[profilecounters.EntryCounter], plan.EntryByBlock())
		}
		for s := range counted {
			if s < len(got) && plan.Counted(s) && got[s] != truth[s] {
				t.Errorf("%s: counted slot %d reconstructed as %d, counted %d", names[i], s, got[s], truth[s])
			}
		}
	}
	if byBlock == 0 {
		t.Error("no plan derives the calls from the entry block")
	}
}

// TestChordPlanEntryByBlock checks when a plan derives the calls from the
// entry block's edges instead of counting them, and which of its edges it
// counts at the start of their targets.
func TestChordPlanEntryByBlock(t *testing.T) {
	for _, tt := range []struct {
		name, src    string
		entryByBlock bool
		chords       int
		atHead       []int // edges counted at their target's start
	}{
		{"recursion with a base case", `
func f (i64) -> (i64)
  regs i64 i64
  br.lt_s r0, 2, base
  i64.sub r1, r0, 1
  call f (r1) -> (r1)
  i64.sub r2, r0, 2
  call f (r2) -> (r2)
  i64.add r0, r1, r2
  ret r0
base:
  ret r0
end
`, true, 2, []int{0, 1}},
		{"entry block loads", `
func f (i64) -> (i64)
  regs i64
  i64.load r1, [r0]
  br.lt_s r0, 2, base
  ret r1
base:
  ret r0
end
memory 1 1
`, false, 2, []int{0, 1}},
		{"entry block calls", `
func g () -> ()
  ret
end
func f (i64) -> (i64)
  call g () -> ()
  br.lt_s r0, 2, base
  ret r0
base:
  ret r0
end
`, false, 2, []int{0, 1}},
		{"entry block jumps", `
func f (i64) -> (i64)
  i64.add r0, r0, 1
  jump next
next:
  br.lt_s r0, 2, base
  ret r0
base:
  ret r0
end
`, false, 2, []int{1, 2}},
		{"entry block is a loop header", `
func f (i64) -> (i64)
top:
  i64.sub r0, r0, 1
  br.gt_s r0, 2, top
  br.lt_s r0, 0, base
  ret r0
base:
  ret r0
end
`, false, 3, []int{2, 3}},
		{"switch in the entry block, a target shared", `
func f (i64) -> (i64)
  switch r0, [a, b, a], c
a:
  ret r0
b:
  i64.add r0, r0, 1
c:
  ret r0
end
`, true, 4, []int{1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := bytecode.Assemble([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			l := profilecounters.NewLayout(m.Funcs[len(m.Funcs)-1])
			plan := profilecounters.NewChordPlan(l, nil)
			if plan.EntryByBlock() != tt.entryByBlock || plan.NumChords() != tt.chords {
				t.Errorf("entry by block %v, %d chords; want %v, %d", plan.EntryByBlock(), plan.NumChords(), tt.entryByBlock, tt.chords)
			}
			if plan.Counted(profilecounters.EntryCounter) == tt.entryByBlock {
				t.Errorf("entry counter counted %v with entry by block %v", plan.Counted(profilecounters.EntryCounter), tt.entryByBlock)
			}
			var atHead []int
			for e := range l.Edges {
				if plan.AtHead(e) {
					atHead = append(atHead, e)
				}
			}
			if !slices.Equal(atHead, tt.atHead) {
				t.Errorf("edges counted at their target's start %v, want %v", atHead, tt.atHead)
			}
			// Calls that all return: every count reconstructs.
			r := rand.New(rand.NewPCG(5, 6))
			truth, counted := walkCounts(l, plan, r, 100)
			for s := range counted {
				if !plan.Counted(s) {
					counted[s] = 0
				}
			}
			if got := plan.Reconstruct(counted); !slices.Equal(got, truth) {
				t.Errorf("reconstructed %v, want %v", got, truth)
			}
		})
	}
}

// TestChordPlanOSRReconstructs checks a plan with on-stack-replacement
// entries at every loop header: walks that start at a header (counting
// their entry's slot, not a call) mixed with walks from the entry block,
// counted by chords only, reconstruct to every edge's count.
func TestChordPlanOSRReconstructs(t *testing.T) {
	layouts, names := testLayouts()
	r := rand.New(rand.NewPCG(3, 4))
	tested := 0
	for i, l := range layouts {
		var headers []int
		seen := map[int32]bool{}
		for _, ed := range l.Edges {
			if ed.To <= ed.From && !seen[ed.To] {
				seen[ed.To] = true
				headers = append(headers, int(l.Blocks[ed.To].Start))
			}
		}
		if len(headers) == 0 {
			continue
		}
		tested++
		plan := profilecounters.NewChordPlanOSR(l, nil, headers)
		if plan.NumOSR() != len(headers) {
			t.Fatalf("%s: %d entries, want %d", names[i], plan.NumOSR(), len(headers))
		}
		truth := make([]uint64, l.NumCounters())
		counted := make([]uint64, plan.NumCounters())
		walk := make([]uint64, plan.NumCounters())
		for w := range 300 {
			clear(walk)
			b := 0
			if k := w % (len(headers) + 1); k < len(headers) {
				walk[plan.OSRCounter(k)] = 1
				b = l.BlockAt(headers[k])
			} else {
				walk[profilecounters.EntryCounter] = 1
			}
			if !walkFrom(l, plan, r, b, 0, walk) {
				continue
			}
			for s, c := range walk {
				if s < len(truth) {
					truth[s] += c
				}
				if plan.Counted(s) {
					counted[s] += c
				}
			}
		}
		for k := range headers {
			if !plan.Counted(plan.OSRCounter(k)) {
				t.Errorf("%s: entry %d is not counted", names[i], k)
			}
		}
		if got := plan.Reconstruct(counted); !slices.Equal(got, truth) {
			t.Errorf("%s: reconstructed counts differ:\n got %v\nwant %v", names[i], got, truth)
		}
	}
	if tested == 0 {
		t.Fatal("no layout has a loop")
	}
}
