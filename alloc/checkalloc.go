package alloc

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/kiln-jit/kiln/mir"
)

// AllocationError is the error CheckAllocation returns: the first thing
// found wrong with an allocated function. Block and Instr locate it in the
// allocated function (-1 when it concerns the function or a block as a
// whole); Op is the op of the instruction at that place.
type AllocationError struct {
	Func         string
	Block, Instr int
	Op           mir.Op
	Msg          string
}

// Error formats the error, e.g. "alloc: check allocation of fib: b2[7]
// (ADDQ): from input b2[4]: use 1 (rcx) must hold v4 defined at input
// b2[1] (LEAQ), but it holds no value of the input".
func (e *AllocationError) Error() string {
	switch {
	case e.Block < 0:
		return fmt.Sprintf("alloc: check allocation of %s: %s", e.Func, e.Msg)
	case e.Instr < 0:
		return fmt.Sprintf("alloc: check allocation of %s: b%d: %s", e.Func, e.Block, e.Msg)
	}
	return fmt.Sprintf("alloc: check allocation of %s: b%d[%d] (%s): %s", e.Func, e.Block, e.Instr, e.Op, e.Msg)
}

// CheckAllocation checks that post, the output of a register allocator,
// computes the same values as pre, the allocator's input, with o saying
// where each allocated block and instruction came from. It returns nil or
// an *AllocationError. It reads pre and post without changing them and
// reports malformed input (Origins of the wrong shape, indexes out of
// range, blocks that do not correspond) as errors.
//
// pre must be in non-SSA form (pinned or not) or in SSA form without φs,
// with virtual registers as its only operands; post must be in allocated
// form. Both must pass mir.Verify, which also checks post's fixed-register,
// tied and early-clobber constraints. Beyond that CheckAllocation checks:
//
//   - Structure. Allocated block 0 holds input block 0 and every input
//     block is held by exactly one allocated block; the other allocated
//     blocks lie on edges (one predecessor, one successor, only inserted
//     instructions and a JMP). Following chains of added blocks, every
//     allocated block has its input block's successors in the same order,
//     and it ends with the input block's terminator.
//   - Instructions. Every input instruction other than Copy, ParCopy and
//     the rematerializations appears exactly once in its block's allocated
//     block (a rematerialization at most once: an allocator may delete one
//     whose result nothing reads, as every use must still find its value
//     in a location; see Values) with the same op, immediate, scale,
//     condition, Aux and operand counts (and the same Pos if it may trap
//     or calls). Inserted instructions are moves (Copy,
//     Spill, Reload, Xchg) or rematerializations (MOVQconst, MOVSDconst,
//     CtxLoad); so are instructions made from an input Copy or ParCopy.
//     No ParCopy remains, an Xchg swaps its uses in place, the scratch
//     registers appear only in moves, RSP and R15 never.
//   - Order of effects. Within a block, calls, polls, counts, traps, RET and
//     every other instruction with side effects keep their input order
//     relative to each other and to every memory access; memory accesses
//     keep their order except that two loads may be swapped, and a store
//     may be swapped with a load or another store whose address has the
//     same base and index values and the same scale and whose bytes do not
//     overlap. A CtxLoad of the input stays between the same calls
//     (unless the input relies on calls leaving the context unchanged).
//   - Flags. Every flag reader reads the flags of the same input
//     instruction as in the input; inserted instructions write no flags.
//   - Values. A forward symbolic dataflow over post (in the manner of
//     regalloc2's checker) keeps, for every location (register, stack slot,
//     stack-argument slot), the set of input values it holds. Input values
//     are named by walking each input block in input order: a definition
//     gets a fresh name, except that a Copy or ParCopy gives its
//     destination the name of its source, MOVQconst and MOVSDconst name
//     their constant (the same name everywhere) and CtxLoad names its
//     context field as of the calls before it in the block (or, when the
//     input itself reads a context value after a call that follows its
//     load, and so relies on calls leaving the context unchanged, names
//     the field alone). Every use of
//     an input instruction must read a location holding the name the input
//     reads there. Calls clobber the caller-saved registers and the
//     outgoing stack-argument slots, every other non-move the scratch
//     registers, and every instruction its op's clobber set. Between
//     blocks the names are translated into the virtual registers live
//     across the edge; at a join a location holds a virtual register only
//     if it does on every incoming edge. A virtual register that holds the
//     same constant (or the same context field with no call since its load)
//     on every path into a block is that constant there, so an allocator
//     may rematerialize it instead of keeping it live.
//
// What it assumes: that the op table (mir.Op.Info) and the calling
// convention describe the machine; that Arg instructions do nothing (the
// arguments are in their calling-convention locations on entry); that
// linear memory is only changed by stores and calls; that the execution
// context changes only across calls; and that an input which reads a
// context value across a call is right to (the lowering reloads the
// memory state after calls exactly when memory can grow), so that the
// context is then unchanged by every call of the function.
func CheckAllocation(pre, post *mir.Func, o *Origins) (err error) {
	name := "?"
	if post != nil {
		name = post.Name
	} else if pre != nil {
		name = pre.Name
	}
	defer func() {
		if r := recover(); r != nil {
			err = &AllocationError{Func: name, Block: -1, Instr: -1, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	if pre == nil || post == nil {
		return &AllocationError{Func: name, Block: -1, Instr: -1, Msg: "nil function"}
	}
	c := &acChecker{pre: pre, post: post, o: o, name: name}
	if err := c.structure(); err != nil {
		return err
	}
	c.live = mir.ComputeSparseLiveness(pre)
	c.ctxInvariant = c.ctxReadAcrossCall()
	c.refineEntries()
	c.nameValues()
	if err := c.order(); err != nil {
		return err
	}
	return c.flow()
}

// noIndexName is the name of the absent index of a memory operand
// without one (a NoReg use): the output's use must be NoReg too.
const noIndexName int32 = -2

// Effect classes of input instructions, for the order check.
const (
	acNone    uint8 = iota
	acLoad          // reads memory, nothing else
	acStore         // writes memory, nothing else
	acBarrier       // keeps its place relative to every effect
	acGuarded       // stays after the barriers before it (mir.OpInfo.Guarded)
)

// acChecker holds what CheckAllocation derives from its inputs.
type acChecker struct {
	pre, post *mir.Func
	o         *Origins
	name      string
	nv        int
	live      *mir.SSALiveness

	// The input's instructions are numbered block by block: preStart[b] is
	// the number of the first instruction of input block b.
	preStart []int32
	// Per input instruction: where its use and def names start in useName
	// and defName (one extra entry at the end), its effect class, the
	// number of calls and of barriers before it in its block, and the
	// index of the last flag writer before it in its block (or -1).
	useOff, defOff  []int32
	useName         []int32
	defName         []int32
	class           []uint8
	callsBefore     []int32
	barriersBefore  []int32
	flagFrom        []int32
	barrierList     [][]int32 // per input block: the indexes of its barriers
	ncalls          []int32   // per input block: its calls
	maxCalls        int32
	allocatedOrigin []int32 // per input instruction: its index in its allocated block, or -1

	// Names. [0, nv) is the value virtual register v has on entry to the
	// block being looked at; then the sites of definitions, the context
	// fields (numCtx per call epoch), and the constants.
	siteBase, ctxBase, constBase int32
	sites                        []acSite
	consts                       map[acConst]int32
	constList                    []acConst

	// Per input block: the refined entry names, and the names the live-out
	// virtual registers have at the end, both sorted by vreg.
	refine [][]acPair
	endByV [][]acPair

	// The allocated function: the input block whose names each allocated
	// block uses (its own, or for an added block, the block its edge leaves),
	// the dense numbers of the stack-argument slots it names, and the
	// outgoing ones.
	nbPre      []int
	argLoc     map[mir.Reg]int32
	outArgLocs []int32
	nloc       int
	// numCtx bounds the context fields CtxLoad instructions name.
	numCtx int32
	// ctxInvariant says that the input relies on calls leaving the
	// execution context unchanged (see ctxReadAcrossCall): context values
	// then keep their names across calls.
	ctxInvariant bool
}

type acPair struct{ v, name int32 }

type acSite struct{ block, instr, vreg int32 }

type acConst struct {
	op  mir.Op
	imm int64
}

// acLocSet is one location's virtual registers at a block boundary.
type acLocSet struct {
	loc   int32
	vregs []int32
}

const numPhys = int32(mir.NumPhysRegs)

func (c *acChecker) errf(b, i int, format string, args ...any) error {
	e := &AllocationError{Func: c.name, Block: b, Instr: i, Msg: fmt.Sprintf(format, args...)}
	if b >= 0 && i >= 0 && b < len(c.post.Blocks) && i < len(c.post.Blocks[b].Instrs) {
		e.Op = c.post.Blocks[b].Instrs[i].Op
	}
	return e
}

// isMoveOp reports whether op only moves a value between locations.
func isMoveOp(op mir.Op) bool {
	return op == mir.OpCopy || op == mir.OpSpill || op == mir.OpReload || op == mir.OpXchg
}

// IsRematOp reports whether op is one a register allocator may insert to
// recompute a value rather than reload it: a constant or a context field,
// read without register operands. CheckAllocation accepts such an
// instruction wherever the value it computes is the one expected.
func IsRematOp(op mir.Op) bool {
	return op == mir.OpMOVQconst || op == mir.OpMOVSDconst || op == mir.OpCtxLoad
}

func isCopyOp(op mir.Op) bool { return op == mir.OpCopy || op == mir.OpParCopy }

// inputAt names input instruction k of input block ob in messages.
func (c *acChecker) inputAt(ob int, k int32) string {
	return fmt.Sprintf("input b%d[%d] (%s)", ob, k, c.pre.Blocks[ob].Instrs[k].Op)
}

// structure checks the forms, the shape of the origins, the block
// correspondence, the CFG and the instruction correspondence.
func (c *acChecker) structure() error {
	pre, post, o := c.pre, c.post, c.o
	if err := mir.Verify(pre); err != nil {
		return c.errf(-1, -1, "input does not verify: %v", err)
	}
	if err := mir.Verify(post); err != nil {
		return c.errf(-1, -1, "allocated function does not verify: %v", err)
	}
	switch pre.Form {
	case mir.FormNonSSA:
	case mir.FormSSA:
		for _, b := range pre.Blocks {
			if len(b.Phis()) > 0 {
				return c.errf(-1, -1, "input is in SSA form with φs (input b%d); take it out of SSA first", b.ID)
			}
		}
	default:
		return c.errf(-1, -1, "input is in %s form, not nonssa", pre.Form)
	}
	if post.Form != mir.FormAllocated {
		return c.errf(-1, -1, "allocated function is in %s form", post.Form)
	}
	if !slices.Equal(pre.Params, post.Params) || !slices.Equal(pre.Results, post.Results) {
		return c.errf(-1, -1, "signature (%v) -> (%v) differs from the input's (%v) -> (%v)",
			post.Params, post.Results, pre.Params, pre.Results)
	}
	c.nv = len(pre.VRegs)
	c.numCtx = int32(mir.CtxMemBound8) + 1
	for _, f := range []*mir.Func{pre, post} {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				if in.Op == mir.OpCtxLoad {
					c.numCtx = max(c.numCtx, in.Aux+1)
				}
			}
		}
	}
	for _, b := range pre.Blocks {
		for i, in := range b.Instrs {
			for k, rs := range [2][]mir.Reg{in.Defs, in.Uses} {
				for j, r := range rs {
					if k == 1 && r == mir.NoReg && pre.UseSpec(in, j).Role == mir.RoleMemIndex {
						continue // a memory operand without an index
					}
					if !r.IsVirtual() {
						return c.errf(-1, -1, "input b%d[%d] (%s) names %s; only virtual registers are supported in the input", b.ID, i, in.Op, r)
					}
				}
			}
		}
	}
	if o == nil {
		return c.errf(-1, -1, "no origins")
	}
	if len(o.Block) != len(post.Blocks) || len(o.Instr) != len(post.Blocks) {
		return c.errf(-1, -1, "origins for %d blocks (Block) and %d blocks (Instr); the allocated function has %d", len(o.Block), len(o.Instr), len(post.Blocks))
	}
	for b, blk := range post.Blocks {
		if len(o.Instr[b]) != len(blk.Instrs) {
			return c.errf(b, -1, "origins for %d instructions, the block has %d", len(o.Instr[b]), len(blk.Instrs))
		}
	}
	held := make([]int, len(pre.Blocks))
	for i := range held {
		held[i] = -1
	}
	for b, ob := range o.Block {
		if ob < -1 || ob >= len(pre.Blocks) {
			return c.errf(b, -1, "origin b%d is not a block of the input (it has %d)", ob, len(pre.Blocks))
		}
		if ob >= 0 {
			if held[ob] >= 0 {
				return c.errf(b, -1, "holds input b%d, which b%d holds too", ob, held[ob])
			}
			held[ob] = b
		}
	}
	if o.Block[0] != 0 {
		return c.errf(0, -1, "the entry block holds input b%d, not the input's entry", o.Block[0])
	}
	for ob, b := range held {
		if b < 0 {
			return c.errf(-1, -1, "no allocated block holds input b%d", ob)
		}
	}
	for b, ob := range o.Block {
		if ob >= 0 {
			continue
		}
		blk := post.Blocks[b]
		if len(blk.Preds) != 1 || len(blk.Succs) != 1 || blk.Terminator().Op != mir.OpJMP {
			return c.errf(b, -1, "added block must have one predecessor and end with a JMP (it has %d predecessors, %d successors and ends with %s)",
				len(blk.Preds), len(blk.Succs), blk.Terminator().Op)
		}
		for i, k := range o.Instr[b] {
			if k != -1 {
				return c.errf(b, i, "origin %d in an added block, which holds only inserted instructions", k)
			}
		}
	}
	c.nbPre = make([]int, len(post.Blocks))
	for b := range c.nbPre {
		c.nbPre[b] = -1
	}
	for b, ob := range o.Block {
		if ob < 0 {
			continue
		}
		c.nbPre[b] = ob
		blk, want := post.Blocks[b], pre.Blocks[ob].Succs
		if len(blk.Succs) != len(want) {
			return c.errf(b, -1, "%d successors, input b%d has %d", len(blk.Succs), ob, len(want))
		}
		for i, s := range blk.Succs {
			for steps := 0; o.Block[s] < 0; steps++ {
				if steps > len(post.Blocks) {
					return c.errf(b, -1, "successor %d enters a cycle of added blocks", i)
				}
				c.nbPre[s] = ob
				s = post.Blocks[s].Succs[0]
			}
			if o.Block[s] != want[i] {
				return c.errf(b, -1, "successor %d leads to b%d, which holds input b%d; successor %d of input b%d is b%d",
					i, s, o.Block[s], i, ob, want[i])
			}
		}
	}
	for b := range post.Blocks {
		if c.nbPre[b] < 0 {
			return c.errf(b, -1, "added block is not on an edge leaving a block of the input")
		}
	}

	// Instructions.
	c.preStart = make([]int32, len(pre.Blocks)+1)
	for b, blk := range pre.Blocks {
		c.preStart[b+1] = c.preStart[b] + int32(len(blk.Instrs))
	}
	c.allocatedOrigin = make([]int32, c.preStart[len(pre.Blocks)])
	for i := range c.allocatedOrigin {
		c.allocatedOrigin[i] = -1
	}
	c.argLoc = map[mir.Reg]int32{}
	for b, blk := range post.Blocks {
		ob := o.Block[b]
		for i, in := range blk.Instrs {
			move := isMoveOp(in.Op)
			for _, rs := range [2][]mir.Reg{in.Defs, in.Uses} {
				for _, r := range rs {
					switch {
					case r == mir.RSP || r == mir.CtxReg:
						return c.errf(b, i, "names %s, which is reserved", r)
					case r.IsScratch() && !move:
						return c.errf(b, i, "names the scratch register %s, which only moves may use", r)
					case r.IsArgSlot():
						if _, ok := c.argLoc[r]; !ok {
							c.argLoc[r] = int32(len(c.argLoc))
						}
					}
				}
			}
			if in.Op == mir.OpParCopy {
				return c.errf(b, i, "parallel copy in allocated code; sequentialize it")
			}
			if in.Op == mir.OpXchg && (in.Defs[0] != in.Uses[0] || in.Defs[1] != in.Uses[1]) {
				return c.errf(b, i, "exchange must swap its uses in place (defs %s, %s; uses %s, %s)",
					in.Defs[0], in.Defs[1], in.Uses[0], in.Uses[1])
			}
			k := o.Instr[b][i]
			if ob < 0 || k == -1 {
				if !move && !IsRematOp(in.Op) && !(ob < 0 && i == len(blk.Instrs)-1) {
					return c.errf(b, i, "inserted %s is neither a move nor a rematerialization", in.Op)
				}
				continue
			}
			pb := pre.Blocks[ob]
			if k < 0 || int(k) >= len(pb.Instrs) {
				return c.errf(b, i, "origin %d is not an instruction of input b%d (it has %d)", k, ob, len(pb.Instrs))
			}
			p := pb.Instrs[k]
			if isCopyOp(p.Op) {
				if !move {
					return c.errf(b, i, "made from %s, a copy, but is not a move", c.inputAt(ob, k))
				}
				continue
			}
			if in.Op != p.Op || in.Imm != p.Imm || in.Scale != p.Scale || in.Cond != p.Cond || in.Aux != p.Aux ||
				len(in.Defs) != len(p.Defs) || len(in.Uses) != len(p.Uses) {
				return c.errf(b, i, "does not match its origin %s: %s", c.inputAt(ob, k), describeMismatch(in, p))
			}
			g := c.preStart[ob] + k
			if j := c.allocatedOrigin[g]; j >= 0 {
				return c.errf(b, i, "%s appears twice in the block (also at b%d[%d])", c.inputAt(ob, k), b, j)
			}
			c.allocatedOrigin[g] = int32(i)
			if info := in.Op.Info(); (info.MayTrap || info.Call) && in.Pos != p.Pos {
				return c.errf(b, i, "bytecode offset %d, its origin %s has %d", in.Pos, c.inputAt(ob, k), p.Pos)
			}
		}
		if ob >= 0 {
			last := len(blk.Instrs) - 1
			if k := o.Instr[b][last]; int(k) != len(pre.Blocks[ob].Instrs)-1 {
				return c.errf(b, last, "the block's terminator has origin %d, not the terminator of input b%d", k, ob)
			}
		}
	}
	for ob, pb := range pre.Blocks {
		for k, p := range pb.Instrs {
			if !isCopyOp(p.Op) && !IsRematOp(p.Op) && c.allocatedOrigin[c.preStart[ob]+int32(k)] < 0 {
				return c.errf(held[ob], -1, "%s is missing (the block holds input b%d)", c.inputAt(ob, int32(k)), ob)
			}
		}
	}
	c.nloc = int(numPhys) + len(post.Slots) + len(c.argLoc)
	for r := range c.argLoc {
		if !r.IsInArg() {
			c.outArgLocs = append(c.outArgLocs, c.loc(r))
		}
	}
	slices.Sort(c.outArgLocs)
	return nil
}

// describeMismatch says how an allocated instruction differs from its
// origin.
func describeMismatch(in, p *mir.Instr) string {
	switch {
	case in.Op != p.Op:
		return fmt.Sprintf("op %s", p.Op)
	case in.Imm != p.Imm:
		return fmt.Sprintf("immediate %d, the origin's is %d", in.Imm, p.Imm)
	case in.Scale != p.Scale:
		return fmt.Sprintf("scale %d, the origin's is %d", in.Scale, p.Scale)
	case in.Cond != p.Cond:
		return fmt.Sprintf("condition %s, the origin's is %s", in.Cond, p.Cond)
	case in.Aux != p.Aux:
		return fmt.Sprintf("aux %d, the origin's is %d", in.Aux, p.Aux)
	}
	return fmt.Sprintf("%d defs and %d uses, the origin has %d and %d", len(in.Defs), len(in.Uses), len(p.Defs), len(p.Uses))
}

// loc returns the dense number of a location of the allocated function.
func (c *acChecker) loc(r mir.Reg) int32 {
	switch {
	case r.IsPhys():
		return int32(r)
	case r.IsSlot():
		return numPhys + int32(r.Index())
	}
	return numPhys + int32(len(c.post.Slots)) + c.argLoc[r]
}

// ctxName returns the name of context field as loaded after epoch calls
// of the block.
func (c *acChecker) ctxName(field, epoch int32) int32 {
	if c.ctxInvariant {
		epoch = 0
	}
	return c.ctxBase + epoch*c.numCtx + field
}

// ctxReadAcrossCall reports whether the input reads, on some path, a value
// it loaded from the execution context before a call that lies between
// the load and the read. Such an input relies on calls leaving the
// context unchanged (the lowering reloads the memory state after calls
// exactly when memory can grow, and then never reads an old load again),
// so the checker may rely on it too. It is a forward may-analysis over
// two sets of virtual registers: those that may hold a context value, and
// those that may hold one a call has crossed.
//
// The sets are kept at block boundaries for the live registers only (what
// a dead register holds is never read before it is written again), as
// sorted lists, so that their size is that of the liveness sets rather
// than blocks × registers; within a block a call marks every context value
// held so far as crossed by counting calls (ctxState).
func (c *acChecker) ctxReadAcrossCall() bool {
	pre := c.pre
	nb := len(pre.Blocks)
	anyCall, anyLoad := false, false
	for _, blk := range pre.Blocks {
		for _, in := range blk.Instrs {
			anyCall = anyCall || in.Op.Info().Call
			anyLoad = anyLoad || in.Op == mir.OpCtxLoad
		}
	}
	if !anyCall || !anyLoad {
		return false
	}
	out := make([][]ctxMark, nb) // per block: the live-out registers that may hold a context value
	st := newCtxState(c.nv)
	var tmp []ctxMark
	var buf []ctxMark
	work := mir.NewPassWorklist(pre.Graph().ReversePostorder(), nb)
	for b, ok := work.Pop(); ok; b, ok = work.Pop() {
		blk := pre.Blocks[b]
		st.reset()
		for _, p := range blk.Preds {
			for _, m := range out[p] {
				if c.live.LiveIn(b, int(m.v)) {
					st.enter(m)
				}
			}
		}
		for _, in := range blk.Instrs {
			for _, u := range in.Uses {
				if u != mir.NoReg && st.stale(int32(u.Index())) {
					return true
				}
			}
			switch {
			case isCopyOp(in.Op):
				// A copy takes over both marks of its source.
				tmp = tmp[:0]
				for _, u := range in.Uses {
					v := int32(u.Index())
					tmp = append(tmp, ctxMark{v: v, ctx: st.ctx[v], crossed: st.stale(v)})
				}
				for k, d := range in.Defs {
					st.set(int32(d.Index()), tmp[k].ctx, tmp[k].crossed)
				}
				continue
			case in.Op == mir.OpCtxLoad:
				st.set(int32(in.Defs[0].Index()), true, false)
				continue
			case in.Op.Info().Call:
				st.calls++
			}
			for _, d := range in.Defs {
				st.set(int32(d.Index()), false, false)
			}
		}
		buf = st.exit(buf[:0], func(v int32) bool { return c.live.LiveOut(b, int(v)) })
		if !slices.Equal(buf, out[b]) {
			// The sets only grow, so a change is a new mark.
			out[b] = slices.Clone(buf)
			for _, succ := range blk.Succs {
				work.Mark(succ)
			}
		}
	}
	return false
}

// ctxMark says that register v may hold a context value (ctx) and whether
// a call may have crossed it.
type ctxMark struct {
	v            int32
	ctx, crossed bool
}

// ctxState holds the marks of ctxReadAcrossCall inside one block. A
// register holding a context value since before the block's last call
// (since < calls) has been crossed by it.
type ctxState struct {
	ctx, crossed []bool
	since        []int32
	calls        int32
	touched      []int32
	in           []bool // in touched
}

func newCtxState(nv int) *ctxState {
	return &ctxState{ctx: make([]bool, nv), crossed: make([]bool, nv), since: make([]int32, nv), in: make([]bool, nv)}
}

// reset forgets every mark before the next block.
func (s *ctxState) reset() {
	for _, v := range s.touched {
		s.ctx[v], s.crossed[v], s.in[v] = false, false, false
	}
	s.touched, s.calls = s.touched[:0], 0
}

// stale reports whether v may hold a context value a call has crossed.
func (s *ctxState) stale(v int32) bool {
	return s.crossed[v] || s.ctx[v] && s.since[v] < s.calls
}

// set gives v its marks from now on.
func (s *ctxState) set(v int32, ctx, crossed bool) {
	if !s.in[v] {
		s.in[v] = true
		s.touched = append(s.touched, v)
	}
	s.ctx[v], s.crossed[v], s.since[v] = ctx, crossed, s.calls
}

// enter adds the marks one predecessor leaves in v to the block's entry.
func (s *ctxState) enter(m ctxMark) {
	s.set(m.v, s.ctx[m.v] || m.ctx, s.crossed[m.v] || m.crossed)
}

// exit appends, in register order, the marks of the registers keep
// accepts that may hold a context value.
func (s *ctxState) exit(out []ctxMark, keep func(v int32) bool) []ctxMark {
	for _, v := range s.touched {
		if (s.ctx[v] || s.stale(v)) && keep(v) {
			out = append(out, ctxMark{v: v, ctx: s.ctx[v], crossed: s.stale(v)})
		}
	}
	slices.SortFunc(out, func(a, b ctxMark) int { return int(a.v) - int(b.v) })
	return out
}

// constName returns the name of the constant op (MOVQconst or MOVSDconst)
// with immediate imm.

func (c *acChecker) constName(op mir.Op, imm int64) int32 {
	k := acConst{op, imm}
	if n, ok := c.consts[k]; ok {
		return n
	}
	n := c.constBase + int32(len(c.constList))
	c.consts[k] = n
	c.constList = append(c.constList, k)
	return n
}

// refineEntries finds, by a forward dataflow over the input, the virtual
// registers that hold the same constant, or the same context field loaded
// after the last call, on every path into a block, and gives each the
// name of that constant or field as its entry name there.
func (c *acChecker) refineEntries() {
	pre := c.pre
	c.maxCalls = 0
	c.ncalls = make([]int32, len(pre.Blocks))
	nsites := int32(0)
	for b, blk := range pre.Blocks {
		for _, in := range blk.Instrs {
			if in.Op.Info().Call {
				c.ncalls[b]++
			}
			nsites += int32(len(in.Defs))
		}
		c.maxCalls = max(c.maxCalls, c.ncalls[b])
	}
	c.siteBase = int32(c.nv)
	c.ctxBase = c.siteBase + nsites
	c.constBase = c.ctxBase + (c.maxCalls+1)*c.numCtx
	c.consts = map[acConst]int32{}

	nb := len(pre.Blocks)
	exit := make([][]acPair, nb)
	visited := make([]bool, nb)
	entries := make([][]acPair, nb)
	val := make([]int32, c.nv)
	for i := range val {
		val[i] = -1
	}
	var touched []int32
	isTouched := make([]bool, c.nv)
	set := func(v, n int32) {
		if !isTouched[v] {
			isTouched[v] = true
			touched = append(touched, v)
		}
		val[v] = n
	}
	isCtx := func(n int32) bool { return n >= c.ctxBase && n < c.constBase }
	order := pre.Graph().ReversePostorder()
	var tmp []int32
	var scratch []acPair
	var meets [2][]acPair
	var kept []acPair // the exit states, in an arena that only grows
	// calls counts the calls of the block so far; a context name set
	// before the last of them (ctxAt) reads as unknown, as if each call had
	// forgotten every context value.
	calls := int32(0)
	ctxAt := make([]int32, c.nv)
	get := func(v int32) int32 {
		if n := val[v]; n >= 0 && isCtx(n) && ctxAt[v] < calls && !c.ctxInvariant {
			return -1
		}
		return val[v]
	}
	setAt := func(v, n int32) {
		set(v, n)
		ctxAt[v] = calls
	}
	work := mir.NewPassWorklist(order, nb)
	for b, ok := work.Pop(); ok; b, ok = work.Pop() {
		blk := pre.Blocks[b]
		calls = 0
		var entry []acPair
		seen := 0
		for _, p := range blk.Preds {
			if !visited[p] {
				continue
			}
			if seen++; seen == 1 {
				entry = exit[p]
				continue
			}
			m := &meets[seen%2]
			*m = meetPairs((*m)[:0], entry, exit[p])
			entry = *m
		}
		if seen > 1 {
			entry = slices.Clone(entry) // it is in a buffer meets reuse
		}
		entries[b] = entry
		for _, e := range entry {
			if c.live.LiveIn(b, int(e.v)) {
				setAt(e.v, e.name)
			}
		}
		for _, in := range blk.Instrs {
			switch in.Op {
			case mir.OpCopy, mir.OpParCopy:
				tmp = tmp[:0]
				for _, u := range in.Uses {
					tmp = append(tmp, get(int32(u.Index())))
				}
				for k, d := range in.Defs {
					setAt(int32(d.Index()), tmp[k])
				}
				continue
			case mir.OpMOVQconst, mir.OpMOVSDconst:
				setAt(int32(in.Defs[0].Index()), c.constName(in.Op, in.Imm))
				continue
			case mir.OpCtxLoad:
				setAt(int32(in.Defs[0].Index()), c.ctxName(in.Aux, 0))
				continue
			}
			if in.Op.Info().Call {
				calls++
			}
			for _, d := range in.Defs {
				setAt(int32(d.Index()), -1)
			}
		}
		out := scratch[:0]
		for _, v := range touched {
			if n := get(v); n >= 0 && c.live.LiveOut(b, int(v)) {
				out = append(out, acPair{v, n})
			}
		}
		scratch = out
		for _, v := range touched {
			val[v], isTouched[v] = -1, false
		}
		touched = touched[:0]
		slices.SortFunc(out, func(a, b acPair) int { return int(a.v) - int(b.v) })
		if !visited[b] || !slices.Equal(out, exit[b]) {
			start := len(kept)
			kept = append(kept, out...)
			exit[b], visited[b] = kept[start:len(kept):len(kept)], true
			for _, succ := range blk.Succs {
				work.Mark(succ)
			}
		}
	}
	c.refine = make([][]acPair, nb)
	total := 0
	for _, entry := range entries {
		total += len(entry)
	}
	all := make([]acPair, 0, total)
	for b, entry := range entries {
		start := len(all)
		for _, e := range entry {
			if c.live.LiveIn(b, int(e.v)) {
				all = append(all, e)
			}
		}
		c.refine[b] = all[start:len(all):len(all)]
	}
}

// meetPairs appends to out the pairs two sorted lists agree on.
func meetPairs(out, a, b []acPair) []acPair {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].v < b[j].v:
			i++
		case a[i].v > b[j].v:
			j++
		default:
			if a[i].name == b[j].name {
				out = append(out, a[i])
			}
			i++
			j++
		}
	}
	return out
}

