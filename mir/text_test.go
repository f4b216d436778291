package mir

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// txtFloatsEqual compares float slices bit for bit (nil equals empty).
func txtFloatsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// txtFuncsDiff describes the first difference between two functions, or
// returns "" when they are equal in every field (floats bit for bit, nil
// slices equal to empty ones, except Pins, where nil means "constraints
// not resolved").
func txtFuncsDiff(a, b *Func) string {
	switch {
	case a == nil || b == nil:
		if a == b {
			return ""
		}
		return "one function is nil"
	case a.Name != b.Name:
		return fmt.Sprintf("Name %q vs %q", a.Name, b.Name)
	case a.Index != b.Index:
		return fmt.Sprintf("Index %d vs %d", a.Index, b.Index)
	case !slices.Equal(a.Params, b.Params):
		return fmt.Sprintf("Params %v vs %v", a.Params, b.Params)
	case !slices.Equal(a.Results, b.Results):
		return fmt.Sprintf("Results %v vs %v", a.Results, b.Results)
	case a.Form != b.Form:
		return fmt.Sprintf("Form %v vs %v", a.Form, b.Form)
	case !slices.Equal(a.VRegs, b.VRegs):
		return fmt.Sprintf("VRegs %v vs %v", a.VRegs, b.VRegs)
	case !slices.Equal(a.Slots, b.Slots):
		return fmt.Sprintf("Slots %v vs %v", a.Slots, b.Slots)
	case (a.Pins == nil) != (b.Pins == nil) || !slices.Equal(a.Pins, b.Pins):
		return fmt.Sprintf("Pins %v (nil: %t) vs %v (nil: %t)", a.Pins, a.Pins == nil, b.Pins, b.Pins == nil)
	case len(a.Blocks) != len(b.Blocks):
		return fmt.Sprintf("%d vs %d blocks", len(a.Blocks), len(b.Blocks))
	}
	for i, x := range a.Blocks {
		y := b.Blocks[i]
		switch {
		case x == nil || y == nil:
			if x != y {
				return fmt.Sprintf("block %d: one is nil", i)
			}
			continue
		case x.ID != y.ID:
			return fmt.Sprintf("block %d: ID %d vs %d", i, x.ID, y.ID)
		case math.Float64bits(x.Freq) != math.Float64bits(y.Freq):
			return fmt.Sprintf("block %d: Freq %v vs %v", i, x.Freq, y.Freq)
		case !slices.Equal(x.Preds, y.Preds):
			return fmt.Sprintf("block %d: Preds %v vs %v", i, x.Preds, y.Preds)
		case !slices.Equal(x.Succs, y.Succs):
			return fmt.Sprintf("block %d: Succs %v vs %v", i, x.Succs, y.Succs)
		case !txtFloatsEqual(x.SuccProb, y.SuccProb):
			return fmt.Sprintf("block %d: SuccProb %v vs %v", i, x.SuccProb, y.SuccProb)
		case len(x.Instrs) != len(y.Instrs):
			return fmt.Sprintf("block %d: %d vs %d instructions", i, len(x.Instrs), len(y.Instrs))
		}
		for j, p := range x.Instrs {
			q := y.Instrs[j]
			if p == nil || q == nil {
				if p != q {
					return fmt.Sprintf("b%d[%d]: one is nil", i, j)
				}
				continue
			}
			if !p.Equal(q) {
				return fmt.Sprintf("b%d[%d]: %+v vs %+v", i, j, *p, *q)
			}
		}
	}
	return ""
}

// txtFuncsEqual reports whether two functions are equal in every field.
func txtFuncsEqual(a, b *Func) bool { return txtFuncsDiff(a, b) == "" }

// TestTextFieldsCovered fails when an exported field is added to the IR's
// types, so that the text form (and txtFuncsDiff) are extended with it.
// Unexported fields (the instruction arena) are not part of the IR.
func TestTextFieldsCovered(t *testing.T) {
	for _, c := range []struct {
		typ    reflect.Type
		fields int
	}{
		{reflect.TypeFor[Func](), 9},
		{reflect.TypeFor[Block](), 6},
		{reflect.TypeFor[Instr](), 8},
		{reflect.TypeFor[SlotInfo](), 1},
	} {
		n := 0
		for i := 0; i < c.typ.NumField(); i++ {
			if c.typ.Field(i).IsExported() {
				n++
			}
		}
		if n != c.fields {
			t.Errorf("%v has %d fields, the text form knows %d", c.typ, n, c.fields)
		}
	}
}

// txtRoundTrip prints fs, parses the text, compares, and checks that
// printing the result gives the same text. It returns the text.
func txtRoundTrip(t *testing.T, fs ...*Func) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Print(&buf, fs...); err != nil {
		t.Fatalf("Print: %v", err)
	}
	text := buf.String()
	got, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, text)
	}
	if len(got) != len(fs) {
		t.Fatalf("Parse returned %d functions, want %d\n%s", len(got), len(fs), text)
	}
	for i := range fs {
		if d := txtFuncsDiff(fs[i], got[i]); d != "" {
			t.Fatalf("function %d differs after the round trip: %s\n%s", i, d, text)
		}
	}
	var again bytes.Buffer
	if err := Print(&again, got...); err != nil {
		t.Fatalf("Print of parsed functions: %v", err)
	}
	if again.String() != text {
		t.Fatalf("text not stable:\n%s\nvs\n%s", text, again.String())
	}
	return text
}

var txtTestFloats = []float64{0, 1, 1e-300, 1.0 / 3, 1e300, 0.7, 5e-324, math.MaxFloat64, math.Copysign(0, -1),
	math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000000)}

var txtTestImms = []int64{0, 1, -1, 8, -16, math.MinInt64, math.MaxInt64, 1 << 40, math.MinInt32}

