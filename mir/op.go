package mir

import "fmt"

// Op is a machine IR opcode: an x86-64 instruction (or a short fixed
// sequence the encoder expands, marked as such below) or an IR pseudo-op
// (φ, parallel copy, argument, spill, reload).
type Op uint16

// The opcodes. Names follow the Go assembler's (Q = 64-bit, L = 32-bit,
// SD = scalar double, SS = scalar single); "const" takes an immediate,
// "load"/"store" a memory operand [base + index*scale + disp], whose index
// may be NoReg (no index: [base + disp], with scale 1). Every
// constraint of every op is in the op table (Op.Info); nothing else in
// kiln hard-codes them.
const (
	OpInvalid Op = iota

	// IR pseudo-ops.
	OpPhi      // Defs[0] = φ(Uses...), one use per predecessor, in Preds order
	OpParCopy  // Defs[i] = Uses[i] for all i at once
	OpArg      // Defs[0] = argument Aux, in its calling-convention location
	OpSpill    // slot Defs[0] = Uses[0] (register to stack slot)
	OpReload   // Defs[0] = slot Uses[0]
	OpCopy     // Defs[0] = Uses[0] (any class; a register move after allocation)
	OpXchg     // swap two registers: Defs = (Uses[1], Uses[0])
	OpCtxLoad  // Defs[0] = a field of the execution context (Aux: CtxField)
	OpPoll     // preemption/cancellation/fuel check at a backward branch
	OpCount    // increments edge counter Aux
	OpCountAdd // adds Uses[0] (a GPR) to edge counter Aux

	// Integer moves and constants.
	OpMOVQconst
	OpMOVQ2X // xmm <- bits of a gpr (movq)
	OpMOVX2Q // gpr <- bits of an xmm (movq)

	// Integer ALU, two-address: Defs[0] is tied to Uses[0].
	OpADDQ
	OpSUBQ
	OpANDQ
	OpORQ
	OpXORQ
	OpIMULQ
	OpADDQconst
	OpSUBQconst
	OpANDQconst
	OpORQconst
	OpXORQconst
	OpADDQload
	OpSUBQload
	OpANDQload
	OpORQload
	OpXORQload
	OpIMULQload
	OpNEGQ
	OpNOTQ
	OpSHLQ // count in CL
	OpSHRQ
	OpSARQ
	OpROLQ
	OpRORQ
	OpSHLQconst
	OpSHRQconst
	OpSARQconst
	OpROLQconst
	OpRORQconst

	// Three-address integer ops.
	OpIMUL3Qconst // Defs[0] = Uses[0] * Imm
	OpLEAQ        // Defs[0] = Uses[0] + Imm
	OpLEAQidx     // Defs[0] = Uses[0] + Uses[1]*Scale + Imm

	// Division: the encoder emits CQO (or XOR EDX, EDX) and IDIV (or DIV).
	// Callers must have excluded division by zero and INT64_MIN / -1.
	OpIDIVQ // quotient RAX, remainder RDX = RAX / Uses[1], signed
	OpDIVQ  // likewise, unsigned

	// Compares and flag readers.
	OpCMPQ
	OpCMPQconst
	OpCMPQload // Uses[0] compared with memory [Uses[1] + Uses[2]*Scale + Imm]
	OpTESTQ
	OpTESTQconst
	OpSETCC   // Defs[0] = Cond ? 1 : 0 (SETcc and MOVZX)
	OpCMOVQCC // Defs[0] = Cond ? Uses[1] : Uses[0]; Defs[0] tied to Uses[0]

	// Bit counting. LZCNT and TZCNT need BMI1/ABM, POPCNT its own feature;
	// the BSR/BSF forms work everywhere (the lowering picks).
	OpLZCNTQ
	OpTZCNTQ
	OpPOPCNTQ
	OpBSRQ
	OpBSFQ

	// Extensions of the low bits of a register.
	OpMOVBQSX
	OpMOVBQZX
	OpMOVWQSX
	OpMOVWQZX
	OpMOVLQSX
	OpMOVLQZX

	// Loads and stores of linear memory: [Uses[0] + Uses[1]*Scale + Imm].
	OpMOVBQSXload
	OpMOVBQZXload
	OpMOVWQSXload
	OpMOVWQZXload
	OpMOVLQSXload
	OpMOVLQZXload
	OpMOVQload
	OpMOVSDload
	OpMOVBstore // store Uses[2]
	OpMOVWstore
	OpMOVLstore
	OpMOVQstore
	OpMOVSDstore

	// Scalar double arithmetic (SSE2), two-address.
	OpMOVSDconst // Defs[0] = float64 with bits Imm (constant pool)
	OpADDSD
	OpSUBSD
	OpMULSD
	OpDIVSD
	OpADDSDload
	OpSUBSDload
	OpMULSDload
	OpDIVSDload
	OpSQRTSD
	OpMINSD      // kiln min: NaN if either is NaN, -0 < +0 (expanded sequence)
	OpMAXSD      // kiln max (expanded sequence)
	OpROUNDSD    // SSE4.1; Aux: RoundNearest, RoundFloor, RoundCeil, RoundTrunc
	OpXORPDconst // Defs[0] = Uses[0] XOR bits Imm (tied; sign flip)
	OpANDPDconst // Defs[0] = Uses[0] AND bits Imm (tied; absolute value)
	OpUCOMISD    // flags from comparing Uses[0] with Uses[1]

	// Conversions.
	OpCVTSQ2SD     // f64 <- signed i64
	OpCVTUQ2SD     // f64 <- unsigned i64 (expanded sequence; needs a GPR temp)
	OpCVTTSD2SQ    // i64 <- f64 truncated; 0x8000000000000000 when out of range or NaN
	OpCVTTSD2SQsat // i64 <- f64 truncated, saturating, NaN -> 0 (expanded)
	OpCVTTSD2UQsat // u64 <- f64 truncated, saturating, NaN -> 0 (expanded; needs an XMM temp)
	OpCVTTSD2UQ    // u64 <- f64 truncated for 0 <= x < 2^64 (expanded; needs an XMM temp)

	// 32-bit integer ops (L = long, 32 bits). They read the low 32 bits of
	// their operands and write a 32-bit result zero-extended to 64 bits, as
	// x86-64 does: an i32 value lives in a GPR with its upper half zero.
	OpADDL
	OpSUBL
	OpANDL
	OpORL
	OpXORL
	OpIMULL
	OpADDLconst
	OpSUBLconst
	OpANDLconst
	OpORLconst
	OpXORLconst
	OpNEGL
	OpNOTL
	OpSHLL // count in CL (mod 32)
	OpSHRL
	OpSARL
	OpROLL
	OpRORL
	OpSHLLconst
	OpSHRLconst
	OpSARLconst
	OpROLLconst
	OpRORLconst
	OpIMUL3Lconst // Defs[0] = Uses[0] * Imm (32 bits)
	OpLEAL        // Defs[0] = Uses[0] + Imm (32 bits)
	OpLEALidx     // Defs[0] = Uses[0] + Uses[1]*Scale + Imm (32 bits)
	OpIDIVL       // EAX, EDX = EAX / Uses[1], signed (CDQ; IDIVL). Callers exclude 0 and INT32_MIN / -1.
	OpDIVL        // likewise, unsigned (XORL EDX, EDX; DIVL)
	OpCMPL
	OpCMPLconst
	OpTESTL
	OpTESTLconst
	OpLZCNTL
	OpTZCNTL
	OpPOPCNTL
	OpBSRL
	OpBSFL
	OpMOVBLSX     // i32 <- sign-extended low byte (upper half zero)
	OpMOVWLSX     // i32 <- sign-extended low 16 bits (upper half zero)
	OpMOVBLSXload // i32 <- sign-extended byte of memory
	OpMOVWLSXload // i32 <- sign-extended 16 bits of memory

	// Scalar single (f32) ops. An f32 value lives in the low 32 bits of an
	// XMM register; bits 32..63 are undefined and no op reads them (ops
	// that move an f32 to a GPR or memory take 32 bits only).
	OpMOVSSconst // Defs[0] = float32 with bits Imm (constant pool)
	OpMOVSSload
	OpMOVSSstore // store Uses[2]
	OpADDSS
	OpSUBSS
	OpMULSS
	OpDIVSS
	OpSQRTSS
	OpMINSS   // kiln min (expanded, as MINSD)
	OpMAXSS   // kiln max (expanded)
	OpROUNDSS // SSE4.1; Aux: rounding mode
	OpUCOMISS
	OpMOVL2X // xmm <- low 32 bits of a gpr (movd)
	OpMOVX2L // gpr <- low 32 bits of an xmm, zero-extended (movd)

	// Conversions involving 32-bit types.
	OpCVTSS2SD  // f64 <- f32 (exact; a NaN is quieted)
	OpCVTSD2SS  // f32 <- f64 (rounded; a NaN is quieted, payload truncated)
	OpCVTSL2SS  // f32 <- signed i32
	OpCVTSQ2SS  // f32 <- signed i64
	OpCVTUQ2SS  // f32 <- unsigned i64 (expanded sequence; needs a GPR temp)
	OpCVTSL2SD  // f64 <- signed i32
	OpCVTTSD2SL // i32 <- f64 truncated; 0x80000000 when out of range or NaN

	// Control flow. Terminators end every block.
	OpJMP      // to Succs[0]
	OpJCC      // to Succs[0] if Cond, else Succs[1]
	OpJMPTABLE // to Succs[Uses[0]]; the index is known to be in range
	OpRET      // return Uses (in the result registers)
	OpTRAP     // stop with trap kind Aux (code Imm for explicit traps)

	// OpTRAPCC stops with trap kind Aux when Cond holds on the flags and
	// otherwise falls through to the next instruction: a check whose
	// failure path is out of line, so that it does not end its block.
	OpTRAPCC

	// Calls. Arguments and results sit in the calling convention's
	// locations; calls clobber the caller-saved registers. CALL and
	// CALLHOST check the call depth and stack first and may trap with a
	// stack overflow at their bytecode offset.
	OpCALL     // kiln function Aux
	OpCALLHOST // host import Aux (through an exit to Go)
	OpCALLRT   // runtime function Aux (RTMemoryGrow ...), through an exit to Go
	// OpCALLIND calls the kiln function whose index is its last use (in
	// RAX), known to have the call's signature (canonical signature id
	// Aux); its other uses are the arguments.
	OpCALLIND

	// Globals and the table. GLOBALload* set Defs[0] to global Aux,
	// GLOBALstore* set global Aux to Uses[0]: Q 64 bits; L 32 bits,
	// zero-extended on load, the global's upper half kept on store; SD an
	// f64; SS an f32, the register's upper bits cleared on load, the
	// global's upper half kept on store. TABLEload sets Defs[0] to the
	// packed table entry (TableEntry) at index Uses[0], known to be in
	// range. The encoder reaches both through the context with the
	// scratch register.
	OpGLOBALloadQ
	OpGLOBALloadL
	OpGLOBALloadSD
	OpGLOBALloadSS
	OpGLOBALstoreQ
	OpGLOBALstoreL
	OpGLOBALstoreSD
	OpGLOBALstoreSS
	OpTABLEload

	// Block moves of linear memory, on host addresses the lowering has
	// bounds-checked (expanded sequences). MEMMOVE copies RCX bytes from
	// RSI to RDI as memmove does (forward, or backward when the
	// destination overlaps the source's end); MEMFILL sets RCX bytes from
	// RDI on to the low byte of RAX. The defs are the registers the
	// sequences leave changed, with no meaningful value.
	OpMEMMOVE
	OpMEMFILL

	numOps
)

