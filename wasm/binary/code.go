package binary

import "fmt"

// Opcode is a WebAssembly instruction opcode: the opcode byte, or for
// the instructions behind a prefix byte (0xFC: saturating truncation,
// bulk memory and table instructions; 0xFD: SIMD) the prefix times 256
// plus the sub-opcode (which the binary format encodes as a LEB128 u32;
// every defined one is below 256).
type Opcode uint16

// The control, parametric, variable, memory and constant opcodes. The
// numeric opcodes (0x45-0xBF) are named by Opcode.String and typed by
// Opcode.Numeric.
const (
	OpUnreachable  Opcode = 0x00
	OpNop          Opcode = 0x01
	OpBlock        Opcode = 0x02
	OpLoop         Opcode = 0x03
	OpIf           Opcode = 0x04
	OpElse         Opcode = 0x05
	OpEnd          Opcode = 0x0B
	OpBr           Opcode = 0x0C
	OpBrIf         Opcode = 0x0D
	OpBrTable      Opcode = 0x0E
	OpReturn       Opcode = 0x0F
	OpCall         Opcode = 0x10
	OpCallIndirect Opcode = 0x11
	OpDrop         Opcode = 0x1A
	OpSelect       Opcode = 0x1B
	OpSelectT      Opcode = 0x1C // select with a vector of value types
	OpLocalGet     Opcode = 0x20
	OpLocalSet     Opcode = 0x21
	OpLocalTee     Opcode = 0x22
	OpGlobalGet    Opcode = 0x23
	OpGlobalSet    Opcode = 0x24
	OpTableGet     Opcode = 0x25
	OpTableSet     Opcode = 0x26
	OpI32Load      Opcode = 0x28
	OpI64Load      Opcode = 0x29
	OpF32Load      Opcode = 0x2A
	OpF64Load      Opcode = 0x2B
	OpI32Load8S    Opcode = 0x2C
	OpI32Load8U    Opcode = 0x2D
	OpI32Load16S   Opcode = 0x2E
	OpI32Load16U   Opcode = 0x2F
	OpI64Load8S    Opcode = 0x30
	OpI64Load8U    Opcode = 0x31
	OpI64Load16S   Opcode = 0x32
	OpI64Load16U   Opcode = 0x33
	OpI64Load32S   Opcode = 0x34
	OpI64Load32U   Opcode = 0x35
	OpI32Store     Opcode = 0x36
	OpI64Store     Opcode = 0x37
	OpF32Store     Opcode = 0x38
	OpF64Store     Opcode = 0x39
	OpI32Store8    Opcode = 0x3A
	OpI32Store16   Opcode = 0x3B
	OpI64Store8    Opcode = 0x3C
	OpI64Store16   Opcode = 0x3D
	OpI64Store32   Opcode = 0x3E
	OpMemorySize   Opcode = 0x3F
	OpMemoryGrow   Opcode = 0x40
	OpI32Const     Opcode = 0x41
	OpI64Const     Opcode = 0x42
	OpF32Const     Opcode = 0x43
	OpF64Const     Opcode = 0x44

	// Numeric opcodes the translator treats specially.
	OpI32Eqz Opcode = 0x45
	OpI32Eq  Opcode = 0x46
	OpI32GeU Opcode = 0x4F
	OpI64Eqz Opcode = 0x50
	OpI64Eq  Opcode = 0x51
	OpI64GeU Opcode = 0x5A

	// The sign-extension operators.
	OpI32Extend8S  Opcode = 0xC0
	OpI32Extend16S Opcode = 0xC1
	OpI64Extend8S  Opcode = 0xC2
	OpI64Extend16S Opcode = 0xC3
	OpI64Extend32S Opcode = 0xC4

	// The reference instructions.
	OpRefNull   Opcode = 0xD0
	OpRefIsNull Opcode = 0xD1
	OpRefFunc   Opcode = 0xD2
)

// The prefix bytes of two-byte opcodes.
const (
	PrefixFC   = 0xFC
	PrefixSIMD = 0xFD
)

