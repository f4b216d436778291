package bytecode

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The -update flag rewrites the golden files. Another test file of the
// package may register the same flag; only the first registration counts and
// textUpdating reads whichever exists.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files under testdata")
	}
}

func textUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// textModulesEqual reports whether a and b are the same module, treating nil
// and empty slices as equal.
func textModulesEqual(a, b *Module) bool {
	return textModuleDiff(a, b) == ""
}

// textModuleDiff describes the first difference between a and b, or returns
// "" when they are equal.
func textModuleDiff(a, b *Module) string {
	if a == nil || b == nil {
		if a == b {
			return ""
		}
		return "one module is nil"
	}
	if a.Memory != b.Memory {
		return fmt.Sprintf("memory %v != %v", a.Memory, b.Memory)
	}
	if len(a.Data) != len(b.Data) {
		return fmt.Sprintf("%d data segments != %d", len(a.Data), len(b.Data))
	}
	for i := range a.Data {
		if a.Data[i].Offset != b.Data[i].Offset || !bytes.Equal(a.Data[i].Bytes, b.Data[i].Bytes) {
			return fmt.Sprintf("data segment %d: %d %q != %d %q", i, a.Data[i].Offset, a.Data[i].Bytes, b.Data[i].Offset, b.Data[i].Bytes)
		}
	}
	if len(a.Hosts) != len(b.Hosts) {
		return fmt.Sprintf("%d hosts != %d", len(a.Hosts), len(b.Hosts))
	}
	for i := range a.Hosts {
		if a.Hosts[i].Name != b.Hosts[i].Name || !a.Hosts[i].Sig.Equal(b.Hosts[i].Sig) {
			return fmt.Sprintf("host %d: %s %s != %s %s", i, a.Hosts[i].Name, a.Hosts[i].Sig, b.Hosts[i].Name, b.Hosts[i].Sig)
		}
	}
	if len(a.Funcs) != len(b.Funcs) {
		return fmt.Sprintf("%d funcs != %d", len(a.Funcs), len(b.Funcs))
	}
	for i := range a.Funcs {
		fa, fb := a.Funcs[i], b.Funcs[i]
		if fa == nil || fb == nil {
			if fa != fb {
				return fmt.Sprintf("func %d is nil in one module", i)
			}
			continue
		}
		if fa.Name != fb.Name || !fa.Sig.Equal(fb.Sig) || !slices.Equal(fa.Regs, fb.Regs) {
			return fmt.Sprintf("func %d: %s %s %v != %s %s %v", i, fa.Name, fa.Sig, fa.Regs, fb.Name, fb.Sig, fb.Regs)
		}
		if len(fa.Code) != len(fb.Code) {
			return fmt.Sprintf("func %s: %d instructions != %d", fa.Name, len(fa.Code), len(fb.Code))
		}
		for pc := range fa.Code {
			if !fa.Code[pc].Equal(&fb.Code[pc]) {
				return fmt.Sprintf("func %s: instruction %d: %+v != %+v", fa.Name, pc, fa.Code[pc], fb.Code[pc])
			}
		}
	}
	if !slices.Equal(a.Exports, b.Exports) {
		return fmt.Sprintf("exports %v != %v", a.Exports, b.Exports)
	}
	if !textPartsEqual(a, b) {
		return fmt.Sprintf("globals, types, table or element segments differ:\n%+v %+v %+v %+v\n%+v %+v %+v %+v",
			a.Globals, a.Types, a.Table, a.Elems, b.Globals, b.Types, b.Table, b.Elems)
	}
	return ""
}

// textPartsEqual reports whether a and b have the same globals, types,
// table and element segments, treating nil and empty slices as equal.
func textPartsEqual(a, b *Module) bool {
	if !slices.Equal(a.Globals, b.Globals) || a.Table != b.Table ||
		!slices.EqualFunc(a.Types, b.Types, Signature.Equal) ||
		!slices.EqualFunc(a.Elems, b.Elems, func(x, y ElemSegment) bool {
			return x.Offset == y.Offset && slices.Equal(x.Funcs, y.Funcs)
		}) {
		return false
	}
	return true
}

