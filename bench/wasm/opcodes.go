package wasm

// Opcode is the one-byte opcode of an instruction emitted with Func.Op (no
// immediates) or Func.Mem (a load or store).
type Opcode byte

// Control opcodes, emitted by the Func methods of the same names.
const (
	opBlock    = 0x02
	opLoop     = 0x03
	opIf       = 0x04
	opElse     = 0x05
	opEnd      = 0x0b
	opBr       = 0x0c
	opBrIf     = 0x0d
	opBrTable  = 0x0e
	opReturn   = 0x0f
	opCall     = 0x10
	opLocalGet = 0x20
	opLocalSet = 0x21
	opLocalTee = 0x22
	opI32Const = 0x41
	opI64Const = 0x42
	opF32Const = 0x43
	opF64Const = 0x44
)

// Parametric instructions.
const (
	Unreachable Opcode = 0x00
	Nop         Opcode = 0x01
	Drop        Opcode = 0x1a
	Select      Opcode = 0x1b
)

// Loads and stores, for Func.Mem.
const (
	I32Load    Opcode = 0x28
	I64Load    Opcode = 0x29
	F32Load    Opcode = 0x2a
	F64Load    Opcode = 0x2b
	I32Load8S  Opcode = 0x2c
	I32Load8U  Opcode = 0x2d
	I32Load16S Opcode = 0x2e
	I32Load16U Opcode = 0x2f
	I64Load8S  Opcode = 0x30
	I64Load8U  Opcode = 0x31
	I64Load16S Opcode = 0x32
	I64Load16U Opcode = 0x33
	I64Load32S Opcode = 0x34
	I64Load32U Opcode = 0x35
	I32Store   Opcode = 0x36
	I64Store   Opcode = 0x37
	F32Store   Opcode = 0x38
	F64Store   Opcode = 0x39
	I32Store8  Opcode = 0x3a
	I32Store16 Opcode = 0x3b
	I64Store8  Opcode = 0x3c
	I64Store16 Opcode = 0x3d
	I64Store32 Opcode = 0x3e
)

// i32 comparisons.
const (
	I32Eqz Opcode = 0x45 + iota
	I32Eq
	I32Ne
	I32LtS
	I32LtU
	I32GtS
	I32GtU
	I32LeS
	I32LeU
	I32GeS
	I32GeU
)

// i64 comparisons.
const (
	I64Eqz Opcode = 0x50 + iota
	I64Eq
	I64Ne
	I64LtS
	I64LtU
	I64GtS
	I64GtU
	I64LeS
	I64LeU
	I64GeS
	I64GeU
)

// f32 comparisons.
const (
	F32Eq Opcode = 0x5b + iota
	F32Ne
	F32Lt
	F32Gt
	F32Le
	F32Ge
)

// f64 comparisons.
const (
	F64Eq Opcode = 0x61 + iota
	F64Ne
	F64Lt
	F64Gt
	F64Le
	F64Ge
)

// i32 arithmetic.
const (
	I32Clz Opcode = 0x67 + iota
	I32Ctz
	I32Popcnt
	I32Add
	I32Sub
	I32Mul
	I32DivS
	I32DivU
	I32RemS
	I32RemU
	I32And
	I32Or
	I32Xor
	I32Shl
	I32ShrS
	I32ShrU
	I32Rotl
	I32Rotr
)

// i64 arithmetic.
const (
	I64Clz Opcode = 0x79 + iota
	I64Ctz
	I64Popcnt
	I64Add
	I64Sub
	I64Mul
	I64DivS
	I64DivU
	I64RemS
	I64RemU
	I64And
	I64Or
	I64Xor
	I64Shl
	I64ShrS
	I64ShrU
	I64Rotl
	I64Rotr
)

// f32 arithmetic.
const (
	F32Abs Opcode = 0x8b + iota
	F32Neg
	F32Ceil
	F32Floor
	F32Trunc
	F32Nearest
	F32Sqrt
	F32Add
	F32Sub
	F32Mul
	F32Div
	F32Min
	F32Max
	F32Copysign
)

// f64 arithmetic.
const (
	F64Abs Opcode = 0x99 + iota
	F64Neg
	F64Ceil
	F64Floor
	F64Trunc
	F64Nearest
	F64Sqrt
	F64Add
	F64Sub
	F64Mul
	F64Div
	F64Min
	F64Max
	F64Copysign
)

// Conversions between i32, i64, f32 and f64, and reinterpretations of
// their bits.
const (
	I32WrapI64 Opcode = 0xa7 + iota
	I32TruncF32S
	I32TruncF32U
	I32TruncF64S
	I32TruncF64U
	I64ExtendI32S
	I64ExtendI32U
	I64TruncF32S
	I64TruncF32U
	I64TruncF64S
	I64TruncF64U
	F32ConvertI32S
	F32ConvertI32U
	F32ConvertI64S
	F32ConvertI64U
	F32DemoteF64
	F64ConvertI32S
	F64ConvertI32U
	F64ConvertI64S
	F64ConvertI64U
	F64PromoteF32
	I32ReinterpretF32
	I64ReinterpretF64
	F32ReinterpretI32
	F64ReinterpretI64
)

type opProps struct {
	memory    bool   // a load or store, with a memory argument
	alignLog2 uint32 // its natural alignment
}

// opInfo lists the opcodes Func.Op and Func.Mem accept.
var opInfo = map[Opcode]opProps{}

func init() {
	plain := func(from, to Opcode) {
		for op := from; op <= to; op++ {
			opInfo[op] = opProps{}
		}
	}
	plain(Unreachable, Nop)
	plain(Drop, Select)
	plain(I32Eqz, F64ReinterpretI64) // the numeric instructions of WebAssembly 1.0
	for op, align := range map[Opcode]uint32{
		I32Load: 2, I64Load: 3, F32Load: 2, F64Load: 3, I32Load8S: 0, I32Load8U: 0, I32Load16S: 1, I32Load16U: 1,
		I64Load8S: 0, I64Load8U: 0, I64Load16S: 1, I64Load16U: 1, I64Load32S: 2, I64Load32U: 2,
		I32Store: 2, I64Store: 3, F32Store: 2, F64Store: 3, I32Store8: 0, I32Store16: 1, I64Store8: 0, I64Store16: 1,
		I64Store32: 2,
	} {
		opInfo[op] = opProps{memory: true, alignLog2: align}
	}
}