// findPair returns the name of v in a list sorted by vreg.
func findPair(list []acPair, v int32) (int32, bool) {
	i, ok := slices.BinarySearchFunc(list, v, func(p acPair, v int32) int { return int(p.v) - int(v) })
	if !ok {
		return 0, false
	}
	return list[i].name, true
}

// nameValues walks every input block in input order and records the name
// every use reads and every def writes, the names at each block's end,
// and what the order check needs.
func (c *acChecker) nameValues() {
	pre := c.pre
	n := c.preStart[len(pre.Blocks)]
	c.useOff = make([]int32, n+1)
	c.defOff = make([]int32, n+1)
	c.class = make([]uint8, n)
	c.callsBefore = make([]int32, n)
	c.barriersBefore = make([]int32, n)
	c.flagFrom = make([]int32, n)
	c.barrierList = make([][]int32, len(pre.Blocks))
	nu, nd := int32(0), int32(0)
	g := 0
	for _, blk := range pre.Blocks {
		for _, in := range blk.Instrs {
			c.useOff[g], c.defOff[g] = nu, nd
			nu += int32(len(in.Uses))
			nd += int32(len(in.Defs))
			g++
		}
	}
	c.useOff[n], c.defOff[n] = nu, nd
	c.useName = make([]int32, nu)
	c.defName = make([]int32, nd)
	c.endByV = make([][]acPair, len(pre.Blocks))
	cur := make([]int32, c.nv)
	for v := range cur {
		cur[v] = int32(v)
	}
	touched := make([]int32, 0, 64)
	nlive := 0
	for b := range pre.Blocks {
		nlive += len(c.live.Out(b))
	}
	ends := make([]acPair, 0, nlive)
	c.sites = make([]acSite, 0, c.ctxBase-c.siteBase)
	site := c.siteBase
	for b, blk := range pre.Blocks {
		for _, e := range c.refine[b] {
			cur[e.v] = e.name
			touched = append(touched, e.v)
		}
		calls, barriers, flags := int32(0), int32(0), int32(-1)
		for k, in := range blk.Instrs {
			g := c.preStart[b] + int32(k)
			info := in.Op.Info()
			uo, do := c.useOff[g], c.defOff[g]
			for j, u := range in.Uses {
				if u == mir.NoReg {
					c.useName[uo+int32(j)] = noIndexName
					continue
				}
				c.useName[uo+int32(j)] = cur[u.Index()]
			}
			c.callsBefore[g], c.barriersBefore[g], c.flagFrom[g] = calls, barriers, flags
			c.class[g] = effectClass(in)
			if c.class[g] == acBarrier {
				barriers++
				c.barrierList[b] = append(c.barrierList[b], int32(k))
			}
			if info.WritesFlags {
				flags = int32(k)
			}
			if info.Call {
				calls++
			}
			for j, d := range in.Defs {
				var name int32
				switch in.Op {
				case mir.OpCopy, mir.OpParCopy:
					name = c.useName[uo+int32(j)]
				case mir.OpMOVQconst, mir.OpMOVSDconst:
					name = c.constName(in.Op, in.Imm)
				case mir.OpCtxLoad:
					name = c.ctxName(in.Aux, calls)
				default:
					name = site
					c.sites = append(c.sites, acSite{int32(b), int32(k), int32(d.Index())})
					site++
				}
				c.defName[do+int32(j)] = name
				cur[d.Index()] = name
				touched = append(touched, int32(d.Index()))
			}
		}
		start := len(ends)
		for _, v := range c.live.Out(b) {
			ends = append(ends, acPair{v, cur[v]})
		}
		c.endByV[b] = ends[start:len(ends):len(ends)]
		for _, v := range touched {
			cur[v] = v
		}
		touched = touched[:0]
	}
}

