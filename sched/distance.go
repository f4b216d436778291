package sched

// Expected-distance analysis: the liveness probability and the expected
// distance to the next use of every virtual register at the top and the
// bottom of every block (Burroughs, "Register allocation and spilling
// using the expected distance heuristic", PhD thesis, University of
// Victoria, 2016, §3.3), the in-block distance query of its Alg. 3 with
// the distance multipliers of §3.4.3, and the nearest-next-use alternative
// of Braun and Hack (distance_nnu.go). The integrated pass uses it through
// DistanceVictim (Options.Oracle, victim_distance.go), which maps its point
// of choice to the positions of Distance(v, b, pos).
//
// # Equations
//
// For a virtual register v and a block B with successors S taken with
// probability P(B→S):
//
//	LPTop_B = 1 if v's first reference in B is a use, 0 if it is a
//	          definition, LPBot_B if B does not reference v       (3.1)
//	LPBot_B = Σ_S P(B→S)·LPTop_S                                  (3.2)
//	EDTop_B = dist if the first reference is a use at distance dist,
//	          ∞ if v is not live at B's top, EDBot_B + |B| if B does
//	          not reference v                                      (3.3)
//	EDBot_B = Σ_S P(B→S)·LPTop_S·EDTop_S / LPBot_B                 (3.4)
//
// with 0·∞ = 0, so that successors without a next use drop out and EDBot
// is the expected distance over the paths that reach a use. When LPBot_B
// is 0 (no use is reachable with positive probability) EDBot_B is ∞ and
// nothing is divided. A block without successors (an exit) has LPBot = 0.
//
// # Distance convention
//
// Distances count instructions. A point lies between two instructions; the
// distance from a point to an instruction is the number of instructions
// from the point up to and including it. So the first instruction of a
// block is at distance 1 from its top, EDTop_B = EDBot_B + |B| for a block
// that does not reference v, and Distance(v, B, 0) equals EDTop_B for
// every v live into B. The query Distance(v, B, pos) measures from the
// point just before instruction pos (the thesis's I_N, "the instruction
// after the spill point", which Alg. 3 counts as 1): a use in instruction
// j ≥ pos is at distance j−pos+1; with no reference left in the block the
// distance is (len(B)−pos) + EDBot_B. Alg. 3 as printed returns one more
// in that last case (its counter starts at 1 and is incremented past the
// last instruction); the convention here agrees with the numbers of the
// thesis's Example 3.4.2 and with (3.3). Uses are read before definitions,
// so an instruction that uses and redefines v is a use; a definition
// reached first gives ∞.
//
// In SSA form a φ's definition is a definition at the top of its block and
// its operands are uses on the incoming edges, each at distance 1 from the
// bottom of the predecessor (the edge's parallel copy); φs are not counted
// in |B| or in distances.
//
// # Solving
//
// For one v the equations are linear in LP and in the product LP·ED, which
// is what (3.4) sums; with Y = LPTop·EDTop, a block B that does not
// reference v satisfies
//
//	(LPTop_B, Y_B) = Σ_S P(B→S)·(LPTop_S, Y_S + |B|·LPTop_S),
//
// one linear system for the pair over the blocks where v is live and not
// referenced, with constants (1, dist) from the blocks whose first
// reference is a use, (1, 1) from φ operands on an edge, and (0, 0)
// otherwise. The pair is the dual number LP + Y·ε (ε² = 0): the edge
// coefficient is P·(1 + |B|·ε), and the system is x = A·x + b over dual
// numbers with A the probabilities restricted to those blocks.
//
// EDAnalyze solves it exactly, per register, by Gaussian elimination in
// reverse-postorder: blocks are eliminated from last to first; when block n
// is eliminated, the equations of its successors already eliminated are
// substituted (those in turn name only earlier blocks, substituted again,
// largest first, until only blocks before n remain), and n's dependence on
// itself, the dual coefficient a + c·ε of returning to n without meeting a
// reference of v, is solved in closed form: multiplying by (1−a−c·ε)⁻¹ =
// 1/(1−a) + c/(1−a)²·ε. Back substitution in reverse postorder then gives
// every value. This is the closed form per loop (a loop of probability p
// gets its 1/(1−p) factor directly), so a hot loop with p = 0.999 costs the
// same as p = 0.5: no iteration converges geometrically at rate p. On a
// reducible CFG an eliminated block's equation names only the headers of
// the loops around it that it reaches, so the substitution is one round
// per edge; irreducible regions may name several entries and need more
// rounds, still exact and finite. A return probability 1−a ≤ EDClosedTol
// means v's uses are unreachable from that cycle with positive probability
// (the least fixed point): LP 0, ED ∞. The elimination is stable without
// pivoting, I−A being (weakly) diagonally dominant: A's rows sum to at
// most 1. A quotient LP·ED / LP too large for a float64 is capped at
// math.MaxFloat64, so no NaN or infinity comes out when LP > 0.
//
// As a backstop for a register whose elimination would exceed a work
// budget (EDElimBudget times the size of its system), that register is
// solved by the worklist iteration of Alg. 10 (Appendix A) from LP = 0,
// which increases monotonically to the least fixed point: a block is
// revisited while its value changes by more than EDTolerance (relative),
// at most MaxVisits times; a register that reaches the cap is counted in
// EDStats.Unconverged. EDOptions.Iterate uses the iteration for every
// register, for comparison.
//
// # Cost
//
// Time: the reference index is two counting sorts of the operands
// (O(operands + blocks + registers)); liveness is found per register by
// walking predecessors backwards from its upward-exposed uses and φ
// operands, stopping at its definitions (linear in the size of its live
// sets, which are then sorted in reverse postorder: with a bitmap in O(k)
// when they are dense in their range, else in O(k log k) for k blocks);
// each register's system has one unknown per block where it is
// live and unreferenced and is eliminated in time proportional to the
// edges out of those blocks times the number of loop headers an
// eliminated equation names (one per enclosing loop the block reaches
// without meeting a reference, in practice a handful); the bottoms cost
// one pass over the successor edges of the blocks where the register is
// live out. Overall near-linear in instructions + edges + L, where L, the
// total size of the live-in and live-out sets, is what the result stores.
// EDStats.Work counts these steps: per unit of instructions + operands +
// edges + L it is 2.7 to 4.8 on kiln's pathological shapes at both 1k and
// 10k bytecode instructions, and 7.0, 7.4 and 9.2 on the generated
// function at 1k, 10k and 100k (the growth is the sorting's log factor).
// Measured in the same loop, the analysis takes about a third of the time
// of the integrated allocator (Allocate) on the same functions.
//
// Memory: nothing is blocks × registers. The result keeps, per register,
// the blocks it is live into and out of (their reverse-postorder numbers,
// 4 bytes per entry) with LP and ED beside each entry (16 bytes); a
// reference index for the in-block queries of 8 bytes per distinct
// (block, register) pair plus 4 bytes per instruction reference; and
// O(blocks + registers + edges) more. During the analysis it holds the
// references by register (8 bytes each), seven integers per block of
// marks and one register's equations at a time.
//
// Blocks that the entry does not reach are analysed like the others (they
// are numbered by further depth-first searches after the entry's).

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
)

