package alloc

import (
	"slices"

	"github.com/kiln-jit/kiln/mir"
)

// coalescer is the fast copy coalescer of Budimlić et al. ("Fast copy
// coalescing and live-range identification", PLDI 2002). It is optimistic:
// it unions every φ result with its arguments (union-find) unless one of
// five cheap liveness tests already shows an interference, then checks each
// class for interferences on its dominance forest and splits members out
// where two interfere. No interference graph is built.
//
// Two refinements for machine code: values whose definitions are pinned to
// a physical register (call results, arguments, division results) stay out
// of the classes (the pinning stage decides about them), and the result of
// a two-address instruction joins the class of the operand it is tied to
// when that operand dies there, so that no copy is needed before it.
type coalescer struct {
	s  *ssaInfo
	uf *unionFind
	// eligible marks the values that may join classes.
	eligible []bool
	// removed marks the values split out of their class: each keeps a
	// name of its own.
	removed []bool
	// cost is, per value, the frequency-weighted copies that keeping it in
	// its class saves; the cheaper of two interfering members is split
	// out.
	cost []float64

	stats *DestructStats
}

func newCoalescer(s *ssaInfo, eligible []bool, stats *DestructStats) *coalescer {
	n := len(s.f.VRegs)
	return &coalescer{s: s, uf: newUnionFind(n), eligible: eligible, removed: make([]bool, n),
		cost: make([]float64, n), stats: stats}
}

// unionPhis is step 1: union φ results with their arguments, except where
// a test shows they interfere (the copy then stays).
func (c *coalescer) unionPhis() {
	s := c.s
	claimedBy := make([]int32, len(s.f.VRegs)) // the φ of the current block that took an argument (+1)
	var claimed []int
	// blockSeen[b] == phiStamp: a value defined in block b is in the class
	// of the φ being processed (test 5). phiClass[r] == blockStamp: class
	// root r holds a φ of the current block already processed (test 4).
	blockSeen := make([]int32, len(s.f.Blocks))
	phiClass := make([]int32, len(s.f.VRegs))
	phiStamp, blockStamp := int32(0), int32(0)
	for _, b := range s.f.Blocks {
		for _, v := range claimed {
			claimedBy[v] = 0
		}
		claimed = claimed[:0]
		blockStamp++
		for _, phi := range b.Phis() {
			p := phi.Defs[0].Index()
			if !c.eligible[p] {
				continue
			}
			phiStamp++
			for _, arg := range phi.Uses {
				if !arg.IsVirtual() {
					continue
				}
				a := arg.Index()
				if a == p || s.defBlock[a] < 0 {
					continue
				}
				if c.uf.find(a) == c.uf.find(p) {
					// Joined already (through another φ): its block
					// counts for test 5 all the same.
					blockSeen[s.defBlock[a]] = phiStamp
					continue
				}
				switch {
				case !c.eligible[a]:
				case s.live.LiveIn(b.ID, a): // test 1: a is needed in b besides the φ
					c.stats.Filtered[0]++
				case s.live.LiveOut(int(s.defBlock[a]), p): // test 2
					c.stats.Filtered[1]++
				case s.isPhi[a] && s.live.LiveIn(int(s.defBlock[a]), p): // test 3
					c.stats.Filtered[2]++
				case claimedBy[a] != 0 && int(claimedBy[a]) != p+1 || phiClass[c.uf.find(a)] == blockStamp: // test 4
					// The second half is test 4 applied to classes rather
					// than to arguments: joining a to another φ of the block
					// would put two φs of one block, which always
					// interfere, into one class.
					c.stats.Filtered[3]++
				case blockSeen[s.defBlock[a]] == phiStamp: // test 5
					c.stats.Filtered[4]++
				default:
					marked := phiClass[c.uf.find(p)] == blockStamp
					if r := c.uf.union(p, a); marked {
						phiClass[r] = blockStamp
					}
					claimedBy[a] = int32(p + 1)
					claimed = append(claimed, a)
					blockSeen[s.defBlock[a]] = phiStamp
				}
			}
			phiClass[c.uf.find(p)] = blockStamp
		}
	}
}

// unionTied joins the result of each two-address instruction with the
// operand it is tied to when that operand is not live after the
// instruction (Rastello et al.'s case 4: pinning a use and a def of one
// instruction to one resource is correct).
func (c *coalescer) unionTied() {
	s := c.s
	for _, b := range s.f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == mir.OpPhi {
				continue
			}
			for i, d := range in.Defs {
				spec := s.f.DefSpec(in, i)
				if spec.Tied < 0 || !d.IsVirtual() {
					continue
				}
				u := in.Uses[spec.Tied]
				if !u.IsVirtual() || !c.eligible[d.Index()] || !c.eligible[u.Index()] {
					continue
				}
				if !s.interfere(u.Index(), d.Index()) {
					c.uf.union(d.Index(), u.Index())
				}
			}
		}
	}
}

// computeCosts sets, for every value, the frequency-weighted number of
// copies its class membership saves: one per φ edge and per tied
// instruction linking it to another member.
func (c *coalescer) computeCosts() {
	s := c.s
	for _, b := range s.f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == mir.OpPhi {
				p := in.Defs[0].Index()
				for k, arg := range in.Uses {
					if a := arg.Index(); arg.IsVirtual() && a != p && c.uf.find(a) == c.uf.find(p) {
						w := s.f.Blocks[b.Preds[k]].Freq
						c.cost[p] += w
						c.cost[a] += w
					}
				}
				continue
			}
			for i, d := range in.Defs {
				spec := s.f.DefSpec(in, i)
				if spec.Tied < 0 || !d.IsVirtual() {
					continue
				}
				if u := in.Uses[spec.Tied]; u.IsVirtual() && c.uf.find(u.Index()) == c.uf.find(d.Index()) {
					c.cost[d.Index()] += b.Freq
					c.cost[u.Index()] += b.Freq
				}
			}
		}
	}
}

