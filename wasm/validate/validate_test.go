package validate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/wasm/binary"
	w "github.com/kiln-jit/kiln/wasm/internal/wasmtest"
	"github.com/kiln-jit/kiln/wasm/validate"
)

var (
	i32 = binary.I32
	i64 = binary.I64
	f32 = binary.F32
	f64 = binary.F64
)

func vt(ts ...binary.ValType) []binary.ValType { return ts }

// fn returns a module with one function of type params -> results, the
// given locals and body, plus a memory, a table and a mutable and an
// immutable i32 global, for the body tests.
func fn(params, results, locals []binary.ValType, body ...[]byte) []byte {
	var b w.Builder
	t := b.Type(params, results)
	b.Type(vt(i32), vt(i32))
	b.Func(t, locals, body...)
	b.Memory(1, -1)
	b.Table(1, -1)
	b.Global(i32, true, w.I32Const(0))
	b.Global(i32, false, w.I32Const(0))
	return b.Bytes()
}

// manyLocals returns a module whose function declares 2^32-1 f32 locals
// in one run and returns local x.
func manyLocals(x uint32) []byte {
	body := w.Cat([]byte{1}, w.U32(0xffffffff), []byte{byte(f32)}, w.Op(binary.OpLocalGet, x), w.Ops(end))
	return w.Module(
		w.Section(1, w.Vec(w.Cat([]byte{0x60}, w.Vec(), w.Vec([]byte{byte(f32)})))),
		w.Section(3, w.Vec([]byte{0})),
		w.Section(10, w.Vec(w.Cat(w.U32(uint32(len(body))), body))))
}

func ops(o ...binary.Opcode) []byte { return w.Ops(o...) }

const (
	block  = binary.OpBlock
	loop   = binary.OpLoop
	ifOp   = binary.OpIf
	elseOp = binary.OpElse
	end    = binary.OpEnd
)

func bt(t binary.ValType) []byte { return []byte{byte(t)} }

