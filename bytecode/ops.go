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
	FormatNone       Format = iota
	FormatConst             // Dst, Imm
	FormatUnary             // Dst, A
	FormatBinary            // Dst, A, B or Imm (when the op allows immediates)
	FormatSelect            // Dst, A, B, C
	FormatLoad              // Dst, [A + Imm]
	FormatStore             // [A + Imm], B
	FormatMemorySize        // Dst
	FormatJump              // Target
	FormatBranch            // A, Target
	FormatCmpBranch         // A, B or Imm, Target
	FormatSwitch            // A, Table, Target
	FormatCall              // Callee, Args, Results
	FormatReturn            // Args
	FormatTrap              // Imm
)

// AnyType in an OpInfo operand type means "I64 or F64, the same as Dst".
const AnyType Type = 0xff

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
		def(OpI64Eq+Op(i), OpInfo{Name: "i64." + name, Format: FormatBinary, Dst: I64, A: I64, B: I64, Imm: true})
		def(OpBrEq+Op(i), OpInfo{Name: "br." + name, Format: FormatCmpBranch, A: I64, B: I64, Imm: true, Branch: true})
	}
	def(OpSelect, OpInfo{Name: "select", Format: FormatSelect, Dst: AnyType, A: I64, B: AnyType, C: AnyType})

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
		def(op, OpInfo{Name: "f64." + name, Format: FormatBinary, Dst: I64, A: F64, B: F64})
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
		def(op, OpInfo{Name: "i64." + l.name, Format: FormatLoad, Dst: I64, A: I64, Size: l.size})
	}
	def(OpF64Load, OpInfo{Name: "f64.load", Format: FormatLoad, Dst: F64, A: I64, Size: 8})
	for op, s := range map[Op]struct {
		name string
		size int
	}{
		OpI64Store8: {"store8", 1}, OpI64Store16: {"store16", 2}, OpI64Store32: {"store32", 4}, OpI64Store: {"store", 8},
	} {
		def(op, OpInfo{Name: "i64." + s.name, Format: FormatStore, A: I64, B: I64, Size: s.size})
	}
	def(OpF64Store, OpInfo{Name: "f64.store", Format: FormatStore, A: I64, B: F64, Size: 8})
	def(OpMemorySize, OpInfo{Name: "memory.size", Format: FormatMemorySize, Dst: I64})
	def(OpMemoryGrow, OpInfo{Name: "memory.grow", Format: FormatUnary, Dst: I64, A: I64})

	def(OpJump, OpInfo{Name: "jump", Format: FormatJump, Terminator: true, Branch: true})
	def(OpBrIf, OpInfo{Name: "br_if", Format: FormatBranch, A: I64, Branch: true})
	def(OpSwitch, OpInfo{Name: "switch", Format: FormatSwitch, A: I64, Terminator: true, Branch: true})
	def(OpCall, OpInfo{Name: "call", Format: FormatCall})
	def(OpCallHost, OpInfo{Name: "call_host", Format: FormatCall})
	def(OpReturn, OpInfo{Name: "ret", Format: FormatReturn, Terminator: true})
	def(OpTrap, OpInfo{Name: "trap", Format: FormatTrap, Terminator: true})

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

// CompareCond returns the condition of an i64 compare or a compare-and-branch
// opcode.
func (op Op) CompareCond() (Cond, bool) {
	switch {
	case op >= OpI64Eq && op <= OpI64GeU:
		return Cond(op - OpI64Eq), true
	case op >= OpBrEq && op <= OpBrGeU:
		return Cond(op - OpBrEq), true
	}
	return 0, false
}