// Distance multipliers (§3.4.3): a rematerializable value is made to look
// further away so that it is preferred as a spill victim. The thesis uses 4
// for ARM's two-instruction 32-bit constant (Mov32) and 1,000,000 for the
// other rematerializable values, which need neither a store nor a load.
// On x86-64 the rematerializable ops are those of alloc.IsRematOp
// (MOVQconst, MOVSDconst, CtxLoad); every definition of the register must
// be the same such instruction. Classes:
//
//   - EDMultCheap: a MOVQconst whose immediate fits 32 bits (a short
//     mov r32/r64, imm32) and a MOVSDconst of +0.0 (xorps): recomputing
//     costs one register-only instruction.
//   - EDMultCostly: a MOVQconst with a full 64-bit immediate (movabs, 10
//     bytes: the closest analogue of Mov32), a MOVSDconst of any other
//     value (a load from the constant pool) and CtxLoad (a load from the
//     execution context): no store is needed, but recomputing costs a long
//     instruction or a memory access, the class the thesis says should get
//     a smaller multiplier than pure rematerialization.
//   - 1 for every other value (dirty: spilling it stores it).
const (
	EDMultCheap  = 1e6
	EDMultCostly = 4
)

// Solver parameters.
const (
	// EDTolerance is the relative change below which the worklist
	// iteration (the backstop, or EDOptions.Iterate) considers a block's
	// value stable.
	EDTolerance = 1e-9
	// EDDefaultMaxVisits caps the visits of one block by the iteration.
	EDDefaultMaxVisits = 1000
	// EDClosedTol: a cycle of blocks that do not reference v, left with
	// probability at most EDClosedTol per round, is treated as never
	// reaching a use (LP 0).
	EDClosedTol = 1e-12
	// EDElimBudget bounds the elimination of one register to EDElimBudget
	// steps per unknown and edge of its system (plus a constant); beyond
	// it the register falls back to the iteration.
	EDElimBudget = 64
)

// NextUseOracle answers the spill heuristic's question: how far from the
// point just before instruction pos of block b is the next use of v.
// *EDAnalysis (expected distance) and *NNUAnalysis (nearest next use)
// implement it.
type NextUseOracle interface {
	// Distance returns the pure distance in instructions (+Inf: no next
	// use).
	Distance(v mir.Reg, b, pos int) float64
	// EffectiveDistance returns Distance times v's multiplier.
	EffectiveDistance(v mir.Reg, b, pos int) float64
}

// EDOptions configures EDAnalyze. The zero value takes the probabilities
// from the blocks' SuccProb and solves exactly.
type EDOptions struct {
	// EdgeCounts, when not nil, holds each block's successor-edge
	// traversal counts (EdgeCounts[b][i] for f.Blocks[b].Succs[i]); the
	// probabilities are then EDEdgeProbabilities of them (add-one
	// smoothing) instead of SuccProb.
	EdgeCounts [][]uint64
	// DeadEdge turns on the dead-edge estimator of eq. 3.6 (off in the
	// thesis's main results, which it made worse): at a block where v is
	// live with LPBot > 0 and some successor edge has P·LPTop = 0,
	// EDBot = Σ P·LPTop·EDTop / LPBot². It is applied to the values
	// reported at that block (EDBot, and EDTop = EDBot + |B| when the
	// block does not reference v), not propagated to predecessors: fed
	// back through a loop its factor 1/LPBot can exceed the loop's exit
	// probability and the equations then have no finite solution.
	DeadEdge bool
	// Iterate solves every register by the worklist iteration (Alg. 10)
	// instead of the exact elimination, for comparison.
	Iterate bool
	// MaxVisits caps the iteration's visits per block (0:
	// EDDefaultMaxVisits).
	MaxVisits int

	// elimBudget, when positive, replaces the elimination's work budget
	// (for tests of the fallback).
	elimBudget int64
	// arena, when not nil, holds the analysis's arrays and the solver's
	// storage, reset: the result lives only until its next use.
	arena *edArena
}

