package interp

import (
	"github.com/kiln-jit/kiln/internal/floatbits"
	"math"
	"math/bits"
	"unsafe"

	"github.com/kiln-jit/kiln/bytecode"
)

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func f64(v uint64) float64 { return math.Float64frombits(v) }
func u64(v float64) uint64 { return math.Float64bits(v) }

// f32 reads the f32 in the low half of a register; u32f makes the
// zero-extended register value of an f32.
func f32(v uint64) float32  { return math.Float32frombits(uint32(v)) }
func u32f(v float32) uint64 { return uint64(math.Float32bits(v)) }

const (
	signBit   = 1 << 63
	signBit32 = 1 << 31
)

// inBounds reports whether an access of size bytes at ea fits in mem.
func inBounds(mem []byte, ea, size uint64) bool {
	n := uint64(len(mem))
	return ea < n && n-ea >= size
}

// rangeInBounds reports whether the n bytes from address a on lie in mem
// (n may be 0, and a then at most len(mem)).
func rangeInBounds(mem []byte, a, n uint64) bool {
	l := uint64(len(mem))
	return a <= l && l-a >= n
}

// fill sets every byte of b to v.
func fill(b []byte, v byte) {
	if v == 0 {
		clear(b)
		return
	}
	for i := range b {
		b[i] = v
	}
}

// at returns the address of mem[ea] without a bounds check: the caller
// has checked the access with inBounds. Loads and stores assemble their
// little-endian values byte by byte from it, which the compiler turns
// into single loads and stores.
func at(mem []byte, ea uint64) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(mem)), ea)
}

// le16 reads the little-endian uint16 at p.
func le16(p unsafe.Pointer) uint16 {
	b := (*[2]byte)(p)
	return uint16(b[0]) | uint16(b[1])<<8
}

// execState is the part of exec's state that changes only on calls and
// returns. It lives in memory (exec takes its address), so the dispatch
// loop keeps just the instruction pointer, the register window and the
// machine in registers instead of spilling a dozen variables per
// instruction.
type execState struct {
	fn         int
	f          *funcCode
	base       int
	code       unsafe.Pointer // &f.code[0]
	cnt        unsafe.Pointer // &m.Counters[fn][0]
	framesBase int
	// stop is the length of m.frames at which the frame exec started with
	// returns from exec, relative to the innermost chunk of frames (below
	// zero while the frames are in a chunk above the one it started in);
	// depthBase is what the depth of the innermost frame adds to
	// len(m.frames). Both change when the innermost chunk does (rebase).
	stop, depthBase int
	results         []uint64
	mem             []byte // m.Memory.Bytes, refreshed when it may have moved
}

// enter makes function fn with registers at base the current one. (Calls
// and returns in exec spell the same assignments out: exec is too large
// for the compiler to inline a function of this cost into it.)
func (st *execState) enter(m *Machine, fn, base int) {
	st.fn, st.f, st.base = fn, m.prog.funcs[fn], base
	st.code = unsafe.Pointer(unsafe.SliceData(st.f.code))
	st.cnt = unsafe.Pointer(unsafe.SliceData(m.Counters[fn]))
}

// rebase recomputes stop and depthBase for the innermost chunk of frames.
func (st *execState) rebase(m *Machine) {
	st.stop = st.framesBase - m.framesBelow
	st.depthBase = m.framesBelow + m.active + m.extDepth
}

// pc returns the bytecode offset of in.
func (st *execState) pc(in *inst) int {
	return int(uintptr(unsafe.Pointer(in))-uintptr(st.code)) / instSize
}

// reg returns the register at byte offset off of the window regs.
func reg(regs unsafe.Pointer, off uint32) *uint64 { return (*uint64)(unsafe.Add(regs, off)) }

// next returns the instruction after in.
func next(in *inst) *inst { return (*inst)(unsafe.Add(unsafe.Pointer(in), instSize)) }

// count increments the counter at byte offset off.
func count(cnt unsafe.Pointer, off uint32) { *(*uint64)(unsafe.Add(cnt, off))++ }

// window returns the register window starting at slot base.
func (m *Machine) window(base int) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(m.stack)), base*8)
}

