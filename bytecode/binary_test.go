package bytecode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// binModulesEqual reports whether a and b describe the same module. Nil and
// empty slices are equal.
func binModulesEqual(a, b *Module) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !textPartsEqual(a, b) {
		return false
	}
	if a.Memory != b.Memory || len(a.Data) != len(b.Data) || len(a.Hosts) != len(b.Hosts) ||
		len(a.Funcs) != len(b.Funcs) || !slices.Equal(a.Exports, b.Exports) {
		return false
	}
	for i := range a.Data {
		if a.Data[i].Offset != b.Data[i].Offset || !bytes.Equal(a.Data[i].Bytes, b.Data[i].Bytes) {
			return false
		}
	}
	for i := range a.Hosts {
		if a.Hosts[i].Name != b.Hosts[i].Name || !a.Hosts[i].Sig.Equal(b.Hosts[i].Sig) {
			return false
		}
	}
	for i, fa := range a.Funcs {
		fb := b.Funcs[i]
		if fa == nil || fb == nil {
			if fa != fb {
				return false
			}
			continue
		}
		if fa.Name != fb.Name || !fa.Sig.Equal(fb.Sig) || !slices.Equal(fa.Regs, fb.Regs) || len(fa.Code) != len(fb.Code) {
			return false
		}
		for j := range fa.Code {
			if !fa.Code[j].Equal(&fb.Code[j]) {
				return false
			}
		}
	}
	return true
}

// binU returns the uvarint encodings of vs, one after the other.
func binU(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

// binS returns the zigzag varint encodings of vs, one after the other.
func binS(vs ...int64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// binOp returns the encoding of an opcode with its useImm bit.
func binOp(op Op, useImm bool) []byte {
	v := uint64(op) << 1
	if useImm {
		v |= 1
	}
	return binU(v)
}

// binCat concatenates strings and byte slices.
func binCat(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b = append(b, p...)
		case []byte:
			b = append(b, p...)
		default:
			panic(fmt.Sprintf("binCat: %T", p))
		}
	}
	return b
}

const binHeader = "\x00kln\x01"

// binFib returns the encoding of a module without memory, data or hosts
// and with one function "fib" (i64) -> (i64) with registers r0 (the
// parameter) and r1, both i64, exported as "fib". code holds the encoded
// instructions. The first instruction starts at byte 21.
func binFib(code ...[]byte) []byte {
	b := binCat(binHeader,
		binU(0, 0),     // memory (bytes 5, 6)
		binU(0),        // data (7)
		binU(0),        // hosts (8)
		binU(1),        // funcs (9)
		binU(3), "fib", // name (10-13)
		binU(1), "\x01", binU(1), "\x01", // signature (14-17)
		binU(1), "\x01", // registers beyond the parameter (18, 19)
		binU(uint64(len(code))), // instruction count (20)
	)
	for _, c := range code {
		b = append(b, c...)
	}
	return binCat(b, binU(1), binU(3), "fib", binU(0))
}

// binRetR0 encodes "ret r0" (4 bytes: the opcode takes two). binFib(binRetR0)
// is 31 bytes long, its export section starting at byte 25.
var binRetR0 = binCat(binOp(OpReturn, false), binU(1, 0))

// binFibNoExports is binFib(binRetR0) without its export section.
var binFibNoExports = binFib(binRetR0)[:25]

// binSet returns a copy of b with b[i] set to v.
func binSet(b []byte, i int, v byte) []byte {
	b = bytes.Clone(b)
	b[i] = v
	return b
}

// binNoPanic runs f and turns a panic into a test failure that shows the
// input.
func binNoPanic(t *testing.T, input []byte, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s panicked on input %x: %v", what, input, r)
		}
	}()
	f()
}

