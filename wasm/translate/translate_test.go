package translate_test

import (
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/translate"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var tiers = []jit.Tier{jit.TierInterp, jit.TierBaseline, jit.TierOptimizing}

// Values in the API representation.
func i32(v int32) uint64   { return uint64(uint32(v)) }
func i64(v int64) uint64   { return uint64(v) }
func f32(v float32) uint64 { return uint64(math.Float32bits(v)) }
func f64(v float64) uint64 { return math.Float64bits(v) }

func load(t *testing.T, name string) (*translate.Module, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := binary.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := translate.Translate(m, translate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tm, b
}

func instantiate(t *testing.T, tier jit.Tier, m *translate.Module, imports link.Resolver) *link.Instance {
	t.Helper()
	engine, err := jit.NewEngine(jit.Options{Tier: tier, MaxCallDepth: 500, CheckAllocations: true})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := link.Instantiate(context.Background(), engine, m, imports)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Kiln.Tier() != tier {
		t.Fatalf("runs in tier %s, not %s: %v", inst.Kiln.Tier(), tier, inst.Kiln.Module().CompileError())
	}
	return inst
}

// opsCases are calls of the exports of testdata/ops.wasm, made in order
// on one instance (inc, the stores and grow change its state). want is
// the result, or trap the specification's message of the trap.
var opsCases = []struct {
	fn   string
	args []uint64
	want []uint64
	trap string
}{
	{fn: "add", args: []uint64{i32(2), i32(3)}, want: []uint64{i32(5)}},
	{fn: "add", args: []uint64{i32(math.MaxInt32), i32(1)}, want: []uint64{i32(math.MinInt32)}},
	{fn: "sub_imm", args: []uint64{i32(3)}, want: []uint64{i32(-2)}},
	{fn: "rsub", args: []uint64{i32(3)}, want: []uint64{i32(2)}},
	{fn: "rshl", args: []uint64{i32(4)}, want: []uint64{i32(16)}},
	{fn: "rshl", args: []uint64{i32(33)}, want: []uint64{i32(2)}},
	{fn: "lt_const", args: []uint64{i32(6)}, want: []uint64{i32(1)}},
	{fn: "lt_const", args: []uint64{i32(5)}, want: []uint64{i32(0)}},
	{fn: "const_fold", want: []uint64{i32(42)}},
	{fn: "i64_ops", args: []uint64{0x0102030405060708, i64(9)}, want: []uint64{0x0203040506070801 ^ 3}},
	{fn: "fac", args: []uint64{i64(20)}, want: []uint64{i64(2432902008176640000)}},
	{fn: "fac", args: []uint64{i64(0)}, want: []uint64{i64(1)}},
	{fn: "fib", args: []uint64{i32(20)}, want: []uint64{i32(6765)}},
	{fn: "sum_to", args: []uint64{i32(100)}, want: []uint64{i32(5050)}},
	{fn: "sum_to", args: []uint64{i32(0)}, want: []uint64{i32(0)}},
	{fn: "eqz_if", args: []uint64{i64(0)}, want: []uint64{i32(10)}},
	{fn: "eqz_if", args: []uint64{i64(1 << 40)}, want: []uint64{i32(20)}},
	{fn: "sign", args: []uint64{f64(2.5)}, want: []uint64{i32(1)}},
	{fn: "sign", args: []uint64{f64(-1)}, want: []uint64{i32(-1)}},
	{fn: "sign", args: []uint64{f64(math.NaN())}, want: []uint64{i32(0)}},
	{fn: "br_if_value", args: []uint64{i32(1)}, want: []uint64{i32(7)}},
	{fn: "br_if_value", args: []uint64{i32(0)}, want: []uint64{i32(9)}},
	{fn: "br_if_deep", args: []uint64{i32(1)}, want: []uint64{i32(140)}},
	{fn: "br_if_deep", args: []uint64{i32(0)}, want: []uint64{i32(143)}},
	{fn: "br_if_return", args: []uint64{i32(1)}, want: []uint64{i32(40)}},
	{fn: "br_if_return", args: []uint64{i32(0)}, want: []uint64{i32(141)}},
	{fn: "br_table_value", args: []uint64{i32(0)}, want: []uint64{i32(1115)}},
	{fn: "br_table_value", args: []uint64{i32(1)}, want: []uint64{i32(1105)}},
	{fn: "br_table_value", args: []uint64{i32(2)}, want: []uint64{i32(1005)}},
	{fn: "br_table_value", args: []uint64{i32(3)}, want: []uint64{i32(5)}},
	{fn: "br_table_value", args: []uint64{i32(-1)}, want: []uint64{i32(5)}},
	{fn: "switch", args: []uint64{i32(0)}, want: []uint64{i32(100)}},
	{fn: "switch", args: []uint64{i32(2)}, want: []uint64{i32(102)}},
	{fn: "switch", args: []uint64{i32(3)}, want: []uint64{i32(103)}},
	{fn: "switch", args: []uint64{i32(1 << 20)}, want: []uint64{i32(103)}},
	{fn: "early_return", args: []uint64{i32(5)}, want: []uint64{i32(1)}},
	{fn: "early_return", args: []uint64{i32(0)}, want: []uint64{i32(2)}},
	{fn: "dead_code", args: []uint64{i32(4)}, want: []uint64{i32(4)}},
	{fn: "loop_result", args: []uint64{i32(5)}, want: []uint64{i32(15)}},
	{fn: "swap_sub", args: []uint64{i32(10), i32(3)}, want: []uint64{i32(7)}},
	{fn: "stale_in_block", args: []uint64{i32(5)}, want: []uint64{i32(1005)}},
	{fn: "stale_in_block", args: []uint64{i32(0)}, want: []uint64{i32(0)}},
	{fn: "tee", args: []uint64{i32(4)}, want: []uint64{i32(55)}},
	{fn: "select", args: []uint64{i32(1), i32(2), i32(1)}, want: []uint64{i32(1)}},
	{fn: "select", args: []uint64{i32(1), i32(2), i32(0)}, want: []uint64{i32(2)}},
	{fn: "select_f64", args: []uint64{i32(7)}, want: []uint64{f64(1.5)}},
	{fn: "select_f64", args: []uint64{i32(0)}, want: []uint64{f64(-2.5)}},
	{fn: "inc", want: []uint64{i32(1)}},
	{fn: "inc", want: []uint64{i32(2)}},
	{fn: "big", want: []uint64{i64(0x123456789)}},
	{fn: "load8_u", args: []uint64{i32(8)}, want: []uint64{i32(255)}},
	{fn: "load8_s", args: []uint64{i32(8)}, want: []uint64{i32(-1)}},
	{fn: "load8_u", args: []uint64{i32(65535)}, want: []uint64{i32(0)}},
	{fn: "load8_u", args: []uint64{i32(65536)}, trap: "out of bounds memory access"},
	{fn: "load8_u", args: []uint64{i32(-1)}, trap: "out of bounds memory access"},
	{fn: "load32", args: []uint64{i32(0)}, want: []uint64{i32(0x05040302)}},
	{fn: "load32", args: []uint64{i32(65531)}, want: []uint64{i32(0)}},
	{fn: "load32", args: []uint64{i32(65532)}, trap: "out of bounds memory access"},
	{fn: "load_big_offset", args: []uint64{i32(0)}, trap: "out of bounds memory access"},
	{fn: "load_big_offset", args: []uint64{i32(math.MinInt32)}, trap: "out of bounds memory access"},
	{fn: "load_max_offset", args: []uint64{i32(0)}, trap: "out of bounds memory access"},
	{fn: "load_max_offset", args: []uint64{i32(1)}, trap: "out of bounds memory access"},
	{fn: "store_load", args: []uint64{i32(16), 0x1122334455667788}, want: []uint64{0x1122334455667788}},
	{fn: "store_load", args: []uint64{i32(65528), 1}, trap: "out of bounds memory access"},
	{fn: "store16", args: []uint64{i32(32), i32(0x12345678)}, want: []uint64{i32(0x5678)}},
	{fn: "f32_mem", args: []uint64{f32(1.25)}, want: []uint64{f32(1.25)}},
	{fn: "size", want: []uint64{i32(1)}},
	{fn: "grow", args: []uint64{i32(1)}, want: []uint64{i32(1)}},
	{fn: "size", want: []uint64{i32(2)}},
	{fn: "load8_u", args: []uint64{i32(65536)}, want: []uint64{i32(0)}},
	{fn: "grow", args: []uint64{i32(1)}, want: []uint64{i32(-1)}},
	{fn: "grow", args: []uint64{i32(-1)}, want: []uint64{i32(-1)}},
	{fn: "grow", args: []uint64{i32(0)}, want: []uint64{i32(2)}},
	{fn: "call_ind", args: []uint64{i32(0), i32(5)}, want: []uint64{i32(10)}},
	{fn: "call_ind", args: []uint64{i32(1), i32(5)}, want: []uint64{i32(25)}},
	{fn: "call_ind", args: []uint64{i32(2), i32(5)}, trap: "uninitialized element"},
	{fn: "call_ind", args: []uint64{i32(3), i32(5)}, trap: "indirect call type mismatch"},
	{fn: "call_ind", args: []uint64{i32(5), i32(5)}, trap: "undefined element"},
	{fn: "call_ind", args: []uint64{i32(-1), i32(5)}, trap: "undefined element"},
	{fn: "fmix", args: []uint64{f64(2), f64(-9)}, want: []uint64{f64(-15)}},
	{fn: "fmin", args: []uint64{f32(1.5), f32(-2)}, want: []uint64{f32(-2)}},
	{fn: "fmin", args: []uint64{f32(0), f32(float32(math.Copysign(0, -1)))}, want: []uint64{f32(float32(math.Copysign(0, -1)))}},
	{fn: "nearest", args: []uint64{f64(2.5)}, want: []uint64{f64(2)}},
	{fn: "nearest", args: []uint64{f64(3.5)}, want: []uint64{f64(4)}},
	{fn: "nearest", args: []uint64{f64(-0.5)}, want: []uint64{f64(math.Copysign(0, -1))}},
	{fn: "demote", args: []uint64{f64(0.1)}, want: []uint64{f32(0.1)}},
	{fn: "trunc_s", args: []uint64{f64(-3.9)}, want: []uint64{i32(-3)}},
	{fn: "trunc_s", args: []uint64{f64(3e9)}, trap: "integer overflow"},
	{fn: "trunc_s", args: []uint64{f64(math.NaN())}, trap: "invalid conversion to integer"},
	{fn: "trunc_u64", args: []uint64{f32(-0.5)}, want: []uint64{0}},
	{fn: "trunc_u64", args: []uint64{f32(1e19)}, want: []uint64{uint64(float32(1e19))}},
	{fn: "trunc_u64", args: []uint64{f32(-1)}, trap: "integer overflow"},
	{fn: "convert_u", args: []uint64{i32(-1)}, want: []uint64{f64(4294967295)}},
	{fn: "extend_s", args: []uint64{i32(-5)}, want: []uint64{i64(-5)}},
	{fn: "wrap", args: []uint64{0x100000005}, want: []uint64{i32(5)}},
	{fn: "reinterpret", args: []uint64{f32(1)}, want: []uint64{0x3f800000}},
	{fn: "i64_lt_u", args: []uint64{i64(1), i64(-1)}, want: []uint64{i32(1)}},
	{fn: "div_s", args: []uint64{i32(7), i32(-2)}, want: []uint64{i32(-3)}},
	{fn: "div_s", args: []uint64{i32(1), i32(0)}, trap: "integer divide by zero"},
	{fn: "div_s", args: []uint64{i32(math.MinInt32), i32(-1)}, trap: "integer overflow"},
	{fn: "rem_s", args: []uint64{i32(math.MinInt32), i32(-1)}, want: []uint64{i32(0)}},
	{fn: "rem_s", args: []uint64{i32(-7), i32(2)}, want: []uint64{i32(-1)}},
	{fn: "div_u64", args: []uint64{i64(10), i64(0)}, trap: "integer divide by zero"},
	{fn: "unreachable", trap: "unreachable"},
	{fn: "recurse", args: []uint64{i32(0)}, trap: "call stack exhausted"},
}

// TestOps runs opsCases on every tier.
func TestOps(t *testing.T) {
	m, wasm := load(t, "ops.wasm")
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			inst := instantiate(t, tier, m, nil)
			for _, c := range opsCases {
				got, err := inst.Call(context.Background(), c.fn, c.args...)
				if c.trap != "" {
					trap, ok := translate.TrapOf(err)
					if !ok {
						t.Errorf("%s%v: got %v, %v; want trap %q", c.fn, c.args, got, err, c.trap)
						continue
					}
					if msg := translate.TrapMessage(trap.Kind); msg != c.trap {
						t.Errorf("%s%v: trap %q, want %q", c.fn, c.args, msg, c.trap)
					}
					// The trap points at a Wasm instruction of the function.
					if off, ok := m.SourceOffset(trap); !ok || off <= 0 || off >= len(wasm) {
						t.Errorf("%s%v: trap source offset %d, %v", c.fn, c.args, off, ok)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s%v: %v", c.fn, c.args, err)
					continue
				}
				if len(got) != len(c.want) || len(got) > 0 && got[0] != c.want[0] {
					t.Errorf("%s%v = %#x, want %#x", c.fn, c.args, got, c.want)
				}
			}
			// Exported globals and memory.
			if v, err := inst.Global("counter"); err != nil || v != 2 {
				t.Errorf("counter = %d, %v; want 2", v, err)
			}
			if v, err := inst.Global("pi"); err != nil || v != f64(3.25) {
				t.Errorf("pi = %#x, %v; want 3.25", v, err)
			}
			if mem := inst.Kiln.Memory(); len(mem) != 2*65536 || mem[3] != 4 {
				t.Errorf("memory: %d bytes", len(mem))
			}
		})
	}
}