// effectClass classifies an instruction for the order check.
func effectClass(in *mir.Instr) uint8 {
	info := in.Op.Info()
	switch {
	case info.Call || info.MayTrap || info.Terminator && info.SideEffects ||
		in.Op == mir.OpCount || in.Op == mir.OpCountAdd || in.Op == mir.OpPoll || in.Op == mir.OpTRAP || in.Op == mir.OpRET:
		return acBarrier
	case info.Guarded:
		return acGuarded
	case info.Loads && !info.Stores && !info.SideEffects:
		return acLoad
	case info.Stores && !info.Loads:
		return acStore
	case info.Loads || info.Stores || info.SideEffects:
		return acBarrier
	}
	return acNone
}

// memOperand returns the uses holding the base and index of an
// instruction's memory operand, or -1.
func memOperand(in *mir.Instr) (base, index int) {
	base, index = -1, -1
	info := in.Op.Info()
	if info.Variadic {
		return
	}
	for i, s := range info.Uses {
		switch s.Role {
		case mir.RoleMemBase:
			base = i
		case mir.RoleMemIndex:
			index = i
		}
	}
	return
}

// disjoint reports whether two memory accesses of one input block provably
// touch different bytes: the same base and index values, the same scale,
// non-overlapping displacement ranges.
func (c *acChecker) disjoint(ob int, k1, k2 int32) bool {
	a, b := c.pre.Blocks[ob].Instrs[k1], c.pre.Blocks[ob].Instrs[k2]
	ab, ai := memOperand(a)
	bb, bi := memOperand(b)
	if ab < 0 || ai < 0 || bb < 0 || bi < 0 || a.Scale != b.Scale {
		return false
	}
	ga, gb := c.preStart[ob]+k1, c.preStart[ob]+k2
	ua, ub := c.useOff[ga], c.useOff[gb]
	if c.useName[ua+int32(ab)] != c.useName[ub+int32(bb)] || c.useName[ua+int32(ai)] != c.useName[ub+int32(bi)] {
		return false
	}
	sa, sb := int64(a.Op.Info().MemSize), int64(b.Op.Info().MemSize)
	return a.Imm+sa <= b.Imm || b.Imm+sb <= a.Imm
}

