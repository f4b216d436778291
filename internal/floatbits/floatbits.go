// Package floatbits defines the bit-exact results of kiln's floating-point
// operations, for every tier that computes them in Go (the bytecode
// interpreter, the machine-IR interpreter, constant folding).
//
// # The NaN rule
//
// WebAssembly lets a NaN result carry any quiet payload (nan:arithmetic) and
// requires a canonical or arithmetic NaN in a few places; kiln picks one
// deterministic rule so that every tier produces the same bits. The rule is
// the one x86-64's SSE instructions implement, so compiled code gets it
// without extra instructions as long as it keeps operand order:
//
//   - An operation with a NaN operand returns its first NaN operand, quieted
//     (the quiet bit, the most significant fraction bit, set; sign and the
//     rest of the payload kept).
//   - An operation that makes a NaN from non-NaN operands (0/0, ∞-∞, 0·∞,
//     sqrt of a negative number) returns the default NaN: sign set, quiet
//     bit set, zero payload (0xFFF8000000000000 and 0xFFC00000).
//   - min and max: NaN when either operand is NaN, by the first rule.
//   - floor, ceil, trunc, nearest and sqrt of a NaN return it quieted.
//   - Demotion keeps the sign and the high 22 payload bits and sets the
//     quiet bit; promotion keeps the sign and the payload (shifted up) and
//     sets the quiet bit.
//   - neg, abs, copysign and the reinterpretations are bit operations:
//     they never change a payload, signalling or not.
//
// Every result that is not a NaN is the IEEE-754 result, rounded to nearest
// even.
package floatbits

import "math"

// The default NaNs: the result of an invalid operation on non-NaN operands.
const (
	DefaultNaN64 uint64 = 0xFFF8000000000000
	DefaultNaN32 uint32 = 0xFFC00000
)

// The quiet bits: the most significant fraction bit.
const (
	QuietBit64 uint64 = 1 << 51
	QuietBit32 uint32 = 1 << 22
)

// IsNaN64 reports whether the bits a are a binary64 NaN.
func IsNaN64(a uint64) bool { return a&^(1<<63) > 0x7FF0000000000000 }

// IsNaN32 reports whether the bits a are a binary32 NaN.
func IsNaN32(a uint32) bool { return a&^(1<<31) > 0x7F800000 }

// NaN64 returns the NaN result of a binary64 operation on a and b whose
// result is a NaN (for callers with their own fast path).
func NaN64(a, b uint64) uint64 { return nan64(a, b) }

// NaN32 returns the NaN result of a binary32 operation on a and b whose
// result is a NaN.
func NaN32(a, b uint32) uint32 { return nan32(a, b) }

// nan64 is the NaN result of an operation on a and b whose result is NaN.
func nan64(a, b uint64) uint64 {
	if IsNaN64(a) {
		return a | QuietBit64
	}
	if IsNaN64(b) {
		return b | QuietBit64
	}
	return DefaultNaN64
}

// nan32 is the NaN result of an operation on a and b whose result is NaN.
func nan32(a, b uint32) uint32 {
	if IsNaN32(a) {
		return a | QuietBit32
	}
	if IsNaN32(b) {
		return b | QuietBit32
	}
	return DefaultNaN32
}

func f64(a uint64) float64 { return math.Float64frombits(a) }
func f32(a uint32) float32 { return math.Float32frombits(a) }

func r64(r float64, a, b uint64) uint64 {
	if r != r {
		return nan64(a, b)
	}
	return math.Float64bits(r)
}

func r32(r float32, a, b uint32) uint32 {
	if r != r {
		return nan32(a, b)
	}
	return math.Float32bits(r)
}

// Add64 returns a + b.
func Add64(a, b uint64) uint64 { return r64(f64(a)+f64(b), a, b) }

// Sub64 returns a - b.
func Sub64(a, b uint64) uint64 { return r64(f64(a)-f64(b), a, b) }

// Mul64 returns a · b.
func Mul64(a, b uint64) uint64 { return r64(f64(a)*f64(b), a, b) }