// txtAllOpsFunc builds a function with one instruction of every op, with
// operands shaped by the op table. regKind selects the registers: 0
// virtual, 1 physical, 2 a mix with stack and argument slots.
func txtAllOpsFunc(form Form, regKind int) *Func {
	f := NewFunc("allops", 3, []Class{GPR, XMM, GPR}, []Class{XMM})
	f.Form = form
	f.NewSlot(GPR)
	f.NewSlot(XMM)
	nextPhys := map[Class]int{}
	reg := func(c Class, k int) Reg {
		if c == ClassNone {
			c = GPR
		}
		switch kind := regKind; {
		case kind == 2 && k%5 == 3:
			return SlotReg(k % 2)
		case kind == 2 && k%7 == 4:
			return InArgReg(k % 3)
		case kind == 2 && k%7 == 5:
			return OutArgReg(k % 4)
		case kind == 1 || kind == 2 && k%2 == 0:
			n := nextPhys[c] % 16
			nextPhys[c]++
			if c == XMM {
				return X0 + Reg(n)
			}
			return Reg(n)
		}
		return f.NewVReg(c)
	}
	n := NumOps - 1
	for i := 0; i <= n; i++ {
		f.NewBlock()
	}
	k := 0
	for op := Op(1); int(op) < NumOps; op++ {
		info := op.Info()
		b := f.Blocks[int(op)-1]
		b.Freq = txtTestFloats[int(op)%len(txtTestFloats)]
		in := &Instr{Op: op, Pos: int32(op) - 2}
		defs, uses := info.Defs, info.Uses
		if info.Variadic {
			defs, uses = make([]OperandSpec, 2), make([]OperandSpec, 3)
		}
		for _, s := range defs {
			in.Defs = append(in.Defs, reg(s.Class, k))
			k++
		}
		for _, s := range uses {
			in.Uses = append(in.Uses, reg(s.Class, k))
			k++
		}
		if info.HasImm {
			in.Imm = txtTestImms[int(op)%len(txtTestImms)]
		}
		if info.HasMem {
			in.Scale = uint8(1 << (int(op) % 4))
		}
		if info.HasCond {
			in.Cond = Cond(int(op) % int(numConds))
		}
		if txtUsesAux(op) {
			in.Aux = int32(op) % 3
		}
		b.Append(in)
		if info.Terminator {
			ns := info.NumSuccs
			if ns < 0 {
				ns = 3
			}
			for s := 0; s < ns; s++ {
				f.AddEdge(b.ID, (b.ID+1+s)%len(f.Blocks), 1/float64(ns))
			}
		} else {
			b.Append(&Instr{Op: OpJMP, Pos: -1})
			f.AddEdge(b.ID, b.ID+1, 1)
		}
	}
	last := f.Blocks[n]
	last.Append(&Instr{Op: OpRET, Uses: []Reg{reg(XMM, k)}, Pos: -1})
	return f
}

func TestTextAllOps(t *testing.T) {
	seen := map[Op]bool{}
	for form := FormSSA; form <= FormAllocated; form++ {
		for kind := 0; kind < 3; kind++ {
			f := txtAllOpsFunc(form, kind)
			for _, b := range f.Blocks {
				for _, in := range b.Instrs {
					seen[in.Op] = true
				}
			}
			text := txtRoundTrip(t, f)
			if form == FormSSA && kind == 0 && testing.Verbose() {
				t.Logf("\n%s", text)
			}
		}
	}
	for op := Op(1); int(op) < NumOps; op++ {
		if !seen[op] {
			t.Errorf("op %v not covered", op)
		}
	}
}