// MaxGlobals bounds the global index of GLOBALload and GLOBALstore, so
// that the encoder's displacement (8 bytes per global) fits in 32 bits.
const MaxGlobals = 1 << 28

// NumOps is the number of opcodes (OpInvalid included).
const NumOps = int(numOps)

// CtxField names a field of the execution context that OpCtxLoad reads.
// The bounds let a memory access check its address with one unsigned
// comparison: an access of n bytes at address a is in bounds exactly when
// a < max(0, length - n + 1).
type CtxField int32

// MemBoundField returns the context field bounding accesses of size bytes
// (1, 2, 4 or 8).
func MemBoundField(size int) CtxField {
	switch size {
	case 1:
		return CtxMemBound1
	case 2:
		return CtxMemBound2
	case 4:
		return CtxMemBound4
	}
	return CtxMemBound8
}

// MemBound returns the value of a bound field for a memory of length bytes.
func MemBound(field CtxField, length uint64) uint64 {
	size := uint64(1) << (field - CtxMemBound1)
	if length < size {
		return 0
	}
	return length - size + 1
}

// The context fields compiled code reads.
const (
	CtxMemBase   CtxField = iota // address of linear memory
	CtxMemLen                    // size of linear memory in bytes
	CtxMemBound1                 // accesses of 1 byte are in bounds at addresses below this
	CtxMemBound2                 // ... of 2 bytes: max(0, length - 1)
	CtxMemBound4                 // ... of 4 bytes: max(0, length - 3)
	CtxMemBound8                 // ... of 8 bytes: max(0, length - 7)
	CtxDepth                     // the call depth of the running function (changes only in calls, which restore it)
	CtxOSRDepth                  // the depth whose entry continues an interpreter frame, or -1 (on-stack replacement)
	CtxOSREntry                  // which on-stack-replacement entry, from 1
	CtxOSRFrame                  // address of the interpreter frame's registers, 8 bytes each
	numCtxFields
)

