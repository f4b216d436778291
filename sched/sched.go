package sched

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// Options configure the integrated pass. The zero value is the default:
// DFS-down region order, latency-driven scheduling for DefaultModel, the
// thesis's spill comparator, every allocatable register.
type Options struct {
	// Order is the region order.
	Order RegionOrder
	// SourceOrder keeps every block's instructions in their input order
	// (the thesis's "fast tier"): registers are still assigned as each
	// instruction is taken, but nothing is reordered.
	SourceOrder bool
	// Model is the machine model (nil: DefaultModel).
	Model *Model
	// Victim chooses spill victims (nil: the policy Oracle selects).
	Victim VictimPolicy
	// Oracle selects the spill heuristic when Victim is nil:
	// DistanceVictim over the expected distance (OracleED, the default) or
	// the nearest next use (OracleNNU) of the function, analysed once, at
	// the first spill choice, or ThesisVictim (OracleThesis).
	Oracle VictimOracle
	// Regs restricts the registers the pass may assign (0: all of
	// mir.Allocatable). Pinned registers are used whatever this says.
	Regs mir.RegSet

	// NoVerify skips checking the input with mir.Verify, for callers that
	// produced it themselves (the JIT pipeline: alloc.Destruct's output).
	// Malformed input may then fail in unspecified ways.
	NoVerify bool

	// InPlace lets Allocate make its result out of the input's
	// instructions: each instruction is rewritten with the locations
	// assigned to its operands and becomes the output's, so that a huge
	// function's code is not held twice. The input must not be used after
	// Allocate (an allocation checker needs a copy made before). The
	// result is the same as without InPlace. Separate and LinearScanOnly
	// ignore it.
	InPlace bool

	// NoPressureWait makes the list scheduler issue a ready node that
	// needs a register none is free of, evicting a value, even while
	// other nodes are in flight, as the thesis's Fig. 5.6 does; by
	// default it waits for them (see wouldEvict).
	NoPressureWait bool

	// NoPlacement keeps every spill store and reload where the pass
	// placed it, instead of moving reloads forward towards their uses
	// (placeReloads) and a value's stores to its definitions (placeStores)
	// where that executes fewer of them.
	NoPlacement bool

	// NoCopyMotion keeps every register move of the reconciliation code
	// on its edge, splitting the critical edges that carry any (the
	// thesis's placement), instead of moving edges' parallel copies into
	// neighbouring blocks by renaming registers where the frequency-
	// weighted cost model says that is cheaper (alloc.MoveParallelCopies).
	NoCopyMotion bool
	// NoEdgeHoisting keeps the reconciliation code of every critical edge
	// on a new block splitting it, instead of putting spill stores, and
	// reloads and moves into free registers, at the end of the edge's
	// source where that is cheaper (see codeFitsSource).
	NoEdgeHoisting bool
	// NoReloadSinking keeps the moves and reloads of a value on every edge
	// into a join instead of reloading it once at the join's top where
	// that is cheaper (see sinkReloads).
	NoReloadSinking bool
	// NoBlockMotion keeps the copies that copy motion moves into a block
	// at the block's bottom or top instead of sliding them to the
	// cheapest point inside the block.
	NoBlockMotion bool

	// NoHints turns off the register hints that carry a value's register
	// across regions (see the package documentation), leaving the thesis's
	// preferences from processed successors alone.
	NoHints bool

	// order, when not nil, is the region order (for tests reproducing the
	// thesis's examples).
	order []int
	// motionRand, when not nil, makes copy motion take random decisions
	// (alloc.MotionOptions.Rand), for testing its soundness.
	motionRand *rand.Rand
}