// TestTextOddFields round-trips fields ops do not use, register and
// number extremes, mismatched successor lists and other broken IR.
func TestTextOddFields(t *testing.T) {
	f := NewFunc("odd fields", math.MinInt64, nil, nil)
	f.Form = FormNonSSA
	f.VRegs = []Class{GPR, XMM, ClassNone, GPR}
	f.Slots = []SlotInfo{{ClassNone}, {XMM}}
	b0 := f.NewBlock()
	b1 := f.NewBlock()
	b2 := f.NewBlock()
	b0.Freq = math.Float64frombits(0x7ff4000000000000)
	b1.Freq = 1e-300
	b2.Freq = 1.0 / 3
	b0.Append(&Instr{Op: OpADDQ, Defs: []Reg{VReg(0)}, Uses: []Reg{VReg(0), VReg(99)}, Imm: math.MinInt64, Scale: 255, Cond: CondFNE, Aux: math.MinInt32, Pos: math.MaxInt32})
	b0.Append(&Instr{Op: OpInvalid, Pos: 0})
	b0.Append(&Instr{Op: OpCopy, Defs: []Reg{VReg(2), VReg(7)}, Uses: []Reg{NoReg, VReg(maxIndex), SlotReg(maxIndex), InArgReg(maxIndex), OutArgReg(maxIndex)}, Pos: math.MinInt32})
	b0.Append(&Instr{Op: OpMOVQload, Defs: []Reg{VReg(2)}, Uses: []Reg{RSP}, Imm: 5, Scale: 3, Pos: -1})
	b0.Append(&Instr{Op: OpLEAQidx, Defs: []Reg{R15}, Uses: []Reg{X15, NoReg}, Imm: math.MaxInt64, Pos: -1})
	b0.Append(&Instr{Op: OpMOVQstore, Uses: []Reg{RAX, RBX, RCX, RDX}, Imm: -1, Scale: 0, Pos: -1})
	b0.Append(&Instr{Op: OpJMP, Pos: -1})
	b0.Succs = []int{1, 2, 2}
	b0.SuccProb = []float64{0.5}
	b1.Preds = []int{0, 0, 2, 1}
	b1.Append(&Instr{Op: OpADDQ, Defs: []Reg{VReg(0)}, Pos: -1})
	b1.Succs = []int{0}
	b1.SuccProb = []float64{1, 2, math.Inf(-1)}
	b2.Succs = []int{}
	b2.SuccProb = []float64{0.25, 0.75}
	b2.Preds = []int{}
	text := txtRoundTrip(t, f)
	for _, want := range []string{
		`func "odd fields" #-9223372036854775808 () -> () nonssa`,
		"  slots none xmm\n",
		"  undefined v1:xmm v3:gpr\n",
		"b0: freq=NaN(0x7ff4000000000000)\n",
		"  v0:gpr = ADDQ.fne #-2147483648 v0, v99, $-9223372036854775808 *255 @2147483647\n",
		"  Invalid @0\n",
		"  v2:none, v7 = Copy noreg, v536870910, s536870910, in536870910, out536870910 @-2147483648\n",
		"  v2:none = MOVQload rsp, $5 *3\n",
		"  r15 = LEAQidx [xmm15+noreg*0+9223372036854775807]\n",
		"  MOVQstore [rax+rbx*0-1], rcx, rdx\n",
		"  JMP -> b1 0.5, b2, b2\n",
		"b1: preds=b0,b0,b2,b1 freq=1e-300\n  v0:gpr = ADDQ\n  -> b0 1, 2, -Inf\n",
		"b2: freq=0.3333333333333333\n  -> 0.25, 0.75\nend\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestTextNameQuoting checks the quoting of function names.
func TestTextNameQuoting(t *testing.T) {
	for _, c := range []struct{ name, printed string }{
		{"fib", "fib"},
		{"_a.b9", "_a.b9"},
		{"", `""`},
		{"9x", `"9x"`},
		{"a b", `"a b"`},
		{"a;b", `"a;b"`},
		{"a#b(c", `"a#b(c"`},
		{`q"\`, `"q\"\\"`},
		{"\xff\n\t", `"\xff\n\t"`},
		{"日本", `"日本"`},
		{"end", "end"},
		{"func", "func"},
	} {
		f := NewFunc(c.name, 1, nil, nil)
		text := txtRoundTrip(t, f)
		if want := "func " + c.printed + " #1 () -> () ssa\n"; !strings.HasPrefix(text, want) {
			t.Errorf("name %q printed as %q, want prefix %q", c.name, text, want)
		}
	}
	// Parse also accepts plain tokens that are not identifiers.
	fs, err := Parse([]byte("func a-b:c#4(gpr)->()allocated\n vregs 0\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f := fs[0]; f.Name != "a-b:c" || f.Index != 4 || !slices.Equal(f.Params, []Class{GPR}) || f.Form != FormAllocated {
		t.Errorf("parsed %+v", f)
	}
}

// txtRandFunc builds a random function, valid or not, that the text form
// can represent.
func txtRandFunc(r *rand.Rand) *Func {
	names := []string{"f", "fib", "", "a b", `x"y`, "日本", "\xff", "a;b", "_.x9", "9x", "a#b", "(", "end", "func", "b0:"}
	classes := func(max int) []Class {
		var cs []Class
		for range r.IntN(max + 1) {
			cs = append(cs, Class(r.IntN(3)))
		}
		return cs
	}
	float := func() float64 {
		switch r.IntN(4) {
		case 0:
			return txtTestFloats[r.IntN(len(txtTestFloats))]
		case 1:
			return r.Float64()
		case 2:
			return r.NormFloat64() * 1e10
		}
		return math.Float64frombits(r.Uint64())
	}
	f := &Func{
		Name:    names[r.IntN(len(names))],
		Index:   r.IntN(200) - 100,
		Params:  classes(4),
		Results: classes(2),
		Form:    Form(r.IntN(3)),
		VRegs:   classes(12),
	}
	if r.IntN(10) == 0 {
		f.Index = int(r.Uint64())
	}
	for _, c := range classes(4) {
		f.Slots = append(f.Slots, SlotInfo{c})
	}
	nv := len(f.VRegs)
	reg := func() Reg {
		switch r.IntN(12) {
		case 0, 1, 2:
			return Reg(r.IntN(NumPhysRegs))
		case 3:
			return SlotReg(r.IntN(5))
		case 4:
			return OutArgReg(r.IntN(3))
		case 5:
			return InArgReg(r.IntN(3))
		case 6:
			if r.IntN(4) == 0 {
				return NoReg
			}
			return []Reg{VReg(maxIndex), SlotReg(maxIndex), InArgReg(maxIndex), OutArgReg(maxIndex)}[r.IntN(4)]
		}
		return VReg(r.IntN(nv + 3))
	}
	if r.IntN(3) == 0 {
		f.Pins = make([]Reg, nv)
		for i := range f.Pins {
			f.Pins[i] = NoReg
			if r.IntN(2) == 0 {
				f.Pins[i] = reg()
			}
		}
	}
	nb := r.IntN(6)
	edge := func() int {
		if nb == 0 {
			return 0
		}
		return r.IntN(nb)
	}
	for i := range nb {
		b := &Block{ID: i, Freq: float()}
		for range r.IntN(3) {
			b.Preds = append(b.Preds, edge())
		}
		ns := r.IntN(4)
		np := ns
		if r.IntN(8) == 0 {
			np = r.IntN(4)
		}
		for range ns {
			b.Succs = append(b.Succs, edge())
		}
		for range np {
			b.SuccProb = append(b.SuccProb, float())
		}
		for range r.IntN(6) {
			op := Op(r.IntN(NumOps))
			info := op.Info()
			in := &Instr{Op: op, Pos: -1}
			nd, nu := len(info.Defs), len(info.Uses)
			if info.Variadic || r.IntN(6) == 0 {
				nd, nu = r.IntN(4), r.IntN(5)
			}
			for range nd {
				in.Defs = append(in.Defs, reg())
			}
			for range nu {
				in.Uses = append(in.Uses, reg())
			}
			if info.HasImm || r.IntN(8) == 0 {
				if r.IntN(2) == 0 {
					in.Imm = txtTestImms[r.IntN(len(txtTestImms))]
				} else {
					in.Imm = int64(r.Uint64())
				}
			}
			if info.HasMem {
				in.Scale = uint8(1 << r.IntN(4))
			}
			if r.IntN(8) == 0 {
				in.Scale = uint8(r.IntN(256))
			}
			if info.HasCond || r.IntN(8) == 0 {
				in.Cond = Cond(r.IntN(int(numConds)))
			}
			if txtUsesAux(op) || r.IntN(8) == 0 {
				in.Aux = int32(r.Uint32())
			}
			switch r.IntN(3) {
			case 0:
				in.Pos = int32(r.IntN(100))
			case 1:
				in.Pos = int32(r.Uint32())
			}
			b.Instrs = append(b.Instrs, in)
		}
		f.Blocks = append(f.Blocks, b)
	}
	return f
}

func TestTextRandom(t *testing.T) {
	for seed := range uint64(4000) {
		r := rand.New(rand.NewPCG(seed, 0x6b696c6e))
		n := 1 + r.IntN(3)
		fs := make([]*Func, n)
		for i := range fs {
			fs[i] = txtRandFunc(r)
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			txtRoundTrip(t, fs...)
			for _, f := range fs {
				if g, err := ParseFunc([]byte(Format(f))); err != nil || !txtFuncsEqual(f, g) {
					t.Fatalf("Format/ParseFunc: %v", err)
				}
			}
		})
		if t.Failed() {
			break
		}
	}
}

// TestTextGolden checks that the hand-written files under testdata/text
// are in printed form: Print(Parse(file)) == file.
func TestTextGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "text", "*.mir"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found %d golden files", len(files))
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Print(&buf, fs...); err != nil {
				t.Fatal(err)
			}
			if buf.String() != string(src) {
				t.Errorf("Print(Parse(%s)) differs:\n%s", name, buf.String())
			}
			txtRoundTrip(t, fs...)
		})
	}
}

