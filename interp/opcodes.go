package interp

import "github.com/kiln-jit/kiln/bytecode"

// opcode is the interpreter's internal opcode. Operations with an immediate
// B operand get their own opcode, so the dispatch loop never tests UseImm.
type opcode uint8

const (
	iInvalid opcode = iota
	iConst          // d = imm (i64 value or f64 bits)
	iMov            // d = a (also the reinterpret conversions)

	iAdd
	iSub
	iMul
	iDivS
	iDivU
	iRemS
	iRemU
	iAnd
	iOr
	iXor
	iShl
	iShrS
	iShrU
	iRotl
	iRotr

	iAddI
	iSubI
	iMulI
	iDivSI
	iDivUI
	iRemSI
	iRemUI
	iAndI
	iOrI
	iXorI
	iShlI
	iShrSI
	iShrUI
	iRotlI
	iRotrI

	iNeg
	iNot
	iClz
	iCtz
	iPopcnt
	iExt8S
	iExt16S
	iExt32S
	iExt32U

	iEq
	iNe
	iLtS
	iLtU
	iLeS
	iLeU
	iGtS
	iGtU
	iGeS
	iGeU

	iEqI
	iNeI
	iLtSI
	iLtUI
	iLeSI
	iLeUI
	iGtSI
	iGtUI
	iGeSI
	iGeUI

	iSelect

	iFAdd
	iFSub
	iFMul
	iFDiv
	iFMin
	iFMax
	iFCopysign
	iFSqrt
	iFNeg
	iFAbs
	iFFloor
	iFCeil
	iFTrunc
	iFNearest
	iFEq
	iFNe
	iFLt
	iFLe
	iFGt
	iFGe

	iConvS
	iConvU
	iTruncS
	iTruncU
	iTruncSatS
	iTruncSatU

	iLoad8S
	iLoad8U
	iLoad16S
	iLoad16U
	iLoad32S
	iLoad32U
	iLoad64
	iStore8
	iStore16
	iStore32
	iStore64
	iMemSize
	iMemGrow

	iJump
	iBrIf
	iBrEq
	iBrNe
	iBrLtS
	iBrLtU
	iBrLeS
	iBrLeU
	iBrGtS
	iBrGtU
	iBrGeS
	iBrGeU
	iBrEqI
	iBrNeI
	iBrLtSI
	iBrLtUI
	iBrLeSI
	iBrLeUI
	iBrGtSI
	iBrGtUI
	iBrGeSI
	iBrGeUI
	iSwitch
	iCall
	iCallHost
	iRet
	iTrap

	numOpcodes
)

// opForms maps a bytecode opcode to its interpreter opcodes: the register
// form and, for ops that accept an immediate B operand, the immediate form.
var opForms [bytecode.NumOps][2]opcode

func init() {
	set := func(op bytecode.Op, reg, imm opcode) { opForms[op] = [2]opcode{reg, imm} }
	set(bytecode.OpI64Const, iConst, 0)
	set(bytecode.OpF64Const, iConst, 0)
	set(bytecode.OpMov, iMov, 0)
	set(bytecode.OpI64ReinterpretF64, iMov, 0)
	set(bytecode.OpF64ReinterpretI64, iMov, 0)
	for i, op := range []bytecode.Op{
		bytecode.OpI64Add, bytecode.OpI64Sub, bytecode.OpI64Mul, bytecode.OpI64DivS, bytecode.OpI64DivU,
		bytecode.OpI64RemS, bytecode.OpI64RemU, bytecode.OpI64And, bytecode.OpI64Or, bytecode.OpI64Xor,
		bytecode.OpI64Shl, bytecode.OpI64ShrS, bytecode.OpI64ShrU, bytecode.OpI64Rotl, bytecode.OpI64Rotr,
	} {
		set(op, iAdd+opcode(i), iAddI+opcode(i))
	}
	for i, op := range []bytecode.Op{
		bytecode.OpI64Neg, bytecode.OpI64Not, bytecode.OpI64Clz, bytecode.OpI64Ctz, bytecode.OpI64Popcnt,
		bytecode.OpI64Extend8S, bytecode.OpI64Extend16S, bytecode.OpI64Extend32S, bytecode.OpI64Extend32U,
	} {
		set(op, iNeg+opcode(i), 0)
	}
	for c := 0; c < 10; c++ {
		set(bytecode.OpI64Eq+bytecode.Op(c), iEq+opcode(c), iEqI+opcode(c))
		set(bytecode.OpBrEq+bytecode.Op(c), iBrEq+opcode(c), iBrEqI+opcode(c))
	}
	set(bytecode.OpSelect, iSelect, 0)
	for i, op := range []bytecode.Op{
		bytecode.OpF64Add, bytecode.OpF64Sub, bytecode.OpF64Mul, bytecode.OpF64Div, bytecode.OpF64Min,
		bytecode.OpF64Max, bytecode.OpF64Copysign, bytecode.OpF64Sqrt, bytecode.OpF64Neg, bytecode.OpF64Abs,
		bytecode.OpF64Floor, bytecode.OpF64Ceil, bytecode.OpF64Trunc, bytecode.OpF64Nearest,
		bytecode.OpF64Eq, bytecode.OpF64Ne, bytecode.OpF64Lt, bytecode.OpF64Le, bytecode.OpF64Gt, bytecode.OpF64Ge,
	} {
		set(op, iFAdd+opcode(i), 0)
	}
	for i, op := range []bytecode.Op{
		bytecode.OpF64ConvertI64S, bytecode.OpF64ConvertI64U, bytecode.OpI64TruncF64S,
		bytecode.OpI64TruncF64U, bytecode.OpI64TruncSatF64S, bytecode.OpI64TruncSatF64U,
	} {
		set(op, iConvS+opcode(i), 0)
	}
	for i, op := range []bytecode.Op{
		bytecode.OpI64Load8S, bytecode.OpI64Load8U, bytecode.OpI64Load16S, bytecode.OpI64Load16U,
		bytecode.OpI64Load32S, bytecode.OpI64Load32U, bytecode.OpI64Load,
	} {
		set(op, iLoad8S+opcode(i), 0)
	}
	set(bytecode.OpF64Load, iLoad64, 0)
	set(bytecode.OpI64Store8, iStore8, 0)
	set(bytecode.OpI64Store16, iStore16, 0)
	set(bytecode.OpI64Store32, iStore32, 0)
	set(bytecode.OpI64Store, iStore64, 0)
	set(bytecode.OpF64Store, iStore64, 0)
	set(bytecode.OpMemorySize, iMemSize, 0)
	set(bytecode.OpMemoryGrow, iMemGrow, 0)
	set(bytecode.OpJump, iJump, 0)
	set(bytecode.OpBrIf, iBrIf, 0)
	set(bytecode.OpSwitch, iSwitch, 0)
	set(bytecode.OpCall, iCall, 0)
	set(bytecode.OpCallHost, iCallHost, 0)
	set(bytecode.OpReturn, iRet, 0)
	set(bytecode.OpTrap, iTrap, 0)
}

// opFor returns the interpreter opcode of a bytecode op in register or
// immediate form.
func opFor(op bytecode.Op, useImm bool) (opcode, bool) {
	if !op.Valid() {
		return 0, false
	}
	forms := opForms[op]
	o := forms[0]
	if useImm {
		o = forms[1]
	}
	return o, o != iInvalid
}
