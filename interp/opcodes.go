package interp

import (
	"math"

	"github.com/kiln-jit/kiln/bytecode"
)

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

	// The 32-bit types. i32 operations whose result on zero-extended
	// operands is already zero-extended (and, or, xor, div_u, rem_u,
	// popcnt, the unsigned and equality compares and branches) and the
	// f32 sign-bit operations reuse the opcodes above; see init.
	iAdd32
	iSub32
	iMul32
	iDivS32
	iRemS32
	iShl32
	iShrS32
	iShrU32
	iRotl32
	iRotr32

	iAdd32I // also i32.sub with the negated immediate
	iMul32I
	iDivS32I
	iRemS32I
	iShl32I
	iShrS32I
	iShrU32I
	iRotl32I
	iRotr32I

	iNeg32
	iClz32
	iCtz32
	iExt8S32
	iExt16S32

	// Signed i32 compares and branches (the others reuse iEq..iGeU and
	// iBrEq..iBrGeU).
	iLtS32
	iLeS32
	iGtS32
	iGeS32
	iLtS32I
	iLeS32I
	iGtS32I
	iGeS32I
	iBrLtS32
	iBrLeS32
	iBrGtS32
	iBrGeS32
	iBrLtS32I
	iBrLeS32I
	iBrGtS32I
	iBrGeS32I

	iF32Add
	iF32Sub
	iF32Mul
	iF32Div
	iF32Min
	iF32Max
	iF32Copysign
	iF32Sqrt
	iF32Floor
	iF32Ceil
	iF32Trunc
	iF32Nearest
	iF32Eq
	iF32Ne
	iF32Lt
	iF32Le
	iF32Gt
	iF32Ge

	iF32DemoteF64
	iF64PromoteF32
	iF32ConvI32S
	iF32ConvI64S // also f32.convert_i32_u, on the zero-extended operand
	iF32ConvI64U
	iF64ConvI32S
	iTruncS32 // i32 <- f64
	iTruncU32
	iTruncS32F32 // i32 <- f32
	iTruncU32F32
	iTruncSF32 // i64 <- f32
	iTruncUF32
	iTruncSatS32
	iTruncSatU32
	iTruncSatS32F32
	iTruncSatU32F32
	iTruncSatSF32
	iTruncSatUF32

	iLoad8S32
	iLoad16S32
	iMemGrow32 // memory.grow with an i32 destination

	iGlobalGet    // d = global at byte offset a
	iGlobalSet    // global at byte offset d = a
	iCallIndirect // call table[a] if its signature id is d (lists as iCall)
	iUnreachable  // trap Unreachable
	iMemCopy      // copy c bytes from address b to address a
	iMemFill      // set c bytes from address a on to byte b
	iMemInit      // copy c bytes from offset b of data segment d to address a
	iDataDrop     // drop data segment d
	iTableGet     // d = entry a of table c
	iTableSet     // entry a of table c = b
	iTableSize    // d = size of table c
	iTableGrow    // d = old size of table c grown by b entries of a, or -1 (imm 1: as an i32)
	iTableFill    // set c entries of table imm from a on to b
	iTableCopy    // copy c entries from entry b of table imm to entry a of table d
	iTableInit    // copy c entries from element b of segment d to entry a of table imm
	iElemDrop     // drop element segment d
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
	set(bytecode.OpGlobalGet, iGlobalGet, 0)
	set(bytecode.OpGlobalSet, iGlobalSet, 0)
	set(bytecode.OpCallIndirect, iCallIndirect, 0)
	set(bytecode.OpUnreachable, iUnreachable, 0)
	set(bytecode.OpMemoryCopy, iMemCopy, 0)
	set(bytecode.OpMemoryFill, iMemFill, 0)
	set(bytecode.OpMemoryInit, iMemInit, 0)
	set(bytecode.OpDataDrop, iDataDrop, 0)
	set(bytecode.OpRefFunc, iConst, 0)
	set(bytecode.OpTableGet, iTableGet, 0)
	set(bytecode.OpTableSet, iTableSet, 0)
	set(bytecode.OpTableSize, iTableSize, 0)
	set(bytecode.OpTableGrow, iTableGrow, 0)
	set(bytecode.OpTableFill, iTableFill, 0)
	set(bytecode.OpTableCopy, iTableCopy, 0)
	set(bytecode.OpTableInit, iTableInit, 0)
	set(bytecode.OpElemDrop, iElemDrop, 0)
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

