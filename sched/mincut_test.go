package sched

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
)

var inf = math.Inf(1)

type mcEdge struct {
	from, to int
	c        float64
}

func mcProblem(n, s, t int, edges []mcEdge) *MinCutProblem {
	p := NewMinCutProblem(n, s, t)
	for _, e := range edges {
		p.AddEdge(e.from, e.to, e.c)
	}
	return p
}

// bruteMinCut enumerates every source side and returns the minimum cost
// and the source sides (as bit masks) that reach it.
func bruteMinCut(p *MinCutProblem) (float64, []uint32) {
	best := inf
	var sides []uint32
	for m := uint32(0); m < 1<<uint(p.N); m++ {
		if m&(1<<uint(p.Source)) == 0 || m&(1<<uint(p.Sink)) != 0 {
			continue
		}
		c := 0.0
		for _, e := range p.Edges {
			if m&(1<<uint(e.From)) != 0 && m&(1<<uint(e.To)) == 0 {
				c += e.Cap
			}
		}
		switch {
		case c < best:
			best, sides = c, []uint32{m}
		case c == best:
			sides = append(sides, m)
		}
	}
	return best, sides
}

// Node names for the hand examples.
const (
	mcS = iota // Source
	mcT        // Sink
	mcA
	mcB
	mcC
	mcD
	mcE
)

func TestMinCutHand(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges []mcEdge
		cost  float64
		cut   []int // expected edge indices, for both solvers
		// contraction expectations
		fallback bool
		ccost    float64 // contraction cost when fallback
	}{
		{
			// §9.C item 14, store problem (edges reversed from the CFG).
			// A = store in the loop body B (frequency 1000), C = loop
			// header, D = latch, E = def block, which also branches
			// where the value is not live (after-def frequency 50).
			// Source→A 1000; A→C is CFG C→A (1000); C→D is the back
			// edge D→C (990); D→A is CFG A→D (1000); C→E is the loop
			// entry edge (10); E→Sink is "store right after the def".
			name: "loop hoisting: store on the entry edge",
			n:    7,
			edges: []mcEdge{
				{mcS, mcA, 1000}, {mcA, mcC, 1000}, {mcC, mcD, 990},
				{mcD, mcA, 1000}, {mcC, mcE, 10}, {mcE, mcT, 50},
			},
			cost: 10, cut: []int{4},
		},
		{
			// Same loop, but the def block runs exactly as often as
			// the entry edge: entry edge and after-def tie, and the cut
			// closer to the Sink (after the def) wins.
			name: "loop hoisting tie: store after the def",
			n:    7,
			edges: []mcEdge{
				{mcS, mcA, 1000}, {mcA, mcC, 1000}, {mcC, mcD, 990},
				{mcD, mcA, 1000}, {mcC, mcE, 10}, {mcE, mcT, 10},
			},
			cost: 10, cut: []int{5},
		},
		{
			name: "equal chain: cut next to the sink",
			n:    5,
			edges: []mcEdge{
				{mcS, mcA, 5}, {mcA, mcB, 5}, {mcB, mcC, 5}, {mcC, mcT, 5},
			},
			cost: 5, cut: []int{3},
		},
		{
			name: "diamond with cheap arms",
			n:    6,
			edges: []mcEdge{
				{mcS, mcA, 10}, {mcA, mcB, 3}, {mcA, mcC, 4},
				{mcB, mcD, 8}, {mcC, mcD, 8}, {mcD, mcT, 10},
			},
			cost: 7, cut: []int{1, 2},
		},
		{
			name: "source to sink edge is always cut",
			n:    3,
			edges: []mcEdge{
				{mcS, mcT, 2}, {mcS, mcA, 1}, {mcA, mcT, 9},
			},
			cost: 3, cut: []int{0, 1},
		},
		{
			name: "parallel edges, self-loop, dead ends",
			n:    6,
			edges: []mcEdge{
				{mcS, mcA, 4}, {mcA, mcB, 1}, {mcA, mcB, 1}, {mcB, mcB, 7},
				{mcB, mcT, 6}, {mcA, mcC, 9}, {mcD, mcB, 9}, {mcT, mcA, 3},
			},
			cost: 2, cut: []int{1, 2},
		},
		{
			name: "uncuttable edges force the cut elsewhere",
			n:    4,
			edges: []mcEdge{
				{mcS, mcA, inf}, {mcA, mcB, 6}, {mcB, mcT, inf}, {mcS, mcB, 1},
			},
			cost: 7, cut: []int{1, 3},
		},
		{
			name: "uncuttable interior edge",
			n:    4,
			edges: []mcEdge{
				{mcS, mcA, 3}, {mcA, mcB, inf}, {mcB, mcT, 4},
			},
			cost: 3, cut: []int{0},
		},
		{
			// The thesis's rule b merges both ends of the 100 edge and
			// costs 6; the pinned version needs the fallback here.
			name: "heavy interior edge (rule b counterexample)",
			n:    4,
			edges: []mcEdge{
				{mcS, mcB, 5}, {mcB, mcT, 1}, {mcS, mcA, 1}, {mcA, mcT, 5}, {mcA, mcB, 100},
			},
			cost: 2, cut: []int{1, 2},
			fallback: true, ccost: 6,
		},
		{
			// The thesis's rule h merges the 2-cycle and costs 10.
			name: "2-cycle (rule h counterexample)",
			n:    4,
			edges: []mcEdge{
				{mcS, mcA, 10}, {mcA, mcB, 1}, {mcB, mcT, 10}, {mcB, mcA, 1},
			},
			cost: 1, cut: []int{1},
			fallback: true, ccost: 1,
		},
		{
			name:  "no path from source to sink",
			n:     4,
			edges: []mcEdge{{mcS, mcA, 3}, {mcB, mcT, 3}, {mcB, mcA, 1}},
			cost:  0, cut: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mcProblem(tc.n, mcS, mcT, tc.edges)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			bc, _ := bruteMinCut(p)
			if bc != tc.cost {
				t.Fatalf("brute force cost %v, table says %v", bc, tc.cost)
			}
			ex := p.SolveExact()
			if ex.Cost != tc.cost || !reflect.DeepEqual(ex.Edges, tc.cut) {
				t.Errorf("exact: cut %v cost %v, want %v cost %v", ex.Edges, ex.Cost, tc.cut, tc.cost)
			}
			if !p.Separates(ex.Edges) {
				t.Errorf("exact cut %v does not separate", ex.Edges)
			}
			co := p.SolveContraction(ContractionOptions{})
			if !p.Separates(co.Edges) {
				t.Errorf("contraction cut %v does not separate", co.Edges)
			}
			if co.Fallback != tc.fallback {
				t.Errorf("contraction fallback %v, want %v (rules %v)", co.Fallback, tc.fallback, co.Rules)
			}
			if !tc.fallback {
				if co.Cost != tc.cost || !reflect.DeepEqual(co.Edges, tc.cut) {
					t.Errorf("contraction: cut %v cost %v, want %v cost %v", co.Edges, co.Cost, tc.cut, tc.cost)
				}
			} else if co.Cost != tc.ccost {
				t.Errorf("contraction with fallback: cost %v, want %v", co.Cost, tc.ccost)
			}
			cx := p.SolveContraction(ContractionOptions{ExactResidual: true})
			if cx.Fallback || cx.Cost != tc.cost || !p.Separates(cx.Edges) {
				t.Errorf("contraction+exact residual: cut %v cost %v fallback %v, want cost %v",
					cx.Edges, cx.Cost, cx.Fallback, tc.cost)
			}
			if cx.ExactResidual != tc.fallback {
				t.Errorf("exact residual used %v, want %v", cx.ExactResidual, tc.fallback)
			}
		})
	}
}

