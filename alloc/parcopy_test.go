package alloc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/mir"
)

// pcInitial is the value location r holds before a parallel copy in the
// test machine: unique per location. The scratch registers start with
// garbage that matches no location's value.
func pcInitial(r mir.Reg) uint64 {
	if r.IsScratch() {
		return 0xdead0000 + uint64(r)
	}
	return 1<<40 + uint64(r)
}

// pcRun executes the instructions on an abstract machine (a map from
// location to value) after checking that each has an allowed form, then
// checks the parallel copy's postcondition. It returns a description of
// the first problem, or "".
func pcRun(moves []Move, instrs []*mir.Instr) string {
	named := map[mir.Reg]bool{mir.ScratchGPR: true, mir.ScratchXMM: true}
	want := map[mir.Reg]uint64{}
	for _, m := range moves {
		named[m.Dst], named[m.Src] = true, true
		want[m.Dst] = pcInitial(m.Src)
	}
	vals := map[mir.Reg]uint64{}
	get := func(r mir.Reg) uint64 {
		if v, ok := vals[r]; ok {
			return v
		}
		return pcInitial(r)
	}
	for i, in := range instrs {
		bad := func(why string) string { return fmt.Sprintf("instruction %d (%s): %s", i, pcFormat(in), why) }
		if in.Pos != -1 {
			return bad("Pos is not -1")
		}
		if in.Imm != 0 || in.Aux != 0 || in.Scale != 0 || in.Cond != 0 {
			return bad("stray fields")
		}
		for _, r := range append(append([]mir.Reg(nil), in.Defs...), in.Uses...) {
			if !named[r] {
				return bad(fmt.Sprintf("names %s, which is neither in the copy nor a scratch register", r))
			}
		}
		switch in.Op {
		case mir.OpCopy, mir.OpReload, mir.OpSpill:
			if len(in.Defs) != 1 || len(in.Uses) != 1 {
				return bad("wrong operand count")
			}
			d, u := in.Defs[0], in.Uses[0]
			switch in.Op {
			case mir.OpCopy:
				if !d.IsPhys() || !u.IsPhys() || d.Class() != u.Class() {
					return bad("copy is not between registers of one class")
				}
				if d == u {
					return bad("copy to itself")
				}
			case mir.OpReload:
				if !d.IsPhys() || !u.IsMem() {
					return bad("reload is not memory to register")
				}
			case mir.OpSpill:
				if !d.IsMem() || !u.IsPhys() {
					return bad("spill is not register to memory")
				}
			}
			vals[d] = get(u)
		case mir.OpXchg:
			if len(in.Defs) != 2 || len(in.Uses) != 2 || in.Defs[0] != in.Uses[0] || in.Defs[1] != in.Uses[1] {
				return bad("xchg operands are not Defs = Uses = [a, b]")
			}
			a, b := in.Defs[0], in.Defs[1]
			if a.Class() != mir.GPR || b.Class() != mir.GPR || a == b {
				return bad("xchg is not between two GPRs")
			}
			vals[a], vals[b] = get(b), get(a)
		default:
			return bad("op not allowed")
		}
	}
	for d, w := range want {
		if got := get(d); got != w {
			return fmt.Sprintf("%s holds %#x, want %#x", d, got, w)
		}
	}
	for r, v := range vals {
		if _, isDst := want[r]; !isDst && !r.IsScratch() && v != pcInitial(r) {
			return fmt.Sprintf("%s is not a destination but changed to %#x", r, v)
		}
	}
	return ""
}

// pcBound returns the near-minimal instruction bound of a valid parallel
// copy: one per non-self move, one more per memory-to-memory move, one
// more per cycle.
func pcBound(moves []Move) int {
	src := map[mir.Reg]mir.Reg{}
	n := 0
	for _, m := range moves {
		if m.Dst == m.Src {
			continue
		}
		src[m.Dst] = m.Src
		n++
		if m.Dst.IsMem() && m.Src.IsMem() {
			n++
		}
	}
	// A location is on a cycle when following sources leads back to it.
	onCycle := map[mir.Reg]bool{}
	for _, m := range moves {
		if m.Dst == m.Src || onCycle[m.Dst] {
			continue
		}
		r, ok := m.Src, true
		for steps := 0; ok && r != m.Dst && steps <= len(moves); steps++ {
			r, ok = src[r]
		}
		if ok && r == m.Dst {
			n++
			for r := m.Dst; !onCycle[r]; r = src[r] {
				onCycle[r] = true
			}
		}
	}
	return n
}

