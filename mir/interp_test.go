package mir

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
)

// Test helpers build functions with the Go API; every helper and type of
// this file starts with irt.

// irtI returns an instruction with no position.
func irtI(op Op, defs []Reg, uses ...Reg) *Instr {
	return &Instr{Op: op, Defs: defs, Uses: uses, Pos: -1}
}

// irtR lists registers.
func irtR(r ...Reg) []Reg { return r }

// irtImm sets the immediate of in.
func irtImm(in *Instr, imm int64) *Instr { in.Imm = imm; return in }

// irtAux sets the Aux of in.
func irtAux(in *Instr, aux int32) *Instr { in.Aux = aux; return in }

// irtCond sets the condition of in.
func irtCond(in *Instr, c Cond) *Instr { in.Cond = c; return in }

// irtPos sets the position of in.
func irtPos(in *Instr, pos int32) *Instr { in.Pos = pos; return in }

// irtArg returns an Arg instruction.
func irtArg(d Reg, k int32) *Instr { return irtAux(irtI(OpArg, irtR(d)), k) }

// irtFunc returns an empty function in the given form.
func irtFunc(name string, index int, form Form, params, results []Class) *Func {
	f := NewFunc(name, index, params, results)
	f.Form = form
	return f
}

// irtBlocks adds n blocks to f.
func irtBlocks(f *Func, n int) []*Block {
	out := make([]*Block, n)
	for i := range out {
		out[i] = f.NewBlock()
	}
	return out
}

// irtEdges adds edges from block from to each of tos, with equal
// probabilities.
func irtEdges(f *Func, from int, tos ...int) {
	for _, to := range tos {
		f.AddEdge(from, to, 1/float64(len(tos)))
	}
}

// irtVerify fails the test if funcs do not verify.
func irtVerify(t testing.TB, funcs []*Func, hosts []HostSig) {
	t.Helper()
	if err := VerifyModule(funcs, hosts); err != nil {
		t.Fatalf("test IR does not verify: %v", err)
	}
}

