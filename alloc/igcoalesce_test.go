package alloc

import (
	"math/bits"

	"github.com/kiln-jit/kiln/mir"
)

// This file holds a classical interference-graph copy coalescer (Chaitin,
// Briggs): the reference that Destruct's copy coalescing is measured
// against in tests and benchmarks. It takes a function out of SSA form the
// naive way, then repeats "build the interference graph, coalesce every
// copy whose ends do not interfere" until no copy can be coalesced.
//
// The graph is a triangular bit matrix. With compact set (Budimlić et al.,
// PLDI'02, §4.1, "Briggs*"), the matrix covers only the names that appear
// in coalescing candidates, through a map to a dense namespace; otherwise
// it covers every virtual register. Both make exactly the same decisions.

// igStats describes one igCoalesce run.
type igStats struct {
	// Rounds counts the build/coalesce rounds; the last one coalesced
	// nothing. (In the compact namespace a round with no candidate copy
	// left builds no graph: its matrix has 0 bits.)
	Rounds int
	// Names and MatrixBits give, for each round, the number of names the
	// graph covers and the size of its triangular bit matrix in bits.
	Names      []int
	MatrixBits []int
	// Coalesced counts the copies coalesced over all rounds.
	Coalesced int
	// CopiesBefore and CopiesAfter are the static copies (countCopies)
	// after naive out-of-SSA translation and after coalescing;
	// WeightedBefore and WeightedAfter weight them by block frequency.
	CopiesBefore, CopiesAfter     int
	WeightedBefore, WeightedAfter float64
}

// TotalBits returns the matrix bits summed over all rounds.
func (s igStats) TotalBits() int {
	n := 0
	for _, b := range s.MatrixBits {
		n += b
	}
	return n
}

// igCoalesce returns a non-SSA version of the SSA function f (which is not
// modified) with the copies of naive φ instantiation coalesced the
// Chaitin/Briggs way. See the file comment.
func igCoalesce(f *mir.Func, compact bool) (*mir.Func, igStats, error) {
	var st igStats
	g := f.Clone()
	if err := NaiveDestruct(g); err != nil {
		return nil, st, err
	}
	st.CopiesBefore, st.WeightedBefore = countCopies(g)
	c := &igCoalescer{f: g, compact: compact}
	for {
		st.Rounds++
		n := c.round()
		st.Names = append(st.Names, c.n)
		st.MatrixBits = append(st.MatrixBits, igTriBits(c.n))
		if n == 0 {
			break
		}
		st.Coalesced += n
	}
	st.CopiesAfter, st.WeightedAfter = countCopies(g)
	return g, st, nil
}

// countCopies counts the copies of f: OpCopy instructions, and parallel
// copy elements whose source and destination differ. weighted weighs each
// by its block's frequency.
func countCopies(f *mir.Func) (static int, weighted float64) {
	for _, b := range f.Blocks {
		n := 0
		for _, in := range b.Instrs {
			switch in.Op {
			case mir.OpCopy:
				n++
			case mir.OpParCopy:
				for i, d := range in.Defs {
					if d != in.Uses[i] {
						n++
					}
				}
			}
		}
		static += n
		weighted += float64(n) * b.Freq
	}
	return static, weighted
}

// igTriBits is the size in bits of a strictly lower triangular matrix
// over n names.
func igTriBits(n int) int { return n * (n - 1) / 2 }

// igPair is a coalescing candidate: a copy from virtual register Src to
// virtual register Dst (register numbers).
type igPair struct{ Dst, Src int }

// igCoalescer holds the state of the build/coalesce loop. Its slices are
// reused from round to round.
type igCoalescer struct {
	f       *mir.Func
	compact bool

	cands []igPair
	// idx maps a virtual register to its name in the graph's namespace
	// (-1: not in the graph); names maps back. n is the namespace size.
	idx   []int32
	names []int32
	n     int
	// matrix is the triangular bit matrix: bit i*(i-1)/2+j for i > j.
	matrix mir.Bitset
	live   mir.Bitset
	parent []int32
}

