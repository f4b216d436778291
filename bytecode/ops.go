package bytecode

import "strconv"

// Op is a bytecode opcode.
type Op uint16

// The opcodes. Their operands and semantics are described in the package
// documentation; the op table (Op.Info) says which Instr fields each uses.
const (
	OpInvalid Op = iota

	// Constants and moves.
	OpI64Const // Dst = Imm
	OpF64Const // Dst = math.Float64frombits(uint64(Imm))
	OpMov      // Dst = A (any type; both registers have the same type)

	// i64 binary operations: Dst = A op B, or A op Imm when UseImm is set.
	OpI64Add
	OpI64Sub
	OpI64Mul
	OpI64DivS
	OpI64DivU
	OpI64RemS
	OpI64RemU
	OpI64And
	OpI64Or
	OpI64Xor
	OpI64Shl
	OpI64ShrS
	OpI64ShrU
	OpI64Rotl
	OpI64Rotr

	// i64 unary operations: Dst = op A.
	OpI64Neg
	OpI64Not
	OpI64Clz
	OpI64Ctz
	OpI64Popcnt
	OpI64Extend8S
	OpI64Extend16S
	OpI64Extend32S
	OpI64Extend32U

	// i64 comparisons: Dst = 1 if A cond B (or Imm) holds, else 0.
	OpI64Eq
	OpI64Ne
	OpI64LtS
	OpI64LtU
	OpI64LeS
	OpI64LeU
	OpI64GtS
	OpI64GtU
	OpI64GeS
	OpI64GeU

	// Dst = (A != 0) ? B : C. B, C and Dst share one type; A is i64.
	OpSelect

	// f64 binary operations: Dst = A op B.
	OpF64Add
	OpF64Sub
	OpF64Mul
	OpF64Div
	OpF64Min
	OpF64Max
	OpF64Copysign

	// f64 unary operations: Dst = op A.
	OpF64Sqrt
	OpF64Neg
	OpF64Abs
	OpF64Floor
	OpF64Ceil
	OpF64Trunc
	OpF64Nearest

	// f64 comparisons: Dst (i64) = 1 if A cond B holds, else 0.
	OpF64Eq
	OpF64Ne
	OpF64Lt
	OpF64Le
	OpF64Gt
	OpF64Ge

	// Conversions.
	OpF64ConvertI64S    // f64 <- signed i64
	OpF64ConvertI64U    // f64 <- unsigned i64
	OpI64TruncF64S      // signed i64 <- f64, traps on NaN or overflow
	OpI64TruncF64U      // unsigned i64 <- f64, traps on NaN or overflow
	OpI64TruncSatF64S   // signed i64 <- f64, saturating, NaN -> 0
	OpI64TruncSatF64U   // unsigned i64 <- f64, saturating, NaN -> 0
	OpI64ReinterpretF64 // i64 <- bits of f64
	OpF64ReinterpretI64 // f64 <- bits of i64

	// Loads: Dst = memory[A + Imm].
	OpI64Load8S
	OpI64Load8U
	OpI64Load16S
	OpI64Load16U
	OpI64Load32S
	OpI64Load32U
	OpI64Load
	OpF64Load

	// Stores: memory[A + Imm] = B.
	OpI64Store8
	OpI64Store16
	OpI64Store32
	OpI64Store
	OpF64Store

	OpMemorySize // Dst = memory size in pages
	OpMemoryGrow // Dst = old size in pages, or -1; grows by A pages

	// Control flow.
	OpJump     // goto Target
	OpBrIf     // if A != 0 goto Target
	OpBrEq     // if A == B (or Imm) goto Target
	OpBrNe     //
	OpBrLtS    //
	OpBrLtU    //
	OpBrLeS    //
	OpBrLeU    //
	OpBrGtS    //
	OpBrGtU    //
	OpBrGeS    //
	OpBrGeU    //
	OpSwitch   // goto Table[A] if A < len(Table) (unsigned), else goto Target
	OpCall     // Results = Funcs[Callee](Args)
	OpCallHost // Results = Hosts[Callee](Args)
	OpReturn   // return Args
	OpTrap     // trap with user code Imm

	// The 32-bit types (appended, so that the numbers of the ops above
	// stay those of earlier binary modules).
	OpI32Const // Dst = int32(Imm)
	OpF32Const // Dst = math.Float32frombits(uint32(Imm))

	// i32 binary operations: Dst = A op B, or A op Imm when UseImm is set.
	OpI32Add
	OpI32Sub
	OpI32Mul
	OpI32DivS
	OpI32DivU
	OpI32RemS
	OpI32RemU
	OpI32And
	OpI32Or
	OpI32Xor
	OpI32Shl
	OpI32ShrS
	OpI32ShrU
	OpI32Rotl
	OpI32Rotr

	// i32 unary operations: Dst = op A.
	OpI32Neg
	OpI32Not
	OpI32Clz
	OpI32Ctz
	OpI32Popcnt
	OpI32Extend8S
	OpI32Extend16S

	// Dst (i32 or i64) = 1 if A == 0, else 0.
	OpI32Eqz
	OpI64Eqz

	// i32 comparisons: Dst (i32 or i64) = 1 if A cond B (or Imm) holds.
	OpI32Eq
	OpI32Ne
	OpI32LtS
	OpI32LtU
	OpI32LeS
	OpI32LeU
	OpI32GtS
	OpI32GtU
	OpI32GeS
	OpI32GeU

	// i32 compare-and-branch: if A cond B (or Imm) goto Target.
	OpBrI32Eq
	OpBrI32Ne
	OpBrI32LtS
	OpBrI32LtU
	OpBrI32LeS
	OpBrI32LeU
	OpBrI32GtS
	OpBrI32GtU
	OpBrI32GeS
	OpBrI32GeU

	// f32 binary operations: Dst = A op B.
	OpF32Add
	OpF32Sub
	OpF32Mul
	OpF32Div
	OpF32Min
	OpF32Max
	OpF32Copysign

	// f32 unary operations: Dst = op A.
	OpF32Sqrt
	OpF32Neg
	OpF32Abs
	OpF32Floor
	OpF32Ceil
	OpF32Trunc
	OpF32Nearest

	// f32 comparisons: Dst (i32 or i64) = 1 if A cond B holds, else 0.
	OpF32Eq
	OpF32Ne
	OpF32Lt
	OpF32Le
	OpF32Gt
	OpF32Ge

	// Conversions between and to the 32-bit types.
	OpI32WrapI64        // i32 <- low 32 bits of i64
	OpI64ExtendI32S     // i64 <- sign-extended i32
	OpI64ExtendI32U     // i64 <- zero-extended i32
	OpF32DemoteF64      // f32 <- f64, rounded to nearest even
	OpF64PromoteF32     // f64 <- f32, exact
	OpF32ConvertI32S    // f32 <- signed i32
	OpF32ConvertI32U    // f32 <- unsigned i32
	OpF32ConvertI64S    // f32 <- signed i64
	OpF32ConvertI64U    // f32 <- unsigned i64
	OpF64ConvertI32S    // f64 <- signed i32
	OpF64ConvertI32U    // f64 <- unsigned i32
	OpI32TruncF32S      // signed i32 <- f32, traps on NaN or overflow
	OpI32TruncF32U      // unsigned i32 <- f32, traps on NaN or overflow
	OpI32TruncF64S      // signed i32 <- f64, traps on NaN or overflow
	OpI32TruncF64U      // unsigned i32 <- f64, traps on NaN or overflow
	OpI64TruncF32S      // signed i64 <- f32, traps on NaN or overflow
	OpI64TruncF32U      // unsigned i64 <- f32, traps on NaN or overflow
	OpI32TruncSatF32S   // signed i32 <- f32, saturating, NaN -> 0
	OpI32TruncSatF32U   // unsigned i32 <- f32, saturating, NaN -> 0
	OpI32TruncSatF64S   // signed i32 <- f64, saturating, NaN -> 0
	OpI32TruncSatF64U   // unsigned i32 <- f64, saturating, NaN -> 0
	OpI64TruncSatF32S   // signed i64 <- f32, saturating, NaN -> 0
	OpI64TruncSatF32U   // unsigned i64 <- f32, saturating, NaN -> 0
	OpI32ReinterpretF32 // i32 <- bits of f32
	OpF32ReinterpretI32 // f32 <- bits of i32

	// Loads and stores of the 32-bit types: Dst = memory[A + Imm],
	// memory[A + Imm] = B.
	OpI32Load8S
	OpI32Load8U
	OpI32Load16S
	OpI32Load16U
	OpI32Load
	OpF32Load
	OpI32Store8
	OpI32Store16
	OpI32Store
	OpF32Store

	// Globals, the table and unreachable (appended after the 32-bit types
	// for the same reason).
	OpGlobalGet    // Dst = Globals[Callee]
	OpGlobalSet    // Globals[Callee] = A (the global is mutable)
	OpCallIndirect // Results = the function at table entry A, of signature Types[Callee], called with Args
	OpUnreachable  // trap Unreachable

	// Bulk memory (appended for the same reason).
	OpMemoryCopy // copy C bytes from address B to address A (as memmove)
	OpMemoryFill // set C bytes from address A on to the low byte of B

	// Passive data segments (appended for the same reason).
	OpMemoryInit // copy C bytes from offset B of data segment Callee to address A
	OpDataDrop   // drop data segment Callee

	// References and tables (appended for the same reason).
	OpRefFunc   // Dst = the reference to function Callee
	OpTableGet  // Dst = entry A of table Callee
	OpTableSet  // entry A of table Callee = B
	OpTableSize // Dst = the size of table Callee
	OpTableGrow // grow table Callee by B entries set to A; Dst = the old size, or -1
	OpTableFill // set C entries of table Callee from A on to B
	OpTableCopy // copy C entries from entry B of table Imm to entry A of table Callee
	OpTableInit // copy C entries from entry B of element segment Callee to entry A of table Imm
	OpElemDrop  // drop element segment Callee

	numOps
)

