package mir

import (
	"fmt"
	"slices"

	"github.com/kiln-jit/kiln/bytecode"
)

// irFunc is a function pre-resolved for the interpreter: its blocks
// flattened into one instruction array whose operands are cell indices of
// the frame window, with φs turned into move lists on the edges that enter
// their block. Anything malformed becomes an irOpFault instruction that
// reports a Fault only if it is executed.
type irFunc struct {
	src   *Func
	name  string
	index int
	form  Form
	code  []irInst
	execs []uint64 // per code index: executions (Machine.CountExecutions)
	loc   []irLoc  // per code index: where the instruction came from
	edges []irEdge
	moves []irMove
	calls []irCall
	msgs  []string // messages of irOpFault instructions
	entry int32

	// Window layout: cell 0 always holds a defined zero (the value of an
	// absent memory index); then the physical registers, the virtual
	// registers, the stack slots, the outgoing and incoming
	// stack-argument areas and the call's arguments.
	nCells                    int
	vOff, sOff, outOff, inOff int
	argOff                    int
	nv, ns, nOut, nIn         int
	// argLocs holds, in allocated and pinned non-SSA form, the cell of
	// each parameter's calling-convention location.
	argLocs []uint32
	// pins is the source's Pins in pinned non-SSA form (nil otherwise): a
	// pinned virtual register's cell is its physical register's.
	pins []Reg
}

// irInst is a pre-resolved instruction. Operand fields are cell indices.
// Memory operands keep their base in u1 and index in u2 (the value operand
// of a store or a load-op in u0). ParCopy keeps its moves in
// moves[aux:imm] (sequential when scale is 1); terminators keep their
// first edge in aux (JMPTABLE its edge count in imm); calls and RET their
// operand lists in calls[aux].
type irInst struct {
	op         Op
	cond       Cond
	scale      uint8
	d0, d1, d2 uint32
	u0, u1, u2 uint32
	aux        int32
	imm        int64
}

// irOpFault is the internal op of an instruction that faults with message
// msgs[aux].
const irOpFault = Op(numOps)

// irOpClobber is the internal op that follows an instruction whose
// Clobbers set is not empty (calls excepted, which clobber as they
// return): it makes the physical registers of RegSet(imm) undefined.
const irOpClobber = Op(numOps + 1)

// irLoc locates an instruction of the code array in the source function.
type irLoc struct {
	in       *Instr // nil for synthesised instructions
	op       Op
	blk, idx int32
	pos      int32
}

// irEdge is a resolved control-flow edge: the code index of the target
// block's first non-φ instruction and the target's φ moves for this edge.
type irEdge struct {
	target int32
	ms, me int32 // moves[ms:me]
	seq    bool  // the moves may run one after the other
}

// irMove copies cell src to cell dst.
type irMove struct{ dst, src uint32 }

// irCall holds the operand cells of a call (args from Uses, results from
// Defs) or of a RET (args); target is the callee, host import or runtime
// function; fn caches the resolved callee.
type irCall struct {
	target  int32
	args    []uint32
	results []uint32
	fn      *irFunc
	// CALLIND: the cell of the callee's index and the classes of the
	// arguments and results the callee must have (ClassNone: a stack
	// slot, any class); in allocated code, also the locations of the
	// arguments and results, which must be the callee's.
	index                 uint32
	argClass, resultClass []Class
	argLocs, resultLocs   []Reg
	checked               int32 // 1 + the callee last found to fit, 0 none
}

// irMaxArgSlots bounds the stack-argument slot numbers the interpreter
// accepts.
const irMaxArgSlots = 1 << 12

// irPhysOff is the cell of physical register 0.
const irPhysOff = 1

// irCallerSavedCells lists the cells of the registers a call clobbers.
var irCallerSavedCells = func() []uint32 {
	var out []uint32
	for _, r := range CallerSaved.Regs() {
		out = append(out, irPhysOff+uint32(r))
	}
	return out
}()