// irtMachine returns a machine for funcs with a one-page memory that may
// grow to four pages.
func irtMachine(t testing.TB, funcs []*Func, cfg interp.Config, hosts ...interp.HostFunc) *Machine {
	t.Helper()
	m, err := NewMachine(funcs, cfg, hosts, interp.NewMemory(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// irtCall runs function fn of m.
func irtCall(m *Machine, fn int, args ...uint64) ([]uint64, error) {
	res := make([]uint64, len(m.funcs[fn].Results))
	err := m.Call(context.Background(), fn, args, res)
	return res, err
}

// irtRun verifies and runs a single function.
func irtRun(t testing.TB, f *Func, args ...uint64) ([]uint64, error) {
	t.Helper()
	irtVerify(t, []*Func{f}, nil)
	return irtCall(irtMachine(t, []*Func{f}, interp.Config{}), 0, args...)
}

func irtF(x float64) uint64 { return math.Float64bits(x) }

// irtOperands returns interesting and random 64-bit values.
func irtOperands(r *rand.Rand, n int) []uint64 {
	out := []uint64{0, 1, 2, 63, 64, 0x80, 0xff, 0x7fffffffffffffff, 0x8000000000000000, math.MaxUint64,
		math.MaxUint64 - 1, 0x8000000000000001, 1 << 32, 0xffffffff}
	for len(out) < n {
		v := r.Uint64()
		switch r.IntN(4) {
		case 0:
			v >>= r.IntN(64)
		case 1:
			v = uint64(int64(v) >> r.IntN(64))
		}
		out = append(out, v)
	}
	return out
}

// NaNs with payloads: quiet and signalling, of either sign.
const (
	irtQNaN64  uint64 = 0x7FF8000000000001
	irtSNaN64  uint64 = 0x7FF0000000000002
	irtNQNaN64 uint64 = 0xFFF8000000000123
	irtNSNaN64 uint64 = 0xFFF4000000000003
	irtQNaN32  uint32 = 0x7FC00001
	irtSNaN32  uint32 = 0x7F800002
	irtNQNaN32 uint32 = 0xFFC00123
	irtNSNaN32 uint32 = 0xFFA00003
)

// irtFloats returns interesting and random f64 bit patterns.
func irtFloats(r *rand.Rand, n int) []uint64 {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, math.Inf(1), math.Inf(-1), math.NaN(),
		1e300, -1e300, 9.2233720368547758e18, -9.2233720368547758e18, 1.8446744073709552e19, 4503599627370496.5, 3,
		2147483647.5, -2147483648.5, 2147483648, -2147483649, 3.4028235677973366e38, 1e-45}
	out := []uint64{irtQNaN64, irtSNaN64, irtNQNaN64, irtNSNaN64}
	for _, v := range vals {
		out = append(out, irtF(v))
	}
	for len(out) < n {
		switch r.IntN(3) {
		case 0:
			out = append(out, r.Uint64())
		case 1:
			out = append(out, irtF((r.Float64()-0.5)*math.Pow(2, float64(r.IntN(140)-20))))
		default:
			out = append(out, irtF(float64(r.IntN(2000)-1000)/4))
		}
	}
	return out
}

// irtFloats32 returns interesting and random f32 bit patterns, each in the
// low half of a word whose upper half is random (no op may read it).
func irtFloats32(r *rand.Rand, n int) []uint64 {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, float32(math.Inf(1)),
		float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1 << 24, 16777217,
		8388608.5, 2147483648, -2147483648, 3}
	out := []uint64{uint64(irtQNaN32), uint64(irtSNaN32), uint64(irtNQNaN32), uint64(irtNSNaN32)}
	for _, v := range vals {
		out = append(out, uint64(math.Float32bits(v)))
	}
	for len(out) < n {
		switch r.IntN(3) {
		case 0:
			out = append(out, uint64(r.Uint32()))
		case 1:
			out = append(out, uint64(math.Float32bits(float32((r.Float64()-0.5)*math.Pow(2, float64(r.IntN(70)-20))))))
		default:
			out = append(out, uint64(math.Float32bits(float32(r.IntN(2000)-1000)/4)))
		}
	}
	for i := range out {
		out[i] |= r.Uint64() << 32
	}
	return out
}

// irtOpCase is one op of the single-op table: want computes the defs from
// the first value operand a and the second value operand or memory operand
// b. Operands are integers, f64 bit patterns (float) or f32 bit patterns
// with random upper halves (f32).
type irtOpCase struct {
	op         Op
	imm        int64
	scale      uint8
	aux        int32
	ndefs      int // defs returned (default 1)
	float, f32 bool
	want       func(a, b uint64, imm int64) []uint64
}

// irtNaN64 is the NaN an f64 operation on ops makes, by kiln's NaN rule
// (computed here independently of package floatbits): the first NaN
// operand quieted, else the default NaN.
func irtNaN64(ops ...uint64) uint64 {
	for _, o := range ops {
		if o&^(1<<63) > 0x7FF0000000000000 {
			return o | 1<<51
		}
	}
	return 0xFFF8000000000000
}

// irtNaN32 is irtNaN64 for f32 operands (the low halves of ops).
func irtNaN32(ops ...uint64) uint64 {
	for _, o := range ops {
		if x := uint32(o); x&^(1<<31) > 0x7F800000 {
			return uint64(x | 1<<22)
		}
	}
	return 0xFFC00000
}

func irtOne(v uint64) []uint64 { return []uint64{v} }

// irtOpMachine builds a machine running a function that executes c.op
// once on its arguments a (and b, or memory holding b) and returns its
// defs; irtRunOp runs it.
type irtOpMachine struct {
	m      *Machine
	memOff int
	mem    bool
	nargs  int
}

func irtBuildOp(t *testing.T, c irtOpCase) *irtOpMachine {
	t.Helper()
	info := c.op.Info()
	f := irtFunc("op", 0, FormSSA, nil, nil)
	bl := f.NewBlock()
	var args, setup []*Instr
	in := &Instr{Op: c.op, Imm: c.imm, Scale: c.scale, Aux: c.aux, Pos: 3}
	om := &irtOpMachine{}
	for _, s := range info.Uses {
		switch s.Role {
		case RoleMemBase:
			r := f.NewVReg(GPR)
			setup = append(setup, irtAux(irtI(OpCtxLoad, irtR(r)), int32(CtxMemBase)))
			in.Uses = append(in.Uses, r)
		case RoleMemIndex:
			r := f.NewVReg(GPR)
			setup = append(setup, irtImm(irtI(OpMOVQconst, irtR(r)), 3))
			in.Uses = append(in.Uses, r)
			om.memOff = 3*int(c.scale) + int(c.imm)
		default:
			r := f.NewVReg(s.Class)
			f.Params = append(f.Params, s.Class)
			args = append(args, irtArg(r, int32(len(f.Params)-1)))
			in.Uses = append(in.Uses, r)
		}
	}
	om.nargs = len(f.Params)
	ndefs := max(c.ndefs, 1)
	for _, s := range info.Defs {
		in.Defs = append(in.Defs, f.NewVReg(s.Class))
	}
	for i := range ndefs {
		f.Results = append(f.Results, info.Defs[i].Class)
	}
	for _, x := range args {
		bl.Append(x)
	}
	for _, x := range setup {
		bl.Append(x)
	}
	bl.Append(in)
	bl.Append(irtI(OpRET, nil, in.Defs[:ndefs]...))
	irtVerify(t, []*Func{f}, nil)
	om.m = irtMachine(t, []*Func{f}, interp.Config{})
	om.mem = info.HasMem && c.op != OpLEAQidx && c.op != OpLEALidx
	return om
}

func (om *irtOpMachine) run(a, b uint64) ([]uint64, error) {
	if om.mem {
		binary.LittleEndian.PutUint64(om.m.Memory.Bytes[om.memOff:], b)
	}
	return irtCall(om.m, 0, []uint64{a, b}[:om.nargs]...)
}

func irtSignedOverflowSub(a, b uint64) bool {
	d := new(big.Int).Sub(big.NewInt(int64(a)), big.NewInt(int64(b)))
	return !d.IsInt64()
}

func irtTruncSQ(x float64) uint64 {
	v, k := interp.TruncS(x)
	if k != bytecode.TrapNone {
		return 0x8000000000000000
	}
	return uint64(v)
}

func TestInterpOps(t *testing.T) {
	f64 := math.Float64frombits
	fb := math.Float64bits
	bin := func(g func(a, b uint64) uint64) func(a, b uint64, imm int64) []uint64 {
		return func(a, b uint64, _ int64) []uint64 { return irtOne(g(a, b)) }
	}
	withImm := func(g func(a, b uint64) uint64) func(a, b uint64, imm int64) []uint64 {
		return func(a, _ uint64, imm int64) []uint64 { return irtOne(g(a, uint64(imm))) }
	}
	un := func(g func(a uint64) uint64) func(a, b uint64, imm int64) []uint64 {
		return func(a, _ uint64, _ int64) []uint64 { return irtOne(g(a)) }
	}
	mem := func(g func(b uint64) uint64) func(a, b uint64, imm int64) []uint64 {
		return func(_, b uint64, _ int64) []uint64 { return irtOne(g(b)) }
	}
	// Float references: Go's arithmetic, with the NaN rule for NaN
	// results.
	fbin := func(g func(x, y float64) float64) func(a, b uint64, imm int64) []uint64 {
		return func(a, b uint64, _ int64) []uint64 {
			if r := g(f64(a), f64(b)); r == r {
				return irtOne(fb(r))
			}
			return irtOne(irtNaN64(a, b))
		}
	}
	fminmax := func(g func(x, y float64) float64) func(a, b uint64, imm int64) []uint64 {
		return func(a, b uint64, _ int64) []uint64 {
			if x, y := f64(a), f64(b); x == x && y == y {
				return irtOne(fb(g(x, y)))
			}
			return irtOne(irtNaN64(a, b))
		}
	}
	fun := func(g func(x float64) float64) func(a, b uint64, imm int64) []uint64 {
		return func(a, _ uint64, _ int64) []uint64 {
			if r := g(f64(a)); r == r {
				return irtOne(fb(r))
			}
			return irtOne(irtNaN64(a))
		}
	}
	f32 := func(v uint64) float32 { return math.Float32frombits(uint32(v)) }
	fb32 := func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	fbin32 := func(g func(x, y float32) float32) func(a, b uint64, imm int64) []uint64 {
		return func(a, b uint64, _ int64) []uint64 {
			if r := g(f32(a), f32(b)); r == r {
				return irtOne(fb32(r))
			}
			return irtOne(irtNaN32(a, b))
		}
	}
	fminmax32 := func(g func(x, y float32) float32) func(a, b uint64, imm int64) []uint64 {
		return func(a, b uint64, _ int64) []uint64 {
			if x, y := f32(a), f32(b); x == x && y == y {
				return irtOne(fb32(g(x, y)))
			}
			return irtOne(irtNaN32(a, b))
		}
	}
	// fun32 applies an f64 function to the promoted f32 operand and rounds
	// its result to f32 (exact for the roundings, correctly rounded for
	// the square root).
	fun32 := func(g func(x float64) float64) func(a, b uint64, imm int64) []uint64 {
		return func(a, _ uint64, _ int64) []uint64 {
			if r := float32(g(float64(f32(a)))); r == r {
				return irtOne(fb32(r))
			}
			return irtOne(irtNaN32(a))
		}
	}
	// Integer references of the 32-bit ops: low halves in, zero-extended
	// results out.
	bin32 := func(g func(a, b uint32) uint32) func(a, b uint64, imm int64) []uint64 {
		return func(a, b uint64, _ int64) []uint64 { return irtOne(uint64(g(uint32(a), uint32(b)))) }
	}
	withImm32 := func(g func(a, b uint32) uint32) func(a, b uint64, imm int64) []uint64 {
		return func(a, _ uint64, imm int64) []uint64 { return irtOne(uint64(g(uint32(a), uint32(imm)))) }
	}
	un32 := func(g func(a uint32) uint32) func(a, b uint64, imm int64) []uint64 {
		return func(a, _ uint64, _ int64) []uint64 { return irtOne(uint64(g(uint32(a)))) }
	}
	add := func(a, b uint64) uint64 { return a + b }
	sub := func(a, b uint64) uint64 { return a - b }
	and := func(a, b uint64) uint64 { return a & b }
	or := func(a, b uint64) uint64 { return a | b }
	xor := func(a, b uint64) uint64 { return a ^ b }
	mul := func(a, b uint64) uint64 { return a * b }
	shl := func(a, b uint64) uint64 { return a << (b & 63) }
	shr := func(a, b uint64) uint64 { return a >> (b & 63) }
	sar := func(a, b uint64) uint64 { return uint64(int64(a) >> (b & 63)) }
	rol := func(a, b uint64) uint64 { return bits.RotateLeft64(a, int(b&63)) }
	ror := func(a, b uint64) uint64 { return bits.RotateLeft64(a, -int(b&63)) }
	id := func(b uint64) uint64 { return b }
	low := func(b uint64) uint64 { return uint64(uint32(b)) }

	cases := []irtOpCase{
		{op: OpADDQ, want: bin(add)}, {op: OpSUBQ, want: bin(sub)}, {op: OpANDQ, want: bin(and)},
		{op: OpORQ, want: bin(or)}, {op: OpXORQ, want: bin(xor)}, {op: OpIMULQ, want: bin(mul)},
		{op: OpADDQconst, imm: -7, want: withImm(add)}, {op: OpSUBQconst, imm: 123456, want: withImm(sub)},
		{op: OpANDQconst, imm: -256, want: withImm(and)}, {op: OpORQconst, imm: 0x7fffffff, want: withImm(or)},
		{op: OpXORQconst, imm: math.MinInt32, want: withImm(xor)},
		{op: OpADDQload, imm: 16, scale: 8, want: bin(add)}, {op: OpSUBQload, imm: 8, scale: 1, want: bin(sub)},
		{op: OpANDQload, imm: 0, scale: 2, want: bin(and)}, {op: OpORQload, imm: 4, scale: 4, want: bin(or)},
		{op: OpXORQload, imm: 9, scale: 8, want: bin(xor)}, {op: OpIMULQload, imm: 1, scale: 1, want: bin(mul)},
		{op: OpNEGQ, want: un(func(a uint64) uint64 { return -a })},
		{op: OpNOTQ, want: un(func(a uint64) uint64 { return ^a })},
		{op: OpSHLQ, want: bin(shl)}, {op: OpSHRQ, want: bin(shr)}, {op: OpSARQ, want: bin(sar)},
		{op: OpROLQ, want: bin(rol)}, {op: OpRORQ, want: bin(ror)},
		{op: OpSHLQconst, imm: 13, want: withImm(shl)}, {op: OpSHRQconst, imm: 63, want: withImm(shr)},
		{op: OpSARQconst, imm: 1, want: withImm(sar)}, {op: OpROLQconst, imm: 0, want: withImm(rol)},
		{op: OpRORQconst, imm: 37, want: withImm(ror)},
		{op: OpIMUL3Qconst, imm: -3, want: withImm(mul)},
		{op: OpLEAQ, imm: -1000, want: withImm(add)},
		{op: OpLEAQidx, imm: 24, scale: 4, want: func(a, b uint64, imm int64) []uint64 { return irtOne(a + b*4 + uint64(imm)) }},
		{op: OpLEAQidx, imm: -8, scale: 1, want: func(a, b uint64, imm int64) []uint64 { return irtOne(a + b + uint64(imm)) }},
		{op: OpIDIVQ, ndefs: 2, want: func(a, b uint64, _ int64) []uint64 {
			return []uint64{uint64(int64(a) / int64(b)), uint64(int64(a) % int64(b))}
		}},
		{op: OpDIVQ, ndefs: 2, want: func(a, b uint64, _ int64) []uint64 { return []uint64{a / b, a % b} }},
		{op: OpLZCNTQ, want: un(func(a uint64) uint64 { return uint64(bits.LeadingZeros64(a)) })},
		{op: OpTZCNTQ, want: un(func(a uint64) uint64 { return uint64(bits.TrailingZeros64(a)) })},
		{op: OpPOPCNTQ, want: un(func(a uint64) uint64 { return uint64(bits.OnesCount64(a)) })},
		{op: OpBSRQ, want: un(func(a uint64) uint64 { return uint64(63 - bits.LeadingZeros64(a)) })},
		{op: OpBSFQ, want: un(func(a uint64) uint64 { return uint64(bits.TrailingZeros64(a)) })},
		{op: OpMOVBQSX, want: un(func(a uint64) uint64 { return uint64(int64(int8(a))) })},
		{op: OpMOVBQZX, want: un(func(a uint64) uint64 { return uint64(uint8(a)) })},
		{op: OpMOVWQSX, want: un(func(a uint64) uint64 { return uint64(int64(int16(a))) })},
		{op: OpMOVWQZX, want: un(func(a uint64) uint64 { return uint64(uint16(a)) })},
		{op: OpMOVLQSX, want: un(func(a uint64) uint64 { return uint64(int64(int32(a))) })},
		{op: OpMOVLQZX, want: un(func(a uint64) uint64 { return uint64(uint32(a)) })},
		{op: OpMOVBQSXload, imm: 5, scale: 1, want: mem(func(b uint64) uint64 { return uint64(int64(int8(b))) })},
		{op: OpMOVBQZXload, imm: 5, scale: 2, want: mem(func(b uint64) uint64 { return uint64(uint8(b)) })},
		{op: OpMOVWQSXload, imm: 6, scale: 4, want: mem(func(b uint64) uint64 { return uint64(int64(int16(b))) })},
		{op: OpMOVWQZXload, imm: 7, scale: 8, want: mem(func(b uint64) uint64 { return uint64(uint16(b)) })},
		{op: OpMOVLQSXload, imm: 100, scale: 1, want: mem(func(b uint64) uint64 { return uint64(int64(int32(b))) })},
		{op: OpMOVLQZXload, imm: 3, scale: 1, want: mem(func(b uint64) uint64 { return uint64(uint32(b)) })},
		{op: OpMOVQload, imm: 1, scale: 8, want: mem(id)},
		{op: OpMOVSDload, imm: 2, scale: 8, float: true, want: mem(id)},
		{op: OpMOVQ2X, want: un(id)}, {op: OpMOVX2Q, float: true, want: un(id)},

		{op: OpADDSD, float: true, want: fbin(func(x, y float64) float64 { return x + y })},
		{op: OpSUBSD, float: true, want: fbin(func(x, y float64) float64 { return x - y })},
		{op: OpMULSD, float: true, want: fbin(func(x, y float64) float64 { return x * y })},
		{op: OpDIVSD, float: true, want: fbin(func(x, y float64) float64 { return x / y })},
		{op: OpADDSDload, imm: 8, scale: 1, float: true, want: fbin(func(x, y float64) float64 { return x + y })},
		{op: OpSUBSDload, imm: 8, scale: 2, float: true, want: fbin(func(x, y float64) float64 { return x - y })},
		{op: OpMULSDload, imm: 8, scale: 4, float: true, want: fbin(func(x, y float64) float64 { return x * y })},
		{op: OpDIVSDload, imm: 8, scale: 8, float: true, want: fbin(func(x, y float64) float64 { return x / y })},
		{op: OpSQRTSD, float: true, want: fun(math.Sqrt)},
		{op: OpMINSD, float: true, want: fminmax(func(x, y float64) float64 { return min(x, y) })},
		{op: OpMAXSD, float: true, want: fminmax(func(x, y float64) float64 { return max(x, y) })},
		{op: OpROUNDSD, aux: RoundNearest, float: true, want: fun(math.RoundToEven)},
		{op: OpROUNDSD, aux: RoundFloor, float: true, want: fun(math.Floor)},
		{op: OpROUNDSD, aux: RoundCeil, float: true, want: fun(math.Ceil)},
		{op: OpROUNDSD, aux: RoundTrunc, float: true, want: fun(math.Trunc)},
		{op: OpXORPDconst, imm: math.MinInt64, float: true, want: withImm(xor)},
		{op: OpANDPDconst, imm: math.MaxInt64, float: true, want: withImm(and)},
		{op: OpCVTSQ2SD, want: un(func(a uint64) uint64 { return fb(float64(int64(a))) })},
		{op: OpCVTUQ2SD, want: un(func(a uint64) uint64 { return fb(float64(a)) })},
		{op: OpCVTTSD2SQ, float: true, want: un(func(a uint64) uint64 { return irtTruncSQ(f64(a)) })},
		{op: OpCVTTSD2SQsat, float: true, want: un(func(a uint64) uint64 { return uint64(interp.TruncSatS(f64(a))) })},
		{op: OpCVTTSD2UQsat, float: true, want: un(func(a uint64) uint64 { return interp.TruncSatU(f64(a)) })},
		{op: OpCVTTSD2UQ, float: true, want: un(func(a uint64) uint64 { return interp.TruncSatU(f64(a)) })},

		{op: OpADDL, want: bin32(func(a, b uint32) uint32 { return a + b })},
		{op: OpSUBL, want: bin32(func(a, b uint32) uint32 { return a - b })},
		{op: OpANDL, want: bin32(func(a, b uint32) uint32 { return a & b })},
		{op: OpORL, want: bin32(func(a, b uint32) uint32 { return a | b })},
		{op: OpXORL, want: bin32(func(a, b uint32) uint32 { return a ^ b })},
		{op: OpIMULL, want: bin32(func(a, b uint32) uint32 { return a * b })},
		{op: OpADDLconst, imm: -7, want: withImm32(func(a, b uint32) uint32 { return a + b })},
		{op: OpSUBLconst, imm: math.MinInt32, want: withImm32(func(a, b uint32) uint32 { return a - b })},
		{op: OpANDLconst, imm: -256, want: withImm32(func(a, b uint32) uint32 { return a & b })},
		{op: OpORLconst, imm: 0x40000001, want: withImm32(func(a, b uint32) uint32 { return a | b })},
		{op: OpXORLconst, imm: -1, want: withImm32(func(a, b uint32) uint32 { return a ^ b })},
		{op: OpNEGL, want: un32(func(a uint32) uint32 { return -a })},
		{op: OpNOTL, want: un32(func(a uint32) uint32 { return ^a })},
		{op: OpSHLL, want: bin32(func(a, b uint32) uint32 { return a << (b & 31) })},
		{op: OpSHRL, want: bin32(func(a, b uint32) uint32 { return a >> (b & 31) })},
		{op: OpSARL, want: bin32(func(a, b uint32) uint32 { return uint32(int32(a) >> (b & 31)) })},
		{op: OpROLL, want: bin32(func(a, b uint32) uint32 { return bits.RotateLeft32(a, int(b&31)) })},
		{op: OpRORL, want: bin32(func(a, b uint32) uint32 { return bits.RotateLeft32(a, -int(b&31)) })},
		{op: OpSHLLconst, imm: 31, want: withImm32(func(a, b uint32) uint32 { return a << b })},
		{op: OpSHRLconst, imm: 1, want: withImm32(func(a, b uint32) uint32 { return a >> b })},
		{op: OpSARLconst, imm: 17, want: withImm32(func(a, b uint32) uint32 { return uint32(int32(a) >> b) })},
		{op: OpROLLconst, imm: 0, want: withImm32(func(a, b uint32) uint32 { return bits.RotateLeft32(a, int(b)) })},
		{op: OpRORLconst, imm: 5, want: withImm32(func(a, b uint32) uint32 { return bits.RotateLeft32(a, -int(b)) })},
		{op: OpIMUL3Lconst, imm: -3, want: withImm32(func(a, b uint32) uint32 { return a * b })},
		{op: OpLEAL, imm: -1000, want: withImm32(func(a, b uint32) uint32 { return a + b })},
		{op: OpLEALidx, imm: 24, scale: 8, want: func(a, b uint64, imm int64) []uint64 {
			return irtOne(uint64(uint32(a) + uint32(b)*8 + uint32(imm)))
		}},
		{op: OpIDIVL, ndefs: 2, want: func(a, b uint64, _ int64) []uint64 {
			x, y := int32(a), int32(b)
			return []uint64{uint64(uint32(x / y)), uint64(uint32(x % y))}
		}},
		{op: OpDIVL, ndefs: 2, want: func(a, b uint64, _ int64) []uint64 {
			x, y := uint32(a), uint32(b)
			return []uint64{uint64(x / y), uint64(x % y)}
		}},
		{op: OpLZCNTL, want: un32(func(a uint32) uint32 { return uint32(bits.LeadingZeros32(a)) })},
		{op: OpTZCNTL, want: un32(func(a uint32) uint32 { return uint32(bits.TrailingZeros32(a)) })},
		{op: OpPOPCNTL, want: un32(func(a uint32) uint32 { return uint32(bits.OnesCount32(a)) })},
		{op: OpBSRL, want: un32(func(a uint32) uint32 { return uint32(31 - bits.LeadingZeros32(a)) })},
		{op: OpBSFL, want: un32(func(a uint32) uint32 { return uint32(bits.TrailingZeros32(a)) })},
		{op: OpMOVBLSX, want: un32(func(a uint32) uint32 { return uint32(int32(int8(a))) })},
		{op: OpMOVWLSX, want: un32(func(a uint32) uint32 { return uint32(int32(int16(a))) })},
		{op: OpMOVBLSXload, imm: 5, scale: 4, want: mem(func(b uint64) uint64 { return uint64(uint32(int32(int8(b)))) })},
		{op: OpMOVWLSXload, imm: 9, scale: 1, want: mem(func(b uint64) uint64 { return uint64(uint32(int32(int16(b)))) })},

		{op: OpMOVSSload, imm: 2, scale: 2, f32: true, want: mem(low)},
		{op: OpADDSS, f32: true, want: fbin32(func(x, y float32) float32 { return x + y })},
		{op: OpSUBSS, f32: true, want: fbin32(func(x, y float32) float32 { return x - y })},
		{op: OpMULSS, f32: true, want: fbin32(func(x, y float32) float32 { return x * y })},
		{op: OpDIVSS, f32: true, want: fbin32(func(x, y float32) float32 { return x / y })},
		{op: OpSQRTSS, f32: true, want: fun32(math.Sqrt)},
		{op: OpMINSS, f32: true, want: fminmax32(func(x, y float32) float32 { return min(x, y) })},
		{op: OpMAXSS, f32: true, want: fminmax32(func(x, y float32) float32 { return max(x, y) })},
		{op: OpROUNDSS, aux: RoundNearest, f32: true, want: fun32(math.RoundToEven)},
		{op: OpROUNDSS, aux: RoundFloor, f32: true, want: fun32(math.Floor)},
		{op: OpROUNDSS, aux: RoundCeil, f32: true, want: fun32(math.Ceil)},
		{op: OpROUNDSS, aux: RoundTrunc, f32: true, want: fun32(math.Trunc)},
		{op: OpMOVL2X, want: un(low)},
		{op: OpMOVX2L, f32: true, want: un(low)},
		{op: OpCVTSS2SD, f32: true, want: un(func(a uint64) uint64 {
			if x := f32(a); x == x {
				return fb(float64(x))
			}
			// Sign, quiet bit, payload shifted up.
			return uint64(a>>31&1)<<63 | 0x7FF8000000000000 | uint64(a&0x3FFFFF)<<29
		})},
		{op: OpCVTSD2SS, float: true, want: un(func(a uint64) uint64 {
			if x := f64(a); x == x {
				return fb32(float32(x))
			}
			// Sign, quiet bit, the high 22 payload bits.
			return a>>63<<31 | 0x7FC00000 | a>>29&0x3FFFFF
		})},
		{op: OpCVTSL2SS, want: un(func(a uint64) uint64 { return fb32(float32(int32(a))) })},
		{op: OpCVTSQ2SS, want: un(func(a uint64) uint64 { return fb32(float32(int64(a))) })},
		{op: OpCVTUQ2SS, want: un(func(a uint64) uint64 {
			x, _ := new(big.Float).SetUint64(a).Float32() // rounds to nearest even
			return fb32(x)
		})},
		{op: OpCVTSL2SD, want: un(func(a uint64) uint64 { return fb(float64(int32(a))) })},
		{op: OpCVTTSD2SL, float: true, want: un(func(a uint64) uint64 {
			x := f64(a)
			if x != x || x <= -2147483649 || x >= 2147483648 {
				return 0x80000000
			}
			return uint64(uint32(int32(x)))
		})},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		name := c.op.String()
		t.Run(name, func(t *testing.T) {
			om := irtBuildOp(t, c)
			var ops []uint64
			switch {
			case c.float:
				ops = irtFloats(r, 36)
			case c.f32:
				ops = irtFloats32(r, 36)
			default:
				ops = irtOperands(r, 28)
			}
			n := 0
			for i, a := range ops {
				for j := 0; j < len(ops); j += 1 + i%3 {
					b := ops[j]
					switch c.op {
					case OpIDIVQ:
						if b == 0 || (b == math.MaxUint64 && a == 1<<63) {
							continue
						}
					case OpDIVQ:
						if b == 0 {
							continue
						}
					case OpBSRQ, OpBSFQ:
						if a == 0 {
							continue
						}
					case OpIDIVL:
						if uint32(b) == 0 || (uint32(b) == math.MaxUint32 && uint32(a) == 1<<31) {
							continue
						}
					case OpDIVL:
						if uint32(b) == 0 {
							continue
						}
					case OpBSRL, OpBSFL:
						if uint32(a) == 0 {
							continue
						}
					}
					got, err := om.run(a, b)
					if err != nil {
						t.Fatalf("%s(%#x, %#x): %v", c.op, a, b, err)
					}
					want := c.want(a, b, c.imm)
					for k := range want {
						if got[k] != want[k] {
							t.Fatalf("%s(%#x, %#x) def %d = %#x, want %#x", c.op, a, b, k, got[k], want[k])
						}
					}
					n++
				}
			}
			if n == 0 {
				t.Fatal("no operands tested")
			}
		})
	}
}

// TestInterpNaNs checks the NaN bits of the float ops on hand-picked
// operands against literal results: a NaN operand gives the first NaN
// operand quieted, an invalid operation the default NaN, whichever
// operand and whichever kind of NaN.
func TestInterpNaNs(t *testing.T) {
	const (
		one64  = 0x3FF0000000000000
		two64  = 0x4000000000000000
		inf64  = 0x7FF0000000000000
		neg64  = 0xBFF0000000000000 // -1
		dflt64 = 0xFFF8000000000000
		one32  = 0x3F800000
		inf32  = 0x7F800000
		neg32  = 0xBF800000
		dflt32 = 0xFFC00000
		garb   = 0xDEADBEEF00000000 // upper half of an f32 operand, ignored
	)
	q64 := func(x uint64) uint64 { return x | 1<<51 }
	q32 := func(x uint32) uint64 { return uint64(x | 1<<22) }
	tests := []struct {
		op      Op
		aux     int32
		a, b    uint64
		want    uint64
		comment string
	}{
		{op: OpADDSD, a: irtSNaN64, b: one64, want: q64(irtSNaN64), comment: "sNaN first"},
		{op: OpADDSD, a: one64, b: irtSNaN64, want: q64(irtSNaN64), comment: "sNaN second"},
		{op: OpADDSD, a: irtQNaN64, b: irtSNaN64, want: irtQNaN64, comment: "first NaN wins over an sNaN"},
		{op: OpSUBSD, a: irtSNaN64, b: irtQNaN64, want: q64(irtSNaN64), comment: "first NaN wins, quieted"},
		{op: OpSUBSD, a: one64, b: irtNQNaN64, want: irtNQNaN64, comment: "negative qNaN second"},
		{op: OpMULSD, a: irtNSNaN64, b: irtQNaN64, want: q64(irtNSNaN64), comment: "negative sNaN keeps its sign"},
		{op: OpDIVSD, a: 0, b: 0, want: dflt64, comment: "0/0"},
		{op: OpDIVSD, a: 1 << 63, b: 0, want: dflt64, comment: "-0/0"},
		{op: OpSUBSD, a: inf64, b: inf64, want: dflt64, comment: "inf-inf"},
		{op: OpMULSD, a: 0, b: inf64, want: dflt64, comment: "0*inf"},
		{op: OpADDSDload, a: two64, b: irtSNaN64, want: q64(irtSNaN64), comment: "sNaN in memory"},
		{op: OpDIVSDload, a: irtQNaN64, b: irtSNaN64, want: irtQNaN64, comment: "register NaN first"},
		{op: OpSQRTSD, a: neg64, want: dflt64, comment: "sqrt(-1)"},
		{op: OpSQRTSD, a: irtNSNaN64, want: q64(irtNSNaN64), comment: "sqrt(sNaN)"},
		{op: OpMINSD, a: one64, b: irtSNaN64, want: q64(irtSNaN64), comment: "min(1, sNaN)"},
		{op: OpMINSD, a: irtQNaN64, b: irtSNaN64, want: irtQNaN64, comment: "min of two NaNs"},
		{op: OpMAXSD, a: irtNSNaN64, b: one64, want: q64(irtNSNaN64), comment: "max(sNaN, 1)"},
		{op: OpMAXSD, a: one64, b: irtNQNaN64, want: irtNQNaN64, comment: "max(1, -qNaN)"},
		{op: OpMINSD, a: 0, b: 1 << 63, want: 1 << 63, comment: "min(+0, -0)"},
		{op: OpMAXSD, a: 1 << 63, b: 0, want: 0, comment: "max(-0, +0)"},
		{op: OpROUNDSD, aux: RoundFloor, a: irtSNaN64, want: q64(irtSNaN64), comment: "floor(sNaN)"},
		{op: OpROUNDSD, aux: RoundNearest, a: irtNQNaN64, want: irtNQNaN64, comment: "nearest(qNaN)"},

		{op: OpADDSS, a: garb | uint64(irtSNaN32), b: one32, want: q32(irtSNaN32), comment: "sNaN first"},
		{op: OpADDSS, a: one32, b: garb | uint64(irtSNaN32), want: q32(irtSNaN32), comment: "sNaN second"},
		{op: OpSUBSS, a: uint64(irtQNaN32), b: uint64(irtSNaN32), want: uint64(irtQNaN32), comment: "first NaN wins"},
		{op: OpMULSS, a: uint64(irtNSNaN32), b: uint64(irtQNaN32), want: q32(irtNSNaN32), comment: "negative sNaN keeps its sign"},
		{op: OpDIVSS, a: garb, b: 0, want: dflt32, comment: "0/0"},
		{op: OpSUBSS, a: inf32, b: inf32, want: dflt32, comment: "inf-inf"},
		{op: OpMULSS, a: inf32, b: garb, want: dflt32, comment: "inf*0"},
		{op: OpADDSS, a: 0x7F800000 | garb, b: one32, want: inf32, comment: "upper half ignored: inf is no NaN"},
		{op: OpSQRTSS, a: neg32, want: dflt32, comment: "sqrt(-1)"},
		{op: OpSQRTSS, a: uint64(irtSNaN32), want: q32(irtSNaN32), comment: "sqrt(sNaN)"},
		{op: OpMINSS, a: one32, b: uint64(irtNSNaN32), want: q32(irtNSNaN32), comment: "min(1, -sNaN)"},
		{op: OpMINSS, a: uint64(irtSNaN32), b: uint64(irtQNaN32), want: q32(irtSNaN32), comment: "min of two NaNs"},
		{op: OpMAXSS, a: uint64(irtNQNaN32), b: one32, want: uint64(irtNQNaN32), comment: "max(-qNaN, 1)"},
		{op: OpMINSS, a: 0, b: 1 << 31, want: 1 << 31, comment: "min(+0, -0)"},
		{op: OpMAXSS, a: 1 << 31, b: 0, want: 0, comment: "max(-0, +0)"},
		{op: OpROUNDSS, aux: RoundCeil, a: uint64(irtSNaN32), want: q32(irtSNaN32), comment: "ceil(sNaN)"},
		{op: OpROUNDSS, aux: RoundTrunc, a: uint64(irtNQNaN32), want: uint64(irtNQNaN32), comment: "trunc(-qNaN)"},
		{op: OpCVTSD2SS, a: 0x7FF0000020000001, want: 0x7FC00001, comment: "demotion keeps the high payload bits"},
		{op: OpCVTSD2SS, a: 0xFFF000001FFFFFFF, want: 0xFFC00000, comment: "demotion drops the low payload bits"},
		{op: OpCVTSS2SD, a: garb | uint64(irtNSNaN32), want: 0xFFFC000060000000, comment: "promotion shifts the payload up"},
		{op: OpCVTSS2SD, a: uint64(irtQNaN32), want: 0x7FF8000020000000, comment: "promotion of a qNaN"},
	}
	for _, tt := range tests {
		c := irtOpCase{op: tt.op, aux: tt.aux}
		if tt.op.Info().HasMem {
			c.scale, c.imm = 1, 16
		}
		got, err := irtBuildOp(t, c).run(tt.a, tt.b)
		if err != nil {
			t.Fatalf("%s (%s): %v", tt.op, tt.comment, err)
		}
		if got[0] != tt.want {
			t.Errorf("%s(%#x, %#x) (%s) = %#x, want %#x", tt.op, tt.a, tt.b, tt.comment, got[0], tt.want)
		}
	}
}

func TestInterpStores(t *testing.T) {
	for _, c := range []struct {
		op   Op
		size int
	}{{OpMOVBstore, 1}, {OpMOVWstore, 2}, {OpMOVLstore, 4}, {OpMOVQstore, 8}, {OpMOVSDstore, 8}, {OpMOVSSstore, 4}} {
		t.Run(c.op.String(), func(t *testing.T) {
			cls := GPR
			if c.op == OpMOVSDstore || c.op == OpMOVSSstore {
				cls = XMM
			}
			f := irtFunc("store", 0, FormSSA, []Class{cls}, nil)
			b := f.NewBlock()
			val, base, idx := f.NewVReg(cls), f.NewVReg(GPR), f.NewVReg(GPR)
			b.Append(irtArg(val, 0))
			b.Append(irtAux(irtI(OpCtxLoad, irtR(base)), int32(CtxMemBase)))
			b.Append(irtImm(irtI(OpMOVQconst, irtR(idx)), 5))
			st := irtImm(irtI(c.op, nil, base, idx, val), 11)
			st.Scale = 4
			b.Append(st)
			b.Append(irtI(OpRET, nil))
			irtVerify(t, []*Func{f}, nil)
			m := irtMachine(t, []*Func{f}, interp.Config{})
			for i := range 64 {
				m.Memory.Bytes[i] = 0xaa
			}
			const v = 0x0102030405060708
			if _, err := irtCall(m, 0, v); err != nil {
				t.Fatal(err)
			}
			var want [64]byte
			for i := range want {
				want[i] = 0xaa
			}
			var vb [8]byte
			binary.LittleEndian.PutUint64(vb[:], v)
			copy(want[31:31+c.size], vb[:c.size])
			if string(m.Memory.Bytes[:64]) != string(want[:]) {
				t.Fatalf("memory % x\nwant   % x", m.Memory.Bytes[:64], want)
			}
		})
	}
}

// irtRefFlags computes the flags of a producer independently of the
// interpreter (big integers and bits.Add64/Sub64).
func irtRefFlags(op Op, a, b uint64) (r uint64, fl Flags) {
	parity := func(r uint64) bool { return bits.OnesCount8(uint8(r))%2 == 0 }
	switch op {
	case OpCMPQ, OpSUBQ, OpNEGQ:
		if op == OpNEGQ {
			a, b = 0, a
		}
		var borrow uint64
		r, borrow = bits.Sub64(a, b, 0)
		fl = Flags{CF: borrow != 0, OF: irtSignedOverflowSub(a, b)}
	case OpADDQ:
		var carry uint64
		r, carry = bits.Add64(a, b, 0)
		s := new(big.Int).Add(big.NewInt(int64(a)), big.NewInt(int64(b)))
		fl = Flags{CF: carry != 0, OF: !s.IsInt64()}
	case OpANDQ, OpTESTQ:
		r = a & b
	case OpORQ:
		r = a | b
	case OpXORQ:
		r = a ^ b
	}
	fl.ZF, fl.SF, fl.PF = r == 0, int64(r) < 0, parity(r)
	return r, fl
}

// irtRefFlags32 is irtRefFlags for the 32-bit producers: the flags of the
// operation on the low halves of a and b.
func irtRefFlags32(op Op, a, b uint64) (r uint32, fl Flags) {
	x, y := uint32(a), uint32(b)
	switch op {
	case OpCMPL, OpSUBL, OpNEGL:
		if op == OpNEGL {
			x, y = 0, x
		}
		var borrow uint32
		r, borrow = bits.Sub32(x, y, 0)
		d := int64(int32(x)) - int64(int32(y))
		fl = Flags{CF: borrow != 0, OF: d != int64(int32(d))}
	case OpADDL:
		var carry uint32
		r, carry = bits.Add32(x, y, 0)
		s := int64(int32(x)) + int64(int32(y))
		fl = Flags{CF: carry != 0, OF: s != int64(int32(s))}
	case OpANDL, OpTESTL:
		r = x & y
	case OpORL:
		r = x | y
	case OpXORL:
		r = x ^ y
	}
	fl.ZF, fl.SF, fl.PF = r == 0, int32(r) < 0, bits.OnesCount8(uint8(r))%2 == 0
	return r, fl
}

// irtRefHolds evaluates a condition on reference flags (independently of
// Cond.Holds).
func irtRefHolds(c Cond, f Flags) bool {
	return map[Cond]bool{
		CondO: f.OF, CondNO: !f.OF, CondB: f.CF, CondAE: !f.CF, CondE: f.ZF, CondNE: !f.ZF,
		CondBE: f.CF || f.ZF, CondA: !f.CF && !f.ZF, CondS: f.SF, CondNS: !f.SF, CondP: f.PF, CondNP: !f.PF,
		CondL: f.SF != f.OF, CondGE: f.SF == f.OF, CondLE: f.ZF || f.SF != f.OF, CondG: !f.ZF && f.SF == f.OF,
		CondFEQ: f.ZF && !f.PF, CondFNE: !f.ZF || f.PF,
	}[c]
}

// irtCondFunc builds: args a, b; producer; SETCC c -> s; CMOVQCC c (a, b)
// -> m; JCC c to blocks returning (s, m, 1) or (s, m, 0).
func irtCondFunc(producer *Instr, c Cond, params []Class) *Func {
	f := irtFunc("cond", 0, FormSSA, params, []Class{GPR, GPR, GPR})
	bs := irtBlocks(f, 3)
	var args []Reg
	for i, cl := range params {
		r := f.NewVReg(cl)
		args = append(args, r)
		bs[0].Append(irtArg(r, int32(i)))
	}
	x, y := f.NewVReg(GPR), f.NewVReg(GPR)
	bs[0].Append(irtImm(irtI(OpMOVQconst, irtR(x)), 111))
	bs[0].Append(irtImm(irtI(OpMOVQconst, irtR(y)), 222))
	p := producer.Clone()
	p.Uses = args[:len(p.Uses)]
	for i := range p.Defs {
		p.Defs[i] = f.NewVReg(GPR)
	}
	bs[0].Append(p)
	s, mv := f.NewVReg(GPR), f.NewVReg(GPR)
	bs[0].Append(irtCond(irtI(OpSETCC, irtR(s)), c))
	bs[0].Append(irtCond(irtI(OpCMOVQCC, irtR(mv), x, y), c))
	bs[0].Append(irtCond(irtI(OpJCC, nil), c))
	irtEdges(f, 0, 1, 2)
	one, zero := f.NewVReg(GPR), f.NewVReg(GPR)
	bs[1].Append(irtImm(irtI(OpMOVQconst, irtR(one)), 1))
	bs[1].Append(irtI(OpRET, nil, s, mv, one))
	bs[2].Append(irtImm(irtI(OpMOVQconst, irtR(zero)), 0))
	bs[2].Append(irtI(OpRET, nil, s, mv, zero))
	return f
}

// irtCondMachine verifies an irtCondFunc and returns a machine for it.
func irtCondMachine(t *testing.T, f *Func) *Machine {
	t.Helper()
	irtVerify(t, []*Func{f}, nil)
	return irtMachine(t, []*Func{f}, interp.Config{})
}

// irtCheckCond runs an irtCondFunc machine and checks all three readers.
func irtCheckCond(t *testing.T, m *Machine, c Cond, want bool, args ...uint64) {
	t.Helper()
	got, err := irtCall(m, 0, args...)
	if err != nil {
		t.Fatal(err)
	}
	w := []uint64{0, 111, 0}
	if want {
		w = []uint64{1, 222, 1}
	}
	if got[0] != w[0] || got[1] != w[1] || got[2] != w[2] {
		t.Fatalf("cond %s on %#x: SETCC, CMOVQCC, JCC gave %v, want %v", c, args, got, w)
	}
}

func TestInterpCMPQConds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ops := irtOperands(r, 24)
	ops = append(ops, 0x7f, 0x80, 0x7e, 0x3, 0x101)
	for c := Cond(0); c < numConds; c++ {
		f := irtCondMachine(t, irtCondFunc(irtI(OpCMPQ, nil, 0, 0), c, []Class{GPR, GPR}))
		for _, a := range ops {
			for _, b := range ops {
				d := a - b
				var want bool
				switch c {
				case CondO, CondNO:
					want = irtSignedOverflowSub(a, b) == (c == CondO)
				case CondB:
					want = a < b
				case CondAE:
					want = a >= b
				case CondE:
					want = a == b
				case CondNE:
					want = a != b
				case CondBE:
					want = a <= b
				case CondA:
					want = a > b
				case CondS:
					want = int64(d) < 0
				case CondNS:
					want = int64(d) >= 0
				case CondP, CondNP:
					want = (bits.OnesCount8(uint8(d))%2 == 0) == (c == CondP)
				case CondL:
					want = int64(a) < int64(b)
				case CondGE:
					want = int64(a) >= int64(b)
				case CondLE:
					want = int64(a) <= int64(b)
				case CondG:
					want = int64(a) > int64(b)
				case CondFEQ:
					want = a == b && bits.OnesCount8(uint8(d))%2 != 0 // never: PF is set for 0
				case CondFNE:
					want = !(a == b && bits.OnesCount8(uint8(d))%2 != 0)
				}
				irtCheckCond(t, f, c, want, a, b)
			}
		}
	}
}