// EDStats describes one run of the analysis.
type EDStats struct {
	Blocks, Instrs, VRegs int
	// LiveIn and LiveOut are the sizes of the live sets: the (block,
	// register) pairs that hold values.
	LiveIn, LiveOut int
	// Work counts elementary steps: operands indexed, blocks and edges
	// visited by the liveness walks and the solvers, equation terms
	// substituted and heap operations.
	Work int64
	// Eliminated and Iterated count the registers solved by elimination
	// and by iteration (with a nonempty system); Unconverged those whose
	// iteration reached the visit cap.
	Eliminated, Iterated, Unconverged int
}

// EDEdgeProbabilities returns the probabilities of one block's successor
// edges from their traversal counts with the add-one smoothing of §3.3.3:
// when any edge has count 0, every edge gets one more; a block never left
// (every count 0) therefore gets 1/len(counts) on each edge. The rule is
// profilecounters.Smooth, which Layout.Probabilities applies to bytecode
// edges.
// Counts 9 and 0 give the thesis's 10/11 and 1/11 (counts 10 and 0 give
// 11/12 and 1/12).
func EDEdgeProbabilities(counts []uint64) []float64 {
	p := make([]float64, len(counts))
	profilecounters.Smooth(counts, p)
	return p
}

// edNormalize fills p with blk's successor probabilities scaled to sum to
// 1; missing, negative or non-finite probabilities count as 0, and a block
// whose probabilities sum to 0 gets uniform ones.
func edNormalize(blk *mir.Block, p []float64) {
	sum := 0.0
	for i := range p {
		q := 0.0
		if i < len(blk.SuccProb) {
			q = blk.SuccProb[i]
		}
		if !(q > 0) || math.IsInf(q, 1) {
			q = 0
		}
		p[i] = q
		sum += q
	}
	for i := range p {
		if sum > 0 {
			p[i] /= sum
		} else {
			p[i] = 1 / float64(len(p))
		}
	}
}

// edRematKey identifies what a rematerializable definition computes.
type edRematKey struct {
	op  mir.Op
	imm int64
	aux int32
}

// edArena holds the arrays of an expected-distance or nearest-next-use
// analysis and its solver's storage. The integrated pass keeps one between
// compiles (reset before each analysis), so the analysis allocates little
// more than its result's header; EDAnalyze and NNUAnalyze called without
// one allocate a fresh arena, which the result keeps.
type edArena struct {
	i32    slab[int32]
	f64    slab[float64]
	f32    slab[float32]
	u8     slab[uint8]
	bools  slab[bool]
	keys   slab[edRematKey]
	solver edSolver
	walk   edWalk
	// buildRefs's list of the references, kept for its storage.
	refRegs, refEnc []int32
}

// reset makes the arena's storage available to the next analysis; the
// analysis that used it before must no longer be used.
func (ar *edArena) reset() {
	ar.i32.reset()
	ar.f64.reset()
	ar.f32.reset()
	ar.u8.reset()
	ar.bools.reset()
	ar.keys.reset()
}

// size returns the number of bytes the arena's arrays hold.
func (ar *edArena) size() int {
	return ar.i32.bytes() + ar.f64.bytes() + ar.f32.bytes() + ar.u8.bytes() + ar.bools.bytes() + ar.keys.bytes()
}

// edBase is what the expected-distance and nearest-next-use analyses
// share: the edges and their probabilities, the block order, the
// reference index for in-block queries, the multipliers, the liveness walk
// and the live sets of the result.
type edBase struct {
	f      *mir.Func
	nb, nv int
	ar     *edArena // where its arrays come from
	// Per block: |B| (instructions other than φs) and the number of φs.
	blkLen, nphi []int32
	// Edges are numbered block by block: block b's successor edges are
	// succBase[b] to succBase[b+1]-1, edge e goes from edgeFrom[e] to
	// succ[e] with probability prob[e]; the edges into block b are
	// predEdges[predEdgeStart[b]:predEdgeStart[b+1]].
	succBase, succ, edgeFrom []int32
	prob                     []float64
	predEdgeStart, predEdges []int32
	// ord numbers the blocks in reverse postorder of a depth-first search
	// from the entry, then from each block not yet reached; byOrd is its
	// inverse.
	ord, byOrd []int32
	// Reference index: block b references the registers
	// refV[refStart[b]:refStart[b+1]] (increasing); register group g has
	// the positions refPos[refOff[g]:refOff[g+1]] (increasing), each an
	// Instrs index times 2, plus 1 for a definition without a use.
	refStart, refV, refOff, refPos []int32
	// The same references by register during the analysis: register v's
	// are vrefBlk/vrefPos[vrefStart[v]:vrefStart[v+1]], by block and
	// position.
	vrefStart, vrefBlk, vrefPos []int32
	// φ operands: register v is read on the edges
	// phiEdges[phiEdgeStart[v]:phiEdgeStart[v+1]] (nil without φs).
	phiEdgeStart, phiEdges []int32
	mult                   []float32 // per register
	// The result's live sets: register v is live into the blocks
	// numbered (ord) inOrd[inStart[v]:inStart[v+1]] and out of those
	// numbered outOrd[outStart[v]:outStart[v+1]], both increasing.
	inStart, outStart []int32
	inOrd, outOrd     []int32
	work              int64
}