// binCheckDecodeResult checks the contract of Decode for an arbitrary input:
// on success, Encode gives back the input; on failure the error is a
// *DecodeError with a position inside the input or a *VerifyError.
func binCheckDecodeResult(t *testing.T, b []byte, m *Module, err error) {
	t.Helper()
	if err != nil {
		if m != nil {
			t.Fatalf("Decode(%x) returned a module and the error %v", b, err)
		}
		var de *DecodeError
		var ve *VerifyError
		switch {
		case errors.As(err, &de):
			if de.Pos < 0 || de.Pos > len(b) {
				t.Fatalf("Decode(%x): error position %d outside the input: %v", b, de.Pos, err)
			}
		case errors.As(err, &ve):
		default:
			t.Fatalf("Decode(%x): error %v is %T", b, err, err)
		}
		return
	}
	b2, err := Encode(m)
	if err != nil {
		t.Fatalf("Decode(%x) succeeded but Encode failed: %v", b, err)
	}
	if !bytes.Equal(b, b2) {
		t.Fatalf("Decode accepted %x but Encode gives %x", b, b2)
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	seeds := 3000
	if testing.Short() {
		seeds = 300
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 0xb1))
		m := randomModule(r)
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("seed %d: Encode: %v", seed, err)
		}
		m2, err := Decode(b)
		if err != nil {
			t.Fatalf("seed %d: Decode: %v", seed, err)
		}
		if !binModulesEqual(m, m2) {
			t.Fatalf("seed %d: Decode(Encode(m)) differs from m", seed)
		}
		b2, err := Encode(m2)
		if err != nil {
			t.Fatalf("seed %d: Encode(Decode(b)): %v", seed, err)
		}
		if !bytes.Equal(b, b2) {
			t.Fatalf("seed %d: Encode(Decode(b)) differs from b:\n%x\n%x", seed, b, b2)
		}
		// The decoded module must not share memory with the input.
		clear(b)
		if !binModulesEqual(m, m2) {
			t.Fatalf("seed %d: the decoded module aliases the input bytes", seed)
		}
	}
}

func TestBinaryRoundTripBase(t *testing.T) {
	for name, m := range map[string]*Module{
		"base":  baseModule(),
		"empty": {},
	} {
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m2, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !binModulesEqual(m, m2) {
			t.Fatalf("%s: round trip changed the module", name)
		}
	}
}