func TestMinCutValidate(t *testing.T) {
	bad := []*MinCutProblem{
		mcProblem(1, 0, 0, nil),
		mcProblem(3, 1, 1, nil),
		mcProblem(3, 0, 3, nil),
		mcProblem(3, 0, 1, []mcEdge{{0, 5, 1}}),
		mcProblem(3, 0, 1, []mcEdge{{0, 1, -1}}),
		mcProblem(3, 0, 1, []mcEdge{{0, 1, math.NaN()}}),
	}
	for i, p := range bad {
		if p.Validate() == nil {
			t.Errorf("problem %d: Validate accepted it", i)
		}
	}
}

// randomMinCutProblem builds a problem graph shaped loosely like a spill
// problem: a few Source and Sink attachments, a mostly forward interior
// with back edges, parallel edges, self-loops and the odd uncuttable edge.
func randomMinCutProblem(r *rand.Rand, n int) *MinCutProblem {
	p := NewMinCutProblem(n, 0, 1)
	w := func() float64 {
		if r.Intn(40) == 0 {
			return inf
		}
		if r.Intn(4) == 0 {
			return float64(1 + r.Intn(1000))
		}
		return float64(r.Intn(20))
	}
	interior := n - 2
	for k := 1 + r.Intn(3); k > 0; k-- {
		p.AddEdge(0, 2+r.Intn(interior), w())
	}
	for k := 1 + r.Intn(3); k > 0; k-- {
		p.AddEdge(2+r.Intn(interior), 1, w())
	}
	for k := interior + r.Intn(2*interior+1); k > 0; k-- {
		a, b := 2+r.Intn(interior), 2+r.Intn(interior)
		if a > b && r.Intn(3) != 0 {
			a, b = b, a // mostly forward
		}
		p.AddEdge(a, b, w())
	}
	if r.Intn(10) == 0 {
		p.AddEdge(0, 1, w())
	}
	if r.Intn(10) == 0 {
		p.AddEdge(1, 2+r.Intn(interior), w())
	}
	return p
}