// Stats reports what the integrated pass did. Static counts are
// instructions in the code; weighted counts multiply each instruction by
// its block's (or edge's) expected executions per call.
type Stats struct {
	Instrs  int // instructions of the input
	Regions int
	// Cycles is the sum of the regions' schedule lengths in the machine
	// model, WeightedCycles the same weighted by block frequency: the
	// schedules of the input's instructions as the list scheduler planned
	// them, without the spill and reconciliation code the pass adds (to
	// compare whole outputs, measure them with ScheduleLength).
	Cycles         int64
	WeightedCycles float64
	// Spill code placed inside regions: stores, reloads and
	// rematerializations, and register-to-register moves (evictions from
	// registers an operand needs, and copies that could not be coalesced
	// by giving source and destination one register).
	Spills, Reloads, Remats, Moves                                 int
	WeightedSpills, WeightedReloads, WeightedRemats, WeightedMoves float64
	// Saves counts the stores of values live across calls in caller-saved
	// registers (included in Spills).
	Saves int
	// Reconciliation code on edges.
	EdgeMoves, EdgeLoads, EdgeStores, EdgeRemats                                 int
	WeightedEdgeMoves, WeightedEdgeLoads, WeightedEdgeStores, WeightedEdgeRemats float64
	// DeadRematStarts counts the rematerialized values moved to memory at
	// the start of a block that overwrites their register before reading
	// it (so no in-edge recomputes them there).
	DeadRematStarts int
	// Store placement (Options.NoPlacement): the values whose stores
	// moved to their definitions, the stores removed and added, and the
	// weighted stores saved. The counts above are the pass's before
	// placement.
	PlacedValues, PlacedStoresRemoved, PlacedStoresAdded int
	WeightedPlacementGain                                float64
	// PlacementCuts counts the store and load problems solved as minimum
	// cuts, and PlacementExactResiduals those the contraction rules did
	// not reduce to nothing (finished by a maximum flow).
	PlacementCuts, PlacementExactResiduals int
	// Reload placement (Options.NoPlacement): the slot and register pairs
	// whose reloads moved towards their uses, the reloads removed and
	// added, the weighted reloads saved, and the reloads deleted because
	// their register is overwritten before it is read.
	PlacedReloadValues, PlacedReloadsRemoved, PlacedReloadsAdded int
	WeightedReloadPlacementGain                                  float64
	DeadReloadsRemoved                                           int
	// OrphansDeleted counts the definitions of rematerializable values
	// deleted because nothing reads their register (deleteOrphans).
	OrphansDeleted int
	// SplitEdges counts the blocks added on edges for reconciliation code.
	SplitEdges int
	// SunkReloads counts the reloads put at the top of a join in place of
	// the moves and reloads of the value on its in-edges.
	SunkReloads int
	// HoistedEdgeCode counts the reconciliation instructions of critical
	// edges put at the end of the edge's source instead of on a new block
	// (spill stores, and reloads and moves into free registers).
	HoistedEdgeCode int
	// Parallel copy motion (Options.NoCopyMotion), in the model of
	// alloc.MoveParallelCopies: the critical edges (and their frequency)
	// that no longer need a block of their own; register moves (the
	// paper's ‖pc‖, on edges and in blocks) and the modelled cost (moves,
	// memory moves and split edges, frequency-weighted) before and after
	// the motion; the motions applied, the copies inserted into blocks,
	// and the time the pass took (included in Reconcile).
	MotionSplitsAvoided                                 int
	MotionWeightedSplitsAvoided                         float64
	MotionMovesBefore, MotionMovesAfter                 int
	MotionWeightedMovesBefore, MotionWeightedMovesAfter float64
	MotionCostBefore, MotionCostAfter                   float64
	Motions, MotionBlockCopies                          int
	CopyMotion                                          time.Duration
	// Slots is the number of stack slots the function got.
	Slots int
	// DataflowRuns counts the liveness and exposed-use analyses: one per
	// compile.
	DataflowRuns int
	// Time spent in the analyses, the integrated scheduling and register
	// assignment, and the second pass (reconciliation code, parallel copy
	// sequentialization, output).
	Dataflow, Integrated, Reconcile time.Duration
	// Distance is the time of the distance analysis of Options.Oracle
	// (included in Integrated: it runs at the first spill choice).
	Distance time.Duration
}

// SpillCode returns the static number of spill, reload and
// rematerialization instructions, in regions and on edges.
func (s *Stats) SpillCode() int {
	return s.Spills + s.Reloads + s.Remats + s.EdgeLoads + s.EdgeStores + s.EdgeRemats
}

// Result is what Allocate returns.
type Result struct {
	// Func is the allocated function.
	Func *mir.Func
	// Origins relates its instructions to the input's, for
	// alloc.CheckAllocation.
	Origins *alloc.Origins
	Stats   Stats
}

// Allocate schedules and allocates registers for f, a function out of SSA
// form with its renaming constraints resolved (alloc.Destruct's output),
// and returns the allocated function; f is not modified.
func Allocate(f *mir.Func, opts Options) (*Result, error) {
	if err := checkInput(f, &opts); err != nil {
		return nil, err
	}
	policy, lazy, err := victimFor(f, opts.Oracle)
	if err != nil {
		return nil, err
	}
	if opts.Victim == nil {
		opts.Victim = policy
	} else {
		lazy = nil
	}
	if opts.Regs == 0 {
		opts.Regs = mir.Allocatable
	}
	opts.Regs &= mir.Allocatable
	if opts.Order >= numOrders {
		return nil, fmt.Errorf("sched: unknown region order %d", opts.Order)
	}
	a, err := newAllocator(f, opts)
	if err != nil {
		return nil, err
	}
	defer a.release()
	if lazy != nil {
		if a.ed == nil {
			a.ed = new(edArena)
		}
		lazy.ar = a.ed
		if opts.InPlace {
			// The analysis reads the input, which the pass rewrites.
			lazy.analyze()
		}
	}
	res, err := a.run()
	if lazy != nil && res != nil {
		res.Stats.Distance = lazy.spent
	}
	return res, err
}