// NumOps is the number of opcodes, OpInvalid included; valid opcodes are
// 1..NumOps-1.
const NumOps = int(numOps)

// Format says which Instr fields an opcode uses and how they are written in
// the text form.
type Format uint8

// The instruction formats.
const (
	FormatNone         Format = iota // no operands (unreachable)
	FormatConst                      // Dst, Imm
	FormatUnary                      // Dst, A
	FormatBinary                     // Dst, A, B or Imm (when the op allows immediates)
	FormatSelect                     // Dst, A, B, C
	FormatLoad                       // Dst, [A + Imm]
	FormatStore                      // [A + Imm], B
	FormatMemorySize                 // Dst
	FormatJump                       // Target
	FormatBranch                     // A, Target
	FormatCmpBranch                  // A, B or Imm, Target
	FormatSwitch                     // A, Table, Target
	FormatCall                       // Callee, Args, Results
	FormatReturn                     // Args
	FormatTrap                       // Imm
	FormatGlobalGet                  // Dst, Callee (the global)
	FormatGlobalSet                  // Callee (the global), A
	FormatCallIndirect               // Callee (the signature), A (the table index), Args, Results
	FormatMemoryBulk                 // A, B, C (no destination)
	FormatSegmentBulk                // Callee (a segment), A, B, C (no destination)
	FormatSegment                    // Callee (a segment)
	FormatRefFunc                    // Dst, Callee (a function)
	FormatTableGet                   // Dst, Callee (a table), A
	FormatTableSet                   // Callee (a table), A, B
	FormatTableSize                  // Dst, Callee (a table)
	FormatTableGrow                  // Dst, Callee (a table), A, B
	FormatTableFill                  // Callee (a table), A, B, C
	FormatTableBulk                  // Callee, Imm (a table and a table or segment), A, B, C
)