// TestTrapSource checks that a trap maps back to the Wasm instruction
// that caused it: the i32.div_s of the export div_s.
func TestTrapSource(t *testing.T) {
	m, wasm := load(t, "ops.wasm")
	inst := instantiate(t, jit.TierInterp, m, nil)
	_, err := inst.Call(context.Background(), "div_s", i32(1), i32(0))
	trap, ok := translate.TrapOf(err)
	if !ok {
		t.Fatalf("no trap: %v", err)
	}
	off, ok := m.SourceOffset(trap)
	if !ok || wasm[off] != 0x6d {
		t.Errorf("trap at byte %#x (opcode %#x), want an i32.div_s (0x6d)", off, wasm[off])
	}
}

// TestGolden compares the kiln bytecode of testdata/ops.wasm with the
// golden disassembly, which shows how the stack maps onto registers.
// go test -update rewrites it.
func TestGolden(t *testing.T) {
	m, _ := load(t, "ops.wasm")
	bm, err := m.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := bc.Disassemble(bm)
	path := filepath.Join("..", "testdata", "ops.kasm")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("the translation of ops.wasm differs from %s (go test -update rewrites it)", path)
	}
	// The disassembly assembles back to the same module.
	if _, err := bc.Assemble(got); err != nil {
		t.Errorf("assemble: %v", err)
	}
}

func TestTrapMessages(t *testing.T) {
	for k, want := range map[bc.TrapKind]string{
		bc.TrapDivideByZero:             "integer divide by zero",
		bc.TrapIntegerOverflow:          "integer overflow",
		bc.TrapInvalidConversion:        "invalid conversion to integer",
		bc.TrapOutOfBounds:              "out of bounds memory access",
		bc.TrapStackOverflow:            "call stack exhausted",
		bc.TrapUnreachable:              "unreachable",
		bc.TrapUndefinedElement:         "undefined element",
		bc.TrapUninitializedElement:     "uninitialized element",
		bc.TrapIndirectCallTypeMismatch: "indirect call type mismatch",
		bc.TrapFuelExhausted:            "fuel exhausted",
	} {
		if got := translate.TrapMessage(k); got != want {
			t.Errorf("%v: %q, want %q", k, got, want)
		}
	}
	if _, ok := translate.TrapOf(errors.New("plain")); ok {
		t.Error("TrapOf found a trap in a plain error")
	}
}
