package wasm

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// TestEmptyModule checks the exact bytes of the smallest module with a
// function.
func TestEmptyModule(t *testing.T) {
	m := NewModule()
	m.Export("f", m.Func(nil, nil))
	got, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00,
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: () -> ()
		0x03, 0x02, 0x01, 0x00, // function section: type 0
		0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00, // export section: "f" = function 0
		0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code section: no locals, end
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got  %x\nwant %x", got, want)
	}
}

// TestRun builds a module using every kind of construct the encoder has,
// has wazero validate and run it, and checks the results.
func TestRun(t *testing.T) {
	m := NewModule()
	log := m.ImportFunc("env", "log", []ValType{I64}, nil)
	m.Memory(1, 2)

	// sum(n) = 0 + 1 + ... + n-1 through memory, with a loop and a block.
	sum := m.Func([]ValType{I64}, []ValType{I64})
	n, i := sum.Param(0), sum.NewLocal(I64)
	exit := sum.Block()
	loop := sum.Loop()
	sum.Get(i)
	sum.Get(n)
	sum.Op(I64GeS)
	sum.BrIf(exit)
	sum.I32Const(8)
	sum.I32Const(8)
	sum.Mem(I64Load, 0)
	sum.Get(i)
	sum.Op(I64Add)
	sum.Mem(I64Store, 0)
	sum.Get(i)
	sum.I64Const(1)
	sum.Op(I64Add)
	sum.Set(i)
	sum.Br(loop)
	sum.End()
	sum.End()
	sum.I32Const(0)
	sum.Mem(I64Load, 8)
	sum.Call(log)
	sum.I32Const(0)
	sum.Mem(I64Load, 8)
	m.Export("sum", sum)

	// pick(k) = [10, 20, 30][k], 99 out of range, through br_table and if.
	pick := m.Func([]ValType{I32}, []ValType{F64})
	k := pick.Param(0)
	out := pick.Block(F64)
	def := pick.Block()
	c2 := pick.Block()
	c1 := pick.Block()
	c0 := pick.Block()
	pick.Get(k)
	pick.BrTable([]Label{c0, c1, c2}, def)
	pick.End()
	pick.F64Const(10)
	pick.Br(out)
	pick.End()
	pick.F64Const(20)
	pick.Br(out)
	pick.End()
	pick.F64Const(30)
	pick.Br(out)
	pick.End()
	pick.Get(k)
	pick.I32Const(-1)
	pick.Op(I32Eq)
	pick.If(F64)
	pick.F64Const(-1)
	pick.Else()
	pick.F64Const(99)
	pick.End()
	pick.End()
	m.Export("pick", pick)

	// pair(x) = (x, x * 2): several results.
	pair := m.Func([]ValType{I64}, []ValType{I64, I64})
	pair.Get(pair.Param(0))
	pair.Get(pair.Param(0))
	pair.I64Const(2)
	pair.Op(I64Mul)
	m.Export("pair", pair)

	bin, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	var logged []int64
	_, err = rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) { logged = append(logged, int64(stack[0])) }),
			[]api.ValueType{api.ValueTypeI64}, nil).
		Export("log").Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := rt.Instantiate(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args ...uint64) []uint64 {
		t.Helper()
		res, err := mod.ExportedFunction(name).Call(ctx, args...)
		if err != nil {
			t.Fatalf("%s%v: %v", name, args, err)
		}
		return res
	}
	if got := call("sum", 100); got[0] != 4950 || len(logged) != 1 || logged[0] != 4950 {
		t.Errorf("sum(100) = %v, logged %v; want 4950", got, logged)
	}
	for k, want := range map[int32]float64{0: 10, 1: 20, 2: 30, 3: 99, -1: -1} {
		if got := call("pick", api.EncodeI32(k)); api.DecodeF64(got[0]) != want {
			t.Errorf("pick(%d) = %v, want %v", k, api.DecodeF64(got[0]), want)
		}
	}
	if got := call("pair", 21); got[0] != 21 || got[1] != 42 {
		t.Errorf("pair(21) = %v, want [21 42]", got)
	}
}

