package alloc

import (
	"fmt"

	"github.com/kiln-jit/kiln/mir"
)

// DestructOptions select parts of Destruct, for measuring what each
// contributes. The zero value runs everything.
type DestructOptions struct {
	// NoCoalesce skips the fast copy coalescer: every φ operand and tied
	// operand starts in a resource of its own.
	NoCoalesce bool
	// NoPhiPinning skips Rastello et al.'s φ pinning over the affinity
	// graph.
	NoPhiPinning bool
	// NoUsePinning skips pinning the values read by fixed-register
	// operands to those registers.
	NoUsePinning bool
	// NoConstraints ignores fixed-register and two-address operands
	// altogether: the coalescer alone, as Budimlić et al. describe it. The
	// output is plain non-SSA code (Pins nil), like NaiveDestruct's; it is
	// for measuring the coalescer against others.
	NoConstraints bool
	// InPlace takes f out of SSA form in place instead of working on a
	// copy: f becomes the result's Func and must not be used as SSA form
	// afterwards. A compiler that has no further use for the SSA form sets
	// it, so that a large function is not held twice.
	InPlace bool
}

// DestructStats counts what Destruct did.
type DestructStats struct {
	// SplitEdges is the number of edges split to hold φ copies (split
	// blocks that got no copies are removed again).
	SplitEdges int
	// Filtered counts the φ operands each of Budimlić et al.'s five
	// step-1 tests kept out of their φ's class.
	Filtered [5]int
	// Classes is the number of classes of more than one value after
	// splitting; Split the values split out of them.
	Classes, Split int
	// ForestEdges is the number of dominance-forest edges tested;
	// DefiniteInterferences those found interfering by block liveness
	// alone; LocalChecks and LocalInterferences the edges that needed the
	// position of a last use, and those that interfered.
	ForestEdges, DefiniteInterferences, LocalChecks, LocalInterferences int
	// AffinityEdges is the number of affinity-graph edges built by φ
	// pinning; PinnedAffinities the φ operands whose copies pinning
	// removed.
	AffinityEdges, PinnedAffinities int
	// PinnedUses counts the values pinned to the register an operand
	// reading them needs.
	PinnedUses int
	// PhiCopies are the moves left on φ edges; ConstraintCopies the moves
	// into fixed-register and two-address operands; Repairs the values
	// given a repair copy because their register was overwritten while
	// they were still needed. The weighted counts multiply each move by its
	// block's expected executions.
	PhiCopies, ConstraintCopies, Repairs        int
	WeightedPhiCopies, WeightedConstraintCopies float64
}

// Copies returns the number of moves Destruct placed.
func (s *DestructStats) Copies() int { return s.PhiCopies + s.ConstraintCopies + s.Repairs }

// Destructed is the result of Destruct.
type Destructed struct {
	// Func is the function out of SSA form.
	Func  *mir.Func
	Stats DestructStats
	// Names gives, for each virtual register of the input, the register of
	// Func that its definition writes (NoReg for registers never defined).
	Names []mir.Reg
}

