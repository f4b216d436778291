package floatbits

import (
	"math"
	"testing"
)

const (
	qnan64  uint64 = 0x7FF8000000000001 // quiet, payload 1
	snan64  uint64 = 0x7FF0000000000002 // signalling, payload 2
	nsnan64 uint64 = 0xFFF4000000000003 // negative signalling
	one64   uint64 = 0x3FF0000000000000
	inf64   uint64 = 0x7FF0000000000000
	zero64  uint64 = 0
	nzero64 uint64 = 1 << 63

	qnan32  uint32 = 0x7FC00001
	snan32  uint32 = 0x7F800002
	nsnan32 uint32 = 0xFFA00003
	one32   uint32 = 0x3F800000
	inf32   uint32 = 0x7F800000
	nzero32 uint32 = 1 << 31
)

func TestBinary64(t *testing.T) {
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"sNaN+1 quiets the NaN", Add64(snan64, one64), snan64 | QuietBit64},
		{"1+sNaN quiets the NaN", Add64(one64, snan64), snan64 | QuietBit64},
		{"first NaN wins", Add64(qnan64, snan64), qnan64},
		{"first NaN wins, quieted", Sub64(snan64, qnan64), snan64 | QuietBit64},
		{"negative NaN keeps its sign", Mul64(one64, nsnan64), nsnan64 | QuietBit64},
		{"0/0 is the default NaN", Div64(zero64, zero64), DefaultNaN64},
		{"inf-inf is the default NaN", Sub64(inf64, inf64), DefaultNaN64},
		{"0*inf is the default NaN", Mul64(zero64, inf64), DefaultNaN64},
		{"sqrt(-1) is the default NaN", Sqrt64(math.Float64bits(-1)), DefaultNaN64},
		{"sqrt(sNaN) quiets", Sqrt64(snan64), snan64 | QuietBit64},
		{"sqrt(-0) is -0", Sqrt64(nzero64), nzero64},
		{"min(1, sNaN)", Min64(one64, snan64), snan64 | QuietBit64},
		{"max(qNaN, sNaN)", Max64(qnan64, snan64), qnan64},
		{"min(-0, +0)", Min64(nzero64, zero64), nzero64},
		{"min(+0, -0)", Min64(zero64, nzero64), nzero64},
		{"max(-0, +0)", Max64(nzero64, zero64), zero64},
		{"floor(sNaN) quiets", Round64(nsnan64, Floor), nsnan64 | QuietBit64},
		{"nearest(2.5)", Round64(math.Float64bits(2.5), Nearest), math.Float64bits(2)},
		{"ceil(-0.5) is -0", Round64(math.Float64bits(-0.5), Ceil), nzero64},
		{"trunc(-1.5)", Round64(math.Float64bits(-1.5), Trunc), math.Float64bits(-1)},
		{"promote sNaN", Promote(snan32), 0x7FF8000000000000 | 2<<29},
		{"promote negative sNaN", Promote(nsnan32), 0xFFF8000000000000 | 0x200003<<29&^QuietBit64 | QuietBit64},
		{"promote 1", Promote(one32), one64},
		{"1+2", Add64(one64, one64), math.Float64bits(2)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %#016x, want %#016x", tt.name, tt.got, tt.want)
		}
	}
}

func TestBinary32(t *testing.T) {
	tests := []struct {
		name string
		got  uint32
		want uint32
	}{
		{"sNaN+1 quiets the NaN", Add32(snan32, one32), snan32 | QuietBit32},
		{"1+sNaN quiets the NaN", Add32(one32, snan32), snan32 | QuietBit32},
		{"first NaN wins", Div32(qnan32, snan32), qnan32},
		{"negative NaN keeps its sign", Mul32(one32, nsnan32), nsnan32 | QuietBit32},
		{"0/0 is the default NaN", Div32(0, 0), DefaultNaN32},
		{"inf-inf is the default NaN", Sub32(inf32, inf32), DefaultNaN32},
		{"sqrt(-1) is the default NaN", Sqrt32(math.Float32bits(-1)), DefaultNaN32},
		{"sqrt(2)", Sqrt32(math.Float32bits(2)), math.Float32bits(float32(math.Sqrt2))},
		{"min(1, sNaN)", Min32(one32, snan32), snan32 | QuietBit32},
		{"max(-0, +0)", Max32(nzero32, 0), 0},
		{"min(+0, -0)", Min32(0, nzero32), nzero32},
		{"nearest(-0.5) is -0", Round32(math.Float32bits(-0.5), Nearest), nzero32},
		{"ceil(sNaN) quiets", Round32(snan32, Ceil), snan32 | QuietBit32},
		{"demote sNaN keeps the high payload", Demote(0x7FF0_0000_2000_0000), 0x7FC00001},
		{"demote negative NaN, low payload lost", Demote(0xFFF0_0000_0000_0001), 0xFFC00000},
		{"demote 1", Demote(one64), one32},
		{"demote rounds to even", Demote(math.Float64bits(1 + 0x1p-24)), one32},
		{"demote overflows to inf", Demote(math.Float64bits(1e300)), inf32},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %#08x, want %#08x", tt.name, tt.got, tt.want)
		}
	}
}

// TestRoundTripPayload checks that promoting and demoting a quiet binary32
// NaN gives it back unchanged.
func TestRoundTripPayload(t *testing.T) {
	for _, p := range []uint32{0, 1, 0x155555, 0x3FFFFF} {
		for _, sign := range []uint32{0, 1 << 31} {
			n := sign | 0x7FC00000 | p
			if got := Demote(Promote(n)); got != n {
				t.Errorf("Demote(Promote(%#08x)) = %#08x", n, got)
			}
		}
	}
}

// TestOrdinaryResults checks that non-NaN results are the IEEE results.
func TestOrdinaryResults(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1.5, 3.25, 1e308, -1e-310, math.Inf(1), math.Inf(-1), 0x1p-1074}
	for _, x := range vals {
		for _, y := range vals {
			a, b := math.Float64bits(x), math.Float64bits(y)
			check := func(name string, got uint64, want float64) {
				if want == want && got != math.Float64bits(want) {
					t.Errorf("%s(%g, %g) = %#x, want %g", name, x, y, got, want)
				}
			}
			check("add", Add64(a, b), x+y)
			check("sub", Sub64(a, b), x-y)
			check("mul", Mul64(a, b), x*y)
			check("div", Div64(a, b), x/y)
			fx, fy := float32(x), float32(y)
			a32, b32 := math.Float32bits(fx), math.Float32bits(fy)
			if r := fx + fy; r == r && Add32(a32, b32) != math.Float32bits(r) {
				t.Errorf("add32(%g, %g) = %#x, want %g", fx, fy, Add32(a32, b32), r)
			}
		}
	}
}