// newEDBase builds the shared structures of f, with its arrays in ar (nil:
// a fresh arena, which the result keeps).
func newEDBase(f *mir.Func, counts [][]uint64, ar *edArena) (*edBase, error) {
	nb, nv := len(f.Blocks), len(f.VRegs)
	if ar == nil {
		ar = new(edArena)
	}
	a := &edBase{f: f, nb: nb, nv: nv, ar: ar}
	if counts != nil && len(counts) != nb {
		return nil, fmt.Errorf("sched: %d blocks of edge counts for %d blocks", len(counts), nb)
	}
	a.succBase = ar.i32.take(nb + 1)
	for b, blk := range f.Blocks {
		a.succBase[b+1] = a.succBase[b] + int32(len(blk.Succs))
		if counts != nil && len(counts[b]) != len(blk.Succs) {
			return nil, fmt.Errorf("sched: block %d has %d edge counts for %d successors", b, len(counts[b]), len(blk.Succs))
		}
	}
	ne := int(a.succBase[nb])
	a.prob = ar.f64.take(ne)
	a.succ = ar.i32.take(ne)
	a.edgeFrom = ar.i32.take(ne)
	a.predEdgeStart = ar.i32.take(nb + 1)
	for b, blk := range f.Blocks {
		base := int(a.succBase[b])
		for i, s := range blk.Succs {
			a.succ[base+i], a.edgeFrom[base+i] = int32(s), int32(b)
			a.predEdgeStart[s+1]++
		}
		p := a.prob[base : base+len(blk.Succs)]
		if counts != nil {
			profilecounters.Smooth(counts[b], p)
		} else {
			edNormalize(blk, p)
		}
	}
	for b := range nb {
		a.predEdgeStart[b+1] += a.predEdgeStart[b]
	}
	a.predEdges = ar.i32.take(ne)
	fill := ar.i32.clone(a.predEdgeStart[:nb])
	for e, s := range a.succ {
		a.predEdges[fill[s]] = int32(e)
		fill[s]++
	}
	a.work += int64(ne + nb)
	a.order()
	a.buildRefs()
	a.buildPhiEdges()
	return a, nil
}

// order numbers the blocks in reverse postorder (iteratively: deep CFGs
// must not overflow the stack).
func (a *edBase) order() {
	nb := a.nb
	a.ord = a.ar.i32.take(nb)
	a.byOrd = a.ar.i32.take(nb)[:0]
	seen := a.ar.bools.take(nb)
	type frame struct{ b, e int32 }
	var stack []frame
	for root := range nb {
		if seen[root] {
			continue
		}
		seen[root] = true
		stack = append(stack, frame{int32(root), a.succBase[root]})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.e < a.succBase[top.b+1] {
				s := a.succ[top.e]
				top.e++
				if !seen[s] {
					seen[s] = true
					stack = append(stack, frame{s, a.succBase[s]})
				}
				continue
			}
			a.byOrd = append(a.byOrd, top.b)
			stack = stack[:len(stack)-1]
		}
	}
	slices.Reverse(a.byOrd)
	for i, b := range a.byOrd {
		a.ord[b] = int32(i)
	}
	a.work += int64(nb + len(a.succ))
}

// Multiplier classes.
const (
	edDirty uint8 = iota
	edCheap
	edCostly
)

