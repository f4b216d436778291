package cfg

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// spanningTree is a depth-first search of g from its entry, successors in
// list order, computed independently of the package for the tests.
type spanningTree struct {
	pre, last []int // preorder number and last preorder number in the subtree; -1 when unreachable
	rpoNum    []int // position in reverse postorder; -1 when unreachable
}

func searchTree(g *Graph) spanningTree {
	n := g.Len()
	st := spanningTree{pre: make([]int, n), last: make([]int, n), rpoNum: make([]int, n)}
	for i := range n {
		st.pre[i], st.last[i], st.rpoNum[i] = -1, -1, -1
	}
	if n == 0 {
		return st
	}
	type frame struct{ node, next int }
	stack := []frame{{g.Entry, 0}}
	st.pre[g.Entry] = 0
	count, finished := 1, 0
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(g.Succs[top.node]) {
			v := g.Succs[top.node][top.next]
			top.next++
			if st.pre[v] < 0 {
				st.pre[v] = count
				count++
				stack = append(stack, frame{v, 0})
			}
			continue
		}
		st.last[top.node] = count - 1
		st.rpoNum[top.node] = finished // postorder for now
		finished++
		stack = stack[:len(stack)-1]
	}
	for u := range st.rpoNum {
		if st.rpoNum[u] >= 0 {
			st.rpoNum[u] = finished - 1 - st.rpoNum[u]
		}
	}
	return st
}

// bruteLoop is a loop found from the definition.
type bruteLoop struct {
	header  int
	nodes   []int // sorted
	headers []int // entry nodes in reverse postorder
}

// bruteLoops finds, for every reachable node h, the nodes of h's subtree
// that reach h without leaving the subtree (the strongly connected
// component of h in the subgraph the subtree induces), keeping it when it
// holds a cycle.
func bruteLoops(g *Graph, st spanningTree) []bruteLoop {
	var loops []bruteLoop
	inTree := func(h, x int) bool { return st.pre[x] >= st.pre[h] && st.pre[x] <= st.last[h] }
	for h := range g.Len() {
		if st.pre[h] < 0 {
			continue
		}
		reach := map[int]bool{h: true}
		stack := []int{h}
		cycle := false
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range g.Preds[x] {
				if p == h && x == h {
					cycle = true
				}
				if inTree(h, p) && !reach[p] {
					reach[p] = true
					stack = append(stack, p)
				}
			}
		}
		if len(reach) == 1 && !cycle {
			continue
		}
		bl := bruteLoop{header: h}
		for x := range reach {
			bl.nodes = append(bl.nodes, x)
		}
		slices.Sort(bl.nodes)
		for _, x := range bl.nodes {
			entry := x == g.Entry
			for _, p := range g.Preds[x] {
				if st.pre[p] >= 0 && !reach[p] {
					entry = true
				}
			}
			if entry {
				bl.headers = append(bl.headers, x)
			}
		}
		slices.SortFunc(bl.headers, func(a, b int) int { return st.rpoNum[a] - st.rpoNum[b] })
		loops = append(loops, bl)
	}
	return loops
}

// keptLoops drops from the cycle sets every set that shares an entry node
// with the smallest set strictly containing it: the sets that remain are
// the loops of the forest.
func keptLoops(sets []bruteLoop) []bruteLoop {
	var kept []bruteLoop
	for i, x := range sets {
		parent := -1
		for j, y := range sets {
			if j != i && len(y.nodes) > len(x.nodes) && subset(x.nodes, y.nodes) &&
				(parent < 0 || len(y.nodes) < len(sets[parent].nodes)) {
				parent = j
			}
		}
		shared := false
		for _, h := range x.headers {
			if parent >= 0 && slices.Contains(sets[parent].headers, h) {
				shared = true
			}
		}
		if !shared {
			kept = append(kept, x)
		}
	}
	return kept
}