func TestValidateBodies(t *testing.T) {
	empty := []byte{0x40}
	tests := []struct {
		name string
		in   []byte
		want string // "" for valid
	}{
		{"empty", fn(nil, nil, nil), ""},
		{"add", fn(vt(i32, i32), vt(i32), nil, w.Op(binary.OpLocalGet, 0), w.Op(binary.OpLocalGet, 1), ops(0x6a)), ""},
		{"missing result", fn(nil, vt(i32), nil), "invalid module: section code: func 0: at byte 0x35: type mismatch: end needs an operand but the block's stack is empty"},
		{"extra value", fn(nil, nil, nil, w.I32Const(1)), "invalid module: section code: func 0: at byte 0x36: type mismatch: 1 values left on the stack at the end of the block"},
		{"operand type", fn(nil, vt(i32), nil, w.I64Const(1), w.I32Const(1), ops(0x6a)), "invalid module: section code: func 0: at byte 0x39: type mismatch: i32.add expects i32, found i64"},
		{"result type", fn(nil, vt(i32), nil, w.F32Const(1)), "invalid module: section code: func 0: at byte 0x3a: type mismatch: end expects i32, found f32"},
		{"unknown local", fn(vt(i32), nil, vt(i64), w.Op(binary.OpLocalGet, 2), ops(binary.OpDrop)), "invalid module: section code: func 0: at byte 0x37: unknown local 2 (the function has 2 locals)"},
		{"local type", fn(vt(i32), nil, vt(i64), w.I32Const(0), w.Op(binary.OpLocalSet, 1)), "invalid module: section code: func 0: at byte 0x39: type mismatch: local.set expects i64, found i32"},
		{"unknown global", fn(nil, nil, nil, w.Op(binary.OpGlobalGet, 2), ops(binary.OpDrop)), "invalid module: section code: func 0: at byte 0x34: unknown global 2"},
		{"immutable global", fn(nil, nil, nil, w.I32Const(0), w.Op(binary.OpGlobalSet, 1)), "invalid module: section code: func 0: at byte 0x36: global is immutable: global.set of global 1"},
		{"mutable global", fn(nil, nil, nil, w.I32Const(0), w.Op(binary.OpGlobalSet, 0)), ""},
		{"unknown function", fn(nil, nil, nil, w.Op(binary.OpCall, 1)), "invalid module: section code: func 0: at byte 0x34: unknown function 1"},
		{"unknown type", fn(nil, nil, nil, w.I32Const(0), w.Op(binary.OpCallIndirect, 2), []byte{0}), "invalid module: section code: func 0: at byte 0x36: unknown type 2"},
		{"call_indirect", fn(nil, vt(i32), nil, w.I32Const(5), w.I32Const(0), w.Op(binary.OpCallIndirect, 1), []byte{0}), ""},
		{"call_indirect operand", fn(nil, vt(i32), nil, w.I32Const(0), w.Op(binary.OpCallIndirect, 1), []byte{0}), "invalid module: section code: func 0: at byte 0x37: type mismatch: call_indirect needs an operand but the block's stack is empty"},
		{"unknown label", fn(nil, nil, nil, w.Op(binary.OpBr, 1)), "invalid module: section code: func 0: at byte 0x34: unknown label 1 (1 enclosing blocks)"},
		{"br to function", fn(nil, vt(i32), nil, w.I32Const(1), w.Op(binary.OpBr, 0)), ""},
		{"br value type", fn(nil, vt(i32), nil, w.I64Const(1), w.Op(binary.OpBr, 0)), "invalid module: section code: func 0: at byte 0x37: type mismatch: br expects i32, found i64"},
		{"loop label carries nothing", fn(nil, vt(i32), nil, ops(loop), bt(i32), w.I32Const(1), w.Op(binary.OpBr, 0), ops(end)), ""},
		{"block result", fn(nil, vt(i32), nil, ops(block), bt(i32), w.I32Const(1), ops(end)), ""},
		{"block result missing", fn(nil, vt(i32), nil, ops(block), bt(i32), ops(end)), "invalid module: section code: func 0: at byte 0x37: type mismatch: end needs an operand but the block's stack is empty"},
		{"block cannot see outer values", fn(nil, vt(i32), nil, w.I32Const(1), ops(block), bt(i32), ops(end)), "invalid module: section code: func 0: at byte 0x39: type mismatch: end needs an operand but the block's stack is empty"},
		{"if without else with result", fn(nil, vt(i32), nil, w.I32Const(1), ops(ifOp), bt(i32), w.I32Const(1), ops(end)), "invalid module: section code: func 0: at byte 0x3b: type mismatch: if of type [] -> [i32] without else"},
		{"if else", fn(nil, vt(i32), nil, w.I32Const(1), ops(ifOp), bt(i32), w.I32Const(1), ops(elseOp), w.I32Const(2), ops(end)), ""},
		{"else arm type", fn(nil, vt(i32), nil, w.I32Const(1), ops(ifOp), bt(i32), w.I32Const(1), ops(elseOp), w.I64Const(2), ops(end)), "invalid module: section code: func 0: at byte 0x3e: type mismatch: end expects i32, found i64"},
		{"if condition", fn(nil, nil, nil, w.I64Const(1), ops(ifOp), empty, ops(end)), "invalid module: section code: func 0: at byte 0x36: type mismatch: if expects i32, found i64"},
		{"unreachable is polymorphic", fn(nil, vt(i32), nil, ops(binary.OpUnreachable, 0x6a)), ""},
		{"polymorphic stack still checks known types", fn(nil, vt(i32), nil, ops(binary.OpUnreachable), w.I64Const(0), ops(0x6a)), "invalid module: section code: func 0: at byte 0x38: type mismatch: i32.add expects i32, found i64"},
		{"select of unknowns", fn(nil, vt(i64), nil, ops(binary.OpUnreachable, binary.OpSelect)), ""},
		{"select types differ", fn(nil, vt(i32), nil, w.I32Const(1), w.I64Const(1), w.I32Const(1), ops(binary.OpSelect)), "invalid module: section code: func 0: at byte 0x3b: type mismatch: select expects i64, found i32"},
		{"br_table arity", fn(nil, vt(i32), nil, ops(block), empty, w.I32Const(1), w.I32Const(0), []byte{byte(binary.OpBrTable), 1, 0, 1}, ops(end), w.I32Const(1)),
			"invalid module: section code: func 0: at byte 0x3b: type mismatch: br_table label 0 carries [], the default label [i32]"},
		{"br_table", fn(nil, vt(i32), nil, ops(block), bt(i32), w.I32Const(1), w.I32Const(0), []byte{byte(binary.OpBrTable), 2, 0, 1, 0}, ops(end)), ""},
		{"br_if keeps the value", fn(nil, vt(i32), nil, ops(block), bt(i32), w.I32Const(1), w.I32Const(0), w.Op(binary.OpBrIf, 0), ops(end)), ""},
		{"return type", fn(nil, vt(f64), nil, w.F32Const(1), ops(binary.OpReturn)), "invalid module: section code: func 0: at byte 0x3a: type mismatch: return expects f64, found f32"},
		{"alignment", fn(nil, nil, nil, w.I32Const(0), w.Mem(binary.OpI32Load, 3, 0), ops(binary.OpDrop)), "invalid module: section code: func 0: at byte 0x36: alignment must not be larger than natural: i32.load with alignment 2^3"},
		{"natural alignment", fn(nil, nil, nil, w.I32Const(0), w.Mem(binary.OpI64Load, 3, 0), ops(binary.OpDrop)), ""},
		{"store operands", fn(nil, nil, nil, w.I32Const(0), w.I64Const(0), w.Mem(binary.OpI32Store, 2, 0)), "invalid module: section code: func 0: at byte 0x38: type mismatch: i32.store expects i32, found i64"},
		{"conversion", fn(vt(f64), vt(i64), nil, w.Op(binary.OpLocalGet, 0), ops(0xb0)), ""},
		{"conversion operand", fn(vt(f32), vt(i64), nil, w.Op(binary.OpLocalGet, 0), ops(0xb0)), "invalid module: section code: func 0: at byte 0x38: type mismatch: i64.trunc_f64_s expects f64, found f32"},
		{"comparison result is i32", fn(vt(i64, i64), vt(i32), nil, w.Op(binary.OpLocalGet, 0), w.Op(binary.OpLocalGet, 1), ops(0x53)), ""},
		{"many locals are not expanded", manyLocals(0xfffffffe), ""},
		{"one local too far", manyLocals(0xffffffff), "invalid module: section code: func 0: at byte 0x1e: unknown local 4294967295 (the function has 4294967295 locals)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check(t, tc.in, tc.want)
		})
	}
}