// buildRefs builds the reference index and the multipliers with two
// counting sorts: the references (one per instruction and register, a use
// when the instruction reads the register; φ operands are not references
// of their block) grouped by register in block and instruction order,
// then regrouped by block, which leaves each block's registers in
// increasing order with their positions increasing.
func (a *edBase) buildRefs() {
	f, nb, nv, ar := a.f, a.nb, a.nv, a.ar
	a.blkLen = ar.i32.take(nb)
	a.nphi = ar.i32.take(nb)
	stamp := ar.i32.take(nv) // instruction number + 1 of the last reference
	lastBlk := ar.i32.take(nv)
	for i := range lastBlk {
		lastBlk[i] = -1
	}
	perV := ar.i32.take(nv + 1)
	groupsPerBlock := ar.i32.take(nb + 1)
	refsPerBlock := ar.i32.take(nb + 1)
	class := ar.u8.take(nv)
	rkey := ar.keys.take(nv)
	defined := ar.bools.take(nv)
	var seq int32
	// The references in block and instruction order: register refRegs[k]
	// at encoded position refEnc[k]; block b's are blkRefs[b] to
	// blkRefs[b+1]-1.
	refRegs, refEnc := ar.refRegs[:0], ar.refEnc[:0]
	blkRefs := ar.i32.take(nb + 1)
	// Pass 1: the references, counts, lengths and multiplier classes.
	nops := 0
	for b, blk := range f.Blocks {
		for i, in := range blk.Instrs {
			seq++
			if in.Op != mir.OpPhi {
				for _, r := range in.Uses {
					if r.IsVirtual() && r.Index() < nv && stamp[r.Index()] != seq {
						stamp[r.Index()] = seq
						refRegs, refEnc = append(refRegs, int32(r.Index())), append(refEnc, int32(2*i))
					}
				}
			}
			for _, r := range in.Defs {
				if r.IsVirtual() && r.Index() < nv && stamp[r.Index()] != seq {
					stamp[r.Index()] = seq
					refRegs, refEnc = append(refRegs, int32(r.Index())), append(refEnc, int32(2*i+1))
				}
			}
		}
		blkRefs[b+1] = int32(len(refRegs))
		n := int32(0)
		for _, in := range blk.Instrs {
			if in.Op == mir.OpPhi {
				n++
			}
			nops += len(in.Uses) + len(in.Defs)
			for _, r := range in.Defs {
				if !r.IsVirtual() || r.Index() >= nv {
					continue
				}
				v := r.Index()
				k := edRematKey{op: mir.OpInvalid}
				c := edDirty
				if alloc.IsRematOp(in.Op) {
					k = edRematKey{in.Op, in.Imm, in.Aux}
					c = edRematClass(in)
				}
				if !defined[v] {
					defined[v], rkey[v], class[v] = true, k, c
				} else if rkey[v] != k {
					class[v] = edDirty
				}
			}
		}
		a.nphi[b] = n
		a.blkLen[b] = int32(len(blk.Instrs)) - n
		for _, v := range refRegs[blkRefs[b]:blkRefs[b+1]] {
			perV[v+1]++
			refsPerBlock[b+1]++
			if lastBlk[v] != int32(b) {
				lastBlk[v] = int32(b)
				groupsPerBlock[b+1]++
			}
		}
	}
	ar.refRegs, ar.refEnc = refRegs[:0], refEnc[:0]
	a.work += int64(nops)
	a.mult = ar.f32.take(nv)
	for v, c := range class {
		switch c {
		case edCheap:
			a.mult[v] = EDMultCheap
		case edCostly:
			a.mult[v] = EDMultCostly
		default:
			a.mult[v] = 1
		}
	}
	for v := range nv {
		perV[v+1] += perV[v]
	}
	for b := range nb {
		groupsPerBlock[b+1] += groupsPerBlock[b]
		refsPerBlock[b+1] += refsPerBlock[b]
	}
	// Pass 2: references by register (block, encoded position).
	nref := int(perV[nv])
	a.vrefStart = perV
	a.vrefBlk = ar.i32.take(nref)
	a.vrefPos = ar.i32.take(nref)
	fillV := ar.i32.clone(perV[:nv])
	for b := range nb {
		for x := blkRefs[b]; x < blkRefs[b+1]; x++ {
			v := refRegs[x]
			k := fillV[v]
			fillV[v]++
			a.vrefBlk[k] = int32(b)
			a.vrefPos[k] = refEnc[x]
		}
	}
	// Pass 3: regroup by block. A group ends where the next one starts
	// (blocks without references have no positions), the last one at the
	// end.
	a.refStart = groupsPerBlock
	ng := int(groupsPerBlock[nb])
	a.refV = ar.i32.take(ng)
	a.refOff = ar.i32.take(ng + 1)
	a.refPos = ar.i32.take(nref)
	gFill := ar.i32.clone(groupsPerBlock[:nb])
	pFill := ar.i32.clone(refsPerBlock[:nb])
	for v := range nv {
		for k := perV[v]; k < perV[v+1]; k++ {
			b := a.vrefBlk[k]
			if k == perV[v] || a.vrefBlk[k-1] != b {
				g := gFill[b]
				gFill[b]++
				a.refV[g] = int32(v)
				a.refOff[g] = pFill[b]
			}
			a.refPos[pFill[b]] = a.vrefPos[k]
			pFill[b]++
		}
	}
	a.refOff[ng] = int32(nref)
	a.work += int64(3 * nref)
}

// edRematClass returns the multiplier class of a rematerializable
// definition.
func edRematClass(in *mir.Instr) uint8 {
	switch in.Op {
	case mir.OpMOVQconst:
		if in.Imm == int64(int32(in.Imm)) || in.Imm == int64(uint32(in.Imm)) {
			return edCheap
		}
	case mir.OpMOVSDconst:
		if in.Imm == 0 {
			return edCheap
		}
	}
	return edCostly
}

// buildPhiEdges lists, per register, the edges on which a φ reads it.
func (a *edBase) buildPhiEdges() {
	f := a.f
	hasPhis := false
	for b := range f.Blocks {
		if a.nphi[b] > 0 {
			hasPhis = true
			break
		}
	}
	if !hasPhis {
		return
	}
	pp := mir.PredPositions(f)
	// edgeAt[s] maps s's predecessor positions to edge indices.
	edgeAt := make([][]int32, a.nb)
	for s, blk := range f.Blocks {
		edgeAt[s] = make([]int32, len(blk.Preds))
		for k := range edgeAt[s] {
			edgeAt[s][k] = -1
		}
	}
	for p, blk := range f.Blocks {
		for i, s := range blk.Succs {
			if k := pp.At(p, i); k >= 0 {
				edgeAt[s][k] = a.succBase[p] + int32(i)
			}
		}
	}
	a.phiEdgeStart = make([]int32, a.nv+1)
	type pe struct{ v, e int32 }
	var list []pe
	for s, blk := range f.Blocks {
		for _, phi := range blk.Phis() {
			for k, r := range phi.Uses {
				if k >= len(edgeAt[s]) || edgeAt[s][k] < 0 || !r.IsVirtual() || r.Index() >= a.nv {
					continue
				}
				list = append(list, pe{int32(r.Index()), edgeAt[s][k]})
				a.phiEdgeStart[r.Index()+1]++
			}
		}
	}
	for v := range a.nv {
		a.phiEdgeStart[v+1] += a.phiEdgeStart[v]
	}
	a.phiEdges = make([]int32, len(list))
	fill := slices.Clone(a.phiEdgeStart[:a.nv])
	for _, x := range list {
		a.phiEdges[fill[x.v]] = x.e
		fill[x.v]++
	}
	a.work += int64(len(list))
}