func TestMinCutRandom(t *testing.T) {
	const graphs = 3000
	var (
		fallbacks, merges int
		gapSum, gapMax    float64
		gapCount, same    int
		rules             [NumContractionRules]int
	)
	for seed := int64(1); seed <= graphs; seed++ {
		r := rand.New(rand.NewSource(seed))
		n := 4 + r.Intn(9) // 2 terminals + 2..10 interior nodes
		p := randomMinCutProblem(r, n)
		if err := p.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}

		ex := p.SolveExact()
		if !p.Separates(ex.Edges) {
			t.Fatalf("seed %d: exact cut %v does not separate", seed, ex.Edges)
		}
		if n <= 10 {
			bc, sides := bruteMinCut(p)
			if ex.Cost != bc {
				t.Fatalf("seed %d: exact cost %v, brute force %v", seed, ex.Cost, bc)
			}
			// The exact cut's source side contains every minimum
			// cut's source side: it is the one closest to the Sink.
			var mine uint32
			for v, in := range ex.SourceSide {
				if in {
					mine |= 1 << uint(v)
				}
			}
			for _, m := range sides {
				if math.IsInf(bc, 1) {
					break
				}
				if m&^mine != 0 {
					t.Fatalf("seed %d: min cut side %b not inside exact side %b", seed, m, mine)
				}
			}
		}

		co := p.SolveContraction(ContractionOptions{})
		if !p.Separates(co.Edges) {
			t.Fatalf("seed %d: contraction cut %v does not separate", seed, co.Edges)
		}
		for i, c := range co.Rules {
			rules[i] += c
		}
		if !co.Fallback {
			if co.Cost != ex.Cost {
				t.Fatalf("seed %d: contraction without fallback cost %v, exact %v (rules %v)",
					seed, co.Cost, ex.Cost, co.Rules)
			}
			if reflect.DeepEqual(co.Edges, ex.Edges) {
				same++
			}
		} else {
			fallbacks++
			merges += co.FallbackMerges
			if co.Cost < ex.Cost {
				t.Fatalf("seed %d: contraction cost %v below the minimum %v", seed, co.Cost, ex.Cost)
			}
			if gap := co.Cost - ex.Cost; gap > 0 && !math.IsInf(co.Cost, 1) {
				gapCount++
				gapSum += gap / math.Max(ex.Cost, 1)
				gapMax = math.Max(gapMax, gap/math.Max(ex.Cost, 1))
			} else if math.IsInf(co.Cost, 1) && !math.IsInf(ex.Cost, 1) {
				gapCount++
				gapMax = inf
			}
		}

		cx := p.SolveContraction(ContractionOptions{ExactResidual: true})
		if cx.Fallback || cx.Cost != ex.Cost || !p.Separates(cx.Edges) {
			t.Fatalf("seed %d: contraction+exact residual cost %v fallback %v, exact %v",
				seed, cx.Cost, cx.Fallback, ex.Cost)
		}
	}
	names := make(map[string]int)
	for i, c := range rules {
		names[ContractionRule(i).String()] = c
	}
	t.Logf("%d graphs: %d solved by rules alone (%d with the exact solver's cut), %d needed the fallback (%d merges)",
		graphs, graphs-fallbacks, same, fallbacks, merges)
	if gapCount > 0 {
		t.Logf("fallback above the minimum on %d graphs: mean relative gap %.3f, max %.3f",
			gapCount, gapSum/float64(gapCount), gapMax)
	} else {
		t.Logf("fallback never above the minimum")
	}
	t.Logf("rule applications: %v", names)
}

// TestMinCutFractional checks that non-integer frequencies do not upset
// either solver.
func TestMinCutFractional(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	for i := 0; i < 300; i++ {
		p := randomMinCutProblem(r, 4+r.Intn(5))
		for j := range p.Edges {
			if !math.IsInf(p.Edges[j].Cap, 1) {
				p.Edges[j].Cap *= 0.1 + r.Float64()
			}
		}
		bc, _ := bruteMinCut(p)
		ex := p.SolveExact()
		if !p.Separates(ex.Edges) || math.Abs(ex.Cost-bc) > 1e-9*math.Max(1, bc) && !(math.IsInf(bc, 1) && math.IsInf(ex.Cost, 1)) {
			t.Fatalf("graph %d: exact cost %v, brute force %v", i, ex.Cost, bc)
		}
		co := p.SolveContraction(ContractionOptions{})
		if !p.Separates(co.Edges) || co.Cost < bc-1e-9*math.Max(1, bc) {
			t.Fatalf("graph %d: contraction cost %v, minimum %v", i, co.Cost, bc)
		}
	}
}