// exec is the dispatch loop. It runs function fn, whose registers start at
// stack slot base, until it returns (writing its results to results) or
// traps. Frames of calls made from here are pushed above framesBase.
//
// Operands were checked by the verifier and pre-scaled by decodeFunc
// (registers and counters to byte offsets, targets to instruction byte
// offsets), so the loop addresses registers, counters and code with
// unchecked pointer arithmetic. Linear memory accesses are checked
// explicitly.
//
// Every case ends by moving in and jumping back to loop itself, instead of
// leaving the switch for a shared "in = next(in)" tail: with one tail
// block for all cases, the register allocator takes that block's register
// assignment from one of its many predecessors, which may have moved
// values aside for its own needs, and then every instruction pays for
// moves of the instruction pointer and the register window between
// registers (and an addition of a case changes which predecessor that
// is). Jumping straight to loop keeps them where the function entry put
// them.
//
// exec is over the size at which the compiler lowers the inlining budget
// of the functions it calls to a few expression nodes: a helper used on a
// hot path must be as small as reg, count or inBounds, or be written out
// (as the multi-byte loads and stores are, instead of calling
// encoding/binary). Check with go build -gcflags=-m.
func (m *Machine) exec(fn, base, framesBase int, results []uint64) error {
	st := &execState{framesBase: framesBase, results: results}
	st.rebase(m)
	st.enter(m, fn, base)
	regs := m.window(base)
	in := (*inst)(st.code)
	st.mem = m.Memory.Bytes
	// The operands of a float operation whose result is a NaN: its case
	// jumps to nan64 or nan32, out of the hot path, for the NaN rule.
	var nanA, nanB uint64

loop:
	switch in.op {
	case iConst:
		*reg(regs, in.d) = uint64(in.imm)
		in = next(in)
		goto loop
	case iMov:
		*reg(regs, in.d) = *reg(regs, in.a)
		in = next(in)
		goto loop

	case iAdd:
		*reg(regs, in.d) = *reg(regs, in.a) + *reg(regs, in.b)
		in = next(in)
		goto loop
	case iSub:
		*reg(regs, in.d) = *reg(regs, in.a) - *reg(regs, in.b)
		in = next(in)
		goto loop
	case iMul:
		*reg(regs, in.d) = *reg(regs, in.a) * *reg(regs, in.b)
		in = next(in)
		goto loop
	case iDivS:
		a, b := int64(*reg(regs, in.a)), int64(*reg(regs, in.b))
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		if b == -1 && a == math.MinInt64 {
			return m.trap(bytecode.TrapIntegerOverflow, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(a / b)
		in = next(in)
		goto loop
	case iDivU:
		b := *reg(regs, in.b)
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = *reg(regs, in.a) / b
		in = next(in)
		goto loop
	case iRemS:
		a, b := int64(*reg(regs, in.a)), int64(*reg(regs, in.b))
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		if b == -1 {
			*reg(regs, in.d) = 0
		} else {
			*reg(regs, in.d) = uint64(a % b)
		}
		in = next(in)
		goto loop
	case iRemU:
		b := *reg(regs, in.b)
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = *reg(regs, in.a) % b
		in = next(in)
		goto loop
	case iAnd:
		*reg(regs, in.d) = *reg(regs, in.a) & *reg(regs, in.b)
		in = next(in)
		goto loop
	case iOr:
		*reg(regs, in.d) = *reg(regs, in.a) | *reg(regs, in.b)
		in = next(in)
		goto loop
	case iXor:
		*reg(regs, in.d) = *reg(regs, in.a) ^ *reg(regs, in.b)
		in = next(in)
		goto loop
	case iShl:
		*reg(regs, in.d) = *reg(regs, in.a) << (*reg(regs, in.b) & 63)
		in = next(in)
		goto loop
	case iShrS:
		*reg(regs, in.d) = uint64(int64(*reg(regs, in.a)) >> (*reg(regs, in.b) & 63))
		in = next(in)
		goto loop
	case iShrU:
		*reg(regs, in.d) = *reg(regs, in.a) >> (*reg(regs, in.b) & 63)
		in = next(in)
		goto loop
	case iRotl:
		*reg(regs, in.d) = bits.RotateLeft64(*reg(regs, in.a), int(*reg(regs, in.b)&63))
		in = next(in)
		goto loop
	case iRotr:
		*reg(regs, in.d) = bits.RotateLeft64(*reg(regs, in.a), -int(*reg(regs, in.b)&63))
		in = next(in)
		goto loop

	case iAddI:
		*reg(regs, in.d) = *reg(regs, in.a) + uint64(in.imm)
		in = next(in)
		goto loop
	case iSubI:
		*reg(regs, in.d) = *reg(regs, in.a) - uint64(in.imm)
		in = next(in)
		goto loop
	case iMulI:
		*reg(regs, in.d) = *reg(regs, in.a) * uint64(in.imm)
		in = next(in)
		goto loop
	case iDivSI:
		a, b := int64(*reg(regs, in.a)), in.imm
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		if b == -1 && a == math.MinInt64 {
			return m.trap(bytecode.TrapIntegerOverflow, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(a / b)
		in = next(in)
		goto loop
	case iDivUI:
		b := uint64(in.imm)
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = *reg(regs, in.a) / b
		in = next(in)
		goto loop
	case iRemSI:
		a, b := int64(*reg(regs, in.a)), in.imm
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		if b == -1 {
			*reg(regs, in.d) = 0
		} else {
			*reg(regs, in.d) = uint64(a % b)
		}
		in = next(in)
		goto loop
	case iRemUI:
		b := uint64(in.imm)
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = *reg(regs, in.a) % b
		in = next(in)
		goto loop
	case iAndI:
		*reg(regs, in.d) = *reg(regs, in.a) & uint64(in.imm)
		in = next(in)
		goto loop
	case iOrI:
		*reg(regs, in.d) = *reg(regs, in.a) | uint64(in.imm)
		in = next(in)
		goto loop
	case iXorI:
		*reg(regs, in.d) = *reg(regs, in.a) ^ uint64(in.imm)
		in = next(in)
		goto loop
	case iShlI:
		*reg(regs, in.d) = *reg(regs, in.a) << (uint64(in.imm) & 63)
		in = next(in)
		goto loop
	case iShrSI:
		*reg(regs, in.d) = uint64(int64(*reg(regs, in.a)) >> (uint64(in.imm) & 63))
		in = next(in)
		goto loop
	case iShrUI:
		*reg(regs, in.d) = *reg(regs, in.a) >> (uint64(in.imm) & 63)
		in = next(in)
		goto loop
	case iRotlI:
		*reg(regs, in.d) = bits.RotateLeft64(*reg(regs, in.a), int(in.imm&63))
		in = next(in)
		goto loop
	case iRotrI:
		*reg(regs, in.d) = bits.RotateLeft64(*reg(regs, in.a), -int(in.imm&63))
		in = next(in)
		goto loop

	case iNeg:
		*reg(regs, in.d) = -*reg(regs, in.a)
		in = next(in)
		goto loop
	case iNot:
		*reg(regs, in.d) = ^*reg(regs, in.a)
		in = next(in)
		goto loop
	case iClz:
		*reg(regs, in.d) = uint64(bits.LeadingZeros64(*reg(regs, in.a)))
		in = next(in)
		goto loop
	case iCtz:
		*reg(regs, in.d) = uint64(bits.TrailingZeros64(*reg(regs, in.a)))
		in = next(in)
		goto loop
	case iPopcnt:
		*reg(regs, in.d) = uint64(bits.OnesCount64(*reg(regs, in.a)))
		in = next(in)
		goto loop
	case iExt8S:
		*reg(regs, in.d) = uint64(int64(int8(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iExt16S:
		*reg(regs, in.d) = uint64(int64(int16(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iExt32S:
		*reg(regs, in.d) = uint64(int64(int32(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iExt32U:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a)))
		in = next(in)
		goto loop

	case iEq:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) == *reg(regs, in.b))
		in = next(in)
		goto loop
	case iNe:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) != *reg(regs, in.b))
		in = next(in)
		goto loop
	case iLtS:
		*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) < int64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iLtU:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) < *reg(regs, in.b))
		in = next(in)
		goto loop
	case iLeS:
		*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) <= int64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iLeU:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) <= *reg(regs, in.b))
		in = next(in)
		goto loop
	case iGtS:
		*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) > int64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iGtU:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) > *reg(regs, in.b))
		in = next(in)
		goto loop
	case iGeS:
		*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) >= int64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iGeU:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) >= *reg(regs, in.b))
		in = next(in)
		goto loop

	case iEqI:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) == uint64(in.imm))
		in = next(in)
		goto loop
	case iNeI:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) != uint64(in.imm))
		in = next(in)
		goto loop
	case iLtSI:
		*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) < in.imm)
		in = next(in)
		goto loop
	case iLtUI:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) < uint64(in.imm))
		in = next(in)
		goto loop
	case iLeSI:
		*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) <= in.imm)
		in = next(in)
		goto loop
	case iLeUI:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) <= uint64(in.imm))
		in = next(in)
		goto loop
	case iGtSI:
		*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) > in.imm)
		in = next(in)
		goto loop
	case iGtUI:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) > uint64(in.imm))
		in = next(in)
		goto loop
	case iGeSI:
		*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) >= in.imm)
		in = next(in)
		goto loop
	case iGeUI:
		*reg(regs, in.d) = b2u(*reg(regs, in.a) >= uint64(in.imm))
		in = next(in)
		goto loop

	case iSelect:
		if *reg(regs, in.a) != 0 {
			*reg(regs, in.d) = *reg(regs, in.b)
		} else {
			*reg(regs, in.d) = *reg(regs, in.c)
		}
		in = next(in)
		goto loop

	case iFAdd:
		a, b := *reg(regs, in.a), *reg(regs, in.b)
		r := f64(a) + f64(b)
		if r != r {
			nanA, nanB = a, b
			goto nan64
		}
		*reg(regs, in.d) = u64(r)
		in = next(in)
		goto loop
	case iFSub:
		a, b := *reg(regs, in.a), *reg(regs, in.b)
		r := f64(a) - f64(b)
		if r != r {
			nanA, nanB = a, b
			goto nan64
		}
		*reg(regs, in.d) = u64(r)
		in = next(in)
		goto loop
	case iFMul:
		a, b := *reg(regs, in.a), *reg(regs, in.b)
		r := f64(a) * f64(b)
		if r != r {
			nanA, nanB = a, b
			goto nan64
		}
		*reg(regs, in.d) = u64(r)
		in = next(in)
		goto loop
	case iFDiv:
		a, b := *reg(regs, in.a), *reg(regs, in.b)
		r := f64(a) / f64(b)
		if r != r {
			nanA, nanB = a, b
			goto nan64
		}
		*reg(regs, in.d) = u64(r)
		in = next(in)
		goto loop
	case iFMin:
		*reg(regs, in.d) = floatbits.Min64(*reg(regs, in.a), *reg(regs, in.b))
		in = next(in)
		goto loop
	case iFMax:
		*reg(regs, in.d) = floatbits.Max64(*reg(regs, in.a), *reg(regs, in.b))
		in = next(in)
		goto loop
	case iFCopysign:
		*reg(regs, in.d) = *reg(regs, in.a)&^signBit | *reg(regs, in.b)&signBit
		in = next(in)
		goto loop
	case iFSqrt:
		*reg(regs, in.d) = floatbits.Sqrt64(*reg(regs, in.a))
		in = next(in)
		goto loop
	case iFNeg:
		*reg(regs, in.d) = *reg(regs, in.a) ^ signBit
		in = next(in)
		goto loop
	case iFAbs:
		*reg(regs, in.d) = *reg(regs, in.a) &^ signBit
		in = next(in)
		goto loop
	case iFFloor:
		*reg(regs, in.d) = floatbits.Round64(*reg(regs, in.a), floatbits.Floor)
		in = next(in)
		goto loop
	case iFCeil:
		*reg(regs, in.d) = floatbits.Round64(*reg(regs, in.a), floatbits.Ceil)
		in = next(in)
		goto loop
	case iFTrunc:
		*reg(regs, in.d) = floatbits.Round64(*reg(regs, in.a), floatbits.Trunc)
		in = next(in)
		goto loop
	case iFNearest:
		*reg(regs, in.d) = floatbits.Round64(*reg(regs, in.a), floatbits.Nearest)
		in = next(in)
		goto loop
	case iFEq:
		*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) == f64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iFNe:
		*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) != f64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iFLt:
		*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) < f64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iFLe:
		*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) <= f64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iFGt:
		*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) > f64(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iFGe:
		*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) >= f64(*reg(regs, in.b)))
		in = next(in)
		goto loop

	case iConvS:
		*reg(regs, in.d) = u64(float64(int64(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iConvU:
		*reg(regs, in.d) = u64(float64(*reg(regs, in.a)))
		in = next(in)
		goto loop
	case iTruncS:
		x := f64(*reg(regs, in.a))
		if !fitsS64(x) {
			return m.trap(truncTrap(x), st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(int64(x))
		in = next(in)
		goto loop
	case iTruncU:
		x := f64(*reg(regs, in.a))
		if !fitsU64(x) {
			return m.trap(truncTrap(x), st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(x)
		in = next(in)
		goto loop
	case iTruncSatS:
		*reg(regs, in.d) = uint64(TruncSatS(f64(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iTruncSatU:
		*reg(regs, in.d) = TruncSatU(f64(*reg(regs, in.a)))
		in = next(in)
		goto loop

	case iLoad8S:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 1) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(int64(int8(*(*byte)(at(st.mem, ea)))))
		in = next(in)
		goto loop
	case iLoad8U:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 1) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(*(*byte)(at(st.mem, ea)))
		in = next(in)
		goto loop
	case iLoad16S:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 2) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(int64(int16(le16(at(st.mem, ea)))))
		in = next(in)
		goto loop
	case iLoad16U:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 2) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(le16(at(st.mem, ea)))
		in = next(in)
		goto loop
	case iLoad32S:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 4) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		b := (*[4]byte)(at(st.mem, ea))
		*reg(regs, in.d) = uint64(int64(int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)))
		in = next(in)
		goto loop
	case iLoad32U:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 4) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		b := (*[4]byte)(at(st.mem, ea))
		*reg(regs, in.d) = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
		in = next(in)
		goto loop
	case iLoad64:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 8) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		b := (*[8]byte)(at(st.mem, ea))
		*reg(regs, in.d) = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		in = next(in)
		goto loop
	case iStore8:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 1) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		*(*byte)(at(st.mem, ea)) = byte(*reg(regs, in.b))
		in = next(in)
		goto loop
	case iStore16:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 2) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		b, v := (*[2]byte)(at(st.mem, ea)), *reg(regs, in.b)
		b[0], b[1] = byte(v), byte(v>>8)
		in = next(in)
		goto loop
	case iStore32:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 4) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		b, v := (*[4]byte)(at(st.mem, ea)), *reg(regs, in.b)
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		in = next(in)
		goto loop
	case iStore64:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 8) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		b, v := (*[8]byte)(at(st.mem, ea)), *reg(regs, in.b)
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		b[4], b[5], b[6], b[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
		in = next(in)
		goto loop
	case iMemSize:
		*reg(regs, in.d) = uint64(len(st.mem)) / bytecode.PageSize
		in = next(in)
		goto loop
	case iMemGrow:
		*reg(regs, in.d) = uint64(m.Memory.Grow(*reg(regs, in.a)))
		st.mem = m.Memory.Bytes
		in = next(in)
		goto loop

	case iJump:
		count(st.cnt, in.c)
		if in.back {
			if m.poll.Budget--; m.poll.Budget < 0 {
				if err := m.pollAt(st.fn, st.pc(in)); err != nil {
					return err
				}
				if m.OSR != nil {
					if done, err := m.osr(st, regs, int(in.d)/instSize); err != nil {
						return err
					} else if done {
						goto osrReturn
					}
				}
			}
		}
		in = (*inst)(unsafe.Add(st.code, in.d))
		goto loop
	case iBrIf:
		if *reg(regs, in.a) != 0 {
			goto taken
		}
		goto notTaken
	case iBrEq:
		if *reg(regs, in.a) == *reg(regs, in.b) {
			goto taken
		}
		goto notTaken
	case iBrNe:
		if *reg(regs, in.a) != *reg(regs, in.b) {
			goto taken
		}
		goto notTaken
	case iBrLtS:
		if int64(*reg(regs, in.a)) < int64(*reg(regs, in.b)) {
			goto taken
		}
		goto notTaken
	case iBrLtU:
		if *reg(regs, in.a) < *reg(regs, in.b) {
			goto taken
		}
		goto notTaken
	case iBrLeS:
		if int64(*reg(regs, in.a)) <= int64(*reg(regs, in.b)) {
			goto taken
		}
		goto notTaken
	case iBrLeU:
		if *reg(regs, in.a) <= *reg(regs, in.b) {
			goto taken
		}
		goto notTaken
	case iBrGtS:
		if int64(*reg(regs, in.a)) > int64(*reg(regs, in.b)) {
			goto taken
		}
		goto notTaken
	case iBrGtU:
		if *reg(regs, in.a) > *reg(regs, in.b) {
			goto taken
		}
		goto notTaken
	case iBrGeS:
		if int64(*reg(regs, in.a)) >= int64(*reg(regs, in.b)) {
			goto taken
		}
		goto notTaken
	case iBrGeU:
		if *reg(regs, in.a) >= *reg(regs, in.b) {
			goto taken
		}
		goto notTaken
	case iBrEqI:
		if *reg(regs, in.a) == uint64(in.imm) {
			goto taken
		}
		goto notTaken
	case iBrNeI:
		if *reg(regs, in.a) != uint64(in.imm) {
			goto taken
		}
		goto notTaken
	case iBrLtSI:
		if int64(*reg(regs, in.a)) < in.imm {
			goto taken
		}
		goto notTaken
	case iBrLtUI:
		if *reg(regs, in.a) < uint64(in.imm) {
			goto taken
		}
		goto notTaken
	case iBrLeSI:
		if int64(*reg(regs, in.a)) <= in.imm {
			goto taken
		}
		goto notTaken
	case iBrLeUI:
		if *reg(regs, in.a) <= uint64(in.imm) {
			goto taken
		}
		goto notTaken
	case iBrGtSI:
		if int64(*reg(regs, in.a)) > in.imm {
			goto taken
		}
		goto notTaken
	case iBrGtUI:
		if *reg(regs, in.a) > uint64(in.imm) {
			goto taken
		}
		goto notTaken
	case iBrGeSI:
		if int64(*reg(regs, in.a)) >= in.imm {
			goto taken
		}
		goto notTaken
	case iBrGeUI:
		if *reg(regs, in.a) >= uint64(in.imm) {
			goto taken
		}
		goto notTaken

	case iSwitch:
		idx := *reg(regs, in.a)
		var target int
		if idx < uint64(in.b) {
			count(st.cnt, in.c+uint32(idx)*8)
			target = int(st.f.lists[uint64(in.imm)+idx])
		} else {
			count(st.cnt, in.c+in.b*8)
			target = int(in.d) / instSize
		}
		if target <= st.pc(in) {
			if m.poll.Budget--; m.poll.Budget < 0 {
				if err := m.pollAt(st.fn, st.pc(in)); err != nil {
					return err
				}
				if m.OSR != nil {
					if done, err := m.osr(st, regs, target); err != nil {
						return err
					} else if done {
						goto osrReturn
					}
				}
			}
		}
		in = (*inst)(unsafe.Add(st.code, target*instSize))
		goto loop

	case iCall:
		if m.poll.Budget--; m.poll.Budget < 0 {
			if err := m.pollAt(st.fn, st.pc(in)); err != nil {
				return err
			}
		}
		if len(m.frames)+st.depthBase >= m.cfg.MaxCallDepth {
			return m.trap(bytecode.TrapStackOverflow, st.fn, st.pc(in))
		}
		if m.external != nil && m.external[in.a] {
			if err := m.callExternal(st, in, int(in.a)); err != nil {
				return err
			}
			regs = m.window(st.base)
			st.mem = m.Memory.Bytes
			in = next(in)
			goto loop
		}
		f := st.f
		callee := m.prog.funcs[in.a]
		newBase := st.base + f.nregs
		if newBase+callee.nregs >= len(m.stack) {
			if !m.ensureStack(newBase + callee.nregs) {
				return m.trap(bytecode.TrapStackOverflow, st.fn, st.pc(in))
			}
			regs = m.window(st.base)
		}
		callRegs := m.window(newBase)
		args := f.lists[in.imm : in.imm+int64(in.b)]
		for i, r := range args {
			*reg(callRegs, uint32(i*8)) = *reg(regs, r)
		}
		for i := len(args); i < callee.nregs; i++ {
			*reg(callRegs, uint32(i*8)) = 0
		}
		if len(m.frames) == cap(m.frames) {
			m.pushChunk()
			st.rebase(m)
		}
		m.frames = m.frames[:len(m.frames)+1]
		m.frames[len(m.frames)-1] = frame{fn: int32(st.fn), pc: int32(st.pc(in)), base: int32(st.base)}
		st.fn, st.f, st.base = int(in.a), callee, newBase
		st.code = unsafe.Pointer(unsafe.SliceData(callee.code))
		st.cnt = unsafe.Pointer(unsafe.SliceData(m.Counters[in.a]))
		regs = callRegs
		count(st.cnt, 0)
		in = (*inst)(st.code)
		goto loop

	case iCallHost:
		f := st.f
		args := f.lists[in.imm : in.imm+int64(in.b)]
		res := f.lists[in.imm+int64(in.b) : in.imm+int64(in.b)+int64(in.c)]
		top := st.base + f.nregs
		if n := top + len(args) + len(res); n >= len(m.stack) && !m.ensureStack(n) {
			return m.trap(bytecode.TrapStackOverflow, st.fn, st.pc(in))
		}
		regs = m.window(st.base)
		hostArgs := m.stack[top : top+len(args)]
		hostRes := m.stack[top+len(args) : top+len(args)+len(res)]
		for i, r := range args {
			hostArgs[i] = *reg(regs, r)
		}
		clear(hostRes)
		m.sp = top + len(args) + len(res)
		m.hostSite = int64(st.fn)<<32 | int64(st.pc(in))
		err := m.hosts[in.a](m.poll.ctx, hostArgs, hostRes)
		m.hostSite = -1
		if err != nil {
			t := m.trap(bytecode.TrapHostError, st.fn, st.pc(in))
			t.Cause = err
			return t
		}
		// The host may have called back into the machine, growing the
		// stack or the memory; hostRes still points at the slots it
		// wrote.
		regs = m.window(st.base)
		st.mem = m.Memory.Bytes
		for i, r := range res {
			*reg(regs, r) = hostRes[i]
		}
		if in.narrow {
			m.narrowHostResults(int(in.a), regs, res)
		}
		in = next(in)
		goto loop

	case iRet:
		vals := st.f.lists[in.imm : in.imm+int64(in.b)]
		if len(m.frames) == st.stop {
			for i, r := range vals {
				st.results[i] = *reg(regs, r)
			}
			return nil
		}
		if len(m.frames) == 0 {
			m.popChunk()
			st.rebase(m)
		}
		fr := m.frames[len(m.frames)-1]
		m.frames = m.frames[:len(m.frames)-1]
		st.fn, st.f, st.base = int(fr.fn), m.prog.funcs[fr.fn], int(fr.base)
		st.code = unsafe.Pointer(unsafe.SliceData(st.f.code))
		st.cnt = unsafe.Pointer(unsafe.SliceData(m.Counters[fr.fn]))
		callerRegs := m.window(st.base)
		in = (*inst)(unsafe.Add(st.code, int(fr.pc)*instSize))
		dsts := st.f.lists[in.imm+int64(in.b) : in.imm+int64(in.b)+int64(in.c)]
		for i, r := range vals {
			*reg(callerRegs, dsts[i]) = *reg(regs, r)
		}
		regs = callerRegs
		in = next(in)
		goto loop
	case iTrap:
		t := m.trap(bytecode.TrapExplicit, st.fn, st.pc(in))
		t.Code = in.imm
		return t
	case iUnreachable:
		return m.trap(bytecode.TrapUnreachable, st.fn, st.pc(in))
	case iMemCopy:
		d, s, n := *reg(regs, in.a), *reg(regs, in.b), *reg(regs, in.c)
		if !rangeInBounds(st.mem, d, n) || !rangeInBounds(st.mem, s, n) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		copy(st.mem[d:d+n], st.mem[s:s+n])
		in = next(in)
		goto loop
	case iMemFill:
		d, v, n := *reg(regs, in.a), byte(*reg(regs, in.b)), *reg(regs, in.c)
		if !rangeInBounds(st.mem, d, n) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		fill(st.mem[d:d+n], v)
		in = next(in)
		goto loop
	case iMemInit:
		if !m.segs.MemoryInit(st.mem, int(in.d), *reg(regs, in.a), *reg(regs, in.b), *reg(regs, in.c)) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		in = next(in)
		goto loop
	case iDataDrop:
		m.segs.DropData(int(in.d))
		in = next(in)
		goto loop
	case iTableGet, iTableSet, iTableSize, iTableGrow, iTableFill, iTableCopy, iTableInit, iElemDrop:
		if kind := m.tableOp(in, regs); kind != bytecode.TrapNone {
			return m.trap(kind, st.fn, st.pc(in))
		}
		in = next(in)
		goto loop

	case iGlobalGet:
		*reg(regs, in.d) = *reg(unsafe.Pointer(unsafe.SliceData(m.globals)), in.a)
		in = next(in)
		goto loop
	case iGlobalSet:
		*reg(unsafe.Pointer(unsafe.SliceData(m.globals)), in.d) = *reg(regs, in.a)
		in = next(in)
		goto loop

	case iCallIndirect:
		// As iCall, once the table entry is found and checked: an index
		// beyond the initialised entries or an entry whose signature id
		// differs (a null entry's never matches) takes indirectTrap's
		// slow path.
		if m.poll.Budget--; m.poll.Budget < 0 {
			if err := m.pollAt(st.fn, st.pc(in)); err != nil {
				return err
			}
		}
		idx := *reg(regs, in.a)
		var fn int
		if m.tables == nil {
			if idx >= uint64(len(m.table)) || m.table[idx].sig != in.d {
				return m.indirectTrap(st.fn, st.pc(in), idx, in.d)
			}
			fn = int(m.table[idx].fn)
		} else {
			var kind bytecode.TrapKind
			if fn, kind = m.tables.Callee(int(in.d>>sigBits), idx, in.d&(1<<sigBits-1)); kind != bytecode.TrapNone {
				return m.trap(kind, st.fn, st.pc(in))
			}
		}
		if len(m.frames)+st.depthBase >= m.cfg.MaxCallDepth {
			return m.trap(bytecode.TrapStackOverflow, st.fn, st.pc(in))
		}
		if m.external != nil && m.external[fn] {
			if err := m.callExternal(st, in, fn); err != nil {
				return err
			}
			regs = m.window(st.base)
			st.mem = m.Memory.Bytes
			in = next(in)
			goto loop
		}
		f := st.f
		callee := m.prog.funcs[fn]
		newBase := st.base + f.nregs
		if newBase+callee.nregs >= len(m.stack) {
			if !m.ensureStack(newBase + callee.nregs) {
				return m.trap(bytecode.TrapStackOverflow, st.fn, st.pc(in))
			}
			regs = m.window(st.base)
		}
		callRegs := m.window(newBase)
		args := f.lists[in.imm : in.imm+int64(in.b)]
		for i, r := range args {
			*reg(callRegs, uint32(i*8)) = *reg(regs, r)
		}
		for i := len(args); i < callee.nregs; i++ {
			*reg(callRegs, uint32(i*8)) = 0
		}
		if len(m.frames) == cap(m.frames) {
			m.pushChunk()
			st.rebase(m)
		}
		m.frames = m.frames[:len(m.frames)+1]
		m.frames[len(m.frames)-1] = frame{fn: int32(st.fn), pc: int32(st.pc(in)), base: int32(st.base)}
		st.fn, st.f, st.base = fn, callee, newBase
		st.code = unsafe.Pointer(unsafe.SliceData(callee.code))
		st.cnt = unsafe.Pointer(unsafe.SliceData(m.Counters[fn]))
		regs = callRegs
		count(st.cnt, 0)
		in = (*inst)(st.code)
		goto loop

	// The 32-bit types: every i32 or f32 result is written
	// zero-extended.
	case iAdd32:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a) + *reg(regs, in.b)))
		in = next(in)
		goto loop
	case iSub32:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a) - *reg(regs, in.b)))
		in = next(in)
		goto loop
	case iMul32:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a) * *reg(regs, in.b)))
		in = next(in)
		goto loop
	case iDivS32:
		a, b := int32(*reg(regs, in.a)), int32(*reg(regs, in.b))
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		if b == -1 && a == math.MinInt32 {
			return m.trap(bytecode.TrapIntegerOverflow, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(uint32(a / b))
		in = next(in)
		goto loop
	case iRemS32:
		a, b := int32(*reg(regs, in.a)), int32(*reg(regs, in.b))
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		if b == -1 {
			*reg(regs, in.d) = 0
		} else {
			*reg(regs, in.d) = uint64(uint32(a % b))
		}
		in = next(in)
		goto loop
	case iShl32:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a)) << (*reg(regs, in.b) & 31))
		in = next(in)
		goto loop
	case iShrS32:
		*reg(regs, in.d) = uint64(uint32(int32(*reg(regs, in.a)) >> (*reg(regs, in.b) & 31)))
		in = next(in)
		goto loop
	case iShrU32:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a)) >> (*reg(regs, in.b) & 31))
		in = next(in)
		goto loop
	case iRotl32:
		*reg(regs, in.d) = uint64(bits.RotateLeft32(uint32(*reg(regs, in.a)), int(*reg(regs, in.b)&31)))
		in = next(in)
		goto loop
	case iRotr32:
		*reg(regs, in.d) = uint64(bits.RotateLeft32(uint32(*reg(regs, in.a)), -int(*reg(regs, in.b)&31)))
		in = next(in)
		goto loop

	case iAdd32I:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a) + uint64(in.imm)))
		in = next(in)
		goto loop
	case iMul32I:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a) * uint64(in.imm)))
		in = next(in)
		goto loop
	case iDivS32I:
		a, b := int32(*reg(regs, in.a)), int32(in.imm)
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		if b == -1 && a == math.MinInt32 {
			return m.trap(bytecode.TrapIntegerOverflow, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(uint32(a / b))
		in = next(in)
		goto loop
	case iRemS32I:
		a, b := int32(*reg(regs, in.a)), int32(in.imm)
		if b == 0 {
			return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
		}
		if b == -1 {
			*reg(regs, in.d) = 0
		} else {
			*reg(regs, in.d) = uint64(uint32(a % b))
		}
		in = next(in)
		goto loop
	case iShl32I:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a)) << (uint64(in.imm) & 31))
		in = next(in)
		goto loop
	case iShrS32I:
		*reg(regs, in.d) = uint64(uint32(int32(*reg(regs, in.a)) >> (uint64(in.imm) & 31)))
		in = next(in)
		goto loop
	case iShrU32I:
		*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a)) >> (uint64(in.imm) & 31))
		in = next(in)
		goto loop
	case iRotl32I:
		*reg(regs, in.d) = uint64(bits.RotateLeft32(uint32(*reg(regs, in.a)), int(in.imm&31)))
		in = next(in)
		goto loop
	case iRotr32I:
		*reg(regs, in.d) = uint64(bits.RotateLeft32(uint32(*reg(regs, in.a)), -int(in.imm&31)))
		in = next(in)
		goto loop

	case iNeg32:
		*reg(regs, in.d) = uint64(-uint32(*reg(regs, in.a)))
		in = next(in)
		goto loop
	case iClz32:
		*reg(regs, in.d) = uint64(bits.LeadingZeros32(uint32(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iCtz32:
		*reg(regs, in.d) = uint64(bits.TrailingZeros32(uint32(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iExt8S32:
		*reg(regs, in.d) = uint64(uint32(int32(int8(*reg(regs, in.a)))))
		in = next(in)
		goto loop
	case iExt16S32:
		*reg(regs, in.d) = uint64(uint32(int32(int16(*reg(regs, in.a)))))
		in = next(in)
		goto loop

	case iLtS32:
		*reg(regs, in.d) = b2u(int32(*reg(regs, in.a)) < int32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iLeS32:
		*reg(regs, in.d) = b2u(int32(*reg(regs, in.a)) <= int32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iGtS32:
		*reg(regs, in.d) = b2u(int32(*reg(regs, in.a)) > int32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iGeS32:
		*reg(regs, in.d) = b2u(int32(*reg(regs, in.a)) >= int32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iLtS32I:
		*reg(regs, in.d) = b2u(int32(*reg(regs, in.a)) < int32(in.imm))
		in = next(in)
		goto loop
	case iLeS32I:
		*reg(regs, in.d) = b2u(int32(*reg(regs, in.a)) <= int32(in.imm))
		in = next(in)
		goto loop
	case iGtS32I:
		*reg(regs, in.d) = b2u(int32(*reg(regs, in.a)) > int32(in.imm))
		in = next(in)
		goto loop
	case iGeS32I:
		*reg(regs, in.d) = b2u(int32(*reg(regs, in.a)) >= int32(in.imm))
		in = next(in)
		goto loop
	case iBrLtS32:
		if int32(*reg(regs, in.a)) < int32(*reg(regs, in.b)) {
			goto taken
		}
		goto notTaken
	case iBrLeS32:
		if int32(*reg(regs, in.a)) <= int32(*reg(regs, in.b)) {
			goto taken
		}
		goto notTaken
	case iBrGtS32:
		if int32(*reg(regs, in.a)) > int32(*reg(regs, in.b)) {
			goto taken
		}
		goto notTaken
	case iBrGeS32:
		if int32(*reg(regs, in.a)) >= int32(*reg(regs, in.b)) {
			goto taken
		}
		goto notTaken
	case iBrLtS32I:
		if int32(*reg(regs, in.a)) < int32(in.imm) {
			goto taken
		}
		goto notTaken
	case iBrLeS32I:
		if int32(*reg(regs, in.a)) <= int32(in.imm) {
			goto taken
		}
		goto notTaken
	case iBrGtS32I:
		if int32(*reg(regs, in.a)) > int32(in.imm) {
			goto taken
		}
		goto notTaken
	case iBrGeS32I:
		if int32(*reg(regs, in.a)) >= int32(in.imm) {
			goto taken
		}
		goto notTaken

	case iF32Add:
		a, b := *reg(regs, in.a), *reg(regs, in.b)
		r := f32(a) + f32(b)
		if r != r {
			nanA, nanB = a, b
			goto nan32
		}
		*reg(regs, in.d) = u32f(r)
		in = next(in)
		goto loop
	case iF32Sub:
		a, b := *reg(regs, in.a), *reg(regs, in.b)
		r := f32(a) - f32(b)
		if r != r {
			nanA, nanB = a, b
			goto nan32
		}
		*reg(regs, in.d) = u32f(r)
		in = next(in)
		goto loop
	case iF32Mul:
		a, b := *reg(regs, in.a), *reg(regs, in.b)
		r := f32(a) * f32(b)
		if r != r {
			nanA, nanB = a, b
			goto nan32
		}
		*reg(regs, in.d) = u32f(r)
		in = next(in)
		goto loop
	case iF32Div:
		a, b := *reg(regs, in.a), *reg(regs, in.b)
		r := f32(a) / f32(b)
		if r != r {
			nanA, nanB = a, b
			goto nan32
		}
		*reg(regs, in.d) = u32f(r)
		in = next(in)
		goto loop
	case iF32Min:
		*reg(regs, in.d) = uint64(floatbits.Min32(uint32(*reg(regs, in.a)), uint32(*reg(regs, in.b))))
		in = next(in)
		goto loop
	case iF32Max:
		*reg(regs, in.d) = uint64(floatbits.Max32(uint32(*reg(regs, in.a)), uint32(*reg(regs, in.b))))
		in = next(in)
		goto loop
	case iF32Copysign:
		*reg(regs, in.d) = *reg(regs, in.a)&^signBit32 | *reg(regs, in.b)&signBit32
		in = next(in)
		goto loop
	case iF32Sqrt:
		*reg(regs, in.d) = uint64(floatbits.Sqrt32(uint32(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iF32Floor:
		*reg(regs, in.d) = uint64(floatbits.Round32(uint32(*reg(regs, in.a)), floatbits.Floor))
		in = next(in)
		goto loop
	case iF32Ceil:
		*reg(regs, in.d) = uint64(floatbits.Round32(uint32(*reg(regs, in.a)), floatbits.Ceil))
		in = next(in)
		goto loop
	case iF32Trunc:
		*reg(regs, in.d) = uint64(floatbits.Round32(uint32(*reg(regs, in.a)), floatbits.Trunc))
		in = next(in)
		goto loop
	case iF32Nearest:
		*reg(regs, in.d) = uint64(floatbits.Round32(uint32(*reg(regs, in.a)), floatbits.Nearest))
		in = next(in)
		goto loop
	case iF32Eq:
		*reg(regs, in.d) = b2u(f32(*reg(regs, in.a)) == f32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iF32Ne:
		*reg(regs, in.d) = b2u(f32(*reg(regs, in.a)) != f32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iF32Lt:
		*reg(regs, in.d) = b2u(f32(*reg(regs, in.a)) < f32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iF32Le:
		*reg(regs, in.d) = b2u(f32(*reg(regs, in.a)) <= f32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iF32Gt:
		*reg(regs, in.d) = b2u(f32(*reg(regs, in.a)) > f32(*reg(regs, in.b)))
		in = next(in)
		goto loop
	case iF32Ge:
		*reg(regs, in.d) = b2u(f32(*reg(regs, in.a)) >= f32(*reg(regs, in.b)))
		in = next(in)
		goto loop

	case iF32DemoteF64:
		*reg(regs, in.d) = uint64(floatbits.Demote(*reg(regs, in.a)))
		in = next(in)
		goto loop
	case iF64PromoteF32:
		*reg(regs, in.d) = floatbits.Promote(uint32(*reg(regs, in.a)))
		in = next(in)
		goto loop
	case iF32ConvI32S:
		*reg(regs, in.d) = u32f(float32(int32(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iF32ConvI64S:
		*reg(regs, in.d) = u32f(float32(int64(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iF32ConvI64U:
		*reg(regs, in.d) = u32f(float32(*reg(regs, in.a)))
		in = next(in)
		goto loop
	case iF64ConvI32S:
		*reg(regs, in.d) = u64(float64(int32(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iTruncS32:
		x := f64(*reg(regs, in.a))
		if !fitsS32(x) {
			return m.trap(truncTrap(x), st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(uint32(int32(x)))
		in = next(in)
		goto loop
	case iTruncU32:
		x := f64(*reg(regs, in.a))
		if !fitsU32(x) {
			return m.trap(truncTrap(x), st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(uint32(x))
		in = next(in)
		goto loop
	case iTruncS32F32:
		x := float64(f32(*reg(regs, in.a)))
		if !fitsS32(x) {
			return m.trap(truncTrap(x), st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(uint32(int32(x)))
		in = next(in)
		goto loop
	case iTruncU32F32:
		x := float64(f32(*reg(regs, in.a)))
		if !fitsU32(x) {
			return m.trap(truncTrap(x), st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(uint32(x))
		in = next(in)
		goto loop
	case iTruncSF32:
		x := float64(f32(*reg(regs, in.a)))
		if !fitsS64(x) {
			return m.trap(truncTrap(x), st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(int64(x))
		in = next(in)
		goto loop
	case iTruncUF32:
		x := float64(f32(*reg(regs, in.a)))
		if !fitsU64(x) {
			return m.trap(truncTrap(x), st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(x)
		in = next(in)
		goto loop
	case iTruncSatS32:
		*reg(regs, in.d) = uint64(uint32(TruncSatS32(f64(*reg(regs, in.a)))))
		in = next(in)
		goto loop
	case iTruncSatU32:
		*reg(regs, in.d) = uint64(TruncSatU32(f64(*reg(regs, in.a))))
		in = next(in)
		goto loop
	case iTruncSatS32F32:
		*reg(regs, in.d) = uint64(uint32(TruncSatS32(float64(f32(*reg(regs, in.a))))))
		in = next(in)
		goto loop
	case iTruncSatU32F32:
		*reg(regs, in.d) = uint64(TruncSatU32(float64(f32(*reg(regs, in.a)))))
		in = next(in)
		goto loop
	case iTruncSatSF32:
		*reg(regs, in.d) = uint64(TruncSatS(float64(f32(*reg(regs, in.a)))))
		in = next(in)
		goto loop
	case iTruncSatUF32:
		*reg(regs, in.d) = TruncSatU(float64(f32(*reg(regs, in.a))))
		in = next(in)
		goto loop

	case iLoad8S32:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 1) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(uint32(int32(int8(*(*byte)(at(st.mem, ea))))))
		in = next(in)
		goto loop
	case iLoad16S32:
		ea := *reg(regs, in.a) + uint64(in.imm)
		if !inBounds(st.mem, ea, 2) {
			return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
		}
		*reg(regs, in.d) = uint64(uint32(int32(int16(le16(at(st.mem, ea))))))
		in = next(in)
		goto loop
	case iMemGrow32:
		*reg(regs, in.d) = uint64(uint32(m.Memory.Grow(*reg(regs, in.a))))
		st.mem = m.Memory.Bytes
		in = next(in)
		goto loop

	default:
		return m.trap(bytecode.TrapNone, st.fn, st.pc(in))
	}

taken:
	count(st.cnt, in.c)
	if in.back {
		if m.poll.Budget--; m.poll.Budget < 0 {
			if err := m.pollAt(st.fn, st.pc(in)); err != nil {
				return err
			}
			if m.OSR != nil {
				if done, err := m.osr(st, regs, int(in.d)/instSize); err != nil {
					return err
				} else if done {
					goto osrReturn
				}
			}
		}
	}
	in = (*inst)(unsafe.Add(st.code, in.d))
	goto loop
osrReturn:
	// The frame's call finished in other code (Machine.OSR), which left
	// its results in m.osrResults: return them as iRet does.
	{
		vals := m.osrResults
		if len(m.frames) == st.stop {
			copy(st.results, vals)
			return nil
		}
		if len(m.frames) == 0 {
			m.popChunk()
			st.rebase(m)
		}
		fr := m.frames[len(m.frames)-1]
		m.frames = m.frames[:len(m.frames)-1]
		st.fn, st.f, st.base = int(fr.fn), m.prog.funcs[fr.fn], int(fr.base)
		st.code = unsafe.Pointer(unsafe.SliceData(st.f.code))
		st.cnt = unsafe.Pointer(unsafe.SliceData(m.Counters[fr.fn]))
		regs = m.window(st.base)
		st.mem = m.Memory.Bytes
		in = (*inst)(unsafe.Add(st.code, int(fr.pc)*instSize))
		dsts := st.f.lists[in.imm+int64(in.b) : in.imm+int64(in.b)+int64(in.c)]
		for i, v := range vals {
			*reg(regs, dsts[i]) = v
		}
		in = next(in)
		goto loop
	}
notTaken:
	count(st.cnt, in.c+8)
	in = next(in)
	goto loop
nan64:
	*reg(regs, in.d) = floatbits.NaN64(nanA, nanB)
	in = next(in)
	goto loop
nan32:
	*reg(regs, in.d) = uint64(floatbits.NaN32(uint32(nanA), uint32(nanB)))
	in = next(in)
	goto loop
}

// osr offers the current frame, about to continue at instruction header
// after a backward branch, to Machine.OSR; true means the hook ran the
// rest of the frame's call and put its results in m.osrResults.
func (m *Machine) osr(st *execState, regs unsafe.Pointer, header int) (bool, error) {
	f := st.f
	if cap(m.osrResults) < f.nres {
		m.osrResults = make([]uint64, f.nres)
	}
	results := m.osrResults[:f.nres]
	frame := unsafe.Slice((*uint64)(regs), f.nregs)
	// Calls back into the machine (a mixed module's interpreted
	// functions) set their frames up above this one, and may offer
	// frames of their own, which can replace the buffer: the results are
	// in this call's.
	m.sp = st.base + f.nregs
	done, err := m.OSR(st.fn, header, frame, m.depth(), results)
	m.osrResults = results
	return done, err
}

// pollAt runs the budget's slow path for the instruction at pc.
func (m *Machine) pollAt(fn, pc int) error {
	kind, cause := m.poll.Slow()
	if kind == bytecode.TrapNone {
		return nil
	}
	t := m.trap(kind, fn, pc)
	t.Cause = cause
	return t
}

// The float-to-integer conversions are small enough to inline into exec
// (see its comment); the trapping ones run there as a range check (fitsS64
// and the like) and truncTrap.

// fitsS64 reports whether x truncated toward zero is in the int64 range:
// no float64 lies strictly between -2^63-1 and -2^63. It is false for NaN.
func fitsS64(x float64) bool { return x >= -9223372036854775808.0 && x < 9223372036854775808.0 }

// fitsU64 reports whether x truncated toward zero is in the uint64 range.
// It is false for NaN.
func fitsU64(x float64) bool { return x > -1 && x < 18446744073709551616.0 }

// truncTrap returns the trap of a trapping conversion of x, which does not
// fit the result type: InvalidConversion for NaN, IntegerOverflow
// otherwise.
func truncTrap(x float64) bytecode.TrapKind {
	if x != x {
		return bytecode.TrapInvalidConversion
	}
	return bytecode.TrapIntegerOverflow
}

// TruncS converts x to int64 with truncation, reporting the trap a trapping
// conversion raises for NaN and out-of-range values.
func TruncS(x float64) (int64, bytecode.TrapKind) {
	if !fitsS64(x) {
		return 0, truncTrap(x)
	}
	return int64(x), bytecode.TrapNone
}

// TruncU converts x to uint64 with truncation, reporting the trap a trapping
// conversion raises for NaN and out-of-range values.
func TruncU(x float64) (uint64, bytecode.TrapKind) {
	if !fitsU64(x) {
		return 0, truncTrap(x)
	}
	return uint64(x), bytecode.TrapNone
}

// TruncSatS converts x to int64 with truncation, saturating at the bounds
// and giving 0 for NaN.
func TruncSatS(x float64) int64 {
	if x != x {
		return 0
	}
	if x >= 9223372036854775808.0 {
		return math.MaxInt64
	}
	return int64(max(x, -9223372036854775808.0))
}

// TruncSatU converts x to uint64 with truncation, saturating at the bounds
// and giving 0 for NaN.
func TruncSatU(x float64) uint64 {
	switch {
	case x != x || x <= 0:
		return 0
	case x >= 18446744073709551616.0:
		return math.MaxUint64
	}
	return uint64(x)
}

// callExternal makes the call in, of function fn, which runs outside the
// machine (SetExternal): it passes the arguments and writes the results
// as a call that returns does. The caller refreshes its register window
// and memory view afterwards.
func (m *Machine) callExternal(st *execState, in *inst, fn int) error {
	f := st.f
	args := f.lists[in.imm : in.imm+int64(in.b)]
	dsts := f.lists[in.imm+int64(in.b) : in.imm+int64(in.b)+int64(in.c)]
	top := st.base + f.nregs
	if n := top + len(args) + len(dsts); n >= len(m.stack) && !m.ensureStack(n) {
		return m.trap(bytecode.TrapStackOverflow, st.fn, st.pc(in))
	}
	regs := m.window(st.base)
	callArgs := m.stack[top : top+len(args)]
	results := m.stack[top+len(args) : top+len(args)+len(dsts)]
	for i, r := range args {
		callArgs[i] = *reg(regs, r)
	}
	clear(results)
	// Calls back into the machine set their frames up above the words
	// just taken.
	m.sp = top + len(args) + len(dsts)
	if err := m.callOut(fn, callArgs, results, m.depth()+1); err != nil {
		return err
	}
	// A call back into the machine may have moved the stack: results
	// still points at the words the callee wrote.
	regs = m.window(st.base)
	for i, r := range dsts {
		*reg(regs, r) = results[i]
	}
	return nil
}