// cellOf returns the window cell of operand r, or a message saying why r
// is not a valid operand. memRole allows NoReg (an absent base or index).
func (f *irFunc) cellOf(r Reg, memRole bool) (uint32, bool) {
	c, msg := f.cell(r, memRole)
	return c, msg == ""
}

func (f *irFunc) cell(r Reg, memRole bool) (uint32, string) {
	switch {
	case r == NoReg:
		if memRole {
			return 0, ""
		}
		return 0, "operand is noreg"
	case r.IsPhys():
		if r == RSP || r == CtxReg {
			return 0, fmt.Sprintf("%s is reserved and cannot hold a value", r)
		}
		return irPhysOff + uint32(r), ""
	case r.IsVirtual():
		if f.form == FormAllocated {
			return 0, fmt.Sprintf("virtual register %s in allocated form", r)
		}
		if r.Index() >= f.nv {
			return 0, fmt.Sprintf("%s is not declared (the function has %d virtual registers)", r, f.nv)
		}
		if f.pins != nil {
			switch p := f.pins[r.Index()]; {
			case p == NoReg:
			case !p.IsPhys():
				return 0, fmt.Sprintf("%s is pinned to %s, which is not a physical register", r, p)
			case !Allocatable.Has(p):
				return 0, fmt.Sprintf("%s is pinned to %s, which is reserved", r, p)
			default:
				return irPhysOff + uint32(p), ""
			}
		}
		return uint32(f.vOff + r.Index()), ""
	case r.IsSlot():
		if r.Index() >= f.ns {
			return 0, fmt.Sprintf("%s is not declared (the function has %d stack slots)", r, f.ns)
		}
		return uint32(f.sOff + r.Index()), ""
	case r.IsInArg():
		if r.Index() >= f.nIn {
			return 0, fmt.Sprintf("stack-argument slot %s out of range", r)
		}
		return uint32(f.inOff + r.Index()), ""
	case r.IsArgSlot():
		if r.Index() >= f.nOut {
			return 0, fmt.Sprintf("stack-argument slot %s out of range", r)
		}
		return uint32(f.outOff + r.Index()), ""
	}
	return 0, fmt.Sprintf("%s is not a register", r)
}

// regName names operand r in fault messages: "v3 in rax" for a pinned
// virtual register.
func (f *irFunc) regName(r Reg) string {
	if f.pins != nil && r.IsVirtual() && r.Index() < len(f.pins) && f.pins[r.Index()] != NoReg {
		return r.String() + " in " + f.pins[r.Index()].String()
	}
	return r.String()
}

// irResolver builds an irFunc.
type irResolver struct {
	m *Machine
	f *Func
	r *irFunc
}

