package alloc

import (
	"slices"

	"github.com/kiln-jit/kiln/internal/cfg"

	"github.com/kiln-jit/kiln/mir"
)

// ssaInfo answers the questions out-of-SSA translation asks about an SSA
// function without building an interference graph: where each value is
// defined, whether one definition dominates another (with the dominator
// tree's preorder numbering), and whether two values interfere (with
// block liveness and, inside a block, the position of each value's last
// use), following Budimlić et al.: if two values interfere, the definition
// of one dominates the other's, and the dominating one is live just after
// the other's definition.
type ssaInfo struct {
	f    *mir.Func
	an   analysis
	live *mir.SSALiveness

	// Per virtual register: the defining block (-1: none), the position of
	// the defining instruction in it, the instruction, and whether it is a
	// φ.
	defBlock []int32
	defIdx   []int32
	defInstr []*mir.Instr
	isPhi    []bool
	// lastUse lists, per virtual register, the blocks where an ordinary
	// (non-φ) instruction reads it, in increasing order, and the position
	// of the last such instruction in each.
	lastUse [][]blockPos
	// outBlocks[outStart[v]:outStart[v+1]] lists the blocks value v is
	// live out of, in increasing order, for the values indexLiveOut was
	// asked about.
	outStart, outBlocks []int32
}

// analysis holds the CFG facts out-of-SSA translation needs: reverse
// postorder and the dominator tree (the loop forest is not needed).
type analysis struct {
	RPO    []int
	RPONum []int
	Dom    *cfg.DomTree
}

func analyze(f *mir.Func) analysis {
	g := f.Graph()
	a := analysis{RPO: g.ReversePostorder(), RPONum: make([]int, len(f.Blocks)), Dom: cfg.Dominators(g)}
	for i := range a.RPONum {
		a.RPONum[i] = -1
	}
	for i, b := range a.RPO {
		a.RPONum[b] = i
	}
	return a
}

type blockPos struct {
	block, idx int32
}

func newSSAInfo(f *mir.Func) *ssaInfo {
	n := len(f.VRegs)
	s := &ssaInfo{
		f: f, an: analyze(f), live: mir.ComputeSSALiveness(f),
		defBlock: make([]int32, n), defIdx: make([]int32, n), defInstr: make([]*mir.Instr, n),
		isPhi: make([]bool, n), lastUse: make([][]blockPos, n),
	}
	for i := range s.defBlock {
		s.defBlock[i] = -1
	}
	// The (block, last position) entries of all values share one array:
	// count them first.
	count := make([]int32, n)
	seenIn := make([]int32, n) // block + 1 of the last use counted
	for _, b := range f.Blocks {
		for k, in := range b.Instrs {
			for _, d := range in.Defs {
				if d.IsVirtual() {
					v := d.Index()
					s.defBlock[v], s.defIdx[v], s.defInstr[v] = int32(b.ID), int32(k), in
					s.isPhi[v] = in.Op == mir.OpPhi
				}
			}
			if in.Op == mir.OpPhi {
				continue
			}
			for _, u := range in.Uses {
				if u.IsVirtual() && seenIn[u.Index()] != int32(b.ID)+1 {
					seenIn[u.Index()] = int32(b.ID) + 1
					count[u.Index()]++
				}
			}
		}
	}
	total := 0
	for _, c := range count {
		total += int(c)
	}
	backing := make([]blockPos, total)
	for v, c := range count {
		s.lastUse[v] = backing[:0:c]
		backing = backing[c:]
	}
	for _, b := range f.Blocks {
		for k, in := range b.Instrs {
			if in.Op == mir.OpPhi {
				continue
			}
			for _, u := range in.Uses {
				if !u.IsVirtual() {
					continue
				}
				uses := s.lastUse[u.Index()]
				if l := len(uses); l > 0 && uses[l-1].block == int32(b.ID) {
					uses[l-1].idx = int32(k)
				} else {
					s.lastUse[u.Index()] = append(uses, blockPos{int32(b.ID), int32(k)})
				}
			}
		}
	}
	return s
}

// lastUseIn returns the position of the last ordinary instruction of block
// b that reads v, or -1. The entries of v are in block order: a binary
// search finds b's among the blocks where v is read.
func (s *ssaInfo) lastUseIn(v, b int) int {
	uses := s.lastUse[v]
	i, found := slices.BinarySearchFunc(uses, int32(b), func(u blockPos, b int32) int { return int(u.block - b) })
	if !found {
		return -1
	}
	return int(uses[i].idx)
}

// liveOutBlocks returns the blocks v is live out of, in increasing order.
// v must be one of the values given to indexLiveOut.
func (s *ssaInfo) liveOutBlocks(v int) []int32 {
	return s.outBlocks[s.outStart[v]:s.outStart[v+1]]
}