// candidate reports whether a copy from src to dst may be coalesced: both
// virtual registers, distinct, of the same class and pinned alike.
func (c *igCoalescer) candidate(dst, src mir.Reg) bool {
	f := c.f
	return dst.IsVirtual() && src.IsVirtual() && dst != src &&
		f.RegClass(dst) == f.RegClass(src) && f.Pin(dst) == f.Pin(src)
}

// round builds the interference graph of the current code, coalesces what
// it can in block, instruction and element order, renames, and returns the
// number of copies coalesced.
func (c *igCoalescer) round() int {
	f := c.f
	nv := len(f.VRegs)

	// The candidates, in program order.
	c.cands = c.cands[:0]
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			switch in.Op {
			case mir.OpCopy:
				if c.candidate(in.Defs[0], in.Uses[0]) {
					c.cands = append(c.cands, igPair{in.Defs[0].Index(), in.Uses[0].Index()})
				}
			case mir.OpParCopy:
				for i, d := range in.Defs {
					if c.candidate(d, in.Uses[i]) {
						c.cands = append(c.cands, igPair{d.Index(), in.Uses[i].Index()})
					}
				}
			}
		}
	}

	// The namespace. Compact names are handed out in increasing register
	// order, so "the smaller name" means the same register in both modes.
	if cap(c.idx) < nv {
		c.idx = make([]int32, nv)
	}
	c.idx = c.idx[:nv]
	c.names = c.names[:0]
	if c.compact {
		for i := range c.idx {
			c.idx[i] = -1
		}
		for _, p := range c.cands {
			c.idx[p.Dst], c.idx[p.Src] = 0, 0
		}
		for v, k := range c.idx {
			if k == 0 {
				c.idx[v] = int32(len(c.names))
				c.names = append(c.names, int32(v))
			}
		}
	} else {
		for v := range c.idx {
			c.idx[v] = int32(v)
			c.names = append(c.names, int32(v))
		}
	}
	c.n = len(c.names)
	if len(c.cands) == 0 && c.compact {
		return 0
	}

	c.build()

	// Coalesce. parent is a union-find forest over the namespace whose
	// roots are always the smallest name of their set.
	if cap(c.parent) < c.n {
		c.parent = make([]int32, c.n)
	}
	c.parent = c.parent[:c.n]
	for i := range c.parent {
		c.parent[i] = int32(i)
	}
	coalesced := 0
	for _, p := range c.cands {
		a, b := c.find(c.idx[p.Dst]), c.find(c.idx[p.Src])
		if a == b || c.interferes(int(a), int(b)) {
			continue
		}
		if b < a {
			a, b = b, a
		}
		c.parent[b] = a
		c.mergeRow(int(a), int(b))
		coalesced++
	}
	if coalesced > 0 {
		c.rename()
	}
	return coalesced
}

// find returns the representative of name x, compressing the path.
func (c *igCoalescer) find(x int32) int32 {
	r := x
	for c.parent[r] != r {
		r = c.parent[r]
	}
	for c.parent[x] != r {
		c.parent[x], x = r, c.parent[x]
	}
	return r
}

// igTriIndex returns the matrix bit of the pair (i, j), i != j.
func igTriIndex(i, j int) int {
	if i < j {
		i, j = j, i
	}
	return i*(i-1)/2 + j
}

func (c *igCoalescer) interferes(i, j int) bool { return c.matrix.Has(igTriIndex(i, j)) }

func (c *igCoalescer) addEdge(i, j int) {
	if i != j {
		c.matrix.Add(igTriIndex(i, j))
	}
}

// mergeRow gives name a every neighbour of name b (b joins a's set). The
// result over-approximates the graph of the renamed code, which the next
// round rebuilds exactly.
func (c *igCoalescer) mergeRow(a, b int) {
	for k := 0; k < c.n; k++ {
		if k != a && k != b && c.interferes(b, k) {
			c.addEdge(a, k)
		}
	}
}