// subset reports whether sorted a is a subset of sorted b.
func subset(a, b []int) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// checkForest checks every property of f against the loops of the
// definition and against the structural invariants of the API.
func checkForest(t *testing.T, g *Graph, f *LoopForest) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("graph %v entry %d: %s", g.Succs, g.Entry, fmt.Sprintf(format, args...))
	}
	st := searchTree(g)
	want := keptLoops(bruteLoops(g, st))
	if len(f.Loops) != len(want) {
		fail("%d loops, want %d", len(f.Loops), len(want))
	}
	byHeader := map[int]bruteLoop{}
	for _, bl := range want {
		byHeader[bl.header] = bl
	}
	nodesOf := make([][]int, len(f.Loops))
	for li := range f.Loops {
		nodesOf[li] = loopNodes(f, li)
	}
	for li := range f.Loops {
		l := &f.Loops[li]
		bl, ok := byHeader[l.Header]
		if !ok {
			fail("loop %d header %d is no loop of the definition", li, l.Header)
		}
		if !slices.Equal(nodesOf[li], bl.nodes) {
			fail("loop %d (header %d) has nodes %v, want %v", li, l.Header, nodesOf[li], bl.nodes)
		}
		if !slices.Equal(l.Headers, bl.headers) || l.Headers[0] != l.Header {
			fail("loop %d headers %v (primary %d), want %v", li, l.Headers, l.Header, bl.headers)
		}
		if l.Irreducible() != (len(bl.headers) > 1) {
			fail("loop %d irreducible = %v", li, l.Irreducible())
		}
		for _, h := range l.Headers {
			if f.LoopOf[h] != li {
				fail("header %d of loop %d lies in inner loop %d", h, li, f.LoopOf[h])
			}
		}
		// Blocks: exactly the nodes whose innermost loop is l, in reverse
		// postorder.
		for i, u := range l.Blocks {
			if f.LoopOf[u] != li || (i > 0 && st.rpoNum[l.Blocks[i-1]] >= st.rpoNum[u]) {
				fail("loop %d blocks %v", li, l.Blocks)
			}
		}
		// Preorder: the loops inside l are exactly li..Last; Parent is the
		// smallest loop strictly containing l; Children are the loops whose
		// parent is l, in reverse postorder of their headers; Depth counts
		// the enclosing loops.
		depth, parent := 1, -1
		var kids []int
		for lj := range f.Loops {
			inside := lj != li && subset(nodesOf[lj], nodesOf[li])
			if inside != (lj > li && lj <= l.Last) {
				fail("loop %d (last %d) vs loop %d: inside = %v", li, l.Last, lj, inside)
			}
			if lj != li && subset(nodesOf[li], nodesOf[lj]) {
				depth++
				if parent < 0 || len(nodesOf[lj]) < len(nodesOf[parent]) {
					parent = lj
				}
			}
			if f.Loops[lj].Parent == li {
				kids = append(kids, lj)
			}
			if lj != li && !inside && !subset(nodesOf[li], nodesOf[lj]) {
				for _, u := range nodesOf[lj] {
					if _, shared := slices.BinarySearch(nodesOf[li], u); shared {
						fail("loops %d and %d overlap without nesting", li, lj)
					}
				}
			}
		}
		if l.Parent != parent || l.Depth != depth || !slices.Equal(l.Children, kids) {
			fail("loop %d parent %d depth %d children %v, want %d %d %v", li, l.Parent, l.Depth, l.Children, parent, depth, kids)
		}
		for i := 1; i < len(kids); i++ {
			if st.rpoNum[f.Loops[kids[i-1]].Header] >= st.rpoNum[f.Loops[kids[i]].Header] {
				fail("children of loop %d out of order: %v", li, kids)
			}
		}
		checkStronglyConnected(t, g, nodesOf[li], l.Header)
	}
	for u := range g.Len() {
		innermost := -1
		for li := range f.Loops {
			_, in := slices.BinarySearch(nodesOf[li], u)
			if f.Contains(li, u) != in {
				fail("Contains(%d, %d) = %v", li, u, !in)
			}
			if f.IsHeaderOf(li, u) != slices.Contains(f.Loops[li].Headers, u) {
				fail("IsHeaderOf(%d, %d) = %v", li, u, !slices.Contains(f.Loops[li].Headers, u))
			}
			if in && (innermost < 0 || len(nodesOf[li]) < len(nodesOf[innermost])) {
				innermost = li
			}
		}
		if f.LoopOf[u] != innermost {
			fail("LoopOf[%d] = %d, want %d", u, f.LoopOf[u], innermost)
		}
		headed := -1
		for li := range f.Loops {
			if slices.Contains(f.Loops[li].Headers, u) {
				if headed >= 0 {
					fail("%d is a header of loops %d and %d", u, headed, li)
				}
				headed = li
			}
		}
		if f.HeadedLoop(u) != headed || f.IsHeader(u) != (headed >= 0) {
			fail("HeadedLoop(%d) = %d, want %d", u, f.HeadedLoop(u), headed)
		}
		for i, v := range g.Succs[u] {
			common := -1
			if st.pre[u] >= 0 {
				for li := range f.Loops {
					if f.Contains(li, u) && f.Contains(li, v) && (common < 0 || f.Loops[li].Depth > f.Loops[common].Depth) {
						common = li
					}
				}
			}
			if got := f.EdgeLoop(u, i); got != common {
				fail("EdgeLoop(%d, %d) = %d, want %d", u, i, got, common)
			}
		}
	}
}

