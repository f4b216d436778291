package translate

import (
	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/wasm/binary"
)

// kilnType maps a Wasm value type to the kiln register type.
func kilnType(t binary.ValType) bc.Type {
	switch t {
	case binary.I32:
		return bc.I32
	case binary.I64:
		return bc.I64
	case binary.F32:
		return bc.F32
	case binary.F64:
		return bc.F64
	case binary.FuncRef, binary.ExternRef:
		return bc.I64 // a reference value (see bytecode's tables)
	}
	return 0
}

func kilnTypes(ts []binary.ValType) []bc.Type {
	out := make([]bc.Type, len(ts))
	for i, t := range ts {
		out[i] = kilnType(t)
	}
	return out
}

// numOps maps every numeric Wasm opcode (0x45-0xBF, the sign-extension
// operators and the saturating truncations) to its kiln op. The integer
// comparisons are also described by cmpConds, for fusing them into
// branches.
var numOps = map[binary.Opcode]bc.Op{
	binary.OpI32Extend8S: bc.OpI32Extend8S, binary.OpI32Extend16S: bc.OpI32Extend16S,
	binary.OpI64Extend8S: bc.OpI64Extend8S, binary.OpI64Extend16S: bc.OpI64Extend16S,
	binary.OpI64Extend32S:    bc.OpI64Extend32S,
	binary.OpI32TruncSatF32S: bc.OpI32TruncSatF32S, binary.OpI32TruncSatF32U: bc.OpI32TruncSatF32U,
	binary.OpI32TruncSatF64S: bc.OpI32TruncSatF64S, binary.OpI32TruncSatF64U: bc.OpI32TruncSatF64U,
	binary.OpI64TruncSatF32S: bc.OpI64TruncSatF32S, binary.OpI64TruncSatF32U: bc.OpI64TruncSatF32U,
	binary.OpI64TruncSatF64S: bc.OpI64TruncSatF64S, binary.OpI64TruncSatF64U: bc.OpI64TruncSatF64U,
}

// wasmConds lists the kiln conditions of the Wasm integer comparisons
// in Wasm's order (eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u).
var wasmConds = [10]bc.Cond{bc.CondEq, bc.CondNe, bc.CondLtS, bc.CondLtU, bc.CondGtS, bc.CondGtU,
	bc.CondLeS, bc.CondLeU, bc.CondGeS, bc.CondGeU}

func init() {
	numOps[binary.OpI32Eqz] = bc.OpI32Eqz
	numOps[binary.OpI64Eqz] = bc.OpI64Eqz
	for k, c := range wasmConds {
		numOps[binary.Opcode(0x46+k)] = bc.OpI32Eq + bc.Op(c)
		numOps[binary.Opcode(0x51+k)] = bc.OpI64Eq + bc.Op(c)
	}
	// f32 and f64 comparisons: Wasm eq ne lt gt le ge; kiln eq ne lt le gt ge.
	for k, off := range []bc.Op{0, 1, 2, 4, 3, 5} {
		numOps[binary.Opcode(0x5B+k)] = bc.OpF32Eq + off
		numOps[binary.Opcode(0x61+k)] = bc.OpF64Eq + off
	}
	numOps[0x67], numOps[0x68], numOps[0x69] = bc.OpI32Clz, bc.OpI32Ctz, bc.OpI32Popcnt
	numOps[0x79], numOps[0x7A], numOps[0x7B] = bc.OpI64Clz, bc.OpI64Ctz, bc.OpI64Popcnt
	// add sub mul div_s div_u rem_s rem_u and or xor shl shr_s shr_u rotl
	// rotr: the same order in both.
	for k := 0; k < 15; k++ {
		numOps[binary.Opcode(0x6A+k)] = bc.OpI32Add + bc.Op(k)
		numOps[binary.Opcode(0x7C+k)] = bc.OpI64Add + bc.Op(k)
	}
	// Wasm abs neg ceil floor trunc nearest sqrt.
	for k, op := range []bc.Op{bc.OpF32Abs, bc.OpF32Neg, bc.OpF32Ceil, bc.OpF32Floor, bc.OpF32Trunc, bc.OpF32Nearest, bc.OpF32Sqrt} {
		numOps[binary.Opcode(0x8B+k)] = op
	}
	for k, op := range []bc.Op{bc.OpF64Abs, bc.OpF64Neg, bc.OpF64Ceil, bc.OpF64Floor, bc.OpF64Trunc, bc.OpF64Nearest, bc.OpF64Sqrt} {
		numOps[binary.Opcode(0x99+k)] = op
	}
	// add sub mul div min max copysign: the same order in both.
	for k := 0; k < 7; k++ {
		numOps[binary.Opcode(0x92+k)] = bc.OpF32Add + bc.Op(k)
		numOps[binary.Opcode(0xA0+k)] = bc.OpF64Add + bc.Op(k)
	}
	for k, op := range []bc.Op{
		bc.OpI32WrapI64, bc.OpI32TruncF32S, bc.OpI32TruncF32U, bc.OpI32TruncF64S, bc.OpI32TruncF64U,
		bc.OpI64ExtendI32S, bc.OpI64ExtendI32U, bc.OpI64TruncF32S, bc.OpI64TruncF32U, bc.OpI64TruncF64S,
		bc.OpI64TruncF64U, bc.OpF32ConvertI32S, bc.OpF32ConvertI32U, bc.OpF32ConvertI64S, bc.OpF32ConvertI64U,
		bc.OpF32DemoteF64, bc.OpF64ConvertI32S, bc.OpF64ConvertI32U, bc.OpF64ConvertI64S, bc.OpF64ConvertI64U,
		bc.OpF64PromoteF32, bc.OpI32ReinterpretF32, bc.OpI64ReinterpretF64, bc.OpF32ReinterpretI32,
		bc.OpF64ReinterpretI64,
	} {
		numOps[binary.Opcode(0xA7+k)] = op
	}
}