// checkInput checks what Allocate and Separate share: f is out of SSA
// form and well formed (unless opts.NoVerify), and opts.Model (nil:
// DefaultModel, set in opts) can schedule every op.
func checkInput(f *mir.Func, opts *Options) error {
	if f.Form != mir.FormNonSSA {
		return fmt.Errorf("sched: %s is in %s form, want nonssa", f.Name, f.Form)
	}
	if !opts.NoVerify {
		if err := mir.Verify(f); err != nil {
			return fmt.Errorf("sched: input: %w", err)
		}
	}
	if opts.Model == nil {
		opts.Model = DefaultModel()
	}
	return opts.Model.validate()
}

// Compile takes an SSA function through the optimizing tier's register
// pipeline: alloc.Destruct (copy coalescing with renaming constraints) and
// the integrated pass. f is not modified.
func Compile(f *mir.Func, opts Options) (*Result, *alloc.Destructed, error) {
	d, err := alloc.Destruct(f, alloc.DestructOptions{})
	if err != nil {
		return nil, nil, err
	}
	r, err := Allocate(d.Func, opts)
	if err != nil {
		return nil, nil, err
	}
	return r, d, nil
}

// Add adds o's counts and times to s (for totals over functions).
func (s *Stats) Add(o *Stats) {
	s.Instrs += o.Instrs
	s.Regions += o.Regions
	s.Cycles += o.Cycles
	s.WeightedCycles += o.WeightedCycles
	s.Spills += o.Spills
	s.Reloads += o.Reloads
	s.Remats += o.Remats
	s.Moves += o.Moves
	s.WeightedSpills += o.WeightedSpills
	s.WeightedReloads += o.WeightedReloads
	s.WeightedRemats += o.WeightedRemats
	s.WeightedMoves += o.WeightedMoves
	s.Saves += o.Saves
	s.EdgeMoves += o.EdgeMoves
	s.EdgeLoads += o.EdgeLoads
	s.EdgeStores += o.EdgeStores
	s.EdgeRemats += o.EdgeRemats
	s.DeadRematStarts += o.DeadRematStarts
	s.WeightedEdgeMoves += o.WeightedEdgeMoves
	s.WeightedEdgeLoads += o.WeightedEdgeLoads
	s.WeightedEdgeStores += o.WeightedEdgeStores
	s.WeightedEdgeRemats += o.WeightedEdgeRemats
	s.PlacedValues += o.PlacedValues
	s.PlacedStoresRemoved += o.PlacedStoresRemoved
	s.PlacedStoresAdded += o.PlacedStoresAdded
	s.WeightedPlacementGain += o.WeightedPlacementGain
	s.PlacementCuts += o.PlacementCuts
	s.PlacementExactResiduals += o.PlacementExactResiduals
	s.PlacedReloadValues += o.PlacedReloadValues
	s.PlacedReloadsRemoved += o.PlacedReloadsRemoved
	s.PlacedReloadsAdded += o.PlacedReloadsAdded
	s.WeightedReloadPlacementGain += o.WeightedReloadPlacementGain
	s.DeadReloadsRemoved += o.DeadReloadsRemoved
	s.OrphansDeleted += o.OrphansDeleted
	s.SplitEdges += o.SplitEdges
	s.HoistedEdgeCode += o.HoistedEdgeCode
	s.SunkReloads += o.SunkReloads
	s.MotionSplitsAvoided += o.MotionSplitsAvoided
	s.MotionWeightedSplitsAvoided += o.MotionWeightedSplitsAvoided
	s.MotionMovesBefore += o.MotionMovesBefore
	s.MotionMovesAfter += o.MotionMovesAfter
	s.MotionWeightedMovesBefore += o.MotionWeightedMovesBefore
	s.MotionWeightedMovesAfter += o.MotionWeightedMovesAfter
	s.MotionCostBefore += o.MotionCostBefore
	s.MotionCostAfter += o.MotionCostAfter
	s.Motions += o.Motions
	s.MotionBlockCopies += o.MotionBlockCopies
	s.CopyMotion += o.CopyMotion
	s.Slots += o.Slots
	s.DataflowRuns += o.DataflowRuns
	s.Dataflow += o.Dataflow
	s.Integrated += o.Integrated
	s.Reconcile += o.Reconcile
	s.Distance += o.Distance
}