// AnyType in an OpInfo operand type means "any type, the same as Dst"; for
// global.get and global.set, whose register has the global's type, it
// means "the type of the global".
const AnyType Type = 0xff

// IntType in an OpInfo operand type means "I32 or I64", chosen by the
// register itself: the destination of a comparison, a condition, a switch
// index, a memory address, a memory.grow delta, a call_indirect table
// index.
const IntType Type = 0xfe

// OpInfo describes an opcode: its text name, its format, and the type of each
// register operand (0 when the operand is unused).
type OpInfo struct {
	Name   string
	Format Format
	Dst    Type
	A, B   Type
	C      Type
	// Imm says that the B operand may be an immediate instead of a register.
	Imm bool
	// Size is the number of bytes a load or store accesses.
	Size int
	// Terminator is set for instructions after which control never falls
	// through to the next instruction.
	Terminator bool
	// Branch is set for instructions that may transfer control to a Target.
	Branch bool
}

var opTable [numOps]OpInfo

func init() {
	def := func(op Op, info OpInfo) { opTable[op] = info }
	def(OpInvalid, OpInfo{Name: "invalid"})
	def(OpI64Const, OpInfo{Name: "i64.const", Format: FormatConst, Dst: I64})
	def(OpF64Const, OpInfo{Name: "f64.const", Format: FormatConst, Dst: F64})
	def(OpMov, OpInfo{Name: "mov", Format: FormatUnary, Dst: AnyType, A: AnyType})

	for op, name := range map[Op]string{
		OpI64Add: "add", OpI64Sub: "sub", OpI64Mul: "mul", OpI64DivS: "div_s", OpI64DivU: "div_u",
		OpI64RemS: "rem_s", OpI64RemU: "rem_u", OpI64And: "and", OpI64Or: "or", OpI64Xor: "xor",
		OpI64Shl: "shl", OpI64ShrS: "shr_s", OpI64ShrU: "shr_u", OpI64Rotl: "rotl", OpI64Rotr: "rotr",
	} {
		def(op, OpInfo{Name: "i64." + name, Format: FormatBinary, Dst: I64, A: I64, B: I64, Imm: true})
	}
	for op, name := range map[Op]string{
		OpI64Neg: "neg", OpI64Not: "not", OpI64Clz: "clz", OpI64Ctz: "ctz", OpI64Popcnt: "popcnt",
		OpI64Extend8S: "extend8_s", OpI64Extend16S: "extend16_s", OpI64Extend32S: "extend32_s",
		OpI64Extend32U: "extend32_u",
	} {
		def(op, OpInfo{Name: "i64." + name, Format: FormatUnary, Dst: I64, A: I64})
	}
	for i, name := range condNames {
		def(OpI64Eq+Op(i), OpInfo{Name: "i64." + name, Format: FormatBinary, Dst: IntType, A: I64, B: I64, Imm: true})
		def(OpBrEq+Op(i), OpInfo{Name: "br." + name, Format: FormatCmpBranch, A: I64, B: I64, Imm: true, Branch: true})
		def(OpI32Eq+Op(i), OpInfo{Name: "i32." + name, Format: FormatBinary, Dst: IntType, A: I32, B: I32, Imm: true})
		def(OpBrI32Eq+Op(i), OpInfo{Name: "br.i32." + name, Format: FormatCmpBranch, A: I32, B: I32, Imm: true, Branch: true})
	}
	def(OpSelect, OpInfo{Name: "select", Format: FormatSelect, Dst: AnyType, A: IntType, B: AnyType, C: AnyType})

	for op, name := range map[Op]string{
		OpF64Add: "add", OpF64Sub: "sub", OpF64Mul: "mul", OpF64Div: "div",
		OpF64Min: "min", OpF64Max: "max", OpF64Copysign: "copysign",
	} {
		def(op, OpInfo{Name: "f64." + name, Format: FormatBinary, Dst: F64, A: F64, B: F64})
	}
	for op, name := range map[Op]string{
		OpF64Sqrt: "sqrt", OpF64Neg: "neg", OpF64Abs: "abs", OpF64Floor: "floor",
		OpF64Ceil: "ceil", OpF64Trunc: "trunc", OpF64Nearest: "nearest",
	} {
		def(op, OpInfo{Name: "f64." + name, Format: FormatUnary, Dst: F64, A: F64})
	}
	for op, name := range map[Op]string{
		OpF64Eq: "eq", OpF64Ne: "ne", OpF64Lt: "lt", OpF64Le: "le", OpF64Gt: "gt", OpF64Ge: "ge",
	} {
		def(op, OpInfo{Name: "f64." + name, Format: FormatBinary, Dst: IntType, A: F64, B: F64})
	}

	def(OpF64ConvertI64S, OpInfo{Name: "f64.convert_i64_s", Format: FormatUnary, Dst: F64, A: I64})
	def(OpF64ConvertI64U, OpInfo{Name: "f64.convert_i64_u", Format: FormatUnary, Dst: F64, A: I64})
	def(OpI64TruncF64S, OpInfo{Name: "i64.trunc_f64_s", Format: FormatUnary, Dst: I64, A: F64})
	def(OpI64TruncF64U, OpInfo{Name: "i64.trunc_f64_u", Format: FormatUnary, Dst: I64, A: F64})
	def(OpI64TruncSatF64S, OpInfo{Name: "i64.trunc_sat_f64_s", Format: FormatUnary, Dst: I64, A: F64})
	def(OpI64TruncSatF64U, OpInfo{Name: "i64.trunc_sat_f64_u", Format: FormatUnary, Dst: I64, A: F64})
	def(OpI64ReinterpretF64, OpInfo{Name: "i64.reinterpret_f64", Format: FormatUnary, Dst: I64, A: F64})
	def(OpF64ReinterpretI64, OpInfo{Name: "f64.reinterpret_i64", Format: FormatUnary, Dst: F64, A: I64})

	for op, l := range map[Op]struct {
		name string
		size int
	}{
		OpI64Load8S: {"load8_s", 1}, OpI64Load8U: {"load8_u", 1}, OpI64Load16S: {"load16_s", 2},
		OpI64Load16U: {"load16_u", 2}, OpI64Load32S: {"load32_s", 4}, OpI64Load32U: {"load32_u", 4},
		OpI64Load: {"load", 8},
	} {
		def(op, OpInfo{Name: "i64." + l.name, Format: FormatLoad, Dst: I64, A: IntType, Size: l.size})
	}
	def(OpF64Load, OpInfo{Name: "f64.load", Format: FormatLoad, Dst: F64, A: IntType, Size: 8})
	for op, s := range map[Op]struct {
		name string
		size int
	}{
		OpI64Store8: {"store8", 1}, OpI64Store16: {"store16", 2}, OpI64Store32: {"store32", 4}, OpI64Store: {"store", 8},
	} {
		def(op, OpInfo{Name: "i64." + s.name, Format: FormatStore, A: IntType, B: I64, Size: s.size})
	}
	def(OpF64Store, OpInfo{Name: "f64.store", Format: FormatStore, A: IntType, B: F64, Size: 8})
	def(OpMemorySize, OpInfo{Name: "memory.size", Format: FormatMemorySize, Dst: IntType})
	def(OpMemoryGrow, OpInfo{Name: "memory.grow", Format: FormatUnary, Dst: IntType, A: IntType})

	def(OpJump, OpInfo{Name: "jump", Format: FormatJump, Terminator: true, Branch: true})
	def(OpBrIf, OpInfo{Name: "br_if", Format: FormatBranch, A: IntType, Branch: true})
	def(OpSwitch, OpInfo{Name: "switch", Format: FormatSwitch, A: IntType, Terminator: true, Branch: true})
	def(OpCall, OpInfo{Name: "call", Format: FormatCall})
	def(OpCallHost, OpInfo{Name: "call_host", Format: FormatCall})
	def(OpReturn, OpInfo{Name: "ret", Format: FormatReturn, Terminator: true})
	def(OpTrap, OpInfo{Name: "trap", Format: FormatTrap, Terminator: true})

	def32()

	def(OpGlobalGet, OpInfo{Name: "global.get", Format: FormatGlobalGet, Dst: AnyType})
	def(OpGlobalSet, OpInfo{Name: "global.set", Format: FormatGlobalSet, A: AnyType})
	def(OpCallIndirect, OpInfo{Name: "call_indirect", Format: FormatCallIndirect, A: IntType})
	def(OpUnreachable, OpInfo{Name: "unreachable", Format: FormatNone, Terminator: true})
	def(OpMemoryCopy, OpInfo{Name: "memory.copy", Format: FormatMemoryBulk, A: IntType, B: IntType, C: IntType})
	def(OpMemoryFill, OpInfo{Name: "memory.fill", Format: FormatMemoryBulk, A: IntType, B: IntType, C: IntType})
	def(OpMemoryInit, OpInfo{Name: "memory.init", Format: FormatSegmentBulk, A: IntType, B: IntType, C: IntType})
	def(OpDataDrop, OpInfo{Name: "data.drop", Format: FormatSegment})
	def(OpRefFunc, OpInfo{Name: "ref.func", Format: FormatRefFunc, Dst: I64})
	def(OpTableGet, OpInfo{Name: "table.get", Format: FormatTableGet, Dst: I64, A: IntType})
	def(OpTableSet, OpInfo{Name: "table.set", Format: FormatTableSet, A: IntType, B: I64})
	def(OpTableSize, OpInfo{Name: "table.size", Format: FormatTableSize, Dst: IntType})
	def(OpTableGrow, OpInfo{Name: "table.grow", Format: FormatTableGrow, Dst: IntType, A: I64, B: IntType})
	def(OpTableFill, OpInfo{Name: "table.fill", Format: FormatTableFill, A: IntType, B: I64, C: IntType})
	def(OpTableCopy, OpInfo{Name: "table.copy", Format: FormatTableBulk, A: IntType, B: IntType, C: IntType})
	def(OpTableInit, OpInfo{Name: "table.init", Format: FormatTableBulk, A: IntType, B: IntType, C: IntType})
	def(OpElemDrop, OpInfo{Name: "elem.drop", Format: FormatSegment})

	for op := range opTable {
		if opTable[op].Name == "" {
			panic("bytecode: opcode without an op-table entry: " + Op(op).String())
		}
		opByName[opTable[op].Name] = Op(op)
	}
}