// edWalk holds the per-block marks of the register being analysed (each
// mark is the register's number + 1, so nothing is cleared between
// registers) and its live sets.
type edWalk struct {
	// defMark: the block defines v; inMark/outMark: v is live into/out of
	// it; expMark: its first reference of v is a use, at distance
	// expDist; phiMark: a φ reads v on an edge out of it. tag numbers the
	// blocks where v is live and not referenced (the unknowns).
	defMark, inMark, outMark, expMark, expDist, phiMark, tag []int32
	// in and out list the ord numbers of the blocks v is live into and
	// out of, increasing after walk (views of the result after remark);
	// stack is the walk's work list.
	in, out, stack []int32
	bits           []uint64 // sortOrds's scratch, all zero between calls
}

func newEDWalk(nb int, ar *edArena) *edWalk {
	m := ar.i32.take(7 * nb)
	// The work list and the sort's bits (all zero) are the arena's from
	// before; the lists start afresh (after an analysis they are views of
	// its result, whose storage the arena now hands out again).
	w := &ar.walk
	*w = edWalk{
		defMark: m[:nb], inMark: m[nb : 2*nb], outMark: m[2*nb : 3*nb], expMark: m[3*nb : 4*nb],
		expDist: m[4*nb : 5*nb], phiMark: m[5*nb : 6*nb], tag: m[6*nb:],
		stack: w.stack[:0], bits: w.bits,
	}
	return w
}

// markRefs marks the blocks that define register v and those whose first
// reference of v is a use (expMark, with the distance), and the sources of
// the edges on which φs read v (phiMark).
func (a *edBase) markRefs(w *edWalk, v int32) {
	mark := v + 1
	lo, hi := a.vrefStart[v], a.vrefStart[v+1]
	for k := lo; k < hi; k++ {
		b, e := a.vrefBlk[k], a.vrefPos[k]
		if e&1 != 0 {
			w.defMark[b] = mark
		} else if k == lo || a.vrefBlk[k-1] != b {
			w.expMark[b], w.expDist[b] = mark, int32(max(int(e>>1)-int(a.nphi[b]), 0)+1)
		}
	}
	if a.phiEdgeStart != nil {
		for _, e := range a.phiEdges[a.phiEdgeStart[v]:a.phiEdgeStart[v+1]] {
			w.phiMark[a.edgeFrom[e]] = mark
		}
	}
	a.work += int64(hi - lo)
}

// walk finds where register v is live: from the blocks whose first
// reference of v is a use, and the sources of the edges on which φs read
// v, backwards along predecessors, up to the blocks that define v. It
// marks the blocks in w and leaves their numbers in w.in and w.out,
// increasing.
func (a *edBase) walk(w *edWalk, v int32) {
	mark := v + 1
	w.in, w.out, w.stack = w.in[:0], w.out[:0], w.stack[:0]
	a.markRefs(w, v)
	lo, hi := a.vrefStart[v], a.vrefStart[v+1]
	for k := lo; k < hi; k++ {
		if b := a.vrefBlk[k]; w.expMark[b] == mark && w.inMark[b] != mark {
			w.inMark[b] = mark
			w.in = append(w.in, a.ord[b])
			w.stack = append(w.stack, b)
		}
	}
	liveOut := func(p int32) {
		if w.outMark[p] == mark {
			return
		}
		w.outMark[p] = mark
		w.out = append(w.out, a.ord[p])
		if w.defMark[p] != mark && w.inMark[p] != mark {
			w.inMark[p] = mark
			w.in = append(w.in, a.ord[p])
			w.stack = append(w.stack, p)
		}
	}
	if a.phiEdgeStart != nil {
		for _, e := range a.phiEdges[a.phiEdgeStart[v]:a.phiEdgeStart[v+1]] {
			liveOut(a.edgeFrom[e])
		}
	}
	steps := 0
	for len(w.stack) > 0 {
		b := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		for _, e := range a.predEdges[a.predEdgeStart[b]:a.predEdgeStart[b+1]] {
			liveOut(a.edgeFrom[e])
		}
		steps += int(a.predEdgeStart[b+1]-a.predEdgeStart[b]) + 1
	}
	a.work += int64(steps) + w.sortOrds(w.in) + w.sortOrds(w.out)
}

