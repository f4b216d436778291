package interp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// The WebAssembly 1.0 specification tests, as converted to JSON by wabt's
// wast2json, hold thousands of assertions on single numeric instructions.
// TestWasmSpecNumeric runs those whose exported function is one
// instruction with a kiln opcode of the same name. The scripts live
// outside this repository: set KILN_WASM_SPECTEST to their directory (by
// default ../../shared/wasm/spectest); the test is skipped when it is not
// there.

// specFiles maps a script to the prefix that turns its export names into
// kiln op names ("add" in i32.json is i32.add); conversions.json exports
// the op names themselves.
var specFiles = map[string]string{
	"i32.json":         "i32.",
	"i64.json":         "i64.",
	"f32.json":         "f32.",
	"f32_cmp.json":     "f32.",
	"f32_bitwise.json": "f32.",
	"f64.json":         "f64.",
	"f64_cmp.json":     "f64.",
	"f64_bitwise.json": "f64.",
	"conversions.json": "",
}

type specValue struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type specCommand struct {
	Type   string `json:"type"`
	Line   int    `json:"line"`
	Action struct {
		Type  string      `json:"type"`
		Field string      `json:"field"`
		Args  []specValue `json:"args"`
	} `json:"action"`
	Text     string      `json:"text"`
	Expected []specValue `json:"expected"`
}

var specTypes = map[string]bc.Type{"i32": bc.I32, "i64": bc.I64, "f32": bc.F32, "f64": bc.F64}

var specTraps = map[string]bc.TrapKind{
	"integer overflow":              bc.TrapIntegerOverflow,
	"integer divide by zero":        bc.TrapDivideByZero,
	"invalid conversion to integer": bc.TrapInvalidConversion,
}

func TestWasmSpecNumeric(t *testing.T) {
	dir := os.Getenv("KILN_WASM_SPECTEST")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "wasm", "spectest")
	}
	if _, err := os.Stat(filepath.Join(dir, "i32.json")); err != nil {
		t.Skipf("no WebAssembly spec tests in %s (set KILN_WASM_SPECTEST): %v", dir, err)
	}
	for file, prefix := range specFiles {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			var script struct {
				Commands []specCommand `json:"commands"`
			}
			if err := json.Unmarshal(data, &script); err != nil {
				t.Fatal(err)
			}
			ran := 0
			for _, c := range script.Commands {
				if c.Type != "assert_return" && c.Type != "assert_trap" || c.Action.Type != "invoke" {
					continue
				}
				op, ok := bc.OpByName(prefix + c.Action.Field)
				if !ok {
					t.Errorf("line %d: no op %s%s", c.Line, prefix, c.Action.Field)
					continue
				}
				if err := runSpecCommand(t, op, &c); err != nil {
					t.Errorf("%s line %d: %s%v: %v", file, c.Line, op, c.Action.Args, err)
				}
				ran++
			}
			t.Logf("%d assertions", ran)
			if ran == 0 {
				t.Error("no assertions ran")
			}
		})
	}
}

// runSpecCommand runs one assertion: with every argument in a register,
// with garbage in the upper halves of 32-bit arguments and, for ops that
// take an immediate, with B as the immediate.
func runSpecCommand(t *testing.T, op bc.Op, c *specCommand) error {
	var args []uint64
	var types []bc.Type
	for _, a := range c.Action.Args {
		v, err := strconv.ParseUint(a.Value, 10, 64)
		if err != nil {
			return err
		}
		args = append(args, v)
		types = append(types, specTypes[a.Type])
	}
	if len(c.Expected) != 1 {
		return fmt.Errorf("%d expected values", len(c.Expected))
	}
	dst := specTypes[c.Expected[0].Type]
	trap := bc.TrapNone
	var want uint64
	var wantNaN bool
	if c.Type == "assert_trap" {
		var ok bool
		if trap, ok = specTraps[c.Text]; !ok {
			return fmt.Errorf("unknown trap %q", c.Text)
		}
	} else if strings.HasPrefix(c.Expected[0].Value, "nan:") {
		wantNaN = true
	} else {
		var err error
		if want, err = strconv.ParseUint(c.Expected[0].Value, 10, 64); err != nil {
			return err
		}
	}

	type variant struct {
		args   []uint64
		types  []bc.Type
		useImm bool
		imm    int64
	}
	variants := []variant{{args: args, types: types}}
	dirty := append([]uint64(nil), args...)
	for i, ty := range types {
		if ty.Is32() {
			dirty[i] |= dirt
		}
	}
	variants = append(variants, variant{args: dirty, types: types})
	if op.Info().Imm && len(args) == 2 {
		imm := int64(args[1])
		if types[1] == bc.I32 {
			imm = int64(int32(args[1]))
		}
		variants = append(variants, variant{args: args[:1], types: types[:1], useImm: true, imm: imm})
	}
	for _, v := range variants {
		m := opModule(t, op, dst, v.types, v.useImm, v.imm, nil)
		got, _, err := runOp(t, m, v.args)
		what := fmt.Sprintf("(imm=%v %#x)", v.useImm, v.args)
		switch {
		case trap != bc.TrapNone:
			var tr *bc.Trap
			if !errors.As(err, &tr) || tr.Kind != trap {
				return fmt.Errorf("%s: got %#x, %v; want trap %q", what, got, err, trap)
			}
		case err != nil:
			return fmt.Errorf("%s: %v", what, err)
		case wantNaN:
			if !isNaNOf(dst, got) {
				return fmt.Errorf("%s: got %#x, want a NaN", what, got)
			}
		case got != want:
			return fmt.Errorf("%s: got %#x, want %#x", what, got, want)
		}
	}
	return nil
}