// order checks, block by block, the order of effects, the flags every
// reader sees, and that no CtxLoad of the input crosses a call.
func (c *acChecker) order() error {
	var placed []int32
	for b, blk := range c.post.Blocks {
		ob := c.o.Block[b]
		if ob < 0 {
			continue
		}
		pb := c.pre.Blocks[ob]
		placed = placed[:0]
		barriers, lastBarrier, calls, lastFlag := int32(0), int32(-1), int32(0), int32(-1)
		for i, in := range blk.Instrs {
			info := in.Op.Info()
			k := c.o.Instr[b][i]
			if k < 0 || isCopyOp(pb.Instrs[k].Op) {
				if info.WritesFlags || info.ReadsFlags {
					return c.errf(b, i, "inserted instruction touches the flags")
				}
				continue
			}
			g := c.preStart[ob] + k
			if info.ReadsFlags && lastFlag != c.flagFrom[g] {
				writer := func(k int32) string {
					if k < 0 {
						return "no instruction of the block"
					}
					return c.inputAt(ob, k)
				}
				return c.errf(b, i, "from %s: reads the flags of %s; in the input it reads those of %s",
					c.inputAt(ob, k), writer(lastFlag), writer(c.flagFrom[g]))
			}
			if info.WritesFlags {
				lastFlag = k
			}
			switch c.class[g] {
			case acBarrier:
				if k < lastBarrier {
					return c.errf(b, i, "from %s: comes after %s, which follows it in the input", c.inputAt(ob, k), c.inputAt(ob, lastBarrier))
				}
				barriers++
				lastBarrier = k
				placed = placed[:0]
			case acLoad, acStore:
				if want := c.barriersBefore[g]; barriers < want {
					return c.errf(b, i, "from %s: moved above %s", c.inputAt(ob, k), c.inputAt(ob, c.barrierList[ob][want-1]))
				} else if barriers > want {
					return c.errf(b, i, "from %s: moved below %s", c.inputAt(ob, k), c.inputAt(ob, c.barrierList[ob][want]))
				}
				pos, _ := slices.BinarySearch(placed, k)
				for _, m := range placed[pos:] {
					gm := c.preStart[ob] + m
					if c.class[gm] == acLoad && c.class[g] == acLoad {
						continue
					}
					if !c.disjoint(ob, m, k) {
						return c.errf(b, i, "from %s: comes after %s, which follows it in the input and may access the same memory",
							c.inputAt(ob, k), c.inputAt(ob, m))
					}
				}
				placed = slices.Insert(placed, pos, k)
			case acGuarded:
				if want := c.barriersBefore[g]; barriers < want {
					return c.errf(b, i, "from %s: moved above %s", c.inputAt(ob, k), c.inputAt(ob, c.barrierList[ob][want-1]))
				}
			}
			if in.Op == mir.OpCtxLoad && calls != c.callsBefore[g] && !c.ctxInvariant {
				return c.errf(b, i, "from %s: follows %d calls of the block; in the input it follows %d", c.inputAt(ob, k), calls, c.callsBefore[g])
			}
			if info.Call {
				calls++
			}
		}
	}
	return nil
}