// The instructions of prefix 0xFC: the non-trapping float-to-int
// conversions, then bulk memory and table instructions.
const (
	OpI32TruncSatF32S Opcode = PrefixFC<<8 + iota
	OpI32TruncSatF32U
	OpI32TruncSatF64S
	OpI32TruncSatF64U
	OpI64TruncSatF32S
	OpI64TruncSatF32U
	OpI64TruncSatF64S
	OpI64TruncSatF64U
	OpMemoryInit
	OpDataDrop
	OpMemoryCopy
	OpMemoryFill
	OpTableInit
	OpElemDrop
	OpTableCopy
	OpTableGrow
	OpTableSize
	OpTableFill
)

// Features are the proposals merged into WebAssembly 2.0, each of which a
// decoder may accept or reject as WebAssembly 1.0 does.
type Features uint32

// The features of WebAssembly 2.0 beyond 1.0.
const (
	// FeatureSignExtension: i32.extend8_s and the other sign-extension
	// operators (0xC0-0xC4).
	FeatureSignExtension Features = 1 << iota
	// FeatureSaturatingConversions: the non-trapping float-to-int
	// conversions (0xFC 0-7).
	FeatureSaturatingConversions
	// FeatureMultiValue: block types given by a type index, and functions
	// and blocks with several results.
	FeatureMultiValue
	// FeatureBulkMemory: memory.init, data.drop, memory.copy,
	// memory.fill, table.init, elem.drop, table.copy, passive segments
	// and the data count section.
	FeatureBulkMemory
	// FeatureReferenceTypes: funcref and externref values, several
	// tables, the table instructions, typed select, call_indirect's table
	// index and element segments of expressions.
	FeatureReferenceTypes
	// FeatureSIMD: the v128 type and the instructions of prefix 0xFD.
	FeatureSIMD

	// Features1 is WebAssembly 1.0: none of the above.
	Features1 Features = 0
	// Features2 is WebAssembly 2.0: all of the above.
	Features2 = FeatureSignExtension | FeatureSaturatingConversions | FeatureMultiValue |
		FeatureBulkMemory | FeatureReferenceTypes | FeatureSIMD
)

// Has reports whether every feature of g is in f.
func (f Features) Has(g Features) bool { return f&g == g }

// Name names the feature ("bulk memory"); f must be a single feature.
func (f Features) Name() string {
	switch f {
	case FeatureSignExtension:
		return "sign extension"
	case FeatureSaturatingConversions:
		return "non-trapping float-to-int conversions"
	case FeatureMultiValue:
		return "multi-value"
	case FeatureBulkMemory:
		return "bulk memory"
	case FeatureReferenceTypes:
		return "reference types"
	case FeatureSIMD:
		return "SIMD"
	}
	return fmt.Sprintf("features(%#x)", uint32(f))
}

// immKind is the shape of an opcode's immediates.
type immKind uint8

const (
	immNone immKind = iota
	immBlock
	immLabel
	immBrTable
	immFunc
	immCallIndirect
	immLocal
	immGlobal
	immMem
	immZero // memory.size, memory.grow, memory.fill: a reserved 0x00 byte
	immI32
	immI64
	immF32
	immF64
	immTypes    // select t*: a vector of value types
	immTable    // a table index
	immRefType  // ref.null: a reference type
	immDataZero // memory.init: a data index and a reserved 0x00 byte
	immZeroZero // memory.copy: two reserved 0x00 bytes
	immTwo      // table.init (element, table), table.copy (table, table)
	immV128     // v128.const, i8x16.shuffle: 16 bytes
	immLane     // extract and replace lane: a lane index byte
	immMemLane  // load and store lane: a memory argument and a lane index
)

type opInfo struct {
	name string
	imm  immKind
	// feat is the feature the instruction belongs to (0 for 1.0).
	feat Features
	// numeric marks the operators typed by in and out alone.
	numeric bool
	// For numeric, load, store and const instructions: the operand types
	// (in order, nIn of them) and the result type (0 for none).
	in  [2]ValType
	nIn uint8
	out ValType
	// size is the natural alignment, in bytes, of a load or store.
	size uint8
}

