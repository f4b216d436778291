package mir

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/cfg"
)

// VerifyError reports the first rule a function breaks. Block and Instr
// locate it (-1 when the error is about the function or a block as a whole).
type VerifyError struct {
	Func         string
	Block, Instr int
	Op           Op
	Msg          string
}

// Error formats the error, e.g. "mir: verify fib: b3[2] (ADDQ): use 1
// has class xmm, want gpr".
func (e *VerifyError) Error() string {
	switch {
	case e.Block < 0:
		return fmt.Sprintf("mir: verify %s: %s", e.Func, e.Msg)
	case e.Instr < 0:
		return fmt.Sprintf("mir: verify %s: b%d: %s", e.Func, e.Block, e.Msg)
	}
	return fmt.Sprintf("mir: verify %s: b%d[%d] (%s): %s", e.Func, e.Block, e.Instr, e.Op, e.Msg)
}

// HostSig is the register-class signature of a host import, for
// VerifyModule.
type HostSig struct {
	Params, Results []Class
}

// Verify checks the invariants of f's form:
//
//   - CFG: block IDs match positions; the entry has no predecessors; every
//     block is reachable, non-empty and ends with its only terminator;
//     successor counts match the terminator; edge probabilities are valid;
//     predecessor lists match successor lists edge for edge.
//   - Operands: counts, classes and register kinds match the op table;
//     immediates, scales, conditions and Aux values are in range; φs come
//     first in their block with one operand per predecessor; Arg only at
//     the start of the entry block; flag readers follow a flag producer in
//     the same block with no flag writer in between.
//   - FormSSA: no parallel copies; every virtual register is defined once
//     and its definition dominates every use (a φ operand is used at the
//     end of its predecessor).
//   - FormAllocated: every operand is a physical register (or a stack slot
//     where copies allow one), satisfies its fixed-register, tied and
//     early-clobber constraints, and never names RSP or the context
//     register.
//   - Pins (only when Func.Pins is not nil): the form is FormNonSSA; there
//     is one pin per virtual register; every pin is NoReg or an
//     allocatable physical register of its virtual register's class; and
//     the pins resolve every operand constraint: an operand fixed to a
//     physical register is a virtual register pinned to it, a tied def is
//     the very virtual register of its use, an early-clobbered def is
//     neither a use nor pinned where a use is, no two defs (or parallel
//     copy destinations) are pinned to one register, and uses pinned to
//     one register are one virtual register.
func Verify(f *Func) error {
	v := &verifier{f: f, block: -1, instr: -1}
	if err := v.structure(); err != nil {
		return err
	}
	if f.Pins != nil {
		if err := v.pinsOK(); err != nil {
			return err
		}
	}
	for _, b := range f.Blocks {
		for i, in := range b.Instrs {
			v.block, v.instr, v.in = b.ID, i, in
			if err := v.instruction(b, i, in); err != nil {
				return err
			}
		}
		v.block, v.instr, v.in = b.ID, -1, nil
		if err := v.flags(b); err != nil {
			return err
		}
	}
	v.block, v.instr, v.in = -1, -1, nil
	if f.Form == FormSSA {
		return v.ssa()
	}
	return nil
}