func TestInterpFlagProducers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ops := irtOperands(r, 16)
	producers := []struct {
		in   *Instr
		ref  Op
		imm  bool // b is the sign-extended Imm
		mem  bool
		nuse int
	}{
		{in: irtI(OpADDL, irtR(0), 0, 0), ref: OpADDL, nuse: 2},
		{in: irtI(OpSUBL, irtR(0), 0, 0), ref: OpSUBL, nuse: 2},
		{in: irtI(OpANDL, irtR(0), 0, 0), ref: OpANDL, nuse: 2},
		{in: irtI(OpORL, irtR(0), 0, 0), ref: OpORL, nuse: 2},
		{in: irtI(OpXORL, irtR(0), 0, 0), ref: OpXORL, nuse: 2},
		{in: irtI(OpCMPL, nil, 0, 0), ref: OpCMPL, nuse: 2},
		{in: irtI(OpTESTL, nil, 0, 0), ref: OpTESTL, nuse: 2},
		{in: irtI(OpNEGL, irtR(0), 0), ref: OpNEGL, nuse: 1},
		{in: irtImm(irtI(OpADDLconst, irtR(0), 0), -5), ref: OpADDL, imm: true, nuse: 1},
		{in: irtImm(irtI(OpSUBLconst, irtR(0), 0), math.MinInt32), ref: OpSUBL, imm: true, nuse: 1},
		{in: irtImm(irtI(OpANDLconst, irtR(0), 0), -2), ref: OpANDL, imm: true, nuse: 1},
		{in: irtImm(irtI(OpORLconst, irtR(0), 0), 0x40), ref: OpORL, imm: true, nuse: 1},
		{in: irtImm(irtI(OpXORLconst, irtR(0), 0), -1), ref: OpXORL, imm: true, nuse: 1},
		{in: irtImm(irtI(OpCMPLconst, nil, 0), -1), ref: OpCMPL, imm: true, nuse: 1},
		{in: irtImm(irtI(OpCMPLconst, nil, 0), 0x7fffffff), ref: OpCMPL, imm: true, nuse: 1},
		{in: irtImm(irtI(OpTESTLconst, nil, 0), 0x81), ref: OpTESTL, imm: true, nuse: 1},

		{in: irtI(OpADDQ, irtR(0), 0, 0), ref: OpADDQ, nuse: 2},
		{in: irtI(OpSUBQ, irtR(0), 0, 0), ref: OpSUBQ, nuse: 2},
		{in: irtI(OpANDQ, irtR(0), 0, 0), ref: OpANDQ, nuse: 2},
		{in: irtI(OpORQ, irtR(0), 0, 0), ref: OpORQ, nuse: 2},
		{in: irtI(OpXORQ, irtR(0), 0, 0), ref: OpXORQ, nuse: 2},
		{in: irtI(OpTESTQ, nil, 0, 0), ref: OpTESTQ, nuse: 2},
		{in: irtI(OpNEGQ, irtR(0), 0), ref: OpNEGQ, nuse: 1},
		{in: irtImm(irtI(OpADDQconst, irtR(0), 0), -5), ref: OpADDQ, imm: true, nuse: 1},
		{in: irtImm(irtI(OpSUBQconst, irtR(0), 0), math.MinInt32), ref: OpSUBQ, imm: true, nuse: 1},
		{in: irtImm(irtI(OpANDQconst, irtR(0), 0), -2), ref: OpANDQ, imm: true, nuse: 1},
		{in: irtImm(irtI(OpORQconst, irtR(0), 0), 0x40), ref: OpORQ, imm: true, nuse: 1},
		{in: irtImm(irtI(OpXORQconst, irtR(0), 0), -1), ref: OpXORQ, imm: true, nuse: 1},
		{in: irtImm(irtI(OpCMPQconst, nil, 0), -1), ref: OpCMPQ, imm: true, nuse: 1},
		{in: irtImm(irtI(OpCMPQconst, nil, 0), 0x7fffffff), ref: OpCMPQ, imm: true, nuse: 1},
		{in: irtImm(irtI(OpTESTQconst, nil, 0), 0x81), ref: OpTESTQ, imm: true, nuse: 1},
	}
	for _, p := range producers {
		t.Run(p.in.Op.String(), func(t *testing.T) {
			for c := Cond(0); c < numConds; c++ {
				params := []Class{GPR, GPR}[:p.nuse]
				p.in.Uses = make([]Reg, p.nuse)
				f := irtCondMachine(t, irtCondFunc(p.in, c, params))
				for _, a := range ops {
					for _, b := range ops {
						args := []uint64{a, b}[:p.nuse]
						if p.imm {
							b = uint64(p.in.Imm)
						}
						var fl Flags
						switch p.ref {
						case OpADDL, OpSUBL, OpANDL, OpORL, OpXORL, OpCMPL, OpTESTL, OpNEGL:
							_, fl = irtRefFlags32(p.ref, a, b)
						default:
							_, fl = irtRefFlags(p.ref, a, b)
						}
						irtCheckCond(t, f, c, irtRefHolds(c, fl), args...)
					}
				}
			}
		})
	}
}