// ops holds the one-byte opcodes, fcOps and simdOps those of the two
// prefixes by sub-opcode.
var ops, fcOps, simdOps [256]*opInfo

func info(op Opcode) *opInfo {
	switch op >> 8 {
	case 0:
		return ops[op]
	case PrefixFC:
		return fcOps[op&0xff]
	case PrefixSIMD:
		return simdOps[op&0xff]
	}
	return nil
}

func def(op Opcode, name string, imm immKind) *opInfo {
	i := &opInfo{name: name, imm: imm}
	switch op >> 8 {
	case 0:
		ops[op] = i
	case PrefixFC:
		fcOps[op&0xff] = i
	default:
		simdOps[op&0xff] = i
	}
	return i
}
func init() {
	def(OpUnreachable, "unreachable", immNone)
	def(OpNop, "nop", immNone)
	def(OpBlock, "block", immBlock)
	def(OpLoop, "loop", immBlock)
	def(OpIf, "if", immBlock)
	def(OpElse, "else", immNone)
	def(OpEnd, "end", immNone)
	def(OpBr, "br", immLabel)
	def(OpBrIf, "br_if", immLabel)
	def(OpBrTable, "br_table", immBrTable)
	def(OpReturn, "return", immNone)
	def(OpCall, "call", immFunc)
	def(OpCallIndirect, "call_indirect", immCallIndirect)
	def(OpDrop, "drop", immNone)
	def(OpSelect, "select", immNone)
	def(OpLocalGet, "local.get", immLocal)
	def(OpLocalSet, "local.set", immLocal)
	def(OpLocalTee, "local.tee", immLocal)
	def(OpGlobalGet, "global.get", immGlobal)
	def(OpGlobalSet, "global.set", immGlobal)
	for _, l := range []struct {
		op   Opcode
		name string
		t    ValType
		size uint8
	}{
		{OpI32Load, "i32.load", I32, 4}, {OpI64Load, "i64.load", I64, 8},
		{OpF32Load, "f32.load", F32, 4}, {OpF64Load, "f64.load", F64, 8},
		{OpI32Load8S, "i32.load8_s", I32, 1}, {OpI32Load8U, "i32.load8_u", I32, 1},
		{OpI32Load16S, "i32.load16_s", I32, 2}, {OpI32Load16U, "i32.load16_u", I32, 2},
		{OpI64Load8S, "i64.load8_s", I64, 1}, {OpI64Load8U, "i64.load8_u", I64, 1},
		{OpI64Load16S, "i64.load16_s", I64, 2}, {OpI64Load16U, "i64.load16_u", I64, 2},
		{OpI64Load32S, "i64.load32_s", I64, 4}, {OpI64Load32U, "i64.load32_u", I64, 4},
	} {
		i := def(l.op, l.name, immMem)
		i.in, i.nIn, i.out, i.size = [2]ValType{I32}, 1, l.t, l.size
	}
	for _, s := range []struct {
		op   Opcode
		name string
		t    ValType
		size uint8
	}{
		{OpI32Store, "i32.store", I32, 4}, {OpI64Store, "i64.store", I64, 8},
		{OpF32Store, "f32.store", F32, 4}, {OpF64Store, "f64.store", F64, 8},
		{OpI32Store8, "i32.store8", I32, 1}, {OpI32Store16, "i32.store16", I32, 2},
		{OpI64Store8, "i64.store8", I64, 1}, {OpI64Store16, "i64.store16", I64, 2},
		{OpI64Store32, "i64.store32", I64, 4},
	} {
		i := def(s.op, s.name, immMem)
		i.in, i.nIn, i.size = [2]ValType{I32, s.t}, 2, s.size
	}
	def(OpMemorySize, "memory.size", immZero).out = I32
	g := def(OpMemoryGrow, "memory.grow", immZero)
	g.in, g.nIn, g.out = [2]ValType{I32}, 1, I32
	def(OpI32Const, "i32.const", immI32).out = I32
	def(OpI64Const, "i64.const", immI64).out = I64
	def(OpF32Const, "f32.const", immF32).out = F32
	def(OpF64Const, "f64.const", immF64).out = F64

	unary := func(op Opcode, name string, in, out ValType) *opInfo {
		i := def(op, name, immNone)
		i.in, i.nIn, i.out, i.numeric = [2]ValType{in}, 1, out, true
		return i
	}
	binary := func(op Opcode, name string, in, out ValType) {
		i := def(op, name, immNone)
		i.in, i.nIn, i.out, i.numeric = [2]ValType{in, in}, 2, out, true
	}
	unary(0x45, "i32.eqz", I32, I32)
	for k, n := range []string{"eq", "ne", "lt_s", "lt_u", "gt_s", "gt_u", "le_s", "le_u", "ge_s", "ge_u"} {
		binary(0x46+Opcode(k), "i32."+n, I32, I32)
		binary(0x51+Opcode(k), "i64."+n, I64, I32)
	}
	unary(0x50, "i64.eqz", I64, I32)
	for k, n := range []string{"eq", "ne", "lt", "gt", "le", "ge"} {
		binary(0x5B+Opcode(k), "f32."+n, F32, I32)
		binary(0x61+Opcode(k), "f64."+n, F64, I32)
	}
	for k, n := range []string{"clz", "ctz", "popcnt"} {
		unary(0x67+Opcode(k), "i32."+n, I32, I32)
		unary(0x79+Opcode(k), "i64."+n, I64, I64)
	}
	for k, n := range []string{"add", "sub", "mul", "div_s", "div_u", "rem_s", "rem_u", "and", "or", "xor",
		"shl", "shr_s", "shr_u", "rotl", "rotr"} {
		binary(0x6A+Opcode(k), "i32."+n, I32, I32)
		binary(0x7C+Opcode(k), "i64."+n, I64, I64)
	}
	for k, n := range []string{"abs", "neg", "ceil", "floor", "trunc", "nearest", "sqrt"} {
		unary(0x8B+Opcode(k), "f32."+n, F32, F32)
		unary(0x99+Opcode(k), "f64."+n, F64, F64)
	}
	for k, n := range []string{"add", "sub", "mul", "div", "min", "max", "copysign"} {
		binary(0x92+Opcode(k), "f32."+n, F32, F32)
		binary(0xA0+Opcode(k), "f64."+n, F64, F64)
	}
	for _, c := range []struct {
		op      Opcode
		name    string
		in, out ValType
	}{
		{0xA7, "i32.wrap_i64", I64, I32},
		{0xA8, "i32.trunc_f32_s", F32, I32}, {0xA9, "i32.trunc_f32_u", F32, I32},
		{0xAA, "i32.trunc_f64_s", F64, I32}, {0xAB, "i32.trunc_f64_u", F64, I32},
		{0xAC, "i64.extend_i32_s", I32, I64}, {0xAD, "i64.extend_i32_u", I32, I64},
		{0xAE, "i64.trunc_f32_s", F32, I64}, {0xAF, "i64.trunc_f32_u", F32, I64},
		{0xB0, "i64.trunc_f64_s", F64, I64}, {0xB1, "i64.trunc_f64_u", F64, I64},
		{0xB2, "f32.convert_i32_s", I32, F32}, {0xB3, "f32.convert_i32_u", I32, F32},
		{0xB4, "f32.convert_i64_s", I64, F32}, {0xB5, "f32.convert_i64_u", I64, F32},
		{0xB6, "f32.demote_f64", F64, F32},
		{0xB7, "f64.convert_i32_s", I32, F64}, {0xB8, "f64.convert_i32_u", I32, F64},
		{0xB9, "f64.convert_i64_s", I64, F64}, {0xBA, "f64.convert_i64_u", I64, F64},
		{0xBB, "f64.promote_f32", F32, F64},
		{0xBC, "i32.reinterpret_f32", F32, I32}, {0xBD, "i64.reinterpret_f64", F64, I64},
		{0xBE, "f32.reinterpret_i32", I32, F32}, {0xBF, "f64.reinterpret_i64", I64, F64},
	} {
		unary(c.op, c.name, c.in, c.out)
	}
	for _, c := range []struct {
		op      Opcode
		name    string
		in, out ValType
	}{
		{OpI32Extend8S, "i32.extend8_s", I32, I32}, {OpI32Extend16S, "i32.extend16_s", I32, I32},
		{OpI64Extend8S, "i64.extend8_s", I64, I64}, {OpI64Extend16S, "i64.extend16_s", I64, I64},
		{OpI64Extend32S, "i64.extend32_s", I64, I64},
	} {
		unary(c.op, c.name, c.in, c.out).feat = FeatureSignExtension
	}
	for k, n := range []string{"i32.trunc_sat_f32_s", "i32.trunc_sat_f32_u", "i32.trunc_sat_f64_s", "i32.trunc_sat_f64_u",
		"i64.trunc_sat_f32_s", "i64.trunc_sat_f32_u", "i64.trunc_sat_f64_s", "i64.trunc_sat_f64_u"} {
		in, out := F32, I32
		if k&2 != 0 {
			in = F64
		}
		if k >= 4 {
			out = I64
		}
		unary(OpI32TruncSatF32S+Opcode(k), n, in, out).feat = FeatureSaturatingConversions
	}
	for _, o := range []struct {
		op   Opcode
		name string
		imm  immKind
		feat Features
	}{
		{OpSelectT, "select", immTypes, FeatureReferenceTypes},
		{OpTableGet, "table.get", immTable, FeatureReferenceTypes},
		{OpTableSet, "table.set", immTable, FeatureReferenceTypes},
		{OpRefNull, "ref.null", immRefType, FeatureReferenceTypes},
		{OpRefIsNull, "ref.is_null", immNone, FeatureReferenceTypes},
		{OpRefFunc, "ref.func", immFunc, FeatureReferenceTypes},
		{OpMemoryInit, "memory.init", immDataZero, FeatureBulkMemory},
		{OpDataDrop, "data.drop", immTable, FeatureBulkMemory},
		{OpMemoryCopy, "memory.copy", immZeroZero, FeatureBulkMemory},
		{OpMemoryFill, "memory.fill", immZero, FeatureBulkMemory},
		{OpTableInit, "table.init", immTwo, FeatureBulkMemory},
		{OpElemDrop, "elem.drop", immTable, FeatureBulkMemory},
		{OpTableCopy, "table.copy", immTwo, FeatureBulkMemory},
		{OpTableGrow, "table.grow", immTable, FeatureReferenceTypes},
		{OpTableSize, "table.size", immTable, FeatureReferenceTypes},
		{OpTableFill, "table.fill", immTable, FeatureReferenceTypes},
	} {
		def(o.op, o.name, o.imm).feat = o.feat
	}
	// SIMD: the instructions are decoded (their immediates read) so that a
	// module using them is recognized as such, not executed; their names
	// are generic.
	for k := 0; k < 256; k++ {
		imm := immNone
		switch {
		case k <= 11 || k == 92 || k == 93:
			imm = immMem
		case k == 12 || k == 13:
			imm = immV128
		case k >= 21 && k <= 34:
			imm = immLane
		case k >= 84 && k <= 91:
			imm = immMemLane
		}
		def(PrefixSIMD<<8+Opcode(k), fmt.Sprintf("simd.0x%02x", k), imm).feat = FeatureSIMD
	}
}