// VerifyModule verifies every function and checks calls: callees and host
// imports exist and the operand classes match their signatures.
func VerifyModule(funcs []*Func, hosts []HostSig) error {
	for i, f := range funcs {
		if f.Index != i {
			return &VerifyError{Func: f.Name, Block: -1, Instr: -1, Msg: fmt.Sprintf("index %d at position %d", f.Index, i)}
		}
		if err := Verify(f); err != nil {
			return err
		}
	}
	for _, f := range funcs {
		for _, b := range f.Blocks {
			for i, in := range b.Instrs {
				var params, results []Class
				switch in.Op {
				case OpCALL:
					if int(in.Aux) < 0 || int(in.Aux) >= len(funcs) {
						return &VerifyError{f.Name, b.ID, i, in.Op, fmt.Sprintf("callee %d out of range", in.Aux)}
					}
					params, results = funcs[in.Aux].Params, funcs[in.Aux].Results
				case OpCALLHOST:
					if int(in.Aux) < 0 || int(in.Aux) >= len(hosts) {
						return &VerifyError{f.Name, b.ID, i, in.Op, fmt.Sprintf("host import %d out of range", in.Aux)}
					}
					params, results = hosts[in.Aux].Params, hosts[in.Aux].Results
				default:
					continue
				}
				if !classesMatch(f, in.Uses, params) || !classesMatch(f, in.Defs, results) {
					return &VerifyError{f.Name, b.ID, i, in.Op, fmt.Sprintf("operands do not match the callee's signature (%v) -> (%v)", params, results)}
				}
			}
		}
	}
	return nil
}

func classesMatch(f *Func, regs []Reg, want []Class) bool {
	if len(regs) != len(want) {
		return false
	}
	for i, r := range regs {
		if c := f.RegClass(r); c != want[i] && !(r.IsArgSlot() && c == ClassNone) {
			return false
		}
	}
	return true
}

type verifier struct {
	f            *Func
	block, instr int
	in           *Instr
	// prefixBlock + 1 names the block whose argPrefix is prefixLen.
	prefixBlock, prefixLen int
}

// argPrefix returns the length of the run of instructions at the start of
// b that an Arg may follow: Args, and in allocated form the moves that save
// the arguments, which may sit between the (no-op) Arg instructions.
func (v *verifier) argPrefix(b *Block) int {
	if v.prefixBlock == b.ID+1 {
		return v.prefixLen
	}
	n := 0
	for n < len(b.Instrs) {
		if op := b.Instrs[n].Op; op != OpArg && !(v.f.Form == FormAllocated && op.isMove()) {
			break
		}
		n++
	}
	v.prefixBlock, v.prefixLen = b.ID+1, n
	return n
}

func (v *verifier) errf(format string, args ...any) error {
	e := &VerifyError{Func: v.f.Name, Block: v.block, Instr: v.instr, Msg: fmt.Sprintf(format, args...)}
	if v.in != nil {
		e.Op = v.in.Op
	}
	return e
}

func (v *verifier) structure() error {
	f := v.f
	if len(f.Blocks) == 0 {
		return v.errf("no blocks")
	}
	if f.Form > FormAllocated {
		return v.errf("unknown form %d", f.Form)
	}
	for i, b := range f.Blocks {
		v.block = i
		if b == nil {
			return v.errf("nil block")
		}
		if b.ID != i {
			return v.errf("block at position %d has ID %d", i, b.ID)
		}
		if len(b.Instrs) == 0 {
			return v.errf("empty block")
		}
		for j, in := range b.Instrs {
			if in == nil {
				v.instr = j
				return v.errf("nil instruction")
			}
			if in.Op.Info().Terminator != (j == len(b.Instrs)-1) {
				v.instr, v.in = j, in
				if j == len(b.Instrs)-1 {
					return v.errf("block does not end with a terminator")
				}
				return v.errf("terminator before the end of the block")
			}
		}
		term := b.Terminator()
		want := term.Op.Info().NumSuccs
		if want < 0 {
			if len(b.Succs) == 0 {
				return v.errf("jump table without successors")
			}
		} else if len(b.Succs) != want {
			return v.errf("%s needs %d successors, block has %d", term.Op, want, len(b.Succs))
		}
		if len(b.SuccProb) != len(b.Succs) {
			return v.errf("%d successor probabilities for %d successors", len(b.SuccProb), len(b.Succs))
		}
		sum := 0.0
		for k, s := range b.Succs {
			if s < 0 || s >= len(f.Blocks) {
				return v.errf("successor b%d does not exist", s)
			}
			p := b.SuccProb[k]
			if math.IsNaN(p) || p < 0 || p > 1 {
				return v.errf("successor b%d has probability %v", s, p)
			}
			sum += p
		}
		if len(b.Succs) > 0 && math.Abs(sum-1) > 1e-6 {
			return v.errf("successor probabilities sum to %v", sum)
		}
		if math.IsNaN(b.Freq) || math.IsInf(b.Freq, 0) || b.Freq < 0 {
			return v.errf("frequency %v", b.Freq)
		}
		for _, p := range b.Preds {
			if p < 0 || p >= len(f.Blocks) {
				return v.errf("predecessor b%d does not exist", p)
			}
		}
	}
	v.block = 0
	if len(f.Blocks[0].Preds) != 0 {
		return v.errf("the entry block has predecessors")
	}
	if err := v.edgesMatch(); err != nil {
		return err
	}
	reach := f.Graph().Reachable()
	for i, ok := range reach {
		if !ok {
			v.block = i
			return v.errf("unreachable block")
		}
	}
	v.block = -1
	return nil
}

