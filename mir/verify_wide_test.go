package mir

import (
	"strings"
	"testing"
)

func TestFirstRepeat(t *testing.T) {
	long := make([]Reg, 40)
	for i := range long {
		long[i] = VReg(i)
	}
	longRepeat := append(append([]Reg(nil), long...), VReg(7), VReg(3))
	tests := []struct {
		name string
		rs   []Reg
		want int
	}{
		{"empty", nil, -1},
		{"distinct", []Reg{VReg(0), VReg(1), RAX}, -1},
		{"repeat", []Reg{VReg(0), VReg(1), VReg(0), VReg(1)}, 2},
		{"long distinct", long, -1},
		{"long repeat", longRepeat, 40},
	}
	for _, tt := range tests {
		if got := firstRepeat(tt.rs); got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.want)
		}
	}
}

// wideFunc builds a function whose entry block jumps through a table of
// n entries, every one to the join block, which has a φ with an operand
// per entry; with bad set, the join lists the entry once too few.
func wideFunc(n int, bad bool) *Func {
	f := NewFunc("wide", 0, []Class{GPR}, []Class{GPR})
	entry, join := f.NewBlock(), f.NewBlock()
	entry.Freq, join.Freq = 1, 1
	x := f.NewVReg(GPR)
	entry.Append(&Instr{Op: OpArg, Defs: []Reg{x}, Pos: -1})
	entry.Append(&Instr{Op: OpJMPTABLE, Uses: []Reg{x}, Pos: -1})
	for range n {
		f.AddEdge(entry.ID, join.ID, 1/float64(n))
	}
	phi := f.NewVReg(GPR)
	uses := make([]Reg, n)
	for i := range uses {
		uses[i] = x
	}
	join.Append(&Instr{Op: OpPhi, Defs: []Reg{phi}, Uses: uses, Pos: -1})
	join.Append(&Instr{Op: OpRET, Uses: []Reg{phi}, Pos: -1})
	if bad {
		join.Preds = join.Preds[1:]
		join.Instrs[0].Uses = uses[1:]
	}
	return f
}

// TestVerifyWideTable verifies a jump table with 100,000 parallel edges to
// one join, which takes linear time, and reports the mismatch when the
// join lists one edge too few.
func TestVerifyWideTable(t *testing.T) {
	if err := Verify(wideFunc(100_000, false)); err != nil {
		t.Fatal(err)
	}
	err := Verify(wideFunc(100_000, true))
	if want := "edge to b1: 100000 successor entries but b1 lists b0 99999 times as predecessor"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestVerifyWideParCopy checks the duplicate checks of a parallel copy with
// many operands: the first repeated destination, and the first two
// destinations pinned to one register, are the ones reported.
func TestVerifyWideParCopy(t *testing.T) {
	build := func(pins map[int]Reg, dup bool) *Func {
		f := NewFunc("pc", 0, []Class{GPR}, nil)
		f.Form = FormNonSSA
		b := f.NewBlock()
		b.Freq = 1
		x := f.NewVReg(GPR)
		b.Append(&Instr{Op: OpArg, Defs: []Reg{x}, Pos: -1})
		var defs, uses []Reg
		for range 1000 {
			defs, uses = append(defs, f.NewVReg(GPR)), append(uses, x)
		}
		if dup {
			defs[900] = defs[500]
		}
		b.Append(&Instr{Op: OpParCopy, Defs: defs, Uses: uses, Pos: -1})
		b.Append(&Instr{Op: OpRET, Pos: -1})
		for v, r := range pins {
			f.SetPin(VReg(v), r)
		}
		if pins != nil && f.Pin(x) == NoReg {
			f.SetPin(x, RDI)
		}
		return f
	}
	if err := Verify(build(nil, true)); err == nil || !strings.Contains(err.Error(), "parallel copy writes v501 twice") {
		t.Errorf("duplicate destination: %v", err)
	}
	err := Verify(build(map[int]Reg{300: RBX, 700: RBX, 800: RBX}, false))
	if want := "parallel copy writes rbx twice (v300 and v700 are pinned to it)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("pinned destinations: got %v, want %q", err, want)
	}
}