// sortOrds sorts a list of distinct block numbers and returns the steps it
// took: by setting and collecting bits over the list's range (a step per
// 64 numbers of the range and per entry) or by comparisons (k·log k for k
// entries), whichever costs less.
func (w *edWalk) sortOrds(list []int32) int64 {
	if len(list) < 2 {
		return 1
	}
	lo, hi := list[0], list[0]
	for _, o := range list {
		lo, hi = min(lo, o), max(hi, o)
	}
	words := int(hi/64 - lo/64 + 1)
	if cmp := len(list) * bits.Len(uint(len(list))); len(list) <= 16 || words+len(list) > cmp {
		slices.Sort(list)
		return int64(cmp)
	}
	if len(w.bits) < words {
		w.bits = make([]uint64, words+words/4)
	}
	base := lo / 64
	for _, o := range list {
		w.bits[o/64-base] |= 1 << (o % 64)
	}
	k := 0
	for i, x := range w.bits[:words] {
		for x != 0 {
			list[k] = (base+int32(i))*64 + int32(bits.TrailingZeros64(x))
			k++
			x &= x - 1
		}
		w.bits[i] = 0
	}
	return int64(len(list) + words)
}

// liveness walks every register and records its live sets, in increasing
// register order.
func (a *edBase) liveness(w *edWalk) {
	a.inStart = a.ar.i32.take(a.nv + 1)
	a.outStart = a.ar.i32.take(a.nv + 1)
	// A first guess of the sizes saves most regrowth of the lists.
	guess := 2 * len(a.vrefBlk)
	a.inOrd = a.ar.i32.take(guess)[:0]
	a.outOrd = a.ar.i32.take(guess)[:0]
	for v := range int32(a.nv) {
		a.walk(w, v)
		a.inOrd = append(a.inOrd, w.in...)
		a.outOrd = append(a.outOrd, w.out...)
		a.inStart[v+1], a.outStart[v+1] = int32(len(a.inOrd)), int32(len(a.outOrd))
	}
}

// remark marks register v's blocks again from its recorded live sets (the
// marks of liveness have been overwritten by later registers), leaving
// w.in and w.out its lists; it returns the indices of their first entries
// in the result.
func (a *edBase) remark(w *edWalk, v int32) (in0, out0 int) {
	mark := v + 1
	a.markRefs(w, v)
	in0, out0 = int(a.inStart[v]), int(a.outStart[v])
	w.in, w.out = a.inOrd[in0:a.inStart[v+1]], a.outOrd[out0:a.outStart[v+1]]
	for _, o := range w.in {
		w.inMark[a.byOrd[o]] = mark
	}
	a.work += int64(len(w.in))
	return in0, out0
}

// isPhiEdge reports whether a φ reads v on edge e out of block b.
func (a *edBase) isPhiEdge(w *edWalk, v int32, b int32, e int32) bool {
	if a.phiEdgeStart == nil || w.phiMark[b] != v+1 {
		return false
	}
	for _, x := range a.phiEdges[a.phiEdgeStart[v]:a.phiEdgeStart[v+1]] {
		if x == e {
			return true
		}
	}
	return false
}

// atTop returns the entry of vals (one per live-in pair) for v at the top
// of block b, or missing when v is not live there.
func (a *edBase) atTop(vals []float64, v mir.Reg, b int, missing float64) float64 {
	if x := a.vindex(v); x >= 0 {
		if i := a.inIndex(x, b); i >= 0 {
			return vals[i]
		}
	}
	return missing
}

// atBottom is atTop for vals with one entry per live-out pair, at the
// bottom of block b.
func (a *edBase) atBottom(vals []float64, v mir.Reg, b int, missing float64) float64 {
	if x := a.vindex(v); x >= 0 {
		if i := a.outIndex(x, b); i >= 0 {
			return vals[i]
		}
	}
	return missing
}

// distance answers an in-block distance query (see EDAnalysis.Distance)
// with bottom, the distances at the bottoms of the blocks (one per
// live-out pair), for a register with no reference left in the block.
func (a *edBase) distance(bottom []float64, v mir.Reg, b, pos int) float64 {
	x := a.vindex(v)
	if x < 0 {
		return math.Inf(1)
	}
	d, found := a.local(x, b, pos)
	if found {
		return d
	}
	return d + a.atBottom(bottom, v, b, math.Inf(1))
}

// vindex returns v's register number, or -1 when v is not a virtual
// register of the function.
func (a *edBase) vindex(v mir.Reg) int32 {
	if !v.IsVirtual() || v.Index() >= a.nv {
		return -1
	}
	return int32(v.Index())
}

// inIndex returns the index of the entry of register v live into block b,
// or -1.
func (a *edBase) inIndex(v int32, b int) int {
	lo, hi := a.inStart[v], a.inStart[v+1]
	if i, ok := slices.BinarySearch(a.inOrd[lo:hi], a.ord[b]); ok {
		return int(lo) + i
	}
	return -1
}

// outIndex returns the index of the entry of register v live out of block
// b, or -1.
func (a *edBase) outIndex(v int32, b int) int {
	lo, hi := a.outStart[v], a.outStart[v+1]
	if i, ok := slices.BinarySearch(a.outOrd[lo:hi], a.ord[b]); ok {
		return int(lo) + i
	}
	return -1
}