// textCheckRoundTrip checks that m survives Disassemble and Assemble and that
// its text is stable. It returns the text.
func textCheckRoundTrip(t *testing.T, m *Module) []byte {
	t.Helper()
	text := Disassemble(m)
	m2, err := Assemble(text)
	if err != nil {
		t.Fatalf("Assemble(Disassemble(m)): %v\ntext:\n%s", err, text)
	}
	if d := textModuleDiff(m, m2); d != "" {
		t.Fatalf("module changed by the round trip: %s\ntext:\n%s", d, text)
	}
	if text2 := Disassemble(m2); !bytes.Equal(text, text2) {
		t.Fatalf("text not stable:\nfirst:\n%s\nsecond:\n%s", text, text2)
	}
	return text
}

func TestTextRoundTripRandom(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 0x6b6173))
		m := randomModule(r)
		if err := Verify(m); err != nil {
			t.Fatalf("seed %d: random module does not verify: %v", seed, err)
		}
		textCheckRoundTrip(t, m)
	}
}

func TestTextRoundTripBase(t *testing.T) {
	text := textCheckRoundTrip(t, baseModule())
	want := `memory 1 2
data 10 "hi"
host putc (i64) -> ()

func main (i64) -> (i64)
  regs i64 f64
  i64.add r1, r0, 1
  call_host putc (r1) -> ()
  br.lt_s r1, r0, L4
  call half (r2) -> (r2)
L4:
  ret r1
end

func half (f64) -> (f64)
  regs f64
  f64.const r1, 0.5
  f64.mul r0, r0, r1
  ret r0
end

export "main" main
`
	if string(text) != want {
		t.Errorf("Disassemble(baseModule()) =\n%s\nwant\n%s", text, want)
	}
}

func TestDisassembleEmpty(t *testing.T) {
	if got := Disassemble(&Module{}); len(got) != 0 {
		t.Errorf("Disassemble(empty module) = %q, want empty", got)
	}
	if got := Disassemble(nil); len(got) != 0 {
		t.Errorf("Disassemble(nil) = %q, want empty", got)
	}
	m, err := Assemble(nil)
	if err != nil || !textModulesEqual(m, &Module{}) {
		t.Errorf("Assemble(nil) = %v, %v; want an empty module", m, err)
	}
	m, err = Assemble([]byte("\n ; only a comment\n\t\r\n"))
	if err != nil || !textModulesEqual(m, &Module{}) {
		t.Errorf("Assemble(comment) = %v, %v; want an empty module", m, err)
	}
}

// TestDisassembleInvalid checks that Disassemble copes with modules that do
// not verify.
func TestDisassembleInvalid(t *testing.T) {
	m := &Module{
		Memory:  Memory{MinPages: 2},
		Funcs:   []*Function{nil, {Name: "f", Sig: Signature{Params: []Type{I64, I64}}, Regs: []Type{I64}, Code: []Instr{{Op: Op(999)}, {Op: OpCall, Callee: 7}, {Op: OpCallHost, Callee: 1}, {Op: OpJump, Target: 50}, {Op: OpI64Load, Imm: math.MinInt64}}}},
		Exports: []Export{{Name: "x", Func: 9}},
	}
	got := string(Disassemble(m))
	want := `memory 2 0

func f (i64 i64) -> ()
  op(999)
  call #7 () -> ()
  call_host #1 () -> ()
  jump L50
  i64.load r0, [r0-9223372036854775808]
end

export "x" #9
`
	if got != want {
		t.Errorf("Disassemble =\n%s\nwant\n%s", got, want)
	}
}

func TestTextGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "text", "*.kasm"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden inputs in testdata/text")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".kasm")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Assemble(src)
			if err != nil {
				t.Fatalf("Assemble: %v", err)
			}
			text := textCheckRoundTrip(t, m)
			golden := strings.TrimSuffix(file, ".kasm") + ".golden"
			if textUpdating() {
				if err := os.WriteFile(golden, text, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(text, want) {
				t.Errorf("Disassemble(Assemble(%s)) differs from %s (run go test -update to accept):\ngot:\n%s\nwant:\n%s", file, golden, text, want)
			}
		})
	}
}

// TestAssembleDocExample checks the module the package documentation's
// example describes.
func TestAssembleDocExample(t *testing.T) {
	src := `
memory 1 16                        ; initial and maximum pages
data 0 "hello\n"                   ; offset and a Go-quoted string
host putc (i64) -> ()
type unop (i64) -> (i64)           ; a signature for call_indirect
global count i64 mut = 0 export "count"
global base i32 import "env.base"  ; imported: no initial value
table 2 2 export "table"           ; minimum and optional maximum
elem 0 fib fib                     ; table offset and function names
func fib (i64) -> (i64)
  regs i64 i64                     ; types of r1, r2 (after the parameters)
  br.lt_s r0, 2, L7
  i64.sub r1, r0, 1
  call fib (r1) -> (r1)
  i64.sub r2, r0, 2
  call fib (r2) -> (r2)
  i64.add r0, r1, r2
  ret r0
L7:
  ret r0
end
export "fib" fib
`
	got, err := Assemble([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Module{
		Memory: Memory{MinPages: 1, MaxPages: 16},
		Data:   []DataSegment{{Offset: 0, Bytes: []byte("hello\n")}},
		Hosts:  []HostImport{{Name: "putc", Sig: Signature{Params: []Type{I64}}}},
		Funcs: []*Function{{
			Name: "fib",
			Sig:  Signature{Params: []Type{I64}, Results: []Type{I64}},
			Regs: []Type{I64, I64, I64},
			Code: []Instr{
				{Op: OpBrLtS, A: 0, UseImm: true, Imm: 2, Target: 7},
				{Op: OpI64Sub, Dst: 1, A: 0, UseImm: true, Imm: 1},
				{Op: OpCall, Callee: 0, Args: []Reg{1}, Results: []Reg{1}},
				{Op: OpI64Sub, Dst: 2, A: 0, UseImm: true, Imm: 2},
				{Op: OpCall, Callee: 0, Args: []Reg{2}, Results: []Reg{2}},
				{Op: OpI64Add, Dst: 0, A: 1, B: 2},
				{Op: OpReturn, Args: []Reg{0}},
				{Op: OpReturn, Args: []Reg{0}},
			},
		}},
		Exports: []Export{{Name: "fib", Func: 0}},
		Types:   []Signature{{Params: []Type{I64}, Results: []Type{I64}}},
		Globals: []Global{
			{Name: "count", Type: I64, Mutable: true, Export: "count"},
			{Name: "base", Type: I32, Import: "env.base"},
		},
		Table: Table{Min: 2, Max: 2, HasMax: true, Export: "table"},
		Elems: []ElemSegment{{Offset: 0, Funcs: []uint32{0, 0}}},
	}
	if d := textModuleDiff(got, want); d != "" {
		t.Fatal(d)
	}
}

// TestAssembleSyntax checks accepted spellings that the canonical form does
// not use, by the canonical text of the single instruction of function f.
func TestAssembleSyntax(t *testing.T) {
	tests := []struct{ in, want string }{
		{"i64.const r1, 0x10", "i64.const r1, 16"},
		{"i64.const r1, 0XFF", "i64.const r1, 255"},
		{"i64.const r1, 0xffffffffffffffff", "i64.const r1, -1"},
		{"i64.const r1, 0x8000000000000000", "i64.const r1, -9223372036854775808"},
		{"i64.const r1, -0x10", "i64.const r1, -16"},
		{"i64.const r1, -0x8000000000000000", "i64.const r1, -9223372036854775808"},
		{"i64.const r1, +7", "i64.const r1, 7"},
		{"i64.const r1, 007", "i64.const r1, 7"},
		{"i64.const r1,-3", "i64.const r1, -3"},
		{"i64.const\tr1 ,\t-3", "i64.const r1, -3"},
		{"i64.add r1, r1, 0x7fffffffffffffff", "i64.add r1, r1, 9223372036854775807"},
		{"i64.load r1, [r1+0]", "i64.load r1, [r1]"},
		{"i64.load r1, [r1-0]", "i64.load r1, [r1]"},
		{"i64.load r1, [ r1 + 0x10 ]", "i64.load r1, [r1+16]"},
		{"i64.load r1, [r1 -8]", "i64.load r1, [r1-8]"},
		{"i64.load r1, [r1- 8]", "i64.load r1, [r1-8]"},
		{"i64.store [r1+2147483647], r1", "i64.store [r1+2147483647], r1"},
		{"i64.store [r1-2147483648], r1", "i64.store [r1-2147483648], r1"},
		{"switch r1,[],L0", "switch r1, [], L0"},
		{"switch r1, [L0,L0], L0", "switch r1, [L0, L0], L0"},
		{"br.eq r1, -1, L0", "br.eq r1, -1, L0"},
		{"br.eq r1, r1, L0", "br.eq r1, r1, L0"},
		{"call_host h (r1)", "call_host h (r1) -> ()"},
		{"call_host h(r1)->()", "call_host h (r1) -> ()"},
		{"trap 0x10", "trap 16"},
		{"trap -0x1", "trap -1"},
		{"ret", "ret"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			src := "host h (i64) -> ()\nfunc f () -> ()\n  regs i64 i64\nL0:\n  " + tt.in + "\n  ret\nend\n"
			m, err := Assemble([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			got := string(textAppendInstr(nil, m, &m.Funcs[0].Code[0]))
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			textCheckRoundTrip(t, m)
		})
	}
}

func TestTextFloats(t *testing.T) {
	tests := []struct {
		text   string // canonical form
		bits   uint64
		inputs []string // other accepted spellings
	}{
		{"0", 0, []string{"0.0", "+0", "0e10", "1e-400"}},
		{"-0", 1 << 63, []string{"-0.0", "-0e0"}},
		{"1", 0x3ff0000000000000, []string{"1.", "1.0", "10e-1"}},
		{"-2.5", math.Float64bits(-2.5), []string{"-25e-1", "-2.50"}},
		{"0.1", math.Float64bits(0.1), []string{".1"}},
		{"1e+300", math.Float64bits(1e300), []string{"1e300", "1E300", "1e+300"}},
		{"1e+21", math.Float64bits(1e21), []string{"1000000000000000000000"}},
		{"5e-324", 1, []string{"4.9406564584124654e-324", "3e-324"}},
		{"2.2250738585072014e-308", 0x0010000000000000, nil},
		{"1.7976931348623157e+308", 0x7fefffffffffffff, nil},
		{"inf", 0x7ff0000000000000, []string{"+inf"}},
		{"-inf", 0xfff0000000000000, nil},
		{"nan", 0x7ff8000000000000, []string{"+nan", "nan:0x7ff8000000000000"}},
		{"nan:0x7ff0000000000001", 0x7ff0000000000001, []string{"nan:0X7FF0000000000001", "nan:0x7FF0000000000001"}},
		{"nan:0x7fffffffffffffff", 0x7fffffffffffffff, nil},
		{"nan:0xfff8000000000000", 0xfff8000000000000, []string{"-nan"}},
		{"nan:0xfff0000000000001", 0xfff0000000000001, nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := string(textAppendFloat(nil, tt.bits)); got != tt.text {
				t.Errorf("printing bits %#016x: got %s, want %s", tt.bits, got, tt.text)
			}
			for _, in := range append([]string{tt.text}, tt.inputs...) {
				src := "func f () -> (f64)\n  regs f64\n  f64.const r0, " + in + "\n  ret r0\nend\n"
				m, err := Assemble([]byte(src))
				if err != nil {
					t.Errorf("%s: %v", in, err)
					continue
				}
				if got := uint64(m.Funcs[0].Code[0].Imm); got != tt.bits {
					t.Errorf("%s: bits %#016x, want %#016x", in, got, tt.bits)
				}
				textCheckRoundTrip(t, m)
			}
		})
	}
}

func TestAssembleErrors(t *testing.T) {
	// fn wraps a body into a function f () -> () with registers r0 (i64) and
	// r1 (f64); the body starts on line 3.
	fn := func(body string) string { return "func f () -> ()\n  regs i64 f64\n" + body + "\nend\n" }
	tests := []struct {
		name, src, want string
	}{
		// Lexical problems.
		{"unterminated string", `data 0 "abc`, "line 1: unterminated string"},
		{"unterminated escaped quote", `data 0 "abc\"`, "line 1: unterminated string"},
		{"bad escape", `data 0 "\q"`, `line 1: malformed string "\q"`},
		{"punctuation first", "memory 1 1\n, x", `line 2: unexpected "," at the start of a line`},

		// Top level.
		{"unknown directive", "fucn f () -> ()", `line 1: unknown directive "fucn"`},
		{"instruction outside", "\n\nret", "line 3: instruction ret outside a function"},
		{"label outside", "top:", `line 1: label "top" outside a function`},
		{"end outside", "end", "line 1: end outside a function"},
		{"regs outside", "regs i64", "line 1: regs outside a function"},
		{"memory twice", "memory 1 2\nmemory 1 2", "line 2: duplicate memory declaration (the first is on line 1)"},
		{"memory missing max", "memory 1", "line 1: expected maximum page count, found end of line"},
		{"memory extra", "memory 1 2 3", `line 1: unexpected "3" after the memory declaration`},
		{"memory bad number", "memory one 2", `line 1: invalid minimum page count "one"`},
		{"memory negative", "memory -1 2", `line 1: invalid minimum page count "-1"`},
		{"memory too large", "memory 1 0x100000000", "line 1: maximum page count 0x100000000 does not fit in 32 bits"},
		{"memory over limit", "memory 1 65537", "memory maximum 65537 pages exceeds the limit of 65536"},
		{"data without string", "data 0 abc", `line 1: expected a quoted string, found "abc"`},
		{"data beyond memory", "memory 1 1\ndata 65535 \"ab\"", "data segment 0 ends at byte 65537, beyond the initial memory of 65536 bytes"},
		{"host bad name", "host 9x () -> ()", `line 1: invalid host import name "9x"`},
		{"host duplicate", "host h () -> ()\nhost h (i64) -> ()", `line 2: duplicate host import "h" (the first is on line 1)`},
		{"host missing arrow", "host h (i64) (i64)", `line 1: expected "->", found "("`},
		{"host missing results", "host h (i64)", `line 1: expected "->", found end of line`},
		{"unknown type", "host h (i16) -> ()", `line 1: unknown type "i16" (want i32, i64, f32 or f64)`},
		{"comma in type list", "host h (i64, i64) -> ()", `line 1: expected a type, found ","`},
		{"func bad name", "func f-g () -> ()\nend", `line 1: invalid function name "f-g"`},
		{"func bad signature", "func f (i64 -> ()\nend", `line 1: func f: expected ")", found "->"`},
		{"func duplicate", fn("  ret") + fn("  ret"), `line 5: func f: duplicate function "f" (the first is on line 1)`},
		{"missing end", "func f () -> ()\n  ret\n", `line 1: func f: missing "end"`},
		{"nested func", "func f () -> ()\n  ret\nfunc g () -> ()\n  ret\nend", `line 3: func f: missing "end" before the next func`},
		{"data inside func", fn(`  data 0 "x"`), `line 3: func f: "data" is not allowed inside a function (missing "end"?)`},
		{"end with operand", "func f () -> ()\n  ret\nend f", `line 3: func f: unexpected "f" after "end"`},
		{"export unknown func", "export \"x\" nope", `line 1: export "x" of unknown function "nope"`},
		{"export duplicate", fn("  ret") + "export \"x\" f\nexport \"x\" f", `line 6: duplicate export "x" (the first is on line 5)`},
		{"export empty name", fn("  ret") + "export \"\" f", "line 5: empty export name"},
		{"export unquoted", fn("  ret") + "export x f", `line 5: expected a quoted export name, found "x"`},

		// Function bodies.
		{"regs twice", fn("  regs i64"), "line 3: func f: duplicate regs line (the first is on line 2)"},
		{"regs after code", "func f () -> ()\n  ret\n  regs i64\nend", "line 3: func f: regs must come before the first instruction"},
		{"regs bad type", "func f () -> ()\n  regs i64 x64\n  ret\nend", `line 2: func f: unknown type "x64" (want i32, i64, f32 or f64)`},
		{"unknown instruction", fn("  i64.foo r0, r0"), `line 3: func f: unknown instruction "i64.foo"`},
		{"duplicate label", fn("a:\n  jump a\na:\n  ret"), `line 5: func f: duplicate label "a" (the first is on line 3)`},
		{"unknown label", fn("  jump Lx\n  ret"), `line 3: func f: unknown label "Lx"`},
		{"unknown switch label", fn("a:\n  switch r0, [a, b], a"), `line 4: func f: unknown label "b"`},
		{"label at end", fn("  jump out\n  ret\nout:"), `line 3: func f: label "out" (line 5) marks no instruction: it is at the end of the function`},
		{"bad label name", fn("  jump 3"), `line 3: func f: invalid label name "3"`},
		{"bad label definition", fn("9a:\n  ret"), `line 3: func f: invalid label name "9a"`},
		{"label with instruction", fn("a: ret"), "line 3: func f: label a: must be on a line of its own"},
		{"too few operands", fn("  i64.add r0, r0"), "line 3: func f: missing operand: i64.add takes rD, rA, rB or rD, rA, INTEGER"},
		{"too many operands", fn("  i64.add r0, r0, r0, r0"), "line 3: func f: too many operands: i64.add takes rD, rA, rB or rD, rA, INTEGER"},
		{"missing comma", fn("  mov r0 r0"), `line 3: func f: expected ",", found "r0"`},
		{"no operands for ret", fn("  i64.neg"), "line 3: func f: missing operand: i64.neg takes rD, rA"},
		{"immediate where register needed", fn("  mov r0, 5"), `line 3: func f: expected a register, found "5"`},
		{"immediate not allowed", fn("  f64.add r1, r1, 2"), "line 3: func f: f64.add takes no immediate operand"},
		{"bad register", fn("  mov r0, rx"), `line 3: func f: invalid register "rx"`},
		{"register leading zero", fn("  mov r0, r01"), `line 3: func f: invalid register "r01"`},
		{"register too large", fn("  mov r0, r4294967296"), "line 3: func f: register r4294967296 does not fit in 32 bits"},
		{"bad integer", fn("  i64.const r0, 12x"), `line 3: func f: invalid integer "12x"`},
		{"integer float", fn("  i64.const r0, 1.5"), `line 3: func f: invalid integer "1.5"`},
		{"integer out of range", fn("  i64.const r0, 9223372036854775808"), "line 3: func f: integer 9223372036854775808 out of range"},
		{"hex out of range", fn("  trap 0x10000000000000000"), "line 3: func f: integer 0x10000000000000000 out of range"},
		{"negative hex out of range", fn("  trap -0x8000000000000001"), "line 3: func f: integer -0x8000000000000001 out of range"},
		{"bad float", fn("  f64.const r1, 1.5x"), `line 3: func f: invalid float "1.5x"`},
		{"float hex", fn("  f64.const r1, 0x10"), `line 3: func f: invalid float "0x10"`},
		{"float out of range", fn("  f64.const r1, 1e400"), "line 3: func f: float 1e400 out of range"},
		{"float Inf spelling", fn("  f64.const r1, Inf"), `line 3: func f: invalid float "Inf"`},
		{"nan not nan", fn("  f64.const r1, nan:0x7ff0000000000000"), "line 3: func f: nan:0x7ff0000000000000 is not a NaN bit pattern"},
		{"nan bad bits", fn("  f64.const r1, nan:123"), `line 3: func f: invalid NaN "nan:123" (want nan:0x followed by 16 hexadecimal digits)`},
		{"memory operand no bracket", fn("  i64.load r0, r0"), `line 3: func f: expected "[", found "r0"`},
		{"memory operand glued", fn("  i64.load r0, [r0 8]"), `line 3: func f: invalid memory operand "r0 8" (want [rA], [rA+OFFSET] or [rA-OFFSET])`},
		{"memory operand unclosed", fn("  i64.load r0, [r0+8"), "line 3: func f: missing operand: i64.load takes rD, [rA+OFFSET]"},
		{"memory offset range", fn("  i64.store [r0+2147483648], r0"), "line 3: func f: memory offset +2147483648 does not fit in 32 bits"},
		{"switch missing table", fn("a:\n  switch r0, a"), `line 4: func f: expected "[", found "a"`},
		{"switch trailing comma", fn("a:\n  switch r0, [a,], a"), `line 4: func f: expected a label, found "]"`},
		{"call missing parens", fn("  call f r0"), `line 3: func f: expected "(", found "r0"`},
		{"call unknown function", fn("  call g ()\n  ret"), `line 3: func f: unknown function "g"`},
		{"call unknown host", fn("  call_host g ()\n  ret"), `line 3: func f: unknown host import "g"`},
		{"ret trailing comma", fn("  ret r0,"), "line 3: func f: missing operand: ret takes rA, ... (or nothing)"},

		// Errors found by the verifier, located by source line.
		{"verify register range", fn("  i64.add r0, r0, 1\n  i64.add r0, r9, 1\n  ret"), "line 4: func f: instruction 1 (i64.add): operand A register r9 out of range (the function has 2 registers)"},
		{"verify register type", fn("  ; comment\n\n  mov r0, r1\n  ret"), "line 5: func f: instruction 0 (mov): operand A register r1 has type f64, want i64"},
		{"verify falls off end", fn("  mov r0, r0"), "line 3: func f: instruction 0 (mov): control falls off the end of the function (the last instruction must be jump, switch, ret, trap or unreachable)"},
		{"verify no code", "\nfunc f () -> ()\nend", "line 2: func f: function has no code"},
		{"verify return count", "func f () -> (i64)\n  ret\nend", "line 2: func f: instruction 0 (ret): returns 0 values; the function's signature is () -> (i64)"},
		{"verify call arguments", fn("  call f (r0)\n  ret"), "line 3: func f: instruction 0 (call): 1 arguments for a callee with signature () -> ()"},
		{"verify duplicate results", "host h () -> (i64 i64)\n" + fn("  call_host h () -> (r0, r0)\n  ret"), "line 4: func f: instruction 0 (call_host): register r0 receives two results"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Assemble([]byte(tt.src))
			if err == nil {
				t.Fatalf("Assemble succeeded; want error %q\nmodule text:\n%s", tt.want, Disassemble(m))
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, not *SyntaxError", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, tt.want)
			}
		})
	}
}

func TestAssembleVerifyErrorWrapped(t *testing.T) {
	src := "func fib (i64) -> (i64)\n  regs i64\n  i64.add r1, r0, 1\n  i64.add r1, r9, 1\n  ret r1\nend\n"
	_, err := Assemble([]byte(src))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 4 || se.Func != "fib" {
		t.Fatalf("error %v: want a SyntaxError on line 4 of fib", err)
	}
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v does not wrap a *VerifyError", err)
	}
	if ve.Func != 0 || ve.Offset != 1 || ve.Op != OpI64Add {
		t.Errorf("VerifyError = %+v, want func 0, offset 1, i64.add", ve)
	}

	// Module-level verifier errors have no line.
	_, err = Assemble([]byte("memory 2 1\n"))
	if !errors.As(err, &se) || se.Line != 0 || se.Func != "" || !errors.As(err, &ve) || ve.Func != -1 {
		t.Fatalf("error %v (%#v): want a line-less SyntaxError wrapping a module-level VerifyError", err, se)
	}
	if want := "memory minimum 2 pages exceeds its maximum 1"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestSyntaxErrorFormat(t *testing.T) {
	for _, tt := range []struct {
		e    SyntaxError
		want string
	}{
		{SyntaxError{Line: 12, Func: "fib", Msg: `unknown label "L9"`}, `line 12: func fib: unknown label "L9"`},
		{SyntaxError{Line: 3, Msg: "end outside a function"}, "line 3: end outside a function"},
		{SyntaxError{Msg: "duplicate export name"}, "duplicate export name"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestAssembleOrderIndependent checks that items keep their order of
// appearance and that names resolve across the whole input.
func TestAssembleOrderIndependent(t *testing.T) {
	src := `export "b" b
func a () -> ()
  call b () -> ()
  call_host late () -> ()
  ret
end
data 4 "x"
memory 1 1
host early () -> ()
func b () -> ()
  call_host early ()
  ret
end
host late () -> ()
data 0 "y"
export "a" a
`
	m, err := Assemble([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.Funcs[0].Name != "a" || m.Funcs[0].Code[0].Callee != 1 || m.Funcs[0].Code[1].Callee != 1 || m.Funcs[1].Code[0].Callee != 0 {
		t.Errorf("callees resolved wrongly:\n%s", Disassemble(m))
	}
	if m.Hosts[0].Name != "early" || string(m.Data[0].Bytes) != "x" || m.Exports[0] != (Export{"b", 1}) || m.Exports[1] != (Export{"a", 0}) {
		t.Errorf("items reordered:\n%s", Disassemble(m))
	}
	textCheckRoundTrip(t, m)
}

func TestAssembleCRLFAndComments(t *testing.T) {
	src := "; header\r\nfunc f () -> (i64)\r\n  regs i64 ; r0\r\n\ti64.const r0, 1;no space\r\nL0:   \r\n  ret r0   ; done\r\nend\r\nexport \"semi;colon\" f ; the ; inside the string is not a comment\r\n"
	m, err := Assemble([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.Exports[0].Name != "semi;colon" {
		t.Errorf("export name %q, want %q", m.Exports[0].Name, "semi;colon")
	}
	textCheckRoundTrip(t, m)
}

// TestAssembleLarge checks that a 100,000-line function assembles in linear
// time: each instruction branches to a label defined far away.
func TestAssembleLarge(t *testing.T) {
	const n = 100_000
	var b bytes.Buffer
	b.WriteString("func big (i64) -> (i64)\n  regs i64\n")
	for i := range n {
		fmt.Fprintf(&b, "l%d:\n  br.eq r0, %d, l%d\n", i, i, n-1-i)
	}
	b.WriteString("  ret r0\nend\n")
	start := time.Now()
	m, err := Assemble(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if got := len(m.Funcs[0].Code); got != n+1 {
		t.Fatalf("%d instructions, want %d", got, n+1)
	}
	if got := m.Funcs[0].Code[7].Target; got != n-1-7 {
		t.Fatalf("target %d, want %d", got, n-1-7)
	}
	textCheckRoundTrip(t, m)
	t.Logf("assembled %d lines in %v", 2*n+4, elapsed)
}

func BenchmarkAssemble(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var srcs [][]byte
	size := 0
	for range 50 {
		s := Disassemble(randomModule(r))
		srcs = append(srcs, s)
		size += len(s)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		for _, s := range srcs {
			if _, err := Assemble(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDisassemble(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var ms []*Module
	for range 50 {
		ms = append(ms, randomModule(r))
	}
	b.ResetTimer()
	for range b.N {
		for _, m := range ms {
			Disassemble(m)
		}
	}
}