// condNames are the comparison suffixes in the order of OpI64Eq..OpI64GeU and
// OpBrEq..OpBrGeU.
var condNames = [...]string{"eq", "ne", "lt_s", "lt_u", "le_s", "le_u", "gt_s", "gt_u", "ge_s", "ge_u"}

var opByName = map[string]Op{}

// Info returns the op-table entry of op. An out-of-range op gets the entry of
// OpInvalid.
func (op Op) Info() *OpInfo {
	if int(op) >= len(opTable) {
		return &opTable[OpInvalid]
	}
	return &opTable[op]
}

// IsTableOp reports whether op reads or changes a table's entries or
// size or an element segment, other than call_indirect (see
// Module.DynamicTables).
func (op Op) IsTableOp() bool { return op >= OpTableGet && op <= OpElemDrop }

// Valid reports whether op is a defined opcode other than OpInvalid.
func (op Op) Valid() bool { return op > OpInvalid && op < numOps }

// String returns the op's text-form mnemonic.
func (op Op) String() string {
	if int(op) < len(opTable) && opTable[op].Name != "" {
		return opTable[op].Name
	}
	return "op(" + strconv.Itoa(int(op)) + ")"
}

// OpByName returns the opcode with the given text-form mnemonic.
func OpByName(name string) (Op, bool) {
	op, ok := opByName[name]
	if op == OpInvalid {
		return OpInvalid, false
	}
	return op, ok
}