// edgesMatch checks that every edge p->s appears as often in p's
// successors as p does in s's predecessors. Pairing the edges with
// PredPositions settles it in linear time; only a function that fails
// counts the edges to say where.
func (v *verifier) edgesMatch() error {
	f := v.f
	paired, preds := 0, 0
	pos := PredPositions(f)
	for b := range pos.Blocks() {
		for _, i := range pos.Row(b) {
			if i < 0 {
				return v.edgeMismatch()
			}
			paired++
		}
	}
	for _, b := range f.Blocks {
		preds += len(b.Preds)
	}
	if paired != preds {
		return v.edgeMismatch()
	}
	return nil
}

// edgeMismatch finds the first block whose edges do not match its
// neighbours' (in block order, successors before predecessors) and
// describes the mismatch.
func (v *verifier) edgeMismatch() error {
	f := v.f
	type edge struct{ from, to int }
	succs, preds := map[edge]int{}, map[edge]int{}
	for _, b := range f.Blocks {
		for _, s := range b.Succs {
			succs[edge{b.ID, s}]++
		}
		for _, p := range b.Preds {
			preds[edge{p, b.ID}]++
		}
	}
	for _, b := range f.Blocks {
		v.block = b.ID
		for _, s := range b.Succs {
			if e := (edge{b.ID, s}); succs[e] != preds[e] {
				return v.errf("edge to b%d: %d successor entries but b%d lists b%d %d times as predecessor",
					s, succs[e], s, b.ID, preds[e])
			}
		}
		for _, p := range b.Preds {
			if succs[edge{p, b.ID}] == 0 {
				return v.errf("predecessor b%d has no edge to this block", p)
			}
		}
	}
	return nil
}

// firstRepeat returns the smallest i such that rs[i] equals an earlier
// element of rs, or -1.
func firstRepeat(rs []Reg) int {
	if len(rs) <= 16 {
		for i, r := range rs {
			for _, e := range rs[:i] {
				if e == r {
					return i
				}
			}
		}
		return -1
	}
	seen := make(map[Reg]struct{}, len(rs))
	for i, r := range rs {
		if _, ok := seen[r]; ok {
			return i
		}
		seen[r] = struct{}{}
	}
	return -1
}

// regOK checks that r exists and is of a kind the form allows for an
// operand with spec s; it returns r's class.
// operandName names an operand in messages ("def 0", "use 2"); it is
// formatted only when a message is made.
type operandName struct {
	kind string
	i    int
}

func (o operandName) String() string { return o.kind + " " + strconv.Itoa(o.i) }