func TestInterpCMPQload(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ops := irtOperands(r, 12)
	for _, c := range []Cond{CondL, CondB, CondE, CondO, CondP, CondS, CondA, CondGE} {
		for _, a := range ops {
			for _, b := range ops {
				_, fl := irtRefFlags(OpCMPQ, a, b)
				want := uint64(0)
				if irtRefHolds(c, fl) {
					want = 1
				}
				f := irtFunc("cmpload", 0, FormSSA, []Class{GPR}, []Class{GPR})
				bl := f.NewBlock()
				va, base, s := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
				bl.Append(irtArg(va, 0))
				bl.Append(irtAux(irtI(OpCtxLoad, irtR(base)), int32(CtxMemBase)))
				cmp := irtImm(irtI(OpCMPQload, nil, va, base, NoReg), 40)
				cmp.Scale = 1
				bl.Append(cmp)
				bl.Append(irtCond(irtI(OpSETCC, irtR(s)), c))
				bl.Append(irtI(OpRET, nil, s))
				m := irtMachine(t, []*Func{f}, interp.Config{})
				binary.LittleEndian.PutUint64(m.Memory.Bytes[40:], b)
				got, err := irtCall(m, 0, a)
				if err != nil {
					t.Fatal(err)
				}
				if got[0] != want {
					t.Fatalf("CMPQload %#x, %#x; SETCC.%s = %d, want %d", a, b, c, got[0], want)
				}
			}
		}
	}
}

// TestInterpUCOMISS checks the conditions after UCOMISS, whose operands
// are the low halves of their registers.
func TestInterpUCOMISS(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	vals := irtFloats32(r, 30)
	for _, c := range []Cond{CondFEQ, CondFNE, CondA, CondAE, CondB, CondBE, CondE, CondNE, CondP, CondNP, CondO, CondS} {
		f := irtCondMachine(t, irtCondFunc(irtI(OpUCOMISS, nil, 0, 0), c, []Class{XMM, XMM}))
		for _, a := range vals {
			for _, b := range vals {
				x, y := math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b))
				un := x != x || y != y
				var want bool
				switch c {
				case CondFEQ:
					want = x == y
				case CondFNE:
					want = x != y
				case CondA:
					want = x > y
				case CondAE:
					want = x >= y
				case CondB:
					want = x < y || un
				case CondBE:
					want = x <= y || un
				case CondE:
					want = x == y || un
				case CondNE:
					want = x != y && !un
				case CondP:
					want = un
				case CondNP:
					want = !un
				case CondO, CondS:
					want = false
				}
				irtCheckCond(t, f, c, want, a, b)
			}
		}
	}
}

func TestInterpUCOMISD(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	vals := irtFloats(r, 30)
	for _, c := range []Cond{CondFEQ, CondFNE, CondA, CondAE, CondB, CondBE, CondE, CondNE, CondP, CondNP, CondO, CondS} {
		f := irtCondMachine(t, irtCondFunc(irtI(OpUCOMISD, nil, 0, 0), c, []Class{XMM, XMM}))
		for _, a := range vals {
			for _, b := range vals {
				x, y := math.Float64frombits(a), math.Float64frombits(b)
				un := x != x || y != y
				var want bool
				switch c {
				case CondFEQ:
					want = x == y
				case CondFNE:
					want = x != y
				case CondA:
					want = x > y
				case CondAE:
					want = x >= y
				case CondB:
					want = x < y || un
				case CondBE:
					want = x <= y || un
				case CondE:
					want = x == y || un
				case CondNE:
					want = x != y && !un
				case CondP:
					want = un
				case CondNP:
					want = !un
				case CondO, CondS:
					want = false
				}
				irtCheckCond(t, f, c, want, a, b)
			}
		}
	}
}

// irtSumLoop builds sum(0..n-1) as a loop in the given form:
//
//	b0: n = arg0; i = 0; acc = 0; jmp b1
//	b1: (φs) cmp i, n; jge b3, b2
//	b2: acc += i; i += 1; poll; jmp b1
//	b3: ret acc
func irtSumLoop(form Form) *Func {
	f := irtFunc("sum", 0, form, []Class{GPR}, []Class{GPR})
	bs := irtBlocks(f, 4)
	irtEdges(f, 0, 1)
	irtEdges(f, 1, 3, 2)
	irtEdges(f, 2, 1)
	switch form {
	case FormSSA:
		n, i0, a0, i, a, i1, a1 := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
		bs[0].Append(irtArg(n, 0))
		bs[0].Append(irtI(OpMOVQconst, irtR(i0)))
		bs[0].Append(irtI(OpMOVQconst, irtR(a0)))
		bs[0].Append(irtI(OpJMP, nil))
		bs[1].Append(irtI(OpPhi, irtR(i), i0, i1))
		bs[1].Append(irtI(OpPhi, irtR(a), a0, a1))
		bs[1].Append(irtI(OpCMPQ, nil, i, n))
		bs[1].Append(irtCond(irtI(OpJCC, nil), CondGE))
		bs[2].Append(irtI(OpADDQ, irtR(a1), a, i))
		bs[2].Append(irtImm(irtI(OpADDQconst, irtR(i1), i), 1))
		bs[2].Append(irtPos(irtI(OpPoll, nil), 2))
		bs[2].Append(irtI(OpJMP, nil))
		bs[3].Append(irtI(OpRET, nil, a))
	case FormNonSSA:
		n, i, a, t0 := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
		bs[0].Append(irtArg(n, 0))
		bs[0].Append(irtI(OpMOVQconst, irtR(t0)))
		bs[0].Append(irtI(OpParCopy, irtR(i, a), t0, t0))
		bs[0].Append(irtI(OpJMP, nil))
		bs[1].Append(irtI(OpCMPQ, nil, i, n))
		bs[1].Append(irtCond(irtI(OpJCC, nil), CondGE))
		a1, i1 := f.NewVReg(GPR), f.NewVReg(GPR)
		bs[2].Append(irtI(OpADDQ, irtR(a1), a, i))
		bs[2].Append(irtImm(irtI(OpADDQconst, irtR(i1), i), 1))
		bs[2].Append(irtPos(irtI(OpPoll, nil), 2))
		bs[2].Append(irtI(OpParCopy, irtR(a, i), a1, i1))
		bs[2].Append(irtI(OpJMP, nil))
		bs[3].Append(irtI(OpRET, nil, a))
	case FormAllocated:
		bs[0].Append(irtArg(RDI, 0))
		bs[0].Append(irtI(OpMOVQconst, irtR(RCX)))
		bs[0].Append(irtI(OpMOVQconst, irtR(RAX)))
		bs[0].Append(irtI(OpJMP, nil))
		bs[1].Append(irtI(OpCMPQ, nil, RCX, RDI))
		bs[1].Append(irtCond(irtI(OpJCC, nil), CondGE))
		bs[2].Append(irtI(OpADDQ, irtR(RAX), RAX, RCX))
		bs[2].Append(irtImm(irtI(OpADDQconst, irtR(RCX), RCX), 1))
		bs[2].Append(irtPos(irtI(OpPoll, nil), 2))
		bs[2].Append(irtI(OpJMP, nil))
		bs[3].Append(irtI(OpRET, nil, RAX))
	}
	return f
}

func TestInterpLoops(t *testing.T) {
	for _, form := range []Form{FormSSA, FormNonSSA, FormAllocated} {
		t.Run(form.String(), func(t *testing.T) {
			f := irtSumLoop(form)
			irtVerify(t, []*Func{f}, nil)
			m := irtMachine(t, []*Func{f}, interp.Config{})
			for _, n := range []uint64{0, 1, 2, 10, 1000} {
				got, err := irtCall(m, 0, n)
				if err != nil {
					t.Fatal(err)
				}
				if want := n * (n - 1) / 2; n > 0 && got[0] != want || n == 0 && got[0] != 0 {
					t.Fatalf("sum(%d) = %d", n, got[0])
				}
			}
		})
	}
}

func TestInterpParallelCopies(t *testing.T) {
	t.Run("lost-copy", func(t *testing.T) {
		// b1 loops on itself; the φ's old value is live after the loop.
		f := irtFunc("lost", 0, FormSSA, []Class{GPR}, []Class{GPR})
		bs := irtBlocks(f, 3)
		irtEdges(f, 0, 1)
		irtEdges(f, 1, 1, 2)
		n, x1, x2, x3 := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
		bs[0].Append(irtArg(n, 0))
		bs[0].Append(irtImm(irtI(OpMOVQconst, irtR(x1)), 1))
		bs[0].Append(irtI(OpJMP, nil))
		bs[1].Append(irtI(OpPhi, irtR(x2), x1, x3))
		bs[1].Append(irtImm(irtI(OpADDQconst, irtR(x3), x2), 1))
		bs[1].Append(irtI(OpCMPQ, nil, x3, n))
		bs[1].Append(irtCond(irtI(OpJCC, nil), CondL))
		bs[2].Append(irtI(OpRET, nil, x2))
		got, err := irtRun(t, f, 10)
		if err != nil || got[0] != 9 {
			t.Fatalf("lost copy: %v %v, want 9", got, err)
		}
	})
	t.Run("swap-phis", func(t *testing.T) {
		f := irtFunc("swap", 0, FormSSA, []Class{GPR, GPR, GPR}, []Class{GPR, GPR})
		bs := irtBlocks(f, 3)
		irtEdges(f, 0, 1)
		irtEdges(f, 1, 1, 2)
		a0, b0, n, a, b, i0, i, i1 := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
		bs[0].Append(irtArg(a0, 0))
		bs[0].Append(irtArg(b0, 1))
		bs[0].Append(irtArg(n, 2))
		bs[0].Append(irtI(OpMOVQconst, irtR(i0)))
		bs[0].Append(irtI(OpJMP, nil))
		bs[1].Append(irtI(OpPhi, irtR(a), a0, b))
		bs[1].Append(irtI(OpPhi, irtR(b), b0, a))
		bs[1].Append(irtI(OpPhi, irtR(i), i0, i1))
		bs[1].Append(irtImm(irtI(OpADDQconst, irtR(i1), i), 1))
		bs[1].Append(irtI(OpCMPQ, nil, i1, n))
		bs[1].Append(irtCond(irtI(OpJCC, nil), CondL))
		bs[2].Append(irtI(OpRET, nil, a, b))
		for n := uint64(1); n < 6; n++ {
			got, err := irtRun(t, f, 100, 200, n)
			want := []uint64{100, 200}
			if n%2 == 0 {
				want = []uint64{200, 100}
			}
			if err != nil || got[0] != want[0] || got[1] != want[1] {
				t.Fatalf("n=%d: %v %v, want %v", n, got, err, want)
			}
		}
	})
	t.Run("parcopy-swap-rotate", func(t *testing.T) {
		for _, form := range []Form{FormNonSSA, FormAllocated} {
			f := irtFunc("rot", 0, form, []Class{GPR, GPR, GPR}, []Class{GPR, GPR, GPR})
			b := f.NewBlock()
			var x, y, z Reg
			if form == FormAllocated {
				x, y, z = RDI, RSI, RDX
			} else {
				x, y, z = f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
			}
			b.Append(irtArg(x, 0))
			b.Append(irtArg(y, 1))
			b.Append(irtArg(z, 2))
			// Rotate, then swap x and y twice (identity), then swap with a
			// stack slot in the middle.
			b.Append(irtI(OpParCopy, irtR(x, y, z), y, z, x))
			b.Append(irtI(OpParCopy, irtR(x, y), y, x))
			b.Append(irtI(OpParCopy, irtR(y, x), x, y))
			s := f.NewSlot(GPR)
			b.Append(irtI(OpParCopy, irtR(s, x), x, z))
			b.Append(irtI(OpParCopy, irtR(z), s))
			if form == FormAllocated {
				b.Append(irtI(OpParCopy, irtR(RAX, RDX, RCX), x, y, z))
				f.Results = []Class{GPR, GPR, GPR}
				// Third result goes to in0; use RAX, RDX, in0.
				b.Append(irtI(OpCopy, irtR(InArgReg(0)), RCX))
				b.Append(irtI(OpRET, nil, RAX, RDX, InArgReg(0)))
			} else {
				b.Append(irtI(OpRET, nil, x, y, z))
			}
			got, err := irtRun(t, f, 1, 2, 3)
			// After rotate: x=2 y=3 z=1; s=x=2, x=z=1; z=s=2.
			if err != nil || got[0] != 1 || got[1] != 3 || got[2] != 2 {
				t.Fatalf("%s: %v %v, want [1 3 2]", form, got, err)
			}
		}
	})
	t.Run("xchg", func(t *testing.T) {
		f := irtFunc("xchg", 0, FormAllocated, []Class{GPR, GPR}, []Class{GPR, GPR})
		b := f.NewBlock()
		b.Append(irtArg(RDI, 0))
		b.Append(irtArg(RSI, 1))
		b.Append(irtI(OpXchg, irtR(RDI, RSI), RDI, RSI))
		b.Append(irtI(OpParCopy, irtR(RAX, RDX), RDI, RSI))
		b.Append(irtI(OpRET, nil, RAX, RDX))
		got, err := irtRun(t, f, 5, 6)
		if err != nil || got[0] != 6 || got[1] != 5 {
			t.Fatalf("%v %v", got, err)
		}
	})
	t.Run("repeated-pred", func(t *testing.T) {
		// JCC with both edges to b1: the φ takes the operand of the edge
		// actually used.
		f := irtFunc("twice", 0, FormSSA, []Class{GPR}, []Class{GPR})
		bs := irtBlocks(f, 2)
		irtEdges(f, 0, 1, 1)
		v, ten, twenty, r := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
		bs[0].Append(irtArg(v, 0))
		bs[0].Append(irtImm(irtI(OpMOVQconst, irtR(ten)), 10))
		bs[0].Append(irtImm(irtI(OpMOVQconst, irtR(twenty)), 20))
		bs[0].Append(irtI(OpTESTQ, nil, v, v))
		bs[0].Append(irtCond(irtI(OpJCC, nil), CondE))
		bs[1].Append(irtI(OpPhi, irtR(r), ten, twenty))
		bs[1].Append(irtI(OpRET, nil, r))
		for _, c := range [][2]uint64{{0, 10}, {1, 20}, {99, 20}} {
			got, err := irtRun(t, f, c[0])
			if err != nil || got[0] != c[1] {
				t.Fatalf("arg %d: %v %v, want %d", c[0], got, err, c[1])
			}
		}
	})
	t.Run("jmptable", func(t *testing.T) {
		// Table [b1, b2, b1, b1]; b1's φ has one operand per edge.
		f := irtFunc("table", 0, FormSSA, []Class{GPR}, []Class{GPR})
		bs := irtBlocks(f, 3)
		irtEdges(f, 0, 1, 2, 1, 1)
		v, r := f.NewVReg(GPR), f.NewVReg(GPR)
		ks := []Reg{f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)}
		bs[0].Append(irtArg(v, 0))
		for i, k := range ks {
			bs[0].Append(irtImm(irtI(OpMOVQconst, irtR(k)), int64(100+i)))
		}
		bs[0].Append(irtI(OpJMPTABLE, nil, v))
		bs[1].Append(irtI(OpPhi, irtR(r), ks...))
		bs[1].Append(irtI(OpRET, nil, r))
		r2 := f.NewVReg(GPR)
		bs[2].Append(irtImm(irtI(OpMOVQconst, irtR(r2)), 7))
		bs[2].Append(irtI(OpRET, nil, r2))
		for _, c := range [][2]uint64{{0, 100}, {1, 7}, {2, 101}, {3, 102}} {
			got, err := irtRun(t, f, c[0])
			if err != nil || got[0] != c[1] {
				t.Fatalf("index %d: %v %v, want %d", c[0], got, err, c[1])
			}
		}
		_, err := irtRun(t, f, 4)
		var fault *Fault
		if !errors.As(err, &fault) || !strings.Contains(fault.Msg, "out of range") {
			t.Fatalf("index 4: %v, want a jump-table fault", err)
		}
	})
}

// irtManyCallee is function 1 of the call tests: 8 GPR and 2 XMM
// parameters, results (sum of the GPRs, p7-p6, p0*3, x0+x1).
func irtManyCallee(form Form) *Func {
	params := []Class{GPR, GPR, GPR, GPR, GPR, GPR, GPR, GPR, XMM, XMM}
	results := []Class{GPR, GPR, GPR, XMM}
	f := irtFunc("many", 1, form, params, results)
	b := f.NewBlock()
	if form == FormAllocated {
		locs := ArgLocations(params, true)
		for k, l := range locs {
			b.Append(irtArg(l, int32(k)))
		}
		b.Append(irtI(OpCopy, irtR(RAX), RDI))
		for _, r := range []Reg{RSI, RDX, RCX, R8, R9} {
			b.Append(irtI(OpADDQ, irtR(RAX), RAX, r))
		}
		b.Append(irtI(OpReload, irtR(R10), InArgReg(0)))
		b.Append(irtI(OpReload, irtR(R14), InArgReg(1)))
		b.Append(irtI(OpADDQ, irtR(RAX), RAX, R10))
		b.Append(irtI(OpADDQ, irtR(RAX), RAX, R14))
		b.Append(irtI(OpSUBQ, irtR(R14), R14, R10))
		b.Append(irtI(OpCopy, irtR(RDX), R14))
		b.Append(irtImm(irtI(OpIMUL3Qconst, irtR(R10), RDI), 3))
		b.Append(irtI(OpSpill, irtR(InArgReg(2)), R10))
		b.Append(irtI(OpADDSD, irtR(X0), X0, X1))
		// Clobber callee-saved and other registers: the caller must not
		// see it.
		b.Append(irtImm(irtI(OpMOVQconst, irtR(RBX)), -1))
		b.Append(irtImm(irtI(OpMOVQconst, irtR(R12)), -1))
		b.Append(irtI(OpRET, nil, RAX, RDX, InArgReg(2), X0))
		return f
	}
	var ps []Reg
	for k, c := range params {
		r := f.NewVReg(c)
		ps = append(ps, r)
		b.Append(irtArg(r, int32(k)))
	}
	acc := ps[0]
	for _, p := range ps[1:8] {
		n := f.NewVReg(GPR)
		b.Append(irtI(OpADDQ, irtR(n), acc, p))
		acc = n
	}
	d, t3, x := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(XMM)
	b.Append(irtI(OpSUBQ, irtR(d), ps[7], ps[6]))
	b.Append(irtImm(irtI(OpIMUL3Qconst, irtR(t3), ps[0]), 3))
	b.Append(irtI(OpADDSD, irtR(x), ps[8], ps[9]))
	b.Append(irtI(OpRET, nil, acc, d, t3, x))
	return f
}

