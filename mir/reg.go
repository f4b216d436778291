package mir

import (
	"fmt"
	"math/bits"
	"strconv"
)

// Reg names a location an operand lives in: a physical register, a virtual
// register, a stack slot, or a stack-argument slot of the calling
// convention. The kind is in the top two bits.
//
// In SSA form operands are virtual registers (and the fixed physical
// registers some ops require). After register allocation every operand is
// a physical register, and parallel copies, spills and reloads also name
// stack slots.
type Reg uint32

const (
	kindShift       = 30
	kindMask   Reg  = 3 << kindShift
	kindPhys   Reg  = 0 << kindShift
	kindVirt   Reg  = 1 << kindShift
	kindSlot   Reg  = 2 << kindShift
	kindArg    Reg  = 3 << kindShift
	indexMask  Reg  = 1<<kindShift - 1
	maxIndex        = 1<<(kindShift-1) - 2
	noRegValue uint = uint(indexMask) | uint(kindArg)
)

// NoReg is the absence of a register.
const NoReg = Reg(noRegValue)

// The physical registers of x86-64, numbered as the instruction encoding
// numbers them: GPRs 0-15, then XMM registers 16-31.
const (
	RAX Reg = iota
	RCX
	RDX
	RBX
	RSP
	RBP
	RSI
	RDI
	R8
	R9
	R10
	R11
	R12
	R13
	R14
	R15
	X0
	X1
	X2
	X3
	X4
	X5
	X6
	X7
	X8
	X9
	X10
	X11
	X12
	X13
	X14
	X15
	NumPhysRegs = 32
)

var gprNames = [16]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

// VReg returns virtual register n.
func VReg(n int) Reg { return kindVirt | Reg(n) }

// SlotReg returns the location of stack slot n.
func SlotReg(n int) Reg { return kindSlot | Reg(n) }

// argIncoming marks a stack-argument slot as the callee's view.
const argIncoming Reg = 1 << (kindShift - 1)

// OutArgReg returns the k-th outgoing stack-argument slot: where a caller
// puts an argument (or finds a result) of the calling convention that does
// not fit in registers.
func OutArgReg(k int) Reg { return kindArg | Reg(k) }

// InArgReg returns the k-th incoming stack-argument slot: the callee's view
// of the caller's k-th outgoing slot.
func InArgReg(k int) Reg { return kindArg | argIncoming | Reg(k) }

// IsPhys reports whether r is a physical register.
func (r Reg) IsPhys() bool { return r&kindMask == kindPhys && r < NumPhysRegs }

// IsVirtual reports whether r is a virtual register.
func (r Reg) IsVirtual() bool { return r&kindMask == kindVirt }

// IsSlot reports whether r is a stack slot.
func (r Reg) IsSlot() bool { return r&kindMask == kindSlot }

// IsArgSlot reports whether r is a stack-argument slot.
func (r Reg) IsArgSlot() bool { return r != NoReg && r&kindMask == kindArg }

// IsMem reports whether r is a memory location (stack slot or
// stack-argument slot).
func (r Reg) IsMem() bool { return r.IsSlot() || r.IsArgSlot() }

// IsInArg reports whether r is an incoming stack-argument slot.
func (r Reg) IsInArg() bool { return r.IsArgSlot() && r&argIncoming != 0 }

// Index returns the number of a virtual register, stack slot or
// stack-argument slot, or the encoding number of a physical register.
func (r Reg) Index() int {
	if r.IsArgSlot() {
		return int(r & (argIncoming - 1))
	}
	return int(r & indexMask)
}

// Class returns the register class of a physical register.
func (r Reg) Class() Class {
	if r.IsPhys() {
		if r >= X0 {
			return XMM
		}
		return GPR
	}
	return ClassNone
}

// HwNum returns the 4-bit hardware number of a physical register.
func (r Reg) HwNum() int { return int(r) & 15 }

// String formats the register as the text form writes it: rax, xmm3, v12,
// s4 (stack slot), out2 and in2 (outgoing and incoming stack-argument
// slots).
func (r Reg) String() string {
	switch {
	case r == NoReg:
		return "noreg"
	case r.IsPhys():
		if r >= X0 {
			return "xmm" + strconv.Itoa(int(r-X0))
		}
		return gprNames[r]
	case r.IsVirtual():
		return "v" + strconv.Itoa(r.Index())
	case r.IsSlot():
		return "s" + strconv.Itoa(r.Index())
	case r.IsInArg():
		return "in" + strconv.Itoa(r.Index())
	case r.IsArgSlot():
		return "out" + strconv.Itoa(r.Index())
	}
	return fmt.Sprintf("reg(%#x)", uint32(r))
}