// acState is the symbolic state inside one allocated block (the set of
// names every location holds), with buffers reused from block to block.
type acState struct {
	sets    [][]int32
	in      []bool
	touched []int32
	arena   []int32
	// refName maps a virtual register to its refined entry name in the
	// block being simulated (-1: none); head and next list, for each name,
	// the live-out virtual registers whose end name it is (-1 ends a list).
	refName    []int32
	head, next []int32
	// The two entry states meets alternate between, and the exit state
	// being built.
	meet [2]acBuf
	exit acBuf
}

// acBuf holds a state at a block boundary in reusable storage: the
// locations, and the spans of their virtual registers in vregs.
type acBuf struct {
	sets  []acLocSet
	spans [][2]int32
	vregs []int32
}

func (x *acBuf) reset() {
	x.sets, x.spans, x.vregs = x.sets[:0], x.spans[:0], x.vregs[:0]
}

// add starts a location whose virtual registers are appended to vregs
// next; end closes it, dropping it if it got none.
func (x *acBuf) add(l int32) {
	x.sets = append(x.sets, acLocSet{loc: l})
	x.spans = append(x.spans, [2]int32{int32(len(x.vregs)), 0})
}

func (x *acBuf) end() {
	n := len(x.spans) - 1
	if int(x.spans[n][0]) == len(x.vregs) {
		x.sets, x.spans = x.sets[:n], x.spans[:n]
		return
	}
	x.spans[n][1] = int32(len(x.vregs))
}