func (v *verifier) regOK(what operandName, r Reg, s OperandSpec, memOK bool) (Class, error) {
	f := v.f
	switch {
	case r == NoReg:
		return 0, v.errf("%s is noreg", what)
	case r.IsVirtual():
		if r.Index() >= len(f.VRegs) {
			return 0, v.errf("%s %s is not declared (the function has %d virtual registers)", what, r, len(f.VRegs))
		}
		if f.Form == FormAllocated {
			return 0, v.errf("%s %s is virtual in allocated form", what, r)
		}
	case r.IsPhys():
		if f.Form != FormAllocated {
			return 0, v.errf("%s %s is a physical register before allocation", what, r)
		}
		if r == RSP || r == CtxReg || (r.IsScratch() && !v.in.Op.isMove()) {
			return 0, v.errf("%s %s is reserved", what, r)
		}
	case r.IsSlot():
		if r.Index() >= len(f.Slots) {
			return 0, v.errf("%s %s is not declared (the function has %d stack slots)", what, r, len(f.Slots))
		}
		if !memOK {
			return 0, v.errf("%s %s is a stack slot", what, r)
		}
	case r.IsArgSlot():
		if !memOK && s.Fixed != r {
			return 0, v.errf("%s %s is a stack-argument slot", what, r)
		}
		return s.Class, nil
	default:
		return 0, v.errf("%s %s is not a register", what, r)
	}
	return f.RegClass(r), nil
}

