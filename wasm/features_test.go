package wasm

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/text"
	"github.com/kiln-jit/kiln/wasm/translate"
	"github.com/kiln-jit/kiln/wasm/validate"
)

// feature2Module exercises the features of WebAssembly 2.0 kiln
// supports, in the text format: sign extension, saturating truncation,
// multi-value blocks, loops, ifs, functions and calls, typed select,
// call_indirect with a table index, memory.copy and memory.fill.
const feature2Module = `(module
  (type $pair (func (param i32 i32) (result i32 i32)))
  (table 2 funcref)
  (memory 1)
  (data (i32.const 0) "abcdefgh")
  (func (export "copy") (param i32 i32 i32) (memory.copy (local.get 0) (local.get 1) (local.get 2)))
  (func (export "fill") (param i32 i32 i32) (memory.fill (local.get 0) (local.get 1) (local.get 2)))
  (func (export "load8") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (elem (i32.const 0) $swap $swap)
  (func $swap (type $pair) (local.get 1) (local.get 0))
  (func (export "ext8") (param i32) (result i32) (i32.extend8_s (local.get 0)))
  (func (export "ext16") (param i32) (result i32) (i32.extend16_s (local.get 0)))
  (func (export "ext64_32") (param i64) (result i64) (i64.extend32_s (local.get 0)))
  (func (export "sat_s") (param f64) (result i32) (i32.trunc_sat_f64_s (local.get 0)))
  (func (export "sat_u") (param f32) (result i64) (i64.trunc_sat_f32_u (local.get 0)))
  (func (export "swap") (param i32 i32) (result i32 i32) (call $swap (local.get 0) (local.get 1)))
  (func (export "swap_indirect") (param i32 i32) (result i32 i32)
    (call_indirect 0 (type $pair) (local.get 0) (local.get 1) (i32.const 1)))
  (func (export "block_params") (param i32 i32) (result i32)
    (local.get 0) (local.get 1)
    (block (param i32 i32) (result i32) (i32.sub)))
  (func (export "sum_to") (param i32) (result i32)
    ;; a loop carrying the running sum and the counter as parameters
    (i32.const 0) (local.get 0)
    (loop $l (param i32 i32) (result i32)
      (local.set 0)
      (local.get 0) (i32.add)
      (local.get 0) (i32.const 1) (i32.sub) (local.tee 0)
      (br_if $l (local.get 0))
      (drop)))
  (func (export "if_pair") (param i32) (result i32 i32)
    (i32.const 10) (i32.const 20)
    (if (param i32 i32) (result i32 i32) (local.get 0)
      (then (call $swap))
      (else (nop))))
  (func (export "br_pair") (param i32) (result i32 i32)
    (block $b (result i32 i32)
      (i32.const 1) (i32.const 2)
      (br_if $b (local.get 0))
      (drop) (drop) (i32.const 3) (i32.const 4)))
  (func (export "select_t") (param i32) (result i64)
    (select (result i64) (i64.const 7) (i64.const 8) (local.get 0))))`

