// Package sched is kiln's optimizing register allocator: integrated list
// scheduling and linear-scan register assignment steered by execution
// frequencies, after Cutcutache ("Fast, frequency-based, integrated
// register allocation and instruction scheduling", M.Sc. thesis, NUS,
// 2009; Cutcutache and Wong, SPE 38(11), 2008).
//
// Allocate takes a function out of SSA form with its renaming constraints
// resolved (alloc.Destruct's output: φ webs coalesced, operands that need
// a fixed register pinned to it, tied two-address operands one virtual
// register) and returns it allocated: every operand a physical register or
// a stack slot, ready for package encode. Compile runs Destruct first.
//
// # The algorithm
//
// The analyses run once per compile (dataflow.go): liveness by exploring
// paths backwards from the exposed uses (linear in the size of the live
// sets), and for every definition and every region live-in the uses left
// in its region and whether it is live at the region's end, the distance
// (in regions, by breadth-first search) to the closest region with a use,
// the frequency-weighted cost of keeping each value in a caller-saved
// register across calls, and the registers fixed operands need where each
// value lives. During the pass liveness is tracked by decrementing use
// counts; nothing is recomputed.
//
// Regions are basic blocks, processed in DFS-down order (Options.Order
// selects the thesis's other orders). For each region:
//
//  1. the preferred locations of its live-out values: where the processed
//     successors start them, by decreasing edge frequency (§5.3.1);
//  2. the start locations of its live-in values: from the most frequent
//     processed predecessor, a value in memory there but used here taking
//     a register it has in another processed predecessor (Fig 5.4); with no
//     processed predecessor, or too many live-ins, the normal register
//     selection and the spill victim policy decide;
//  3. a dependence graph from the op table (virtual and pinned physical
//     registers, EFLAGS, memory with a conservative disambiguation of
//     accesses through the same address registers, calls, polls, traps and
//     counts as barriers), each node's priority its latency-weighted height
//     above the region's exit;
//  4. the cycle-driven list scheduler of Fig 5.6: in each cycle, among the
//     ready nodes that find a free functional unit, the highest priority
//     (then the earliest time); when a register file is under pressure
//     (fewer free registers than definitions left), first the nodes that
//     free a register of it or need none, then those reading values that
//     die in the region, then the rest; and where the best needs a
//     register none is free of while other nodes are in flight, it waits
//     for them rather than evict a value (a departure from the thesis;
//     Options.NoPressureWait restores it);
//  5. registers assigned as each node is taken (Figs 5.7–5.9): sources
//     first (reloading or recomputing spilled values), dying sources free
//     their registers (and become a preference for a later redefinition),
//     calls save the caller-saved registers that hold live values and keep
//     those registers reserved for a lazy restore at the next use (§5.3.3),
//     then destinations: a pinned register, the preferred locations, then
//     the register type (caller- or callee-saved) whose frequency-weighted
//     cost is lower (Fig 5.10), avoiding registers that fixed operands in
//     the value's live range need; with no register free, the spill victim
//     (VictimPolicy; by default DistanceVictim over the expected distance
//     with the function's edge counts, victim_distance.go; Options.Oracle
//     selects the nearest next use or the thesis's comparator, §5.3.6,
//     instead);
//  6. after all regions, a second pass adds the reconciliation code of every
//     edge (moves, loads, stores and rematerializations as one parallel
//     copy, sequentialized by alloc.Sequentialize) and builds the output.
//     First parallel copy motion (alloc.MoveParallelCopies;
//     Options.NoCopyMotion) moves register copies off edges by renaming
//     registers in regions, and a join whose live-in values' home slots
//     are current on every in-edge gets their reloads once at its top
//     when that is cheaper (sinkReloads; Options.NoReloadSinking). The
//     rest of an edge's code goes at the end of a predecessor with one
//     successor, the start of a successor with one predecessor, the end of
//     the predecessor when it is spill stores and reloads or moves into
//     registers free there and that is cheaper (codeFitsSource;
//     Options.NoEdgeHoisting), or on a new block splitting the edge. The
//     frame (stack slots, callee-saved registers written) is laid out by
//     the encoder;
//  7. spill placement (Options.NoPlacement turns it off), the thesis's
//     §3.5: first the store problem (placement.go): each spilled value's
//     stores move to right after its definitions when that executes fewer
//     stores by the block frequencies, the cut at the sources of the store
//     problem; then the load problem (loadplacement.go): the reloads that
//     leave their register untouched to the end of their block move
//     forward, towards the uses they serve, to the minimum cut by
//     frequency (out of a loop whose exit alone reads the value, say), and
//     reloads whose register is overwritten before it is read go, and the
//     same for the rematerializations the pass inserted; last,
//     the definitions of rematerializable values whose register nothing
//     reads go (orphans.go: every use was recomputed), and so do the
//     blocks splitting edges whose code placement moved away (unsplit.go). The thesis solves
//     the load problem first; kiln solves it second because a store the
//     pass made where it evicted a value in a loop reads the register the
//     loop's back edge reloads, so the reload serves that store until the
//     store moves to the definition, and is dead after (on spectralnorm
//     the order took the dynamic reloads from 200,110 to 2,064 when it
//     was chosen).
//
// # Decisions where the thesis is silent or kiln differs
//
//   - Regions are basic blocks; no traces or superblocks are formed.
//   - Spill stores go where the value is evicted (the text about their
//     placement is lost from the thesis's only copy); a value whose slot is
//     up to date is not stored again; then step 7 may move them to the
//     definitions. Reloads go right before the use, or on the edge into a
//     block that wants the value in a register; step 7 may move the
//     latter. The store problem cuts only at definitions and at the stores
//     the pass made (cuts inside the graph need the register that holds
//     the value at every point of the cut); the load problem cuts anywhere
//     in its region where the register and the slot both hold the value
//     on every path (valueHolders), which the thesis gets from its single
//     virtual register per value and kiln, whose coalesced copies let one
//     register hold several values, from an analysis of the output.
//   - A copy's destination that no instruction of the region reads, when no
//     register is free, is itself a spill candidate beside the values in
//     registers (the victim policy sees it with its next use): it goes
//     straight to its slot only when the policy picks it, else the victim
//     gives up its register (a φ copy before a loop whose values the loop
//     reads next takes the registers of values only read after the loop).
//   - Copies leave marks where their destinations start to live in
//     registers (copymarks.go), so that step 7 can store a value a copy
//     defines (a loop-carried φ web) right after that copy.
//   - Rematerialization: a virtual register every definition of which is
//     the same constant (MOVQconst, MOVSDconst) or context load (CtxLoad)
//     is never stored: spilling it is free and reloading it recomputes it.
//   - Register hints (beyond the thesis, Options.NoHints turns them off):
//     the thesis's preferences come only from processed successors, so a
//     loop-carried value redefined in the loop body before the latch is
//     processed lands in another register than the loop header expects,
//     costing a move on the back edge. Each value therefore remembers the
//     register it had where it was first placed; a destination with no
//     preference tries it, and other values avoid the registers hinted for
//     the values live into or out of the region and across its innermost
//     loop. On the Brainfuck program life.bf this removed all 210
//     reconciliation moves of the thesis's preferences alone.
//   - Calls are scheduling barriers. On the thesis's 128-register machine
//     moving code across a call is harmless; on x86-64, with five
//     callee-saved registers and none for floating point, it makes values
//     live across the call.
//   - The anti-dependence check of register selection is implied: x86
//     executes instructions in the order they are emitted, and the pass
//     emits them in schedule order.
//   - The caller/callee-saved choice counts a callee-saved register that
//     the function already uses as free (the prologue saves it anyway).
//   - Copies (φ copies and the copies into fixed-register operands) are
//     coalesced by the pass when possible: a destination takes the
//     register of a source that dies at the copy, so the copy emits
//     nothing. Copies into fixed-register operands are glued to the
//     instruction they feed and scheduled with it.
//   - The spill comparator orders two values that both have uses left in
//     the region by the position of their next use (the thesis, lacking
//     it, took the one with fewer uses; fewer uses breaks ties).
//
// # The machine model and latency scheduling
//
// Model describes the machine the list scheduler plans for: issue width,
// functional units and per-op latencies (DefaultModel: four-wide issue,
// latencies from the op table's classes). Options.SourceOrder keeps every
// block in its input order (the thesis's fast tier) while still assigning
// registers in the integrated pass. Measured on kiln's kernels and
// Brainfuck programs (see the README), latency scheduling does not pay on
// a current out-of-order x86-64: the two orders run within noise of each
// other, source order slightly ahead on the Brainfuck programs; the
// default stays the thesis's algorithm.
package sched
