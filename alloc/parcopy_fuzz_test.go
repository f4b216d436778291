package alloc

import (
	"testing"

	"github.com/kiln-jit/kiln/mir"
)

// pcFuzzPool lists the locations the fuzzer draws from: the GPRs but the
// scratch, the stack pointer and the context register, the XMM registers
// but the scratch, stack slots 0..15, and outgoing and incoming
// stack-argument slots 0..3.
var pcFuzzPool = func() []mir.Reg {
	var pool []mir.Reg
	for r := range mir.Reg(mir.NumPhysRegs) {
		if r != mir.RSP && r != mir.CtxReg && !r.IsScratch() {
			pool = append(pool, r)
		}
	}
	for i := range 16 {
		pool = append(pool, mir.SlotReg(i))
	}
	for i := range 4 {
		pool = append(pool, mir.OutArgReg(i), mir.InArgReg(i))
	}
	return pool
}()

// pcDecode turns fuzz input into a parallel copy.
//
// Byte 0: bits 0-5 give the number of locations (1..40, mod 40); bit 6
// keeps cross-class moves and may inject one invalid operand (so the copy
// may be invalid); bit 7 shuffles the moves. Then one byte per location
// picks it from the pool (the next unused one on a collision), and one
// byte per location picks its source among the locations (or none). The
// remaining bytes drive the shuffle and the injection.
func pcDecode(data []byte) []Move {
	if len(data) == 0 {
		return nil
	}
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	head := next()
	n := int(head&63)%40 + 1
	keepInvalid, shuffle := head&64 != 0, head&128 != 0
	used := make(map[mir.Reg]bool)
	locs := make([]mir.Reg, n)
	for i := range locs {
		k := int(next()) % len(pcFuzzPool)
		for used[pcFuzzPool[k]] {
			k = (k + 1) % len(pcFuzzPool)
		}
		locs[i] = pcFuzzPool[k]
		used[locs[i]] = true
	}
	var moves []Move
	for _, d := range locs {
		// A source for about 7 locations in 8.
		b := int(next())
		if b%8 == 7 {
			continue
		}
		m := Move{Dst: d, Src: locs[(b/8)%n]}
		if !keepInvalid && m.Dst.IsPhys() && m.Src.IsPhys() && m.Dst.Class() != m.Src.Class() {
			continue
		}
		moves = append(moves, m)
	}
	if shuffle {
		for i := len(moves) - 1; i > 0; i-- {
			j := int(next()) % (i + 1)
			moves[i], moves[j] = moves[j], moves[i]
		}
	}
	if keepInvalid && len(moves) > 0 {
		b := next()
		i := int(next()) % len(moves)
		switch b % 8 {
		case 1:
			moves[i].Dst = mir.ScratchGPR
		case 2:
			moves[i].Src = mir.ScratchXMM
		case 3:
			moves[i].Src = mir.VReg(int(b))
		case 4:
			moves[i].Dst = mir.NoReg
		case 5:
			moves = append(moves, Move{Dst: moves[i].Dst, Src: moves[0].Src})
		case 6:
			moves[i].Src = mir.Reg(mir.NumPhysRegs + int(b))
		}
	}
	return moves
}

func FuzzSequentialize(f *testing.F) {
	// Byte 0, then location picks, then source picks (8*j picks location
	// j; 7 is none).
	f.Add([]byte{2, 0, 1, 8, 0})                                       // rax <-> rcx
	f.Add([]byte{3, 0, 1, 2, 8, 16, 0})                                // GPR 3-cycle
	f.Add([]byte{2, 14, 15, 8, 0})                                     // XMM 2-cycle
	f.Add([]byte{2, 28, 29, 8, 0})                                     // slot 2-cycle
	f.Add([]byte{3, 0, 28, 1, 8, 16, 0})                               // rax <- s0 <- rcx <- rax
	f.Add([]byte{3, 0, 1, 2, 8, 0, 0})                                 // cycle and fan-out
	f.Add([]byte{4, 0, 1, 2, 3, 8, 16, 24, 7})                         // chain
	f.Add([]byte{4, 28, 29, 30, 44, 8, 16, 24, 0})                     // memory 4-cycle
	f.Add([]byte{5, 28, 29, 30, 14, 0, 8, 0, 0, 0, 0})                 // memory fan-out
	f.Add([]byte{6, 0, 14, 28, 1, 15, 29, 24, 32, 40, 0, 8, 16})       // mixed 3-cycles
	f.Add([]byte{128 | 6, 0, 14, 28, 1, 15, 29, 24, 32, 40, 0, 8, 16}) // shuffled
	f.Add([]byte{64 | 2, 0, 14, 8, 0})                                 // cross-class
	f.Add([]byte{64 | 3, 0, 1, 2, 8, 16, 0, 1, 0})                     // scratch Dst
	f.Add([]byte{64 | 3, 0, 1, 2, 8, 16, 0, 5, 1})                     // duplicate Dst
	f.Add([]byte{39, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
		21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
		8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160,
		168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 0, 8, 16, 24, 32, 40, 48, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		moves := pcDecode(data)
		if !pcValid(moves) {
			if instrs, err := Sequentialize(moves); err == nil {
				t.Fatalf("Sequentialize(%v) accepted invalid input: %s", moves, pcFormatAll(instrs))
			}
			return
		}
		pcCheck(t, moves)
	})
}