// indexLiveOut turns the liveness sets around for the values marked in
// want (nil: all values), so that liveOutBlocks can list the blocks each is live out of: in
// time linear in the size of the liveness sets, and memory linear in the
// part that concerns the marked values.
func (s *ssaInfo) indexLiveOut(want []bool) {
	n, nb := len(s.f.VRegs), len(s.f.Blocks)
	start := make([]int32, n+1)
	for b := range nb {
		for _, w := range s.live.Out(b) {
			if want == nil || want[w] {
				start[w+1]++
			}
		}
	}
	for w := range n {
		start[w+1] += start[w]
	}
	blocks := make([]int32, start[n])
	fill := slices.Clone(start[:n])
	for b := range nb {
		for _, w := range s.live.Out(b) {
			if want == nil || want[w] {
				blocks[fill[w]] = int32(b)
				fill[w]++
			}
		}
	}
	s.outStart, s.outBlocks = start, blocks
}

// dominatesDef reports whether the definition of a comes before the
// definition of b on every path (a != b): a's block strictly dominates b's,
// or both are in one block and a comes first. φs of one block are defined
// together; none dominates another.
func (s *ssaInfo) dominatesDef(a, b int) bool {
	ba, bb := int(s.defBlock[a]), int(s.defBlock[b])
	if ba < 0 || bb < 0 {
		return false
	}
	if ba != bb {
		return s.an.Dom.StrictlyDominates(ba, bb)
	}
	if s.isPhi[a] && s.isPhi[b] {
		return false
	}
	return s.defIdx[a] < s.defIdx[b]
}

// liveAfter reports whether value v is live just after position idx of
// block b, given that v's definition dominates that point.
func (s *ssaInfo) liveAfter(v, b, idx int) bool {
	return s.live.LiveOut(b, v) || s.lastUseIn(v, b) > idx
}

// interfere reports whether values a and b can not share a location: both
// are written by one instruction; both are φs of one block; one's
// definition dominates the other's and it is live just after it; or the
// later one is an early-clobber definition, or a tied definition, read by
// the same instruction as the earlier one (which the instruction must
// still read after writing the later).
func (s *ssaInfo) interfere(a, b int) bool {
	if a == b {
		return false
	}
	if s.defInstr[a] != nil && s.defInstr[a] == s.defInstr[b] {
		return true
	}
	if s.defBlock[a] == s.defBlock[b] && s.isPhi[a] && s.isPhi[b] {
		return true
	}
	if !s.dominatesDef(a, b) {
		if !s.dominatesDef(b, a) {
			return false
		}
		a, b = b, a
	}
	// a's definition dominates b's.
	bb := int(s.defBlock[b])
	if s.isPhi[b] {
		return s.live.LiveIn(bb, a)
	}
	if s.liveAfter(a, bb, int(s.defIdx[b])) {
		return true
	}
	return s.clobbersUse(b, a)
}

// clobbersUse reports whether the instruction defining d writes d before
// it has read use u (another value it reads): d is an early-clobber def,
// or a tied def and u is not the operand it is tied to.
func (s *ssaInfo) clobbersUse(d, u int) bool {
	in := s.defInstr[d]
	if in == nil || in.Op == mir.OpPhi {
		return false
	}
	di := -1
	for i, r := range in.Defs {
		if r == mir.VReg(d) {
			di = i
		}
	}
	spec := s.f.DefSpec(in, di)
	switch {
	case spec.EarlyClobber:
		return slices.Contains(in.Uses, mir.VReg(u))
	case spec.Tied >= 0:
		// Sharing the tied operand's location is the point; any other
		// operand is read after the def's location was written (when a
		// copy into it precedes the instruction).
		return in.Uses[spec.Tied] != mir.VReg(u) && slices.Contains(in.Uses, mir.VReg(u))
	}
	return false
}

// domLess orders values by the dominator-tree preorder number of their
// defining block, then position in the block, then number: an order in
// which every value comes after the values whose definitions dominate its
// own.
func (s *ssaInfo) domLess(a, b int) bool {
	if pa, pb := s.blockPre(a), s.blockPre(b); pa != pb {
		return pa < pb
	}
	if s.defBlock[a] == s.defBlock[b] && s.defIdx[a] != s.defIdx[b] {
		return s.defIdx[a] < s.defIdx[b]
	}
	return a < b
}

// blockPre returns the dominator-tree preorder number of v's defining
// block.
func (s *ssaInfo) blockPre(v int) int { return s.an.Dom.Pre[s.defBlock[v]] }

// blockLast returns the largest preorder number in the dominator subtree
// of v's defining block.
func (s *ssaInfo) blockLast(v int) int { return s.an.Dom.Last[s.defBlock[v]] }