// resolve pre-resolves f. It never fails: malformed parts become fault
// instructions.
func (m *Machine) resolve(f *Func) *irFunc {
	r := &irFunc{src: f, name: f.Name, index: f.Index, form: f.Form}
	x := &irResolver{m: m, f: f, r: r}

	// Layout.
	note := func(reg Reg) {
		if !reg.IsArgSlot() || reg.Index() >= irMaxArgSlots {
			return
		}
		if reg.IsInArg() {
			r.nIn = max(r.nIn, reg.Index()+1)
		} else {
			r.nOut = max(r.nOut, reg.Index()+1)
		}
	}
	for _, b := range f.Blocks {
		if b == nil {
			continue
		}
		for _, in := range b.Instrs {
			if in == nil {
				continue
			}
			for _, d := range in.Defs {
				note(d)
			}
			for _, u := range in.Uses {
				note(u)
			}
		}
	}
	for _, l := range ArgLocations(f.Params, true) {
		note(l)
	}
	for _, l := range ResultLocations(f.Params, f.Results, true) {
		note(l)
	}
	r.nv, r.ns = len(f.VRegs), len(f.Slots)
	r.vOff = irPhysOff + NumPhysRegs
	r.sOff = r.vOff + r.nv
	r.outOff = r.sOff + r.ns
	r.inOff = r.outOff + r.nOut
	r.argOff = r.inOff + r.nIn
	r.nCells = r.argOff + len(f.Params)
	pinned := f.Form == FormNonSSA && f.Pins != nil
	if pinned && len(f.Pins) == r.nv {
		r.pins = f.Pins
	}
	if f.Form == FormAllocated || r.pins != nil {
		for k, l := range ArgLocations(f.Params, true) {
			c, msg := r.cell(l, false)
			if msg != "" {
				// Beyond irMaxArgSlots: Arg instructions fault anyway.
				c = uint32(r.argOff + k)
			}
			r.argLocs = append(r.argLocs, c)
		}
	}

	if len(f.Blocks) == 0 {
		r.entry = x.emitFault(irLoc{blk: -1, idx: -1, pos: -1}, "function has no blocks")
		return r
	}
	if pinned && r.pins == nil {
		r.entry = x.emitFault(irLoc{blk: -1, idx: -1, pos: -1},
			fmt.Sprintf("%d pins for %d virtual registers", len(f.Pins), r.nv))
		return r
	}

	// Code.
	edgeBase := make([]int, len(f.Blocks)+1)
	for i, b := range f.Blocks {
		edgeBase[i+1] = edgeBase[i]
		if b != nil {
			edgeBase[i+1] += len(b.Succs)
		}
	}
	blockStart := make([]int32, len(f.Blocks))
	for bi, b := range f.Blocks {
		blockStart[bi] = int32(len(r.code))
		if b == nil {
			x.emitFault(irLoc{blk: int32(bi), idx: -1, pos: -1}, "nil block")
			continue
		}
		if len(b.Instrs) == 0 {
			x.emitFault(irLoc{blk: int32(bi), idx: -1, pos: -1}, "empty block")
			continue
		}
		first := irNumPhis(b)
		blockStart[bi] = int32(len(r.code))
		for j := first; j < len(b.Instrs); j++ {
			in := b.Instrs[j]
			l := irLoc{in: in, blk: int32(bi), idx: int32(j), pos: -1}
			if in != nil {
				l.op, l.pos = in.Op, in.Pos
			}
			out, msg := x.instr(b, edgeBase[bi], in)
			if msg != "" {
				x.emitFault(l, msg)
				continue
			}
			r.code = append(r.code, out)
			r.loc = append(r.loc, l)
			if set := x.clobbered(in); set != 0 {
				r.code = append(r.code, irInst{op: irOpClobber, imm: int64(set)})
				r.loc = append(r.loc, l)
			}
		}
		if last := b.Instrs[len(b.Instrs)-1]; last == nil || !last.Op.Info().Terminator {
			x.emitFault(irLoc{blk: int32(bi), idx: int32(len(b.Instrs)), pos: -1}, "control falls off the end of the block")
		}
	}

	// Edges.
	r.edges = make([]irEdge, edgeBase[len(f.Blocks)])
	for bi, b := range f.Blocks {
		if b == nil {
			continue
		}
		for k := range b.Succs {
			r.edges[edgeBase[bi]+k] = x.edge(bi, k, blockStart)
		}
	}

	// Entry.
	if irNumPhis(f.Blocks[0]) > 0 {
		in := f.Blocks[0].Instrs[0]
		r.entry = x.emitFault(irLoc{in: in, op: in.Op, blk: 0, idx: 0, pos: in.Pos}, "φ in the entry block")
	} else {
		r.entry = blockStart[0]
	}
	return r
}

// clobbered returns the physical registers the resolved instruction in
// leaves undefined after it runs, in the forms where physical registers
// hold values (allocated and pinned non-SSA): its Clobbers set without the
// registers it defines. Calls clobber as they return; terminators have no
// "after".
func (x *irResolver) clobbered(in *Instr) RegSet {
	r := x.r
	info := in.Op.Info()
	set := in.Clobbers()
	if set == 0 || info.Call || info.Terminator || (r.form != FormAllocated && r.pins == nil) {
		return 0
	}
	for _, d := range in.Defs {
		if d.IsVirtual() && r.pins != nil && d.Index() < len(r.pins) {
			d = r.pins[d.Index()]
		}
		if d.IsPhys() {
			set = set.Remove(d)
		}
	}
	return set
}