// Cond is an integer comparison condition, shared by the i64 compares and
// the fused compare-and-branch instructions.
type Cond uint8

// The conditions, in the order of the compare and branch opcodes.
const (
	CondEq Cond = iota
	CondNe
	CondLtS
	CondLtU
	CondLeS
	CondLeU
	CondGtS
	CondGtU
	CondGeS
	CondGeU
)

// String returns the condition's text-form suffix ("lt_s").
func (c Cond) String() string {
	if int(c) < len(condNames) {
		return condNames[c]
	}
	return "cond(" + strconv.Itoa(int(c)) + ")"
}

// Negate returns the condition that holds exactly when c does not.
func (c Cond) Negate() Cond {
	switch c {
	case CondEq:
		return CondNe
	case CondNe:
		return CondEq
	case CondLtS:
		return CondGeS
	case CondGeS:
		return CondLtS
	case CondLtU:
		return CondGeU
	case CondGeU:
		return CondLtU
	case CondLeS:
		return CondGtS
	case CondGtS:
		return CondLeS
	case CondLeU:
		return CondGtU
	case CondGtU:
		return CondLeU
	}
	return c
}

// Swapped returns the condition c' with b c' a exactly when a c b.
func (c Cond) Swapped() Cond {
	switch c {
	case CondLtS:
		return CondGtS
	case CondLtU:
		return CondGtU
	case CondLeS:
		return CondGeS
	case CondLeU:
		return CondGeU
	case CondGtS:
		return CondLtS
	case CondGtU:
		return CondLtU
	case CondGeS:
		return CondLeS
	case CondGeU:
		return CondLeU
	}
	return c
}