// TestTextGoldenContent spot-checks what the golden files parse to.
func TestTextGoldenContent(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "text", "call.mir"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 {
		t.Fatalf("got %d functions", len(fs))
	}
	fib := fs[0]
	if fib.Name != "fib" || fib.Index != 0 || len(fib.Blocks) != 3 || len(fib.VRegs) != 7 {
		t.Fatalf("fib: %+v", fib)
	}
	b0, b2 := fib.Blocks[0], fib.Blocks[2]
	if !slices.Equal(b0.Succs, []int{2, 1}) || !txtFloatsEqual(b0.SuccProb, []float64{0.3, 0.7}) || len(b0.Preds) != 0 {
		t.Errorf("b0 edges: %v %v %v", b0.Succs, b0.SuccProb, b0.Preds)
	}
	if !slices.Equal(b2.Preds, []int{0, 1}) || b2.Freq != 1 {
		t.Errorf("b2: %v %v", b2.Preds, b2.Freq)
	}
	jcc := b0.Instrs[2]
	if jcc.Op != OpJCC || jcc.Cond != CondL || jcc.Pos != 2 {
		t.Errorf("JCC: %+v", *jcc)
	}
	call := fib.Blocks[1].Instrs[1]
	want := Instr{Op: OpCALL, Defs: []Reg{VReg(2)}, Uses: []Reg{VReg(1)}, Aux: 0, Pos: 4}
	if !call.Equal(&want) {
		t.Errorf("CALL: %+v", *call)
	}
	phi := b2.Instrs[0]
	if phi.Op != OpPhi || !slices.Equal(phi.Uses, []Reg{VReg(0), VReg(5)}) || phi.Pos != -1 {
		t.Errorf("Phi: %+v", *phi)
	}
}

