package sched

// The comparison pipelines.
//
// The integrated pass is measured, as in the thesis (Table 6.1, "PRP LS"),
// against the conventional separate pipeline on the same input and the
// same machine model: prepass list scheduling, then linear-scan register
// allocation, then postpass list scheduling of the allocated code.
//
//   - Prepass: every block of the non-SSA input (alloc.Destruct's output)
//     is list scheduled with the dependence graph builder and the list
//     scheduler the integrated pass uses (graphBuilder.build with glue, so
//     that copies into an instruction's fixed operands stay with it, the
//     entry block's Arg prefix left in place; listSchedule, priority by
//     height, for the model), and reordered. The reordered function shares
//     the input's instructions; only the blocks' instruction lists are new.
//   - Allocation: alloc.LinearScan (Poletto and Sarkar's linear scan, with
//     its own liveness analysis, precolored pinned registers, spill
//     everywhere and rematerialization) allocates the reordered function.
//   - Postpass: every block of the allocated code is list scheduled again
//     (graphBuilder.build on physical registers, stack slots and the
//     scratch registers, without glue; the entry block's Arg prefix stays
//     first), so that the spill code is scheduled too.
//
// The origins of the three steps are composed, so that the result's
// Origins relate the final code to the original input and
// alloc.CheckAllocation can check it against that input like the
// integrated pass's output. LinearScanOnly is the allocation step alone,
// in the input's order.