// Holds evaluates the condition on two i64 values.
func (c Cond) Holds(a, b int64) bool {
	switch c {
	case CondEq:
		return a == b
	case CondNe:
		return a != b
	case CondLtS:
		return a < b
	case CondLtU:
		return uint64(a) < uint64(b)
	case CondLeS:
		return a <= b
	case CondLeU:
		return uint64(a) <= uint64(b)
	case CondGtS:
		return a > b
	case CondGtU:
		return uint64(a) > uint64(b)
	case CondGeS:
		return a >= b
	case CondGeU:
		return uint64(a) >= uint64(b)
	}
	return false
}

// CompareCond returns the condition of an i64 or i32 compare or
// compare-and-branch opcode.
func (op Op) CompareCond() (Cond, bool) {
	switch {
	case op >= OpI64Eq && op <= OpI64GeU:
		return Cond(op - OpI64Eq), true
	case op >= OpBrEq && op <= OpBrGeU:
		return Cond(op - OpBrEq), true
	case op >= OpI32Eq && op <= OpI32GeU:
		return Cond(op - OpI32Eq), true
	case op >= OpBrI32Eq && op <= OpBrI32GeU:
		return Cond(op - OpBrI32Eq), true
	}
	return 0, false
}

// Holds32 evaluates the condition on two i32 values (the low 32 bits of a
// and b).
func (c Cond) Holds32(a, b int64) bool {
	if c.signed() {
		return c.Holds(int64(int32(a)), int64(int32(b)))
	}
	return c.Holds(int64(uint32(a)), int64(uint32(b)))
}

