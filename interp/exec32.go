package interp

import (
	"unsafe"

	"github.com/kiln-jit/kiln/bytecode"
)

// fitsS32 reports whether x truncated toward zero is in the int32 range.
// It is false for NaN.
func fitsS32(x float64) bool { return x > -2147483649.0 && x < 2147483648.0 }

// fitsU32 reports whether x truncated toward zero is in the uint32 range.
// It is false for NaN.
func fitsU32(x float64) bool { return x > -1 && x < 4294967296.0 }

// TruncS32 converts x to int32 with truncation, reporting the trap a
// trapping conversion (i32.trunc_f64_s, and i32.trunc_f32_s on the exact
// f64 of its operand) raises: InvalidConversion for NaN, IntegerOverflow
// when the truncated value is outside [-2^31, 2^31).
func TruncS32(x float64) (int32, bytecode.TrapKind) {
	if !fitsS32(x) {
		return 0, truncTrap(x)
	}
	return int32(x), bytecode.TrapNone
}

// TruncU32 converts x to uint32 with truncation, reporting the trap a
// trapping conversion raises: InvalidConversion for NaN, IntegerOverflow
// when the truncated value is outside [0, 2^32).
func TruncU32(x float64) (uint32, bytecode.TrapKind) {
	if !fitsU32(x) {
		return 0, truncTrap(x)
	}
	return uint32(x), bytecode.TrapNone
}

// TruncSatS32 converts x to int32 with truncation, saturating at the bounds
// and giving 0 for NaN.
func TruncSatS32(x float64) int32 {
	if x != x {
		return 0
	}
	return int32(min(max(x, -2147483648.0), 2147483647.0))
}

// TruncSatU32 converts x to uint32 with truncation, saturating at the bounds
// and giving 0 for NaN.
func TruncSatU32(x float64) uint32 {
	if x > 0 {
		return uint32(min(x, 4294967295.0))
	}
	return 0
}

// narrowHostResults clears the upper halves of the 32-bit results of host
// import host, just written to the registers res of the window regs: a host
// function may leave anything there.
func (m *Machine) narrowHostResults(host int, regs unsafe.Pointer, res []uint32) {
	for i, t := range m.prog.Module.Hosts[host].Sig.Results {
		if t.Is32() {
			r := reg(regs, res[i])
			*r = uint64(uint32(*r))
		}
	}
}