// Valid reports whether op is a WebAssembly 2.0 opcode.
func (op Opcode) Valid() bool { return info(op) != nil }

// Feature returns the WebAssembly 2.0 feature op belongs to, 0 for an
// instruction of WebAssembly 1.0.
func (op Opcode) Feature() Features {
	if i := info(op); i != nil {
		return i.feat
	}
	return 0
}

// String returns the opcode's name in the text format ("i32.add").
func (op Opcode) String() string {
	if i := info(op); i != nil {
		return i.name
	}
	return "illegal opcode"
}

// AppendOpcode appends the encoding of op: its byte, or its prefix and
// LEB128 sub-opcode.
func AppendOpcode(b []byte, op Opcode) []byte {
	if op>>8 == 0 {
		return append(b, byte(op))
	}
	return AppendU32(append(b, byte(op>>8)), uint32(op&0xff))
}

// Numeric returns the operand and result types of a numeric instruction
// (comparisons, arithmetic, conversions, sign extension, saturating
// truncation); ok is false for every other opcode.
func (op Opcode) Numeric() (in []ValType, out ValType, ok bool) {
	i := info(op)
	if i == nil || !i.numeric {
		return nil, 0, false
	}
	return i.in[:i.nIn], i.out, true
}

// Memory returns, for a load or store of WebAssembly 1.0, its operand
// types (address first), its result type (0 for a store) and its natural
// alignment as a power of two; ok is false for every other opcode.
func (op Opcode) Memory() (in []ValType, out ValType, alignLog2 uint32, ok bool) {
	i := info(op)
	if i == nil || i.imm != immMem || i.feat != 0 {
		return nil, 0, 0, false
	}
	a := uint32(0)
	for s := i.size; s > 1; s >>= 1 {
		a++
	}
	return i.in[:i.nIn], i.out, a, true
}