// pcFormat prints an instruction compactly.
func pcFormat(in *mir.Instr) string {
	switch in.Op {
	case mir.OpXchg:
		if len(in.Defs) == 2 {
			return fmt.Sprintf("xchg %s %s", in.Defs[0], in.Defs[1])
		}
	case mir.OpCopy, mir.OpReload, mir.OpSpill:
		if len(in.Defs) == 1 && len(in.Uses) == 1 {
			return fmt.Sprintf("%s %s <- %s", strings.ToLower(in.Op.String()), in.Defs[0], in.Uses[0])
		}
	}
	return fmt.Sprintf("%s %v <- %v", in.Op, in.Defs, in.Uses)
}

func pcFormatAll(instrs []*mir.Instr) string {
	s := make([]string, len(instrs))
	for i, in := range instrs {
		s[i] = pcFormat(in)
	}
	return strings.Join(s, "; ")
}

// pcValid reports whether a parallel copy is valid input, independently
// of Sequentialize's own checks.
func pcValid(moves []Move) bool {
	seen := map[mir.Reg]bool{}
	for _, m := range moves {
		for _, r := range []mir.Reg{m.Dst, m.Src} {
			if r == mir.NoReg || r.IsVirtual() || r.IsScratch() || !(r.IsPhys() || r.IsMem()) {
				return false
			}
		}
		if m.Dst.IsPhys() && m.Src.IsPhys() && m.Dst.Class() != m.Src.Class() {
			return false
		}
		if seen[m.Dst] {
			return false
		}
		seen[m.Dst] = true
	}
	return true
}

// pcCheck sequentializes a valid parallel copy and checks the result, its
// length and its determinism.
func pcCheck(t testing.TB, moves []Move) []*mir.Instr {
	t.Helper()
	instrs, err := Sequentialize(moves)
	if err != nil {
		t.Fatalf("Sequentialize(%v): %v", moves, err)
	}
	if why := pcRun(moves, instrs); why != "" {
		t.Fatalf("Sequentialize(%v) = %s\n%s", moves, pcFormatAll(instrs), why)
	}
	if b := pcBound(moves); len(instrs) > b {
		t.Fatalf("Sequentialize(%v) = %s\n%d instructions, bound %d", moves, pcFormatAll(instrs), len(instrs), b)
	}
	again, _ := Sequentialize(moves)
	same := len(again) == len(instrs)
	for i := 0; same && i < len(instrs); i++ {
		same = instrs[i].Equal(again[i])
	}
	if !same {
		t.Fatalf("Sequentialize(%v) is not deterministic:\n%s\n%s", moves, pcFormatAll(instrs), pcFormatAll(again))
	}
	return instrs
}

func TestParCopyExhaustive(t *testing.T) {
	gprs := []mir.Reg{mir.RAX, mir.RBX, mir.R8, mir.R12, mir.RDI}
	xmms := []mir.Reg{mir.X0, mir.X3, mir.X7, mir.X9, mir.X14}
	mem := func(i int) mir.Reg {
		switch i % 3 {
		case 0:
			return mir.SlotReg(i)
		case 1:
			return mir.OutArgReg(i)
		}
		return mir.InArgReg(i)
	}
	maxN := 5
	if testing.Short() {
		maxN = 4
	}
	checked, invalid := 0, 0
	locs := make([]mir.Reg, maxN)
	f := make([]int, maxN)
	var moves []Move
	for n := 1; n <= maxN; n++ {
		kinds := 1
		for range n {
			kinds *= 3
		}
		for kind := range kinds {
			k := kind
			for i := range n {
				switch k % 3 {
				case 0:
					locs[i] = gprs[i]
				case 1:
					locs[i] = xmms[i]
				case 2:
					locs[i] = mem(i)
				}
				k /= 3
			}
			// Enumerate f: location i gets locs[f[i]], or nothing when
			// f[i] == n.
			clear(f)
			for {
				moves = moves[:0]
				valid := true
				for i := range n {
					if f[i] == n {
						continue
					}
					m := Move{Dst: locs[i], Src: locs[f[i]]}
					if m.Dst.IsPhys() && m.Src.IsPhys() && m.Dst.Class() != m.Src.Class() {
						valid = false
					}
					moves = append(moves, m)
				}
				if valid {
					pcCheck(t, moves)
					checked++
				} else {
					if _, err := Sequentialize(moves); err == nil {
						t.Fatalf("Sequentialize(%v) accepted a cross-class move", moves)
					}
					invalid++
				}
				i := 0
				for i < n && f[i] == n {
					f[i] = 0
					i++
				}
				if i == n {
					break
				}
				f[i]++
			}
		}
	}
	t.Logf("checked %d valid parallel copies over 1..%d locations (and %d invalid ones rejected)", checked, maxN, invalid)
}

