package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/examples/wasm/binary"
	"github.com/kiln-jit/kiln/examples/wasm/link"
	"github.com/kiln-jit/kiln/examples/wasm/translate"
	"github.com/kiln-jit/kiln/jit"
)

// TestSpecScripts runs WebAssembly specification scripts (the JSON and
// .wasm files wast2json makes) when KILN_WASM_SPECTEST names their
// directory; KILN_WASM_SPECTEST_FILES picks scripts (comma-separated base
// names, default all) and KILN_WASM_SPECTEST_TIER the tier (default
// interp). It reports each script's passes, failures and commands
// skipped because they use what the translator does not support (shared
// memories and tables, mutable global imports) or are in the text format.
func TestSpecScripts(t *testing.T) {
	dir := os.Getenv("KILN_WASM_SPECTEST")
	if dir == "" {
		t.Skip("KILN_WASM_SPECTEST is not set")
	}
	tier := jit.TierInterp
	if s := os.Getenv("KILN_WASM_SPECTEST_TIER"); s != "" {
		var err error
		if tier, err = jit.ParseTier(s); err != nil {
			t.Fatal(err)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if only := os.Getenv("KILN_WASM_SPECTEST_FILES"); only != "" {
		files = nil
		for _, name := range strings.Split(only, ",") {
			files = append(files, filepath.Join(dir, name+".json"))
		}
	}
	var total specCounts
	for _, f := range files {
		c := runSpecScript(t, f, tier)
		t.Logf("%-28s pass %5d  fail %4d  skip %4d", filepath.Base(f), c.pass, c.fail, c.skip)
		total.pass += c.pass
		total.fail += c.fail
		total.skip += c.skip
	}
	t.Logf("%-28s pass %5d  fail %4d  skip %4d", "total", total.pass, total.fail, total.skip)
}

type specCounts struct{ pass, fail, skip int }

type specValue struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type specAction struct {
	Type   string      `json:"type"`
	Module string      `json:"module"`
	Field  string      `json:"field"`
	Args   []specValue `json:"args"`
}

type specCommand struct {
	Type       string      `json:"type"`
	Line       int         `json:"line"`
	Name       string      `json:"name"`
	As         string      `json:"as"`
	Filename   string      `json:"filename"`
	ModuleType string      `json:"module_type"`
	Text       string      `json:"text"`
	Action     specAction  `json:"action"`
	Expected   []specValue `json:"expected"`
}

// errSkip marks a command that uses something unsupported.
var errSkip = errors.New("unsupported")

type specRunner struct {
	dir        string
	engine     *jit.Engine
	current    *link.Instance
	named      map[string]*link.Instance
	registered map[string]*link.Instance
}

func runSpecScript(t *testing.T, path string, tier jit.Tier) specCounts {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var script struct {
		Commands []specCommand `json:"commands"`
	}
	if err := json.Unmarshal(b, &script); err != nil {
		t.Fatal(err)
	}
	engine, err := jit.NewEngine(jit.Options{Tier: tier, MaxCallDepth: 2000})
	if err != nil {
		t.Fatal(err)
	}
	r := &specRunner{dir: filepath.Dir(path), engine: engine, named: map[string]*link.Instance{}, registered: map[string]*link.Instance{}}
	var c specCounts
	fails := map[string]int{}
	for _, cmd := range script.Commands {
		err := r.run(cmd)
		switch {
		case err == nil:
			c.pass++
		case errors.Is(err, errSkip):
			c.skip++
		default:
			c.fail++
			key := cmd.Type + ": " + firstWords(err.Error())
			if fails[key] < 3 {
				t.Errorf("%s:%d: %s: %v", filepath.Base(path), cmd.Line, cmd.Type, err)
			}
			fails[key]++
		}
	}
	keys := make([]string, 0, len(fails))
	for k := range fails {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if fails[k] > 3 {
			t.Logf("%s: %d more like %q", filepath.Base(path), fails[k]-3, k)
		}
	}
	return c
}

func firstWords(s string) string {
	if i := strings.Index(s, ":"); i > 0 {
		return s[:i]
	}
	return s
}

func (r *specRunner) load(file string) (*translate.Module, error) {
	b, err := os.ReadFile(filepath.Join(r.dir, file))
	if err != nil {
		return nil, err
	}
	m, err := binary.Decode(b)
	if err != nil {
		return nil, err
	}
	return translate.Translate(m, translate.Options{})
}

func (r *specRunner) resolve(module, name string) (link.Extern, bool) {
	if module == "spectest" {
		return spectestImport(name)
	}
	inst, ok := r.registered[module]
	if !ok {
		return nil, false
	}
	x, err := inst.Export(name)
	if err != nil {
		return nil, false
	}
	return x, true
}

func (r *specRunner) instantiate(file string) (*link.Instance, error) {
	m, err := r.load(file)
	if err != nil {
		var u *translate.UnsupportedError
		if errors.As(err, &u) {
			return nil, fmt.Errorf("%w: %v", errSkip, err)
		}
		return nil, err
	}
	inst, err := link.Instantiate(context.Background(), r.engine, m, r.resolve)
	if err == nil && inst.Kiln.Tier() != r.engine.Options().Tier {
		return nil, fmt.Errorf("runs in tier %s, not %s: %v", inst.Kiln.Tier(), r.engine.Options().Tier, inst.Kiln.Module().CompileError())
	}
	return inst, err
}

func (r *specRunner) run(cmd specCommand) error {
	switch cmd.Type {
	case "module":
		inst, err := r.instantiate(cmd.Filename)
		r.current = inst
		if err != nil {
			return err
		}
		if cmd.Name != "" {
			r.named[cmd.Name] = inst
		}
		return nil
	case "register":
		inst := r.current
		if cmd.Name != "" {
			inst = r.named[cmd.Name]
		}
		if inst == nil {
			return fmt.Errorf("%w: register of a module that did not instantiate", errSkip)
		}
		r.registered[cmd.As] = inst
		return nil
	case "action":
		_, err := r.action(cmd.Action)
		return err
	case "assert_return":
		got, err := r.action(cmd.Action)
		if err != nil {
			return err
		}
		if len(got) != len(cmd.Expected) {
			return fmt.Errorf("got %d results, want %d", len(got), len(cmd.Expected))
		}
		for i, want := range cmd.Expected {
			if !valueMatches(want, got[i]) {
				return fmt.Errorf("result %d: got %#x, want %s %s", i, got[i], want.Type, want.Value)
			}
		}
		return nil
	case "assert_trap", "assert_exhaustion":
		if cmd.Action.Type == "" {
			// A module whose instantiation traps.
			_, err := r.instantiate(cmd.Filename)
			return expectTrap(err, cmd.Text)
		}
		_, err := r.action(cmd.Action)
		return expectTrap(err, cmd.Text)
	case "assert_uninstantiable":
		_, err := r.instantiate(cmd.Filename)
		return expectTrap(err, cmd.Text)
	case "assert_unlinkable":
		_, err := r.instantiate(cmd.Filename)
		if errors.Is(err, errSkip) {
			return err
		}
		if err == nil {
			return fmt.Errorf("instantiated; want %q", cmd.Text)
		}
		return nil
	case "assert_malformed", "assert_invalid":
		if cmd.ModuleType == "text" {
			return errSkip
		}
		b, err := os.ReadFile(filepath.Join(r.dir, cmd.Filename))
		if err != nil {
			return err
		}
		m, err := binary.Decode(b)
		if err != nil {
			if cmd.Type == "assert_invalid" {
				return fmt.Errorf("malformed, want invalid (%q): %v", cmd.Text, err)
			}
			return nil
		}
		if cmd.Type == "assert_malformed" {
			return fmt.Errorf("decoded; want malformed (%q)", cmd.Text)
		}
		if _, err := translate.Translate(m, translate.Options{}); err == nil {
			return fmt.Errorf("valid; want invalid (%q)", cmd.Text)
		}
		return nil
	}
	return fmt.Errorf("%w: command %s", errSkip, cmd.Type)
}

func (r *specRunner) action(a specAction) ([]uint64, error) {
	inst := r.current
	if a.Module != "" {
		inst = r.named[a.Module]
	}
	if inst == nil {
		return nil, fmt.Errorf("%w: no module instance", errSkip)
	}
	switch a.Type {
	case "invoke":
		args := make([]uint64, len(a.Args))
		for i, v := range a.Args {
			n, err := strconv.ParseUint(v.Value, 10, 64)
			if err != nil {
				return nil, err
			}
			args[i] = n
		}
		return inst.Call(context.Background(), a.Field, args...)
	case "get":
		v, err := inst.Global(a.Field)
		if err != nil {
			return nil, err
		}
		return []uint64{v}, nil
	}
	return nil, fmt.Errorf("%w: action %s", errSkip, a.Type)
}

func expectTrap(err error, text string) error {
	if errors.Is(err, errSkip) {
		return err
	}
	if err == nil {
		return fmt.Errorf("no trap; want %q", text)
	}
	trap, ok := translate.TrapOf(err)
	if !ok {
		var le *translate.LinkError
		if errors.As(err, &le) && strings.HasPrefix(le.Msg, text) {
			return nil
		}
		return fmt.Errorf("error %v; want trap %q", err, text)
	}
	if msg := translate.TrapMessage(trap.Kind); !strings.HasPrefix(msg, text) && !strings.HasPrefix(text, msg) {
		return fmt.Errorf("trap %q; want %q", msg, text)
	}
	return nil
}

func valueMatches(want specValue, got uint64) bool {
	switch want.Value {
	case "nan:canonical", "nan:arithmetic":
		if want.Type == "f32" {
			f := uint32(got)
			if f&0x7f800000 != 0x7f800000 || f&0x7fffff == 0 {
				return false
			}
			return want.Value == "nan:arithmetic" || f&0x7fffff == 0x400000
		}
		if got&0x7ff0000000000000 != 0x7ff0000000000000 || got&0xfffffffffffff == 0 {
			return false
		}
		return want.Value == "nan:arithmetic" || got&0xfffffffffffff == 0x8000000000000
	}
	n, err := strconv.ParseUint(want.Value, 10, 64)
	if err != nil {
		return false
	}
	if want.Type == "i32" || want.Type == "f32" {
		return uint32(n) == uint32(got) && got>>32 == 0
	}
	return n == got
}

// spectestImport provides the spectest module of the specification's
// scripts, less its memory and table.
func spectestImport(name string) (link.Extern, bool) {
	fn := func(params ...binary.ValType) *link.Func {
		return &link.Func{Type: binary.FuncType{Params: params}, Fn: func(*jit.Caller, []uint64, []uint64) error { return nil }}
	}
	switch name {
	case "print":
		return fn(), true
	case "print_i32":
		return fn(binary.I32), true
	case "print_i64":
		return fn(binary.I64), true
	case "print_f32":
		return fn(binary.F32), true
	case "print_f64":
		return fn(binary.F64), true
	case "print_i32_f32":
		return fn(binary.I32, binary.F32), true
	case "print_f64_f64":
		return fn(binary.F64, binary.F64), true
	case "global_i32":
		return &link.Global{Type: binary.GlobalType{Type: binary.I32}, Value: 666}, true
	case "global_i64":
		return &link.Global{Type: binary.GlobalType{Type: binary.I64}, Value: 666}, true
	case "global_f32":
		return &link.Global{Type: binary.GlobalType{Type: binary.F32}, Value: uint64(math.Float32bits(666))}, true
	case "global_f64":
		return &link.Global{Type: binary.GlobalType{Type: binary.F64}, Value: math.Float64bits(666)}, true
	}
	return nil, false
}