// TestBinaryGolden pins the format: one instruction of every format, with
// hand-written expected bytes.
func TestBinaryGolden(t *testing.T) {
	m := &Module{
		Memory: Memory{MinPages: 1, MaxPages: 300},
		Data:   []DataSegment{{Offset: 200, Bytes: []byte("hi")}},
		Hosts:  []HostImport{{Name: "h", Sig: Signature{Params: []Type{F64}}}},
		Funcs: []*Function{{
			Name: "f",
			Sig:  Signature{Params: []Type{I64}, Results: []Type{I64}},
			Regs: []Type{I64, F64, I64},
			Code: []Instr{
				{Op: OpI64Const, Dst: 2, Imm: -3},                          // 0
				{Op: OpF64Const, Dst: 1, Imm: 0x3ff0000000000000},          // 1
				{Op: OpF64Neg, Dst: 1, A: 1},                               // 2
				{Op: OpI64Sub, Dst: 2, A: 0, UseImm: true, Imm: 64},        // 3
				{Op: OpI64Mul, Dst: 2, A: 0, B: 2},                         // 4
				{Op: OpSelect, Dst: 1, A: 0, B: 1, C: 1},                   // 5
				{Op: OpF64Load, Dst: 1, A: 0, Imm: -8},                     // 6
				{Op: OpI64Store8, A: 0, B: 2, Imm: 1},                      // 7
				{Op: OpMemorySize, Dst: 2},                                 // 8
				{Op: OpBrIf, A: 2, Target: 11},                             // 9
				{Op: OpBrLtU, A: 0, UseImm: true, Imm: 1, Target: 12},      // 10
				{Op: OpSwitch, A: 0, Table: []uint32{13, 14}, Target: 15},  // 11
				{Op: OpCallHost, Callee: 0, Args: []Reg{1}},                // 12
				{Op: OpCall, Callee: 0, Args: []Reg{0}, Results: []Reg{2}}, // 13
				{Op: OpTrap, Imm: -1},                                      // 14
				{Op: OpReturn, Args: []Reg{2}},                             // 15
			},
		}},
		Exports: []Export{{Name: "main", Func: 0}},
	}
	want := binCat(
		"\x00kln\x01",
		"\x01\xac\x02",                       // memory 1, 300
		"\x01\xc8\x01\x02hi",                 // data: 1 segment at 200, 2 bytes
		"\x01\x01h\x01\x02\x00",              // hosts: h (f64) -> ()
		"\x01\x01f\x01\x01\x01\x01",          // funcs: 1; f (i64) -> (i64)
		"\x02\x02\x01",                       // registers beyond the parameter: f64 i64
		"\x10",                               // 16 instructions
		binOp(OpI64Const, false), "\x02\x05", // zigzag(-3) = 5
		binOp(OpF64Const, false), "\x01\x00\x00\x00\x00\x00\x00\xf0\x3f",
		binOp(OpF64Neg, false), "\x01\x01",
		binOp(OpI64Sub, true), "\x02\x00\x80\x01", // zigzag(64) = 128
		binOp(OpI64Mul, false), "\x02\x00\x02",
		binOp(OpSelect, false), "\x01\x00\x01\x01",
		binOp(OpF64Load, false), "\x01\x00\x0f",
		binOp(OpI64Store8, false), "\x00\x02\x02",
		binOp(OpMemorySize, false), "\x02",
		binOp(OpBrIf, false), "\x02\x0b",
		binOp(OpBrLtU, true), "\x00\x02\x0c",
		binOp(OpSwitch, false), "\x00\x02\x0d\x0e\x0f",
		binOp(OpCallHost, false), "\x00\x01\x01\x00",
		binOp(OpCall, false), "\x00\x01\x00\x01\x02",
		binOp(OpTrap, false), "\x01",
		binOp(OpReturn, false), "\x01\x02",
		"\x01\x04main\x00", // exports
	)
	got, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode =\n%x\nwant\n%x", got, want)
	}
	m2, err := Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	if !binModulesEqual(m, m2) {
		t.Fatal("Decode(golden) differs from the module")
	}
}

func TestBinaryTruncation(t *testing.T) {
	var inputs [][]byte
	for seed := range 40 {
		b, err := Encode(randomModule(rand.New(rand.NewPCG(uint64(seed), 0x7c))))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	b, err := Encode(baseModule())
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, b, binFib(binRetR0))
	for _, full := range inputs {
		for n := range len(full) {
			prefix := full[:n:n]
			var err error
			binNoPanic(t, prefix, "Decode", func() { _, err = Decode(prefix) })
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode of a %d-byte prefix of %x: error %v (%T), want a *DecodeError", n, full, err, err)
			}
			if de.Pos < 0 || de.Pos > n {
				t.Fatalf("Decode of a %d-byte prefix: position %d outside the input: %v", n, de.Pos, err)
			}
		}
	}
}

func TestBinaryByteFlips(t *testing.T) {
	accepted := 0
	for seed := range 25 {
		full, err := Encode(randomModule(rand.New(rand.NewPCG(uint64(seed), 0xf1))))
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, len(full))
		for i := range full {
			for _, x := range []byte{0x01, 0x02, 0x40, 0x80, 0xff} {
				copy(b, full)
				b[i] ^= x
				var m *Module
				binNoPanic(t, b, "Decode", func() { m, err = Decode(b) })
				binCheckDecodeResult(t, b, m, err)
				if err == nil {
					accepted++
				}
				binNoPanic(t, b, "binDecodeUnverified+Verify", func() {
					if m, err := binDecodeUnverified(b); err == nil {
						Verify(m)
					}
				})
			}
		}
	}
	t.Logf("%d flipped inputs decoded to valid modules", accepted)
}