func (v *verifier) instruction(b *Block, idx int, in *Instr) error {
	f := v.f
	info := in.Op.Info()
	if in.Op == OpInvalid || int(in.Op) >= NumOps {
		return v.errf("invalid op %d", uint16(in.Op))
	}
	// Operand counts.
	switch in.Op {
	case OpPhi:
		if f.Form != FormSSA {
			return v.errf("φ in %s form", f.Form)
		}
		if len(in.Defs) != 1 || len(in.Uses) != len(b.Preds) {
			return v.errf("φ with %d defs and %d operands in a block with %d predecessors", len(in.Defs), len(in.Uses), len(b.Preds))
		}
		if idx > 0 && b.Instrs[idx-1].Op != OpPhi {
			return v.errf("φ after a non-φ instruction")
		}
	case OpParCopy:
		if f.Form == FormSSA {
			return v.errf("parallel copy in SSA form")
		}
		if len(in.Defs) != len(in.Uses) || len(in.Defs) == 0 {
			return v.errf("parallel copy with %d destinations and %d sources", len(in.Defs), len(in.Uses))
		}
		if i := firstRepeat(in.Defs); i >= 0 {
			return v.errf("parallel copy writes %s twice", in.Defs[i])
		}
	case OpArg:
		if len(in.Defs) != 1 || len(in.Uses) != 0 {
			return v.errf("Arg with %d defs and %d uses", len(in.Defs), len(in.Uses))
		}
		if in.Aux < 0 || int(in.Aux) >= len(f.Params) {
			return v.errf("argument %d out of range (the function has %d parameters)", in.Aux, len(f.Params))
		}
		if b.ID != 0 {
			return v.errf("Arg outside the entry block")
		}
		if idx > v.argPrefix(b) {
			return v.errf("Arg after another instruction")
		}
	case OpRET:
		if len(in.Defs) != 0 || len(in.Uses) != len(f.Results) {
			return v.errf("returns %d values; the function has %d results", len(in.Uses), len(f.Results))
		}
	case OpCALL, OpCALLHOST, OpCALLRT, OpCALLIND:
		if na, nr, ok := RuntimeArity(in.Aux); in.Op == OpCALLRT && (!ok || len(in.Uses) != na || len(in.Defs) != nr) {
			return v.errf("runtime call %d with %d arguments and %d results", in.Aux, len(in.Uses), len(in.Defs))
		}
		if in.Op == OpCALLIND && (len(in.Uses) == 0 || f.RegClass(in.Uses[len(in.Uses)-1]) != GPR) {
			return v.errf("indirect call without a GPR callee index")
		}
	case OpGLOBALloadQ, OpGLOBALloadL, OpGLOBALloadSD, OpGLOBALloadSS,
		OpGLOBALstoreQ, OpGLOBALstoreL, OpGLOBALstoreSD, OpGLOBALstoreSS:
		if len(in.Defs) != len(info.Defs) || len(in.Uses) != len(info.Uses) {
			return v.errf("%d defs and %d uses, want %d and %d", len(in.Defs), len(in.Uses), len(info.Defs), len(info.Uses))
		}
		if in.Aux < 0 || in.Aux >= MaxGlobals {
			return v.errf("global %d out of range", in.Aux)
		}
	default:
		if len(in.Defs) != len(info.Defs) || len(in.Uses) != len(info.Uses) {
			return v.errf("%d defs and %d uses, want %d and %d", len(in.Defs), len(in.Uses), len(info.Defs), len(info.Uses))
		}
	}
	// Registers and classes.
	memCopy := in.Op == OpParCopy || in.Op == OpCopy
	// bitsMove reports whether operand pair i of a move touches memory,
	// which holds 64 bits of either class.
	bitsMove := func(i int) bool {
		if !in.Op.isMove() || in.Op == OpXchg || i >= len(in.Defs) || i >= len(in.Uses) {
			return false
		}
		return in.Defs[i].IsMem() || in.Uses[i].IsMem()
	}
	var shared Class
	dup := -1
	if in.Op != OpParCopy {
		dup = firstRepeat(in.Defs)
	}
	for i, r := range in.Defs {
		s := f.DefSpec(in, i)
		mem := memCopy || in.Op == OpSpill
		c, err := v.regOK(operandName{"def", i}, r, s, mem)
		if err != nil {
			return err
		}
		if in.Op == OpSpill && !r.IsMem() {
			return v.errf("spill to %s, not a stack slot", r)
		}
		if !bitsMove(i) {
			if err := v.class(operandName{"def", i}, r, c, s, &shared); err != nil {
				return err
			}
		}
		if i == dup {
			return v.errf("%s defined twice by one instruction", r)
		}
	}
	for i, r := range in.Uses {
		s := f.UseSpec(in, i)
		if r == NoReg && s.Role == RoleMemIndex {
			if in.Scale != 1 {
				return v.errf("scale %d without an index, want 1", in.Scale)
			}
			continue // a memory operand without an index
		}
		if in.Op == OpParCopy {
			shared = f.RegClass(in.Defs[i])
		}
		mem := memCopy || in.Op == OpReload
		c, err := v.regOK(operandName{"use", i}, r, s, mem)
		if err != nil {
			return err
		}
		if in.Op == OpReload && !r.IsMem() {
			return v.errf("reload from %s, not a stack slot", r)
		}
		if bitsMove(i) {
			continue
		}
		if err := v.class(operandName{"use", i}, r, c, s, &shared); err != nil {
			return err
		}
	}
	if in.Op == OpRET {
		for i, r := range in.Uses {
			if c := f.RegClass(r); c != f.Results[i] && !r.IsArgSlot() {
				return v.errf("result %d has class %s, want %s", i, c, f.Results[i])
			}
		}
	}
	// Immediates, scales, conditions, Aux.
	if err := v.fields(in); err != nil {
		return err
	}
	if f.Form == FormAllocated {
		return v.allocated(in)
	}
	if f.Pins != nil {
		return v.pinned(in)
	}
	return nil
}

// class checks an operand's class against its spec; operands of "any"
// class must agree with each other (shared holds the first one's class).
func (v *verifier) class(what operandName, r Reg, c Class, s OperandSpec, shared *Class) error {
	if r.IsArgSlot() {
		return nil
	}
	if s.Class == ClassNone {
		if c == ClassNone {
			return v.errf("%s %s has no class", what, r)
		}
		if *shared == ClassNone {
			*shared = c
		} else if c != *shared {
			return v.errf("%s %s has class %s, the other operands %s", what, r, c, *shared)
		}
		return nil
	}
	if c != s.Class {
		return v.errf("%s %s has class %s, want %s", what, r, c, s.Class)
	}
	return nil
}

