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

// TestSegments2 parses the element and data segment forms of
// WebAssembly 2.0 and checks what they decode to.
func TestSegments2(t *testing.T) {
	const funcs = `(func $f) (func $g)`
	tests := []struct {
		name  string
		src   string
		mode  binary.SegmentMode
		table uint32
		funcs []uint32 // of a segment of function indices
		exprs int      // of a segment of expressions
		typ   binary.ValType
	}{
		{"1.0 form", `(table 2 funcref) (elem (i32.const 0) $f $g)`, binary.SegmentActive, 0, []uint32{0, 1}, 0, binary.FuncRef},
		{"func keyword", `(table 2 funcref) (elem (offset (i32.const 1)) func $g)`, binary.SegmentActive, 0, []uint32{1}, 0, binary.FuncRef},
		{"table use", `(table 1 funcref) (table $t 2 funcref) (elem (table $t) (i32.const 0) func $f)`, binary.SegmentActive, 1, []uint32{0}, 0, binary.FuncRef},
		{"passive", `(elem $e func $f $g)`, binary.SegmentPassive, 0, []uint32{0, 1}, 0, binary.FuncRef},
		{"declare", `(elem declare func $g)`, binary.SegmentDeclarative, 0, []uint32{1}, 0, binary.FuncRef},
		{"expressions", `(table 2 funcref) (elem (i32.const 0) funcref (ref.func $f) (item ref.null func))`, binary.SegmentActive, 0, nil, 2, binary.FuncRef},
		{"passive expressions", `(elem funcref (ref.func $g))`, binary.SegmentPassive, 0, nil, 1, binary.FuncRef},
		{"externref", `(table 1 externref) (elem (table 0) (i32.const 0) externref (ref.null extern))`, binary.SegmentActive, 0, nil, 1, binary.ExternRef},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse([]byte("(module " + funcs + tc.src + ")"))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Elems) != 1 {
				t.Fatalf("%d element segments, want 1", len(m.Elems))
			}
			e := m.Elems[0]
			if e.Mode != tc.mode || e.Table != tc.table || e.Type != tc.typ || len(e.Exprs) != tc.exprs ||
				len(e.Funcs) != len(tc.funcs) {
				t.Fatalf("segment %+v, want mode %d table %d type %s funcs %v and %d expressions", e, tc.mode, tc.table, tc.typ, tc.funcs, tc.exprs)
			}
			for i, f := range tc.funcs {
				if e.Funcs[i] != f {
					t.Errorf("funcs %v, want %v", e.Funcs, tc.funcs)
				}
			}
		})
	}
	datas := []struct {
		src  string
		mode binary.SegmentMode
		data string
	}{
		{`(memory 1) (data (i32.const 8) "ab" "c")`, binary.SegmentActive, "abc"},
		{`(memory 1) (data (memory 0) (offset (i32.const 8)) "x")`, binary.SegmentActive, "x"},
		{`(memory 1) (data $d "passive")`, binary.SegmentPassive, "passive"},
		{`(data "")`, binary.SegmentPassive, ""},
	}
	for _, tc := range datas {
		m, err := Parse([]byte("(module " + tc.src + ")"))
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if len(m.Datas) != 1 || m.Datas[0].Mode != tc.mode || string(m.Datas[0].Bytes) != tc.data {
			t.Errorf("%s: %+v, want mode %d and %q", tc.src, m.Datas, tc.mode, tc.data)
		}
	}
}

// TestInstructions2 parses instructions of WebAssembly 2.0 and compares
// their encoding.
func TestInstructions2(t *testing.T) {
	tests := []struct {
		src  string
		want []byte // the body's instructions, the final end left out
	}{
		{"(i32.extend8_s (local.get 0))", []byte{0x20, 0, 0xc0}},
		{"(i64.trunc_sat_f64_u (f64.const 0)) drop", append(append([]byte{0x44}, make([]byte, 8)...), 0xfc, 7, 0x1a)},
		{"(select (result i32) (i32.const 1) (i32.const 2) (local.get 0))", []byte{0x41, 1, 0x41, 2, 0x20, 0, 0x1c, 1, 0x7f}},
		{"(memory.copy (local.get 0) (local.get 0) (local.get 0))", []byte{0x20, 0, 0x20, 0, 0x20, 0, 0xfc, 10, 0, 0}},
		{"(memory.fill (local.get 0) (local.get 0) (local.get 0))", []byte{0x20, 0, 0x20, 0, 0x20, 0, 0xfc, 11, 0}},
		// Type 1 is the function's [i32] -> [], type 2 the block's.
		{"(block (result i32 i32) (i32.const 1) (i32.const 2)) drop drop", []byte{0x02, 2, 0x41, 1, 0x41, 2, 0x0b, 0x1a, 0x1a}},
		{"(local.get 0) (block (param i32) drop)", []byte{0x20, 0, 0x02, 1, 0x1a, 0x0b}},
		{"(call_indirect 0 (type 0) (local.get 0) (i32.const 0)) drop", []byte{0x20, 0, 0x41, 0, 0x11, 0, 0, 0x1a}},
		{"(drop (ref.func 0))", []byte{0xd2, 0, 0x1a}},
	}
	if _, err := ToBinary([]byte("(func (drop (v128.const i32x4 0 0 0 0)))")); err == nil || !strings.Contains(err.Error(), "unsupported: v128.const (SIMD)") {
		t.Errorf("v128.const: %v, want unsupported SIMD", err)
	}
	for _, tc := range tests {
		src := "(module (type (func (param i32) (result i32))) (table 1 funcref) (memory 1) (func (param i32) " + tc.src + "))"
		b, err := ToBinary([]byte(src))
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		m, err := binary.Decode(b)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		body := m.Codes[len(m.Codes)-1].Body
		if got := body[:len(body)-1]; !bytes.Equal(got, tc.want) {
			t.Errorf("%s: % x, want % x", tc.src, got, tc.want)
		}
	}
}