// irNumPhis returns the number of leading φs of b.
func irNumPhis(b *Block) int {
	if b == nil {
		return 0
	}
	n := 0
	for n < len(b.Instrs) && b.Instrs[n] != nil && b.Instrs[n].Op == OpPhi {
		n++
	}
	return n
}

// emitFault appends a fault instruction and returns its code index.
func (x *irResolver) emitFault(l irLoc, msg string) int32 {
	r := x.r
	r.msgs = append(r.msgs, msg)
	r.code = append(r.code, irInst{op: irOpFault, aux: int32(len(r.msgs) - 1)})
	r.loc = append(r.loc, l)
	return int32(len(r.code) - 1)
}

// edge resolves successor edge k of block bi.
func (x *irResolver) edge(bi, k int, blockStart []int32) irEdge {
	f, r := x.f, x.r
	b := f.Blocks[bi]
	l := irLoc{blk: int32(bi), idx: -1, pos: -1}
	if n := len(b.Instrs); n > 0 {
		l.idx = int32(n - 1)
		if term := b.Instrs[n-1]; term != nil {
			l.in, l.op, l.pos = term, term.Op, term.Pos
		}
	}
	fail := func(format string, args ...any) irEdge {
		return irEdge{target: x.emitFault(l, fmt.Sprintf(format, args...))}
	}
	s := b.Succs[k]
	if s < 0 || s >= len(f.Blocks) {
		return fail("successor b%d does not exist", s)
	}
	sb := f.Blocks[s]
	nphi := irNumPhis(sb)
	e := irEdge{target: blockStart[s], ms: int32(len(r.moves))}
	if nphi == 0 {
		e.me, e.seq = e.ms, true
		return e
	}
	// The edge is the j-th parallel edge from bi to s.
	j := 0
	for _, t := range b.Succs[:k] {
		if t == s {
			j++
		}
	}
	pred := -1
	for p, pb := range sb.Preds {
		if pb == bi {
			if j == 0 {
				pred = p
				break
			}
			j--
		}
	}
	if pred < 0 {
		return fail("edge %d to b%d has no matching predecessor entry in b%d", k, s, s)
	}
	for i, phi := range sb.Instrs[:nphi] {
		if len(phi.Defs) != 1 || len(phi.Uses) != len(sb.Preds) {
			r.moves = r.moves[:e.ms]
			return fail("φ b%d[%d] has %d defs and %d operands for %d predecessors", s, i, len(phi.Defs), len(phi.Uses), len(sb.Preds))
		}
		d, msg := r.cell(phi.Defs[0], false)
		if msg == "" {
			var src uint32
			src, msg = r.cell(phi.Uses[pred], false)
			r.moves = append(r.moves, irMove{dst: d, src: src})
		}
		if msg != "" {
			r.moves = r.moves[:e.ms]
			return fail("φ b%d[%d]: %s", s, i, msg)
		}
	}
	e.me = int32(len(r.moves))
	e.seq = irSequential(r.moves[e.ms:e.me])
	return e
}

// irSequential reports whether a parallel move list gives the same result
// when run in order: no move reads a cell an earlier move wrote.
func irSequential(mv []irMove) bool {
	if len(mv) > 64 {
		return false
	}
	for i := range mv {
		for j := i + 1; j < len(mv); j++ {
			if mv[i].dst == mv[j].src {
				return false
			}
		}
	}
	return true
}