// TestFeatures2 runs feature2Module's exports on every tier.
func TestFeatures2(t *testing.T) {
	m, err := text.Parse([]byte(feature2Module))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := translate.Translate(m, translate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []uint64
		want []uint64
		trap string // the trap's message, when the call traps
	}{
		{"ext8", []uint64{0x80}, []uint64{0xffffff80}, ""},
		{"ext8", []uint64{0x17f}, []uint64{0x7f}, ""},
		{"ext16", []uint64{0x8000}, []uint64{0xffff8000}, ""},
		{"ext64_32", []uint64{0x80000000}, []uint64{0xffffffff80000000}, ""},
		{"sat_s", []uint64{math.Float64bits(1e20)}, []uint64{0x7fffffff}, ""},
		{"sat_s", []uint64{math.Float64bits(math.NaN())}, []uint64{0}, ""},
		{"sat_s", []uint64{math.Float64bits(-2.5)}, []uint64{0xfffffffe}, ""},
		{"sat_u", []uint64{uint64(math.Float32bits(-1))}, []uint64{0}, ""},
		{"sat_u", []uint64{uint64(math.Float32bits(3e19))}, []uint64{math.MaxUint64}, ""},
		{"swap", []uint64{1, 2}, []uint64{2, 1}, ""},
		{"swap_indirect", []uint64{3, 4}, []uint64{4, 3}, ""},
		{"block_params", []uint64{9, 4}, []uint64{5}, ""},
		{"sum_to", []uint64{10}, []uint64{55}, ""},
		{"if_pair", []uint64{1}, []uint64{20, 10}, ""},
		{"if_pair", []uint64{0}, []uint64{10, 20}, ""},
		{"br_pair", []uint64{1}, []uint64{1, 2}, ""},
		{"br_pair", []uint64{0}, []uint64{3, 4}, ""},
		{"select_t", []uint64{1}, []uint64{7}, ""},
		{"select_t", []uint64{0}, []uint64{8}, ""},
		// The calls share the instance's memory, in order.
		{"copy", []uint64{2, 0, 4}, []uint64{}, ""}, // "ababcdgh"
		{"load8", []uint64{2}, []uint64{'a'}, ""},
		{"load8", []uint64{5}, []uint64{'d'}, ""},
		{"copy", []uint64{0, 1, 7}, []uint64{}, ""}, // "babcdgh" then "h"
		{"load8", []uint64{0}, []uint64{'b'}, ""},
		{"load8", []uint64{6}, []uint64{'h'}, ""},
		{"fill", []uint64{10, 0x1ff, 3}, []uint64{}, ""},
		{"load8", []uint64{12}, []uint64{0xff}, ""},
		{"load8", []uint64{13}, []uint64{0}, ""},
		{"fill", []uint64{65535, 7, 2}, nil, "out of bounds memory access"},
		{"load8", []uint64{65535}, []uint64{0}, ""},
		{"copy", []uint64{65530, 0, 7}, nil, "out of bounds memory access"},
		{"load8", []uint64{65530}, []uint64{0}, ""},
		{"copy", []uint64{65536, 0, 0}, []uint64{}, ""},
		{"fill", []uint64{65537, 0, 0}, nil, "out of bounds memory access"},
	}
	for _, tier := range loadTiers {
		t.Run(tier.String(), func(t *testing.T) {
			engine, err := jit.NewEngine(jit.Options{Tier: tier})
			if err != nil {
				t.Fatal(err)
			}
			inst, err := link.Instantiate(context.Background(), engine, tm, func(string, string) (link.Extern, bool) { return nil, false })
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range tests {
				got, err := inst.Call(context.Background(), tc.name, tc.args...)
				if tc.trap != "" {
					if trap, ok := translate.TrapOf(err); !ok || translate.TrapMessage(trap.Kind) != tc.trap {
						t.Errorf("%s%v: %v, want trap %q", tc.name, tc.args, err, tc.trap)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s%v: %v", tc.name, tc.args, err)
					continue
				}
				if len(got) != len(tc.want) {
					t.Errorf("%s%v = %#x, want %#x", tc.name, tc.args, got, tc.want)
					continue
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("%s%v = %#x, want %#x", tc.name, tc.args, got, tc.want)
						break
					}
				}
			}
		})
	}
}

// TestUnsupportedFeatures checks that a valid module using a feature of
// WebAssembly 2.0 that kiln does not support fails with an
// UnsupportedError naming the feature and what uses it, in the binary
// format and (where the parser reads the instruction) the text format.
func TestUnsupportedFeatures(t *testing.T) {
	tests := []struct {
		name, src, feature, what string
	}{
		{"v128 param", `(module (func (param v128)))`, "SIMD", "v128 values"},
		{"global.get element", `(module (import "m" "g" (global funcref)) (table 1 funcref) (elem (i32.const 0) funcref (global.get 0)))`, "reference types", "global.get in an element segment"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := text.ToBinary([]byte(tc.src))
			var te *text.Error
			if errors.As(err, &te) && strings.HasPrefix(te.Msg, "unsupported: "+tc.what) {
				return // the parser does not read the instruction's immediates
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := binary.Decode(b)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			_, err = translate.Translate(m, translate.Options{})
			var ue *validate.UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("error %v (%T), want an UnsupportedError", err, err)
			}
			if ue.Feature != tc.feature || ue.What != tc.what {
				t.Errorf("unsupported %q (%q), want %q (%q)", ue.What, ue.Feature, tc.what, tc.feature)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "unsupported: "+tc.what+" ("+tc.feature+")") {
				t.Errorf("message %q does not name the feature and the instruction first", msg)
			}
		})
	}
}

// TestSIMDUnsupported checks that a function with a SIMD instruction
// decodes (its immediates are read) and fails as unsupported.
func TestSIMDUnsupported(t *testing.T) {
	// (func (result i32) v128.const 0 ... i32x4.extract_lane 0): the type
	// [] -> [i32], the body 0xFD 12 <16 bytes> 0xFD 27 <lane>.
	body := append([]byte{0, 0xfd, 12}, make([]byte, 16)...)
	body = append(body, 0xfd, 27, 0, 0x0b)
	mod := []byte("\x00asm\x01\x00\x00\x00")
	mod = append(mod, 1, 5, 1, 0x60, 0, 1, 0x7f, 3, 2, 1, 0)
	mod = append(mod, 10, byte(len(body)+2), 1, byte(len(body)))
	mod = append(mod, body...)
	m, err := binary.Decode(mod)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	_, err = translate.Translate(m, translate.Options{})
	var ue *validate.UnsupportedError
	if !errors.As(err, &ue) || ue.Feature != "SIMD" {
		t.Fatalf("error %v, want an UnsupportedError of SIMD", err)
	}
	if _, err := binary.DecodeFeatures(mod, binary.Features1); err == nil {
		t.Error("WebAssembly 1.0 decoded a SIMD instruction")
	}
}