// isMove reports whether op only moves values between locations (the ops
// that may use the scratch registers in allocated code).
func (op Op) isMove() bool {
	return op == OpCopy || op == OpSpill || op == OpReload || op == OpXchg || op == OpParCopy
}

func fitsImm32(x int64) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }

func (v *verifier) fields(in *Instr) error {
	info := in.Op.Info()
	switch in.Op {
	case OpADDQconst, OpSUBQconst, OpANDQconst, OpORQconst, OpXORQconst, OpCMPQconst, OpTESTQconst, OpIMUL3Qconst, OpLEAQ,
		OpADDLconst, OpSUBLconst, OpANDLconst, OpORLconst, OpXORLconst, OpCMPLconst, OpTESTLconst, OpIMUL3Lconst, OpLEAL:
		if !fitsImm32(in.Imm) {
			return v.errf("immediate %d does not fit in 32 bits", in.Imm)
		}
	case OpSHLQconst, OpSHRQconst, OpSARQconst, OpROLQconst, OpRORQconst:
		if in.Imm < 0 || in.Imm > 63 {
			return v.errf("shift count %d outside 0..63", in.Imm)
		}
	case OpSHLLconst, OpSHRLconst, OpSARLconst, OpROLLconst, OpRORLconst:
		if in.Imm < 0 || in.Imm > 31 {
			return v.errf("shift count %d outside 0..31", in.Imm)
		}
	case OpMOVSSconst:
		if in.Imm < 0 || in.Imm > math.MaxUint32 {
			return v.errf("f32 bits %d outside 0..%d", in.Imm, uint32(math.MaxUint32))
		}
	case OpCtxLoad:
		if in.Aux < 0 || CtxField(in.Aux) >= numCtxFields {
			return v.errf("unknown context field %d", in.Aux)
		}
	case OpROUNDSD, OpROUNDSS:
		if in.Aux < 0 || in.Aux > RoundTrunc {
			return v.errf("unknown rounding mode %d", in.Aux)
		}
	case OpTRAP, OpTRAPCC:
		if !bytecode.TrapKind(in.Aux).Valid() {
			return v.errf("unknown trap kind %d", in.Aux)
		}
	case OpCount, OpCountAdd:
		if in.Aux < 0 {
			return v.errf("negative counter %d", in.Aux)
		}
	}
	if info.HasMem {
		switch in.Scale {
		case 1, 2, 4, 8:
		default:
			return v.errf("scale %d is not 1, 2, 4 or 8", in.Scale)
		}
		if !fitsImm32(in.Imm) {
			return v.errf("displacement %d does not fit in 32 bits", in.Imm)
		}
	} else if in.Scale != 0 {
		return v.errf("stray scale %d", in.Scale)
	}
	if info.HasCond {
		if !in.Cond.Valid() {
			return v.errf("invalid condition %d", in.Cond)
		}
	} else if in.Cond != 0 {
		return v.errf("stray condition %s", in.Cond)
	}
	if !info.HasImm && in.Op != OpTRAP && in.Imm != 0 {
		return v.errf("stray immediate %d", in.Imm)
	}
	return nil
}

// flagProducers are the ops whose flags a reader may use.
var flagProducers = map[Op]bool{
	OpCMPQ: true, OpCMPQconst: true, OpCMPQload: true, OpTESTQ: true, OpTESTQconst: true, OpUCOMISD: true,
	OpADDQ: true, OpSUBQ: true, OpANDQ: true, OpORQ: true, OpXORQ: true, OpNEGQ: true,
	OpADDQconst: true, OpSUBQconst: true, OpANDQconst: true, OpORQconst: true, OpXORQconst: true,
	OpBSRQ: true, OpBSFQ: true, // ZF: the source was zero
	OpCMPL: true, OpCMPLconst: true, OpTESTL: true, OpTESTLconst: true, OpUCOMISS: true,
	OpADDL: true, OpSUBL: true, OpANDL: true, OpORL: true, OpXORL: true, OpNEGL: true,
	OpADDLconst: true, OpSUBLconst: true, OpANDLconst: true, OpORLconst: true, OpXORLconst: true,
	OpBSRL: true, OpBSFL: true,
}