// ParseReg parses the text form of a register.
func ParseReg(s string) (Reg, bool) {
	for i, n := range gprNames {
		if s == n {
			return Reg(i), true
		}
	}
	num := func(prefix string) (int, bool) {
		if len(s) <= len(prefix) || s[:len(prefix)] != prefix {
			return 0, false
		}
		digits := s[len(prefix):]
		if len(digits) > 1 && digits[0] == '0' {
			return 0, false
		}
		n, err := strconv.Atoi(digits)
		if err != nil || n < 0 || n > maxIndex {
			return 0, false
		}
		return n, true
	}
	if n, ok := num("xmm"); ok && n < 16 {
		return X0 + Reg(n), true
	}
	if n, ok := num("v"); ok {
		return VReg(n), true
	}
	if n, ok := num("s"); ok {
		return SlotReg(n), true
	}
	if n, ok := num("out"); ok {
		return OutArgReg(n), true
	}
	if n, ok := num("in"); ok {
		return InArgReg(n), true
	}
	return NoReg, false
}

// Class is a register class.
type Class uint8

// The register classes.
const (
	ClassNone Class = iota
	GPR             // 64-bit general-purpose registers (i64 values; i32 values zero-extended)
	XMM             // SSE registers (f64 values; f32 values in the low 32 bits)
)

// String names the class as the text form writes it.
func (c Class) String() string {
	switch c {
	case GPR:
		return "gpr"
	case XMM:
		return "xmm"
	}
	return "none"
}

// RegSet is a set of physical registers.
type RegSet uint32

// MakeRegSet returns the set of the given physical registers.
func MakeRegSet(regs ...Reg) RegSet {
	var s RegSet
	for _, r := range regs {
		s |= 1 << r
	}
	return s
}

// Has reports whether r is in the set.
func (s RegSet) Has(r Reg) bool { return r.IsPhys() && s&(1<<r) != 0 }

// Add returns s with r added.
func (s RegSet) Add(r Reg) RegSet { return s | 1<<r }

// Remove returns s without r.
func (s RegSet) Remove(r Reg) RegSet { return s &^ (1 << r) }

// Len returns the number of registers in the set.
func (s RegSet) Len() int { return bits.OnesCount32(uint32(s)) }

// Regs lists the registers of the set in encoding order.
func (s RegSet) Regs() []Reg {
	var out []Reg
	for x := uint32(s); x != 0; x &= x - 1 {
		out = append(out, Reg(bits.TrailingZeros32(x)))
	}
	return out
}

// OfClass returns the registers of s in class c.
func (s RegSet) OfClass(c Class) RegSet {
	switch c {
	case GPR:
		return s & 0xffff
	case XMM:
		return s & 0xffff0000
	}
	return 0
}

// String lists the set's registers.
func (s RegSet) String() string {
	out := "{"
	for i, r := range s.Regs() {
		if i > 0 {
			out += " "
		}
		out += r.String()
	}
	return out + "}"
}

// Register roles in kiln's x86-64 code.
const (
	// CtxReg holds the execution context pointer in all compiled code; it
	// is never allocated.
	CtxReg = R15
	// ScratchGPR and ScratchXMM are never allocated either: the encoder's
	// expansions, call sequences and the moves that realise parallel copies
	// (memory-to-memory moves, cycles) use them as temporaries. Only moves
	// may name them in allocated code.
	ScratchGPR = R11
	ScratchXMM = X15
)

// Allocatable lists the registers the allocator may assign: every GPR but
// RSP (the stack pointer), R15 (the context) and R11 (scratch), and every
// XMM register but XMM15 (scratch).
var Allocatable = MakeRegSet(RAX, RCX, RDX, RBX, RBP, RSI, RDI, R8, R9, R10, R12, R13, R14) |
	RegSet(0x7fff0000)

// IsScratch reports whether r is one of the scratch registers.
func (r Reg) IsScratch() bool { return r == ScratchGPR || r == ScratchXMM }

// CalleeSaved lists the registers a function must preserve for its caller
// under kiln's internal calling convention.
var CalleeSaved = MakeRegSet(RBX, RBP, R12, R13, R14)

// CallerSaved lists the allocatable registers a call may clobber.
var CallerSaved = Allocatable &^ CalleeSaved

// CallerSavedOrder and CalleeSavedOrder list, per register class, the
// allocatable caller- and callee-saved registers in the order the register
// allocators try them: the caller-saved registers that fixed operands
// (arguments, shift counts, division, results) use least come first.
// Callers must not modify them.
var (
	CallerSavedOrder = [3][]Reg{
		GPR: {R8, R9, R10, RSI, RDI, RDX, RCX, RAX},
		XMM: {X8, X9, X10, X11, X12, X13, X14, X7, X6, X5, X4, X3, X2, X1, X0},
	}
	CalleeSavedOrder = [3][]Reg{GPR: {RBX, R12, R13, R14, RBP}}
)
