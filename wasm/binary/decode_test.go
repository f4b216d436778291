package binary_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/wasm/binary"
	w "github.com/kiln-jit/kiln/wasm/internal/wasmtest"
)

// typeSec is a type section with one type [] -> [].
var typeSec = w.Section(1, w.Vec([]byte{0x60, 0, 0}))

// oneFunc is the function and code sections of one function of type 0
// whose body is body (locals vector included).
func oneFunc(body ...byte) [][]byte {
	return [][]byte{
		w.Section(3, w.Vec([]byte{0})),
		w.Section(10, w.Vec(w.Cat(w.U32(uint32(len(body))), body))),
	}
}

func TestDecodeMalformed(t *testing.T) {
	body := func(code ...byte) []byte { return w.Module(append([][]byte{typeSec}, oneFunc(code...)...)...) }
	tests := []struct {
		name string
		in   []byte
		want string // the complete error message
	}{
		{"empty", nil, "malformed module: at byte 0x0: unexpected end"},
		{"short magic", []byte("\x00as"), "malformed module: at byte 0x3: unexpected end"},
		{"short bad magic", []byte("as"), "malformed module: at byte 0x0: magic header not detected"},
		{"bad magic", []byte("\x00asn\x01\x00\x00\x00"), "malformed module: at byte 0x0: magic header not detected"},
		{"short version", []byte("\x00asm\x01\x00"), "malformed module: at byte 0x6: unexpected end"},
		{"version 2", []byte("\x00asm\x02\x00\x00\x00"), "malformed module: at byte 0x4: unknown binary version 2"},
		{"section id 12 (1.0)", w.Module([]byte{12, 0}), "malformed module: at byte 0x8: invalid section id 12"},
		{"section size past the end", w.Module([]byte{1, 5, 0}), "malformed module: section type: at byte 0xa: length out of bounds: section of 5 bytes, 1 remain"},
		{"section size too large for the content", w.Module(w.Section(1, w.Vec([]byte{0x60, 0, 0}), []byte{0})),
			"malformed module: section type: at byte 0xe: section size mismatch: 1 bytes left over"},
		{"section size too small for the content", w.Module([]byte{1, 3, 1, 0x60, 0, 0}),
			"malformed module: section type: at byte 0xa: length out of bounds: 1 elements cannot fit in the 2 bytes that remain"},
		{"sections out of order", w.Module(w.Section(3, w.Vec()), typeSec),
			"malformed module: section type: at byte 0xb: unexpected content after last section (section type out of order or repeated)"},
		{"section repeated", w.Module(typeSec, typeSec),
			"malformed module: section type: at byte 0xe: unexpected content after last section (section type out of order or repeated)"},
		{"u32 too long", w.Module([]byte{1, 6, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}),
			"malformed module: section type: at byte 0xa: integer representation too long"},
		{"u32 too large", w.Module([]byte{1, 5, 0x80, 0x80, 0x80, 0x80, 0x10}),
			"malformed module: section type: at byte 0xa: integer too large"},
		{"s32 too large", body(0, 0x41, 0x80, 0x80, 0x80, 0x80, 0x70, 0x1a, 0x0b),
			"malformed module: section code: func 0: at byte 0x18: integer too large"},
		{"s32 negative sign bits not extended", body(0, 0x41, 0xff, 0xff, 0xff, 0xff, 0x4f, 0x1a, 0x0b),
			"malformed module: section code: func 0: at byte 0x18: integer too large"},
		{"s64 too long", body(0, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x1a, 0x0b),
			"malformed module: section code: func 0: at byte 0x18: integer representation too long"},
		{"s64 too large", body(0, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x1a, 0x0b),
			"malformed module: section code: func 0: at byte 0x18: integer too large"},
		{"count larger than the section", w.Module([]byte{1, 2, 0x7f, 0x60}),
			"malformed module: section type: at byte 0xa: length out of bounds: 127 elements cannot fit in the 1 bytes that remain"},
		{"function form", w.Module(w.Section(1, w.Vec([]byte{0x61, 0, 0}))),
			"malformed module: section type: at byte 0xb: malformed function type: form 0x61, want 0x60"},
		{"invalid value type (1.0)", w.Module(w.Section(1, w.Vec([]byte{0x60, 1, 0x7b, 0}))),
			"malformed module: section type: at byte 0xd: invalid value type 0x7b"},
		{"invalid UTF-8 name", w.Module(w.Section(2, w.Vec(w.Cat(w.Name("\xff"), w.Name("f"), []byte{0, 0})))),
			"malformed module: section import: at byte 0xb: invalid UTF-8 encoding"},
		{"name longer than the section", w.Module(w.Section(0, []byte{9, 'a'})),
			"malformed module: section custom: at byte 0xa: length out of bounds: a name of 9 bytes, 1 remain"},
		{"import kind", w.Module(w.Section(2, w.Vec(w.Cat(w.Name("m"), w.Name("f"), []byte{4, 0})))),
			"malformed module: section import: at byte 0xf: malformed import kind 0x04"},
		{"limits flag", w.Module(w.Section(5, w.Vec([]byte{2, 0}))),
			"malformed module: section memory: at byte 0xb: integer too large: limits flag 0x02"},
		{"element type (1.0)", w.Module(w.Section(4, w.Vec([]byte{0x6f, 0, 0}))),
			"malformed module: section table: at byte 0xb: malformed element type 0x6f (want funcref, 0x70)"},
		{"mutability", w.Module(w.Section(6, w.Vec([]byte{0x7f, 2, 0x41, 0, 0x0b}))),
			"malformed module: section global: at byte 0xc: invalid mutability 0x02"},
		{"export kind", w.Module(w.Section(7, w.Vec(w.Cat(w.Name("e"), []byte{4, 0})))),
			"malformed module: section export: at byte 0xd: malformed export kind 0x04"},
		{"functions without code", w.Module(typeSec, w.Section(3, w.Vec([]byte{0}))),
			"malformed module: section code: at byte 0x12: function and code section have inconsistent lengths: 1 functions, no code section"},
		{"more bodies than functions", w.Module(typeSec, w.Section(10, w.Vec([]byte{2, 0, 0x0b}))),
			"malformed module: section code: at byte 0x10: function and code section have inconsistent lengths: 0 functions, 1 bodies"},
		{"too many locals", body(2, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f, 0x02, 0x7f, 0x0b),
			"malformed module: section code: func 0: at byte 0x1d: too many locals: 4294967297"},
		{"illegal opcode (1.0)", body(0, 0xc0, 0x0b), "malformed module: section code: func 0: at byte 0x17: illegal opcode 0xc0"},
		{"saturating truncation prefix (1.0)", body(0, 0xfc, 0x00, 0x0b), "malformed module: section code: func 0: at byte 0x17: illegal opcode 0xfc 0x00"},
		{"memory.size reserved byte", body(0, 0x3f, 0x01, 0x1a, 0x0b), "malformed module: section code: func 0: at byte 0x18: zero flag expected"},
		{"call_indirect reserved byte (1.0)", body(0, 0x41, 0, 0x11, 0, 0x01, 0x0b), "malformed module: section code: func 0: at byte 0x1b: zero flag expected"},
		{"block type (1.0)", body(0, 0x02, 0x7b, 0x0b, 0x0b), "malformed module: section code: func 0: at byte 0x18: invalid block type 0x7b"},
		{"missing end", body(0, 0x01), "malformed module: section code: func 0: at byte 0x18: unexpected end of section or function: END opcode expected"},
		{"unclosed block", body(0, 0x02, 0x40, 0x0b), "malformed module: section code: func 0: at byte 0x1a: unexpected end of section or function: END opcode expected"},
		{"code after the final end", body(0, 0x0b, 0x01), "malformed module: section code: func 0: at byte 0x18: section size mismatch: 1 bytes after the function's final end"},
		{"else outside if", body(0, 0x02, 0x40, 0x05, 0x0b, 0x0b), "malformed module: section code: func 0: at byte 0x19: else without a matching if"},
		{"two elses", body(0, 0x41, 0, 0x04, 0x40, 0x05, 0x05, 0x0b, 0x0b), "malformed module: section code: func 0: at byte 0x1c: else without a matching if"},
		{"f64.const cut short", body(0, 0x44, 0, 0, 0x0b), "malformed module: section code: func 0: at byte 0x18: unexpected end of section or function"},
		{"br_table count past the end", body(0, 0x0e, 0x7f, 0x0b), "malformed module: section code: func 0: at byte 0x18: length out of bounds: 127 elements cannot fit in the 1 bytes that remain"},
		{"global initializer without end", w.Module(w.Section(6, w.Vec([]byte{0x7f, 0, 0x41, 0}))),
			"malformed module: section global: at byte 0xf: unexpected end of section or function: END opcode expected"},
		{"data count section (1.0)", w.Module([]byte{12, 1, 0}), "malformed module: at byte 0x8: invalid section id 12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			features := binary.Features2
			if strings.HasSuffix(tc.name, "(1.0)") {
				features = binary.Features1
			}
			m, err := binary.DecodeFeatures(tc.in, features)
			if err == nil {
				t.Fatalf("decoded %+v; want error %q", m, tc.want)
			}
			var de *binary.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *binary.Error", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n%s\nwant\n%s", err, tc.want)
			}
		})
	}
}