// TestTextBriefExample parses the specification's example (with the
// class of the undefined v4 added) and checks its memory operands.
func TestTextBriefExample(t *testing.T) {
	const text = `func fib #0 (gpr) -> (gpr) ssa
  vregs 6
  undefined v4:gpr
b0: freq=1
  v0:gpr = Arg #0
  CMPQconst v0, $2
  JCC.l -> b2 0.3, b1 0.7
b1: preds=b0 freq=0.7
  v1:gpr = LEAQ v0, $-1 @3
  v2:gpr = CALL #0 v1 @4
  v3:gpr = MOVQload [v4+v1*8+16] @5
  MOVBstore [v4+v1*1-3], v2 @6
  JMP -> b2 1
b2: preds=b0,b1 freq=1
  v5:gpr = Phi v0, v2
  RET v5
end
`
	f, err := ParseFunc([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := Format(f); got != text {
		t.Errorf("Format(ParseFunc(text)) =\n%s", got)
	}
	load, store := f.Blocks[1].Instrs[2], f.Blocks[1].Instrs[3]
	if want := (Instr{Op: OpMOVQload, Defs: []Reg{VReg(3)}, Uses: []Reg{VReg(4), VReg(1)}, Imm: 16, Scale: 8, Pos: 5}); !load.Equal(&want) {
		t.Errorf("load: %+v", *load)
	}
	if want := (Instr{Op: OpMOVBstore, Uses: []Reg{VReg(4), VReg(1), VReg(2)}, Imm: -3, Scale: 1, Pos: 6}); !store.Equal(&want) {
		t.Errorf("store: %+v", *store)
	}
	if !slices.Equal(f.VRegs, []Class{GPR, GPR, GPR, GPR, GPR, GPR}) {
		t.Errorf("VRegs %v", f.VRegs)
	}
}

// TestTextLenient checks the liberties Parse takes with text Print would
// not write: comments, spacing, tabs, CRLF line ends.
func TestTextLenient(t *testing.T) {
	const loose = "; a comment\r\n\n" +
		"func   f   #7 ( gpr  xmm ) -> ( ) nonssa ; trailing\r\n" +
		"\tvregs 2\n" +
		"b0:   freq=0.5   \n" +
		"\tv0:gpr=ADDQ   v1 ,v0,$3@9\n" +
		"  v1:xmm = MOVSDconst $0x\n"
	if _, err := Parse([]byte(loose)); err == nil || err.Error() != `mir: line 7: bad number "0x"` {
		t.Fatalf("got %v", err)
	}
	fixed := strings.Replace(loose, "$0x", "$0", 1) + "  JMP->b0 1\t; loop\nend ; done\n"
	f, err := ParseFunc([]byte(fixed))
	if err != nil {
		t.Fatal(err)
	}
	const want = "func f #7 (gpr xmm) -> () nonssa\n  vregs 2\nb0: freq=0.5\n" +
		"  v0:gpr = ADDQ v1, v0, $3 @9\n  v1:xmm = MOVSDconst $0\n  JMP -> b0 1\nend\n"
	if got := Format(f); got != want {
		t.Errorf("got\n%s", got)
	}
	if fs, err := Parse([]byte("\n; nothing\n\n")); err != nil || len(fs) != 0 {
		t.Errorf("empty text: %v %v", fs, err)
	}
}

const txtHead = "func f #0 () -> () ssa\n  vregs 2\nb0: freq=1\n"

func TestTextParseErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		line int
		msg  string
	}{
		{txtHead + "  ADDX\nend\n", 4, `unknown op "ADDX"`},
		{txtHead + "  CMPQ rax, rzz\nend\n", 4, `bad register "rzz"`},
		{txtHead + "  JCC.zz -> b0 1\nend\n", 4, `unknown condition "zz"`},
		{txtHead + "  JMP -> b0 1\n", 1, `missing "end" of func f`},
		{"func f #0 () -> () ssa\n  vregs 0\nb1: freq=1\nend\n", 3, `block b1 out of order, want b0`},
		{txtHead + "  JMP -> b5 1\nend\n", 4, `reference to missing block b5`},
		{txtHead + "  v0:gpr = MOVQconst $1\n  v0:xmm = MOVSDconst $0\nend\n", 5, `class conflict on v0: xmm here, gpr on line 4`},
		{txtHead + "  CMPQ rax, rbx rcx\nend\n", 4, `unexpected "rcx" after operand "rbx"`},
		{txtHead + "  v0:gpr = MOVQconst $12x\nend\n", 4, `bad number "12x"`},
		{txtHead + "  v0:gpr = MOVQload [rax+rbx*256]\nend\n", 4, `scale 256 out of range (0-255)`},
		{txtHead + "  v0:gpr MOVQconst $1\nend\n", 4, `missing "=" after definitions`},
		{"func f #0 (gpr foo) -> () ssa\n", 1, `unknown class "foo"`},
		{"func f #0 () -> () ssb\n", 1, `unknown form "ssb"`},
		{"func f #0 () -> ()\n", 1, `missing form in func header; want "func NAME #INDEX (CLASSES) -> (CLASSES) FORM"`},
		{"func f () -> () ssa\n", 1, `missing "#INDEX" in func header; want "func NAME #INDEX (CLASSES) -> (CLASSES) FORM"`},
		{"func f #0 () ssa\n", 1, `missing "->" in func header; want "func NAME #INDEX (CLASSES) -> (CLASSES) FORM"`},
		{"func \"abc #0 () -> () ssa\n", 1, `unterminated function name "abc #0 () -> () ssa`},
		{"func f #0 () -> () ssa\nb0: freq=1\nend\n", 2, `missing vregs line before the first block`},
		{"func f #0 () -> () ssa\nend\n", 2, `missing vregs line`},
		{txtHead + "  v0:gpr = MOVQconst $1\nend\n", 2, `v1 has no class: it is neither defined nor listed as undefined`},
		{txtHead + "  v0 = MOVQconst $1\nend\n", 4, `missing class on definition of v0 (want v0:gpr or v0:xmm)`},
		{txtHead + "  CMPQ v0:gpr, v1\nend\n", 4, `class suffix on use "v0:gpr"`},
		{txtHead + "  rax:gpr = MOVQconst $1\nend\n", 4, `class suffix on non-virtual register "rax:gpr"`},
		{txtHead + "  v2:gpr = MOVQconst $1\nend\n", 4, `v2 is beyond vregs 2 and cannot have a class`},
		{"func f #0 () -> () ssa\n  vregs 1\n  undefined v0:gpr\nb0: freq=1\n  v0:gpr = MOVQconst $1\nend\n", 5, `v0 is defined but listed as undefined on line 3`},
		{"func f #0 () -> () ssa\n  vregs 1\n  undefined v0:gpr v0:xmm\nend\n", 3, `class conflict on v0: xmm here, gpr on line 3`},
		{"func f #0 () -> () ssa\n  vregs 1\n  undefined v1:gpr\nend\n", 3, `v1 is beyond vregs 1`},
		{"func f #0 () -> () ssa\n  vregs 1\n  undefined rax\nend\n", 3, `rax listed as undefined is not a virtual register`},
		{"func f #0 () -> () ssa\n  vregs 99999999999\nend\n", 2, `vregs 99999999999 is more than the text can define`},
		{"func f #0 () -> () ssa\n  vregs 01\nend\n", 2, `bad number "01"`},
		{"func f #0 () -> () ssa\n  vregs 0\n  vregs 0\nend\n", 3, `duplicate vregs line`},
		{"func f #0 () -> () ssa\n  vregs 0\n  slots gpr\nend\n", 3, `slots line after the vregs line`},
		{txtHead + "  CALL #2147483648\nend\n", 4, `number "2147483648" out of range`},
		{txtHead + "  Poll @99999999999\nend\n", 4, `number "99999999999" out of range`},
		{"func f #0 () -> () ssa\n  vregs 0\n  Poll\nend\n", 3, `instruction outside a block`},
		{txtHead + "  JMP -> b0 1\n  Poll\nend\n", 5, `instruction after the block's successor list`},
		{txtHead + "  CMPQ rax, rbx -> b0 1\nend\n", 4, `successors after non-terminator CMPQ`},
		{txtHead + "  JMP\n  -> b0 1\nend\n", 5, `successors of JMP belong on its line`},
		{txtHead + "  -> b0 1\n  -> b0 1\nend\n", 5, `duplicate successor list`},
		{txtHead + "  JMP -> b0 1 2\nend\n", 4, `bad successor "b0 1 2"`},
		{txtHead + "  JMP -> b0 1,\nend\n", 4, `empty successor`},
		{txtHead + "  JMP ->\nend\n", 4, `empty successor list`},
		{txtHead + "  JMP -> b0 x\nend\n", 4, `bad float "x"`},
		{"hello\n", 1, `expected "func", found "hello"`},
		{txtHead + "  v0:gpr = MOVQload rax, rbx, $8\nend\n", 4, `MOVQload needs a memory operand [BASE+INDEX*SCALE+DISP]`},
		{txtHead + "  CMPQ [rax+rbx*1]\nend\n", 4, `CMPQ has no memory operand`},
		{txtHead + "  MOVQstore rax, [rbx+rcx*1]\nend\n", 4, `memory operand must be operand 1 of MOVQstore`},
		{txtHead + "  MOVQstore [rbx+rcx*1], [rbx+rcx*1]\nend\n", 4, `second memory operand`},
		{txtHead + "  v0:gpr = MOVQload [rax*2]\nend\n", 4, `bad memory operand "[rax*2]", want [BASE+INDEX*SCALE+DISP] or [BASE+DISP]`},
		{txtHead + "  v0:gpr = MOVQload [rax+rbx*x]\nend\n", 4, `bad scale "x"`},
		{txtHead + "  v0:gpr = MOVQload [rax+rbx*1+]\nend\n", 4, `bad number "+"`},
		{txtHead + "  v0:gpr = MOVQload [rax+rbx*1\nend\n", 4, `unterminated memory operand "[rax+rbx*1"`},
		{txtHead + "  v0:gpr = MOVQload [rax+rbx*1] x\nend\n", 4, `unexpected "x" after operand "[rax+rbx*1]"`},
		{txtHead + "  v0:gpr = MOVQload [rax+rbx*1], $4\nend\n", 4, `immediate besides a memory operand (its displacement is the immediate)`},
		{txtHead + "  v0:gpr = MOVQload [rax+rbx*1] *2\nend\n", 4, `scale outside the memory operand`},
		{txtHead + "  v0:gpr = LEAQ rax, $1 *999\nend\n", 4, `scale 999 out of range (0-255)`},
		{txtHead + "  CMPQconst rax\nend\n", 4, `CMPQconst needs an immediate ($N)`},
		{txtHead + "  JCC -> b0 1\nend\n", 4, `JCC needs a condition (JCC.COND)`},
		{txtHead + "  CALL rax\nend\n", 4, `CALL needs an aux number (#N)`},
		{txtHead + "  ADDQ $1, rax\nend\n", 4, `immediate must be the last operand`},
		{txtHead + "  CMPQ rax,\nend\n", 4, `empty operand`},
		{txtHead + "  = ADDQ rax\nend\n", 4, `missing definitions before "="`},
		{txtHead + "  v0:gpr =\nend\n", 4, `missing op`},
		{txtHead + "  v0:foo = MOVQconst $1\nend\n", 4, `unknown class "foo"`},
		{"func f #0 () -> () ssa\n  vregs 0\nb0: freq=x\nend\n", 3, `bad float "x"`},
		{"func f #0 () -> () ssa\n  vregs 0\nb0: freq=NaN(0x1)\nend\n", 3, `bad float "NaN(0x1)"`},
		{"func f #0 () -> () ssa\n  vregs 0\nb0: preds=b0\nend\n", 3, `missing "freq=" in block header`},
		{"func f #0 () -> () ssa\n  vregs 0\nb0: preds=x freq=1\nend\n", 3, `bad block "x"`},
		{"func f #0 () -> () ssa\n  vregs 0\nb0: preds= freq=1\nend\n", 3, `empty preds list`},
		{"func f #0 () -> () ssa\n  vregs 0\nb0: freq=1 x\nend\n", 3, `unexpected "x" in block header`},
		{"func f #0 () -> () ssa\n  vregs 0\nb0 freq=1\nend\n", 3, `bad block header "b0"`},
		{"func f #0 () -> () ssa\n  vregs 0\nb00: freq=1\nend\n", 3, `bad block "b00"`},
		{"func f #0 () -> () ssa\n  vregs 0\nb0: preds=b7 freq=1\nend\n", 3, `reference to missing block b7`},
		{"func f #0 () -> () ssa\n  vregs 0\nend x\n", 3, `unexpected "x" after "end"`},
		{"func f #0 () -> () ssa\n  vregs 0\nfunc g #1 () -> () ssa\n", 3, `missing "end" of func f`},
		{"func f #x () -> () ssa\n", 1, `bad number "x"`},
		{"func f #0 () -> () nonssa\n  pins\nend\n", 2, `pins line before the vregs line`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins\n  pins\nend\n", 4, `duplicate pins line`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  undefined v0:gpr\n  pins v0=rax\nend\n", 4, `pins line after the undefined line`},
		{txtHead + "  pins v0=rax\nend\n", 4, `pins line after the first block`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins v0\nend\n", 3, `bad pin "v0", want vN=REG`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins v0 = rax\nend\n", 3, `bad pin "v0", want vN=REG`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins x0=rax\nend\n", 3, `bad register "x0"`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins rbx=rax\nend\n", 3, `pin of rbx, which is not a virtual register`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins v2=rax\nend\n", 3, `v2 is beyond vregs 2`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins v1=rax v1=rax\nend\n", 3, `v1 pinned twice`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins v1=rzz\nend\n", 3, `bad register "rzz"`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins v1=\nend\n", 3, `bad register ""`},
		{"func f #0 () -> () nonssa\n  vregs 2\n  pins v1=noreg\nend\n", 3, `v1 pinned to noreg (leave unpinned registers out)`},
		{"func \"\\q\" #0 () -> () ssa\n", 1, `bad function name "\q"`},
	} {
		_, err := Parse([]byte(c.src))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want a *ParseError", c.src, err)
			continue
		}
		if pe.Line != c.line || pe.Msg != c.msg {
			t.Errorf("%q:\ngot  line %d: %s\nwant line %d: %s", c.src, pe.Line, pe.Msg, c.line, c.msg)
		}
		if want := fmt.Sprintf("mir: line %d: %s", c.line, c.msg); err.Error() != want {
			t.Errorf("Error() = %q, want %q", err.Error(), want)
		}
	}
}