func TestParCopyCases(t *testing.T) {
	s := mir.SlotReg
	tests := []struct {
		name  string
		moves []Move
		want  string
	}{
		{"empty", nil, ""},
		{"self", []Move{{mir.RAX, mir.RAX}, {s(1), s(1)}}, ""},
		{"gpr 2-cycle", []Move{{mir.RAX, mir.RBX}, {mir.RBX, mir.RAX}},
			"xchg rax rbx"},
		{"gpr 3-cycle", []Move{{mir.RAX, mir.RBX}, {mir.RBX, mir.RCX}, {mir.RCX, mir.RAX}},
			"xchg rax rbx; xchg rbx rcx"},
		{"xmm 2-cycle", []Move{{mir.X1, mir.X2}, {mir.X2, mir.X1}},
			"copy xmm15 <- xmm2; copy xmm2 <- xmm1; copy xmm1 <- xmm15"},
		{"slot 2-cycle", []Move{{s(0), s(1)}, {s(1), s(0)}},
			"reload r11 <- s1; reload xmm15 <- s0; spill s1 <- xmm15; spill s0 <- r11"},
		{"gpr mem gpr cycle", []Move{{mir.RAX, s(0)}, {s(0), mir.RBX}, {mir.RBX, mir.RAX}},
			"reload r11 <- s0; spill s0 <- rbx; copy rbx <- rax; copy rax <- r11"},
		{"xmm mem cycle", []Move{{mir.X3, s(2)}, {s(2), mir.X3}},
			"reload xmm15 <- s2; spill s2 <- xmm3; copy xmm3 <- xmm15"},
		{"cycle and fan-out", []Move{{mir.RBX, mir.RAX}, {mir.RAX, mir.RBX}, {mir.RCX, mir.RAX}},
			"copy rcx <- rax; xchg rbx rax"},
		{"xmm cycle and fan-out", []Move{{mir.X1, mir.X0}, {mir.X0, mir.X1}, {mir.X2, mir.X0}},
			"copy xmm2 <- xmm0; copy xmm0 <- xmm1; copy xmm1 <- xmm2"},
		{"chain", []Move{{mir.RAX, mir.RBX}, {mir.RBX, mir.RCX}, {mir.RCX, mir.RDX}},
			"copy rax <- rbx; copy rbx <- rcx; copy rcx <- rdx"},
		{"chain reversed", []Move{{mir.RCX, mir.RDX}, {mir.RBX, mir.RCX}, {mir.RAX, mir.RBX}},
			"copy rax <- rbx; copy rbx <- rcx; copy rcx <- rdx"},
		{"memory fan-out", []Move{{s(1), s(0)}, {s(2), s(0)}, {mir.RAX, s(0)}},
			"reload rax <- s0; spill s1 <- rax; spill s2 <- rax"},
		{"memory to memory", []Move{{mir.OutArgReg(0), mir.InArgReg(0)}},
			"reload r11 <- in0; spill out0 <- r11"},
		{"memory fan-out through scratch", []Move{{s(1), s(0)}, {s(2), s(0)}},
			"reload r11 <- s0; spill s1 <- r11; spill s2 <- r11"},
		{"slot 3-cycle", []Move{{s(0), s(1)}, {s(1), s(2)}, {s(2), s(0)}},
			"reload r11 <- s1; reload xmm15 <- s2; spill s1 <- xmm15; reload xmm15 <- s0; spill s2 <- xmm15; spill s0 <- r11"},
		{"xmm slot cycle", []Move{{s(0), s(1)}, {s(1), mir.X4}, {mir.X4, s(0)}},
			"reload xmm15 <- s1; spill s1 <- xmm4; reload xmm4 <- s0; spill s0 <- xmm15"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pcFormatAll(pcCheck(t, tc.moves))
			if got != tc.want {
				t.Errorf("Sequentialize(%v) =\n\t%s\nwant\n\t%s", tc.moves, got, tc.want)
			}
		})
	}
}