// Destruct takes an SSA function out of SSA form for the optimizing
// pipeline, combining two algorithms:
//
//   - the fast copy coalescer of Budimlić et al. (PLDI 2002): φ results
//     and arguments are unioned into classes (union-find) unless a
//     liveness test rules it out; each class's dominance forest (built
//     from the dominator tree's preorder numbers) is walked, an
//     interference on an edge splitting a member out; no interference
//     graph is built;
//
//   - renaming constraints by pinning (Rastello et al., 2005, after Leung
//     and George): operands that must be in a fixed register (division,
//     variable shifts, call arguments and results, returned values,
//     arguments) and two-address operands are pinned to resources; φ webs
//     are pinned to a common resource, physical registers included, only
//     where that creates no interference, join blocks taken from inner
//     loops outward with the paper's weighted affinity graph; a value
//     whose register is overwritten while it is still needed gets a
//     repair copy.
//
// The result is in non-SSA form with Pins set: one virtual register per
// resource (the physical ones pinned to their register), every fixed
// operand a register pinned to its location, every tied def the same
// register as its use. The copies of each φ edge form one parallel copy at
// the end of the predecessor (edges are split where needed), copies into
// an instruction's operands one parallel copy before it; they are
// sequentialized only at the end of the pipeline. The output does not
// depend on map iteration order. f is not modified unless
// opts.InPlace is set.
//
// Operands fixed to stack-argument slots (arguments beyond the registers)
// are left unpinned: the allocator stores them.
func Destruct(f *mir.Func, opts DestructOptions) (*Destructed, error) {
	if f.Form != mir.FormSSA {
		return nil, fmt.Errorf("alloc: destruct %s needs SSA form, not %s", f.Name, f.Form)
	}
	g := f
	if !opts.InPlace {
		g = f.Clone()
	}
	res := &Destructed{Func: g}
	stats := &res.Stats
	splits := splitPhiEdges(g)
	stats.SplitEdges = len(splits)
	s := newSSAInfo(g)
	for _, b := range g.Blocks {
		if s.an.RPONum[b.ID] < 0 {
			return nil, fmt.Errorf("alloc: destruct %s: block b%d is unreachable", g.Name, b.ID)
		}
	}
	n := len(g.VRegs)
	eligible := make([]bool, n)
	for v := range eligible {
		eligible[v] = s.defBlock[v] >= 0
	}
	for _, b := range g.Blocks {
		for _, in := range b.Instrs {
			for i, d := range in.Defs {
				if d.IsVirtual() && g.DefSpec(in, i).Fixed.IsPhys() && !opts.NoConstraints {
					eligible[d.Index()] = false
				}
			}
		}
	}
	co := newCoalescer(s, eligible, stats)
	var classes [][]int
	if !opts.NoCoalesce {
		co.unionPhis()
		if !opts.NoConstraints {
			co.unionTied()
		}
		co.computeCosts()
		classes = co.classes()
		co.resolve(classes)
		for _, members := range classes {
			kept := 0
			for _, v := range members {
				if co.removed[v] {
					stats.Split++
				} else {
					kept++
				}
			}
			if kept > 1 {
				stats.Classes++
			}
		}
	}
	rs := newResources(s, co, classes, !opts.NoConstraints)
	if !opts.NoPhiPinning {
		rs.pinPhis(stats)
	}
	if !opts.NoUsePinning && !opts.NoConstraints {
		rs.pinUses(stats)
	}
	rb := newRebuilder(s, rs, stats)
	rb.constrained = !opts.NoConstraints
	rb.mark()
	if err := rb.reconstruct(); err != nil {
		return nil, err
	}
	res.Names = make([]mir.Reg, n)
	for v := range res.Names {
		res.Names[v] = mir.NoReg
		if s.defBlock[v] >= 0 {
			res.Names[v] = rb.resourceReg(rs.root(v))
		}
	}
	stats.SplitEdges -= unsplitEmpty(g, splits)
	g.Form = mir.FormNonSSA
	if g.Pins == nil && !opts.NoConstraints {
		g.Pins = make([]mir.Reg, len(g.VRegs))
		for i := range g.Pins {
			g.Pins[i] = mir.NoReg
		}
	}
	compactVRegs(g, res.Names)
	return res, nil
}

// splitPhiEdges splits every edge into a block with φs whose predecessor
// does not end with a plain jump (so critical edges among them), so that
// each edge's φ copies can go at the end of a block of its own. It
// returns where it put the new blocks, in the order it made them.
func splitPhiEdges(f *mir.Func) []splitRecord {
	var splits []splitRecord
	nblocks := len(f.Blocks)
	var pos mir.EdgePositions // computed when first needed
	havePos := false
	for bi := 0; bi < nblocks; bi++ {
		b := f.Blocks[bi]
		if t := b.Terminator(); t == nil || t.Op == mir.OpJMP {
			continue
		}
		for i, s := range b.Succs {
			if !hasPhis(f.Blocks[s]) {
				continue
			}
			if !havePos {
				// Splitting replaces the entries of the edge it splits
				// in place, so the positions of the others stay valid.
				pos, havePos = mir.PredPositions(f), true
			}
			n := SplitEdgeAt(f, b, i, pos.At(bi, i))
			splits = append(splits, splitRecord{block: n.ID, succIdx: i, predPos: pos.At(bi, i)})
		}
	}
	return splits
}

// hasPhis reports whether block b starts with a φ.
func hasPhis(b *mir.Block) bool {
	return len(b.Instrs) > 0 && b.Instrs[0].Op == mir.OpPhi
}

// compactVRegs renumbers f's virtual registers densely in order of first
// appearance, dropping unused ones, and rewrites names to match.
func compactVRegs(f *mir.Func, names []mir.Reg) {
	renum := make([]mir.Reg, len(f.VRegs))
	for i := range renum {
		renum[i] = mir.NoReg
	}
	var classes []mir.Class
	var pins []mir.Reg
	get := func(r mir.Reg) mir.Reg {
		if !r.IsVirtual() {
			return r
		}
		if renum[r.Index()] == mir.NoReg {
			renum[r.Index()] = mir.VReg(len(classes))
			classes = append(classes, f.VRegs[r.Index()])
			pins = append(pins, f.Pin(r))
		}
		return renum[r.Index()]
	}
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			for i, r := range in.Defs {
				in.Defs[i] = get(r)
			}
			for i, r := range in.Uses {
				in.Uses[i] = get(r)
			}
		}
	}
	for i, r := range names {
		if r != mir.NoReg {
			names[i] = get(r)
		}
	}
	f.VRegs = classes
	if f.Pins != nil {
		f.Pins = pins
	}
}