// build computes liveness and fills the matrix: walking each block
// backward from its live-out set, every definition interferes with every
// name live after it, except that a copy's destination does not interfere
// with its own source (Chaitin's rule). A parallel copy is one instruction:
// its destinations are written together and interfere with each other.
func (c *igCoalescer) build() {
	f := c.f
	words := (igTriBits(c.n) + 63) / 64
	if cap(c.matrix) < words {
		c.matrix = make(mir.Bitset, words)
	}
	c.matrix = c.matrix[:words]
	c.matrix.Clear()
	lw := (c.n + 63) / 64
	if cap(c.live) < lw {
		c.live = make(mir.Bitset, lw)
	}
	c.live = c.live[:lw]
	live := c.live

	lv := mir.ComputeLiveness(f)
	for bi, b := range f.Blocks {
		live.Clear()
		for w, word := range lv.LiveOut[bi] {
			for ; word != 0; word &= word - 1 {
				if k := c.idx[w*64+bits.TrailingZeros64(word)]; k >= 0 {
					live.Add(int(k))
				}
			}
		}
		for i := len(b.Instrs) - 1; i >= 0; i-- {
			in := b.Instrs[i]
			switch in.Op {
			case mir.OpCopy:
				c.defines(in.Defs[0], c.name(in.Uses[0]))
			case mir.OpParCopy:
				for j, d := range in.Defs {
					c.defines(d, c.name(in.Uses[j]))
				}
			default:
				for _, d := range in.Defs {
					c.defines(d, -1)
				}
			}
			// Destinations written by one instruction interfere.
			for j, d := range in.Defs {
				kd := c.name(d)
				if kd < 0 {
					continue
				}
				for _, e := range in.Defs[:j] {
					if ke := c.name(e); ke >= 0 {
						c.addEdge(kd, ke)
					}
				}
			}
			for _, d := range in.Defs {
				if k := c.name(d); k >= 0 {
					live.Remove(k)
				}
			}
			for _, u := range in.Uses {
				if k := c.name(u); k >= 0 {
					live.Add(k)
				}
			}
		}
	}
}

// name returns the graph name of register r, or -1.
func (c *igCoalescer) name(r mir.Reg) int {
	if !r.IsVirtual() || r.Index() >= len(c.idx) {
		return -1
	}
	return int(c.idx[r.Index()])
}

// defines records that r is defined while the current live set is live
// after the definition; except names the copy source exempt from it (-1
// for none).
func (c *igCoalescer) defines(r mir.Reg, except int) {
	kd := c.name(r)
	if kd < 0 {
		return
	}
	for w, word := range c.live {
		for ; word != 0; word &= word - 1 {
			if k := w*64 + bits.TrailingZeros64(word); k != kd && k != except {
				c.addEdge(kd, k)
			}
		}
	}
}

// rename replaces every coalesced register by its set's representative
// and deletes the copies that became self-copies.
func (c *igCoalescer) rename() {
	f := c.f
	to := func(r mir.Reg) mir.Reg {
		if k := c.name(r); k >= 0 {
			return mir.VReg(int(c.names[c.find(int32(k))]))
		}
		return r
	}
	for _, b := range f.Blocks {
		out := b.Instrs[:0]
		for _, in := range b.Instrs {
			for j, r := range in.Defs {
				in.Defs[j] = to(r)
			}
			for j, r := range in.Uses {
				in.Uses[j] = to(r)
			}
			switch in.Op {
			case mir.OpCopy:
				if in.Defs[0] == in.Uses[0] && in.Defs[0].IsVirtual() {
					continue
				}
			case mir.OpParCopy:
				n := 0
				for j, d := range in.Defs {
					if d != in.Uses[j] {
						in.Defs[n], in.Uses[n] = d, in.Uses[j]
						n++
					}
				}
				in.Defs, in.Uses = in.Defs[:n], in.Uses[:n]
				if n == 0 {
					continue
				}
			}
			out = append(out, in)
		}
		clear(b.Instrs[len(out):])
		b.Instrs = out
	}
}