func TestParCopyErrors(t *testing.T) {
	tests := []struct {
		moves []Move
		want  string
	}{
		{[]Move{{mir.RAX, mir.RBX}, {mir.RAX, mir.RCX}}, "move 1 (rax <- rcx): destination rax is also written by move 0"},
		{[]Move{{mir.RAX, mir.RAX}, {mir.RAX, mir.RCX}}, "move 1 (rax <- rcx): destination rax is also written by move 0"},
		{[]Move{{mir.SlotReg(2), mir.RBX}, {mir.SlotReg(2), mir.X1}}, "destination s2 is also written by move 0"},
		{[]Move{{mir.RAX, mir.X1}}, "move 0 (rax <- xmm1): copies a xmm register to a gpr register"},
		{[]Move{{mir.X2, mir.RDX}}, "move 0 (xmm2 <- rdx): copies a gpr register to a xmm register"},
		{[]Move{{mir.VReg(3), mir.RAX}}, "move 0 (v3 <- rax): destination v3 is a virtual register"},
		{[]Move{{mir.RAX, mir.VReg(4)}}, "move 0 (rax <- v4): source v4 is a virtual register"},
		{[]Move{{mir.NoReg, mir.RAX}}, "move 0 (noreg <- rax): destination is noreg"},
		{[]Move{{mir.RAX, mir.NoReg}}, "move 0 (rax <- noreg): source is noreg"},
		{[]Move{{mir.RAX, mir.RBX}, {mir.ScratchGPR, mir.RAX}}, "move 1 (r11 <- rax): destination r11 is a scratch register"},
		{[]Move{{mir.SlotReg(0), mir.ScratchXMM}}, "move 0 (s0 <- xmm15): source xmm15 is a scratch register"},
		{[]Move{{mir.ScratchGPR, mir.ScratchGPR}}, "move 0 (r11 <- r11): destination r11 is a scratch register"},
		{[]Move{{mir.Reg(40), mir.RAX}}, "move 0 (reg(0x28) <- rax): destination reg(0x28) is not a location"},
	}
	for _, tc := range tests {
		instrs, err := Sequentialize(tc.moves)
		if err == nil {
			t.Errorf("Sequentialize(%v) = %s, want error %q", tc.moves, pcFormatAll(instrs), tc.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), "alloc: parallel copy ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Sequentialize(%v): error %q, want %q", tc.moves, err, tc.want)
		}
		if instrs != nil {
			t.Errorf("Sequentialize(%v) returned instructions with its error", tc.moves)
		}
	}
}