func TestBinaryDecodeErrors(t *testing.T) {
	const u32 = 1 << 32
	huge := binU(1 << 60)
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"empty", nil, "decode: byte 0: magic: unexpected end of input"},
		{"short magic", []byte("\x00kl"), "decode: byte 0: magic: unexpected end of input"},
		{"bad magic", []byte("\x7fELF\x02\x01"), `decode: byte 0: bad magic "\x7fELF", want "\x00kln"`},
		{"short bad magic", []byte("k"), `decode: byte 0: bad magic "k", want "\x00kln"`},
		{"no version", []byte("\x00kln"), "decode: byte 4: version: unexpected end of input"},
		{"bad version", []byte("\x00kln\x04"), "decode: byte 4: unsupported version 4"},
		{"no memory", []byte(binHeader), "decode: byte 5: memory minimum pages: unexpected end of input"},
		{"overlong varint", binCat(binHeader, "\x81\x00\x01"), "decode: byte 5: memory minimum pages: non-minimal varint encoding"},
		{"overlong zero", binCat(binHeader, "\x00\x80\x00"), "decode: byte 6: memory maximum pages: non-minimal varint encoding"},
		{"varint overflow", binCat(binHeader, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"), "decode: byte 5: memory minimum pages: varint overflows 64 bits"},
		{"varint too long", binCat(binHeader, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"), "decode: byte 5: memory minimum pages: varint overflows 64 bits"},
		{"pages overflow", binCat(binHeader, binU(u32, 1)), "decode: byte 5: memory minimum pages 4294967296 does not fit in 32 bits"},
		{"huge data count", binCat(binHeader, binU(0, 0), huge, "abc"), "decode: byte 7: data segment count 1152921504606846976 is too large for the 3 remaining bytes"},
		{"data count vs remaining", binCat(binHeader, binU(1, 1), binU(3), "\x00\x00\x00\x00\x00"), "decode: byte 7: data segment count 3 is too large for the 5 remaining bytes"},
		{"data length", binCat(binHeader, binU(1, 1), binU(1), binU(0, 100), "ab"), "decode: byte 9: data segment 0: data length 100 is too large for the 2 remaining bytes"},
		{"data offset overflow", binCat(binHeader, binU(1, 1), binU(1), binU(u32, 0), "abcd"), "decode: byte 8: data segment 0: offset 4294967296 does not fit in 32 bits"},
		{"host count limit", binCat(binHeader, binU(0, 0, 0), binU(MaxHosts+1)), "decode: byte 8: host import count 65537 exceeds the limit of 65536"},
		{"host type byte", binCat(binHeader, binU(0, 0, 0, 1), binU(1), "h", binU(1), "\x05", binU(0), binU(0, 0)), "decode: byte 12: host import 0: parameter type: unknown type byte 5"},
		{"host params limit", binCat(binHeader, binU(0, 0, 0, 1), binU(1), "h", binU(MaxParams+1)), "decode: byte 11: host import 0: parameter type count 257 exceeds the limit of 256"},
		{"huge function count", binCat(binHeader, binU(0, 0, 0, 0), huge, "abc"), "decode: byte 9: function count 1152921504606846976 exceeds the limit of 1048576"},
		{"function count limit", binCat(binHeader, binU(0, 0, 0, 0), binU(MaxFuncs+1)), "decode: byte 9: function count 1048577 exceeds the limit of 1048576"},
		{"function count vs remaining", binCat(binHeader, binU(0, 0, 0, 0), binU(2), "\x01f\x00\x00\x00\x00"), "decode: byte 9: function count 2 is too large for the 6 remaining bytes"},
		{"function name length", binCat(binHeader, binU(0, 0, 0, 0, 1), binU(9), "fib\x00\x00\x00\x00"), "decode: byte 10: func #0: name length 9 is too large for the 7 remaining bytes"},
		{"register type byte", binSet(binFib(binRetR0), 19, 0), "decode: byte 19: func fib: register type: unknown type byte 0"},
		{"register count limit", binCat(binHeader, binU(0, 0, 0, 0, 1), binU(3), "fib", binU(1), "\x01", binU(0), binU(MaxRegs)), "decode: byte 17: func fib: 1048576 registers beyond the 1 parameters exceed the limit of 1048576"},
		{"huge instruction count", binCat(binHeader, binU(0, 0, 0, 0, 1), binU(3), "fib", binU(0, 0, 0), huge, "abc"), "decode: byte 17: func fib: instruction count 1152921504606846976 exceeds the limit of 16777216"},
		{"instruction count vs remaining", binCat(binHeader, binU(0, 0, 0, 0, 1), binU(3), "fib", binU(0, 0, 0), binU(3), "abcde"), "decode: byte 17: func fib: instruction count 3 is too large for the 5 remaining bytes"},
		{"unknown opcode", binFib(binCat(binU(250<<1), binU(0))), "decode: byte 21: func fib: instruction 0: unknown opcode 250"},
		{"opcode 0", binFib(binRetR0, binCat(binU(0), binU(0))), "decode: byte 25: func fib: instruction 1: unknown opcode 0"},
		{"opcode NumOps", binFib(binCat(binU(uint64(NumOps)<<1|1), binU(0))), fmt.Sprintf("decode: byte 21: func fib: instruction 0: unknown opcode %d", NumOps)},
		{"useImm on f64 op", binFib(binCat(binOp(OpF64Add, true), binU(0, 0, 0)), binRetR0), "decode: byte 21: func fib: instruction 0: f64.add takes no immediate operand (useImm bit set)"},
		{"useImm on i64.const", binFib(binCat(binOp(OpI64Const, true), binU(0), binS(1)), binRetR0), "decode: byte 21: func fib: instruction 0: i64.const takes no immediate operand (useImm bit set)"},
		{"register overflow", binFib(binCat(binOp(OpI64Add, false), binU(u32, 0, 0)), binRetR0), "decode: byte 22: func fib: instruction 0: destination register r4294967296 does not fit in 32 bits"},
		{"target overflow", binFib(binCat(binOp(OpJump, false), binU(u32))), "decode: byte 23: func fib: instruction 0: branch target 4294967296 does not fit in 32 bits"},
		{"overlong immediate", binFib(binCat(binOp(OpI64Add, true), binU(1, 0), "\x80\x00"), binRetR0), "decode: byte 24: func fib: instruction 0: immediate: non-minimal varint encoding"},
		{"truncated f64.const", binCat(binHeader, binU(0, 0, 0, 0, 1), binU(3), "fib", binU(0, 0), binU(1), "\x02", binU(1), binOp(OpF64Const, false), binU(0), "\x00\x00\x00\x00\x00\x00\x00"), "decode: byte 21: func fib: instruction 0: f64 constant: unexpected end of input"},
		{"truncated operand", binCat(binHeader, binU(0, 0, 0, 0, 1), binU(3), "fib", binU(0, 0, 0), binU(1), binOp(OpI64Add, false), binU(0, 0)), "decode: byte 21: func fib: instruction 0: operand B register: unexpected end of input"},
		{"switch table limit", binFib(binCat(binOp(OpSwitch, false), binU(0), binU(MaxSwitchTable+1))), "decode: byte 24: func fib: instruction 0: switch table size 65537 exceeds the limit of 65536"},
		{"switch case overflow", binFib(binCat(binOp(OpSwitch, false), binU(0), binU(2), binU(0, u32, 0))), "decode: byte 26: func fib: instruction 0: switch case 1 target 4294967296 does not fit in 32 bits"},
		{"argument count limit", binFib(binCat(binOp(OpCall, false), binU(0), binU(MaxParams+1)), binRetR0), "decode: byte 24: func fib: instruction 0: argument count 257 exceeds the limit of 256"},
		{"callee overflow", binFib(binCat(binOp(OpCall, false), binU(u32, 1, 0, 1, 0)), binRetR0), "decode: byte 23: func fib: instruction 0: callee 4294967296 does not fit in 32 bits"},
		{"result register overflow", binFib(binCat(binOp(OpCall, false), binU(0, 1, 0, 1, u32)), binRetR0), "decode: byte 27: func fib: instruction 0: result 0 register r4294967296 does not fit in 32 bits"},
		{"quoted function name", binCat(binHeader, binU(0, 0, 0, 0, 1), binU(3), "a b", binU(0, 0, 0, 1), binU(250<<1), binU(0)), `decode: byte 18: func "a b": instruction 0: unknown opcode 250`},
		{"second function", binCat(binHeader, binU(0, 0, 0, 0, 2), binU(1), "f", binU(0, 0, 0, 1), binOp(OpReturn, false), binU(0), binU(1), "g", binU(0, 0, 0, 1), binOp(OpTrap, false), "\x80"), "decode: byte 27: func g: instruction 0: trap code: unexpected end of input"},
		{"export count", binCat(binFibNoExports, binU(5), "\x01f\x00"), "decode: byte 25: export count 5 is too large for the 3 remaining bytes"},
		{"export index overflow", binCat(binFibNoExports, binU(1, 1), "f", binU(u32)), "decode: byte 28: export 0: function index 4294967296 does not fit in 32 bits"},
		{"trailing bytes", binCat(binFib(binRetR0), "xy"), "decode: byte 31: 2 trailing bytes after the export section"},
	}
	if len(tests) < 15 {
		t.Fatal("too few cases")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m *Module
			var err error
			binNoPanic(t, tt.input, "Decode", func() { m, err = Decode(tt.input) })
			if err == nil {
				t.Fatalf("Decode(%x) succeeded; want %q", tt.input, tt.want)
			}
			if m != nil {
				t.Errorf("Decode returned a module with its error")
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is %T, not *DecodeError", err, err)
			}
			if got := err.Error(); got != tt.want {
				t.Fatalf("Decode(%x) error\n  %s\nwant\n  %s", tt.input, got, tt.want)
			}
		})
	}
}