// state points the locations at their virtual registers and returns them.
func (x *acBuf) state() []acLocSet {
	for i, sp := range x.spans {
		x.sets[i].vregs = x.vregs[sp[0]:sp[1]:sp[1]]
	}
	return x.sets
}

// keep copies the state to the end of the arena held in keepSets and
// keepVregs, where it stays unchanged, and returns the copy.
func (x *acBuf) keep(keepSets *[]acLocSet, keepVregs *[]int32) []acLocSet {
	if len(x.sets) == 0 {
		return nil
	}
	v0 := len(*keepVregs)
	*keepVregs = append(*keepVregs, x.vregs...)
	vregs := (*keepVregs)[v0:]
	s0 := len(*keepSets)
	*keepSets = append(*keepSets, x.sets...)
	sets := (*keepSets)[s0:len(*keepSets):len(*keepSets)]
	for i, sp := range x.spans {
		sets[i].vregs = vregs[sp[0]:sp[1]:sp[1]]
	}
	return sets
}

// fits reports whether the state fits in the storage of an earlier one.
func (x *acBuf) fits(sets []acLocSet, vregs []int32) bool {
	return len(x.sets) <= cap(sets) && len(x.vregs) <= cap(vregs)
}

// copyInto copies the state into the storage of an earlier one (fits has
// said it fits) and returns it.
func (x *acBuf) copyInto(sets []acLocSet, vregs []int32) []acLocSet {
	sets, vregs = sets[:len(x.sets)], vregs[:len(x.vregs)]
	copy(vregs, x.vregs)
	for i, sp := range x.spans {
		sets[i] = acLocSet{x.sets[i].loc, vregs[sp[0]:sp[1]:sp[1]]}
	}
	return sets
}