// TestSequentializeLarge checks long permutations of every kind of
// location, including a cycle through all of them.
func TestSequentializeLarge(t *testing.T) {
	var locs []mir.Reg
	for r := range mir.Reg(mir.NumPhysRegs) {
		if r != mir.RSP && r != mir.CtxReg && !r.IsScratch() {
			locs = append(locs, r)
		}
	}
	for i := range 20 {
		locs = append(locs, mir.SlotReg(i), mir.OutArgReg(i), mir.InArgReg(i))
	}
	// A single cycle over every memory location and through every
	// register class, and each register class rotated among itself.
	var mem, gpr, xmm []mir.Reg
	for _, r := range locs {
		switch {
		case r.IsMem():
			mem = append(mem, r)
		case r.Class() == mir.GPR:
			gpr = append(gpr, r)
		default:
			xmm = append(xmm, r)
		}
	}
	rotate := func(rs []mir.Reg, k int) []Move {
		var ms []Move
		for i, r := range rs {
			ms = append(ms, Move{Dst: r, Src: rs[(i+k)%len(rs)]})
		}
		return ms
	}
	for k := 1; k < 4; k++ {
		var all []Move
		all = append(all, rotate(gpr, k)...)
		all = append(all, rotate(xmm, k)...)
		all = append(all, rotate(mem, k)...)
		pcCheck(t, all)
		mixed := append(append(append([]mir.Reg(nil), mem[:10]...), gpr...), mem[10:]...)
		mixed = append(mixed, xmm...)
		pcCheck(t, rotate(mixed, k))
	}
	// GPR cycles use n-1 exchanges.
	instrs := pcCheck(t, rotate(gpr, 1))
	if len(instrs) != len(gpr)-1 {
		t.Errorf("a cycle of %d GPRs took %d instructions: %s", len(gpr), len(instrs), pcFormatAll(instrs))
	}
}

// pcManyMoves returns a chain of n memory moves listed last first (the
// order for finding free moves in input order) and a random parallel copy
// over n locations.
func pcManyMoves(n int) (chain, random []Move) {
	for i := n - 1; i >= 0; i-- {
		chain = append(chain, Move{Dst: mir.SlotReg(i), Src: mir.SlotReg(i + 1)})
	}
	locs := append([]mir.Reg(nil), pcFuzzPool...)
	for i := range n {
		locs = append(locs, mir.SlotReg(100+i))
	}
	locs = locs[:n]
	x := uint32(1)
	for _, d := range locs {
		x = x*1664525 + 1013904223
		m := Move{Dst: d, Src: locs[int(x>>8)%n]}
		// Keep classes straight: a register only takes a value from its
		// class or from memory.
		if m.Dst.IsPhys() && m.Src.IsPhys() && m.Dst.Class() != m.Src.Class() {
			continue
		}
		random = append(random, m)
	}
	return chain, random
}

func TestSequentializeMany(t *testing.T) {
	chain, random := pcManyMoves(2000)
	if got := len(pcCheck(t, chain)); got != 2*len(chain) {
		t.Errorf("a chain of %d memory moves took %d instructions", len(chain), got)
	}
	pcCheck(t, random)
}

func BenchmarkSequentialize(b *testing.B) {
	small := []Move{{mir.RAX, mir.RBX}, {mir.RBX, mir.RAX}, {mir.SlotReg(0), mir.RCX},
		{mir.RCX, mir.SlotReg(1)}, {mir.X0, mir.X1}, {mir.X1, mir.SlotReg(2)}}
	chain, random := pcManyMoves(1000)
	for _, bc := range []struct {
		name  string
		moves []Move
	}{{"small", small}, {"chain1000", chain}, {"random1000", random}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Sequentialize(bc.moves); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAppendMoveMatchesSequentialize checks the single-move fast path
// against the sequentializer on every pair of a set of locations,
// instruction for instruction, including the errors.
func TestAppendMoveMatchesSequentialize(t *testing.T) {
	locs := []mir.Reg{mir.RAX, mir.RDX, mir.R12, mir.X0, mir.X9, mir.SlotReg(0), mir.SlotReg(7),
		mir.InArgReg(1), mir.OutArgReg(2), mir.ScratchGPR, mir.NoReg}
	f := &mir.Func{}
	for _, dst := range locs {
		for _, src := range locs {
			want, wantErr := Sequentialize([]Move{{Dst: dst, Src: src}})
			got, gotErr := appendMove(f, nil, Move{Dst: dst, Src: src}, 42)
			if (wantErr != nil) != (gotErr != nil) {
				t.Errorf("%s <- %s: error %v, Sequentialize's %v", dst, src, gotErr, wantErr)
				continue
			}
			if len(got) != len(want) {
				t.Errorf("%s <- %s: %d instructions, Sequentialize gives %d", dst, src, len(got), len(want))
				continue
			}
			for i := range got {
				w := *want[i]
				w.Pos = 42
				if !got[i].Equal(&w) {
					t.Errorf("%s <- %s: instruction %d is %v, Sequentialize gives %v", dst, src, i, got[i], &w)
				}
			}
		}
	}
}
