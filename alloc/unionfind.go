package alloc

// unionFind is a disjoint-set forest over 0..n-1 with path halving and
// union by rank: a sequence of m operations costs O(m α(n)).
type unionFind struct {
	parent []int32
	rank   []uint8
}

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), rank: make([]uint8, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
	}
	return u
}

// find returns the representative of x's set.
func (u *unionFind) find(x int) int {
	for int(u.parent[x]) != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = int(u.parent[x])
	}
	return x
}

// union merges the sets of x and y and returns the new representative.
func (u *unionFind) union(x, y int) int {
	x, y = u.find(x), u.find(y)
	if x == y {
		return x
	}
	if u.rank[x] < u.rank[y] {
		x, y = y, x
	}
	u.parent[y] = int32(x)
	if u.rank[x] == u.rank[y] {
		u.rank[x]++
	}
	return x
}
