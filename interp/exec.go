package interp

import (
	"encoding/binary"
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

const signBit = 1 << 63

// inBounds reports whether an access of size bytes at ea fits in mem.
func inBounds(mem []byte, ea, size uint64) bool {
	n := uint64(len(mem))
	return ea < n && n-ea >= size
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
	results    []uint64
	mem        []byte // m.Memory.Bytes, refreshed when it may have moved
}

// enter makes function fn with registers at base the current one.
func (st *execState) enter(m *Machine, fn, base int) {
	st.fn, st.f, st.base = fn, m.prog.funcs[fn], base
	st.code = unsafe.Pointer(unsafe.SliceData(st.f.code))
	st.cnt = unsafe.Pointer(unsafe.SliceData(m.Counters[fn]))
}

// pc returns the bytecode offset of in.
func (st *execState) pc(in *inst) int {
	return int(uintptr(unsafe.Pointer(in))-uintptr(st.code)) / instSize
}

// reg returns the register at byte offset off of the window regs.
func reg(regs unsafe.Pointer, off uint32) *uint64 { return (*uint64)(unsafe.Add(regs, off)) }

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
func (m *Machine) exec(fn, base, framesBase int, results []uint64) error {
	st := &execState{framesBase: framesBase, results: results}
	st.enter(m, fn, base)
	regs := m.window(base)
	in := (*inst)(st.code)
	st.mem = m.Memory.Bytes

	for {
		switch in.op {
		case iConst:
			*reg(regs, in.d) = uint64(in.imm)
		case iMov:
			*reg(regs, in.d) = *reg(regs, in.a)

		case iAdd:
			*reg(regs, in.d) = *reg(regs, in.a) + *reg(regs, in.b)
		case iSub:
			*reg(regs, in.d) = *reg(regs, in.a) - *reg(regs, in.b)
		case iMul:
			*reg(regs, in.d) = *reg(regs, in.a) * *reg(regs, in.b)
		case iDivS:
			a, b := int64(*reg(regs, in.a)), int64(*reg(regs, in.b))
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
			}
			if b == -1 && a == math.MinInt64 {
				return m.trap(bytecode.TrapIntegerOverflow, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(a / b)
		case iDivU:
			b := *reg(regs, in.b)
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = *reg(regs, in.a) / b
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
		case iRemU:
			b := *reg(regs, in.b)
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = *reg(regs, in.a) % b
		case iAnd:
			*reg(regs, in.d) = *reg(regs, in.a) & *reg(regs, in.b)
		case iOr:
			*reg(regs, in.d) = *reg(regs, in.a) | *reg(regs, in.b)
		case iXor:
			*reg(regs, in.d) = *reg(regs, in.a) ^ *reg(regs, in.b)
		case iShl:
			*reg(regs, in.d) = *reg(regs, in.a) << (*reg(regs, in.b) & 63)
		case iShrS:
			*reg(regs, in.d) = uint64(int64(*reg(regs, in.a)) >> (*reg(regs, in.b) & 63))
		case iShrU:
			*reg(regs, in.d) = *reg(regs, in.a) >> (*reg(regs, in.b) & 63)
		case iRotl:
			*reg(regs, in.d) = bits.RotateLeft64(*reg(regs, in.a), int(*reg(regs, in.b)&63))
		case iRotr:
			*reg(regs, in.d) = bits.RotateLeft64(*reg(regs, in.a), -int(*reg(regs, in.b)&63))

		case iAddI:
			*reg(regs, in.d) = *reg(regs, in.a) + uint64(in.imm)
		case iSubI:
			*reg(regs, in.d) = *reg(regs, in.a) - uint64(in.imm)
		case iMulI:
			*reg(regs, in.d) = *reg(regs, in.a) * uint64(in.imm)
		case iDivSI:
			a, b := int64(*reg(regs, in.a)), in.imm
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
			}
			if b == -1 && a == math.MinInt64 {
				return m.trap(bytecode.TrapIntegerOverflow, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(a / b)
		case iDivUI:
			b := uint64(in.imm)
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = *reg(regs, in.a) / b
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
		case iRemUI:
			b := uint64(in.imm)
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = *reg(regs, in.a) % b
		case iAndI:
			*reg(regs, in.d) = *reg(regs, in.a) & uint64(in.imm)
		case iOrI:
			*reg(regs, in.d) = *reg(regs, in.a) | uint64(in.imm)
		case iXorI:
			*reg(regs, in.d) = *reg(regs, in.a) ^ uint64(in.imm)
		case iShlI:
			*reg(regs, in.d) = *reg(regs, in.a) << (uint64(in.imm) & 63)
		case iShrSI:
			*reg(regs, in.d) = uint64(int64(*reg(regs, in.a)) >> (uint64(in.imm) & 63))
		case iShrUI:
			*reg(regs, in.d) = *reg(regs, in.a) >> (uint64(in.imm) & 63)
		case iRotlI:
			*reg(regs, in.d) = bits.RotateLeft64(*reg(regs, in.a), int(in.imm&63))
		case iRotrI:
			*reg(regs, in.d) = bits.RotateLeft64(*reg(regs, in.a), -int(in.imm&63))

		case iNeg:
			*reg(regs, in.d) = -*reg(regs, in.a)
		case iNot:
			*reg(regs, in.d) = ^*reg(regs, in.a)
		case iClz:
			*reg(regs, in.d) = uint64(bits.LeadingZeros64(*reg(regs, in.a)))
		case iCtz:
			*reg(regs, in.d) = uint64(bits.TrailingZeros64(*reg(regs, in.a)))
		case iPopcnt:
			*reg(regs, in.d) = uint64(bits.OnesCount64(*reg(regs, in.a)))
		case iExt8S:
			*reg(regs, in.d) = uint64(int64(int8(*reg(regs, in.a))))
		case iExt16S:
			*reg(regs, in.d) = uint64(int64(int16(*reg(regs, in.a))))
		case iExt32S:
			*reg(regs, in.d) = uint64(int64(int32(*reg(regs, in.a))))
		case iExt32U:
			*reg(regs, in.d) = uint64(uint32(*reg(regs, in.a)))

		case iEq:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) == *reg(regs, in.b))
		case iNe:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) != *reg(regs, in.b))
		case iLtS:
			*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) < int64(*reg(regs, in.b)))
		case iLtU:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) < *reg(regs, in.b))
		case iLeS:
			*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) <= int64(*reg(regs, in.b)))
		case iLeU:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) <= *reg(regs, in.b))
		case iGtS:
			*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) > int64(*reg(regs, in.b)))
		case iGtU:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) > *reg(regs, in.b))
		case iGeS:
			*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) >= int64(*reg(regs, in.b)))
		case iGeU:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) >= *reg(regs, in.b))

		case iEqI:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) == uint64(in.imm))
		case iNeI:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) != uint64(in.imm))
		case iLtSI:
			*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) < in.imm)
		case iLtUI:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) < uint64(in.imm))
		case iLeSI:
			*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) <= in.imm)
		case iLeUI:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) <= uint64(in.imm))
		case iGtSI:
			*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) > in.imm)
		case iGtUI:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) > uint64(in.imm))
		case iGeSI:
			*reg(regs, in.d) = b2u(int64(*reg(regs, in.a)) >= in.imm)
		case iGeUI:
			*reg(regs, in.d) = b2u(*reg(regs, in.a) >= uint64(in.imm))

		case iSelect:
			if *reg(regs, in.a) != 0 {
				*reg(regs, in.d) = *reg(regs, in.b)
			} else {
				*reg(regs, in.d) = *reg(regs, in.c)
			}

		case iFAdd:
			*reg(regs, in.d) = u64(f64(*reg(regs, in.a)) + f64(*reg(regs, in.b)))
		case iFSub:
			*reg(regs, in.d) = u64(f64(*reg(regs, in.a)) - f64(*reg(regs, in.b)))
		case iFMul:
			*reg(regs, in.d) = u64(f64(*reg(regs, in.a)) * f64(*reg(regs, in.b)))
		case iFDiv:
			*reg(regs, in.d) = u64(f64(*reg(regs, in.a)) / f64(*reg(regs, in.b)))
		case iFMin:
			*reg(regs, in.d) = u64(min(f64(*reg(regs, in.a)), f64(*reg(regs, in.b))))
		case iFMax:
			*reg(regs, in.d) = u64(max(f64(*reg(regs, in.a)), f64(*reg(regs, in.b))))
		case iFCopysign:
			*reg(regs, in.d) = *reg(regs, in.a)&^signBit | *reg(regs, in.b)&signBit
		case iFSqrt:
			*reg(regs, in.d) = u64(math.Sqrt(f64(*reg(regs, in.a))))
		case iFNeg:
			*reg(regs, in.d) = *reg(regs, in.a) ^ signBit
		case iFAbs:
			*reg(regs, in.d) = *reg(regs, in.a) &^ signBit
		case iFFloor:
			*reg(regs, in.d) = u64(math.Floor(f64(*reg(regs, in.a))))
		case iFCeil:
			*reg(regs, in.d) = u64(math.Ceil(f64(*reg(regs, in.a))))
		case iFTrunc:
			*reg(regs, in.d) = u64(math.Trunc(f64(*reg(regs, in.a))))
		case iFNearest:
			*reg(regs, in.d) = u64(math.RoundToEven(f64(*reg(regs, in.a))))
		case iFEq:
			*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) == f64(*reg(regs, in.b)))
		case iFNe:
			*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) != f64(*reg(regs, in.b)))
		case iFLt:
			*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) < f64(*reg(regs, in.b)))
		case iFLe:
			*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) <= f64(*reg(regs, in.b)))
		case iFGt:
			*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) > f64(*reg(regs, in.b)))
		case iFGe:
			*reg(regs, in.d) = b2u(f64(*reg(regs, in.a)) >= f64(*reg(regs, in.b)))

		case iConvS:
			*reg(regs, in.d) = u64(float64(int64(*reg(regs, in.a))))
		case iConvU:
			*reg(regs, in.d) = u64(float64(*reg(regs, in.a)))
		case iTruncS:
			v, kind := TruncS(f64(*reg(regs, in.a)))
			if kind != bytecode.TrapNone {
				return m.trap(kind, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(v)
		case iTruncU:
			v, kind := TruncU(f64(*reg(regs, in.a)))
			if kind != bytecode.TrapNone {
				return m.trap(kind, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = v
		case iTruncSatS:
			*reg(regs, in.d) = uint64(TruncSatS(f64(*reg(regs, in.a))))
		case iTruncSatU:
			*reg(regs, in.d) = TruncSatU(f64(*reg(regs, in.a)))

		case iLoad8S:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 1) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(int64(int8(st.mem[ea])))
		case iLoad8U:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 1) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(st.mem[ea])
		case iLoad16S:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 2) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(int64(int16(binary.LittleEndian.Uint16(st.mem[ea:]))))
		case iLoad16U:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 2) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(binary.LittleEndian.Uint16(st.mem[ea:]))
		case iLoad32S:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 4) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(int64(int32(binary.LittleEndian.Uint32(st.mem[ea:]))))
		case iLoad32U:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 4) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = uint64(binary.LittleEndian.Uint32(st.mem[ea:]))
		case iLoad64:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 8) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			*reg(regs, in.d) = binary.LittleEndian.Uint64(st.mem[ea:])
		case iStore8:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 1) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			st.mem[ea] = byte(*reg(regs, in.b))
		case iStore16:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 2) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			binary.LittleEndian.PutUint16(st.mem[ea:], uint16(*reg(regs, in.b)))
		case iStore32:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 4) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			binary.LittleEndian.PutUint32(st.mem[ea:], uint32(*reg(regs, in.b)))
		case iStore64:
			ea := *reg(regs, in.a) + uint64(in.imm)
			if !inBounds(st.mem, ea, 8) {
				return m.trap(bytecode.TrapOutOfBounds, st.fn, st.pc(in))
			}
			binary.LittleEndian.PutUint64(st.mem[ea:], *reg(regs, in.b))
		case iMemSize:
			*reg(regs, in.d) = uint64(len(st.mem)) / bytecode.PageSize
		case iMemGrow:
			*reg(regs, in.d) = uint64(m.Memory.Grow(*reg(regs, in.a)))
			st.mem = m.Memory.Bytes

		case iJump:
			count(st.cnt, in.c)
			if in.back {
				if m.poll.Budget--; m.poll.Budget < 0 {
					if err := m.pollAt(st.fn, st.pc(in)); err != nil {
						return err
					}
				}
			}
			in = (*inst)(unsafe.Add(st.code, in.d))
			continue
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
				}
			}
			in = (*inst)(unsafe.Add(st.code, target*instSize))
			continue

		case iCall:
			if m.poll.Budget--; m.poll.Budget < 0 {
				if err := m.pollAt(st.fn, st.pc(in)); err != nil {
					return err
				}
			}
			if len(m.frames)+m.active >= m.cfg.MaxCallDepth {
				return m.trap(bytecode.TrapStackOverflow, st.fn, st.pc(in))
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
			m.frames = append(m.frames, frame{fn: int32(st.fn), pc: int32(st.pc(in)), base: int32(st.base)})
			st.enter(m, int(in.a), newBase)
			regs = callRegs
			count(st.cnt, 0)
			in = (*inst)(st.code)
			continue

		case iCallHost:
			f := st.f
			args := f.lists[in.imm : in.imm+int64(in.b)]
			res := f.lists[in.imm+int64(in.b) : in.imm+int64(in.b)+int64(in.c)]
			top := st.base + f.nregs
			if !m.ensureStack(top + len(args) + len(res)) {
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

		case iRet:
			vals := st.f.lists[in.imm : in.imm+int64(in.b)]
			if len(m.frames) == st.framesBase {
				for i, r := range vals {
					st.results[i] = *reg(regs, r)
				}
				return nil
			}
			fr := m.frames[len(m.frames)-1]
			m.frames = m.frames[:len(m.frames)-1]
			st.enter(m, int(fr.fn), int(fr.base))
			callerRegs := m.window(st.base)
			in = (*inst)(unsafe.Add(st.code, int(fr.pc)*instSize))
			dsts := st.f.lists[in.imm+int64(in.b) : in.imm+int64(in.b)+int64(in.c)]
			for i, r := range vals {
				*reg(callerRegs, dsts[i]) = *reg(regs, r)
			}
			regs = callerRegs
		case iTrap:
			t := m.trap(bytecode.TrapExplicit, st.fn, st.pc(in))
			t.Code = in.imm
			return t

		default:
			return m.trap(bytecode.TrapNone, st.fn, st.pc(in))
		}
		in = (*inst)(unsafe.Add(unsafe.Pointer(in), instSize))
		continue

	taken:
		count(st.cnt, in.c)
		if in.back {
			if m.poll.Budget--; m.poll.Budget < 0 {
				if err := m.pollAt(st.fn, st.pc(in)); err != nil {
					return err
				}
			}
		}
		in = (*inst)(unsafe.Add(st.code, in.d))
		continue
	notTaken:
		count(st.cnt, in.c+8)
		in = (*inst)(unsafe.Add(unsafe.Pointer(in), instSize))
	}
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

// TruncS converts x to int64 with truncation, reporting the trap a trapping
// conversion raises for NaN and out-of-range values.
func TruncS(x float64) (int64, bytecode.TrapKind) {
	if x != x {
		return 0, bytecode.TrapInvalidConversion
	}
	t := math.Trunc(x)
	if t < -9223372036854775808.0 || t >= 9223372036854775808.0 {
		return 0, bytecode.TrapIntegerOverflow
	}
	return int64(t), bytecode.TrapNone
}

// TruncU converts x to uint64 with truncation, reporting the trap a trapping
// conversion raises for NaN and out-of-range values.
func TruncU(x float64) (uint64, bytecode.TrapKind) {
	if x != x {
		return 0, bytecode.TrapInvalidConversion
	}
	t := math.Trunc(x)
	if t < 0 || t >= 18446744073709551616.0 {
		return 0, bytecode.TrapIntegerOverflow
	}
	return uint64(t), bytecode.TrapNone
}

// TruncSatS converts x to int64 with truncation, saturating at the bounds
// and giving 0 for NaN.
func TruncSatS(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x <= -9223372036854775808.0:
		return math.MinInt64
	case x >= 9223372036854775808.0:
		return math.MaxInt64
	}
	return int64(x)
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