// flags checks that every flag reader follows a flag producer in its block
// with no other flag writer in between.
func (v *verifier) flags(b *Block) error {
	var producer *Instr
	for i, in := range b.Instrs {
		info := in.Op.Info()
		if info.ReadsFlags {
			if producer == nil || !flagProducers[producer.Op] {
				v.instr, v.in = i, in
				if producer == nil {
					return v.errf("reads flags no instruction of the block set")
				}
				return v.errf("reads flags last written by %s", producer.Op)
			}
		}
		if info.WritesFlags {
			producer = in
		}
	}
	return nil
}

func (v *verifier) allocated(in *Instr) error {
	f := v.f
	for i, r := range in.Defs {
		s := f.DefSpec(in, i)
		if s.Fixed != NoReg && r != s.Fixed {
			return v.errf("def %d is %s, must be %s", i, r, s.Fixed)
		}
		if s.Tied >= 0 && int(s.Tied) < len(in.Uses) && in.Uses[s.Tied] != r {
			return v.errf("def %d is %s but is tied to use %d in %s", i, r, s.Tied, in.Uses[s.Tied])
		}
		if s.EarlyClobber {
			for j, u := range in.Uses {
				if u == r {
					return v.errf("early-clobbered def %d shares %s with use %d", i, r, j)
				}
			}
		}
	}
	for i, r := range in.Uses {
		if s := f.UseSpec(in, i); s.Fixed != NoReg && r != s.Fixed {
			return v.errf("use %d is %s, must be %s", i, r, s.Fixed)
		}
	}
	if in.Op == OpCopy && in.Defs[0].IsMem() && in.Uses[0].IsMem() {
		return v.errf("memory-to-memory copy")
	}
	return nil
}

// pinsOK checks Func.Pins as a whole: the form, the length, and that each
// pin is an allocatable physical register of its virtual register's class.
func (v *verifier) pinsOK() error {
	f := v.f
	if f.Form != FormNonSSA {
		return v.errf("pins in %s form", f.Form)
	}
	if len(f.Pins) != len(f.VRegs) {
		return v.errf("%d pins for %d virtual registers", len(f.Pins), len(f.VRegs))
	}
	for i, p := range f.Pins {
		switch vr := VReg(i); {
		case p == NoReg:
		case !p.IsPhys():
			return v.errf("%s is pinned to %s, which is not a physical register", vr, p)
		case p.Class() != f.VRegs[i]:
			return v.errf("%s has class %s but is pinned to %s", vr, f.VRegs[i], p)
		case !Allocatable.Has(p):
			return v.errf("%s is pinned to %s, which is reserved", vr, p)
		}
	}
	return nil
}