// irtManyCaller is function 0: it calls many(1..8, 1.5, 2.25) with a
// callee-saved value live across the call and returns (r0, r1, r2, x,
// rbx).
func irtManyCaller(form Form) *Func {
	f := irtFunc("main", 0, form, nil, []Class{GPR, GPR, GPR, XMM, GPR})
	b := f.NewBlock()
	if form == FormAllocated {
		for i, r := range []Reg{RDI, RSI, RDX, RCX, R8, R9} {
			b.Append(irtImm(irtI(OpMOVQconst, irtR(r)), int64(i+1)))
		}
		b.Append(irtImm(irtI(OpMOVQconst, irtR(R10)), 7))
		b.Append(irtI(OpSpill, irtR(OutArgReg(0)), R10))
		b.Append(irtImm(irtI(OpMOVQconst, irtR(R10)), 8))
		b.Append(irtI(OpCopy, irtR(OutArgReg(1)), R10))
		b.Append(irtImm(irtI(OpMOVSDconst, irtR(X0)), int64(irtF(1.5))))
		b.Append(irtImm(irtI(OpMOVSDconst, irtR(X1)), int64(irtF(2.25))))
		b.Append(irtImm(irtI(OpMOVQconst, irtR(RBX)), 77))
		b.Append(irtPos(irtI(OpPoll, nil), 9))
		b.Append(irtPos(irtAux(irtI(OpCALL, irtR(RAX, RDX, OutArgReg(2), X0),
			RDI, RSI, RDX, RCX, R8, R9, OutArgReg(0), OutArgReg(1), X0, X1), 1), 9))
		b.Append(irtI(OpReload, irtR(R10), OutArgReg(2)))
		b.Append(irtI(OpSpill, irtR(InArgReg(0)), R10))
		b.Append(irtI(OpSpill, irtR(InArgReg(1)), RBX))
		b.Append(irtI(OpRET, nil, RAX, RDX, InArgReg(0), X0, InArgReg(1)))
		return f
	}
	var args []Reg
	for i := range 8 {
		r := f.NewVReg(GPR)
		b.Append(irtImm(irtI(OpMOVQconst, irtR(r)), int64(i+1)))
		args = append(args, r)
	}
	x0, x1 := f.NewVReg(XMM), f.NewVReg(XMM)
	b.Append(irtImm(irtI(OpMOVSDconst, irtR(x0)), int64(irtF(1.5))))
	b.Append(irtImm(irtI(OpMOVSDconst, irtR(x1)), int64(irtF(2.25))))
	keep := f.NewVReg(GPR)
	b.Append(irtImm(irtI(OpMOVQconst, irtR(keep)), 77))
	r0, r1, r2, x := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(XMM)
	b.Append(irtPos(irtI(OpPoll, nil), 9))
	b.Append(irtPos(irtAux(irtI(OpCALL, irtR(r0, r1, r2, x), append(args, x0, x1)...), 1), 9))
	b.Append(irtI(OpRET, nil, r0, r1, r2, x, keep))
	return f
}

func TestInterpCalls(t *testing.T) {
	want := []uint64{36, 1, 3, irtF(3.75), 77}
	for _, forms := range [][2]Form{
		{FormAllocated, FormAllocated}, {FormSSA, FormSSA}, {FormSSA, FormAllocated}, {FormAllocated, FormNonSSA},
	} {
		t.Run(forms[0].String()+"-calls-"+forms[1].String(), func(t *testing.T) {
			funcs := []*Func{irtManyCaller(forms[0]), irtManyCallee(forms[1])}
			irtVerify(t, funcs, nil)
			m := irtMachine(t, funcs, interp.Config{})
			for range 3 {
				got, err := irtCall(m, 0)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("got %v, want %v", got, want)
					}
				}
			}
			// Call the callee directly from Go: stack arguments and
			// results go through the incoming area.
			got, err := irtCall(m, 1, 10, 20, 30, 40, 50, 60, 70, 80, irtF(1), irtF(2))
			if err != nil || got[0] != 360 || got[1] != 10 || got[2] != 30 || got[3] != irtF(3) {
				t.Fatalf("direct call: %v %v", got, err)
			}
		})
	}
}

// irtCallerSaved builds an allocated caller that keeps a value in reg
// across a call of a function returning nothing, then returns reg.
func irtCallerSaved(reg Reg) []*Func {
	f := irtFunc("main", 0, FormAllocated, nil, []Class{GPR})
	b := f.NewBlock()
	b.Append(irtImm(irtI(OpMOVQconst, irtR(reg)), 5))
	b.Append(irtAux(irtI(OpCALL, nil), 1))
	b.Append(irtI(OpCopy, irtR(RAX), reg))
	b.Append(irtI(OpADDQconst, irtR(RAX), RAX))
	b.Append(irtI(OpRET, nil, RAX))
	g := irtFunc("nop", 1, FormAllocated, nil, nil)
	gb := g.NewBlock()
	gb.Append(irtI(OpRET, nil))
	return []*Func{f, g}
}

func TestInterpCallClobbers(t *testing.T) {
	for _, r := range Allocatable.OfClass(GPR).Regs() {
		funcs := irtCallerSaved(r)
		irtVerify(t, funcs, nil)
		got, err := irtCall(irtMachine(t, funcs, interp.Config{}), 0)
		if CalleeSaved.Has(r) {
			if err != nil || got[0] != 5 {
				t.Errorf("callee-saved %s: %v %v", r, got, err)
			}
			continue
		}
		var fault *Fault
		if !errors.As(err, &fault) || fault.Op != OpADDQconst || fault.Block != 0 || fault.Instr != 3 ||
			!strings.Contains(fault.Msg, "undefined") {
			t.Errorf("caller-saved %s: %v %v, want an undefined-register fault at b0[3]", r, got, err)
		}
	}
	// XMM registers are all caller-saved.
	f := irtFunc("main", 0, FormAllocated, nil, []Class{XMM})
	b := f.NewBlock()
	b.Append(irtImm(irtI(OpMOVSDconst, irtR(X9)), 5))
	b.Append(irtAux(irtI(OpCALL, nil), 1))
	b.Append(irtI(OpSQRTSD, irtR(X0), X9))
	b.Append(irtI(OpRET, nil, X0))
	g := irtFunc("nop", 1, FormAllocated, nil, nil)
	g.NewBlock().Append(irtI(OpRET, nil))
	_, err := irtCall(irtMachine(t, []*Func{f, g}, interp.Config{}), 0)
	if err == nil || !strings.Contains(err.Error(), "mir: fault in main b0[2] (SQRTSD): use 0 (xmm9) is undefined") {
		t.Fatalf("xmm9 across a call: %v", err)
	}
}

