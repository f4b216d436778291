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
// of its output: merged names must not interfere by a brute-force
// instruction-level liveness, and a symbolic simulation must see every use
// read the SSA value it read before.
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
// BaselineNonSSA accepts Destruct's output, pinned or not.
package alloc