// instr resolves one non-φ instruction of b (whose first edge is
// edgeBase), returning a message instead when it is malformed.
func (x *irResolver) instr(b *Block, edgeBase int, in *Instr) (irInst, string) {
	f, r := x.f, x.r
	if in == nil {
		return irInst{}, "nil instruction"
	}
	op := in.Op
	if op == OpInvalid || int(op) >= NumOps {
		return irInst{}, fmt.Sprintf("invalid op %d", uint16(op))
	}
	info := op.Info()
	out := irInst{op: op, imm: in.Imm, aux: in.Aux}
	cells := func(regs []Reg, what string) ([]uint32, string) {
		cs := make([]uint32, len(regs))
		for i, reg := range regs {
			c, msg := r.cell(reg, false)
			if msg != "" {
				return nil, fmt.Sprintf("%s %d: %s", what, i, msg)
			}
			cs[i] = c
		}
		return cs, ""
	}
	match := func(regs, want []Reg, what string) string {
		for i, reg := range regs {
			if reg != want[i] {
				return fmt.Sprintf("%s %d is %s; the calling convention puts it in %s", what, i, reg, want[i])
			}
		}
		return ""
	}
	allocated := f.Form == FormAllocated

	switch op {
	case OpPhi:
		return out, "φ after a non-φ instruction"

	case OpParCopy:
		if len(in.Defs) != len(in.Uses) {
			return out, fmt.Sprintf("parallel copy with %d destinations and %d sources", len(in.Defs), len(in.Uses))
		}
		ds, msg := cells(in.Defs, "def")
		if msg != "" {
			return out, msg
		}
		us, msg := cells(in.Uses, "use")
		if msg != "" {
			return out, msg
		}
		start := len(r.moves)
		for i := range ds {
			r.moves = append(r.moves, irMove{dst: ds[i], src: us[i]})
		}
		out.aux, out.imm = int32(start), int64(len(r.moves))
		if irSequential(r.moves[start:]) {
			out.scale = 1
		}
		return out, ""

	case OpArg:
		if len(in.Defs) != 1 || len(in.Uses) != 0 {
			return out, fmt.Sprintf("Arg with %d defs and %d uses", len(in.Defs), len(in.Uses))
		}
		if in.Aux < 0 || int(in.Aux) >= len(f.Params) {
			return out, fmt.Sprintf("argument %d out of range (the function has %d parameters)", in.Aux, len(f.Params))
		}
		d, msg := r.cell(in.Defs[0], false)
		if msg != "" {
			return out, "def 0: " + msg
		}
		out.op, out.d0, out.u0, out.aux = OpCopy, d, uint32(r.argOff+int(in.Aux)), 0
		if allocated {
			// The argument is already in its location: Arg emits no code.
			if want := ArgLocations(f.Params, true)[in.Aux]; in.Defs[0] != want {
				return out, fmt.Sprintf("argument %d is in %s, not in %s", in.Aux, in.Defs[0], want)
			}
			out.u0 = d
		}
		return out, ""

	case OpRET:
		if len(in.Defs) != 0 || len(in.Uses) != len(f.Results) {
			return out, fmt.Sprintf("returns %d values; the function has %d results", len(in.Uses), len(f.Results))
		}
		us, msg := cells(in.Uses, "use")
		if msg != "" {
			return out, msg
		}
		if allocated {
			if msg := match(in.Uses, ResultLocations(f.Params, f.Results, true), "result"); msg != "" {
				return out, msg
			}
		}
		r.calls = append(r.calls, irCall{args: us})
		out.aux = int32(len(r.calls) - 1)
		return out, ""

	case OpCALL, OpCALLHOST, OpCALLRT, OpCALLIND:
		var call irCall
		switch op {
		case OpCALLIND:
			if len(in.Uses) == 0 {
				return out, "no callee index"
			}
			n := len(in.Uses) - 1
			call.argClass = make([]Class, n)
			for i, u := range in.Uses[:n] {
				call.argClass[i] = f.RegClass(u)
			}
			call.resultClass = make([]Class, len(in.Defs))
			for i, d := range in.Defs {
				call.resultClass[i] = f.RegClass(d)
			}
			if f.RegClass(in.Uses[n]) != GPR {
				return out, "the callee index is not a GPR"
			}
			if allocated {
				call.argLocs, call.resultLocs = slices.Clone(in.Uses[:n]), slices.Clone(in.Defs)
			}
		case OpCALL:
			if in.Aux < 0 || int(in.Aux) >= len(x.m.funcs) {
				return out, fmt.Sprintf("callee %d out of range", in.Aux)
			}
			callee := x.m.funcs[in.Aux]
			if len(in.Uses) != len(callee.Params) || len(in.Defs) != len(callee.Results) {
				return out, fmt.Sprintf("%d arguments and %d results for %s, which takes %d and returns %d",
					len(in.Uses), len(in.Defs), callee.Name, len(callee.Params), len(callee.Results))
			}
			if allocated {
				if msg := match(in.Uses, ArgLocations(callee.Params, false), "argument"); msg != "" {
					return out, msg
				}
				if msg := match(in.Defs, ResultLocations(callee.Params, callee.Results, false), "result"); msg != "" {
					return out, msg
				}
			}
		case OpCALLHOST:
			if in.Aux < 0 || int(in.Aux) >= len(x.m.hosts) {
				return out, fmt.Sprintf("host import %d out of range (%d host functions)", in.Aux, len(x.m.hosts))
			}
		case OpCALLRT:
			if na, nr, ok := RuntimeArity(in.Aux); !ok || len(in.Uses) != na || len(in.Defs) != nr {
				return out, fmt.Sprintf("runtime call %d with %d arguments and %d results", in.Aux, len(in.Uses), len(in.Defs))
			}
		}
		if allocated && op != OpCALL { // (CALL's locations depend on the callee: checked above)
			for i, u := range in.Uses {
				if s := f.UseSpec(in, i); s.Fixed != NoReg && u != s.Fixed {
					return out, fmt.Sprintf("argument %d is %s; the calling convention puts it in %s", i, u, s.Fixed)
				}
			}
			for i, d := range in.Defs {
				if s := f.DefSpec(in, i); s.Fixed != NoReg && d != s.Fixed {
					return out, fmt.Sprintf("result %d is %s; the calling convention puts it in %s", i, d, s.Fixed)
				}
			}
		}
		us, msg := cells(in.Uses, "use")
		if msg != "" {
			return out, msg
		}
		ds, msg := cells(in.Defs, "def")
		if msg != "" {
			return out, msg
		}
		for i, d := range in.Defs {
			for _, e := range in.Defs[:i] {
				if d == e {
					return out, fmt.Sprintf("%s receives two results", d)
				}
			}
		}
		call.target, call.args, call.results = in.Aux, us, ds
		if op == OpCALLIND {
			call.args, call.index = us[:len(us)-1], us[len(us)-1]
		}
		r.calls = append(r.calls, call)
		out.aux = int32(len(r.calls) - 1)
		return out, ""
	}

	// Fixed-arity ops.
	if len(in.Defs) != len(info.Defs) || len(in.Uses) != len(info.Uses) {
		return out, fmt.Sprintf("%d defs and %d uses, want %d and %d", len(in.Defs), len(in.Uses), len(info.Defs), len(info.Uses))
	}
	for i, d := range in.Defs {
		c, msg := r.cell(d, false)
		if msg != "" {
			return out, fmt.Sprintf("def %d: %s", i, msg)
		}
		switch i {
		case 0:
			out.d0 = c
		case 1:
			out.d1 = c
		default:
			out.d2 = c
		}
	}
	next := 0
	hasIndex := false
	for i, u := range in.Uses {
		role := info.Uses[i].Role
		c, msg := r.cell(u, role != RoleValue)
		if msg != "" {
			return out, fmt.Sprintf("use %d: %s", i, msg)
		}
		switch role {
		case RoleMemBase:
			out.u1 = c
		case RoleMemIndex:
			out.u2 = c
			hasIndex = u != NoReg
		default:
			switch next {
			case 0:
				out.u0 = c
			case 1:
				out.u1 = c
			default:
				out.u2 = c
			}
			next++
		}
	}
	if op == OpLEAQidx || op == OpLEALidx {
		hasIndex = true
	}
	if info.HasMem {
		switch in.Scale {
		case 1, 2, 4, 8:
			out.scale = in.Scale
		default:
			if hasIndex {
				return out, fmt.Sprintf("scale %d is not 1, 2, 4 or 8", in.Scale)
			}
			out.scale = 1
		}
	}
	if info.HasCond {
		if !in.Cond.Valid() {
			return out, fmt.Sprintf("invalid condition %d", in.Cond)
		}
		out.cond = in.Cond
	}
	switch op {
	case OpSpill, OpReload, OpMOVQ2X, OpMOVX2Q:
		out.op = OpCopy
	case OpCtxLoad:
		if in.Aux < 0 || CtxField(in.Aux) >= numCtxFields {
			return out, fmt.Sprintf("unknown context field %d", in.Aux)
		}
	case OpROUNDSD, OpROUNDSS:
		if in.Aux < RoundNearest || in.Aux > RoundTrunc {
			return out, fmt.Sprintf("unknown rounding mode %d", in.Aux)
		}
	case OpTRAP, OpTRAPCC:
		if !bytecode.TrapKind(in.Aux).Valid() {
			return out, fmt.Sprintf("unknown trap kind %d", in.Aux)
		}
	case OpCount, OpCountAdd:
		if in.Aux < 0 {
			return out, fmt.Sprintf("negative counter %d", in.Aux)
		}
	case OpJMP, OpJCC, OpJMPTABLE:
		want := max(info.NumSuccs, 1)
		if len(b.Succs) < want {
			return out, fmt.Sprintf("%s with %d successors", op, len(b.Succs))
		}
		out.aux = int32(edgeBase)
		out.imm = int64(len(b.Succs))
	}
	if allocated {
		if msg := x.allocatedOK(in); msg != "" {
			return out, msg
		}
	}
	return out, ""
}