// checkStronglyConnected checks that every node of the loop lies on a
// cycle inside it: the header reaches every node, and every node reaches
// the header, by edges inside the loop.
func checkStronglyConnected(t *testing.T, g *Graph, nodes []int, header int) {
	t.Helper()
	in := map[int]bool{}
	for _, u := range nodes {
		in[u] = true
	}
	for _, adj := range [][][]int{g.Succs, g.Preds} {
		seen := map[int]bool{}
		stack := []int{header}
		cycle := false
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range adj[x] {
				if y == header {
					cycle = true
				}
				if in[y] && !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
		if !cycle || len(seen) != len(nodes) {
			t.Fatalf("graph %v: loop %v (header %d) is not strongly connected", g.Succs, nodes, header)
		}
	}
}

// naturalLoops returns the natural loops of a reducible graph, one per
// header (loops sharing a header merged): the header and every node that
// reaches the source of a back edge into it (an edge whose target
// dominates its source) without passing through the header, unreachable
// nodes left out. ok is false
// when the graph is irreducible (a retreating edge of the depth-first
// search is not a back edge).
func naturalLoops(g *Graph) (map[int][]int, bool) {
	st := searchTree(g)
	loops := map[int]map[int]bool{}
	for u := range g.Len() {
		if st.pre[u] < 0 {
			continue
		}
		for _, h := range g.Succs[u] {
			retreating := st.pre[h] <= st.pre[u] && st.last[u] <= st.last[h]
			if !retreating {
				continue
			}
			if !bruteDominates(g, h, u) {
				return nil, false
			}
			body := loops[h]
			if body == nil {
				body = map[int]bool{h: true}
				loops[h] = body
			}
			stack := []int{u}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if body[x] || st.pre[x] < 0 {
					continue
				}
				body[x] = true
				stack = append(stack, g.Preds[x]...)
			}
		}
	}
	out := map[int][]int{}
	for h, body := range loops {
		for x := range body {
			out[h] = append(out[h], x)
		}
		slices.Sort(out[h])
	}
	return out, true
}

// tangledGraph returns a random graph made of nested cycles that are
// entered in several places: a chain whose nodes jump back a little, plus
// jumps from early nodes deep into the chain.
func tangledGraph(r *rand.Rand, n int) *Graph {
	succs := make([][]int, n)
	for u := 0; u+1 < n; u++ {
		succs[u] = append(succs[u], u+1)
		if r.IntN(3) == 0 {
			succs[u] = append(succs[u], max(0, u-r.IntN(4)))
		}
		if r.IntN(3) == 0 {
			succs[u] = append(succs[u], u+r.IntN(n-u))
		}
	}
	// Rename the nodes so that successor order and numbering carry no
	// hint of the structure; the entry stays 0.
	perm := r.Perm(n)
	for i, p := range perm {
		if p == 0 {
			perm[0], perm[i] = perm[i], perm[0]
		}
	}
	renamed := make([][]int, n)
	for u, ss := range succs {
		for _, v := range ss {
			renamed[perm[u]] = append(renamed[perm[u]], perm[v])
		}
		r.Shuffle(len(renamed[perm[u]]), func(i, j int) {
			renamed[perm[u]][i], renamed[perm[u]][j] = renamed[perm[u]][j], renamed[perm[u]][i]
		})
	}
	return New(0, renamed)
}

func TestLoopsAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	reducible, irreducible := 0, 0
	for iter := 0; iter < 4500; iter++ {
		size := 24
		if iter%10 == 0 {
			size = 80
		}
		var g *Graph
		switch iter % 3 {
		case 0:
			g = richGraph(r, 1+r.IntN(size))
		case 1:
			g = randomGraph(r, 2+r.IntN(size))
		default:
			g = tangledGraph(r, 2+r.IntN(size))
		}
		f := Loops(g)
		checkForest(t, g, f)
		natural, ok := naturalLoops(g)
		if !ok {
			irreducible++
			continue
		}
		reducible++
		if len(natural) != len(f.Loops) {
			t.Fatalf("graph %v: %d loops, want %d natural loops", g.Succs, len(f.Loops), len(natural))
		}
		for li := range f.Loops {
			l := &f.Loops[li]
			if !slices.Equal(loopNodes(f, li), natural[l.Header]) || l.Irreducible() {
				t.Fatalf("graph %v: loop %+v, want natural loop %v", g.Succs, *l, natural[l.Header])
			}
		}
	}
	t.Logf("%d reducible and %d irreducible graphs", reducible, irreducible)
	if reducible < 500 || irreducible < 500 {
		t.Fatalf("%d reducible and %d irreducible graphs: the generators need tuning", reducible, irreducible)
	}
}

