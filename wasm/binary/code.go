package binary

// Opcode is a WebAssembly 1.0 instruction opcode (one byte).
type Opcode byte

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
	OpLocalGet     Opcode = 0x20
	OpLocalSet     Opcode = 0x21
	OpLocalTee     Opcode = 0x22
	OpGlobalGet    Opcode = 0x23
	OpGlobalSet    Opcode = 0x24
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
)

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
	immZero // memory.size, memory.grow: a reserved 0x00 byte
	immI32
	immI64
	immF32
	immF64
)

type opInfo struct {
	name string
	imm  immKind
	// For numeric, load, store and const instructions: the operand types
	// (in order, nIn of them) and the result type (0 for none).
	in  [2]ValType
	nIn uint8
	out ValType
	// size is the natural alignment, in bytes, of a load or store.
	size uint8
}

var ops [256]*opInfo

func def(op Opcode, name string, imm immKind) *opInfo {
	i := &opInfo{name: name, imm: imm}
	ops[op] = i
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

	unary := func(op Opcode, name string, in, out ValType) {
		i := def(op, name, immNone)
		i.in, i.nIn, i.out = [2]ValType{in}, 1, out
	}
	binary := func(op Opcode, name string, in, out ValType) {
		i := def(op, name, immNone)
		i.in, i.nIn, i.out = [2]ValType{in, in}, 2, out
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
}

// Valid reports whether op is an opcode of WebAssembly 1.0.
func (op Opcode) Valid() bool { return ops[op] != nil }

// String returns the opcode's name in the text format ("i32.add").
func (op Opcode) String() string {
	if i := ops[op]; i != nil {
		return i.name
	}
	return "illegal opcode"
}

// Numeric returns the operand and result types of a numeric instruction
// (0x45-0xBF: comparisons, arithmetic, conversions); ok is false for every
// other opcode.
func (op Opcode) Numeric() (in []ValType, out ValType, ok bool) {
	if op < 0x45 || op > 0xBF {
		return nil, 0, false
	}
	i := ops[op]
	return i.in[:i.nIn], i.out, true
}

// Memory returns, for a load or store, its operand types (address first),
// its result type (0 for a store) and its natural alignment as a power of
// two; ok is false for every other opcode.
func (op Opcode) Memory() (in []ValType, out ValType, alignLog2 uint32, ok bool) {
	i := ops[op]
	if i == nil || i.imm != immMem {
		return nil, 0, 0, false
	}
	a := uint32(0)
	for s := i.size; s > 1; s >>= 1 {
		a++
	}
	return i.in[:i.nIn], i.out, a, true
}

// Instr is one decoded instruction. Which immediate fields are meaningful
// depends on Op.
type Instr struct {
	Op Opcode
	// Offset is the byte offset of the opcode in the module.
	Offset int
	// Block is the block type of block, loop and if.
	Block ValType
	// Index is the label of br and br_if, the default label of br_table,
	// the function of call, the type of call_indirect, the local of
	// local.get/set/tee and the global of global.get/set.
	Index uint32
	// Align (log2) and MemOffset are the memory argument of a load or
	// store.
	Align, MemOffset uint32
	// Value is the constant of i32.const (its 32 bits), i64.const, or
	// the bits of f32.const and f64.const.
	Value uint64
	// Labels are the labels of br_table (before the default). The slice
	// is reused by the next call of Next.
	Labels []uint32
}

// CodeReader reads the instructions of a function body or constant
// expression one at a time.
type CodeReader struct {
	r      reader
	labels []uint32
}

// NewCodeReader returns a reader of code, which starts at byte offset in
// the module; errors name section and function fn (-1 for none).
func NewCodeReader(code []byte, offset int, section string, fn int) *CodeReader {
	return &CodeReader{r: reader{buf: code, base: offset, section: section, fn: fn, eofMsg: msgUnexpectedEndS}}
}

// Reset makes the reader read code, as NewCodeReader does, keeping its
// buffers.
func (c *CodeReader) Reset(code []byte, offset int, section string, fn int) {
	c.r = reader{buf: code, base: offset, section: section, fn: fn, eofMsg: msgUnexpectedEndS}
}

// Done reports whether every byte has been read.
func (c *CodeReader) Done() bool { return c.r.pos >= len(c.r.buf) }

// Offset returns the byte offset in the module of the next instruction.
func (c *CodeReader) Offset() int { return c.r.offset() }

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
	info := ops[op]
	if info == nil {
		r.failAt(r.pos-1, "illegal opcode 0x%02x", byte(op))
		return r.err
	}
	in.Op = op
	switch info.imm {
	case immBlock:
		pos := r.pos
		bt := ValType(r.byte())
		if r.err == nil && bt != BlockEmpty && !bt.Valid() {
			r.failAt(pos, "invalid block type 0x%02x", byte(bt))
		}
		in.Block = bt
	case immLabel, immFunc, immLocal, immGlobal:
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
		pos := r.pos
		if z := r.byte(); r.err == nil && z != 0 {
			r.failAt(pos, "zero flag expected")
		}
	case immMem:
		in.Align = r.u32()
		in.MemOffset = r.u32()
	case immZero:
		pos := r.pos
		if z := r.byte(); r.err == nil && z != 0 {
			r.failAt(pos, "zero flag expected")
		}
	case immI32:
		in.Value = uint64(uint32(r.s32()))
	case immI64:
		in.Value = uint64(r.s64())
	case immF32:
		in.Value = uint64(r.f32bits())
	case immF64:
		in.Value = r.f64bits()
	}
	return r.err
}