// memOps maps the Wasm loads and stores to kiln's.
var memOps = map[binary.Opcode]bc.Op{
	binary.OpI32Load: bc.OpI32Load, binary.OpI64Load: bc.OpI64Load,
	binary.OpF32Load: bc.OpF32Load, binary.OpF64Load: bc.OpF64Load,
	binary.OpI32Load8S: bc.OpI32Load8S, binary.OpI32Load8U: bc.OpI32Load8U,
	binary.OpI32Load16S: bc.OpI32Load16S, binary.OpI32Load16U: bc.OpI32Load16U,
	binary.OpI64Load8S: bc.OpI64Load8S, binary.OpI64Load8U: bc.OpI64Load8U,
	binary.OpI64Load16S: bc.OpI64Load16S, binary.OpI64Load16U: bc.OpI64Load16U,
	binary.OpI64Load32S: bc.OpI64Load32S, binary.OpI64Load32U: bc.OpI64Load32U,
	binary.OpI32Store: bc.OpI32Store, binary.OpI64Store: bc.OpI64Store,
	binary.OpF32Store: bc.OpF32Store, binary.OpF64Store: bc.OpF64Store,
	binary.OpI32Store8: bc.OpI32Store8, binary.OpI32Store16: bc.OpI32Store16,
	binary.OpI64Store8: bc.OpI64Store8, binary.OpI64Store16: bc.OpI64Store16,
	binary.OpI64Store32: bc.OpI64Store32,
}

// intCompare returns the kiln condition and operand type of a Wasm
// integer comparison.
func intCompare(op binary.Opcode) (bc.Cond, bc.Type, bool) {
	switch {
	case op >= binary.OpI32Eq && op <= binary.OpI32GeU:
		return wasmConds[op-binary.OpI32Eq], bc.I32, true
	case op >= binary.OpI64Eq && op <= binary.OpI64GeU:
		return wasmConds[op-binary.OpI64Eq], bc.I64, true
	}
	return 0, 0, false
}

// cmpOp returns the kiln compare (branch false) or compare-and-branch
// (branch true) op of condition c on operands of type t.
func cmpOp(c bc.Cond, t bc.Type, branch bool) bc.Op {
	switch {
	case t == bc.I32 && branch:
		return bc.OpBrI32Eq + bc.Op(c)
	case t == bc.I32:
		return bc.OpI32Eq + bc.Op(c)
	case branch:
		return bc.OpBrEq + bc.Op(c)
	}
	return bc.OpI64Eq + bc.Op(c)
}

// commutative reports whether a kiln binary op gives the same result with
// its operands swapped.
func commutative(op bc.Op) bool {
	switch op {
	case bc.OpI32Add, bc.OpI32Mul, bc.OpI32And, bc.OpI32Or, bc.OpI32Xor,
		bc.OpI64Add, bc.OpI64Mul, bc.OpI64And, bc.OpI64Or, bc.OpI64Xor:
		return true
	}
	return false
}