func (s *acState) set(l int32, names []int32) {
	if !s.in[l] {
		s.in[l] = true
		s.touched = append(s.touched, l)
	}
	s.sets[l] = names
}

// single returns the set {n}.
func (s *acState) single(n int32) []int32 {
	s.arena = append(s.arena, n)
	end := len(s.arena)
	return s.arena[end-1 : end : end]
}

// flow runs the symbolic dataflow to a fixed point, checking every use.
func (c *acChecker) flow() error {
	post := c.post
	nb := len(post.Blocks)
	s := &acState{sets: make([][]int32, c.nloc), in: make([]bool, c.nloc), touched: make([]int32, 0, 64), arena: make([]int32, 0, 256),
		refName: make([]int32, c.nv), head: make([]int32, int(c.constBase)+len(c.constList))}
	for i := range s.refName {
		s.refName[i] = -1
	}
	for i := range s.head {
		s.head[i] = -1
	}
	for _, x := range []*acBuf{&s.meet[0], &s.meet[1], &s.exit} {
		x.sets = make([]acLocSet, 0, 64)
		x.spans = make([][2]int32, 0, 64)
		x.vregs = make([]int32, 0, 128)
	}
	exits := make([][]acLocSet, nb)
	exitVregs := make([][]int32, nb) // the storage of each exit state's vregs
	visited := make([]bool, nb)
	// The exit states live in two arenas that only grow.
	nlive := 0
	for b := range c.pre.Blocks {
		nlive += len(c.live.Out(b))
	}
	keepSets := make([]acLocSet, 0, nlive+nb)
	keepVregs := make([]int32, 0, 2*nlive+nb)
	order := post.Graph().ReversePostorder()
	work := mir.NewPassWorklist(order, nb)
	for b, ok := work.Pop(); ok; b, ok = work.Pop() {
		var entry []acLocSet
		first, which := true, 0
		for _, p := range post.Blocks[b].Preds {
			if !visited[p] {
				continue
			}
			if first {
				entry, first = exits[p], false
				continue
			}
			entry = meetStates(&s.meet[which], entry, exits[p])
			which ^= 1
		}
		exit, err := c.run(b, entry, s)
		if err != nil {
			return err
		}
		if !visited[b] || !equalStates(exit, exits[b]) {
			if visited[b] && s.exit.fits(exits[b], exitVregs[b]) {
				// States only shrink: reuse the old one's storage.
				exits[b] = s.exit.copyInto(exits[b], exitVregs[b])
			} else {
				v0 := len(keepVregs)
				exits[b] = s.exit.keep(&keepSets, &keepVregs)
				exitVregs[b] = keepVregs[v0:len(keepVregs):len(keepVregs)]
			}
			visited[b] = true
			for _, succ := range post.Blocks[b].Succs {
				work.Mark(succ)
			}
		}
	}
	return nil
}

// meetStates stores in x the locations and virtual registers two exit
// states agree on, and returns them.
func meetStates(x *acBuf, a, b []acLocSet) []acLocSet {
	x.reset()
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].loc < b[j].loc:
			i++
		case a[i].loc > b[j].loc:
			j++
		default:
			x.add(a[i].loc)
			p, q := a[i].vregs, b[j].vregs
			for len(p) > 0 && len(q) > 0 {
				switch {
				case p[0] < q[0]:
					p = p[1:]
				case p[0] > q[0]:
					q = q[1:]
				default:
					x.vregs = append(x.vregs, p[0])
					p, q = p[1:], q[1:]
				}
			}
			x.end()
			i++
			j++
		}
	}
	return x.state()
}

func equalStates(a, b []acLocSet) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].loc != b[i].loc || !slices.Equal(a[i].vregs, b[i].vregs) {
			return false
		}
	}
	return true
}

// callerSavedLocs lists the locations of the caller-saved registers.
var callerSavedLocs = func() []int32 {
	var out []int32
	for _, r := range mir.CallerSaved.Regs() {
		out = append(out, int32(r))
	}
	return out
}()

