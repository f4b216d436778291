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

// assignLocations gives each value of the class list a register from its
// class's list, or the next stack-argument slot from firstSlot on (incoming
// or outgoing).
func assignLocations(classes []Class, gprs, xmms []Reg, firstSlot int, incoming bool) (locs []Reg, nextSlot int) {
	locs = make([]Reg, len(classes))
	gi, xi, slot := 0, 0, firstSlot
	for i, c := range classes {
		switch {
		case c == GPR && gi < len(gprs):
			locs[i] = gprs[gi]
			gi++
		case c == XMM && xi < len(xmms):
			locs[i] = xmms[xi]
			xi++
		case incoming:
			locs[i] = InArgReg(slot)
			slot++
		default:
			locs[i] = OutArgReg(slot)
			slot++
		}
	}
	return locs, slot
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
// classes class gives, assigned as assignLocations assigns them: from gprs
// or xmms by class, then stack-argument slots from firstSlot on. It does
// not allocate.
func nthLocation(i int, class func(k int) Class, gprs, xmms []Reg, firstSlot int, incoming bool) Reg {
	gi, xi, slot := 0, 0, firstSlot
	for k := 0; k <= i; k++ {
		var loc Reg
		switch c := class(k); {
		case c == GPR && gi < len(gprs):
			loc = gprs[gi]
			gi++
		case c == XMM && xi < len(xmms):
			loc = xmms[xi]
			xi++
		case incoming:
			loc = InArgReg(slot)
			slot++
		default:
			loc = OutArgReg(slot)
			slot++
		}
		if k == i {
			return loc
		}
	}
	return NoReg
}

// slotsUsed returns the number of stack-argument slots n values whose
// classes class gives take after the registers.
func slotsUsed(n int, class func(k int) Class, gprs, xmms []Reg) int {
	gi, xi, slots := 0, 0, 0
	for k := 0; k < n; k++ {
		switch c := class(k); {
		case c == GPR && gi < len(gprs):
			gi++
		case c == XMM && xi < len(xmms):
			xi++
		default:
			slots++
		}
	}
	return slots
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
	case OpCALL, OpCALLHOST, OpCALLRT:
		args := func(k int) Class { return f.RegClass(in.Uses[k]) }
		results := func(k int) Class { return f.RegClass(in.Defs[k]) }
		first := slotsUsed(len(in.Uses), args, ArgGPRs, ArgXMMs)
		s.Fixed = nthLocation(i, results, ResultGPRs, ResultXMMs, first, false)
	}
	return s
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
	case OpCALL, OpCALLHOST, OpCALLRT:
		args := func(k int) Class { return f.RegClass(in.Uses[k]) }
		s.Fixed = nthLocation(i, args, ArgGPRs, ArgXMMs, 0, false)
	}
	return s
}

// Clobbers returns the physical registers in destroys beyond its defs.
func (in *Instr) Clobbers() RegSet { return in.Op.Info().Clobbers }