// BlockIndexed is the Block of an Instr whose block type is the function
// type Index (multi-value); it is no encoding of a block type.
const BlockIndexed ValType = 0x60

// Instr is one decoded instruction. Which immediate fields are meaningful
// depends on Op.
type Instr struct {
	Op Opcode
	// Offset is the byte offset of the opcode in the module.
	Offset int
	// Block is the block type of block, loop and if: BlockEmpty, a value
	// type (the one result), or BlockIndexed with the type in Index.
	Block ValType
	// Index is the label of br and br_if, the default label of br_table,
	// the function of call and ref.func, the type of call_indirect and of
	// an indexed block type, the local of local.get/set/tee, the global of
	// global.get/set, the table of the table instructions and of
	// table.copy's destination, the data segment of memory.init and
	// data.drop and the element segment of table.init and elem.drop.
	Index uint32
	// Index2 is the table of call_indirect and table.init and the source
	// table of table.copy.
	Index2 uint32
	// Align (log2) and MemOffset are the memory argument of a load or
	// store.
	Align, MemOffset uint32
	// Value is the constant of i32.const (its 32 bits), i64.const, or
	// the bits of f32.const and f64.const.
	Value uint64
	// Labels are the labels of br_table (before the default). The slice
	// is reused by the next call of Next.
	Labels []uint32
	// Types are the types of a typed select (0x1C), and RefType the
	// reference type of ref.null. Types is reused by the next call of
	// Next.
	Types   []ValType
	RefType ValType
}

