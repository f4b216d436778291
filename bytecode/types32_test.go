package bytecode

import (
	"math"
	"strings"
	"testing"
)

// TestVerify32 checks the verifier's rules for the 32-bit types: operand
// types, the i32 immediate and f32 constant ranges, and the operands that
// take either integer type.
func TestVerify32(t *testing.T) {
	fn := func(code ...Instr) *Module {
		return &Module{
			Memory: Memory{MinPages: 1, MaxPages: 1},
			Funcs: []*Function{{
				Name: "f",
				Regs: []Type{I32, I64, F32, F64, I32},
				Code: append(code, Instr{Op: OpReturn}),
			}},
		}
	}
	tests := []struct {
		name string
		in   Instr
		want string // "" for valid
	}{
		{"i32.add", Instr{Op: OpI32Add, Dst: 0, A: 0, B: 4}, ""},
		{"i32.add imm", Instr{Op: OpI32Add, Dst: 0, A: 0, UseImm: true, Imm: math.MinInt32}, ""},
		{"i32.add imm too big", Instr{Op: OpI32Add, Dst: 0, A: 0, UseImm: true, Imm: math.MaxInt32 + 1}, "i32 immediate 2147483648 is not in the int32 range"},
		{"i32.add i64 operand", Instr{Op: OpI32Add, Dst: 0, A: 1, B: 0}, "operand A register r1 has type i64, want i32"},
		{"i32.const", Instr{Op: OpI32Const, Dst: 0, Imm: -1}, ""},
		{"i32.const range", Instr{Op: OpI32Const, Dst: 0, Imm: 1 << 32}, "not in the int32 range"},
		{"f32.const", Instr{Op: OpF32Const, Dst: 2, Imm: 0xffffffff}, ""},
		{"f32.const range", Instr{Op: OpF32Const, Dst: 2, Imm: -1}, "f32 constant bits"},
		{"f32.add f64 operand", Instr{Op: OpF32Add, Dst: 2, A: 2, B: 3}, "operand B register r3 has type f64, want f32"},
		{"i64 compare into i32", Instr{Op: OpI64LtS, Dst: 0, A: 1, B: 1}, ""},
		{"f64 compare into i64", Instr{Op: OpF64Lt, Dst: 1, A: 3, B: 3}, ""},
		{"f32 compare into f32", Instr{Op: OpF32Lt, Dst: 2, A: 2, B: 2}, "destination register r2 has type f32, want i32 or i64"},
		{"br_if on i32", Instr{Op: OpBrIf, A: 0, Target: 1}, ""},
		{"br_if on f32", Instr{Op: OpBrIf, A: 2, Target: 1}, "operand A register r2 has type f32, want i32 or i64"},
		{"br.i32 imm", Instr{Op: OpBrI32GeU, A: 0, UseImm: true, Imm: -5, Target: 1}, ""},
		{"load through i32 address", Instr{Op: OpI32Load8S, Dst: 0, A: 4, Imm: 3}, ""},
		{"store f32 through i64 address", Instr{Op: OpF32Store, A: 1, B: 2}, ""},
		{"store f64 into f32 op", Instr{Op: OpF32Store, A: 1, B: 3}, "operand B register r3 has type f64, want f32"},
		{"select on i32", Instr{Op: OpSelect, Dst: 2, A: 0, B: 2, C: 2}, ""},
		{"select types differ", Instr{Op: OpSelect, Dst: 2, A: 0, B: 3, C: 2}, "operand B register r3 has type f64, want f32"},
		{"wrap", Instr{Op: OpI32WrapI64, Dst: 0, A: 1}, ""},
		{"wrap wrong way", Instr{Op: OpI32WrapI64, Dst: 1, A: 0}, "destination register r1 has type i64, want i32"},
		{"memory.grow i32", Instr{Op: OpMemoryGrow, Dst: 0, A: 4}, ""},
		{"reinterpret", Instr{Op: OpF32ReinterpretI32, Dst: 2, A: 0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(fn(tt.in))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("accepted; want an error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q does not contain %q", err, tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), "func f: instruction 0 ("):
				t.Fatalf("error %q does not name the function and offset", err)
			}
		})
	}
}

// TestText32 checks the text form of the 32-bit types: literals, their
// canonical printing and the round trip.
func TestText32(t *testing.T) {
	src := `func f (i32 f32) -> (i32)
  regs i32 f32 i32 f32 i64
  i32.const r2, 4294967295
  f32.const r3, 0.1
  f32.const r3, -inf
  f32.const r3, nan:0x7fa00000
  f32.const r3, 16777217
  i32.add r0, r0, -7
  br.i32.lt_u r0, r2, L9
  i32.eqz r4, r0
  f32.add r1, r1, r3
L9:
  ret r0
end
`
	m, err := Assemble([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	code := m.Funcs[0].Code
	for i, want := range []int64{-1, int64(math.Float32bits(0.1)), int64(math.Float32bits(float32(math.Inf(-1)))), 0x7fa00000, 0x4b800000} {
		if code[i].Imm != want {
			t.Errorf("constant %d: Imm %#x, want %#x", i, code[i].Imm, want)
		}
	}
	text := string(Disassemble(m))
	for _, want := range []string{"i32.const r2, -1", "f32.const r3, 0.1", "f32.const r3, -inf", "f32.const r3, nan:0x7fa00000", "f32.const r3, 1.6777216e+07", "br.i32.lt_u r0, r2, L"} {
		if !strings.Contains(text, want) {
			t.Errorf("disassembly lacks %q:\n%s", want, text)
		}
	}
	m2, err := Assemble([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(Disassemble(m2)); got != text {
		t.Fatalf("round trip changed the text:\n%s\nvs\n%s", text, got)
	}
	for _, bad := range []struct{ src, want string }{
		{"i32.const r0, 4294967296", "i32 constant 4294967296 out of range"},
		{"f32.const r1, 1e39", "f32 1e39 out of range"},
		{"f32.const r1, nan:0x7f800000", "is not an f32 NaN bit pattern"},
	} {
		_, err := Assemble([]byte("func f () -> ()\n  regs i32 f32\n  " + bad.src + "\n  ret\nend\n"))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want %q", bad.src, err, bad.want)
		}
	}
}