import (
	"fmt"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// SeparatePhases is the time each phase of the separate pipeline took.
type SeparatePhases struct {
	// Prepass is the prepass scheduling (dependence graphs, list
	// scheduling, reordering); Liveness the allocator's numbering,
	// liveness analysis, intervals and fixed ranges; Scan the linear scan;
	// Rewrite the allocator's rewriting of the code with spill code;
	// Postpass the postpass scheduling. Total is the whole call,
	// verification of the input included.
	Prepass, Liveness, Scan, Rewrite, Postpass, Total time.Duration
}

// SeparateResult is what Separate and LinearScanOnly return: a Result like
// Allocate's (the allocated function, its Origins relative to the
// original input, and the Stats that apply), with the time of each phase
// and the allocator's own statistics.
//
// In Stats, the spill code (Spills, Reloads, Remats) and Moves are the
// allocator's, counted in the final code (stack-argument transfers count
// as moves); there is no reconciliation code, no split edge and no
// caller-save store. Cycles and WeightedCycles are the postpass schedule
// lengths in the model (zero for LinearScanOnly, which schedules nothing;
// ScheduleLength measures any code). DataflowRuns is 1 (the allocator's
// liveness) and Dataflow its time; Integrated and Reconcile are zero.
type SeparateResult struct {
	Result
	Phases SeparatePhases
	// LinearScan is the allocator's report.
	LinearScan alloc.LinearScanStats
	// PrepassCycles and PrepassWeightedCycles are the prepass schedule
	// lengths of the non-SSA code (zero for LinearScanOnly).
	PrepassCycles         int64
	PrepassWeightedCycles float64
}

// Separate runs the separate pipeline (prepass list scheduling, linear
// scan, postpass list scheduling; see the file comment) on f, a function
// out of SSA form with its renaming constraints resolved, the input
// Allocate takes; f is not modified. Of opts it uses Model (nil:
// DefaultModel) and Regs (0: all of mir.Allocatable), which restricts the
// registers given to unpinned values.
func Separate(f *mir.Func, opts Options) (*SeparateResult, error) {
	return separate(f, opts, true)
}

// LinearScanOnly allocates f with alloc.LinearScan alone, in the input's
// order, and returns the result in the form Separate does. Of opts it uses
// Regs.
func LinearScanOnly(f *mir.Func, opts Options) (*SeparateResult, error) {
	return separate(f, opts, false)
}

func separate(f *mir.Func, opts Options, schedule bool) (*SeparateResult, error) {
	t0 := time.Now()
	if err := checkInput(f, &opts); err != nil {
		return nil, err
	}
	model := opts.Model
	res := &SeparateResult{}
	g := f
	var perm [][]int32
	tPre := time.Now()
	if schedule {
		g, perm = prepass(f, model, res)
	}
	tAlloc := time.Now()
	lr, err := alloc.LinearScan(g, alloc.LinearScanOptions{Regs: opts.Regs, NoVerify: true})
	if err != nil {
		return nil, fmt.Errorf("sched: separate: %w", err)
	}
	tPost := time.Now()
	out, org := lr.Func, lr.Origins
	st := &res.Stats
	if schedule {
		postpass(out, org, model, st)
		for b, p := range perm {
			for i, k := range org.Instr[b] {
				if k >= 0 {
					org.Instr[b][i] = p[k]
				}
			}
		}
	}
	tEnd := time.Now()

	ls := lr.Stats
	st.Instrs = ls.Instrs
	st.Regions = len(f.Blocks)
	st.Spills, st.Reloads, st.Remats, st.Moves = ls.Spills, ls.Reloads, ls.Remats, ls.Moves
	st.WeightedSpills, st.WeightedReloads = ls.WeightedSpills, ls.WeightedReloads
	st.WeightedRemats, st.WeightedMoves = ls.WeightedRemats, ls.WeightedMoves
	st.Slots = ls.Slots
	st.DataflowRuns = 1
	st.Dataflow = ls.Liveness
	res.Func, res.Origins = out, org
	res.LinearScan = ls
	res.Phases = SeparatePhases{
		Liveness: ls.Liveness,
		Scan:     ls.Scan,
		Rewrite:  ls.Rewrite,
		Total:    tEnd.Sub(t0),
	}
	if schedule {
		res.Phases.Prepass = tAlloc.Sub(tPre)
		res.Phases.Postpass = tEnd.Sub(tPost)
	}
	return res, nil
}

// argPrefix returns the number of Arg instructions at the start of instrs
// (they stay first: the arguments are where the calling convention puts
// them on entry).
func argPrefix(instrs []*mir.Instr) int {
	n := 0
	for n < len(instrs) && instrs[n].Op == mir.OpArg {
		n++
	}
	return n
}

// prepass list schedules every block of f and returns a function with the
// blocks reordered (sharing f's instructions and tables) and, per block,
// the input index of each of its instructions. It records the schedule
// lengths in res.
func prepass(f *mir.Func, m *Model, res *SeparateResult) (*mir.Func, [][]int32) {
	nb := len(f.Blocks)
	g := &mir.Func{Name: f.Name, Index: f.Index, Params: f.Params, Results: f.Results, Form: f.Form,
		VRegs: f.VRegs, Slots: f.Slots, Pins: f.Pins, Blocks: make([]*mir.Block, nb)}
	perm := make([][]int32, nb)
	total := 0
	for _, b := range f.Blocks {
		total += len(b.Instrs)
	}
	instrs := make([]*mir.Instr, 0, total)
	idx := make([]int32, 0, total)
	blocks := make([]mir.Block, nb)
	gb := newGraphBuilder(f, m)
	var rs readyState
	var order []int32
	for bi, b := range f.Blocks {
		start := argPrefix(b.Instrs)
		gr := gb.build(b.Instrs, start, true)
		order = listSchedule(&rs, gr, m, order)
		first := len(instrs)
		for k := 0; k < start; k++ {
			instrs = append(instrs, b.Instrs[k])
			idx = append(idx, int32(k))
		}
		for _, n := range order {
			nd := &gr.nodes[n]
			for k := nd.first; k <= nd.last; k++ {
				instrs = append(instrs, b.Instrs[k])
				idx = append(idx, k)
			}
		}
		l := rs.length()
		res.PrepassCycles += int64(l)
		res.PrepassWeightedCycles += float64(l) * b.Freq
		nbk := &blocks[bi]
		*nbk = *b
		nbk.Instrs = instrs[first:len(instrs):len(instrs)]
		perm[bi] = idx[first:len(idx):len(idx)]
		g.Blocks[bi] = nbk
	}
	return g, perm
}

// postpass list schedules every block of the allocated function out in
// place, permuting its origins along, and adds the schedule lengths to st.
//
// Every instruction but a move clobbers the scratch registers in the
// dependence graph, so no such instruction is scheduled into a run of
// moves that carries a value in one.
func postpass(out *mir.Func, org *alloc.Origins, m *Model, st *Stats) {
	gb := newGraphBuilder(out, m)
	var rs readyState
	var order []int32
	var buf []*mir.Instr
	var obuf []int32
	for bi, b := range out.Blocks {
		start := argPrefix(b.Instrs)
		gr := gb.build(b.Instrs, start, false)
		order = listSchedule(&rs, gr, m, order)
		buf = append(buf[:0], b.Instrs...)
		obuf = append(obuf[:0], org.Instr[bi]...)
		j := start
		for _, n := range order {
			nd := &gr.nodes[n]
			for k := nd.first; k <= nd.last; k++ {
				b.Instrs[j] = buf[k]
				org.Instr[bi][j] = obuf[k]
				j++
			}
		}
		l := rs.length()
		st.Cycles += int64(l)
		st.WeightedCycles += float64(l) * b.Freq
	}
}

// ScheduleLength returns the number of cycles f's code takes in model m
// (nil: DefaultModel) when every block issues its instructions in their
// order, each as early as its dependences, the issue width and the
// functional units allow (the entry block's Arg prefix excluded), summed
// over the blocks and weighted by block frequency. f may be in any form;
// it is the measure the comparison of the pipelines applies to every
// output alike.
func ScheduleLength(f *mir.Func, m *Model) (cycles int64, weighted float64) {
	if m == nil {
		m = DefaultModel()
	}
	gb := newGraphBuilder(f, m)
	var rs readyState
	for _, b := range f.Blocks {
		gr := gb.build(b.Instrs, argPrefix(b.Instrs), false)
		l := inOrderLength(&rs, gr, m)
		cycles += int64(l)
		weighted += float64(l) * b.Freq
	}
	return cycles, weighted
}

// inOrderLength issues the nodes of g in their order, each in the first
// cycle, no earlier than the previous node's, in which its operands are
// ready and a unit is free, and returns the schedule's length.
func inOrderLength(r *readyState, g *depGraph, m *Model) int32 {
	r.reset(g, m)
	for n := int32(0); n < int32(len(g.nodes)); n++ {
		// Every edge goes forward, so n is available once its
		// predecessors are issued.
		for !r.isReady(n) {
			r.advance()
		}
		r.schedule(n)
	}
	return r.length()
}