// classes returns the members of every class with more than one value, each
// sorted in dominance order (dominator-tree preorder of the defining block,
// then position in it), classes in the order of their first member.
func (c *coalescer) classes() [][]int {
	s := c.s
	n := len(s.f.VRegs)
	// Two passes over the values share one backing array among the
	// classes: sizes by representative, then the members, classes in the
	// order of their smallest member.
	size := make([]int32, n)
	total := 0
	for v := 0; v < n; v++ {
		if s.defBlock[v] >= 0 {
			r := c.uf.find(v)
			size[r]++
			if size[r] == 2 {
				total += 2
			} else if size[r] > 2 {
				total++
			}
		}
	}
	backing := make([]int, 0, total)
	index := make([]int32, n) // class number + 1, by representative
	var classes [][]int
	for v := 0; v < n; v++ {
		if s.defBlock[v] < 0 {
			continue
		}
		r := c.uf.find(v)
		if size[r] < 2 {
			continue
		}
		if index[r] == 0 {
			k := len(backing)
			backing = backing[:k+int(size[r])]
			classes = append(classes, backing[k:k:k+int(size[r])])
			index[r] = int32(len(classes))
		}
		classes[index[r]-1] = append(classes[index[r]-1], v)
	}
	for _, members := range classes {
		c.sortDominance(members)
	}
	return classes
}

// sortDominance orders values by the preorder number of their defining
// block in the dominator tree, then by position in the block, then by
// number.
func (c *coalescer) sortDominance(vs []int) {
	slices.SortFunc(vs, func(a, b int) int {
		switch {
		case a == b:
			return 0
		case c.s.domLess(a, b):
			return -1
		}
		return 1
	})
}

// resolve is step 2: for each class, build its dominance forest, test each
// parent–child edge, and split out a member of every interfering pair. A
// parent live out of the child's block interferes for certain; a parent
// live into it (or defined in it) is a pair to settle locally after the
// forest. Removing a member changes the forest, so the walk repeats until
// it removes nothing.
func (c *coalescer) resolve(classes [][]int) {
	s := c.s
	var stack []int
	type pair struct{ p, c int }
	var local []pair
	for _, members := range classes {
		for changed := true; changed; {
			changed = false
			stack, local = stack[:0], local[:0]
			for _, v := range members {
				if c.removed[v] {
					continue
				}
				for {
					for len(stack) > 0 && s.blockPre(v) > s.blockLast(stack[len(stack)-1]) {
						stack = stack[:len(stack)-1]
					}
					if len(stack) == 0 {
						break
					}
					p := stack[len(stack)-1]
					c.stats.ForestEdges++
					switch c.edgeKind(p, v) {
					case edgeDefinite:
						c.stats.DefiniteInterferences++
						changed = true
						if c.cost[v] <= c.cost[p] {
							c.removed[v] = true
						} else {
							c.removed[p] = true
							stack = stack[:len(stack)-1]
							continue // test v against its new parent
						}
					case edgeLocal:
						local = append(local, pair{p, v})
					}
					break
				}
				if !c.removed[v] {
					stack = append(stack, v)
				}
			}
			for _, pr := range local {
				if c.removed[pr.p] || c.removed[pr.c] {
					continue
				}
				c.stats.LocalChecks++
				if s.interfere(pr.p, pr.c) {
					c.stats.LocalInterferences++
					changed = true
					if c.cost[pr.c] <= c.cost[pr.p] {
						c.removed[pr.c] = true
					} else {
						c.removed[pr.p] = true
					}
				}
			}
		}
	}
}

// dominanceForest returns the dominance forest of values sorted in
// dominance order (Budimlić et al., Definition 3.1 and Figure 1 with its
// indentation corrected): the parent of each value is the nearest earlier
// value whose definition dominates it, -1 for a root. One stack walk over
// the preorder numbers of the defining blocks builds it.
func dominanceForest(s *ssaInfo, sorted []int) []int {
	parent := make([]int, len(sorted))
	var stack []int // indices into sorted
	for i, v := range sorted {
		for len(stack) > 0 && s.blockPre(v) > s.blockLast(sorted[stack[len(stack)-1]]) {
			stack = stack[:len(stack)-1]
		}
		parent[i] = -1
		if len(stack) > 0 {
			parent[i] = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	return parent
}

const (
	edgeClean = iota
	edgeDefinite
	edgeLocal
)

// edgeKind classifies the forest edge from p to its child v: p live out of
// v's block (or v a φ with p live into its block, or one instruction
// defining both) interferes for certain; p live into v's block or defined
// in it needs the position of p's last use there; otherwise they cannot
// interfere (Budimlić et al., Theorem 2.2).
func (c *coalescer) edgeKind(p, v int) int {
	s := c.s
	bv := int(s.defBlock[v])
	switch {
	case s.defInstr[p] == s.defInstr[v]:
		return edgeDefinite
	case s.isPhi[v]:
		if s.interfere(p, v) {
			return edgeDefinite
		}
		return edgeClean
	case s.live.LiveOut(bv, p):
		return edgeDefinite
	case s.live.LiveIn(bv, p) || int(s.defBlock[p]) == bv:
		return edgeLocal
	}
	return edgeClean
}