func TestTextParseFunc(t *testing.T) {
	one := "func f #0 () -> () ssa\n  vregs 0\nend\n"
	if _, err := ParseFunc([]byte(one)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		src string
		msg string
	}{
		{"", "mir: line 1: want exactly one function, found 0"},
		{one + "\n; second\n" + one, "mir: line 6: want exactly one function, found 2"},
		{one + "x\n", `mir: line 4: expected "func", found "x"`},
	} {
		if _, err := ParseFunc([]byte(c.src)); err == nil || err.Error() != c.msg {
			t.Errorf("ParseFunc(%q) = %v, want %s", c.src, err, c.msg)
		}
	}
}

// TestTextPrintErrors checks that Print reports what the text form
// cannot represent, while still writing text.
func TestTextPrintErrors(t *testing.T) {
	base := func() *Func {
		f := NewFunc("f", 0, nil, nil)
		f.NewVReg(GPR)
		b := f.NewBlock()
		b.Append(&Instr{Op: OpRET, Uses: []Reg{VReg(0)}, Pos: -1})
		return f
	}
	for _, c := range []struct {
		edit func(f *Func) *Func
		msg  string
	}{
		{func(f *Func) *Func { return nil }, "mir: print <nil>: nil function"},
		{func(f *Func) *Func { f.Form = 7; return f }, "mir: print f: unknown form 7"},
		{func(f *Func) *Func { f.Params = []Class{9}; return f }, "mir: print f: a parameter has unknown class 9"},
		{func(f *Func) *Func { f.VRegs[0] = 3; return f }, "mir: print f: a virtual register has unknown class 3"},
		{func(f *Func) *Func { f.Blocks[0].ID = 4; return f }, "mir: print f: block 0 has ID 4"},
		{func(f *Func) *Func { f.Blocks = append(f.Blocks, nil); return f }, "mir: print f: block 1 is nil"},
		{func(f *Func) *Func { f.Blocks[0].Instrs = append(f.Blocks[0].Instrs, nil); return f }, "mir: print f: b0: instruction 1 is nil"},
		{func(f *Func) *Func { f.Blocks[0].Preds = []int{-1}; return f }, "mir: print f: predecessor b-1 does not exist"},
		{func(f *Func) *Func { f.Blocks[0].Succs = []int{1}; return f }, "mir: print f: successor b1 does not exist"},
		{func(f *Func) *Func { f.Blocks[0].Instrs[0].Op = Op(NumOps); return f }, fmt.Sprintf("mir: print f: b0: unknown op %d", NumOps)},
		{func(f *Func) *Func { f.Blocks[0].Instrs[0].Cond = numConds; return f }, "mir: print f: b0: unknown condition 18"},
		{func(f *Func) *Func { f.Blocks[0].Instrs[0].Uses[0] = 40; return f }, "mir: print f: register 0x28 has no name"},
		{func(f *Func) *Func { f.Blocks[0].Instrs[0].Uses[0] = VReg(maxIndex + 1); return f }, "mir: print f: register 0x5fffffff has no name"},
		{func(f *Func) *Func { f.Blocks[0].Instrs[0].Uses[0] = OutArgReg(maxIndex + 1); return f }, "mir: print f: register 0xdfffffff has no name"},
		{func(f *Func) *Func { f.Pins = []Reg{}; return f }, "mir: print f: 0 pins for 1 virtual registers"},
		{func(f *Func) *Func { f.Pins = []Reg{RAX, RBX}; return f }, "mir: print f: 2 pins for 1 virtual registers"},
		{func(f *Func) *Func { f.SetPin(VReg(0), 40); return f }, "mir: print f: register 0x28 has no name"},
	} {
		f := c.edit(base())
		var buf bytes.Buffer
		err := Print(&buf, f)
		if err == nil || err.Error() != c.msg {
			t.Errorf("got %v, want %s", err, c.msg)
		}
		if buf.Len() == 0 || Format(f) != buf.String() {
			t.Errorf("%s: no text or Format differs:\n%s", c.msg, buf.String())
		}
	}
	// A failing writer.
	if err := Print(txtFailWriter{}, base()); err == nil || err.Error() != "write failed" {
		t.Errorf("write error: %v", err)
	}
}

