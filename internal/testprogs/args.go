package testprogs

import (
	"math"
	"math/rand/v2"

	"github.com/kiln-jit/kiln/bytecode"
)

// EdgeI64 and EdgeF64 are argument values likely to hit corner cases.
var (
	EdgeI64 = []int64{0, 1, -1, 2, 3, 7, 10, 63, 64, 100, 255, 256, 1000, 65535, 65536, math.MaxInt32,
		math.MinInt32, math.MaxInt64, math.MinInt64, 1 << 32, -1000}
	EdgeF64 = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, 1e300, -1e300, math.Inf(1),
		math.Inf(-1), math.NaN(), 9223372036854775807, -9223372036854775808, 18446744073709551616, 3.75}
)

// RandomArgs draws arguments of the given types for differential tests: a
// third random over the whole range (floats normally distributed), a third
// small, a third from the edge values.
func RandomArgs(r *rand.Rand, types []bytecode.Type) []uint64 {
	args := make([]uint64, len(types))
	for i, t := range types {
		if t.Is32() {
			args[i] = random32(r, t)
			continue
		}
		if t == bytecode.F64 {
			if r.IntN(3) == 0 {
				args[i] = F(r.NormFloat64() * 100)
			} else {
				args[i] = F(EdgeF64[r.IntN(len(EdgeF64))])
			}
			continue
		}
		switch r.IntN(3) {
		case 0:
			args[i] = uint64(r.Int64())
		case 1:
			args[i] = uint64(r.IntN(50))
		default:
			args[i] = uint64(EdgeI64[r.IntN(len(EdgeI64))])
		}
	}
	return args
}

// random32 draws an i32 or f32 argument: as RandomArgs does for the 64-bit
// types, the edge values cut to 32 bits (f64 ones rounded to f32, NaNs
// with payloads included), and in a quarter of the draws with garbage in
// the upper half, which every tier must ignore.
func random32(r *rand.Rand, t bytecode.Type) uint64 {
	var v uint64
	if t == bytecode.F32 {
		switch r.IntN(4) {
		case 0:
			v = F32(float32(r.NormFloat64() * 100))
		case 1:
			v = uint64(r.Uint32()) // any bits: NaNs with payloads, denormals
		default:
			v = F32(float32(EdgeF64[r.IntN(len(EdgeF64))]))
		}
	} else {
		switch r.IntN(3) {
		case 0:
			v = uint64(r.Uint32())
		case 1:
			v = uint64(r.IntN(50))
		default:
			v = uint64(uint32(EdgeI64[r.IntN(len(EdgeI64))]))
		}
	}
	if r.IntN(4) == 0 {
		v |= r.Uint64() << 32
	}
	return v
}
