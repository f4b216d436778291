package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/wasm/binary"
	w "github.com/kiln-jit/kiln/wasm/internal/wasmtest"
)

func TestNumbers(t *testing.T) {
	ints := []struct {
		s    string
		bits uint
		want uint64
		err  error
	}{
		{"0", 32, 0, nil},
		{"4294967295", 32, 0xffffffff, nil},
		{"4294967296", 32, 0, errRange},
		{"-2147483648", 32, 0x80000000, nil},
		{"-2147483649", 32, 0, errRange},
		{"+2147483647", 32, 0x7fffffff, nil},
		{"+2147483648", 32, 0, errRange},
		{"0xffff_ffff", 32, 0xffffffff, nil},
		{"-0x8000_0000", 32, 0x80000000, nil},
		{"1_000_000", 32, 1000000, nil},
		{"18446744073709551615", 64, 1<<64 - 1, nil},
		{"18446744073709551616", 64, 0, errRange},
		{"-9223372036854775808", 64, 1 << 63, nil},
		{"-9223372036854775809", 64, 0, errRange},
		{"-1", 64, 1<<64 - 1, nil},
		{"_1", 32, 0, errSyntax},
		{"1_", 32, 0, errSyntax},
		{"1__0", 32, 0, errSyntax},
		{"0x", 32, 0, errSyntax},
		{"0x_1", 32, 0, errSyntax},
		{"1.0", 32, 0, errSyntax},
		{"nan", 32, 0, errSyntax},
	}
	for _, tc := range ints {
		got, err := parseInt(tc.s, tc.bits)
		if got != tc.want || err != tc.err {
			t.Errorf("parseInt(%q, %d) = %#x, %v; want %#x, %v", tc.s, tc.bits, got, err, tc.want, tc.err)
		}
	}
	floats := []struct {
		s    string
		bits int
		want uint64
		err  error
	}{
		{"0", 32, 0, nil},
		{"-0", 32, 0x80000000, nil},
		{"1", 32, 0x3f800000, nil},
		{"1.", 32, 0x3f800000, nil},
		{"1.5e1", 32, 0x41700000, nil},
		{"1E+1_0", 64, 0x4202a05f20000000, nil},
		{"0x1p-1", 32, 0x3f000000, nil},
		{"0x1.8", 64, 0x3ff8000000000000, nil},
		{"-0x1.fffffep127", 32, 0xff7fffff, nil},
		{"0x1p128", 32, 0, errRange},
		{"0x1.ffffffp127", 32, 0, errRange},
		{"1e39", 32, 0, errRange},
		{"1e-50", 32, 0, nil},
		{"0x1p-149", 32, 1, nil},
		{"0x1p1024", 64, 0, errRange},
		{"inf", 32, 0x7f800000, nil},
		{"-inf", 64, 0xfff0000000000000, nil},
		{"nan", 32, 0x7fc00000, nil},
		{"-nan", 64, 0xfff8000000000000, nil},
		{"nan:0x1", 32, 0x7f800001, nil},
		{"+nan:0x7f_ffff", 32, 0x7fffffff, nil},
		{"nan:0x80_0000", 32, 0, errRange},
		{"nan:0x0", 64, 0, errRange},
		{"nan:1", 32, 0, errSyntax},
		{"1._0", 32, 0, errSyntax},
		{"1e", 32, 0, errSyntax},
		{"0x1p", 32, 0, errSyntax},
		{".5", 32, 0, errSyntax},
		{"infinity", 32, 0, errSyntax},
	}
	for _, tc := range floats {
		got, err := parseFloat(tc.s, tc.bits)
		if got != tc.want || err != tc.err {
			t.Errorf("parseFloat(%q, %d) = %#x, %v; want %#x, %v", tc.s, tc.bits, got, err, tc.want, tc.err)
		}
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		src, want, err string
	}{
		{`"abc"`, "abc", ""},
		{`"\t\n\r\"\'\\"`, "\t\n\r\"'\\", ""},
		{`"\00\ff\7F"`, "\x00\xff\x7f", ""},
		{`"\u{48}\u{e9}\u{1F600}"`, "Hé😀", ""},
		{`"é"`, "é", ""},
		{`"\u{d800}"`, "", "illegal escape"},
		{`"\u{110000}"`, "", "out of range"},
		{`"\x"`, "", "illegal escape"},
		{`"abc`, "", "unclosed string"},
		{"\"a\nb\"", "", "control character"},
		{"\"\xff\"", "", "UTF-8"},
	}
	for _, tc := range tests {
		toks, err := lex([]byte(tc.src))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("lex(%q): error %v, want %q", tc.src, err, tc.err)
			}
		case err != nil:
			t.Errorf("lex(%q): %v", tc.src, err)
		case toks[0].kind != tString || toks[0].text != tc.want:
			t.Errorf("lex(%q) = %q, want %q", tc.src, toks[0].text, tc.want)
		}
	}
}