type txtFailWriter struct{}

func (txtFailWriter) Write([]byte) (int, error) { return 0, errors.New("write failed") }

// TestTextLarge round-trips a function of 100k instructions; printing and
// parsing are linear, so this takes a small fraction of a second.
func TestTextLarge(t *testing.T) {
	f := NewFunc("large", 0, []Class{GPR}, []Class{GPR})
	const nb, per = 1000, 100
	for i := range nb {
		b := f.NewBlock()
		b.Freq = float64(i) / 7
	}
	acc := f.NewVReg(GPR)
	f.Blocks[0].Append(&Instr{Op: OpArg, Defs: []Reg{acc}, Pos: 0})
	for i, b := range f.Blocks {
		for j := len(b.Instrs); j < per-1; j++ {
			v := f.NewVReg(GPR)
			switch j % 3 {
			case 0:
				b.Append(&Instr{Op: OpADDQ, Defs: []Reg{v}, Uses: []Reg{acc, acc}, Pos: int32(i*per + j)})
			case 1:
				b.Append(&Instr{Op: OpMOVQload, Defs: []Reg{v}, Uses: []Reg{acc, acc}, Scale: 8, Imm: int64(j), Pos: -1})
			default:
				b.Append(&Instr{Op: OpLEAQ, Defs: []Reg{v}, Uses: []Reg{acc}, Imm: -int64(j), Pos: int32(j)})
			}
			acc = v
		}
		if i+1 < nb {
			b.Append(&Instr{Op: OpJCC, Cond: CondL, Pos: -1})
			f.AddEdge(i, i+1, 0.9)
			f.AddEdge(i, nb-1, 0.1)
		} else {
			b.Append(&Instr{Op: OpRET, Uses: []Reg{acc}, Pos: -1})
		}
	}
	if n := f.NumInstrs(); n != nb*per {
		t.Fatalf("%d instructions", n)
	}
	start := time.Now()
	var buf bytes.Buffer
	if err := Print(&buf, f); err != nil {
		t.Fatal(err)
	}
	printed := time.Since(start)
	start = time.Now()
	g, err := ParseFunc(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	parsed := time.Since(start)
	t.Logf("100k instructions, %d bytes: print %v, parse %v", buf.Len(), printed, parsed)
	if d := txtFuncsDiff(f, g); d != "" {
		t.Fatal(d)
	}
}

func BenchmarkTextPrint(b *testing.B) {
	f := txtAllOpsFunc(FormSSA, 0)
	for b.Loop() {
		_ = Format(f)
	}
}

func BenchmarkTextParse(b *testing.B) {
	src := []byte(Format(txtAllOpsFunc(FormSSA, 0)))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTextPins checks the "pins" line: what the golden file parses to,
// nil and empty Pins, canonical order, and pins in any form.
func TestTextPins(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "text", "pinned.mir"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 {
		t.Fatalf("got %d functions", len(fs))
	}
	main, scale, nopins := fs[0], fs[1], fs[2]
	for _, c := range []struct {
		f    *Func
		v    int
		want Reg
	}{
		{main, 0, RDI}, {main, 3, RCX}, {main, 6, RDX}, {main, 7, RBX}, {main, 11, RAX},
		{scale, 1, NoReg}, {scale, 3, RBX},
	} {
		if got := c.f.Pin(VReg(c.v)); got != c.want {
			t.Errorf("%s: v%d pinned to %s, want %s", c.f.Name, c.v, got, c.want)
		}
	}
	if len(main.Pins) != len(main.VRegs) || len(scale.Pins) != len(scale.VRegs) {
		t.Errorf("Pins lengths %d and %d, want %d and %d", len(main.Pins), len(scale.Pins), len(main.VRegs), len(scale.VRegs))
	}
	if nopins.Pins == nil || len(nopins.Pins) != 0 {
		t.Errorf("bare pins line: Pins = %#v, want empty and not nil", nopins.Pins)
	}

	for _, c := range []struct {
		name string
		pins []Reg // nil: leave Pins nil
		line string
	}{
		{"nil", nil, ""},
		{"none pinned", []Reg{NoReg, NoReg, NoReg}, "  pins\n"},
		{"some pinned", []Reg{NoReg, X3, RAX}, "  pins v1=xmm3 v2=rax\n"},
		{"odd pins", []Reg{VReg(2), SlotReg(1), InArgReg(0)}, "  pins v0=v2 v1=s1 v2=in0\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for form := FormSSA; form <= FormAllocated; form++ {
				f := NewFunc("p", 0, nil, nil)
				f.Form = form
				for range 3 {
					f.NewVReg(GPR)
				}
				f.NewBlock().Append(&Instr{Op: OpRET, Pos: -1})
				if c.pins != nil {
					f.Pins = slices.Clone(c.pins)
				}
				text := txtRoundTrip(t, f)
				want := "  vregs 3\n" + c.line + "  undefined"
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
		})
	}

	// Parse accepts the items in any order and prints them in order.
	f, err := ParseFunc([]byte("func p #0 () -> () nonssa\n  vregs 3\n  pins\tv2=rdx  v0=rcx ; comment\n" +
		"  undefined v0:gpr v1:gpr v2:gpr\nb0: freq=1\n  RET\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Pins, []Reg{RCX, NoReg, RDX}) {
		t.Errorf("Pins = %v", f.Pins)
	}
	if text := Format(f); !strings.Contains(text, "\n  pins v0=rcx v2=rdx\n") {
		t.Errorf("printed:\n%s", text)
	}
}

// TestTextNewOpForms round-trips the 32-bit and f32 forms whose operands
// print specially: the rounding mode of ROUNDSS is written even when it is
// 0, LEALidx's two uses are its memory operand, MOVSSconst's bits are an
// unsigned 32-bit immediate.
func TestTextNewOpForms(t *testing.T) {
	f := NewFunc("forms", 0, []Class{GPR, XMM}, []Class{GPR, XMM})
	b := f.NewBlock()
	g, x := f.NewVReg(GPR), f.NewVReg(XMM)
	b.Append(&Instr{Op: OpArg, Defs: []Reg{g}, Aux: 0, Pos: -1})
	b.Append(&Instr{Op: OpArg, Defs: []Reg{x}, Aux: 1, Pos: -1})
	r, c, l := f.NewVReg(XMM), f.NewVReg(XMM), f.NewVReg(GPR)
	b.Append(&Instr{Op: OpROUNDSS, Defs: []Reg{r}, Uses: []Reg{x}, Aux: RoundNearest, Pos: -1})
	b.Append(&Instr{Op: OpMOVSSconst, Defs: []Reg{c}, Imm: math.MaxUint32, Pos: -1})
	b.Append(&Instr{Op: OpLEALidx, Defs: []Reg{l}, Uses: []Reg{g, g}, Scale: 4, Imm: -8, Pos: 2})
	b.Append(&Instr{Op: OpRET, Uses: []Reg{l, r}, Pos: -1})
	text := txtRoundTrip(t, f)
	for _, want := range []string{
		"  v2:xmm = ROUNDSS #0 v1\n",
		"  v3:xmm = MOVSSconst $4294967295\n",
		"  v4:gpr = LEALidx [v0+v0*4-8] @2\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
}

// TestTextMemoryWithoutIndex checks the text of memory operands without an
// index register ([BASE+DISP]): parsed into a NoReg index with scale 1,
// printed back the same, and accepted by the verifier.
func TestTextMemoryWithoutIndex(t *testing.T) {
	src := `func f #0 () -> (gpr) nonssa
  vregs 3
b0: freq=1
  v0:gpr = CtxLoad #0
  v1:gpr = MOVQload [v0+16]
  MOVBstore [v0], v1
  v2:gpr = ADDQload v1, [v0-8]
  RET v2
end
`
	f, err := ParseFunc([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		imm  int64
		uses []Reg
	}{{16, []Reg{VReg(0), NoReg}}, {0, []Reg{VReg(0), NoReg, VReg(1)}}, {-8, []Reg{VReg(1), VReg(0), NoReg}}} {
		in := f.Blocks[0].Instrs[i+1]
		if in.Imm != want.imm || in.Scale != 1 || !slices.Equal(in.Uses, want.uses) {
			t.Errorf("instruction %d: imm %d scale %d uses %v, want imm %d scale 1 uses %v", i+1, in.Imm, in.Scale, in.Uses, want.imm, want.uses)
		}
	}
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
	if got := Format(f); got != src {
		t.Errorf("printed back as\n%s\nwant\n%s", got, src)
	}
}