func TestDecodeModule(t *testing.T) {
	var b w.Builder
	t0 := b.Type([]binary.ValType{binary.I32, binary.I64}, []binary.ValType{binary.F64})
	t1 := b.Type(nil, nil)
	imp := b.ImportFunc("env", "log", t1)
	ig := b.ImportGlobal("env", "base", binary.I32, false)
	f := b.Func(t0, []binary.ValType{binary.F32, binary.F32}, w.F64Const(1.5))
	start := b.Func(t1, nil)
	b.Table(2, 10)
	b.Memory(1, -1)
	g := b.Global(binary.I64, true, w.I64Const(-7))
	b.Export("f", binary.ExternFunc, f)
	b.Export("g", binary.ExternGlobal, g)
	b.Export("mem", binary.ExternMemory, 0)
	b.Start(start)
	b.Elem(w.Op(binary.OpGlobalGet, ig), f, imp)
	b.Data(w.I32Const(16), []byte("hi"))
	in := append(b.Bytes(), w.Section(0, w.Name("note"), []byte{1, 2, 3})...)

	m, err := binary.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"types", len(m.Types), 2},
		{"type 0", m.Types[0].String(), "[i32 i64] -> [f64]"},
		{"imports", len(m.Imports), 2},
		{"import 0", m.Imports[0].Module + "." + m.Imports[0].Name + " " + m.Imports[0].Kind.String(), "env.log func"},
		{"import 1 type", m.Imports[1].Global, binary.GlobalType{Type: binary.I32}},
		{"imported funcs", m.NumImportedFuncs, 1},
		{"imported globals", m.NumImportedGlobals, 1},
		{"funcs", m.Funcs, []uint32{0, 1}},
		{"function space", m.NumFuncs(), 3},
		{"table", m.Tables[0], binary.TableType{Elem: binary.ElemFuncRef, Limits: binary.Limits{Min: 2, Max: 10, HasMax: true}}},
		{"memory", m.Mems[0], binary.Limits{Min: 1}},
		{"global", m.Globals[0].Type, binary.GlobalType{Type: binary.I64, Mutable: true}},
		{"global init", string(m.Globals[0].Init.Code), string(append(w.I64Const(-7), 0x0b))},
		{"exports", len(m.Exports), 3},
		{"export 2", m.Exports[2].Name + " " + m.Exports[2].Kind.String(), "mem memory"},
		{"start", m.Start, start},
		{"has start", m.HasStart, true},
		{"elem funcs", m.Elems[0].Funcs, []uint32{f, imp}},
		{"locals", m.Codes[0].Locals, []binary.LocalRun{{1, binary.F32}, {1, binary.F32}}},
		{"num locals", m.Codes[0].NumLocals, uint64(2)},
		{"body", string(m.Codes[0].Body), string(append(w.F64Const(1.5), 0x0b))},
		{"data", string(m.Datas[0].Bytes), "hi"},
		{"custom", m.Customs[0].Name, "note"},
		{"custom data", m.Customs[0].Data, []byte{1, 2, 3}},
	}
	for _, c := range checks {
		if !equal(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	if ft, ok := m.FuncTypeIndex(imp); !ok || ft != t1 {
		t.Errorf("FuncTypeIndex(%d) = %d, %v; want %d", imp, ft, ok, t1)
	}
	if _, ok := m.FuncTypeIndex(3); ok {
		t.Error("FuncTypeIndex(3) is out of range but found")
	}
}

func equal(a, b any) bool {
	switch a := a.(type) {
	case []uint32:
		b := b.([]uint32)
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	case []byte:
		return string(a) == string(b.([]byte))
	case []binary.LocalRun:
		b := b.([]binary.LocalRun)
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	return a == b
}

// TestLEB128 decodes the boundary encodings of i32.const and i64.const.
func TestLEB128(t *testing.T) {
	tests := []struct {
		name  string
		op    binary.Opcode
		bytes []byte
		want  uint64
	}{
		{"i32 0", binary.OpI32Const, []byte{0}, 0},
		{"i32 -1", binary.OpI32Const, []byte{0x7f}, 0xffffffff},
		{"i32 63", binary.OpI32Const, []byte{0x3f}, 63},
		{"i32 64 needs two bytes", binary.OpI32Const, []byte{0xc0, 0}, 64},
		{"i32 -1 padded to 5 bytes", binary.OpI32Const, []byte{0xff, 0xff, 0xff, 0xff, 0x7f}, 0xffffffff},
		{"i32 min", binary.OpI32Const, []byte{0x80, 0x80, 0x80, 0x80, 0x78}, 0x80000000},
		{"i32 max", binary.OpI32Const, []byte{0xff, 0xff, 0xff, 0xff, 0x07}, 0x7fffffff},
		{"i64 min", binary.OpI64Const, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, 1 << 63},
		{"i64 max", binary.OpI64Const, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, 1<<63 - 1},
		{"i64 0 padded", binary.OpI64Const, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code := append(append([]byte{byte(tc.op)}, tc.bytes...), 0x0b)
			cr := binary.NewCodeReader(code, 0, "test", -1)
			var in binary.Instr
			if err := cr.Next(&in); err != nil {
				t.Fatal(err)
			}
			if in.Value != tc.want {
				t.Errorf("got %#x, want %#x", in.Value, tc.want)
			}
			if err := cr.Next(&in); err != nil || in.Op != binary.OpEnd || !cr.Done() {
				t.Errorf("after the constant: %v %v, done %v", in.Op, err, cr.Done())
			}
		})
	}
}

// TestOpcodeNames checks the names of a few opcodes, those of 2.0
// included.
func TestOpcodeNames(t *testing.T) {
	for op, want := range map[binary.Opcode]string{
		0x6a: "i32.add", 0x7c: "i64.add", 0x5d: "f32.lt", 0x63: "f64.lt", 0xa7: "i32.wrap_i64",
		0xbf: "f64.reinterpret_i64", 0x28: "i32.load", 0x3e: "i64.store32", 0x11: "call_indirect",
		0xc0: "i32.extend8_s", 0xfc: "illegal opcode", 0x06: "illegal opcode",
		binary.OpI64TruncSatF64U: "i64.trunc_sat_f64_u", binary.OpMemoryCopy: "memory.copy", 0xfc12: "illegal opcode",
	} {
		if got := op.String(); got != want {
			t.Errorf("opcode %#x: %q, want %q", uint16(op), got, want)
		}
	}
	if in, out, ok := binary.Opcode(0x4a).Numeric(); !ok || len(in) != 2 || out != binary.I32 || in[0] != binary.I32 {
		t.Errorf("i32.gt_s: %v %v %v", in, out, ok)
	}
	if _, _, align, ok := binary.OpI64Load16U.Memory(); !ok || align != 1 {
		t.Errorf("i64.load16_u natural alignment %d, %v; want 1", align, ok)
	}
	if !strings.Contains(binary.FuncType{Params: []binary.ValType{binary.F32}}.String(), "f32") {
		t.Error("FuncType.String")
	}
}