// Runtime functions OpCALLRT can call. A runtime function that traps
// does so at the CALLRT's bytecode offset.
const (
	RTMemoryGrow = iota // (delta pages) -> old pages or -1
	RTMemoryInit        // (data segment, address, offset, count) -> (); traps OutOfBounds
	RTDataDrop          // (data segment) -> ()
	RTTableGet          // (table, index) -> entry; traps TableOutOfBounds
	RTTableSet          // (table, index, value) -> (); traps TableOutOfBounds, InvalidReference
	RTTableSize         // (table) -> size
	RTTableGrow         // (table, value, delta) -> old size or -1; traps InvalidReference
	RTTableFill         // (table, index, value, count) -> (); traps as RTTableSet
	RTTableCopy         // (destination table, source table, destination, source, count) -> ()
	RTTableInit         // (table, element segment, destination, source, count) -> ()
	RTElemDrop          // (element segment) -> ()
	numRuntimeFuncs
)

// runtimeArity holds the number of arguments and results of each
// runtime function.
var runtimeArity = [numRuntimeFuncs][2]int{
	RTMemoryGrow: {1, 1},
	RTMemoryInit: {4, 0},
	RTDataDrop:   {1, 0},
	RTTableGet:   {2, 1},
	RTTableSet:   {3, 0},
	RTTableSize:  {1, 1},
	RTTableGrow:  {3, 1},
	RTTableFill:  {4, 0},
	RTTableCopy:  {5, 0},
	RTTableInit:  {5, 0},
	RTElemDrop:   {1, 0},
}

// RuntimeArity returns the number of arguments and results of runtime
// function fn, and false when there is no such function.
func RuntimeArity(fn int32) (args, results int, ok bool) {
	if fn < 0 || fn >= numRuntimeFuncs {
		return 0, 0, false
	}
	a := runtimeArity[fn]
	return a[0], a[1], true
}

// Rounding modes of OpROUNDSD and OpROUNDSS (their immediate).
const (
	RoundNearest = 0
	RoundFloor   = 1
	RoundCeil    = 2
	RoundTrunc   = 3
)

// Role says what a use operand is for.
type Role uint8

// The operand roles.
const (
	RoleValue    Role = iota
	RoleMemBase       // base register of a memory operand
	RoleMemIndex      // index register of a memory operand; NoReg for none
)

// OperandSpec is the constraint on one operand.
type OperandSpec struct {
	// Class is the register class, or ClassNone for "either class, the
	// same as the other operands" (φ, copies).
	Class Class
	// Fixed is the physical register the operand must be in, or NoReg.
	Fixed Reg
	// Tied, for a def, is the index of the use whose location the def must
	// share (x86 two-address form), or -1.
	Tied int8
	// EarlyClobber, for a def, says the instruction writes it before it has
	// read all its uses, so no use may share its register.
	EarlyClobber bool
	// Role says whether a use is a value or part of a memory address.
	Role Role
}

