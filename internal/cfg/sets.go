package cfg

// labelledSets is a disjoint-set forest over the elements 0..n-1 in which
// every set is named by one of its members, its label, chosen by the caller
// at each union (the root of a set's tree need not be its label). Union by
// rank and path halving make any sequence of m operations cost O(m α(n)).
type labelledSets struct {
	parent []int32
	rank   []uint8
	label  []int32 // per root: the label of its set
	rootOf []int32 // per label: the root of its set
	steps  int     // parent links followed, for the scaling tests
}

// reset makes every element a singleton set labelled by itself.
func (s *labelledSets) reset(n int) {
	s.parent = fit32(s.parent, n)
	s.label = fit32(s.label, n)
	s.rootOf = fit32(s.rootOf, n)
	if cap(s.rank) < n {
		s.rank = make([]uint8, n)
	}
	s.rank = s.rank[:n]
	for i := range n {
		s.parent[i], s.label[i], s.rootOf[i], s.rank[i] = int32(i), int32(i), int32(i), 0
	}
}

// root returns the root of x's tree, halving the path on the way.
func (s *labelledSets) root(x int32) int32 {
	p := s.parent
	for p[x] != x {
		p[x] = p[p[x]]
		x = p[x]
		s.steps++
	}
	return x
}

// find returns the label of x's set.
func (s *labelledSets) find(x int32) int32 { return s.label[s.root(x)] }

// union merges the sets labelled a and b (a != b) into one labelled b.
func (s *labelledSets) union(a, b int32) {
	ra, rb := s.rootOf[a], s.rootOf[b]
	if s.rank[ra] > s.rank[rb] {
		ra, rb = rb, ra
	} else if s.rank[ra] == s.rank[rb] {
		s.rank[rb]++
	}
	s.parent[ra] = rb
	s.label[rb] = b
	s.rootOf[b] = rb
}

// fit32 returns s resized to n elements, reusing its array when it can.
func fit32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// filled32 returns a new slice of n elements all set to v.
func filled32(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}