// run simulates allocated block b from the entry state and returns its
// exit state (in s.exit, valid until the next run), checking every use of
// every input instruction.
func (c *acChecker) run(b int, entry []acLocSet, s *acState) ([]acLocSet, error) {
	blk := c.post.Blocks[b]
	ob, q := c.o.Block[b], c.nbPre[b]
	s.arena = s.arena[:0]
	for _, l := range s.touched {
		s.sets[l], s.in[l] = nil, false
	}
	s.touched = s.touched[:0]
	if ob >= 0 {
		for _, e := range c.refine[ob] {
			s.refName[e.v] = e.name
		}
	}
	for _, ls := range entry {
		start := len(s.arena)
		for _, v := range ls.vregs {
			var n int32
			if ob >= 0 {
				if !c.live.LiveIn(ob, int(v)) {
					continue
				}
				if n = s.refName[v]; n < 0 {
					n = v
				}
			} else {
				var ok bool
				if n, ok = findPair(c.endByV[q], v); !ok {
					continue
				}
			}
			if !slices.Contains(s.arena[start:], n) {
				s.arena = append(s.arena, n)
			}
		}
		if end := len(s.arena); end > start {
			s.set(ls.loc, s.arena[start:end:end])
		}
	}
	if ob >= 0 {
		for _, e := range c.refine[ob] {
			s.refName[e.v] = -1
		}
	}
	if b == 0 {
		// The arguments are in their locations on entry; Arg does nothing.
		for i, in := range blk.Instrs {
			if in.Op == mir.OpArg {
				g := c.preStart[0] + c.o.Instr[0][i]
				s.set(c.loc(in.Defs[0]), s.single(c.defName[c.defOff[g]]))
			}
		}
	}
	calls := int32(0)
	scratch := [2]int32{int32(mir.ScratchGPR), int32(mir.ScratchXMM)}
	for i, in := range blk.Instrs {
		k := int32(-1)
		if ob >= 0 {
			k = c.o.Instr[b][i]
		}
		switch {
		case k >= 0 && !isCopyOp(c.pre.Blocks[ob].Instrs[k].Op):
			g := c.preStart[ob] + k
			uo := c.useOff[g]
			for j, u := range in.Uses {
				want := c.useName[uo+int32(j)]
				if (want == noIndexName) != (u == mir.NoReg) {
					return nil, c.errf(b, i, "from input b%d[%d]: use %d is %s, but the input's is %s",
						ob, k, j, u, c.pre.Blocks[ob].Instrs[k].Uses[j])
				}
				if want == noIndexName {
					continue
				}
				if l := c.loc(u); !slices.Contains(s.sets[l], want) {
					return nil, c.errf(b, i, "from input b%d[%d]: use %d (%s) must hold %s, but it holds %s",
						ob, k, j, u, c.describe(want, c.pre.Blocks[ob].Instrs[k].Uses[j], ob), c.describeSet(s.sets[l], ob))
				}
			}
			if in.Op.Info().Call {
				calls++
				for _, l := range callerSavedLocs {
					s.set(l, nil)
				}
				for _, l := range c.outArgLocs {
					s.set(l, nil)
				}
			}
			for x := uint32(in.Clobbers()); x != 0; x &= x - 1 {
				s.set(int32(bits.TrailingZeros32(x)), nil)
			}
			if in.Op == mir.OpArg {
				continue
			}
			s.set(scratch[0], nil)
			s.set(scratch[1], nil)
			do := c.defOff[g]
			for j, d := range in.Defs {
				s.set(c.loc(d), s.single(c.defName[do+int32(j)]))
			}
		case in.Op == mir.OpXchg:
			l0, l1 := c.loc(in.Uses[0]), c.loc(in.Uses[1])
			a, z := s.sets[l0], s.sets[l1]
			s.set(l0, z)
			s.set(l1, a)
		case isMoveOp(in.Op):
			s.set(c.loc(in.Defs[0]), s.sets[c.loc(in.Uses[0])])
		case IsRematOp(in.Op):
			var n int32
			if in.Op == mir.OpCtxLoad {
				epoch := calls
				if ob < 0 {
					epoch = c.ncalls[q]
				}
				n = c.ctxName(in.Aux, epoch)
			} else {
				n = c.constName(in.Op, in.Imm)
			}
			s.set(scratch[0], nil)
			s.set(scratch[1], nil)
			s.set(c.loc(in.Defs[0]), s.single(n))
		}
	}
	// Translate the names into the live-out virtual registers of the
	// naming block.
	slices.Sort(s.touched)
	ends := c.endByV[q]
	if len(s.next) < len(ends) {
		s.next = make([]int32, len(ends))
	}
	for i := len(ends) - 1; i >= 0; i-- {
		if n := ends[i].name; int(n) < len(s.head) {
			s.next[i], s.head[n] = s.head[n], int32(i)
		}
	}
	x := &s.exit
	x.reset()
	for _, l := range s.touched {
		names := s.sets[l]
		if len(names) == 0 {
			continue
		}
		x.add(l)
		start := len(x.vregs)
		for _, n := range names {
			if int(n) >= len(s.head) {
				continue // a constant the input never names
			}
			for i := s.head[n]; i >= 0; i = s.next[i] {
				x.vregs = append(x.vregs, ends[i].v)
			}
		}
		if vs := x.vregs[start:]; len(vs) > 1 {
			slices.Sort(vs)
			x.vregs = x.vregs[:start+len(slices.Compact(vs))]
		}
		x.end()
	}
	for _, e := range ends {
		if int(e.name) < len(s.head) {
			s.head[e.name] = -1
		}
	}
	return x.state(), nil
}

// describe says in words what name n, expected for operand r of the input,
// stands for.
func (c *acChecker) describe(n int32, r mir.Reg, ob int) string {
	d := c.describeName(n, ob)
	if r.IsVirtual() && !strings.HasPrefix(d, r.String()+" ") {
		return r.String() + " = " + d
	}
	return d
}

// describeName says in words what name n stands for in input block ob.
func (c *acChecker) describeName(n int32, ob int) string {
	switch {
	case n < 0:
		return "nothing"
	case n < c.siteBase:
		return fmt.Sprintf("v%d as it enters input b%d", n, ob)
	case n < c.ctxBase:
		s := c.sites[n-c.siteBase]
		return fmt.Sprintf("v%d defined at %s", s.vreg, c.inputAt(int(s.block), s.instr))
	case n < c.constBase:
		x := n - c.ctxBase
		if c.ctxInvariant {
			return fmt.Sprintf("context field %d", x%c.numCtx)
		}
		return fmt.Sprintf("context field %d loaded after %d calls of input b%d", x%c.numCtx, x/c.numCtx, ob)
	case int(n-c.constBase) < len(c.constList):
		k := c.constList[n-c.constBase]
		return fmt.Sprintf("the constant %s $%d", k.op, k.imm)
	}
	return fmt.Sprintf("name %d", n)
}

// describeSet lists a few names of a location's set.
func (c *acChecker) describeSet(set []int32, ob int) string {
	if len(set) == 0 {
		return "no value of the input"
	}
	var parts []string
	for i, n := range set {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(set)-3))
			break
		}
		parts = append(parts, c.describeName(n, ob))
	}
	return strings.Join(parts, "; ")
}
