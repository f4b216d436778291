// Package alloc holds register allocation support: out-of-SSA translation,
// the baseline allocator, spill placement, parallel-copy motion and
// sequentialization, and the allocation checker.
//
// # Out of SSA
//
// NaiveDestruct replaces every φ by a copy per argument at the end of the
// predecessor (splitting critical edges where needed): one register per SSA
// value, the most copies. Destruct is the optimizing translation. It
// coalesces with Budimlić et al.'s fast copy coalescer (union φ webs under
// the paper's five liveness filters, dominance forests from the dominator
// tree's preorder numbers, the forest interference walk with definite
// interference on live-out and a local backward walk otherwise, members
// split out by copy cost, deferred copies at predecessor ends, renaming
// through union-find) and meets renaming constraints by Rastello et al.'s
// pinning (values pinned to the physical register an operand needs, tied
// two-address operands pinned to their def, φ webs pinned to a common
// resource over the weighted affinity graph only where that adds no
// interference, repair copies where a pinned value is killed). No
// interference graph is built. CheckDestructed is the independent checker
// of its output: merged names must not interfere by an instruction-level
// liveness of its own, and a symbolic simulation must see every use read
// the SSA value it read before (both near-linear, so that tests and the
// fuzzer can check large functions).
//
// Decisions the papers leave open, and where this implementation differs:
//
//   - Pins are a side table on mir.Func (Func.Pins), not a register kind: a
//     pinned virtual register stays virtual so that later stages can still
//     spill or move it; the mir verifier and interpreter know pins.
//   - Operands fixed to stack-argument slots (arguments beyond the
//     registers) are not pinned; the allocator stores them.
//   - Join blocks are processed by decreasing block frequency (the
//     profile, or the static estimate) rather than by walking the loop
//     nesting forest inward-out (the issue allows either). Inner loops
//     have the higher frequencies under the static estimate, so they
//     still come first; with a profile the order follows where time is
//     actually spent.
//   - Besides φ webs, values read by fixed-register operands are pinned to
//     that register when no interference results (hot blocks first), which
//     removes the copy into e.g. a shift count or a call argument.
//   - Repair copies are not coalesced afterwards, and two-address
//     operations are never commuted to save a copy; both are left to the
//     register allocator.
//   - The remaining copies of each φ edge are one ParCopy at the end of
//     the predecessor (edges are split where the predecessor has other
//     successors), the copies into a constrained instruction one ParCopy
//     before it. Sequentialize turns them into moves at the end of the
//     pipeline.
//   - DestructOptions.NoConstraints runs the coalescer alone, as the paper
//     describes it, giving plain non-SSA code without pins. The baseline
//     tier uses it: the baseline allocator meets fixed-register and tied
//     operands in scratch registers around every instruction at no cost,
//     while a repair copy in a slot-per-value frame is a memory round trip
//     on the critical path (mandel ran 1.5 times slower with the pinned
//     form).
//
// # Baseline allocation
//
// Baseline and BaselineNonSSA give every virtual register its own 8-byte
// stack slot and load operands into caller-saved registers just before
// each instruction, storing results right after, honouring the op table's
// fixed registers, tied defs, early clobbers and clobber sets.
// BaselineNonSSA accepts Destruct's output, pinned or not;
// BaselineNonSSAWithOrigins also returns the Origins CheckAllocation needs.
//
// # Checking an allocation
//
// CheckAllocation proves, without running anything, that an allocated
// function computes the same values as the non-SSA function it was
// allocated from, for any allocator that reports where each allocated
// block and instruction came from (Origins), including one that reorders
// instructions within blocks, adds blocks on edges, drops or splits
// copies and rematerializes constants. It is a forward symbolic dataflow
// after regalloc2's checker: every location holds a set of input values,
// moves copy the set, clobbers empty it, and at joins a location keeps
// only what it holds on every incoming edge. Input values are named by
// walking each input block in input order, so that a use scheduled before
// or after a redefinition still names the value the input reads; copies
// alias their source, and constants (and context fields between calls)
// share one name, so that an allocator may drop copies and
// rematerialize. Besides the values it checks the correspondence of blocks
// and instructions, the order of memory accesses and side effects (loads
// may pass loads, and stores whose bytes provably differ through the same
// base and index), and that every flag reader reads the flags of the same
// instruction as in the input.
//
// It assumes that mir.Verify has checked the operand constraints, that the
// op table describes every clobber and the calling convention every call,
// and that linear memory and the execution context change only by stores
// and calls. Context values loaded before a call are different from those
// loaded after it, unless the input itself reads one across a call: the
// lowering reloads the memory state after calls exactly when memory can
// grow, so such an input says that calls leave the context unchanged, and
// an allocator may then rematerialize a context load anywhere.
//
// # Parallel copy motion
//
// MoveParallelCopies is Bouchez et al.'s parallel copy motion for the
// optimizing tier's reconciliation code: a register parallel copy on an
// edge is expanded to a permutation of the registers (Expand, one class
// never mapped to another), the permutation is applied to a region at the
// bottom of the edge's source (or the top of its destination) by renaming
// its registers and the block's end (start) locations, and its projection
// on the registers live at the region's entry is inserted there; the
// edge's copy cancels and the block's other edges carry the compensation,
// recomputed from the locations. The paper's local heuristic drives it
// with a frequency-weighted cost model (a move per execution, a split
// edge MotionOptions.SplitCost moves per execution of the edge, a block's
// copies at their cheapest point: the paper's "All" variant, block
// motion included in the gain). Decisions the paper leaves open:
//
//   - Edge copies are not stored but derived from the blocks' start and
//     end locations, so composition with earlier motions and the
//     compensation on siblings are exact by construction.
//   - A region is renamed by the whole permutation, never by the
//     pseudo-code's partial map: ties, early clobbers and dead
//     definitions stay right. A copy crosses an instruction only if the
//     permutation fixes its fixed operands, clobbers and (for calls) the
//     caller-saved registers; it never lands where a scratch register is
//     live; the copies are moves and exchanges, which keep EFLAGS, and
//     block motion breaks ties away from a compare and its branch.
//   - A block's top and bottom copies never overlap; where they meet
//     they are merged into one copy.
//   - Stack-slot moves (spill stores, reloads, rematerializations) are
//     outside the paper's model and stay on their edges (renamed); an
//     edge that carries one still needs a block when it is critical.
//     Copies with duplications are not reversible and stay as well.
//   - Motions off unsplittable edges propagate along chains of critical
//     siblings in the only direction that does not come back; a cycle,
//     an irreversible copy or a motion into the entry block that would be
//     needed is undone and reported (MotionStats.Unsolved), never
//     miscompiled. The worklist is bounded by 8 iterations per edge.
//
// # Linear scan
//
// LinearScan is a conventional register allocator for the same input as
// the optimizing tier's integrated pass (Destruct's pinned non-SSA
// output), kept to measure that pass against: Poletto and Sarkar's linear
// scan (TOPLAS 1999). It computes its own liveness (backward path
// exploration from each upward-exposed use, once), numbers the
// instructions in a reverse postorder that puts each block's most
// probable successor right after it (loop bodies stay together; layout
// order is an option) with uses at 2k and defs at 2k+1 (early clobbers at
// 2k), and gives every unpinned virtual register one conservative
// interval, from its first definition or live-in point to its last use or
// live-out point. Pinned virtual registers are precolored: their precise
// live segments, the clobbers of calls and early-clobbered fixed defs are
// fixed ranges, and an interval may take a register only if it overlaps
// none of that register's fixed ranges. The scan sorts the intervals by
// start, keeps an active list per class sorted by end, expires, prefers a
// copy-related register (hints, which LinearScanOptions.NoHints turns
// off), then caller-saved registers for intervals that cross no call and
// callee-saved ones for those that do, and when no register is free
// spills the interval that ends furthest (the new one or an active one).
// Spilled values live in a stack slot of their own (a stack argument in
// its incoming slot) and are reloaded into a temporary before each use
// and stored after each definition; values whose every definition is the
// same constant or context load are recomputed instead. No register is
// reserved for the temporaries: each instruction's temporaries get
// registers free there (not held by an interval covering it, not in a
// fixed range, not another temporary's), and when there are too few, of
// the intervals covering the instruction that are not its operands the
// one that ends furthest is stored before it and reloaded after it. Copies and parallel copies become moves
// between the final locations (Sequentialize; moves between one location
// vanish), and stack-argument operands become stores and loads around
// their instruction. Nothing is reordered and no edge needs code, so
// Origins map every block to itself.
package alloc