func check(t *testing.T, in []byte, want string) {
	t.Helper()
	m, err := binary.Decode(in)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	err = validate.Module(m)
	switch {
	case want == "" && err != nil:
		t.Errorf("invalid: %v", err)
	case want == "":
	case err == nil:
		t.Errorf("valid; want %q", want)
	case err.Error() != want:
		t.Errorf("error\n%s\nwant\n%s", err, want)
	default:
		var ve *validate.Error
		var ue *validate.UnsupportedError
		if !errors.As(err, &ve) && !(strings.HasPrefix(want, "unsupported:") && errors.As(err, &ue)) {
			t.Errorf("error %T is not a *validate.Error", err)
		}
	}
}

func TestValidateModule(t *testing.T) {
	type build func(b *w.Builder)
	voidType := func(b *w.Builder) uint32 { return b.Type(nil, nil) }
	tests := []struct {
		name  string
		build build
		want  string
	}{
		{"two results (multi-value)", func(b *w.Builder) { b.Type(nil, vt(i32, i32)) }, ""},
		{"import of unknown type", func(b *w.Builder) { b.ImportFunc("m", "f", 3) }, "invalid module: section import: at byte 0xb: unknown type 3 (the module has 0 types)"},
		{"function of unknown type", func(b *w.Builder) { b.Func(0, nil) }, "invalid module: section function: at byte 0x0: unknown type 0 of function 0 (the module has 0 types)"},
		{"two memories", func(b *w.Builder) { b.Memory(1, -1); b.Memory(1, -1) }, "invalid module: section memory: at byte 0x0: multiple memories"},
		{"imported and defined memory", func(b *w.Builder) { b.ImportRaw("m", "mem", 2, 0, 1); b.Memory(1, -1) }, "invalid module: section memory: at byte 0x0: multiple memories"},
		{"two tables", func(b *w.Builder) { b.Table(1, -1); b.Table(1, -1) }, ""},
		{"memory too large", func(b *w.Builder) { b.Memory(65537, -1) }, "invalid module: section memory: at byte 0x0: memory size must be at most 65536 pages (4GiB)"},
		{"memory maximum too large", func(b *w.Builder) { b.Memory(0, 65537) }, "invalid module: section memory: at byte 0x0: memory size must be at most 65536 pages (4GiB)"},
		{"memory of 4 GiB", func(b *w.Builder) { b.Memory(0, 65536) }, ""},
		{"memory limits", func(b *w.Builder) { b.Memory(2, 1) }, "invalid module: section memory: at byte 0x0: size minimum must not be greater than maximum: memory limits 2..1"},
		{"table limits", func(b *w.Builder) { b.Table(2, 1) }, "invalid module: section table: at byte 0x0: size minimum must not be greater than maximum: table limits 2..1"},
		{"global initializer type", func(b *w.Builder) { b.Global(i32, false, w.I64Const(0)) }, "invalid module: section global: at byte 0xd: type mismatch: constant expression has type [i64], want [i32]"},
		{"global initializer not constant", func(b *w.Builder) { b.Global(i32, false, w.Cat(w.I32Const(0), w.I32Const(0), w.Ops(0x6a))) }, "invalid module: section global: at byte 0xf: type mismatch: constant expression produces more than one value"},
		{"global initializer instruction", func(b *w.Builder) { b.Global(i32, false, w.Ops(binary.OpNop)) }, "invalid module: section global: at byte 0xd: constant expression required: nop is not constant"},
		{"empty global initializer", func(b *w.Builder) { b.Global(i32, false, nil) }, "invalid module: section global: at byte 0xd: type mismatch: constant expression has type [], want [i32]"},
		{"global initializer reads a defined global", func(b *w.Builder) {
			b.Global(i32, false, w.I32Const(0))
			b.Global(i32, false, w.Op(binary.OpGlobalGet, 0))
		}, "invalid module: section global: at byte 0x12: unknown global 0 (a constant expression may only read the 0 imported globals)"},
		{"global initializer reads an imported global", func(b *w.Builder) {
			g := b.ImportGlobal("m", "g", f64, false)
			b.Global(f64, true, w.Op(binary.OpGlobalGet, g))
		}, ""},
		{"global initializer reads a mutable global", func(b *w.Builder) {
			g := b.ImportGlobal("m", "g", f64, true)
			b.Global(f64, true, w.Op(binary.OpGlobalGet, g))
		}, "invalid module: section global: at byte 0x17: constant expression required: global 0 is mutable"},
		{"duplicate export", func(b *w.Builder) {
			f := b.Func(voidType(b), nil)
			b.Export("a", binary.ExternFunc, f)
			b.Export("a", binary.ExternFunc, f)
		}, "invalid module: section export: at byte 0x19: duplicate export name \"a\""},
		{"export of unknown function", func(b *w.Builder) { b.Export("a", binary.ExternFunc, 0) }, "invalid module: section export: at byte 0xb: unknown function 0 (export \"a\")"},
		{"export of unknown memory", func(b *w.Builder) { b.Export("m", binary.ExternMemory, 0) }, "invalid module: section export: at byte 0xb: unknown memory 0 (export \"m\")"},
		{"export of unknown global", func(b *w.Builder) { b.Export("g", binary.ExternGlobal, 0) }, "invalid module: section export: at byte 0xb: unknown global 0 (export \"g\")"},
		{"export of unknown table", func(b *w.Builder) { b.Export("t", binary.ExternTable, 0) }, "invalid module: section export: at byte 0xb: unknown table 0 (export \"t\")"},
		{"start function type", func(b *w.Builder) { b.Start(b.Func(b.Type(vt(i32), nil), nil)) }, "invalid module: section start: at byte 0x0: start function 0 has type [i32] -> [], want [] -> []"},
		{"unknown start function", func(b *w.Builder) { b.Start(0) }, "invalid module: section start: at byte 0x0: unknown function 0"},
		{"element segment without a table", func(b *w.Builder) { b.Elem(w.I32Const(0)) }, "invalid module: section element: at byte 0xb: unknown table 0"},
		{"element of unknown function", func(b *w.Builder) { b.Table(1, -1); b.Elem(w.I32Const(0), 0) }, "invalid module: section element: at byte 0x11: unknown function 0"},
		{"element offset type", func(b *w.Builder) { b.Table(1, -1); b.Elem(w.I64Const(0)) }, "invalid module: section element: at byte 0x12: type mismatch: constant expression has type [i64], want [i32]"},
		{"data without a memory", func(b *w.Builder) { b.Data(w.I32Const(0), nil) }, "invalid module: section data: at byte 0xb: unknown memory 0"},
		{"data offset not constant", func(b *w.Builder) { b.Memory(1, -1); b.Data(w.Ops(binary.OpUnreachable), nil) }, "invalid module: section data: at byte 0x11: constant expression required: unreachable is not constant"},
		{"memory.size without a memory", func(b *w.Builder) {
			b.Func(b.Type(nil, vt(i32)), nil, w.Ops(binary.OpMemorySize, 0))
		}, "invalid module: section code: func 0: at byte 0x18: unknown memory 0: memory.size in a module without memory"},
		{"load without a memory", func(b *w.Builder) {
			b.Func(b.Type(nil, vt(i32)), nil, w.I32Const(0), w.Mem(binary.OpI32Load, 2, 0))
		}, "invalid module: section code: func 0: at byte 0x1a: unknown memory 0: i32.load in a module without memory"},
		{"call_indirect without a table", func(b *w.Builder) {
			b.Func(voidType(b), nil, w.I32Const(0), w.Op(binary.OpCallIndirect, 0), []byte{0})
		}, "invalid module: section code: func 0: at byte 0x19: unknown table 0: call_indirect in a module without a table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b w.Builder
			tc.build(&b)
			check(t, b.Bytes(), tc.want)
		})
	}
}