func TestInterpHostCalls(t *testing.T) {
	t.Run("allocated", func(t *testing.T) {
		f := irtFunc("main", 0, FormAllocated, []Class{GPR, XMM}, []Class{GPR, XMM, GPR})
		b := f.NewBlock()
		b.Append(irtArg(RDI, 0))
		b.Append(irtArg(X0, 1))
		b.Append(irtImm(irtI(OpMOVQconst, irtR(RSI)), 1000))
		b.Append(irtImm(irtI(OpMOVQconst, irtR(R12)), 12))
		b.Append(irtPos(irtAux(irtI(OpCALLHOST, irtR(RAX, X0, RDX), RDI, X0, RSI), 0), 4))
		b.Append(irtI(OpADDQ, irtR(RDX), RDX, R12))
		b.Append(irtI(OpRET, nil, RAX, X0, RDX))
		hosts := []HostSig{{Params: []Class{GPR, XMM, GPR}, Results: []Class{GPR, XMM, GPR}}}
		irtVerify(t, []*Func{f}, hosts)
		var seen []uint64
		m := irtMachine(t, []*Func{f}, interp.Config{}, func(ctx context.Context, args, results []uint64) error {
			seen = append(seen, args...)
			results[0] = args[0] + args[2]
			results[1] = irtF(math.Float64frombits(args[1]) * 2)
			results[2] = 30
			return nil
		})
		got, err := irtCall(m, 0, 5, irtF(1.25))
		if err != nil || got[0] != 1005 || got[1] != irtF(2.5) || got[2] != 42 {
			t.Fatalf("%v %v", got, err)
		}
		if len(seen) != 3 || seen[0] != 5 || seen[1] != irtF(1.25) || seen[2] != 1000 {
			t.Fatalf("host saw %v", seen)
		}
	})
	t.Run("clobbers", func(t *testing.T) {
		f := irtFunc("main", 0, FormAllocated, nil, []Class{GPR})
		b := f.NewBlock()
		b.Append(irtImm(irtI(OpMOVQconst, irtR(R8)), 1))
		b.Append(irtAux(irtI(OpCALLHOST, nil), 0))
		b.Append(irtI(OpNEGQ, irtR(R8), R8))
		b.Append(irtI(OpCopy, irtR(RAX), R8))
		b.Append(irtI(OpRET, nil, RAX))
		irtVerify(t, []*Func{f}, []HostSig{{}})
		m := irtMachine(t, []*Func{f}, interp.Config{}, func(context.Context, []uint64, []uint64) error { return nil })
		_, err := irtCall(m, 0)
		if err == nil || !strings.Contains(err.Error(), "b0[2] (NEGQ): use 0 (r8) is undefined") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("error", func(t *testing.T) {
		f := irtFunc("main", 0, FormSSA, nil, nil)
		b := f.NewBlock()
		b.Append(irtPos(irtAux(irtI(OpCALLHOST, nil), 0), 17))
		b.Append(irtI(OpRET, nil))
		boom := errors.New("boom")
		m := irtMachine(t, []*Func{f}, interp.Config{}, func(context.Context, []uint64, []uint64) error { return boom })
		_, err := irtCall(m, 0)
		var trap *bytecode.Trap
		if !errors.As(err, &trap) || trap.Kind != bytecode.TrapHostError || trap.Offset != 17 || trap.FuncName != "main" ||
			!errors.Is(err, boom) {
			t.Fatalf("%#v", err)
		}
	})
	t.Run("reentrant", func(t *testing.T) {
		// main(x) = host(x) + 1, where the host calls back into grow(x),
		// which grows memory by one page, stores x at the start of the new
		// page and calls sum(x); main then reads the new page.
		main := irtFunc("main", 0, FormSSA, []Class{GPR}, []Class{GPR, GPR})
		b := main.NewBlock()
		x, r, base, ln, v := main.NewVReg(GPR), main.NewVReg(GPR), main.NewVReg(GPR), main.NewVReg(GPR), main.NewVReg(GPR)
		b.Append(irtArg(x, 0))
		b.Append(irtAux(irtI(OpCALLHOST, irtR(r), x), 0))
		b.Append(irtAux(irtI(OpCtxLoad, irtR(base)), int32(CtxMemBase)))
		b.Append(irtAux(irtI(OpCtxLoad, irtR(ln)), int32(CtxMemLen)))
		ld := irtImm(irtI(OpMOVQload, irtR(v), base, ln), -bytecode.PageSize)
		ld.Scale = 1
		b.Append(ld)
		r1 := main.NewVReg(GPR)
		b.Append(irtImm(irtI(OpADDQconst, irtR(r1), r), 1))
		b.Append(irtI(OpRET, nil, r1, v))

		grow := irtFunc("grow", 1, FormAllocated, []Class{GPR}, []Class{GPR})
		g := grow.NewBlock()
		g.Append(irtArg(RDI, 0))
		g.Append(irtI(OpCopy, irtR(RBX), RDI))
		g.Append(irtImm(irtI(OpMOVQconst, irtR(RDI)), 1))
		g.Append(irtAux(irtI(OpCALLRT, irtR(RAX), RDI), RTMemoryGrow))
		g.Append(irtAux(irtI(OpCtxLoad, irtR(RCX)), int32(CtxMemBase)))
		g.Append(irtAux(irtI(OpCtxLoad, irtR(RDX)), int32(CtxMemLen)))
		st := irtImm(irtI(OpMOVQstore, nil, RCX, RDX, RBX), -bytecode.PageSize)
		st.Scale = 1
		g.Append(st)
		g.Append(irtI(OpCopy, irtR(RDI), RBX))
		g.Append(irtAux(irtI(OpCALL, irtR(RAX), RDI), 2))
		g.Append(irtI(OpRET, nil, RAX))

		sum := irtSumLoop(FormNonSSA)
		sum.Index = 2
		funcs := []*Func{main, grow, sum}
		irtVerify(t, funcs, []HostSig{{Params: []Class{GPR}, Results: []Class{GPR}}})
		var m *Machine
		m = irtMachine(t, funcs, interp.Config{}, func(ctx context.Context, args, results []uint64) error {
			return m.Call(ctx, 1, args, results)
		})
		got, err := irtCall(m, 0, 10)
		if err != nil || got[0] != 46 || got[1] != 10 || m.Memory.Pages() != 2 {
			t.Fatalf("%v %v, %d pages", got, err, m.Memory.Pages())
		}
	})
}

func TestInterpMemory(t *testing.T) {
	f := irtFunc("mem", 0, FormAllocated, []Class{GPR}, []Class{GPR, GPR, GPR})
	b := f.NewBlock()
	b.Append(irtArg(RDI, 0))
	b.Append(irtAux(irtI(OpCALLRT, irtR(RAX), RDI), RTMemoryGrow))
	b.Append(irtAux(irtI(OpCtxLoad, irtR(RCX)), int32(CtxMemLen)))
	b.Append(irtAux(irtI(OpCtxLoad, irtR(RSI)), int32(CtxMemBase)))
	b.Append(irtImm(irtI(OpMOVQconst, irtR(R8)), 0x1122334455667788))
	st := irtImm(irtI(OpMOVQstore, nil, RSI, RCX, R8), -8)
	st.Scale = 1
	b.Append(st)
	ld := irtImm(irtI(OpMOVWQSXload, irtR(RDX), RSI, RCX), -2)
	ld.Scale = 1
	b.Append(ld)
	b.Append(irtI(OpCopy, irtR(InArgReg(0)), RCX))
	b.Append(irtI(OpRET, nil, RAX, RDX, InArgReg(0)))
	irtVerify(t, []*Func{f}, nil)
	m := irtMachine(t, []*Func{f}, interp.Config{})
	for _, c := range []struct{ delta, old, pages uint64 }{{0, 1, 1}, {1, 1, 2}, {100, math.MaxUint64, 2}, {2, 2, 4}, {1, math.MaxUint64, 4}} {
		got, err := irtCall(m, 0, c.delta)
		if err != nil || got[0] != c.old || got[1] != 0x1122 || got[2] != c.pages*bytecode.PageSize {
			t.Fatalf("grow %d: %#x %v", c.delta, got, err)
		}
		if n := len(m.Memory.Bytes); binary.LittleEndian.Uint64(m.Memory.Bytes[n-8:]) != 0x1122334455667788 {
			t.Fatalf("grow %d: store did not reach memory", c.delta)
		}
	}
}

func TestInterpTraps(t *testing.T) {
	for _, kind := range []bytecode.TrapKind{bytecode.TrapExplicit, bytecode.TrapDivideByZero, bytecode.TrapOutOfBounds, bytecode.TrapIntegerOverflow} {
		f := irtFunc("trapper", 0, FormSSA, nil, nil)
		f.Index = 1
		g := irtFunc("caller", 0, FormSSA, nil, nil)
		g.NewBlock().Append(irtAux(irtI(OpCALL, nil), 1))
		g.Blocks[0].Append(irtI(OpRET, nil))
		f.NewBlock().Append(irtPos(irtImm(irtAux(irtI(OpTRAP, nil), int32(kind)), 42), 7))
		funcs := []*Func{g, f}
		irtVerify(t, funcs, nil)
		_, err := irtCall(irtMachine(t, funcs, interp.Config{}), 0)
		var trap *bytecode.Trap
		if !errors.As(err, &trap) || trap.Kind != kind || trap.Offset != 7 || trap.Func != 1 || trap.FuncName != "trapper" ||
			trap.Code != 42 {
			t.Fatalf("%v: %#v", kind, err)
		}
	}
}

// TestInterpConditionalTraps checks that TRAPCC traps, with its kind and
// offset, exactly when its condition holds, and falls through otherwise.
func TestInterpConditionalTraps(t *testing.T) {
	for _, tt := range []struct {
		a, b uint64
		cond Cond
		trap bool
	}{
		{3, 7, CondAE, false}, {7, 3, CondAE, true}, {7, 7, CondAE, true},
		{3, 7, CondE, false}, {7, 7, CondE, true}, {1<<63 + 1, 1, CondL, true}, {1, 1<<63 + 1, CondL, false},
	} {
		f := irtFunc("check", 0, FormSSA, []Class{GPR, GPR}, []Class{GPR})
		b := f.NewBlock()
		a, c, s := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
		b.Append(irtArg(a, 0))
		b.Append(irtArg(c, 1))
		b.Append(irtI(OpCMPQ, nil, a, c))
		b.Append(irtPos(irtCond(irtAux(irtI(OpTRAPCC, nil), int32(bytecode.TrapOutOfBounds)), tt.cond), 5))
		b.Append(irtI(OpSUBQ, irtR(s), a, c))
		b.Append(irtI(OpRET, nil, s))
		irtVerify(t, []*Func{f}, nil)
		got, err := irtCall(irtMachine(t, []*Func{f}, interp.Config{}), 0, tt.a, tt.b)
		var trap *bytecode.Trap
		switch {
		case tt.trap && (!errors.As(err, &trap) || trap.Kind != bytecode.TrapOutOfBounds || trap.Offset != 5):
			t.Errorf("%d %s %d: %v %v, want an out-of-bounds trap at offset 5", tt.a, tt.cond, tt.b, got, err)
		case !tt.trap && (err != nil || got[0] != tt.a-tt.b):
			t.Errorf("%d %s %d: %v %v, want %d", tt.a, tt.cond, tt.b, got, err, tt.a-tt.b)
		}
	}
}

// TestInterpExecutions counts the instructions a loop of n iterations
// executes, in SSA form (where φ moves on edges are not instructions) and
// in allocated form, over two calls.
func TestInterpExecutions(t *testing.T) {
	for _, form := range []Form{FormSSA, FormAllocated} {
		f := irtSumLoop(form)
		m := irtMachine(t, []*Func{f}, interp.Config{})
		m.CountExecutions = true
		for _, n := range []uint64{7, 5} {
			if _, err := irtCall(m, 0, n); err != nil {
				t.Fatal(err)
			}
		}
		got := map[[2]int]uint64{}
		m.Executions(0, func(b, i int, in *Instr, n uint64) {
			if f.Blocks[b].Instrs[i] != in {
				t.Errorf("%s: b%d[%d] is reported as %s", form, b, i, in.Op)
			}
			got[[2]int{b, i}] = n
		})
		// Block 1 (the loop test) runs 12 + 2 times, block 2 (the body) 12
		// times, blocks 0 and 3 once per call.
		for b, want := range []uint64{2, 14, 12, 2} {
			for i, in := range f.Blocks[b].Instrs {
				if in.Op == OpPhi {
					continue
				}
				if got[[2]int{b, i}] != want {
					t.Errorf("%s: b%d[%d] (%s) ran %d times, want %d", form, b, i, in.Op, got[[2]int{b, i}], want)
				}
			}
		}
	}
}

func TestInterpCounters(t *testing.T) {
	f := irtSumLoop(FormAllocated)
	f.Blocks[2].Instrs = append([]*Instr{irtAux(irtI(OpCount, nil), 3)}, f.Blocks[2].Instrs...)
	f.Blocks[3].Instrs = append([]*Instr{irtAux(irtI(OpCount, nil), 1)}, f.Blocks[3].Instrs...)
	irtVerify(t, []*Func{f}, nil)
	m := irtMachine(t, []*Func{f}, interp.Config{})
	if len(m.Counters[0]) != 4 {
		t.Fatalf("counters %v", m.Counters)
	}
	for range 2 {
		if _, err := irtCall(m, 0, 50); err != nil {
			t.Fatal(err)
		}
	}
	if c := m.Counters[0]; c[3] != 100 || c[1] != 2 || c[0] != 0 || c[2] != 0 {
		t.Fatalf("counters %v", c)
	}
	m.Counters[0] = m.Counters[0][:2]
	_, err := irtCall(m, 0, 50)
	if err == nil || !strings.Contains(err.Error(), "b2[0] (Count): counter 3 out of range") {
		t.Fatalf("%v", err)
	}
}

// irtBC builds a bytecode module and an interp machine for it.
func irtInterp(t testing.TB, build func(mb *bytecode.ModuleBuilder), cfg interp.Config, hosts ...interp.HostFunc) *interp.Machine {
	t.Helper()
	mb := bytecode.NewModuleBuilder()
	build(mb)
	mod, err := mb.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := interp.Prepare(mod)
	if err != nil {
		t.Fatal(err)
	}
	m, err := interp.NewMachine(p, cfg, hosts, interp.NewMemory(mod.Memory.MinPages, mod.Memory.MaxPages))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var irtI64 = []bytecode.Type{bytecode.I64}

// irtBCLoop emits the bytecode twin of irtMirLoop: "loop" (n) counts acc
// from 1 to n with a backward branch at offset 3, calling host 0 with acc
// at offset 1 when withHost is set.
//
//	0: i64.const r1, 0
//	1: L: call_host h (r1) -> ()      (or: mov r1, r1)
//	2: i64.add r1, r1, 1
//	3: br.lt_u r1, r0, L
//	4: ret r1
func irtBCLoop(mb *bytecode.ModuleBuilder, name string, withHost bool) {
	fb := mb.Func(name, irtI64, irtI64)
	acc := fb.NewReg(bytecode.I64)
	fb.I64Const(acc, 0)
	l := fb.NewLabel()
	fb.Bind(l)
	if withHost {
		fb.CallHost(0, []bytecode.Reg{acc}, nil)
	} else {
		fb.Mov(acc, acc)
	}
	fb.BinaryImm(bytecode.OpI64Add, acc, acc, 1)
	fb.BrCmp(bytecode.OpBrLtU, acc, fb.Param(0), l)
	fb.Return(acc)
}

// irtMirLoop is the mir form of irtBCLoop, with the Poll on the back edge.
func irtMirLoop(index int, name string, withHost bool) *Func {
	f := irtFunc(name, index, FormSSA, []Class{GPR}, []Class{GPR})
	bs := irtBlocks(f, 4)
	irtEdges(f, 0, 1)
	irtEdges(f, 1, 2, 3)
	irtEdges(f, 2, 1)
	n, a0, a, a1 := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(GPR)
	bs[0].Append(irtArg(n, 0))
	bs[0].Append(irtPos(irtI(OpMOVQconst, irtR(a0)), 0))
	bs[0].Append(irtI(OpJMP, nil))
	bs[1].Append(irtI(OpPhi, irtR(a), a0, a1))
	if withHost {
		bs[1].Append(irtPos(irtAux(irtI(OpCALLHOST, nil, a), 0), 1))
	}
	bs[1].Append(irtPos(irtImm(irtI(OpADDQconst, irtR(a1), a), 1), 2))
	bs[1].Append(irtPos(irtI(OpCMPQ, nil, a1, n), 3))
	bs[1].Append(irtPos(irtCond(irtI(OpJCC, nil), CondB), 3))
	bs[2].Append(irtPos(irtI(OpPoll, nil), 3))
	bs[2].Append(irtPos(irtI(OpJMP, nil), 3))
	bs[3].Append(irtPos(irtI(OpRET, nil, a1), 4))
	return f
}

// irtBCRec emits "rec" (n) = n == 0 ? 0 : rec(n-1) + 1 (call at offset 2).
func irtBCRec(mb *bytecode.ModuleBuilder) {
	fb := mb.Func("rec", irtI64, irtI64)
	r := fb.NewReg(bytecode.I64)
	l := fb.NewLabel()
	fb.BrCmpImm(bytecode.OpBrEq, fb.Param(0), 0, l)
	fb.BinaryImm(bytecode.OpI64Sub, r, fb.Param(0), 1)
	fb.Call(fb.Index(), []bytecode.Reg{r}, []bytecode.Reg{r})
	fb.BinaryImm(bytecode.OpI64Add, r, r, 1)
	fb.Return(r)
	fb.Bind(l)
	fb.Return(fb.Param(0))
}

// irtMirRec is the allocated mir form of irtBCRec.
func irtMirRec(index int) *Func {
	f := irtFunc("rec", index, FormAllocated, []Class{GPR}, []Class{GPR})
	bs := irtBlocks(f, 3)
	irtEdges(f, 0, 2, 1)
	bs[0].Append(irtArg(RDI, 0))
	bs[0].Append(irtPos(irtI(OpCMPQconst, nil, RDI), 0))
	bs[0].Append(irtPos(irtCond(irtI(OpJCC, nil), CondE), 0))
	bs[1].Append(irtPos(irtImm(irtI(OpSUBQconst, irtR(RDI), RDI), 1), 1))
	bs[1].Append(irtPos(irtI(OpPoll, nil), 2))
	bs[1].Append(irtPos(irtAux(irtI(OpCALL, irtR(RAX), RDI), int32(index)), 2))
	bs[1].Append(irtPos(irtImm(irtI(OpADDQconst, irtR(RAX), RAX), 1), 3))
	bs[1].Append(irtPos(irtI(OpRET, nil, RAX), 4))
	bs[2].Append(irtI(OpCopy, irtR(RAX), RDI))
	bs[2].Append(irtPos(irtI(OpRET, nil, RAX), 5))
	return f
}

// irtSameOutcome compares results and errors of interp and mir runs.
func irtSameOutcome(t *testing.T, what string, want []uint64, werr error, got []uint64, gerr error) {
	t.Helper()
	var wt, gt *bytecode.Trap
	wTrap, gTrap := errors.As(werr, &wt), errors.As(gerr, &gt)
	switch {
	case werr == nil && gerr == nil:
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("%s: results %v, interp %v", what, got, want)
			}
		}
	case wTrap && gTrap:
		if wt.Kind != gt.Kind || wt.Offset != gt.Offset || wt.Func != gt.Func || wt.FuncName != gt.FuncName ||
			fmt.Sprint(wt.Cause) != fmt.Sprint(gt.Cause) {
			t.Fatalf("%s: trap %v (func %d), interp %v (func %d)", what, gerr, gt.Func, werr, wt.Func)
		}
	default:
		t.Fatalf("%s: error %v, interp %v", what, gerr, werr)
	}
}

func TestInterpFuelLikeInterp(t *testing.T) {
	for _, fuel := range []int64{0, 1, 2, 5, 1023, 1024, 1025, 2047, 2048, 2049, 4999, 5000, 20000} {
		ref := irtInterp(t, func(mb *bytecode.ModuleBuilder) { irtBCLoop(mb, "loop", false); irtBCRec(mb) }, interp.Config{Fuel: fuel})
		funcs := []*Func{irtMirLoop(0, "loop", false), irtMirRec(1)}
		irtVerify(t, funcs, nil)
		m := irtMachine(t, funcs, interp.Config{Fuel: fuel})
		for _, fn := range []int{0, 1} {
			for _, n := range []uint64{1, 2, 3, 1024, 1025, 1026, 2049, 3000, 5000, 6000} {
				if fn == 1 && n > 3000 {
					continue
				}
				want, got := make([]uint64, 1), make([]uint64, 1)
				werr := ref.Call(context.Background(), fn, []uint64{n}, want)
				gerr := m.Call(context.Background(), fn, []uint64{n}, got)
				what := "fuel"
				irtSameOutcome(t, what, want, werr, got, gerr)
				if ref.FuelLeft() != m.FuelLeft() {
					t.Fatalf("fuel %d, func %d, n %d: FuelLeft %d, interp %d", fuel, fn, n, m.FuelLeft(), ref.FuelLeft())
				}
			}
		}
	}
}

func TestInterpStackOverflowLikeInterp(t *testing.T) {
	for _, depth := range []int{1, 2, 10, 100} {
		ref := irtInterp(t, irtBCRec, interp.Config{MaxCallDepth: depth, Fuel: 100000})
		funcs := []*Func{irtMirRec(0)}
		irtVerify(t, funcs, nil)
		m := irtMachine(t, funcs, interp.Config{MaxCallDepth: depth, Fuel: 100000})
		for _, n := range []uint64{0, 1, uint64(depth) - 1, uint64(depth), uint64(depth) + 1, 500} {
			want, got := make([]uint64, 1), make([]uint64, 1)
			werr := ref.Call(context.Background(), 0, []uint64{n}, want)
			gerr := m.Call(context.Background(), 0, []uint64{n}, got)
			irtSameOutcome(t, "depth", want, werr, got, gerr)
			if ref.FuelLeft() != m.FuelLeft() {
				t.Fatalf("depth %d, n %d: FuelLeft %d, interp %d", depth, n, m.FuelLeft(), ref.FuelLeft())
			}
		}
	}
}

func TestInterpCancelLikeInterp(t *testing.T) {
	for _, fuel := range []int64{0, 3000, 100000} {
		for _, k := range []int{1, 2, 500, 1024, 1500, 2500} {
			// The host cancels the context at its k-th call; calls after
			// the cancellation run until the next slow-path poll.
			var refCalls, mirCalls int
			var cancel func()
			host := func(calls *int) interp.HostFunc {
				return func(ctx context.Context, args, results []uint64) error {
					*calls++
					if *calls == k {
						cancel()
					}
					return nil
				}
			}
			ref := irtInterp(t, func(mb *bytecode.ModuleBuilder) {
				mb.Host("h", irtI64, nil)
				irtBCLoop(mb, "loop", true)
			}, interp.Config{Fuel: fuel}, host(&refCalls))
			funcs := []*Func{irtMirLoop(0, "loop", true)}
			irtVerify(t, funcs, []HostSig{{Params: []Class{GPR}}})
			m := irtMachine(t, funcs, interp.Config{Fuel: fuel}, host(&mirCalls))

			want, got := make([]uint64, 1), make([]uint64, 1)
			ctx, c := context.WithCancel(context.Background())
			cancel = c
			werr := ref.Call(ctx, 0, []uint64{10000}, want)
			ctx, c = context.WithCancel(context.Background())
			cancel = c
			gerr := m.Call(ctx, 0, []uint64{10000}, got)
			irtSameOutcome(t, "cancel", want, werr, got, gerr)
			if refCalls != mirCalls || ref.FuelLeft() != m.FuelLeft() {
				t.Fatalf("fuel %d, k %d: %d host calls, FuelLeft %d; interp %d, %d", fuel, k, mirCalls, m.FuelLeft(), refCalls, ref.FuelLeft())
			}
			if !errors.Is(gerr, context.Canceled) {
				t.Fatalf("fuel %d, k %d: %v", fuel, k, gerr)
			}
		}
	}
	// A context cancelled before the call stops it at offset 0.
	funcs := []*Func{irtMirLoop(0, "loop", false)}
	m := irtMachine(t, funcs, interp.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := m.Call(ctx, 0, []uint64{5}, make([]uint64, 1))
	var trap *bytecode.Trap
	if !errors.As(err, &trap) || trap.Kind != bytecode.TrapInterrupted || trap.Offset != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
	// A deadline interrupts an endless loop.
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err = m.Call(ctx, 0, []uint64{math.MaxUint64}, make([]uint64, 1))
	if !errors.As(err, &trap) || trap.Kind != bytecode.TrapInterrupted || trap.Offset != 3 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v", err)
	}
}

func TestInterpReentrantFuelLikeInterp(t *testing.T) {
	// The host calls back into "loop" (function 1) with n = acc + 5.
	for _, fuel := range []int64{0, 10, 1000, 1030, 5000, 40000} {
		for _, nested := range []bool{false, true} {
			var refM *interp.Machine
			var m *Machine
			mkHost := func(call func(ctx context.Context, args, results []uint64) error) interp.HostFunc {
				return func(ctx context.Context, args, results []uint64) error {
					if !nested {
						return nil
					}
					return call(ctx, []uint64{args[0] + 5}, make([]uint64, 1))
				}
			}
			refM = irtInterp(t, func(mb *bytecode.ModuleBuilder) {
				mb.Host("h", irtI64, nil)
				irtBCLoop(mb, "loop", true)
				irtBCLoop(mb, "inner", false)
			}, interp.Config{Fuel: fuel}, mkHost(func(ctx context.Context, a, r []uint64) error { return refM.Call(ctx, 1, a, r) }))
			funcs := []*Func{irtMirLoop(0, "loop", true), irtMirLoop(1, "inner", false)}
			irtVerify(t, funcs, []HostSig{{Params: []Class{GPR}}})
			m = irtMachine(t, funcs, interp.Config{Fuel: fuel}, mkHost(func(ctx context.Context, a, r []uint64) error { return m.Call(ctx, 1, a, r) }))
			for _, n := range []uint64{1, 3, 30, 200} {
				want, got := make([]uint64, 1), make([]uint64, 1)
				werr := refM.Call(context.Background(), 0, []uint64{n}, want)
				gerr := m.Call(context.Background(), 0, []uint64{n}, got)
				irtSameOutcome(t, "reentrant", want, werr, got, gerr)
				if refM.FuelLeft() != m.FuelLeft() {
					t.Fatalf("fuel %d, n %d: FuelLeft %d, interp %d", fuel, n, m.FuelLeft(), refM.FuelLeft())
				}
			}
		}
	}
}

// irtFaultCase builds a function (function 0 of funcs) whose call must
// fault with a message containing msg at b<block>[instr].
type irtFaultCase struct {
	name         string
	build        func() []*Func
	args         []uint64
	block, instr int
	msg          string
	prep         func(m *Machine)
}

// irtOneBlock returns a one-block function with the given instructions.
func irtOneBlock(form Form, params, results []Class, nv int, ins ...*Instr) []*Func {
	f := irtFunc("f", 0, form, params, results)
	for range nv {
		f.NewVReg(GPR)
	}
	b := f.NewBlock()
	for _, in := range ins {
		b.Append(in)
	}
	return []*Func{f}
}

func irtMem(in *Instr, scale uint8, disp int64) *Instr { in.Scale, in.Imm = scale, disp; return in }

func TestInterpFaults(t *testing.T) {
	v := VReg
	gpr1 := []Class{GPR}
	nop := func() *Func {
		g := irtFunc("g", 1, FormAllocated, []Class{GPR}, []Class{GPR})
		b := g.NewBlock()
		b.Append(irtArg(RDI, 0))
		b.Append(irtI(OpCopy, irtR(RAX), RDI))
		b.Append(irtI(OpRET, nil, RAX))
		return g
	}
	cases := []irtFaultCase{
		{name: "undefined-vreg", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 3, irtI(OpADDQ, irtR(v(2)), v(0), v(1)), irtI(OpRET, nil, v(2)))
		}, block: 0, instr: 0, msg: "use 0 (v0) is undefined"},
		{name: "undefined-result", build: func() []*Func {
			return irtOneBlock(FormNonSSA, nil, gpr1, 2, irtI(OpCopy, irtR(v(1)), v(0)), irtI(OpRET, nil, v(1)))
		}, block: 0, instr: 1, msg: "result 0 (v1) is undefined"},
		{name: "undefined-store", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 3, irtAux(irtI(OpCtxLoad, irtR(v(0))), int32(CtxMemBase)),
				irtMem(irtI(OpMOVQstore, nil, v(0), NoReg, v(1)), 1, 0), irtI(OpRET, nil))
		}, block: 0, instr: 1, msg: "use 2 (v1) is undefined"},
		{name: "undefined-host-arg", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 3, irtAux(irtI(OpCALLHOST, nil, v(1)), 0), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "host argument 0 (v1) is undefined"},
		{name: "undefined-slot", build: func() []*Func {
			fs := irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpReload, irtR(RAX), SlotReg(0)), irtI(OpNOTQ, irtR(RAX), RAX), irtI(OpRET, nil, RAX))
			fs[0].NewSlot(GPR)
			return fs
		}, block: 0, instr: 1, msg: "use 0 (rax) is undefined"},
		{name: "load-out-of-bounds", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 3, irtAux(irtI(OpCtxLoad, irtR(v(0))), int32(CtxMemBase)),
				irtAux(irtI(OpCtxLoad, irtR(v(1))), int32(CtxMemLen)),
				irtMem(irtI(OpMOVQload, irtR(v(2)), v(0), v(1)), 1, -4), irtI(OpRET, nil, v(2)))
		}, block: 0, instr: 2, msg: "address 0x7f000000fffc (8 bytes) outside memory [0x7f0000000000, 0x7f0000010000)"},
		{name: "store-below-base", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 3, irtAux(irtI(OpCtxLoad, irtR(v(0))), int32(CtxMemBase)),
				irtI(OpMOVQconst, irtR(v(1))), irtMem(irtI(OpMOVBstore, nil, v(0), NoReg, v(1)), 1, -1), irtI(OpRET, nil))
		}, block: 0, instr: 2, msg: "address 0x7effffffffff (1 bytes) outside memory"},
		{name: "idiv-zero", build: func() []*Func {
			return irtOneBlock(FormSSA, []Class{GPR, GPR}, gpr1, 4, irtArg(v(0), 0), irtArg(v(1), 1),
				irtI(OpIDIVQ, irtR(v(2), v(3)), v(0), v(1)), irtI(OpRET, nil, v(2)))
		}, args: []uint64{5, 0}, block: 0, instr: 2, msg: "#DE: signed division of 5 by zero"},
		{name: "idiv-overflow", build: func() []*Func {
			return irtOneBlock(FormSSA, []Class{GPR, GPR}, gpr1, 4, irtArg(v(0), 0), irtArg(v(1), 1),
				irtI(OpIDIVQ, irtR(v(2), v(3)), v(0), v(1)), irtI(OpRET, nil, v(2)))
		}, args: []uint64{1 << 63, math.MaxUint64}, block: 0, instr: 2, msg: "#DE: signed division overflows"},
		{name: "idivl-zero", build: func() []*Func {
			return irtOneBlock(FormSSA, []Class{GPR, GPR}, gpr1, 4, irtArg(v(0), 0), irtArg(v(1), 1),
				irtI(OpIDIVL, irtR(v(2), v(3)), v(0), v(1)), irtI(OpRET, nil, v(2)))
		}, args: []uint64{5, 1 << 32}, block: 0, instr: 2, msg: "#DE: signed division of 5 by zero"},
		{name: "idivl-overflow", build: func() []*Func {
			return irtOneBlock(FormSSA, []Class{GPR, GPR}, gpr1, 4, irtArg(v(0), 0), irtArg(v(1), 1),
				irtI(OpIDIVL, irtR(v(2), v(3)), v(0), v(1)), irtI(OpRET, nil, v(2)))
		}, args: []uint64{0x80000000, 0xffffffff}, block: 0, instr: 2, msg: "#DE: signed division overflows (INT32_MIN / -1)"},
		{name: "divl-zero", build: func() []*Func {
			return irtOneBlock(FormAllocated, []Class{GPR, GPR}, gpr1, 0, irtArg(RDI, 0), irtArg(RSI, 1),
				irtI(OpCopy, irtR(RAX), RDI), irtI(OpDIVL, irtR(RAX, RDX), RAX, RSI), irtI(OpRET, nil, RAX))
		}, args: []uint64{7, 0xffffffff00000000}, block: 0, instr: 3, msg: "#DE: unsigned division of 7 by zero"},
		{name: "bsfl-of-zero-low-half", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 3, irtImm(irtI(OpMOVQconst, irtR(v(0))), 1<<32), irtI(OpBSFL, irtR(v(1)), v(0)),
				irtI(OpNEGL, irtR(v(2)), v(1)), irtI(OpRET, nil, v(2)))
		}, block: 0, instr: 2, msg: "use 0 (v1) is undefined"},
		{name: "flags-after-bsrl", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 3, irtImm(irtI(OpMOVQconst, irtR(v(0))), 8), irtI(OpBSRL, irtR(v(1)), v(0)),
				irtCond(irtI(OpSETCC, irtR(v(2))), CondE), irtCond(irtI(OpSETCC, irtR(v(2))), CondL), irtI(OpRET, nil, v(2)))
		}, block: 0, instr: 3, msg: "reads flags (condition l) left undefined by b0[1] (BSRL)"},
		{name: "flags-after-shll", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 2, irtImm(irtI(OpMOVQconst, irtR(v(0))), 8), irtImm(irtI(OpSHLLconst, irtR(v(1)), v(0)), 1),
				irtCond(irtI(OpSETCC, irtR(v(0))), CondE), irtI(OpRET, nil, v(0)))
		}, block: 0, instr: 2, msg: "left undefined by b0[1] (SHLLconst)"},
		{name: "cvtuq2ss-scratch-read", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpMOVQconst, irtR(RDI)), irtI(OpCVTUQ2SS, irtR(X0, RCX), RDI),
				irtI(OpCopy, irtR(RAX), RCX), irtI(OpRET, nil, RAX))
		}, block: 0, instr: 3, msg: "result 0 (rax) is undefined"},
		{name: "movss-store-undefined", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 3, irtAux(irtI(OpCtxLoad, irtR(v(0))), int32(CtxMemBase)),
				irtMem(irtI(OpMOVSSstore, nil, v(0), NoReg, v(1)), 1, 0), irtI(OpRET, nil))
		}, block: 0, instr: 1, msg: "use 2 (v1) is undefined"},
		{name: "movss-load-out-of-bounds", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 3, irtAux(irtI(OpCtxLoad, irtR(v(0))), int32(CtxMemBase)),
				irtAux(irtI(OpCtxLoad, irtR(v(1))), int32(CtxMemLen)),
				irtMem(irtI(OpMOVSSload, irtR(v(2)), v(0), v(1)), 1, -3), irtI(OpRET, nil))
		}, block: 0, instr: 2, msg: "address 0x7f000000fffd (4 bytes) outside memory"},
		{name: "movx2l-copies-undefined", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpMOVX2L, irtR(RAX), X3), irtI(OpRET, nil, RAX))
		}, block: 0, instr: 1, msg: "result 0 (rax) is undefined"},
		{name: "div-zero", build: func() []*Func {
			return irtOneBlock(FormAllocated, []Class{GPR, GPR}, gpr1, 0, irtArg(RDI, 0), irtArg(RSI, 1),
				irtI(OpCopy, irtR(RAX), RDI), irtI(OpDIVQ, irtR(RAX, RDX), RAX, RSI), irtI(OpRET, nil, RAX))
		}, args: []uint64{5, 0}, block: 0, instr: 3, msg: "#DE: unsigned division of 5 by zero"},
		{name: "flags-never-set", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 1, irtCond(irtI(OpSETCC, irtR(v(0))), CondE), irtI(OpRET, nil, v(0)))
		}, block: 0, instr: 0, msg: "reads flags (condition e) no instruction of the frame has set"},
		{name: "flags-after-imul", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 2, irtI(OpMOVQconst, irtR(v(0))), irtI(OpIMULQ, irtR(v(1)), v(0), v(0)),
				irtCond(irtI(OpSETCC, irtR(v(0))), CondO), irtI(OpRET, nil, v(0)))
		}, block: 0, instr: 2, msg: "left undefined by b0[1] (IMULQ)"},
		{name: "flags-after-call", build: func() []*Func {
			return []*Func{irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpMOVQconst, irtR(RDI)), irtI(OpCMPQ, nil, RDI, RDI),
				irtAux(irtI(OpCALL, irtR(RAX), RDI), 1), irtCond(irtI(OpCMOVQCC, irtR(RAX), RAX, RAX), CondE), irtI(OpRET, nil, RAX))[0], nop()}
		}, block: 0, instr: 3, msg: "left undefined by b0[2] (CALL)"},
		{name: "flags-after-bsr", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 3, irtImm(irtI(OpMOVQconst, irtR(v(0))), 8), irtI(OpBSRQ, irtR(v(1)), v(0)),
				irtCond(irtI(OpSETCC, irtR(v(2))), CondE), irtCond(irtI(OpSETCC, irtR(v(2))), CondB), irtI(OpRET, nil, v(2)))
		}, block: 0, instr: 3, msg: "reads flags (condition b) left undefined by b0[1] (BSRQ)"},
		{name: "bsf-of-zero", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 3, irtI(OpMOVQconst, irtR(v(0))), irtI(OpBSFQ, irtR(v(1)), v(0)),
				irtI(OpNEGQ, irtR(v(2)), v(1)), irtI(OpRET, nil, v(2)))
		}, block: 0, instr: 2, msg: "use 0 (v1) is undefined"},
		{name: "cvt-scratch", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpMOVQconst, irtR(RCX)), irtI(OpCVTUQ2SD, irtR(X0, RCX), RDI),
				irtI(OpRET, nil, RCX))
		}, block: 0, instr: 1, msg: "use 0 (rdi) is undefined"},
		{name: "cvt-scratch-read", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpMOVQconst, irtR(RDI)), irtI(OpCVTUQ2SD, irtR(X0, RCX), RDI),
				irtI(OpCopy, irtR(RAX), RCX), irtI(OpRET, nil, RAX))
		}, block: 0, instr: 3, msg: "result 0 (rax) is undefined"},
		{name: "operand-count", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 2, irtI(OpADDQ, irtR(v(1)), v(0)), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "1 defs and 1 uses, want 1 and 2"},
		{name: "rsp", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, nil, 0, irtI(OpMOVQconst, irtR(RSP)), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "rsp is reserved"},
		{name: "r15", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, nil, 0, irtI(OpMOVQconst, irtR(RAX)), irtI(OpADDQ, irtR(RAX), RAX, R15), irtI(OpRET, nil))
		}, block: 0, instr: 1, msg: "r15 is reserved"},
		{name: "vreg-allocated", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, nil, 1, irtI(OpMOVQconst, irtR(v(0))), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "virtual register v0 in allocated form"},
		{name: "undeclared-vreg", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 1, irtI(OpMOVQconst, irtR(v(5))), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "v5 is not declared"},
		{name: "fixed-register", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, nil, 0, irtI(OpIDIVQ, irtR(RBX, RDX), RAX, RCX), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "def 0 is rbx, must be rax"},
		{name: "tied", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, nil, 0, irtI(OpADDQ, irtR(RAX), RCX, RDX), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "def 0 is rax but is tied to use 0 in rcx"},
		{name: "early-clobber", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, nil, 0, irtI(OpIDIVQ, irtR(RAX, RDX), RAX, RDX), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "early-clobbered def 1 shares rdx with use 1"},
		{name: "class", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, nil, 0, irtI(OpADDSD, irtR(X0), X0, RAX), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "use 1 is rax, which is not a xmm register"},
		{name: "mem-to-mem", build: func() []*Func {
			fs := irtOneBlock(FormAllocated, nil, nil, 0, irtI(OpCopy, irtR(SlotReg(0)), SlotReg(1)), irtI(OpRET, nil))
			fs[0].NewSlot(GPR)
			fs[0].NewSlot(GPR)
			return fs
		}, block: 0, instr: 0, msg: "memory-to-memory copy"},
		{name: "call-convention", build: func() []*Func {
			return []*Func{irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpMOVQconst, irtR(RSI)),
				irtAux(irtI(OpCALL, irtR(RAX), RSI), 1), irtI(OpRET, nil, RAX))[0], nop()}
		}, block: 0, instr: 1, msg: "argument 0 is rsi; the calling convention puts it in rdi"},
		{name: "call-result-convention", build: func() []*Func {
			return []*Func{irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpMOVQconst, irtR(RDI)),
				irtAux(irtI(OpCALL, irtR(RDX), RDI), 1), irtI(OpRET, nil, RAX))[0], nop()}
		}, block: 0, instr: 1, msg: "result 0 is rdx; the calling convention puts it in rax"},
		{name: "ret-convention", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, gpr1, 0, irtI(OpMOVQconst, irtR(RCX)), irtI(OpRET, nil, RCX))
		}, block: 0, instr: 1, msg: "result 0 is rcx; the calling convention puts it in rax"},
		{name: "arg-convention", build: func() []*Func {
			return irtOneBlock(FormAllocated, gpr1, gpr1, 0, irtArg(RAX, 0), irtI(OpRET, nil, RAX))
		}, args: []uint64{1}, block: 0, instr: 0, msg: "argument 0 is in rax, not in rdi"},
		{name: "host-convention", build: func() []*Func {
			return irtOneBlock(FormAllocated, nil, nil, 0, irtI(OpMOVQconst, irtR(RAX)), irtAux(irtI(OpCALLHOST, nil, RAX), 0), irtI(OpRET, nil))
		}, block: 0, instr: 1, msg: "argument 0 is rax; the calling convention puts it in rdi"},
		{name: "call-arity", build: func() []*Func {
			return []*Func{irtOneBlock(FormSSA, nil, nil, 0, irtAux(irtI(OpCALL, nil), 1), irtI(OpRET, nil))[0], nop()}
		}, block: 0, instr: 0, msg: "0 arguments and 0 results for g, which takes 1 and returns 1"},
		{name: "callee-range", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 0, irtAux(irtI(OpCALL, nil), 7), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "callee 7 out of range"},
		{name: "host-range", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 0, irtAux(irtI(OpCALLHOST, nil), 3), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "host import 3 out of range"},
		{name: "runtime-call", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 0, irtAux(irtI(OpCALLRT, nil), 9), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "runtime call 9"},
		{name: "ret-arity", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, gpr1, 0, irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "returns 0 values; the function has 1 results"},
		{name: "invalid-op", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 0, irtI(Op(9999), nil), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "invalid op 9999"},
		{name: "nil-instr", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 0, nil, irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "nil instruction"},
		{name: "falls-off", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 1, irtI(OpMOVQconst, irtR(v(0))))
		}, block: 0, instr: 1, msg: "control falls off the end of the block"},
		{name: "no-blocks", build: func() []*Func {
			return []*Func{irtFunc("f", 0, FormSSA, nil, nil)}
		}, block: -1, instr: -1, msg: "function has no blocks"},
		{name: "empty-block", build: func() []*Func {
			f := irtFunc("f", 0, FormSSA, nil, nil)
			f.NewBlock()
			return []*Func{f}
		}, block: 0, instr: -1, msg: "empty block"},
		{name: "empty-block-with-successor", build: func() []*Func {
			f := irtFunc("f", 0, FormSSA, nil, nil)
			bs := irtBlocks(f, 2)
			irtEdges(f, 0, 1)
			bs[1].Append(irtI(OpPhi, irtR(f.NewVReg(GPR))))
			bs[1].Append(irtI(OpRET, nil))
			return []*Func{f}
		}, block: 0, instr: -1, msg: "empty block"},
		{name: "phi-in-entry", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 1, irtI(OpPhi, irtR(v(0))), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "φ in the entry block"},
		{name: "phi-late", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 2, irtI(OpMOVQconst, irtR(v(0))), irtI(OpPhi, irtR(v(1))), irtI(OpRET, nil))
		}, block: 0, instr: 1, msg: "φ after a non-φ instruction"},
		{name: "phi-arity", build: func() []*Func {
			f := irtFunc("f", 0, FormSSA, nil, nil)
			bs := irtBlocks(f, 2)
			irtEdges(f, 0, 1)
			a, b := f.NewVReg(GPR), f.NewVReg(GPR)
			bs[0].Append(irtI(OpMOVQconst, irtR(a)))
			bs[0].Append(irtI(OpJMP, nil))
			bs[1].Append(irtI(OpPhi, irtR(b), a, a))
			bs[1].Append(irtI(OpRET, nil))
			return []*Func{f}
		}, block: 0, instr: 1, msg: "φ b1[0] has 1 defs and 2 operands for 1 predecessors"},
		{name: "missing-successor", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 0, irtI(OpJMP, nil))
		}, block: 0, instr: 0, msg: "JMP with 0 successors"},
		{name: "bad-successor", build: func() []*Func {
			fs := irtOneBlock(FormSSA, nil, nil, 0, irtI(OpJMP, nil))
			fs[0].Blocks[0].Succs = []int{5}
			return fs
		}, block: 0, instr: 0, msg: "successor b5 does not exist"},
		{name: "counter", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 0, irtAux(irtI(OpCount, nil), 2), irtI(OpRET, nil))
		}, prep: func(m *Machine) { m.Counters[0] = nil }, block: 0, instr: 0, msg: "counter 2 out of range (0 counters)"},
		{name: "scale", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 2, irtMem(irtI(OpLEAQidx, irtR(v(0)), v(1), v(1)), 3, 0), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "scale 3 is not 1, 2, 4 or 8"},
		{name: "ctx-field", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 1, irtAux(irtI(OpCtxLoad, irtR(v(0))), 99), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "unknown context field 99"},
		{name: "round-mode", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 2, irtAux(irtI(OpROUNDSD, irtR(v(0)), v(1)), 4), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "unknown rounding mode 4"},
		{name: "round-mode-ss", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 2, irtAux(irtI(OpROUNDSS, irtR(v(0)), v(1)), -1), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "unknown rounding mode -1"},
		{name: "lealidx-scale", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 2, irtMem(irtI(OpLEALidx, irtR(v(0)), v(1), v(1)), 5, 0), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "scale 5 is not 1, 2, 4 or 8"},
		{name: "trap-kind", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 0, irtAux(irtI(OpTRAP, nil), 0))
		}, block: 0, instr: 0, msg: "unknown trap kind 0"},
		{name: "cond", build: func() []*Func {
			return irtOneBlock(FormSSA, nil, nil, 1, irtCond(irtI(OpSETCC, irtR(v(0))), 40), irtI(OpRET, nil))
		}, block: 0, instr: 0, msg: "invalid condition 40"},
		{name: "in-callee", build: func() []*Func {
			g := irtFunc("g", 1, FormSSA, nil, nil)
			gb := irtBlocks(g, 2)
			irtEdges(g, 0, 1)
			gb[0].Append(irtI(OpJMP, nil))
			gb[1].Append(irtI(OpTESTQ, nil, NoReg, NoReg))
			gb[1].Append(irtI(OpRET, nil))
			return []*Func{irtOneBlock(FormSSA, nil, nil, 0, irtAux(irtI(OpCALL, nil), 1), irtI(OpRET, nil))[0], g}
		}, block: 1, instr: 0, msg: "use 0: operand is noreg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			funcs := c.build()
			m, err := NewMachine(funcs, interp.Config{}, []interp.HostFunc{func(context.Context, []uint64, []uint64) error { return nil }}, interp.NewMemory(1, 1))
			if err != nil {
				t.Fatal(err)
			}
			if c.prep != nil {
				c.prep(m)
			}
			_, err = irtCall(m, 0, c.args...)
			var fault *Fault
			if !errors.As(err, &fault) {
				t.Fatalf("got %v, want a fault", err)
			}
			if fault.Block != c.block || fault.Instr != c.instr || !strings.Contains(fault.Msg, c.msg) {
				t.Fatalf("got %v (b%d[%d]), want b%d[%d] %q", err, fault.Block, fault.Instr, c.block, c.instr, c.msg)
			}
			if strings.Contains(fault.Msg, "internal error") {
				t.Fatal(err)
			}
		})
	}
}

