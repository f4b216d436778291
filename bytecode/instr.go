package bytecode

import "slices"

// Instr is one bytecode instruction. Which fields it uses depends on the
// format of its opcode (see Op.Info); unused fields are zero. The zero value of
// a field that an opcode does not use must stay zero: the verifier rejects
// stray operands so that equal programs have equal encodings.
type Instr struct {
	Op  Op
	Dst Reg
	A   Reg
	B   Reg
	C   Reg
	// UseImm says that the B operand of a binary or compare-and-branch
	// instruction is Imm instead of register B.
	UseImm bool
	// Imm is the constant of i64.const, the bit pattern of f64.const, the
	// immediate B operand, the signed 32-bit offset of a load or store, or the
	// code of a trap.
	Imm int64
	// Target is the instruction index a branch goes to; for switch, the
	// default target.
	Target uint32
	// Table lists the targets of a switch.
	Table []uint32
	// Callee is the index of the called function (call), host import
	// (call_host) or signature in Module.Types (call_indirect), or of the
	// global (global.get, global.set).
	Callee uint32
	// Args are the argument registers of a call (any of the three kinds)
	// or the returned registers of ret.
	Args []Reg
	// Results are the registers a call's results are written to.
	Results []Reg
}

// Clone returns a copy of in that shares no slices with it.
func (in Instr) Clone() Instr {
	c := in
	c.Table = slices.Clone(in.Table)
	c.Args = slices.Clone(in.Args)
	c.Results = slices.Clone(in.Results)
	return c
}

// Equal reports whether in and o are the same instruction. Nil and empty
// slices are equal.
func (in *Instr) Equal(o *Instr) bool {
	return in.Op == o.Op && in.Dst == o.Dst && in.A == o.A && in.B == o.B && in.C == o.C &&
		in.UseImm == o.UseImm && in.Imm == o.Imm && in.Target == o.Target && in.Callee == o.Callee &&
		slices.Equal(in.Table, o.Table) && slices.Equal(in.Args, o.Args) && slices.Equal(in.Results, o.Results)
}

// Targets appends to dst every instruction index that in may branch to (not
// counting the fall-through to the next instruction) and returns the result.
// A switch lists its table entries in order, then its default.
func (in *Instr) Targets(dst []uint32) []uint32 {
	info := in.Op.Info()
	if !info.Branch {
		return dst
	}
	if in.Op == OpSwitch {
		dst = append(dst, in.Table...)
	}
	return append(dst, in.Target)
}

// FallsThrough reports whether control can continue with the next
// instruction after in.
func (in *Instr) FallsThrough() bool { return !in.Op.Info().Terminator }

// Uses appends the registers in reads to dst and returns the result.
func (in *Instr) Uses(dst []Reg) []Reg {
	info := in.Op.Info()
	switch info.Format {
	case FormatUnary, FormatLoad, FormatBranch, FormatSwitch, FormatGlobalSet:
		dst = append(dst, in.A)
	case FormatBinary, FormatCmpBranch:
		dst = append(dst, in.A)
		if !in.UseImm {
			dst = append(dst, in.B)
		}
	case FormatSelect, FormatMemoryBulk, FormatSegmentBulk, FormatTableFill, FormatTableBulk:
		dst = append(dst, in.A, in.B, in.C)
	case FormatStore, FormatTableSet, FormatTableGrow:
		dst = append(dst, in.A, in.B)
	case FormatTableGet:
		dst = append(dst, in.A)
	case FormatCall, FormatReturn:
		dst = append(dst, in.Args...)
	case FormatCallIndirect:
		dst = append(dst, in.A)
		dst = append(dst, in.Args...)
	}
	return dst
}

// Defs appends the registers in writes to dst and returns the result.
func (in *Instr) Defs(dst []Reg) []Reg {
	switch in.Op.Info().Format {
	case FormatConst, FormatUnary, FormatBinary, FormatSelect, FormatLoad, FormatMemorySize, FormatGlobalGet,
		FormatRefFunc, FormatTableGet, FormatTableSize, FormatTableGrow:
		dst = append(dst, in.Dst)
	case FormatCall, FormatCallIndirect:
		dst = append(dst, in.Results...)
	}
	return dst
}