// TestBinaryDecodeErrorFields checks the fields behind one error message.
func TestBinaryDecodeErrorFields(t *testing.T) {
	_, err := Decode(binFib(binRetR0, binCat(binU(250<<1), binU(0))))
	want := &DecodeError{Pos: 25, Func: 0, FuncName: "fib", Instr: 1, Msg: "unknown opcode 250"}
	var de *DecodeError
	if !errors.As(err, &de) || *de != *want {
		t.Fatalf("error = %#v, want %#v", err, want)
	}
	_, err = Decode([]byte("\x00kln\x09"))
	want = &DecodeError{Pos: 4, Func: -1, Instr: -1, Msg: "unsupported version 9"}
	if !errors.As(err, &de) || *de != *want {
		t.Fatalf("error = %#v, want %#v", err, want)
	}
}

func TestBinaryDecodeVerifies(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"valid", binFib(binRetR0), ""},
		{"register out of range", binFib(binCat(binOp(OpReturn, false), binU(1, 5))), "verify: func fib: instruction 0 (ret): return value 0 register r5 out of range (the function has 2 registers)"},
		{"target out of range", binFib(binCat(binOp(OpJump, false), binU(7))), "verify: func fib: instruction 0 (jump): branch target 7 out of range (the function has 1 instructions)"},
		{"falls off the end", binFib(binCat(binOp(OpI64Neg, false), binU(1, 0))), "verify: func fib: instruction 0 (i64.neg): control falls off the end of the function (the last instruction must be jump, switch, ret, trap or unreachable)"},
		{"no code", binFib(), "verify: func fib: function has no code"},
		{"memory offset", binFib(binCat(binOp(OpI64Load, false), binU(1, 0), binS(1<<31)), binRetR0), "verify: func fib: instruction 0 (i64.load): memory offset 2147483648 does not fit in 32 bits"},
		{"memory limit", binCat(binHeader, binU(0, MaxPages+1, 0, 0, 0, 0)), "verify: memory maximum 65537 pages exceeds the limit of 65536"},
		{"export name", binCat(binHeader, binU(0, 0, 0, 0, 0, 1, 0, 0)), "verify: export 0 has an empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode(tt.input)
			if tt.want == "" {
				if err != nil || m == nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is %T, not *VerifyError", err, err)
			}
			if m != nil {
				t.Errorf("Decode returned a module with its error")
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n  %v\nwant\n  %s", err, tt.want)
			}
			// The structure alone decodes.
			if _, err := binDecodeUnverified(tt.input); err != nil {
				t.Fatalf("binDecodeUnverified: %v", err)
			}
		})
	}
}