func TestInterpFaultError(t *testing.T) {
	e := &Fault{Func: "fib", Block: 3, Instr: 2, Op: OpMOVQload, Msg: "address 0x7f0000010000 (8 bytes) outside memory"}
	if got, want := e.Error(), "mir: fault in fib b3[2] (MOVQload): address 0x7f0000010000 (8 bytes) outside memory"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	e = &Fault{Func: "fib", Block: -1, Instr: -1, Msg: "function has no blocks"}
	if got, want := e.Error(), "mir: fault in fib: function has no blocks"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

func TestInterpCallErrors(t *testing.T) {
	f := irtSumLoop(FormSSA)
	if _, err := NewMachine([]*Func{f, f}, interp.Config{}, nil, interp.NewMemory(1, 1)); err == nil {
		t.Fatal("duplicate index accepted")
	}
	if _, err := NewMachine([]*Func{f}, interp.Config{}, nil, nil); err == nil {
		t.Fatal("nil memory accepted")
	}
	if _, err := NewMachine([]*Func{f}, interp.Config{}, []interp.HostFunc{nil}, interp.NewMemory(1, 1)); err == nil {
		t.Fatal("nil host accepted")
	}
	m := irtMachine(t, []*Func{f}, interp.Config{})
	if err := m.Call(context.Background(), 1, nil, nil); err == nil {
		t.Fatal("bad function index accepted")
	}
	if err := m.Call(context.Background(), 0, nil, make([]uint64, 1)); err == nil {
		t.Fatal("wrong argument count accepted")
	}
	if _, err := irtCall(m, 0, 3); err != nil || m.FuelLeft() != -1 {
		t.Fatal(err, m.FuelLeft())
	}
}

func TestInterpMemBounds(t *testing.T) {
	fields := []CtxField{CtxMemLen, CtxMemBound1, CtxMemBound2, CtxMemBound4, CtxMemBound8}
	f := irtFunc("bounds", 0, FormSSA, nil, []Class{GPR, GPR, GPR, GPR, GPR})
	b := f.NewBlock()
	var rs []Reg
	for _, fl := range fields {
		r := f.NewVReg(GPR)
		b.Append(irtAux(irtI(OpCtxLoad, irtR(r)), int32(fl)))
		rs = append(rs, r)
	}
	b.Append(irtI(OpRET, nil, rs...))
	irtVerify(t, []*Func{f}, nil)
	for _, pages := range []uint32{0, 1, 3} {
		m, err := NewMachine([]*Func{f}, interp.Config{}, nil, interp.NewMemory(pages, 4))
		if err != nil {
			t.Fatal(err)
		}
		got, err := irtCall(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := uint64(pages) * bytecode.PageSize
		for i, fl := range fields {
			want := n
			if fl != CtxMemLen {
				want = MemBound(fl, n)
			}
			if got[i] != want {
				t.Fatalf("%d pages, field %d: %d, want %d", pages, fl, got[i], want)
			}
		}
	}
}

// irtRandomFunc returns a random, usually malformed, function in which
// every block polls, so that execution ends by fuel.
func irtRandomFunc(r *rand.Rand, index, nfuncs int) *Func {
	classes := []Class{GPR, XMM}
	randClasses := func(n int) []Class {
		out := make([]Class, r.IntN(n+1))
		for i := range out {
			out[i] = classes[r.IntN(2)]
		}
		return out
	}
	f := irtFunc("rand", index, Form(r.IntN(3)), randClasses(9), randClasses(3))
	for range 1 + r.IntN(6) {
		f.NewVReg(classes[r.IntN(2)])
	}
	for range r.IntN(3) {
		f.NewSlot(classes[r.IntN(2)])
	}
	if f.Form == FormNonSSA && r.IntN(2) == 0 {
		// Pins, mostly to allocatable registers, sometimes malformed.
		f.Pins = make([]Reg, len(f.VRegs)+r.IntN(8)/7)
		for i := range f.Pins {
			switch r.IntN(8) {
			case 0, 1, 2:
				f.Pins[i] = NoReg
			case 3:
				f.Pins[i] = []Reg{RSP, R15, R11, X15, SlotReg(0), VReg(0), Reg(r.Uint32())}[r.IntN(7)]
			default:
				f.Pins[i] = Allocatable.Regs()[r.IntN(Allocatable.Len())]
			}
		}
	}
	sane := r.IntN(2) == 0
	reg := func() Reg {
		if sane {
			if f.Form == FormAllocated {
				return Allocatable.Regs()[r.IntN(Allocatable.Len())]
			}
			return VReg(r.IntN(len(f.VRegs)))
		}
		switch r.IntN(12) {
		case 0:
			return NoReg
		case 1:
			return SlotReg(r.IntN(4))
		case 2:
			return OutArgReg(r.IntN(4))
		case 3:
			return InArgReg(r.IntN(4))
		case 4:
			return Reg(r.IntN(40))
		case 5:
			return Reg(r.Uint32())
		case 6, 7, 8:
			if f.Form == FormAllocated {
				return Reg(r.IntN(32))
			}
		}
		return VReg(r.IntN(len(f.VRegs) + 1))
	}
	regs := func(n int) []Reg {
		if !sane && r.IntN(10) == 0 {
			n = r.IntN(4)
		}
		out := make([]Reg, n)
		for i := range out {
			out[i] = reg()
		}
		return out
	}
	nb := 1 + r.IntN(5)
	irtBlocks(f, nb)
	for bi, b := range f.Blocks {
		if bi > 0 && r.IntN(3) == 0 {
			b.Instrs = append(b.Instrs, irtI(OpPhi, regs(1), regs(2)...))
		}
		b.Instrs = append(b.Instrs, irtI(OpPoll, nil))
		if bi == 0 {
			for k := range f.Params {
				if r.IntN(4) > 0 {
					b.Instrs = append(b.Instrs, irtArg(reg(), int32(k)))
				}
			}
		}
		for range r.IntN(8) {
			op := Op(1 + r.IntN(NumOps+1))
			if r.IntN(4) == 0 {
				op = []Op{OpMOVQconst, OpCMPQ, OpSETCC, OpCALL, OpCALLHOST, OpCALLRT, OpCtxLoad, OpMOVQload, OpMOVQstore, OpParCopy, OpCount}[r.IntN(11)]
			}
			info := op.Info()
			in := &Instr{Op: op, Defs: regs(len(info.Defs)), Uses: regs(len(info.Uses)), Pos: int32(r.IntN(50))}
			if info.Variadic {
				in.Defs, in.Uses = regs(r.IntN(4)), regs(r.IntN(4))
			}
			in.Imm = int64(r.IntN(200)) - 100
			if r.IntN(5) == 0 {
				in.Imm = int64(r.Uint64())
			}
			in.Scale = []uint8{0, 1, 2, 3, 4, 8}[r.IntN(6)]
			in.Cond = Cond(r.IntN(20))
			in.Aux = int32(r.IntN(6)) - 1
			if op == OpCALL {
				in.Aux = int32(r.IntN(nfuncs + 1))
			}
			if !sane && r.IntN(30) == 0 {
				b.Instrs = append(b.Instrs, nil)
			}
			b.Instrs = append(b.Instrs, in)
		}
		term := []Op{OpJMP, OpJCC, OpJMPTABLE, OpRET, OpTRAP, OpRET}[r.IntN(6)]
		in := &Instr{Op: term, Pos: int32(r.IntN(50)), Cond: Cond(r.IntN(18)), Aux: int32(r.IntN(12))}
		nsucc := 0
		switch term {
		case OpJMP:
			nsucc = 1
		case OpJCC:
			nsucc = 2
			b.Instrs = append(b.Instrs, irtI(OpCMPQ, nil, regs(2)...))
		case OpJMPTABLE:
			nsucc = 1 + r.IntN(3)
			in.Uses = regs(1)
		case OpRET:
			in.Uses = regs(len(f.Results))
		}
		if r.IntN(10) == 0 {
			nsucc = r.IntN(3)
		}
		if r.IntN(15) > 0 {
			b.Instrs = append(b.Instrs, in)
		}
		for range nsucc {
			f.AddEdge(bi, r.IntN(nb), 0.5)
		}
	}
	// Give φs one operand per predecessor (mostly).
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in != nil && in.Op == OpPhi && r.IntN(5) > 0 {
				in.Uses = regs(len(b.Preds))
			}
		}
	}
	return f
}

func TestInterpRandomNoPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := 4000
	if testing.Short() {
		n = 500
	}
	kinds := map[string]int{}
	for i := range n {
		nfuncs := 1 + r.IntN(3)
		funcs := make([]*Func, nfuncs)
		for k := range funcs {
			funcs[k] = irtRandomFunc(r, k, nfuncs)
		}
		hosts := []interp.HostFunc{
			func(ctx context.Context, args, results []uint64) error { return nil },
			func(ctx context.Context, args, results []uint64) error { return errors.New("host") },
		}
		m, err := NewMachine(funcs, interp.Config{Fuel: 300, MaxCallDepth: 20}, hosts, interp.NewMemory(1, 3))
		if err != nil {
			t.Fatal(err)
		}
		for fn := range funcs {
			args := make([]uint64, len(funcs[fn].Params))
			for k := range args {
				args[k] = r.Uint64() >> r.IntN(64)
			}
			_, err := irtCall(m, fn, args...)
			var fault *Fault
			var trap *bytecode.Trap
			switch {
			case err == nil:
				kinds["ok"]++
			case errors.As(err, &fault):
				if strings.Contains(fault.Msg, "internal error") {
					t.Fatalf("case %d func %d: %v", i, fn, err)
				}
				msg := fault.Msg
				if i := strings.IndexAny(msg, "0123456789("); i > 0 {
					msg = msg[:i]
				}
				kinds["fault: "+msg]++
			case errors.As(err, &trap):
				kinds[trap.Kind.String()]++
			default:
				t.Fatalf("case %d func %d: unexpected error %v", i, fn, err)
			}
		}
	}
	t.Logf("outcomes: %v", kinds)
}

// BenchmarkInterpLoop runs the sum loop of each form; ns/instr is the time
// per executed mir instruction (6 per iteration).
func BenchmarkInterpLoop(b *testing.B) {
	for _, form := range []Form{FormSSA, FormNonSSA, FormAllocated} {
		b.Run(form.String(), func(b *testing.B) {
			f := irtSumLoop(form)
			m := irtMachine(b, []*Func{f}, interp.Config{})
			const n = 100000
			res := make([]uint64, 1)
			for b.Loop() {
				if err := m.Call(context.Background(), 0, []uint64{n}, res); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(6*n), "ns/instr")
		})
	}
}

// TestInterpFlagEffects checks every op against the op table's
// WritesFlags: ops that do not write flags keep CMPQ's flags, producers
// define them, and every other writer leaves them undefined.
func TestInterpFlagEffects(t *testing.T) {
	producers := map[Op]bool{}
	for _, op := range []Op{OpCMPQ, OpCMPQconst, OpCMPQload, OpTESTQ, OpTESTQconst, OpUCOMISD, OpADDQ, OpSUBQ, OpANDQ,
		OpORQ, OpXORQ, OpNEGQ, OpADDQconst, OpSUBQconst, OpANDQconst, OpORQconst, OpXORQconst,
		OpADDQload, OpSUBQload, OpANDQload, OpORQload, OpXORQload,
		OpCMPL, OpCMPLconst, OpTESTL, OpTESTLconst, OpUCOMISS, OpADDL, OpSUBL, OpANDL, OpORL, OpXORL, OpNEGL,
		OpADDLconst, OpSUBLconst, OpANDLconst, OpORLconst, OpXORLconst} {
		producers[op] = true
	}
	for op := Op(1); int(op) < NumOps; op++ {
		info := op.Info()
		if info.Variadic || info.Terminator {
			continue
		}
		f := irtFunc("fx", 0, FormSSA, []Class{GPR, GPR, XMM, XMM}, []Class{GPR})
		b := f.NewBlock()
		a, c, x, y, base := f.NewVReg(GPR), f.NewVReg(GPR), f.NewVReg(XMM), f.NewVReg(XMM), f.NewVReg(GPR)
		for k, r := range []Reg{a, c, x, y} {
			b.Append(irtArg(r, int32(k)))
		}
		b.Append(irtAux(irtI(OpCtxLoad, irtR(base)), int32(CtxMemBase)))
		b.Append(irtI(OpCMPQ, nil, a, c))
		in := &Instr{Op: op, Pos: 1}
		gi, xi := 0, 0
		for _, s := range info.Uses {
			switch {
			case s.Role == RoleMemBase:
				in.Uses = append(in.Uses, base)
			case s.Role == RoleMemIndex:
				in.Uses = append(in.Uses, NoReg)
			case s.Class == XMM:
				in.Uses = append(in.Uses, []Reg{x, y}[xi%2])
				xi++
			default:
				in.Uses = append(in.Uses, []Reg{a, c}[gi%2])
				gi++
			}
		}
		for _, s := range info.Defs {
			cl := s.Class
			if cl == ClassNone {
				cl = GPR
			}
			in.Defs = append(in.Defs, f.NewVReg(cl))
		}
		if info.HasMem {
			in.Scale = 1
		}
		if info.HasImm {
			in.Imm = 1
		}
		if op == OpTRAPCC {
			in.Aux, in.Cond = int32(bytecode.TrapOutOfBounds), CondB // 7 < 3 does not hold
		}
		switch op {
		case OpMEMMOVE: // 7 bytes at the memory's start, onto themselves
			in.Uses[0], in.Uses[1] = base, base
		case OpMEMFILL:
			in.Uses[0] = base
		}
		b.Append(in)
		s := f.NewVReg(GPR)
		b.Append(irtCond(irtI(OpSETCC, irtR(s)), CondB))
		b.Append(irtI(OpRET, nil, s))
		m := irtMachine(t, []*Func{f}, interp.Config{})
		m.Counters[0] = make([]uint64, 1)
		m.Globals, m.Table = make([]uint64, 1), make([]uint64, 8)
		got, err := irtCall(m, 0, 7, 3, irtF(1.5), irtF(2.5))
		switch {
		case !info.WritesFlags:
			if err != nil || got[0] != 0 {
				t.Errorf("%s: %v %v; flags of CMPQ should survive", op, got, err)
			}
		case producers[op]:
			if err != nil {
				t.Errorf("%s: %v; it defines the flags", op, err)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), "left undefined by b0[6] ("+op.String()+")") {
				t.Errorf("%s: %v %v; it leaves the flags undefined", op, got, err)
			}
		}
	}
}