// TestEncode compares the encodings of small modules with modules built
// with wasmtest.
func TestEncode(t *testing.T) {
	i32 := []binary.ValType{binary.I32}
	tests := []struct {
		name string
		src  string
		want func() []byte
	}{
		{"empty", "(module)", func() []byte { return w.Module() }},
		{"bare", ";; fields alone\n(func) (; nested (; block ;) comment ;)", func() []byte {
			b := &w.Builder{}
			b.Func(b.Type(nil, nil), nil)
			return b.Bytes()
		}},
		{"names and folding", `(module
		  (type $t (func (param i32) (result i32)))
		  (func $f (export "f") (type $t) (param $x i32) (result i32) (local $y i32)
		    (local.set $y (i32.add (local.get $x) (i32.const -1)))
		    (block $b (result i32) (br $b (local.get $y)))))`, func() []byte {
			b := &w.Builder{}
			f := b.Func(b.Type(i32, i32), i32,
				w.Op(binary.OpLocalGet, 0), w.I32Const(-1), w.Ops(0x6A), w.Op(binary.OpLocalSet, 1),
				[]byte{byte(binary.OpBlock), byte(binary.I32)}, w.Op(binary.OpLocalGet, 1), w.Op(binary.OpBr, 0),
				w.Ops(binary.OpEnd))
			b.Export("f", binary.ExternFunc, f)
			return b.Bytes()
		}},
		{"imports", `(module (import "m" "g" (global $g i32)) (func (import "m" "f") (param i32))
		  (global (export "h") (mut i32) (global.get $g)))`, func() []byte {
			b := &w.Builder{}
			g := b.ImportGlobal("m", "g", binary.I32, false)
			b.ImportFunc("m", "f", b.Type(i32, nil))
			h := b.Global(binary.I32, true, w.Op(binary.OpGlobalGet, g))
			b.Export("h", binary.ExternGlobal, h)
			return b.Bytes()
		}},
		{"memory", `(memory 1 2) (func (drop (i64.load32_u offset=0x10 align=2 (i32.const 0))) (f32.store (i32.const 0) (f32.const 1)))`, func() []byte {
			b := &w.Builder{}
			b.Memory(1, 2)
			b.Func(b.Type(nil, nil), nil, w.I32Const(0), w.Mem(binary.OpI64Load32U, 1, 16), w.Ops(binary.OpDrop),
				w.I32Const(0), w.F32Const(1), w.Mem(binary.OpF32Store, 2, 0))
			return b.Bytes()
		}},
	}
	for _, tc := range tests {
		got, err := ToBinary([]byte(tc.src))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if want := tc.want(); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got % x\nwant % x", tc.name, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"(func (i32.foo))", "1:8: unknown operator"},
		{"(func\n  (nop) (param i32))", "2:10: unexpected token"},
		{"(func (result i32) (param i32) (i32.const 0))", "unexpected token"},
		{"(type $t (func)) (func (type $t) (param i32))", "inline function type"},
		{"(func block $a end $b)", "mismatching label"},
		{"(func (i32.const 0x1_0000_0000) drop)", "constant out of range"},
		{"(func (f64.const 1e309) drop)", "constant out of range"},
		{"(func (f32.const 1_.0) drop)", "unknown operator"},
		{"(memory 1) (func (drop (i32.load align=3 (i32.const 0))))", "alignment"},
		{"(memory 1) (func (drop (i32.load offset=4294967296 (i32.const 0))))", "i32 constant"},
		{"(func (br $l))", "unknown label $l"},
		{"(func (call $g))", "unknown func $g"},
		{"(func (local.get $x))", "unknown local $x"},
		{"(func $f) (func $f)", "duplicate func $f"},
		{"(func) (import \"m\" \"n\" (func))", "import after function"},
		{"(func", "unclosed"},
		{"(func))", "unexpected token"},
		{"(func (; open", "unclosed block comment"},
		{"(module) (func)", "unexpected token"},
		{"(frob)", "unexpected token"},
		{"(start 0) (start 0)", "multiple start"},
		{"(export \"\xff\" (func 0))", "UTF-8"},
		{`(func (i32.const 0"x"))`, "unexpected character"},
		{"(func \x01)", "unexpected character"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): error %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestDeep checks that deep nesting is an error, not a crash.
func TestDeep(t *testing.T) {
	src := "(func " + strings.Repeat("(block ", 20000) + strings.Repeat(")", 20001)
	if _, err := Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("error %v, want one about nesting", err)
	}
	src = "(func " + strings.Repeat("block ", 20000) + strings.Repeat("end ", 20000) + ")"
	if _, err := Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("error %v, want one about nesting", err)
	}
}