// TestMisuse checks that misuse of the builders is reported by Encode.
func TestMisuse(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(m *Module)
		want  string
	}{
		{"open block", func(m *Module) { m.Func(nil, nil).Block() }, "left open"},
		{"end without block", func(m *Module) { m.Func(nil, nil).End() }, "without an open block"},
		{"else without if", func(m *Module) { f := m.Func(nil, nil); f.Block(); f.Else() }, "else outside"},
		{"closed label", func(m *Module) {
			f := m.Func(nil, nil)
			l := f.Block()
			f.End()
			f.Br(l)
		}, "not open"},
		{"unknown local", func(m *Module) { m.Func(nil, nil).Get(3) }, "not declared"},
		{"unknown param", func(m *Module) { m.Func([]ValType{I32}, nil).Param(1) }, "out of range"},
		{"unknown function", func(m *Module) { m.Func(nil, nil).Call(5) }, "unknown function"},
		{"late import", func(m *Module) { m.Func(nil, nil); m.ImportFunc("env", "f", nil, nil) }, "after a function"},
		{"memory op", func(m *Module) { m.Func(nil, nil).Op(I32Load) }, "without immediates"},
		{"not a memory op", func(m *Module) { m.Func(nil, nil).Mem(I32Add, 0) }, "not a load or store"},
		{"bad memory", func(m *Module) { m.Memory(3, 2) }, "invalid"},
		{"export twice", func(m *Module) { f := m.Func(nil, nil); m.Export("f", f); m.Export("f", f) }, "twice"},
	} {
		m := NewModule()
		c.build(m)
		if _, err := m.Encode(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Encode error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestOpcodeValues spot-checks the opcodes numbered in iota runs against
// the binary format's numbers.
func TestOpcodeValues(t *testing.T) {
	for _, c := range []struct {
		op   Opcode
		want byte
	}{
		{I32Eqz, 0x45}, {I32GeU, 0x4f}, {I64Eqz, 0x50}, {I64GeU, 0x5a}, {F32Eq, 0x5b}, {F32Ge, 0x60},
		{F64Eq, 0x61}, {F64Ge, 0x66}, {I32Clz, 0x67}, {I32Rotr, 0x78}, {I64Clz, 0x79}, {I64Rotr, 0x8a},
		{F32Abs, 0x8b}, {F32Sqrt, 0x91}, {F32Add, 0x92}, {F32Copysign, 0x98}, {F64Abs, 0x99}, {F64Copysign, 0xa6},
		{I32WrapI64, 0xa7}, {I32TruncF32S, 0xa8}, {I32TruncF64U, 0xab}, {I64ExtendI32S, 0xac}, {I64TruncF32S, 0xae},
		{I64TruncF64U, 0xb1}, {F32ConvertI32S, 0xb2}, {F32DemoteF64, 0xb6}, {F64ConvertI32S, 0xb7},
		{F64ConvertI64U, 0xba}, {F64PromoteF32, 0xbb}, {I32ReinterpretF32, 0xbc}, {I64ReinterpretF64, 0xbd},
		{F32ReinterpretI32, 0xbe}, {F64ReinterpretI64, 0xbf},
	} {
		if byte(c.op) != c.want {
			t.Errorf("opcode %#x, want %#x", byte(c.op), c.want)
		}
	}
}

// TestF32 checks the encoding of f32 constants and runs f32 arithmetic,
// comparisons, conversions, loads and stores in wazero.
func TestF32(t *testing.T) {
	m := NewModule()
	m.Memory(1, 1)
	// f(x) = (float32(x)*1.5 - 0.25, float32(x)*1.5 > 0, bits of float32(x)*1.5)
	// through memory and a round trip through f64.
	f := m.Func([]ValType{I32}, []ValType{F32, I32, I32})
	x := f.Param(0)
	f.I32Const(4)
	f.Get(x)
	f.Op(F32ConvertI32S)
	start := len(f.code)
	f.F32Const(1.5)
	if got, want := f.code[start:], []byte{0x43, 0x00, 0x00, 0xc0, 0x3f}; !bytes.Equal(got, want) {
		t.Errorf("F32Const(1.5) = %x, want %x", got, want)
	}
	f.Op(F32Mul)
	f.Mem(F32Store, 0)
	f.I32Const(0)
	f.Mem(F32Load, 4)
	f.Op(F64PromoteF32, F32DemoteF64)
	f.F32Const(-0.25)
	f.Op(F32Add)
	f.I32Const(4)
	f.Mem(F32Load, 0)
	f.F32Const(0)
	f.Op(F32Gt)
	f.I32Const(4)
	f.Mem(F32Load, 0)
	f.Op(I32ReinterpretF32)
	m.Export("f", f)
	bin, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	for x, want := range map[int32][3]uint64{
		3:  {api.EncodeF32(4.25), 1, api.EncodeF32(4.5)},
		-2: {api.EncodeF32(-3.25), 0, api.EncodeF32(-3)},
	} {
		got, err := mod.ExportedFunction("f").Call(ctx, api.EncodeI32(x))
		if err != nil || len(got) != 3 || [3]uint64(got) != want {
			t.Errorf("f(%d) = %#x, %v; want %#x", x, got, err, want)
		}
	}
}