// signed reports whether the condition compares signed values (eq and ne
// count as signed; they do not depend on it).
func (c Cond) signed() bool {
	switch c {
	case CondLtU, CondLeU, CondGtU, CondGeU:
		return false
	}
	return true
}

// def32 fills the op table for the 32-bit types.
func def32() {
	def := func(op Op, info OpInfo) { opTable[op] = info }
	def(OpI32Const, OpInfo{Name: "i32.const", Format: FormatConst, Dst: I32})
	def(OpF32Const, OpInfo{Name: "f32.const", Format: FormatConst, Dst: F32})
	for i, name := range []string{"add", "sub", "mul", "div_s", "div_u", "rem_s", "rem_u", "and", "or", "xor",
		"shl", "shr_s", "shr_u", "rotl", "rotr"} {
		def(OpI32Add+Op(i), OpInfo{Name: "i32." + name, Format: FormatBinary, Dst: I32, A: I32, B: I32, Imm: true})
	}
	for i, name := range []string{"neg", "not", "clz", "ctz", "popcnt", "extend8_s", "extend16_s"} {
		def(OpI32Neg+Op(i), OpInfo{Name: "i32." + name, Format: FormatUnary, Dst: I32, A: I32})
	}
	def(OpI32Eqz, OpInfo{Name: "i32.eqz", Format: FormatUnary, Dst: IntType, A: I32})
	def(OpI64Eqz, OpInfo{Name: "i64.eqz", Format: FormatUnary, Dst: IntType, A: I64})
	for i, name := range []string{"add", "sub", "mul", "div", "min", "max", "copysign"} {
		def(OpF32Add+Op(i), OpInfo{Name: "f32." + name, Format: FormatBinary, Dst: F32, A: F32, B: F32})
	}
	for i, name := range []string{"sqrt", "neg", "abs", "floor", "ceil", "trunc", "nearest"} {
		def(OpF32Sqrt+Op(i), OpInfo{Name: "f32." + name, Format: FormatUnary, Dst: F32, A: F32})
	}
	for i, name := range []string{"eq", "ne", "lt", "le", "gt", "ge"} {
		def(OpF32Eq+Op(i), OpInfo{Name: "f32." + name, Format: FormatBinary, Dst: IntType, A: F32, B: F32})
	}
	for _, c := range []struct {
		op     Op
		name   string
		dst, a Type
	}{
		{OpI32WrapI64, "i32.wrap_i64", I32, I64},
		{OpI64ExtendI32S, "i64.extend_i32_s", I64, I32},
		{OpI64ExtendI32U, "i64.extend_i32_u", I64, I32},
		{OpF32DemoteF64, "f32.demote_f64", F32, F64},
		{OpF64PromoteF32, "f64.promote_f32", F64, F32},
		{OpF32ConvertI32S, "f32.convert_i32_s", F32, I32},
		{OpF32ConvertI32U, "f32.convert_i32_u", F32, I32},
		{OpF32ConvertI64S, "f32.convert_i64_s", F32, I64},
		{OpF32ConvertI64U, "f32.convert_i64_u", F32, I64},
		{OpF64ConvertI32S, "f64.convert_i32_s", F64, I32},
		{OpF64ConvertI32U, "f64.convert_i32_u", F64, I32},
		{OpI32TruncF32S, "i32.trunc_f32_s", I32, F32},
		{OpI32TruncF32U, "i32.trunc_f32_u", I32, F32},
		{OpI32TruncF64S, "i32.trunc_f64_s", I32, F64},
		{OpI32TruncF64U, "i32.trunc_f64_u", I32, F64},
		{OpI64TruncF32S, "i64.trunc_f32_s", I64, F32},
		{OpI64TruncF32U, "i64.trunc_f32_u", I64, F32},
		{OpI32TruncSatF32S, "i32.trunc_sat_f32_s", I32, F32},
		{OpI32TruncSatF32U, "i32.trunc_sat_f32_u", I32, F32},
		{OpI32TruncSatF64S, "i32.trunc_sat_f64_s", I32, F64},
		{OpI32TruncSatF64U, "i32.trunc_sat_f64_u", I32, F64},
		{OpI64TruncSatF32S, "i64.trunc_sat_f32_s", I64, F32},
		{OpI64TruncSatF32U, "i64.trunc_sat_f32_u", I64, F32},
		{OpI32ReinterpretF32, "i32.reinterpret_f32", I32, F32},
		{OpF32ReinterpretI32, "f32.reinterpret_i32", F32, I32},
	} {
		def(c.op, OpInfo{Name: c.name, Format: FormatUnary, Dst: c.dst, A: c.a})
	}
	for _, l := range []struct {
		op   Op
		name string
		t    Type
		size int
	}{
		{OpI32Load8S, "i32.load8_s", I32, 1}, {OpI32Load8U, "i32.load8_u", I32, 1},
		{OpI32Load16S, "i32.load16_s", I32, 2}, {OpI32Load16U, "i32.load16_u", I32, 2},
		{OpI32Load, "i32.load", I32, 4}, {OpF32Load, "f32.load", F32, 4},
	} {
		def(l.op, OpInfo{Name: l.name, Format: FormatLoad, Dst: l.t, A: IntType, Size: l.size})
	}
	for _, st := range []struct {
		op   Op
		name string
		t    Type
		size int
	}{
		{OpI32Store8, "i32.store8", I32, 1}, {OpI32Store16, "i32.store16", I32, 2},
		{OpI32Store, "i32.store", I32, 4}, {OpF32Store, "f32.store", F32, 4},
	} {
		def(st.op, OpInfo{Name: st.name, Format: FormatStore, A: IntType, B: st.t, Size: st.size})
	}
}