// allocatedOK checks the register constraints of a fixed-arity op in
// allocated form: fixed registers, tied and early-clobbered defs, classes
// of physical registers, no memory-to-memory copies.
func (x *irResolver) allocatedOK(in *Instr) string {
	info := in.Op.Info()
	check := func(what string, i int, r Reg, s OperandSpec) string {
		if s.Fixed != NoReg && r != s.Fixed {
			return fmt.Sprintf("%s %d is %s, must be %s", what, i, r, s.Fixed)
		}
		if r.IsPhys() && s.Class != ClassNone && r.Class() != s.Class {
			return fmt.Sprintf("%s %d is %s, which is not a %s register", what, i, r, s.Class)
		}
		if r.IsMem() && in.Op != OpCopy && in.Op != OpSpill && in.Op != OpReload {
			return fmt.Sprintf("%s %d is the stack location %s", what, i, r)
		}
		return ""
	}
	for i, d := range in.Defs {
		s := info.Defs[i]
		if msg := check("def", i, d, s); msg != "" {
			return msg
		}
		if s.Tied >= 0 && int(s.Tied) < len(in.Uses) && in.Uses[s.Tied] != d {
			return fmt.Sprintf("def %d is %s but is tied to use %d in %s", i, d, s.Tied, in.Uses[s.Tied])
		}
		if s.EarlyClobber {
			for j, u := range in.Uses {
				if u == d {
					return fmt.Sprintf("early-clobbered def %d shares %s with use %d", i, d, j)
				}
			}
		}
	}
	for i, u := range in.Uses {
		if u == NoReg {
			continue
		}
		if msg := check("use", i, u, info.Uses[i]); msg != "" {
			return msg
		}
	}
	if in.Op == OpCopy && in.Defs[0].IsMem() && in.Uses[0].IsMem() {
		return "memory-to-memory copy"
	}
	return ""
}