func TestBinaryEncodeInvalid(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(m *Module)
	}{
		{"memory", func(m *Module) { m.Memory.MinPages = 3 }},
		{"host name", func(m *Module) { m.Hosts[0].Name = "9x" }},
		{"nil function", func(m *Module) { m.Funcs[1] = nil }},
		{"register", func(m *Module) { m.Funcs[0].Code[0].A = 9 }},
		{"invalid opcode", func(m *Module) { m.Funcs[0].Code[0].Op = Op(NumOps) }},
		{"immediate on f64", func(m *Module) { m.Funcs[1].Code[1].UseImm = true }},
		{"stray field", func(m *Module) { m.Funcs[0].Code[4].Target = 1 }},
		{"too few registers", func(m *Module) { m.Funcs[0].Regs = nil }},
		{"export", func(m *Module) { m.Exports[0].Func = 7 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := baseModule()
			tt.break_(m)
			b, err := Encode(m)
			if b != nil {
				t.Errorf("Encode returned %x for an invalid module", b)
			}
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is %T, not *VerifyError", err, err)
			}
			if want := Verify(m).Error(); err.Error() != want {
				t.Fatalf("error %q, want the verifier's %q", err, want)
			}
		})
	}
	if _, err := Encode(nil); err == nil || err.Error() != "verify: nil module" {
		t.Fatalf("Encode(nil) error = %v", err)
	}
}

