package mir

// kiln's internal calling convention, used between compiled functions and
// by the exits to Go (host and runtime calls):
//
//   - integer arguments in RDI, RSI, RDX, RCX, R8, R9, float arguments in
//     XMM0-XMM7, each class taking the next free register in argument order;
//     arguments beyond those go to stack-argument slots 0, 1, ... in
//     argument order (the caller's outgoing slots out0, out1, ..., which the
//     callee sees as in0, in1, ...);
//   - integer results in RAX, RDX, float results in XMM0, XMM1, the rest in
//     stack-argument slots numbered after the arguments' slots;
//   - RBX, RBP, R12, R13 and R14 are preserved across calls (CalleeSaved),
//     all other allocatable registers may be clobbered (CallerSaved); R15
//     holds the execution context throughout.
var (
	ArgGPRs    = []Reg{RDI, RSI, RDX, RCX, R8, R9}
	ArgXMMs    = []Reg{X0, X1, X2, X3, X4, X5, X6, X7}
	ResultGPRs = []Reg{RAX, RDX}
	ResultXMMs = []Reg{X0, X1}
)

// locationCursor assigns the locations of a list of values one at a time,
// as the calling convention does: the next register of the value's class
// from gprs or xmms, else the next stack-argument slot (incoming or
// outgoing). It does not allocate.
type locationCursor struct {
	gprs, xmms   []Reg
	gi, xi, slot int
	incoming     bool
}

// next returns the location of the next value, of class c.
func (lc *locationCursor) next(c Class) Reg {
	switch {
	case c == GPR && lc.gi < len(lc.gprs):
		lc.gi++
		return lc.gprs[lc.gi-1]
	case c == XMM && lc.xi < len(lc.xmms):
		lc.xi++
		return lc.xmms[lc.xi-1]
	}
	lc.slot++
	if lc.incoming {
		return InArgReg(lc.slot - 1)
	}
	return OutArgReg(lc.slot - 1)
}

// assignLocations gives each value of the class list a register from its
// class's list, or the next stack-argument slot from firstSlot on (incoming
// or outgoing).
func assignLocations(classes []Class, gprs, xmms []Reg, firstSlot int, incoming bool) (locs []Reg, nextSlot int) {
	lc := locationCursor{gprs: gprs, xmms: xmms, slot: firstSlot, incoming: incoming}
	locs = make([]Reg, len(classes))
	for i, c := range classes {
		locs[i] = lc.next(c)
	}
	return locs, lc.slot
}

// ArgLocations returns where arguments of the given classes are passed:
// the caller's view (outgoing stack slots) or the callee's (incoming).
func ArgLocations(classes []Class, incoming bool) []Reg {
	locs, _ := assignLocations(classes, ArgGPRs, ArgXMMs, 0, incoming)
	return locs
}

// ResultLocations returns where results of the given classes are returned,
// for a function whose arguments have the classes args (result slots follow
// the argument slots), in the caller's or the callee's view.
func ResultLocations(args, results []Class, incoming bool) []Reg {
	_, next := assignLocations(args, ArgGPRs, ArgXMMs, 0, incoming)
	locs, _ := assignLocations(results, ResultGPRs, ResultXMMs, next, incoming)
	return locs
}

// nthLocation returns the location of value i of a list of values whose
// classes class gives, assigned as assignLocations assigns them, without
// allocating.
func nthLocation(i int, class func(k int) Class, gprs, xmms []Reg, firstSlot int, incoming bool) Reg {
	lc := locationCursor{gprs: gprs, xmms: xmms, slot: firstSlot, incoming: incoming}
	for k := range i {
		lc.next(class(k))
	}
	return lc.next(class(i))
}

// slotsUsed returns the number of stack-argument slots n values whose
// classes class gives take after the registers.
func slotsUsed(n int, class func(k int) Class, gprs, xmms []Reg) int {
	lc := locationCursor{gprs: gprs, xmms: xmms}
	for k := range n {
		lc.next(class(k))
	}
	return lc.slot
}

// DefSpec returns the constraint on the i-th def of in, read from the op
// table, with the variadic ops' constraints computed from the calling
// convention and the operands' classes.
func (f *Func) DefSpec(in *Instr, i int) OperandSpec {
	info := in.Op.Info()
	if !info.Variadic {
		return info.Defs[i]
	}
	s := anyClass()
	s.Class = f.RegClass(in.Defs[i])
	switch in.Op {
	case OpArg:
		if int(in.Aux) < len(f.Params) {
			params := func(k int) Class { return f.Params[k] }
			s.Fixed = nthLocation(int(in.Aux), params, ArgGPRs, ArgXMMs, 0, true)
			s.Class = f.Params[in.Aux]
		}
	case OpCALL, OpCALLHOST, OpCALLRT, OpCALLIND:
		args := func(k int) Class { return f.RegClass(in.Uses[k]) }
		results := func(k int) Class { return f.RegClass(in.Defs[k]) }
		first := slotsUsed(CallArgs(in), args, ArgGPRs, ArgXMMs)
		s.Fixed = nthLocation(i, results, ResultGPRs, ResultXMMs, first, false)
	}
	return s
}

// IndirectCalleeReg is where CALLIND takes the index of the function it
// calls: a caller-saved register that passes no argument.
const IndirectCalleeReg = RAX

// CallArgs returns the number of arguments of a call: its uses, but for
// CALLIND's last, the callee index.
func CallArgs(in *Instr) int {
	if in.Op == OpCALLIND && len(in.Uses) > 0 {
		return len(in.Uses) - 1
	}
	return len(in.Uses)
}

// UseSpec returns the constraint on the i-th use of in (see DefSpec).
func (f *Func) UseSpec(in *Instr, i int) OperandSpec {
	info := in.Op.Info()
	if !info.Variadic {
		return info.Uses[i]
	}
	s := anyClass()
	s.Class = f.RegClass(in.Uses[i])
	switch in.Op {
	case OpRET:
		params := func(k int) Class { return f.Params[k] }
		results := func(k int) Class { return f.RegClass(in.Uses[k]) }
		first := slotsUsed(len(f.Params), params, ArgGPRs, ArgXMMs)
		s.Fixed = nthLocation(i, results, ResultGPRs, ResultXMMs, first, true)
	case OpCALL, OpCALLHOST, OpCALLRT, OpCALLIND:
		if i >= CallArgs(in) {
			s.Class, s.Fixed = GPR, IndirectCalleeReg
			break
		}
		args := func(k int) Class { return f.RegClass(in.Uses[k]) }
		s.Fixed = nthLocation(i, args, ArgGPRs, ArgXMMs, 0, false)
	}
	return s
}

// Clobbers returns the physical registers in destroys beyond its defs.
func (in *Instr) Clobbers() RegSet { return in.Op.Info().Clobbers }