// local returns the distance from the point before instruction pos of
// block b to the next reference of v in the block (+Inf for a definition
// without a use), with found set; without a reference left it returns the
// number of instructions from the point to the bottom of the block and
// found clear.
func (a *edBase) local(v int32, b, pos int) (d float64, found bool) {
	np := int(a.nphi[b])
	pos = min(max(pos, 0), np+int(a.blkLen[b])) // the block's length, φs included
	eff := max(pos-np, 0)
	lo, hi := a.refStart[b], a.refStart[b+1]
	if g, ok := slices.BinarySearch(a.refV[lo:hi], v); ok {
		g += int(lo)
		ps := a.refPos[a.refOff[g]:a.refOff[g+1]]
		if k, _ := slices.BinarySearch(ps, int32(2*pos)); k < len(ps) {
			e := ps[k]
			if e&1 != 0 {
				return math.Inf(1), true
			}
			return float64(max(int(e>>1)-np, 0) - eff + 1), true
		}
	}
	return float64(int(a.blkLen[b]) - eff), false
}

// Multiplier returns v's distance multiplier: EDMultCheap or EDMultCostly
// for a rematerializable value, 1 otherwise.
func (a *edBase) Multiplier(v mir.Reg) float64 {
	if x := a.vindex(v); x >= 0 {
		return float64(a.mult[x])
	}
	return 1
}

// finish drops what only the analysis needed.
func (a *edBase) finish() {
	a.vrefStart, a.vrefBlk, a.vrefPos = nil, nil, nil
}

// EDAnalysis holds the liveness probabilities and expected distances of
// every virtual register of a function at the top and bottom of every
// block where it is live (Burroughs's eq. 3.1–3.4), and answers in-block
// distance queries (Alg. 3) for a spill-victim policy. The equations, the
// distance convention, the exact solver and the costs are described at
// the top of distance.go. It describes the function as it was analysed,
// which must not change while the analysis is used; queries only read it.
type EDAnalysis struct {
	edBase
	inLP, inED, outLP, outED []float64
	stats                    EDStats
}

// EDAnalyze computes the liveness probabilities and expected distances of
// f, a function in any form (its virtual registers are analysed; an
// allocated function has none). It fails only on EdgeCounts that do not
// match f's edges.
func EDAnalyze(f *mir.Func, opts EDOptions) (*EDAnalysis, error) {
	base, err := newEDBase(f, opts.EdgeCounts, opts.arena)
	if err != nil {
		return nil, err
	}
	a := &EDAnalysis{edBase: *base}
	ar := a.ar
	w := newEDWalk(a.nb, ar)
	a.liveness(w)
	a.inLP, a.inED = ar.f64.take(len(a.inOrd)), ar.f64.take(len(a.inOrd))
	a.outLP, a.outED = ar.f64.take(len(a.outOrd)), ar.f64.take(len(a.outOrd))
	s := &ar.solver
	*s = edSolver{a: a, w: w, maxVisits: opts.MaxVisits, deadEdge: opts.DeadEdge, iterate: opts.Iterate, budget: opts.elimBudget,
		heap:            binHeap[int32]{items: s.heap.items[:0], less: func(x, y int32) bool { return x > y }}, // later unknowns first
		edSolverStorage: s.edSolverStorage}
	if s.maxVisits <= 0 {
		s.maxVisits = EDDefaultMaxVisits
	}
	for v := range int32(a.nv) {
		s.solve(v)
	}
	a.finish()
	a.stats.Blocks, a.stats.Instrs, a.stats.VRegs = a.nb, f.NumInstrs(), a.nv
	a.stats.LiveIn, a.stats.LiveOut = len(a.inOrd), len(a.outOrd)
	a.stats.Work = a.work
	return a, nil
}

// Stats returns what the analysis did.
func (a *EDAnalysis) Stats() EDStats { return a.stats }

// LPTop returns the probability that v is used before being redefined on
// a path from the top of block b (eq. 3.1).
func (a *EDAnalysis) LPTop(v mir.Reg, b int) float64 {
	return a.atTop(a.inLP, v, b, 0)
}

// LPBot returns the liveness probability of v at the bottom of block b
// (eq. 3.2).
func (a *EDAnalysis) LPBot(v mir.Reg, b int) float64 {
	return a.atBottom(a.outLP, v, b, 0)
}

// EDTop returns the expected distance from the top of block b to v's next
// use over the paths that reach one (eq. 3.3), +Inf when none does.
func (a *EDAnalysis) EDTop(v mir.Reg, b int) float64 {
	return a.atTop(a.inED, v, b, math.Inf(1))
}

// EDBot returns the expected distance from the bottom of block b to v's
// next use (eq. 3.4), +Inf when no use is reachable with positive
// probability.
func (a *EDAnalysis) EDBot(v mir.Reg, b int) float64 {
	return a.atBottom(a.outED, v, b, math.Inf(1))
}

// Distance returns the pure distance (Alg. 3, see the convention above)
// from the point just before instruction pos of block b to v's next use:
// to its next reference in the block if that is a use, +Inf if it is a
// definition, else the instructions left in the block plus EDBot. A
// victim policy choosing at the instruction at pos whose operands are
// already in registers asks for pos+1 (the thesis's I_N). pos is clamped
// to [0, len(Instrs)]; len(Instrs) is the bottom (EDBot).
func (a *EDAnalysis) Distance(v mir.Reg, b, pos int) float64 {
	return a.distance(a.outED, v, b, pos)
}

// EffectiveDistance returns Distance times v's multiplier (§3.4.3).
func (a *EDAnalysis) EffectiveDistance(v mir.Reg, b, pos int) float64 {
	return a.Distance(v, b, pos) * a.Multiplier(v)
}
