package interp

import (
	"encoding/binary"
	"math"
	"math/bits"

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

// exec is the dispatch loop. It runs function fn, whose registers start at
// stack slot base, until it returns (writing its results to results) or
// traps. Frames of calls made from here are pushed above framesBase.
func (m *Machine) exec(fn, base, framesBase int, results []uint64) error {
	prog := m.prog
	f := prog.funcs[fn]
	code := f.code
	regs := m.stack[base : base+f.nregs]
	cnt := m.Counters[fn]
	mem := m.Memory.Bytes
	pc := 0

	for {
		in := &code[pc]
		switch in.op {
		case iConst:
			regs[in.d] = uint64(in.imm)
		case iMov:
			regs[in.d] = regs[in.a]

		case iAdd:
			regs[in.d] = regs[in.a] + regs[in.b]
		case iSub:
			regs[in.d] = regs[in.a] - regs[in.b]
		case iMul:
			regs[in.d] = regs[in.a] * regs[in.b]
		case iDivS:
			a, b := int64(regs[in.a]), int64(regs[in.b])
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, fn, pc)
			}
			if b == -1 && a == math.MinInt64 {
				return m.trap(bytecode.TrapIntegerOverflow, fn, pc)
			}
			regs[in.d] = uint64(a / b)
		case iDivU:
			b := regs[in.b]
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, fn, pc)
			}
			regs[in.d] = regs[in.a] / b
		case iRemS:
			a, b := int64(regs[in.a]), int64(regs[in.b])
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, fn, pc)
			}
			if b == -1 {
				regs[in.d] = 0
			} else {
				regs[in.d] = uint64(a % b)
			}
		case iRemU:
			b := regs[in.b]
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, fn, pc)
			}
			regs[in.d] = regs[in.a] % b
		case iAnd:
			regs[in.d] = regs[in.a] & regs[in.b]
		case iOr:
			regs[in.d] = regs[in.a] | regs[in.b]
		case iXor:
			regs[in.d] = regs[in.a] ^ regs[in.b]
		case iShl:
			regs[in.d] = regs[in.a] << (regs[in.b] & 63)
		case iShrS:
			regs[in.d] = uint64(int64(regs[in.a]) >> (regs[in.b] & 63))
		case iShrU:
			regs[in.d] = regs[in.a] >> (regs[in.b] & 63)
		case iRotl:
			regs[in.d] = bits.RotateLeft64(regs[in.a], int(regs[in.b]&63))
		case iRotr:
			regs[in.d] = bits.RotateLeft64(regs[in.a], -int(regs[in.b]&63))

		case iAddI:
			regs[in.d] = regs[in.a] + uint64(in.imm)
		case iSubI:
			regs[in.d] = regs[in.a] - uint64(in.imm)
		case iMulI:
			regs[in.d] = regs[in.a] * uint64(in.imm)
		case iDivSI:
			a, b := int64(regs[in.a]), in.imm
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, fn, pc)
			}
			if b == -1 && a == math.MinInt64 {
				return m.trap(bytecode.TrapIntegerOverflow, fn, pc)
			}
			regs[in.d] = uint64(a / b)
		case iDivUI:
			b := uint64(in.imm)
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, fn, pc)
			}
			regs[in.d] = regs[in.a] / b
		case iRemSI:
			a, b := int64(regs[in.a]), in.imm
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, fn, pc)
			}
			if b == -1 {
				regs[in.d] = 0
			} else {
				regs[in.d] = uint64(a % b)
			}
		case iRemUI:
			b := uint64(in.imm)
			if b == 0 {
				return m.trap(bytecode.TrapDivideByZero, fn, pc)
			}
			regs[in.d] = regs[in.a] % b
		case iAndI:
			regs[in.d] = regs[in.a] & uint64(in.imm)
		case iOrI:
			regs[in.d] = regs[in.a] | uint64(in.imm)
		case iXorI:
			regs[in.d] = regs[in.a] ^ uint64(in.imm)
		case iShlI:
			regs[in.d] = regs[in.a] << (uint64(in.imm) & 63)
		case iShrSI:
			regs[in.d] = uint64(int64(regs[in.a]) >> (uint64(in.imm) & 63))
		case iShrUI:
			regs[in.d] = regs[in.a] >> (uint64(in.imm) & 63)
		case iRotlI:
			regs[in.d] = bits.RotateLeft64(regs[in.a], int(in.imm&63))
		case iRotrI:
			regs[in.d] = bits.RotateLeft64(regs[in.a], -int(in.imm&63))

		case iNeg:
			regs[in.d] = -regs[in.a]
		case iNot:
			regs[in.d] = ^regs[in.a]
		case iClz:
			regs[in.d] = uint64(bits.LeadingZeros64(regs[in.a]))
		case iCtz:
			regs[in.d] = uint64(bits.TrailingZeros64(regs[in.a]))
		case iPopcnt:
			regs[in.d] = uint64(bits.OnesCount64(regs[in.a]))
		case iExt8S:
			regs[in.d] = uint64(int64(int8(regs[in.a])))
		case iExt16S:
			regs[in.d] = uint64(int64(int16(regs[in.a])))
		case iExt32S:
			regs[in.d] = uint64(int64(int32(regs[in.a])))
		case iExt32U:
			regs[in.d] = uint64(uint32(regs[in.a]))

		case iEq:
			regs[in.d] = b2u(regs[in.a] == regs[in.b])
		case iNe:
			regs[in.d] = b2u(regs[in.a] != regs[in.b])
		case iLtS:
			regs[in.d] = b2u(int64(regs[in.a]) < int64(regs[in.b]))
		case iLtU:
			regs[in.d] = b2u(regs[in.a] < regs[in.b])
		case iLeS:
			regs[in.d] = b2u(int64(regs[in.a]) <= int64(regs[in.b]))
		case iLeU:
			regs[in.d] = b2u(regs[in.a] <= regs[in.b])
		case iGtS:
			regs[in.d] = b2u(int64(regs[in.a]) > int64(regs[in.b]))
		case iGtU:
			regs[in.d] = b2u(regs[in.a] > regs[in.b])
		case iGeS:
			regs[in.d] = b2u(int64(regs[in.a]) >= int64(regs[in.b]))
		case iGeU:
			regs[in.d] = b2u(regs[in.a] >= regs[in.b])

		case iEqI:
			regs[in.d] = b2u(regs[in.a] == uint64(in.imm))
		case iNeI:
			regs[in.d] = b2u(regs[in.a] != uint64(in.imm))
		case iLtSI:
			regs[in.d] = b2u(int64(regs[in.a]) < in.imm)
		case iLtUI:
			regs[in.d] = b2u(regs[in.a] < uint64(in.imm))
		case iLeSI:
			regs[in.d] = b2u(int64(regs[in.a]) <= in.imm)
		case iLeUI:
			regs[in.d] = b2u(regs[in.a] <= uint64(in.imm))
		case iGtSI:
			regs[in.d] = b2u(int64(regs[in.a]) > in.imm)
		case iGtUI:
			regs[in.d] = b2u(regs[in.a] > uint64(in.imm))
		case iGeSI:
			regs[in.d] = b2u(int64(regs[in.a]) >= in.imm)
		case iGeUI:
			regs[in.d] = b2u(regs[in.a] >= uint64(in.imm))

		case iSelect:
			if regs[in.a] != 0 {
				regs[in.d] = regs[in.b]
			} else {
				regs[in.d] = regs[in.c]
			}

		case iFAdd:
			regs[in.d] = u64(f64(regs[in.a]) + f64(regs[in.b]))
		case iFSub:
			regs[in.d] = u64(f64(regs[in.a]) - f64(regs[in.b]))
		case iFMul:
			regs[in.d] = u64(f64(regs[in.a]) * f64(regs[in.b]))
		case iFDiv:
			regs[in.d] = u64(f64(regs[in.a]) / f64(regs[in.b]))
		case iFMin:
			regs[in.d] = u64(min(f64(regs[in.a]), f64(regs[in.b])))
		case iFMax:
			regs[in.d] = u64(max(f64(regs[in.a]), f64(regs[in.b])))
		case iFCopysign:
			regs[in.d] = regs[in.a]&^signBit | regs[in.b]&signBit
		case iFSqrt:
			regs[in.d] = u64(math.Sqrt(f64(regs[in.a])))
		case iFNeg:
			regs[in.d] = regs[in.a] ^ signBit
		case iFAbs:
			regs[in.d] = regs[in.a] &^ signBit
		case iFFloor:
			regs[in.d] = u64(math.Floor(f64(regs[in.a])))
		case iFCeil:
			regs[in.d] = u64(math.Ceil(f64(regs[in.a])))
		case iFTrunc:
			regs[in.d] = u64(math.Trunc(f64(regs[in.a])))
		case iFNearest:
			regs[in.d] = u64(math.RoundToEven(f64(regs[in.a])))
		case iFEq:
			regs[in.d] = b2u(f64(regs[in.a]) == f64(regs[in.b]))
		case iFNe:
			regs[in.d] = b2u(f64(regs[in.a]) != f64(regs[in.b]))
		case iFLt:
			regs[in.d] = b2u(f64(regs[in.a]) < f64(regs[in.b]))
		case iFLe:
			regs[in.d] = b2u(f64(regs[in.a]) <= f64(regs[in.b]))
		case iFGt:
			regs[in.d] = b2u(f64(regs[in.a]) > f64(regs[in.b]))
		case iFGe:
			regs[in.d] = b2u(f64(regs[in.a]) >= f64(regs[in.b]))

		case iConvS:
			regs[in.d] = u64(float64(int64(regs[in.a])))
		case iConvU:
			regs[in.d] = u64(float64(regs[in.a]))
		case iTruncS:
			v, kind := TruncS(f64(regs[in.a]))
			if kind != bytecode.TrapNone {
				return m.trap(kind, fn, pc)
			}
			regs[in.d] = uint64(v)
		case iTruncU:
			v, kind := TruncU(f64(regs[in.a]))
			if kind != bytecode.TrapNone {
				return m.trap(kind, fn, pc)
			}
			regs[in.d] = v
		case iTruncSatS:
			regs[in.d] = uint64(TruncSatS(f64(regs[in.a])))
		case iTruncSatU:
			regs[in.d] = TruncSatU(f64(regs[in.a]))

		case iLoad8S:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 1) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			regs[in.d] = uint64(int64(int8(mem[ea])))
		case iLoad8U:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 1) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			regs[in.d] = uint64(mem[ea])
		case iLoad16S:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 2) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			regs[in.d] = uint64(int64(int16(binary.LittleEndian.Uint16(mem[ea:]))))
		case iLoad16U:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 2) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			regs[in.d] = uint64(binary.LittleEndian.Uint16(mem[ea:]))
		case iLoad32S:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 4) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			regs[in.d] = uint64(int64(int32(binary.LittleEndian.Uint32(mem[ea:]))))
		case iLoad32U:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 4) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			regs[in.d] = uint64(binary.LittleEndian.Uint32(mem[ea:]))
		case iLoad64:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 8) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			regs[in.d] = binary.LittleEndian.Uint64(mem[ea:])
		case iStore8:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 1) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			mem[ea] = byte(regs[in.b])
		case iStore16:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 2) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			binary.LittleEndian.PutUint16(mem[ea:], uint16(regs[in.b]))
		case iStore32:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 4) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			binary.LittleEndian.PutUint32(mem[ea:], uint32(regs[in.b]))
		case iStore64:
			ea := regs[in.a] + uint64(in.imm)
			if !inBounds(mem, ea, 8) {
				return m.trap(bytecode.TrapOutOfBounds, fn, pc)
			}
			binary.LittleEndian.PutUint64(mem[ea:], regs[in.b])
		case iMemSize:
			regs[in.d] = uint64(len(mem)) / bytecode.PageSize
		case iMemGrow:
			regs[in.d] = uint64(m.Memory.Grow(regs[in.a]))
			mem = m.Memory.Bytes

		case iJump:
			cnt[in.c]++
			if int(in.d) <= pc {
				if m.budget--; m.budget < 0 {
					if err := m.pollAt(fn, pc); err != nil {
						return err
					}
				}
			}
			pc = int(in.d)
			continue
		case iBrIf:
			if regs[in.a] != 0 {
				goto taken
			}
			goto notTaken
		case iBrEq:
			if regs[in.a] == regs[in.b] {
				goto taken
			}
			goto notTaken
		case iBrNe:
			if regs[in.a] != regs[in.b] {
				goto taken
			}
			goto notTaken
		case iBrLtS:
			if int64(regs[in.a]) < int64(regs[in.b]) {
				goto taken
			}
			goto notTaken
		case iBrLtU:
			if regs[in.a] < regs[in.b] {
				goto taken
			}
			goto notTaken
		case iBrLeS:
			if int64(regs[in.a]) <= int64(regs[in.b]) {
				goto taken
			}
			goto notTaken
		case iBrLeU:
			if regs[in.a] <= regs[in.b] {
				goto taken
			}
			goto notTaken
		case iBrGtS:
			if int64(regs[in.a]) > int64(regs[in.b]) {
				goto taken
			}
			goto notTaken
		case iBrGtU:
			if regs[in.a] > regs[in.b] {
				goto taken
			}
			goto notTaken
		case iBrGeS:
			if int64(regs[in.a]) >= int64(regs[in.b]) {
				goto taken
			}
			goto notTaken
		case iBrGeU:
			if regs[in.a] >= regs[in.b] {
				goto taken
			}
			goto notTaken
		case iBrEqI:
			if regs[in.a] == uint64(in.imm) {
				goto taken
			}
			goto notTaken
		case iBrNeI:
			if regs[in.a] != uint64(in.imm) {
				goto taken
			}
			goto notTaken
		case iBrLtSI:
			if int64(regs[in.a]) < in.imm {
				goto taken
			}
			goto notTaken
		case iBrLtUI:
			if regs[in.a] < uint64(in.imm) {
				goto taken
			}
			goto notTaken
		case iBrLeSI:
			if int64(regs[in.a]) <= in.imm {
				goto taken
			}
			goto notTaken
		case iBrLeUI:
			if regs[in.a] <= uint64(in.imm) {
				goto taken
			}
			goto notTaken
		case iBrGtSI:
			if int64(regs[in.a]) > in.imm {
				goto taken
			}
			goto notTaken
		case iBrGtUI:
			if regs[in.a] > uint64(in.imm) {
				goto taken
			}
			goto notTaken
		case iBrGeSI:
			if int64(regs[in.a]) >= in.imm {
				goto taken
			}
			goto notTaken
		case iBrGeUI:
			if regs[in.a] >= uint64(in.imm) {
				goto taken
			}
			goto notTaken

		case iSwitch:
			idx := regs[in.a]
			var target int
			if idx < uint64(in.b) {
				cnt[uint64(in.c)+idx]++
				target = int(f.lists[uint64(in.imm)+idx])
			} else {
				cnt[in.c+in.b]++
				target = int(in.d)
			}
			if target <= pc {
				if m.budget--; m.budget < 0 {
					if err := m.pollAt(fn, pc); err != nil {
						return err
					}
				}
			}
			pc = target
			continue

		case iCall:
			if m.budget--; m.budget < 0 {
				if err := m.pollAt(fn, pc); err != nil {
					return err
				}
			}
			if len(m.frames)+m.active >= m.cfg.MaxCallDepth {
				return m.trap(bytecode.TrapStackOverflow, fn, pc)
			}
			callee := prog.funcs[in.a]
			newBase := base + f.nregs
			need := newBase + callee.nregs
			if need > len(m.stack) {
				if !m.ensureStack(need) {
					return m.trap(bytecode.TrapStackOverflow, fn, pc)
				}
				regs = m.stack[base : base+f.nregs]
			}
			args := f.lists[in.imm : in.imm+int64(in.b)]
			callRegs := m.stack[newBase:need]
			for i, r := range args {
				callRegs[i] = regs[r]
			}
			clear(callRegs[len(args):])
			m.frames = append(m.frames, frame{fn: int32(fn), pc: int32(pc), base: int32(base)})
			fn, f, base, pc = int(in.a), callee, newBase, 0
			code, regs, cnt = f.code, callRegs, m.Counters[fn]
			cnt[0]++
			continue

		case iCallHost:
			args := f.lists[in.imm : in.imm+int64(in.b)]
			res := f.lists[in.imm+int64(in.b) : in.imm+int64(in.b)+int64(in.c)]
			top := base + f.nregs
			if !m.ensureStack(top + len(args) + len(res)) {
				return m.trap(bytecode.TrapStackOverflow, fn, pc)
			}
			regs = m.stack[base : base+f.nregs]
			hostArgs := m.stack[top : top+len(args)]
			hostRes := m.stack[top+len(args) : top+len(args)+len(res)]
			for i, r := range args {
				hostArgs[i] = regs[r]
			}
			clear(hostRes)
			m.sp = top + len(args) + len(res)
			if err := m.hosts[in.a](m.ctx, hostArgs, hostRes); err != nil {
				t := m.trap(bytecode.TrapHostError, fn, pc)
				t.Cause = err
				return t
			}
			// The host may have called back into the machine, growing the
			// stack or the memory; hostRes still points at the slots it
			// wrote.
			regs = m.stack[base : base+f.nregs]
			mem = m.Memory.Bytes
			for i, r := range res {
				regs[r] = hostRes[i]
			}

		case iRet:
			vals := f.lists[in.imm : in.imm+int64(in.b)]
			if len(m.frames) == framesBase {
				for i, r := range vals {
					results[i] = regs[r]
				}
				return nil
			}
			fr := m.frames[len(m.frames)-1]
			m.frames = m.frames[:len(m.frames)-1]
			fn, base, pc = int(fr.fn), int(fr.base), int(fr.pc)
			f = prog.funcs[fn]
			code, cnt = f.code, m.Counters[fn]
			callerRegs := m.stack[base : base+f.nregs]
			call := &code[pc]
			dsts := f.lists[call.imm+int64(call.b) : call.imm+int64(call.b)+int64(call.c)]
			for i, r := range vals {
				callerRegs[dsts[i]] = regs[r]
			}
			regs = callerRegs
		case iTrap:
			t := m.trap(bytecode.TrapExplicit, fn, pc)
			t.Code = in.imm
			return t

		default:
			return m.trap(bytecode.TrapNone, fn, pc)
		}
		pc++
		continue

	taken:
		cnt[in.c]++
		if int(in.d) <= pc {
			if m.budget--; m.budget < 0 {
				if err := m.pollAt(fn, pc); err != nil {
					return err
				}
			}
		}
		pc = int(in.d)
		continue
	notTaken:
		cnt[in.c+1]++
		pc++
	}
}

// pollAt runs the budget's slow path for the instruction at pc.
func (m *Machine) pollAt(fn, pc int) error {
	m.budget = 0
	kind, cause := m.poll()
	if kind == bytecode.TrapNone {
		m.budget--
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