func TestLoopsTable(t *testing.T) {
	tests := []struct {
		name    string
		entry   int
		succs   [][]int
		loops   [][]int // per loop in preorder: the primary header, then the direct blocks
		headers [][]int
		parents []int
	}{
		{name: "no loops", succs: [][]int{{1, 2}, {3}, {3}, {}}},
		{name: "empty", succs: [][]int{}},
		{
			name:    "self loops",
			succs:   [][]int{{0, 1}, {1}},
			loops:   [][]int{{0, 0}, {1, 1}},
			headers: [][]int{{0}, {1}},
			parents: []int{-1, -1},
		},
		{
			name: "nested",
			// 0 -> 1 -> 2 -> 3 -> 2 | 4; 4 -> 1 | 5
			succs:   [][]int{{1}, {2}, {3}, {2, 4}, {1, 5}, {}},
			loops:   [][]int{{1, 1, 4}, {2, 2, 3}},
			headers: [][]int{{1}, {2}},
			parents: []int{-1, 0},
		},
		{
			name: "two entries",
			// 0 -> 1, 2; 1 <-> 2; 2 -> 3
			succs:   [][]int{{1, 2}, {2}, {1, 3}, {}},
			loops:   [][]int{{1, 1, 2}},
			headers: [][]int{{1, 2}},
			parents: []int{-1},
		},
		{
			name: "entry inside a loop",
			// 0 <-> 1; 1 -> 2
			succs:   [][]int{{1}, {0, 2}, {}},
			loops:   [][]int{{0, 0, 1}},
			headers: [][]int{{0}},
			parents: []int{-1},
		},
		{
			name: "deep entry into a nest",
			// 0 -> 1, 3; 1 -> 2 -> 3 -> 2 | 1: the edge 0 -> 3 enters
			// both cycle sets {1, 2, 3} and {2, 3} at 3, so the inner one
			// is merged into the outer.
			succs:   [][]int{{1, 3}, {2}, {3}, {2, 1}},
			loops:   [][]int{{1, 1, 2, 3}},
			headers: [][]int{{1, 3}},
			parents: []int{-1},
		},
		{
			name: "inner loop entered from its parent only",
			// 0 -> 1, 2; 1 <-> 2 (two entries); 2 -> 3 -> 2 (an inner
			// loop entered from 2 only); 3 -> 4.
			succs:   [][]int{{1, 2}, {2}, {1, 3}, {2, 4}, {}},
			loops:   [][]int{{1, 1, 2, 3}},
			headers: [][]int{{1, 2}},
			parents: []int{-1},
		},
		{
			name: "reducible loop inside an irreducible one",
			// 0 -> 1, 3; 1 -> 2 -> 3 -> 1 (entered at 1 and 3);
			// 2 -> 4 -> 5 -> 4 | 2: the loop {2, 4, 5}, entered from 1
			// only, holds the loop {4, 5}.
			succs:   [][]int{{1, 3}, {2}, {3, 4}, {1}, {5}, {4, 2}},
			loops:   [][]int{{1, 1, 3}, {2, 2}, {4, 4, 5}},
			headers: [][]int{{1, 3}, {2}, {4}},
			parents: []int{-1, 0, 1},
		},
		{
			name: "unreachable predecessor",
			// 3 is unreachable and jumps into the loop at 2: no entry.
			succs:   [][]int{{1}, {2}, {1, 4}, {2}, {}},
			loops:   [][]int{{1, 1, 2}},
			headers: [][]int{{1}},
			parents: []int{-1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := New(tc.entry, tc.succs)
			f := Loops(g)
			checkForest(t, g, f)
			if len(f.Loops) != len(tc.loops) {
				t.Fatalf("loops = %+v, want %v", f.Loops, tc.loops)
			}
			for li, want := range tc.loops {
				l := f.Loops[li]
				if l.Header != want[0] || !slices.Equal(l.Blocks, want[1:]) || !slices.Equal(l.Headers, tc.headers[li]) || l.Parent != tc.parents[li] {
					t.Errorf("loop %d = %+v, want header %d blocks %v headers %v parent %d", li, l, want[0], want[1:], tc.headers[li], tc.parents[li])
				}
			}
		})
	}
}