// Div64 returns a / b.
func Div64(a, b uint64) uint64 { return r64(f64(a)/f64(b), a, b) }

// Sqrt64 returns the square root of a.
func Sqrt64(a uint64) uint64 { return r64(math.Sqrt(f64(a)), a, a) }

// Min64 returns the smaller of a and b: NaN if either is NaN, and -0 below
// +0.
func Min64(a, b uint64) uint64 {
	if IsNaN64(a) || IsNaN64(b) {
		return nan64(a, b)
	}
	return math.Float64bits(min(f64(a), f64(b)))
}

// Max64 returns the larger of a and b: NaN if either is NaN, and +0 above
// -0.
func Max64(a, b uint64) uint64 {
	if IsNaN64(a) || IsNaN64(b) {
		return nan64(a, b)
	}
	return math.Float64bits(max(f64(a), f64(b)))
}

// Rounding modes of Round64 and Round32 (the immediates of x86's ROUNDSD
// and ROUNDSS).
const (
	Nearest = 0 // to nearest, ties to even
	Floor   = 1 // toward -∞
	Ceil    = 2 // toward +∞
	Trunc   = 3 // toward zero
)

func round(x float64, mode int) float64 {
	switch mode {
	case Floor:
		return math.Floor(x)
	case Ceil:
		return math.Ceil(x)
	case Trunc:
		return math.Trunc(x)
	}
	return math.RoundToEven(x)
}

// Round64 rounds a to an integral value in the given mode.
func Round64(a uint64, mode int) uint64 {
	if IsNaN64(a) {
		return a | QuietBit64
	}
	return math.Float64bits(round(f64(a), mode))
}

// Add32 returns a + b.
func Add32(a, b uint32) uint32 { return r32(f32(a)+f32(b), a, b) }

// Sub32 returns a - b.
func Sub32(a, b uint32) uint32 { return r32(f32(a)-f32(b), a, b) }

// Mul32 returns a · b.
func Mul32(a, b uint32) uint32 { return r32(f32(a)*f32(b), a, b) }

// Div32 returns a / b.
func Div32(a, b uint32) uint32 { return r32(f32(a)/f32(b), a, b) }

// Sqrt32 returns the square root of a. The binary64 square root rounded to
// binary32 is the correctly rounded binary32 square root (53 ≥ 2·24+2).
func Sqrt32(a uint32) uint32 { return r32(float32(math.Sqrt(float64(f32(a)))), a, a) }

// Min32 returns the smaller of a and b: NaN if either is NaN, and -0 below
// +0.
func Min32(a, b uint32) uint32 {
	if IsNaN32(a) || IsNaN32(b) {
		return nan32(a, b)
	}
	return math.Float32bits(min(f32(a), f32(b)))
}

// Max32 returns the larger of a and b: NaN if either is NaN, and +0 above
// -0.
func Max32(a, b uint32) uint32 {
	if IsNaN32(a) || IsNaN32(b) {
		return nan32(a, b)
	}
	return math.Float32bits(max(f32(a), f32(b)))
}

// Round32 rounds a to an integral value in the given mode. Rounding the
// exact binary64 value gives an integer that binary32 represents exactly.
func Round32(a uint32, mode int) uint32 {
	if IsNaN32(a) {
		return a | QuietBit32
	}
	return math.Float32bits(float32(round(float64(f32(a)), mode)))
}

// Demote converts the binary64 a to binary32, rounding to nearest even.
func Demote(a uint64) uint32 {
	if IsNaN64(a) {
		return uint32(a>>63)<<31 | 0x7F800000 | QuietBit32 | uint32(a>>29)&(QuietBit32-1)
	}
	return math.Float32bits(float32(f64(a)))
}

// Promote converts the binary32 a to binary64 (exactly).
func Promote(a uint32) uint64 {
	if IsNaN32(a) {
		return uint64(a>>31)<<63 | 0x7FF0000000000000 | QuietBit64 | uint64(a&(QuietBit32-1))<<29
	}
	return math.Float64bits(float64(f32(a)))
}