// Latency classes: the expected cycles from issue to result, used by the
// scheduler.
const (
	LatNone   = 0
	LatALU    = 1
	LatMul    = 3
	LatLoad   = 4
	LatFP     = 4
	LatCvt    = 5
	LatFPDiv  = 14
	LatSqrt   = 18
	LatDiv    = 30
	LatCall   = 5
	LatBranch = 1
)

// OpInfo describes an opcode.
type OpInfo struct {
	Name string
	// Defs and Uses give the operand constraints, in operand order. When
	// Variadic is set the operand counts vary per instruction and the
	// specs are computed by Instr.DefSpec/UseSpec (φ, copies, calls).
	Defs, Uses []OperandSpec
	Variadic   bool
	// Clobbers lists physical registers the op destroys besides its defs.
	Clobbers RegSet
	// ReadsFlags and WritesFlags describe EFLAGS. An op that writes the
	// flags clobbers them for any later reader.
	ReadsFlags, WritesFlags bool
	// HasImm says the op uses Imm; HasCond that it uses Cond; HasMem that
	// its uses include a memory operand (base, index, Scale, Imm).
	HasImm, HasCond, HasMem bool
	// MemSize is the number of bytes a memory operand accesses.
	MemSize int
	// Loads and Stores mark memory reads and writes (linear memory).
	Loads, Stores bool
	// Terminator ends a block; NumSuccs is its number of successors (-1:
	// one per jump table entry).
	Terminator bool
	NumSuccs   int
	// Call marks calls (clobbering CallerSaved); MayTrap ops can stop
	// execution with a trap; SideEffects ops must not be removed even when
	// their results are unused.
	Call, MayTrap, SideEffects bool
	// Guarded marks ops that can fault in hardware on operands an earlier
	// check rules out (a division by zero, a table index out of range):
	// they must not move above a MayTrap instruction that precedes them.
	// Memory accesses are ordered by Loads and Stores instead.
	Guarded bool
	// Expanded marks ops the encoder emits as a multi-instruction sequence.
	Expanded bool
	// Latency is the op's latency class.
	Latency int
	// Feature names a CPU feature the op needs ("" for baseline x86-64).
	Feature string
}

var opTable [numOps]OpInfo

// Info returns the op-table entry of op.
func (op Op) Info() *OpInfo {
	if int(op) < len(opTable) {
		return &opTable[op]
	}
	return &opTable[OpInvalid]
}

// String returns the op's name.
func (op Op) String() string {
	if int(op) < len(opTable) && opTable[op].Name != "" {
		return opTable[op].Name
	}
	return fmt.Sprintf("op(%d)", int(op))
}

var opByName = map[string]Op{}

// OpByName looks up an opcode by name.
func OpByName(name string) (Op, bool) {
	op, ok := opByName[name]
	return op, ok && op != OpInvalid
}

// Operand spec constructors for the table.
func gp() OperandSpec                        { return OperandSpec{Class: GPR, Fixed: NoReg, Tied: -1} }
func xm() OperandSpec                        { return OperandSpec{Class: XMM, Fixed: NoReg, Tied: -1} }
func anyClass() OperandSpec                  { return OperandSpec{Class: ClassNone, Fixed: NoReg, Tied: -1} }
func fixed(r Reg) OperandSpec                { s := OperandSpec{Class: r.Class(), Fixed: r, Tied: -1}; return s }
func (s OperandSpec) tied(i int) OperandSpec { s.Tied = int8(i); return s }
func (s OperandSpec) early() OperandSpec     { s.EarlyClobber = true; return s }
func (s OperandSpec) role(r Role) OperandSpec {
	s.Role = r
	return s
}

func specs(s ...OperandSpec) []OperandSpec { return s }

// memUses returns the two address operands of a memory operand.
func memUses() []OperandSpec {
	return []OperandSpec{gp().role(RoleMemBase), gp().role(RoleMemIndex)}
}

