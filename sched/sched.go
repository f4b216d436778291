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
	r, err := Start(f, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for i := range Steps {
		if err := r.Do(&Steps[i]); err != nil {
			return nil, err
		}
	}
	return r.Result(), nil
}

// A Run is the integrated pass over one function taken a step at a time,
// for a pipeline that times, switches or dumps each step (package jit's
// pass list): Start it, Do each of Steps in order, take the Result and
// Close it. Allocate is the same with every step done.
type Run struct {
	a    *allocator
	lazy *oracleVictim
	res  *Result
}

// Start checks f and opts as Allocate does and prepares a Run; nothing
// of the pass is done yet.
func Start(f *mir.Func, opts Options) (*Run, error) {
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
	if lazy != nil {
		if a.ed == nil {
			a.ed = new(edArena)
		}
		lazy.ar = a.ed
	}
	return &Run{a: a, lazy: lazy}, nil
}

// Step is one step of the integrated pass.
type Step struct {
	// Name names the step ("distance", "dataflow", "regions",
	// "reconcile", "placement").
	Name string
	// Doc says what the step does, in a line.
	Doc string
	// Off reports whether opts turn the step off (nil: it cannot be).
	Off func(opts *Options) bool
	do  func(r *Run) error
}

// Steps are the integrated pass's steps in the order they run. A step
// that its options turn off does nothing.
var Steps = []Step{
	{Name: "distance", Doc: "the spill oracle's analysis of the input (expected distances or nearest next uses), done first when the pass rewrites its input in place and otherwise at the first spill choice",
		do: (*Run).distance},
	{Name: "dataflow", Doc: "liveness and exposed uses of the input, the pass's tables",
		do: func(r *Run) error {
			t0 := time.Now()
			r.a.setup()
			r.a.stats.Dataflow = time.Since(t0)
			return nil
		}},
	{Name: "regions", Doc: "each region scheduled and its registers assigned together, spill victims by the oracle",
		do: (*Run).regions},
	{Name: "reconcile", Doc: "the second pass: reconciliation code on edges, parallel copy motion, reload sinking, the output",
		do: (*Run).reconcile},
	{Name: "placement", Doc: "spill stores moved to definitions and reloads towards uses by minimum cuts, orphaned definitions deleted",
		Off: func(o *Options) bool { return o.NoPlacement }, do: (*Run).placement},
}

// Do runs step s, which must be the next of Steps (or an unchanged copy
// of it), unless its options turn it off.
func (r *Run) Do(s *Step) error {
	if s.Off != nil && s.Off(&r.a.opts) {
		return nil
	}
	return s.do(r)
}

// Options returns the options the run goes by (Start's, with the
// defaults filled in).
func (r *Run) Options() *Options { return &r.a.opts }

// Func returns the function as the steps done so far left it: the input
// until "reconcile" has run, the output after.
func (r *Run) Func() *mir.Func {
	if r.res != nil {
		return r.res.Func
	}
	return r.a.f
}

func (r *Run) distance() error {
	if r.lazy != nil && r.a.opts.InPlace {
		// The analysis reads the input, which the pass rewrites.
		r.lazy.analyze()
	}
	return nil
}

func (r *Run) regions() error {
	a := r.a
	t1 := time.Now()
	order := a.opts.order
	if order == nil {
		order = regionOrder(a.f, a.opts.Order)
	}
	for _, b := range order {
		if err := a.region(b); err != nil {
			return fmt.Errorf("sched: %s b%d: %w", a.f.Name, b, err)
		}
		a.processed[b] = true
		a.stats.Regions++
	}
	a.stats.Integrated = time.Since(t1)
	return nil
}

func (r *Run) reconcile() error {
	a := r.a
	t2 := time.Now()
	res, err := a.secondPass()
	if err != nil {
		return fmt.Errorf("sched: %s: %w", a.f.Name, err)
	}
	r.res = res
	a.stats.Reconcile = time.Since(t2)
	return nil
}

func (r *Run) placement() error {
	a, res := r.a, r.res
	if res == nil {
		return fmt.Errorf("sched: %s: placement before reconcile", a.f.Name)
	}
	t := time.Now()
	homeOf := a.homeSlots()
	if homeOf != nil {
		a.placeStores(res, homeOf)
	}
	// With no value spilled to a slot, rematerializations may still
	// move.
	a.placeReloads(res, homeOf)
	a.deleteOrphans(res)
	dropCopyMarks(res.Func, res.Origins)
	a.stats.SplitEdges -= unsplitEmpty(res.Func, res.Origins)
	a.stats.Reconcile += time.Since(t)
	return nil
}

// Result returns the allocated function once every step has run, with
// the pass's statistics; nil before "reconcile".
func (r *Run) Result() *Result {
	if r.res == nil {
		return nil
	}
	r.res.Stats = r.a.stats
	if r.lazy != nil {
		r.res.Stats.Distance = r.lazy.spent
	}
	return r.res
}

// Close returns the run's storage to the pool for the next compile;
// nothing Result returned refers to it. The run cannot be used after.
func (r *Run) Close() {
	if r.a != nil {
		r.a.release()
		r.a = nil
	}
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