// TestBinaryHugeCountsFailFast checks that counts far beyond the input fail
// without allocating for them.
func TestBinaryHugeCountsFailFast(t *testing.T) {
	huge := binU(1<<62, 0, 0, 0)
	inputs := [][]byte{
		binCat(binHeader, binU(0, 0), huge),
		binCat(binHeader, binU(1, 1, 1, 0), huge),
		binCat(binHeader, binU(0, 0, 0), huge),
		binCat(binHeader, binU(0, 0, 0, 1), huge),
		binCat(binHeader, binU(0, 0, 0, 0), huge),
		binCat(binHeader, binU(0, 0, 0, 0, 1, 1), "f", binU(1<<40), "\x01\x01\x01"),
		binCat(binHeader, binU(0, 0, 0, 0, 1, 1), "f", binU(0, 0, MaxRegs-1), "\x01\x01\x01"),
		binCat(binHeader, binU(0, 0, 0, 0, 1, 1), "f", binU(0, 0, 0, MaxCode), "\x01\x01\x01"),
		binFib(binCat(binOp(OpSwitch, false), binU(0, MaxSwitchTable, 0, 0))),
		binFib(binCat(binOp(OpCall, false), binU(0, MaxParams, 0, 0))),
		binCat(binFibNoExports, huge),
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, b := range inputs {
		var de *DecodeError
		if _, err := Decode(b); !errors.As(err, &de) || !strings.Contains(de.Msg, "too large for the") && !strings.Contains(de.Msg, "exceeds the limit") {
			t.Errorf("Decode(%x) = %v, want an error about a count or length", b, err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("decoding %d tiny inputs allocated %d bytes", len(inputs), n)
	}
}

// TestBinaryVarints checks the number encodings at their edges.
func TestBinaryVarints(t *testing.T) {
	imms := []int64{0, 1, -1, 63, -64, 64, -65, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
	for _, imm := range imms {
		for _, op := range []Op{OpI64Const, OpF64Const, OpTrap} {
			in := Instr{Op: op, Imm: imm}
			var b []byte
			switch op {
			case OpTrap:
				b = binFib(binCat(binOp(op, false), binS(imm)))
			case OpI64Const:
				in.Dst = 1
				b = binFib(binCat(binOp(op, false), binU(1), binS(imm)), binRetR0)
			case OpF64Const:
				b = binCat(binHeader, binU(0, 0, 0, 0, 1, 1), "g", binU(0, 0, 1), "\x02", binU(2),
					binOp(op, false), binU(0), binary.LittleEndian.AppendUint64(nil, uint64(imm)),
					binOp(OpReturn, false), binU(0), binU(0))
			}
			m, err := Decode(b)
			if err != nil {
				t.Fatalf("%s %d: %v", op, imm, err)
			}
			if got := m.Funcs[0].Code[0]; !got.Equal(&in) {
				t.Fatalf("%s %d: decoded %+v", op, imm, got)
			}
			if b2, _ := Encode(m); !bytes.Equal(b, b2) {
				t.Fatalf("%s %d: re-encoded %x, want %x", op, imm, b2, b)
			}
		}
	}
	// The largest register number that fits decodes (and fails only
	// verification); one more is a decode error.
	_, err := binDecodeUnverified(binFib(binCat(binOp(OpReturn, false), binU(1, math.MaxUint32))))
	if err != nil {
		t.Fatalf("register r%d: %v", uint32(math.MaxUint32), err)
	}
}

func binBenchModules(b *testing.B) ([]*Module, [][]byte, int) {
	var ms []*Module
	var encs [][]byte
	size := 0
	for seed := range 64 {
		m := randomModule(rand.New(rand.NewPCG(uint64(seed), 0xbe)))
		enc, err := Encode(m)
		if err != nil {
			b.Fatal(err)
		}
		ms, encs, size = append(ms, m), append(encs, enc), size+len(enc)
	}
	return ms, encs, size
}

func BenchmarkEncode(b *testing.B) {
	ms, _, size := binBenchModules(b)
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, m := range ms {
			if _, err := Encode(m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	_, encs, size := binBenchModules(b)
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, enc := range encs {
			if _, err := Decode(enc); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestBinaryRoundTripReferences encodes the module of references, tables
// and segments of testdata/text (version 3 of the binary form) and
// checks that it decodes to the same module, and that the table bit of
// call_indirect may not name table 0.
func TestBinaryRoundTripReferences(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "text", "references.kasm"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Assemble(src)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if b[4] != binVersion3 {
		t.Fatalf("version %d, want %d", b[4], binVersion3)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Disassemble(d), Disassemble(m); !bytes.Equal(got, want) {
		t.Fatalf("decoded module differs:\n%s\nwant:\n%s", got, want)
	}
	// The call_indirect through table 2 with the table written as 0.
	in := Instr{Op: OpCallIndirect, Imm: 2, A: 1, Args: []Reg{2}, Results: []Reg{2}}
	enc := binAppendInstr(nil, &in)
	callee := binary.AppendUvarint(binary.AppendUvarint(nil, uint64(OpCallIndirect)<<1|1), 0)
	bad := append(append(append([]byte(nil), callee...), 0), enc[len(callee)+1:]...)
	if !bytes.Contains(b, enc) {
		t.Fatal("the encoded module has no call_indirect through table 2")
	}
	_, err = Decode(bytes.Replace(b, enc, bad, 1))
	if want := "table 0 written explicitly"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Decode error %v, want one saying %q", err, want)
	}
}
