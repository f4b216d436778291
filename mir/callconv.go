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

// classesOf returns the classes of registers.
func (f *Func) classesOf(regs []Reg) []Class {
	cs := make([]Class, len(regs))
	for i, r := range regs {
		cs[i] = f.RegClass(r)
	}
	return cs
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
			s.Fixed = ArgLocations(f.Params, true)[in.Aux]
			s.Class = f.Params[in.Aux]
		}
	case OpCALL, OpCALLHOST, OpCALLRT:
		s.Fixed = ResultLocations(f.classesOf(in.Uses), f.classesOf(in.Defs), false)[i]
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
		s.Fixed = ResultLocations(f.Params, f.classesOf(in.Uses), true)[i]
	case OpCALL, OpCALLHOST, OpCALLRT:
		s.Fixed = ArgLocations(f.classesOf(in.Uses), false)[i]
	}
	return s
}

// Clobbers returns the physical registers in destroys beyond its defs.
func (in *Instr) Clobbers() RegSet { return in.Op.Info().Clobbers }
