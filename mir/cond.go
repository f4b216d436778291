package mir

import "fmt"

// Cond is a condition code read from the flags by SETCC, CMOVQCC and JCC.
// The sixteen x86 conditions keep their encoding numbers; FEQ and FNE are
// the IEEE equality tests after UCOMISD, which must also look at the parity
// flag (set for unordered operands) and are expanded by the encoder.
type Cond uint8

// The condition codes.
const (
	CondO    Cond = 0x0 // overflow
	CondNO   Cond = 0x1
	CondB    Cond = 0x2 // unsigned <  (carry)
	CondAE   Cond = 0x3 // unsigned >=
	CondE    Cond = 0x4 // ==
	CondNE   Cond = 0x5 // !=
	CondBE   Cond = 0x6 // unsigned <=
	CondA    Cond = 0x7 // unsigned >
	CondS    Cond = 0x8 // sign
	CondNS   Cond = 0x9
	CondP    Cond = 0xa // parity (unordered after UCOMISD)
	CondNP   Cond = 0xb
	CondL    Cond = 0xc  // signed <
	CondGE   Cond = 0xd  // signed >=
	CondLE   Cond = 0xe  // signed <=
	CondG    Cond = 0xf  // signed >
	CondFEQ  Cond = 0x10 // ordered and equal (ZF=1, PF=0)
	CondFNE  Cond = 0x11 // unordered or not equal (ZF=0 or PF=1)
	numConds Cond = 0x12
)

var condNames = [numConds]string{"o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g", "feq", "fne"}

// String returns the condition's name ("l", "ae", "feq").
func (c Cond) String() string {
	if c < numConds {
		return condNames[c]
	}
	return fmt.Sprintf("cond(%d)", uint8(c))
}

// Valid reports whether c is a defined condition.
func (c Cond) Valid() bool { return c < numConds }

// CondByName parses a condition name.
func CondByName(s string) (Cond, bool) {
	for i, n := range condNames {
		if n == s {
			return Cond(i), true
		}
	}
	return 0, false
}

// Negate returns the condition that holds exactly when c does not.
func (c Cond) Negate() Cond {
	switch c {
	case CondFEQ:
		return CondFNE
	case CondFNE:
		return CondFEQ
	}
	return c ^ 1
}

// Flags is the subset of EFLAGS the conditions read.
type Flags struct {
	CF, ZF, SF, OF, PF bool
}

// Holds evaluates the condition on the flags.
func (c Cond) Holds(f Flags) bool {
	switch c {
	case CondO:
		return f.OF
	case CondNO:
		return !f.OF
	case CondB:
		return f.CF
	case CondAE:
		return !f.CF
	case CondE:
		return f.ZF
	case CondNE:
		return !f.ZF
	case CondBE:
		return f.CF || f.ZF
	case CondA:
		return !f.CF && !f.ZF
	case CondS:
		return f.SF
	case CondNS:
		return !f.SF
	case CondP:
		return f.PF
	case CondNP:
		return !f.PF
	case CondL:
		return f.SF != f.OF
	case CondGE:
		return f.SF == f.OF
	case CondLE:
		return f.ZF || f.SF != f.OF
	case CondG:
		return !f.ZF && f.SF == f.OF
	case CondFEQ:
		return f.ZF && !f.PF
	case CondFNE:
		return !f.ZF || f.PF
	}
	return false
}