// immRule says how decodeFunc rewrites an instruction's Imm for its
// interpreter opcode.
type immRule struct {
	kind uint8
	val  int64 // the immediate of immSet
}

const (
	immKeep uint8 = iota // as it is (i64 values, offsets, signed i32 immediates)
	immZext              // the zero-extended low 32 bits (i32 immediates, f32 bits)
	immNeg               // the zero-extended low 32 bits of -Imm (i32.sub)
	immSet               // the constant val (unary ops run as an immediate op)
)

var immRules [bytecode.NumOps]immRule

// The 32-bit types. Registers hold i32 and f32 values zero-extended, so an
// i32 op whose result on zero-extended operands is zero-extended runs as
// the i64 op, with its immediate zero-extended; only signed and wrapping
// operations need their own opcodes.
func init() {
	set := func(op bytecode.Op, reg, imm opcode) { opForms[op] = [2]opcode{reg, imm} }
	zext := func(op bytecode.Op, reg, imm opcode) {
		set(op, reg, imm)
		immRules[op] = immRule{kind: immZext}
	}
	unaryImm := func(op bytecode.Op, o opcode, v int64) {
		set(op, o, 0)
		immRules[op] = immRule{kind: immSet, val: v}
	}

	zext(bytecode.OpI32Const, iConst, 0)
	zext(bytecode.OpF32Const, iConst, 0)

	zext(bytecode.OpI32Add, iAdd32, iAdd32I)
	set(bytecode.OpI32Sub, iSub32, iAdd32I)
	immRules[bytecode.OpI32Sub] = immRule{kind: immNeg}
	zext(bytecode.OpI32Mul, iMul32, iMul32I)
	set(bytecode.OpI32DivS, iDivS32, iDivS32I)
	zext(bytecode.OpI32DivU, iDivU, iDivUI)
	set(bytecode.OpI32RemS, iRemS32, iRemS32I)
	zext(bytecode.OpI32RemU, iRemU, iRemUI)
	zext(bytecode.OpI32And, iAnd, iAndI)
	zext(bytecode.OpI32Or, iOr, iOrI)
	zext(bytecode.OpI32Xor, iXor, iXorI)
	zext(bytecode.OpI32Shl, iShl32, iShl32I)
	zext(bytecode.OpI32ShrS, iShrS32, iShrS32I)
	zext(bytecode.OpI32ShrU, iShrU32, iShrU32I)
	zext(bytecode.OpI32Rotl, iRotl32, iRotl32I)
	zext(bytecode.OpI32Rotr, iRotr32, iRotr32I)

	set(bytecode.OpI32Neg, iNeg32, 0)
	unaryImm(bytecode.OpI32Not, iXorI, math.MaxUint32)
	set(bytecode.OpI32Clz, iClz32, 0)
	set(bytecode.OpI32Ctz, iCtz32, 0)
	set(bytecode.OpI32Popcnt, iPopcnt, 0)
	set(bytecode.OpI32Extend8S, iExt8S32, 0)
	set(bytecode.OpI32Extend16S, iExt16S32, 0)
	unaryImm(bytecode.OpI32Eqz, iEqI, 0)
	unaryImm(bytecode.OpI64Eqz, iEqI, 0)

	// Compares and compare-branches: eq, ne and the unsigned conditions
	// give the same answer on the zero-extended values.
	signed := map[bytecode.Cond][4]opcode{
		bytecode.CondLtS: {iLtS32, iLtS32I, iBrLtS32, iBrLtS32I},
		bytecode.CondLeS: {iLeS32, iLeS32I, iBrLeS32, iBrLeS32I},
		bytecode.CondGtS: {iGtS32, iGtS32I, iBrGtS32, iBrGtS32I},
		bytecode.CondGeS: {iGeS32, iGeS32I, iBrGeS32, iBrGeS32I},
	}
	for c := bytecode.CondEq; c <= bytecode.CondGeU; c++ {
		cmp, br := bytecode.OpI32Eq+bytecode.Op(c), bytecode.OpBrI32Eq+bytecode.Op(c)
		if s, ok := signed[c]; ok {
			set(cmp, s[0], s[1])
			set(br, s[2], s[3])
			continue
		}
		zext(cmp, iEq+opcode(c), iEqI+opcode(c))
		zext(br, iBrEq+opcode(c), iBrEqI+opcode(c))
	}

	for i, op := range []bytecode.Op{
		bytecode.OpF32Add, bytecode.OpF32Sub, bytecode.OpF32Mul, bytecode.OpF32Div, bytecode.OpF32Min,
		bytecode.OpF32Max, bytecode.OpF32Copysign, bytecode.OpF32Sqrt,
	} {
		set(op, iF32Add+opcode(i), 0)
	}
	unaryImm(bytecode.OpF32Neg, iXorI, 1<<31)
	unaryImm(bytecode.OpF32Abs, iAndI, 1<<31-1)
	for i, op := range []bytecode.Op{
		bytecode.OpF32Floor, bytecode.OpF32Ceil, bytecode.OpF32Trunc, bytecode.OpF32Nearest,
		bytecode.OpF32Eq, bytecode.OpF32Ne, bytecode.OpF32Lt, bytecode.OpF32Le, bytecode.OpF32Gt, bytecode.OpF32Ge,
	} {
		set(op, iF32Floor+opcode(i), 0)
	}

	for op, o := range map[bytecode.Op]opcode{
		bytecode.OpI32WrapI64:        iExt32U,
		bytecode.OpI64ExtendI32S:     iExt32S,
		bytecode.OpI64ExtendI32U:     iMov,
		bytecode.OpF32DemoteF64:      iF32DemoteF64,
		bytecode.OpF64PromoteF32:     iF64PromoteF32,
		bytecode.OpF32ConvertI32S:    iF32ConvI32S,
		bytecode.OpF32ConvertI32U:    iF32ConvI64S,
		bytecode.OpF32ConvertI64S:    iF32ConvI64S,
		bytecode.OpF32ConvertI64U:    iF32ConvI64U,
		bytecode.OpF64ConvertI32S:    iF64ConvI32S,
		bytecode.OpF64ConvertI32U:    iConvS,
		bytecode.OpI32TruncF32S:      iTruncS32F32,
		bytecode.OpI32TruncF32U:      iTruncU32F32,
		bytecode.OpI32TruncF64S:      iTruncS32,
		bytecode.OpI32TruncF64U:      iTruncU32,
		bytecode.OpI64TruncF32S:      iTruncSF32,
		bytecode.OpI64TruncF32U:      iTruncUF32,
		bytecode.OpI32TruncSatF32S:   iTruncSatS32F32,
		bytecode.OpI32TruncSatF32U:   iTruncSatU32F32,
		bytecode.OpI32TruncSatF64S:   iTruncSatS32,
		bytecode.OpI32TruncSatF64U:   iTruncSatU32,
		bytecode.OpI64TruncSatF32S:   iTruncSatSF32,
		bytecode.OpI64TruncSatF32U:   iTruncSatUF32,
		bytecode.OpI32ReinterpretF32: iMov,
		bytecode.OpF32ReinterpretI32: iMov,

		bytecode.OpI32Load8S:  iLoad8S32,
		bytecode.OpI32Load8U:  iLoad8U,
		bytecode.OpI32Load16S: iLoad16S32,
		bytecode.OpI32Load16U: iLoad16U,
		bytecode.OpI32Load:    iLoad32U,
		bytecode.OpF32Load:    iLoad32U,
		bytecode.OpI32Store8:  iStore8,
		bytecode.OpI32Store16: iStore16,
		bytecode.OpI32Store:   iStore32,
		bytecode.OpF32Store:   iStore32,
	} {
		set(op, o, 0)
	}
}