// CodeReader reads the instructions of a function body or constant
// expression one at a time.
type CodeReader struct {
	r      reader
	labels []uint32
	types  []ValType
}

// NewCodeReader returns a reader of code, which starts at byte offset in
// the module; errors name section and function fn (-1 for none). It
// reads every instruction of WebAssembly 2.0.
func NewCodeReader(code []byte, offset int, section string, fn int) *CodeReader {
	c := &CodeReader{}
	c.Reset(code, offset, section, fn)
	return c
}

// Reset makes the reader read code, as NewCodeReader does, keeping its
// buffers.
func (c *CodeReader) Reset(code []byte, offset int, section string, fn int) {
	c.r = reader{buf: code, base: offset, section: section, fn: fn, eofMsg: msgUnexpectedEndS, feat: Features2}
}

// Done reports whether every byte has been read.
func (c *CodeReader) Done() bool { return c.r.pos >= len(c.r.buf) }

// Offset returns the byte offset in the module of the next instruction.
func (c *CodeReader) Offset() int { return c.r.offset() }

// zero reads a reserved 0x00 byte.
func (r *reader) zero(msg string) {
	pos := r.pos
	if z := r.byte(); r.err == nil && z != 0 {
		r.failAt(pos, "%s", msg)
	}
}

// Next decodes the next instruction into in. It fails with an *Error on
// an illegal opcode, malformed immediates or the end of the code.
func (c *CodeReader) Next(in *Instr) error {
	r := &c.r
	if r.err != nil {
		return r.err
	}
	in.Offset = r.offset()
	op := Opcode(r.byte())
	if r.err != nil {
		return r.err
	}
	if op == PrefixFC || op == PrefixSIMD {
		sub := r.u32()
		if r.err != nil {
			return r.err
		}
		if sub > 0xff {
			r.failAt(in.Offset-r.base, "illegal opcode 0x%02x 0x%x", byte(op), sub)
			return r.err
		}
		op = op<<8 | Opcode(sub)
	}
	info := info(op)
	if info == nil || !r.feat.Has(info.feat) {
		if op>>8 != 0 {
			r.failAt(in.Offset-r.base, "illegal opcode 0x%02x 0x%02x", byte(op>>8), byte(op))
		} else {
			r.failAt(in.Offset-r.base, "illegal opcode 0x%02x", byte(op))
		}
		return r.err
	}
	in.Op = op
	switch info.imm {
	case immBlock:
		c.blockType(in)
	case immLabel, immFunc, immLocal, immGlobal, immTable:
		in.Index = r.u32()
	case immBrTable:
		n := r.count(1)
		c.labels = c.labels[:0]
		for i := 0; i < n && r.err == nil; i++ {
			c.labels = append(c.labels, r.u32())
		}
		in.Labels = c.labels
		in.Index = r.u32()
	case immCallIndirect:
		in.Index = r.u32()
		if r.feat.Has(FeatureReferenceTypes) {
			in.Index2 = r.u32()
		} else {
			r.zero("zero flag expected")
			in.Index2 = 0
		}
	case immMem:
		in.Align = r.u32()
		in.MemOffset = r.u32()
	case immZero:
		r.zero("zero flag expected")
	case immZeroZero:
		r.zero("zero flag expected")
		r.zero("zero flag expected")
	case immDataZero:
		in.Index = r.u32()
		r.zero("zero flag expected")
	case immTwo:
		in.Index = r.u32()
		in.Index2 = r.u32()
	case immTypes:
		n := r.count(1)
		c.types = c.types[:0]
		for i := 0; i < n && r.err == nil; i++ {
			c.types = append(c.types, r.valType())
		}
		in.Types = c.types
	case immRefType:
		in.RefType = r.refType()
	case immI32:
		in.Value = uint64(uint32(r.s32()))
	case immI64:
		in.Value = uint64(r.s64())
	case immF32:
		in.Value = uint64(r.f32bits())
	case immF64:
		in.Value = r.f64bits()
	case immV128:
		r.bytes(16)
	case immLane:
		r.byte()
	case immMemLane:
		in.Align = r.u32()
		in.MemOffset = r.u32()
		r.byte()
	}
	return r.err
}

// blockType reads the block type of block, loop or if: 0x40, a value
// type, or (multi-value) a type index as a non-negative s33.
func (c *CodeReader) blockType(in *Instr) {
	r := &c.r
	pos := r.pos
	bt := ValType(r.byte())
	if r.err != nil {
		return
	}
	in.Index = 0
	if bt == BlockEmpty || r.feat.valType(bt) {
		in.Block = bt
		return
	}
	if !r.feat.Has(FeatureMultiValue) || bt&0x40 != 0 && bt&0x80 == 0 {
		r.failAt(pos, "invalid block type 0x%02x", byte(bt))
		return
	}
	r.pos = pos
	v := r.signedBits(5, 33)
	if r.err != nil {
		return
	}
	if v < 0 || v > 1<<32-1 {
		r.failAt(pos, "invalid block type: type index %d", v)
		return
	}
	in.Block, in.Index = BlockIndexed, uint32(v)
}