func init() {
	def := func(op Op, info OpInfo) {
		if opTable[op].Name != "" {
			panic("mir: op defined twice: " + info.Name)
		}
		opTable[op] = info
	}
	def(OpInvalid, OpInfo{Name: "Invalid"})

	// Pseudo-ops.
	def(OpPhi, OpInfo{Name: "Phi", Variadic: true})
	def(OpParCopy, OpInfo{Name: "ParCopy", Variadic: true})
	def(OpArg, OpInfo{Name: "Arg", Variadic: true})
	def(OpSpill, OpInfo{Name: "Spill", Defs: specs(anyClass()), Uses: specs(anyClass()), Latency: LatALU})
	def(OpReload, OpInfo{Name: "Reload", Defs: specs(anyClass()), Uses: specs(anyClass()), Latency: LatLoad})
	def(OpCopy, OpInfo{Name: "Copy", Defs: specs(anyClass()), Uses: specs(anyClass()), Latency: LatALU})
	def(OpXchg, OpInfo{Name: "Xchg", Defs: specs(gp(), gp()), Uses: specs(gp(), gp()), Latency: LatALU * 2})
	def(OpCtxLoad, OpInfo{Name: "CtxLoad", Defs: specs(gp()), Latency: LatLoad})
	def(OpPoll, OpInfo{Name: "Poll", WritesFlags: true, MayTrap: true, SideEffects: true, Latency: LatALU})
	def(OpCount, OpInfo{Name: "Count", WritesFlags: true, SideEffects: true, Latency: LatALU})
	def(OpCountAdd, OpInfo{Name: "CountAdd", Uses: specs(gp()), WritesFlags: true, SideEffects: true, Latency: LatALU})

	def(OpMOVQconst, OpInfo{Name: "MOVQconst", Defs: specs(gp()), HasImm: true, Latency: LatALU})
	def(OpMOVQ2X, OpInfo{Name: "MOVQ2X", Defs: specs(xm()), Uses: specs(gp()), Latency: LatCvt})
	def(OpMOVX2Q, OpInfo{Name: "MOVX2Q", Defs: specs(gp()), Uses: specs(xm()), Latency: LatCvt})

	alu2 := func(op Op, name string, lat int) {
		def(op, OpInfo{Name: name, Defs: specs(gp().tied(0)), Uses: specs(gp(), gp()), WritesFlags: true, Latency: lat})
	}
	alu2(OpADDQ, "ADDQ", LatALU)
	alu2(OpSUBQ, "SUBQ", LatALU)
	alu2(OpANDQ, "ANDQ", LatALU)
	alu2(OpORQ, "ORQ", LatALU)
	alu2(OpXORQ, "XORQ", LatALU)
	alu2(OpIMULQ, "IMULQ", LatMul)
	aluc := func(op Op, name string) {
		def(op, OpInfo{Name: name, Defs: specs(gp().tied(0)), Uses: specs(gp()), HasImm: true, WritesFlags: true, Latency: LatALU})
	}
	aluc(OpADDQconst, "ADDQconst")
	aluc(OpSUBQconst, "SUBQconst")
	aluc(OpANDQconst, "ANDQconst")
	aluc(OpORQconst, "ORQconst")
	aluc(OpXORQconst, "XORQconst")
	alum := func(op Op, name string, lat int) {
		def(op, OpInfo{Name: name, Defs: specs(gp().tied(0)), Uses: append(specs(gp()), memUses()...),
			HasImm: true, HasMem: true, MemSize: 8, Loads: true, WritesFlags: true, Latency: lat + LatLoad})
	}
	alum(OpADDQload, "ADDQload", LatALU)
	alum(OpSUBQload, "SUBQload", LatALU)
	alum(OpANDQload, "ANDQload", LatALU)
	alum(OpORQload, "ORQload", LatALU)
	alum(OpXORQload, "XORQload", LatALU)
	alum(OpIMULQload, "IMULQload", LatMul)
	def(OpNEGQ, OpInfo{Name: "NEGQ", Defs: specs(gp().tied(0)), Uses: specs(gp()), WritesFlags: true, Latency: LatALU})
	def(OpNOTQ, OpInfo{Name: "NOTQ", Defs: specs(gp().tied(0)), Uses: specs(gp()), Latency: LatALU})
	shift := func(op Op, name string) {
		def(op, OpInfo{Name: name, Defs: specs(gp().tied(0)), Uses: specs(gp(), fixed(RCX)), WritesFlags: true, Latency: LatALU})
	}
	shift(OpSHLQ, "SHLQ")
	shift(OpSHRQ, "SHRQ")
	shift(OpSARQ, "SARQ")
	shift(OpROLQ, "ROLQ")
	shift(OpRORQ, "RORQ")
	aluc(OpSHLQconst, "SHLQconst")
	aluc(OpSHRQconst, "SHRQconst")
	aluc(OpSARQconst, "SARQconst")
	aluc(OpROLQconst, "ROLQconst")
	aluc(OpRORQconst, "RORQconst")

	def(OpIMUL3Qconst, OpInfo{Name: "IMUL3Qconst", Defs: specs(gp()), Uses: specs(gp()), HasImm: true, WritesFlags: true, Latency: LatMul})
	def(OpLEAQ, OpInfo{Name: "LEAQ", Defs: specs(gp()), Uses: specs(gp()), HasImm: true, Latency: LatALU})
	def(OpLEAQidx, OpInfo{Name: "LEAQidx", Defs: specs(gp()), Uses: specs(gp(), gp()), HasImm: true, HasMem: true, Latency: LatALU})
	def(OpIDIVQ, OpInfo{Name: "IDIVQ", Defs: specs(fixed(RAX), fixed(RDX).early()), Uses: specs(fixed(RAX), gp()),
		WritesFlags: true, Guarded: true, Expanded: true, Latency: LatDiv})
	def(OpDIVQ, OpInfo{Name: "DIVQ", Defs: specs(fixed(RAX), fixed(RDX).early()), Uses: specs(fixed(RAX), gp()),
		WritesFlags: true, Guarded: true, Expanded: true, Latency: LatDiv})

	def(OpCMPQ, OpInfo{Name: "CMPQ", Uses: specs(gp(), gp()), WritesFlags: true, Latency: LatALU})
	def(OpCMPQconst, OpInfo{Name: "CMPQconst", Uses: specs(gp()), HasImm: true, WritesFlags: true, Latency: LatALU})
	def(OpCMPQload, OpInfo{Name: "CMPQload", Uses: append(specs(gp()), memUses()...), HasImm: true, HasMem: true,
		MemSize: 8, Loads: true, WritesFlags: true, Latency: LatALU + LatLoad})
	def(OpTESTQ, OpInfo{Name: "TESTQ", Uses: specs(gp(), gp()), WritesFlags: true, Latency: LatALU})
	def(OpTESTQconst, OpInfo{Name: "TESTQconst", Uses: specs(gp()), HasImm: true, WritesFlags: true, Latency: LatALU})
	def(OpSETCC, OpInfo{Name: "SETCC", Defs: specs(gp()), HasCond: true, ReadsFlags: true, Expanded: true, Latency: LatALU})
	def(OpCMOVQCC, OpInfo{Name: "CMOVQCC", Defs: specs(gp().tied(0)), Uses: specs(gp(), gp()), HasCond: true,
		ReadsFlags: true, Expanded: true, Latency: LatALU})

	bitop := func(op Op, name, feature string) {
		def(op, OpInfo{Name: name, Defs: specs(gp()), Uses: specs(gp()), WritesFlags: true, Latency: LatMul, Feature: feature})
	}
	bitop(OpLZCNTQ, "LZCNTQ", "lzcnt")
	bitop(OpTZCNTQ, "TZCNTQ", "bmi1")
	bitop(OpPOPCNTQ, "POPCNTQ", "popcnt")
	bitop(OpBSRQ, "BSRQ", "")
	bitop(OpBSFQ, "BSFQ", "")

	ext := func(op Op, name string) {
		def(op, OpInfo{Name: name, Defs: specs(gp()), Uses: specs(gp()), Latency: LatALU})
	}
	ext(OpMOVBQSX, "MOVBQSX")
	ext(OpMOVBQZX, "MOVBQZX")
	ext(OpMOVWQSX, "MOVWQSX")
	ext(OpMOVWQZX, "MOVWQZX")
	ext(OpMOVLQSX, "MOVLQSX")
	ext(OpMOVLQZX, "MOVLQZX")

	load := func(op Op, name string, size int, dst OperandSpec) {
		def(op, OpInfo{Name: name, Defs: specs(dst), Uses: memUses(), HasImm: true, HasMem: true, MemSize: size, Loads: true, Latency: LatLoad})
	}
	load(OpMOVBQSXload, "MOVBQSXload", 1, gp())
	load(OpMOVBQZXload, "MOVBQZXload", 1, gp())
	load(OpMOVWQSXload, "MOVWQSXload", 2, gp())
	load(OpMOVWQZXload, "MOVWQZXload", 2, gp())
	load(OpMOVLQSXload, "MOVLQSXload", 4, gp())
	load(OpMOVLQZXload, "MOVLQZXload", 4, gp())
	load(OpMOVQload, "MOVQload", 8, gp())
	load(OpMOVSDload, "MOVSDload", 8, xm())
	store := func(op Op, name string, size int, val OperandSpec) {
		def(op, OpInfo{Name: name, Uses: append(memUses(), val), HasImm: true, HasMem: true, MemSize: size,
			Stores: true, SideEffects: true, Latency: LatALU})
	}
	store(OpMOVBstore, "MOVBstore", 1, gp())
	store(OpMOVWstore, "MOVWstore", 2, gp())
	store(OpMOVLstore, "MOVLstore", 4, gp())
	store(OpMOVQstore, "MOVQstore", 8, gp())
	store(OpMOVSDstore, "MOVSDstore", 8, xm())

	def(OpMOVSDconst, OpInfo{Name: "MOVSDconst", Defs: specs(xm()), HasImm: true, Latency: LatLoad})
	fp2 := func(op Op, name string, lat int) {
		def(op, OpInfo{Name: name, Defs: specs(xm().tied(0)), Uses: specs(xm(), xm()), Latency: lat})
	}
	fp2(OpADDSD, "ADDSD", LatFP)
	fp2(OpSUBSD, "SUBSD", LatFP)
	fp2(OpMULSD, "MULSD", LatFP)
	fp2(OpDIVSD, "DIVSD", LatFPDiv)
	fpm := func(op Op, name string, lat int) {
		def(op, OpInfo{Name: name, Defs: specs(xm().tied(0)), Uses: append(specs(xm()), memUses()...),
			HasImm: true, HasMem: true, MemSize: 8, Loads: true, Latency: lat + LatLoad})
	}
	fpm(OpADDSDload, "ADDSDload", LatFP)
	fpm(OpSUBSDload, "SUBSDload", LatFP)
	fpm(OpMULSDload, "MULSDload", LatFP)
	fpm(OpDIVSDload, "DIVSDload", LatFPDiv)
	def(OpSQRTSD, OpInfo{Name: "SQRTSD", Defs: specs(xm()), Uses: specs(xm()), Latency: LatSqrt})
	def(OpMINSD, OpInfo{Name: "MINSD", Defs: specs(xm().tied(0)), Uses: specs(xm(), xm()), WritesFlags: true, Expanded: true, Latency: LatFP})
	def(OpMAXSD, OpInfo{Name: "MAXSD", Defs: specs(xm().tied(0)), Uses: specs(xm(), xm()), WritesFlags: true, Expanded: true, Latency: LatFP})
	def(OpROUNDSD, OpInfo{Name: "ROUNDSD", Defs: specs(xm()), Uses: specs(xm()), Latency: LatFP, Feature: "sse4.1"})
	def(OpXORPDconst, OpInfo{Name: "XORPDconst", Defs: specs(xm().tied(0)), Uses: specs(xm()), HasImm: true, Latency: LatALU})
	def(OpANDPDconst, OpInfo{Name: "ANDPDconst", Defs: specs(xm().tied(0)), Uses: specs(xm()), HasImm: true, Latency: LatALU})
	def(OpUCOMISD, OpInfo{Name: "UCOMISD", Uses: specs(xm(), xm()), WritesFlags: true, Latency: LatFP})

	def(OpCVTSQ2SD, OpInfo{Name: "CVTSQ2SD", Defs: specs(xm()), Uses: specs(gp()), Latency: LatCvt})
	def(OpCVTUQ2SD, OpInfo{Name: "CVTUQ2SD", Defs: specs(xm(), gp().early()), Uses: specs(gp()),
		WritesFlags: true, Expanded: true, Latency: LatCvt * 2})
	def(OpCVTTSD2SQ, OpInfo{Name: "CVTTSD2SQ", Defs: specs(gp()), Uses: specs(xm()), Latency: LatCvt})
	def(OpCVTTSD2SQsat, OpInfo{Name: "CVTTSD2SQsat", Defs: specs(gp().early()), Uses: specs(xm()),
		WritesFlags: true, Expanded: true, Latency: LatCvt * 2})
	def(OpCVTTSD2UQsat, OpInfo{Name: "CVTTSD2UQsat", Defs: specs(gp().early(), xm().early()), Uses: specs(xm()),
		WritesFlags: true, Expanded: true, Latency: LatCvt * 3})
	def(OpCVTTSD2UQ, OpInfo{Name: "CVTTSD2UQ", Defs: specs(gp().early(), xm().early()), Uses: specs(xm()),
		WritesFlags: true, Expanded: true, Latency: LatCvt * 3})

	alu2(OpADDL, "ADDL", LatALU)
	alu2(OpSUBL, "SUBL", LatALU)
	alu2(OpANDL, "ANDL", LatALU)
	alu2(OpORL, "ORL", LatALU)
	alu2(OpXORL, "XORL", LatALU)
	alu2(OpIMULL, "IMULL", LatMul)
	aluc(OpADDLconst, "ADDLconst")
	aluc(OpSUBLconst, "SUBLconst")
	aluc(OpANDLconst, "ANDLconst")
	aluc(OpORLconst, "ORLconst")
	aluc(OpXORLconst, "XORLconst")
	def(OpNEGL, OpInfo{Name: "NEGL", Defs: specs(gp().tied(0)), Uses: specs(gp()), WritesFlags: true, Latency: LatALU})
	def(OpNOTL, OpInfo{Name: "NOTL", Defs: specs(gp().tied(0)), Uses: specs(gp()), Latency: LatALU})
	shift(OpSHLL, "SHLL")
	shift(OpSHRL, "SHRL")
	shift(OpSARL, "SARL")
	shift(OpROLL, "ROLL")
	shift(OpRORL, "RORL")
	aluc(OpSHLLconst, "SHLLconst")
	aluc(OpSHRLconst, "SHRLconst")
	aluc(OpSARLconst, "SARLconst")
	aluc(OpROLLconst, "ROLLconst")
	aluc(OpRORLconst, "RORLconst")
	def(OpIMUL3Lconst, OpInfo{Name: "IMUL3Lconst", Defs: specs(gp()), Uses: specs(gp()), HasImm: true, WritesFlags: true, Latency: LatMul})
	def(OpLEAL, OpInfo{Name: "LEAL", Defs: specs(gp()), Uses: specs(gp()), HasImm: true, Latency: LatALU})
	def(OpLEALidx, OpInfo{Name: "LEALidx", Defs: specs(gp()), Uses: specs(gp(), gp()), HasImm: true, HasMem: true, Latency: LatALU})
	def(OpIDIVL, OpInfo{Name: "IDIVL", Defs: specs(fixed(RAX), fixed(RDX).early()), Uses: specs(fixed(RAX), gp()),
		WritesFlags: true, Guarded: true, Expanded: true, Latency: LatDiv})
	def(OpDIVL, OpInfo{Name: "DIVL", Defs: specs(fixed(RAX), fixed(RDX).early()), Uses: specs(fixed(RAX), gp()),
		WritesFlags: true, Guarded: true, Expanded: true, Latency: LatDiv})
	def(OpCMPL, OpInfo{Name: "CMPL", Uses: specs(gp(), gp()), WritesFlags: true, Latency: LatALU})
	def(OpCMPLconst, OpInfo{Name: "CMPLconst", Uses: specs(gp()), HasImm: true, WritesFlags: true, Latency: LatALU})
	def(OpTESTL, OpInfo{Name: "TESTL", Uses: specs(gp(), gp()), WritesFlags: true, Latency: LatALU})
	def(OpTESTLconst, OpInfo{Name: "TESTLconst", Uses: specs(gp()), HasImm: true, WritesFlags: true, Latency: LatALU})
	bitop(OpLZCNTL, "LZCNTL", "lzcnt")
	bitop(OpTZCNTL, "TZCNTL", "bmi1")
	bitop(OpPOPCNTL, "POPCNTL", "popcnt")
	bitop(OpBSRL, "BSRL", "")
	bitop(OpBSFL, "BSFL", "")
	ext(OpMOVBLSX, "MOVBLSX")
	ext(OpMOVWLSX, "MOVWLSX")
	load(OpMOVBLSXload, "MOVBLSXload", 1, gp())
	load(OpMOVWLSXload, "MOVWLSXload", 2, gp())

	def(OpMOVSSconst, OpInfo{Name: "MOVSSconst", Defs: specs(xm()), HasImm: true, Latency: LatLoad})
	load(OpMOVSSload, "MOVSSload", 4, xm())
	store(OpMOVSSstore, "MOVSSstore", 4, xm())
	fp2(OpADDSS, "ADDSS", LatFP)
	fp2(OpSUBSS, "SUBSS", LatFP)
	fp2(OpMULSS, "MULSS", LatFP)
	fp2(OpDIVSS, "DIVSS", LatFPDiv)
	def(OpSQRTSS, OpInfo{Name: "SQRTSS", Defs: specs(xm()), Uses: specs(xm()), Latency: LatSqrt})
	def(OpMINSS, OpInfo{Name: "MINSS", Defs: specs(xm().tied(0)), Uses: specs(xm(), xm()), WritesFlags: true, Expanded: true, Latency: LatFP})
	def(OpMAXSS, OpInfo{Name: "MAXSS", Defs: specs(xm().tied(0)), Uses: specs(xm(), xm()), WritesFlags: true, Expanded: true, Latency: LatFP})
	def(OpROUNDSS, OpInfo{Name: "ROUNDSS", Defs: specs(xm()), Uses: specs(xm()), Latency: LatFP, Feature: "sse4.1"})
	def(OpUCOMISS, OpInfo{Name: "UCOMISS", Uses: specs(xm(), xm()), WritesFlags: true, Latency: LatFP})
	def(OpMOVL2X, OpInfo{Name: "MOVL2X", Defs: specs(xm()), Uses: specs(gp()), Latency: LatCvt})
	def(OpMOVX2L, OpInfo{Name: "MOVX2L", Defs: specs(gp()), Uses: specs(xm()), Latency: LatCvt})
	def(OpCVTSS2SD, OpInfo{Name: "CVTSS2SD", Defs: specs(xm()), Uses: specs(xm()), Latency: LatCvt})
	def(OpCVTSD2SS, OpInfo{Name: "CVTSD2SS", Defs: specs(xm()), Uses: specs(xm()), Latency: LatCvt})
	def(OpCVTSL2SS, OpInfo{Name: "CVTSL2SS", Defs: specs(xm()), Uses: specs(gp()), Latency: LatCvt})
	def(OpCVTSQ2SS, OpInfo{Name: "CVTSQ2SS", Defs: specs(xm()), Uses: specs(gp()), Latency: LatCvt})
	def(OpCVTUQ2SS, OpInfo{Name: "CVTUQ2SS", Defs: specs(xm(), gp().early()), Uses: specs(gp()),
		WritesFlags: true, Expanded: true, Latency: LatCvt * 2})
	def(OpCVTSL2SD, OpInfo{Name: "CVTSL2SD", Defs: specs(xm()), Uses: specs(gp()), Latency: LatCvt})
	def(OpCVTTSD2SL, OpInfo{Name: "CVTTSD2SL", Defs: specs(gp()), Uses: specs(xm()), Latency: LatCvt})

	def(OpJMP, OpInfo{Name: "JMP", Terminator: true, NumSuccs: 1, Latency: LatBranch})
	def(OpTRAPCC, OpInfo{Name: "TRAPCC", HasCond: true, ReadsFlags: true, MayTrap: true, SideEffects: true, Latency: LatBranch})
	def(OpJCC, OpInfo{Name: "JCC", HasCond: true, ReadsFlags: true, Terminator: true, NumSuccs: 2, Latency: LatBranch})
	def(OpJMPTABLE, OpInfo{Name: "JMPTABLE", Uses: specs(gp()), Terminator: true, NumSuccs: -1, Expanded: true, Latency: LatBranch})
	def(OpRET, OpInfo{Name: "RET", Variadic: true, Terminator: true, SideEffects: true, Latency: LatBranch})
	def(OpTRAP, OpInfo{Name: "TRAP", HasImm: true, Terminator: true, MayTrap: true, SideEffects: true, Latency: LatBranch})
	for op, name := range map[Op]string{OpCALL: "CALL", OpCALLHOST: "CALLHOST", OpCALLRT: "CALLRT", OpCALLIND: "CALLIND"} {
		def(op, OpInfo{Name: name, Variadic: true, Clobbers: CallerSaved, WritesFlags: true, Call: true,
			MayTrap: true, SideEffects: true, Latency: LatCall})
	}

	for _, g := range []struct {
		load, store Op
		suffix      string
		spec        OperandSpec
	}{{OpGLOBALloadQ, OpGLOBALstoreQ, "Q", gp()}, {OpGLOBALloadL, OpGLOBALstoreL, "L", gp()},
		{OpGLOBALloadSD, OpGLOBALstoreSD, "SD", xm()}, {OpGLOBALloadSS, OpGLOBALstoreSS, "SS", xm()}} {
		def(g.load, OpInfo{Name: "GLOBALload" + g.suffix, Defs: specs(g.spec), Loads: true, Expanded: true, Latency: LatLoad})
		def(g.store, OpInfo{Name: "GLOBALstore" + g.suffix, Uses: specs(g.spec), Stores: true, SideEffects: true,
			Expanded: true, Latency: LatLoad})
	}
	def(OpTABLEload, OpInfo{Name: "TABLEload", Defs: specs(gp()), Uses: specs(gp()), Guarded: true, Expanded: true,
		Latency: LatLoad})
	def(OpMEMMOVE, OpInfo{Name: "MEMMOVE", Defs: specs(fixed(RDI), fixed(RSI), fixed(RCX)),
		Uses: specs(fixed(RDI), fixed(RSI), fixed(RCX)), WritesFlags: true, Loads: true, Stores: true,
		SideEffects: true, Expanded: true, Latency: LatLoad})
	def(OpMEMFILL, OpInfo{Name: "MEMFILL", Defs: specs(fixed(RDI), fixed(RCX)),
		Uses: specs(fixed(RDI), fixed(RAX), fixed(RCX)), Stores: true, SideEffects: true, Expanded: true,
		Latency: LatLoad})

	for op := range opTable {
		if opTable[op].Name == "" {
			panic(fmt.Sprintf("mir: opcode %d has no op-table entry", op))
		}
		opByName[opTable[op].Name] = Op(op)
	}
}