// pinned checks that the pins of a non-SSA function resolve the operand
// constraints of in (see Verify). pinsOK has accepted Func.Pins.
func (v *verifier) pinned(in *Instr) error {
	f := v.f
	fixed := func(what operandName, r Reg, s OperandSpec) error {
		if !s.Fixed.IsPhys() {
			return nil // no constraint, or a stack-argument slot
		}
		switch p := f.Pin(r); {
		case p == s.Fixed:
			return nil
		case !r.IsVirtual():
			return v.errf("%s %s is not a virtual register pinned to %s", what, r, s.Fixed)
		case p == NoReg:
			return v.errf("%s %s is not pinned, must be pinned to %s", what, r, s.Fixed)
		default:
			return v.errf("%s %s is pinned to %s, must be %s", what, r, p, s.Fixed)
		}
	}
	// firstPinned[p] is the first operand pinned to p (-1: none yet).
	var firstPinned [NumPhysRegs]int32
	for p := range firstPinned {
		firstPinned[p] = -1
	}
	for i, r := range in.Defs {
		s := f.DefSpec(in, i)
		if err := fixed(operandName{"def", i}, r, s); err != nil {
			return err
		}
		if s.Tied >= 0 && int(s.Tied) < len(in.Uses) && in.Uses[s.Tied] != r {
			return v.errf("def %d is %s but is tied to use %d, which is %s", i, r, s.Tied, in.Uses[s.Tied])
		}
		p := f.Pin(r)
		if s.EarlyClobber {
			for j, u := range in.Uses {
				if u == r {
					return v.errf("early-clobbered def %d shares %s with use %d", i, r, j)
				}
				if p != NoReg && f.Pin(u) == p {
					return v.errf("early-clobbered def %d %s and use %d %s are both pinned to %s", i, r, j, u, p)
				}
			}
		}
		if p == NoReg {
			continue
		}
		// The first earlier def pinned to p, if any, is the one to report.
		if j := firstPinned[p]; j >= 0 {
			e := in.Defs[j]
			if in.Op == OpParCopy {
				return v.errf("parallel copy writes %s twice (%s and %s are pinned to it)", p, e, r)
			}
			return v.errf("def %d %s and def %d %s are both pinned to %s", j, e, i, r, p)
		}
		firstPinned[p] = int32(i)
	}
	for p := range firstPinned {
		firstPinned[p] = -1
	}
	for i, r := range in.Uses {
		if err := fixed(operandName{"use", i}, r, f.UseSpec(in, i)); err != nil {
			return err
		}
		p := f.Pin(r)
		if p == NoReg {
			continue
		}
		// Until the first error every earlier use pinned to p is one
		// register: the first of them is the one to compare with.
		if j := firstPinned[p]; j < 0 {
			firstPinned[p] = int32(i)
		} else if e := in.Uses[j]; e != r {
			return v.errf("use %d %s and use %d %s are different registers pinned to %s", j, e, i, r, p)
		}
	}
	return nil
}

// ssa checks single definitions and dominance.
func (v *verifier) ssa() error {
	f := v.f
	type site struct{ block, idx int }
	defs := make([]site, len(f.VRegs))
	for i := range defs {
		defs[i] = site{-1, -1}
	}
	for _, b := range f.Blocks {
		for i, in := range b.Instrs {
			for _, r := range in.Defs {
				if !r.IsVirtual() {
					continue
				}
				if d := defs[r.Index()]; d.block >= 0 {
					v.block, v.instr, v.in = b.ID, i, in
					return v.errf("%s is defined again (first at b%d[%d])", r, d.block, d.idx)
				}
				defs[r.Index()] = site{b.ID, i}
			}
		}
	}
	dom := cfg.Dominators(f.Graph())
	for _, b := range f.Blocks {
		for i, in := range b.Instrs {
			v.block, v.instr, v.in = b.ID, i, in
			for k, r := range in.Uses {
				if !r.IsVirtual() {
					continue
				}
				d := defs[r.Index()]
				if d.block < 0 {
					return v.errf("%s is used but never defined", r)
				}
				if in.Op == OpPhi {
					// Used at the end of predecessor k.
					if p := b.Preds[k]; !dom.Dominates(d.block, p) {
						return v.errf("φ operand %s (from b%d) is not dominated by its definition in b%d", r, p, d.block)
					}
					continue
				}
				if d.block == b.ID {
					if d.idx >= i {
						return v.errf("%s is used before its definition at [%d]", r, d.idx)
					}
				} else if !dom.Dominates(d.block, b.ID) {
					return v.errf("%s is used where its definition in b%d does not dominate", r, d.block)
				}
			}
		}
	}
	return nil
}
