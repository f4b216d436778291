package wasm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/internal/wasmtest"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// Bounds on the work of one FuzzDifferential input.
const (
	diffMaxModuleBytes = 64 << 10 // larger inputs are not run
	diffMaxFuncs       = 1000     // functions, imported ones included
	diffMaxLocals      = 2000     // locals of one function (translate.Options)
	diffMaxTable       = 1 << 16  // table entries
	diffMaxPages       = 16       // memory pages (jit.Options.MaxMemoryPages)
	diffFuel           = 5000     // backward branches and calls per call
	diffMaxCallDepth   = 300
	diffMaxCompile     = 64 << 20 // jit.Options.MaxCompileBytes
	diffMaxCalls       = 64       // calls of exports per input
	diffMaxExports     = 1000     // exports called at least once (beyond diffMaxCalls)
	diffMaxHostCalls   = 10000    // host calls per input; the next one fails
	// diffCallTimeout only guards against a hang that the fuel does not
	// stop: a call that runs into it ends the input's comparison.
	diffCallTimeout = 10 * time.Second
)

// FuzzDifferential decodes and validates module and, when it is valid,
// instantiates it on the interpreter and both compiled tiers and calls
// every exported function (in WebAssembly 1.0 every parameter is a
// number) with arguments read from args, requiring the
// tiers to agree bit for bit on every outcome: results (NaN payloads
// included: kiln is deterministic), traps (kind and location), host
// calls, memory and exported globals after each call. The seeds are the
// valid modules of the specification tests.
func FuzzDifferential(f *testing.F) {
	for _, m := range diffSeeds(f) {
		f.Add(m, []byte(nil))
	}
	f.Add(diffSeedModule(), []byte{0x00, 0x01, 0x02, 0x03, 0x44, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, module, args []byte) {
		if err := compareTiers(module, args); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDifferentialSpec runs compareTiers on the valid modules of the
// specification tests with a few argument streams (FuzzDifferential's
// seeds have none: every argument is 0).
func TestDifferentialSpec(t *testing.T) {
	seeds := diffSeeds(t)
	argSets := [][]byte{{0x3f, 0x3e, 0x3d, 0x3c}, {0x80, 1, 2, 3, 4, 5, 6, 7, 8, 0x90, 0xff, 0xff, 0xff, 0xff}}
	if testing.Short() {
		argSets = argSets[1:2]
	}
	for i, m := range seeds {
		for _, args := range argSets {
			if err := compareTiers(m, args); err != nil {
				t.Errorf("module %d, arguments %x: %v", i, args, err)
			}
		}
	}
}

// diffSeeds returns the distinct modules of the specification suites
// (1.0's two and 2.0's) that translate (the others are FuzzTranslate's).
func diffSeeds(t testing.TB) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	for _, s := range []specSuite{specCore, specMore, spec2} {
		d, err := s.load()
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range wasmtest.Modules(d.files) {
			if seen[string(b)] || len(b) > diffMaxModuleBytes {
				continue
			}
			seen[string(b)] = true
			if _, ok := diffTranslate(b); ok {
				out = append(out, b)
			}
		}
	}
	return out
}

// diffSeedModule builds a module that exercises memory, a global, host
// calls and traps from a few exports.
func diffSeedModule() []byte {
	var b wasmtest.Builder
	i32 := binary.I32
	ii := b.Type([]binary.ValType{i32, i32}, []binary.ValType{i32})
	pt := b.Type([]binary.ValType{i32}, nil)
	p := b.ImportFunc("spectest", "print_i32", pt)
	b.Memory(1, 2)
	g := b.Global(i32, true, wasmtest.I32Const(7))
	store := b.Func(ii, nil,
		wasmtest.Op(binary.OpLocalGet, 0), wasmtest.Op(binary.OpLocalGet, 1), wasmtest.Mem(binary.OpI32Store, 2, 0),
		wasmtest.Op(binary.OpLocalGet, 1), wasmtest.Op(binary.OpCall, p),
		wasmtest.Op(binary.OpGlobalGet, g), wasmtest.Op(binary.OpLocalGet, 1), wasmtest.Ops(0x6a /* i32.add */),
		wasmtest.Op(binary.OpGlobalSet, g),
		wasmtest.Op(binary.OpLocalGet, 0), wasmtest.Op(binary.OpLocalGet, 1), wasmtest.Ops(0x6d /* i32.div_s */))
	b.Export("store", binary.ExternFunc, store)
	b.Export("g", binary.ExternGlobal, g)
	b.Export("mem", binary.ExternMemory, 0)
	return b.Bytes()
}

// diffTranslate decodes and translates a module within the bounds.
func diffTranslate(module []byte) (*translate.Module, bool) {
	if len(module) > diffMaxModuleBytes {
		return nil, false
	}
	m, err := binary.Decode(module)
	if err != nil {
		return nil, false
	}
	if len(m.ImportedFuncTypes())+len(m.Funcs) > diffMaxFuncs {
		return nil, false
	}
	for _, tab := range m.Tables {
		if tab.Limits.Min > diffMaxTable {
			return nil, false
		}
	}
	tm, err := translate.Translate(m, translate.Options{MaxFunctionLocals: diffMaxLocals})
	if err != nil {
		return nil, false
	}
	return tm, true
}

// diffEngines are the engines of the tiers compareTiers runs on; the
// first is the reference.
var diffEngines = sync.OnceValues(func() ([]*jit.Engine, error) {
	var out []*jit.Engine
	for _, tier := range loadTiers {
		e, err := jit.NewEngine(jit.Options{
			Tier:             tier,
			Fuel:             diffFuel,
			MaxCallDepth:     diffMaxCallDepth,
			MaxMemoryPages:   diffMaxPages,
			MaxCompileBytes:  diffMaxCompile,
			CheckAllocations: true,
		})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
})

// diffInstance is a module instantiated on one tier, with the log of the
// host calls it made.
type diffInstance struct {
	tier jit.Tier
	inst *link.Instance
	log  []string
}

// diffImports returns a resolver that gives each import of m what it
// asks for: a function of its type that logs its calls (on log) and
// returns results derived from its name and arguments, a global of its
// type with a value derived from its name, or a fresh memory or table of
// the limits it declares.
func diffImports(m *translate.Module, log *[]string) link.Resolver {
	exts := map[[2]string]link.Extern{}
	for _, im := range m.Imports {
		key := im.Module + "." + im.Name
		switch im.Kind {
		case binary.ExternFunc:
			ft := im.Func
			exts[[2]string{im.Module, im.Name}] = &link.Func{Type: ft, Fn: func(_ *jit.Caller, args, results []uint64) error {
				if len(*log) >= diffMaxHostCalls {
					return errHostCalls
				}
				*log = append(*log, fmt.Sprintf("%s%x", key, args))
				h := fnv(key)
				for _, a := range args {
					h = h*31 + a
				}
				for i, t := range ft.Results {
					results[i] = mask(t, h+uint64(i))
				}
				return nil
			}}
		case binary.ExternGlobal:
			exts[[2]string{im.Module, im.Name}] = &link.Global{Type: im.Global, Value: mask(im.Global.Type, fnv(key))}
		case binary.ExternMemory:
			// Within the engine's limit, as the memory a module defines.
			l := im.Memory
			if l.Min > diffMaxPages {
				break
			}
			if !l.HasMax || l.Max > diffMaxPages {
				l.Max, l.HasMax = diffMaxPages, true
			}
			if mem, err := link.NewMemory(l); err == nil {
				exts[[2]string{im.Module, im.Name}] = mem
			}
		case binary.ExternTable:
			if im.Table.Limits.Min > 1<<16 {
				break
			}
			if t, err := link.NewTable(im.Table.Limits); err == nil {
				exts[[2]string{im.Module, im.Name}] = t
			}
		}
	}
	return func(module, name string) (link.Extern, bool) {
		x, ok := exts[[2]string{module, name}]
		return x, ok
	}
}

// errHostCalls fails the host call beyond diffMaxHostCalls.
var errHostCalls = errors.New("too many host calls")

// fnv returns the 64-bit FNV-1a hash of s.
func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// mask returns v as a value of type t in the API representation.
func mask(t binary.ValType, v uint64) uint64 {
	if t == binary.I32 || t == binary.F32 {
		return uint64(uint32(v))
	}
	return v
}

// diffOutcome is what one call (or the instantiation) did on one tier.
type diffOutcome struct {
	results []uint64
	err     error
}

// errorKey describes an error for comparison: a trap by its kind,
// location and code, another error by its text.
func errorKey(err error) string {
	if err == nil {
		return "ok"
	}
	var trap *bc.Trap
	if errors.As(err, &trap) {
		inner, depth := trap.Innermost()
		return fmt.Sprintf("trap %s in func %d at %d (code %d, depth %d; outer: %s in func %d at %d)",
			inner.Kind, inner.Func, inner.Offset, inner.Code, depth, trap.Kind, trap.Func, trap.Offset)
	}
	return "error " + err.Error()
}

// interrupted reports whether err comes from a call or a compilation
// that ran into its timeout.
func interrupted(err error) bool {
	trap, ok := translate.TrapOf(err)
	return ok && trap.Kind == bc.TrapInterrupted || errors.Is(err, context.DeadlineExceeded)
}

// argReader turns the fuzzer's argument bytes into argument values.
type argReader struct {
	b []byte
}

func (r *argReader) exhausted() bool { return len(r.b) == 0 }

func (r *argReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *argReader) bits(n int) uint64 {
	var buf [8]byte
	k := copy(buf[:n], r.b)
	r.b = r.b[k:]
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(buf[i])
	}
	return v
}

// Values worth trying of each type, in the API representation.
var (
	interestingI32 = []uint64{0, 1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 63, 64, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0xfffc, 0xfffd, 0xfffe, 0xffff_fffc,
		0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_ffff, 0xffff_fffe, 0x1_0000 * diffMaxPages}
	interestingI64 = []uint64{0, 1, 2, 3, 31, 32, 63, 64, 65, 0xffff, 0x1_0000, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1_0000_0000,
		0x7fff_ffff_ffff_ffff, 0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_fffe, 0x8000_0000_0000_0001}
	interestingF32 = []uint64{0, 0x8000_0000, 0x3f80_0000, 0xbf80_0000, 0x3f00_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000,
		0x7fa0_0000, 0x7f80_0001, 0x7fff_ffff, 0x7f7f_ffff, 0x0000_0001, 0x0080_0000, 0x4f00_0000, 0xcf00_0000, 0x4f80_0000, 0x5f00_0000,
		0xdf00_0000, 0x3fc0_0000, 0x4040_0000, 0xc040_0000}
	interestingF64 = []uint64{0, 0x8000_0000_0000_0000, 0x3ff0_0000_0000_0000, 0xbff0_0000_0000_0000, 0x3fe0_0000_0000_0000,
		0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, 0x7ff8_0000_0000_0000, 0xfff8_0000_0000_0000, 0x7ff4_0000_0000_0000,
		0x7ff0_0000_0000_0001, 0x7fef_ffff_ffff_ffff, 1, 0x0010_0000_0000_0000, 0x41e0_0000_0000_0000, 0xc1e0_0000_0000_0000,
		0x41f0_0000_0000_0000, 0x43e0_0000_0000_0000, 0xc3e0_0000_0000_0000, 0x43f0_0000_0000_0000, 0x3ff8_0000_0000_0000,
		0x4004_0000_0000_0000, 0xc004_0000_0000_0000}
)

// value reads an argument of type t: a selector byte below 0x80 picks an
// interesting value of the type, one above takes the next bytes as the
// value's bits.
func (r *argReader) value(t binary.ValType) uint64 {
	sel := r.byte()
	var table []uint64
	var n int
	switch t {
	case binary.I32:
		table, n = interestingI32, 4
	case binary.I64:
		table, n = interestingI64, 8
	case binary.F32:
		table, n = interestingF32, 4
	default:
		table, n = interestingF64, 8
	}
	if sel < 0x80 {
		return table[int(sel)%len(table)]
	}
	return r.bits(n)
}

// compareTiers runs module on every tier (see FuzzDifferential) and
// returns what differs, or nil. It calls the exported functions in turn,
// in the order of the exports, each once (up to diffMaxExports of them)
// and then on while args lasts, until diffMaxCalls calls in all. Inputs that do not decode, validate or
// translate, or exceed the bounds, are not run.
func compareTiers(module, args []byte) error {
	tm, ok := diffTranslate(module)
	if !ok {
		return nil
	}
	engines, err := diffEngines()
	if err != nil {
		return err
	}
	insts := make([]*diffInstance, len(engines))
	outs := make([]diffOutcome, len(engines))
	for k, e := range engines {
		d := &diffInstance{tier: e.Options().Tier}
		insts[k] = d
		ctx, cancel := context.WithTimeout(context.Background(), diffCallTimeout)
		d.inst, outs[k].err = link.Instantiate(ctx, e, tm, diffImports(tm, &d.log))
		cancel()
		if interrupted(outs[k].err) {
			return nil
		}
		if d.inst != nil && d.inst.Kiln.Tier() != d.tier {
			err := d.inst.Kiln.Module().CompileError()
			var le *jit.LimitError
			if errors.As(err, &le) {
				return nil
			}
			return fmt.Errorf("the %s tier did not compile the module: %v", d.tier, err)
		}
	}
	if err := diffCompare(insts, outs, "instantiation"); err != nil {
		return err
	}
	if outs[0].err != nil {
		return nil
	}
	var exports []translate.Export
	for _, e := range tm.Exports {
		if e.Kind == binary.ExternFunc {
			exports = append(exports, e)
		}
	}
	if len(exports) == 0 {
		return nil
	}
	r := &argReader{b: args}
	calls := max(diffMaxCalls, min(len(exports), diffMaxExports))
	for n := 0; n < calls; n++ {
		e := exports[n%len(exports)]
		if n >= len(exports) && r.exhausted() {
			break
		}
		vals := make([]uint64, len(e.Func.Params))
		for i, t := range e.Func.Params {
			vals[i] = r.value(t)
		}
		for k, d := range insts {
			ctx, cancel := context.WithTimeout(context.Background(), diffCallTimeout)
			res, err := d.inst.Call(ctx, e.Name, vals...)
			cancel()
			if interrupted(err) {
				return nil
			}
			outs[k] = diffOutcome{results: res, err: err}
		}
		call := fmt.Sprintf("call %d: %q%s", n, e.Name, formatArgs(e.Func.Params, vals))
		if err := diffCompare(insts, outs, call); err != nil {
			return err
		}
	}
	return nil
}

// diffCompare compares the outcomes of the same step on every tier with
// the first, and the state the step left: host calls, memory, exported
// globals.
func diffCompare(insts []*diffInstance, outs []diffOutcome, step string) error {
	ref := insts[0]
	for k := 1; k < len(insts); k++ {
		d := insts[k]
		if a, b := errorKey(outs[0].err), errorKey(outs[k].err); a != b {
			return fmt.Errorf("%s: %s: %s; %s: %s", step, d.tier, b, ref.tier, a)
		}
		if len(outs[0].results) != len(outs[k].results) {
			return fmt.Errorf("%s: %s: %d results; %s: %d", step, d.tier, len(outs[k].results), ref.tier, len(outs[0].results))
		}
		for i, v := range outs[0].results {
			if outs[k].results[i] != v {
				return fmt.Errorf("%s: result %d: %s: %#x; %s: %#x", step, i, d.tier, outs[k].results[i], ref.tier, v)
			}
		}
		if len(ref.log) != len(d.log) {
			return fmt.Errorf("%s: %s made %d host calls; %s: %d (%s; %s)", step, d.tier, len(d.log), ref.tier, len(ref.log), tail(d.log), tail(ref.log))
		}
		for i := range ref.log {
			if ref.log[i] != d.log[i] {
				return fmt.Errorf("%s: host call %d: %s: %s; %s: %s", step, i, d.tier, d.log[i], ref.tier, ref.log[i])
			}
		}
		if ref.inst == nil || d.inst == nil {
			continue
		}
		if err := compareMemory(ref.inst.Kiln.Memory(), d.inst.Kiln.Memory()); err != nil {
			return fmt.Errorf("%s: memory of %s against %s: %v", step, d.tier, ref.tier, err)
		}
		for _, e := range ref.inst.Module.Exports {
			if e.Kind != binary.ExternGlobal {
				continue
			}
			a, errA := ref.inst.Global(e.Name)
			b, errB := d.inst.Global(e.Name)
			if a != b || (errA == nil) != (errB == nil) {
				return fmt.Errorf("%s: global %q: %s: %#x (%v); %s: %#x (%v)", step, e.Name, d.tier, b, errB, ref.tier, a, errA)
			}
		}
	}
	return nil
}

func compareMemory(want, got []byte) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d bytes, want %d", len(got), len(want))
	}
	if bytes.Equal(want, got) {
		return nil
	}
	for i := range want {
		if want[i] != got[i] {
			end := min(i+16, len(want))
			return fmt.Errorf("byte %#x: % x, want % x", i, got[i:end], want[i:end])
		}
	}
	return nil
}

func tail(log []string) string {
	if len(log) > 3 {
		log = log[len(log)-3:]
	}
	return strings.Join(log, " ")
}

// formatArgs formats call arguments with their types.
func formatArgs(types []binary.ValType, vals []uint64) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		switch types[i] {
		case binary.F32:
			fmt.Fprintf(&b, "f32 %#x (%g)", v, math.Float32frombits(uint32(v)))
		case binary.F64:
			fmt.Fprintf(&b, "f64 %#x (%g)", v, math.Float64frombits(v))
		default:
			fmt.Fprintf(&b, "%s %#x", types[i], v)
		}
	}
	b.WriteByte(')')
	return b.String()
}

// TestDiffCompare checks that diffCompare notices each kind of
// difference between tiers.
func TestDiffCompare(t *testing.T) {
	trap := func(k bc.TrapKind, off int) error { return &bc.Trap{Kind: k, Func: 1, Offset: off} }
	tests := []struct {
		name     string
		outs     []diffOutcome
		logs     [][]string
		mismatch bool
	}{
		{"same results", []diffOutcome{{results: []uint64{1, 2}}, {results: []uint64{1, 2}}}, nil, false},
		{"same trap", []diffOutcome{{err: trap(bc.TrapOutOfBounds, 3)}, {err: trap(bc.TrapOutOfBounds, 3)}}, nil, false},
		{"result bits", []diffOutcome{{results: []uint64{0x7fc00000}}, {results: []uint64{0xffc00000}}}, nil, true},
		{"result count", []diffOutcome{{results: []uint64{1}}, {}}, nil, true},
		{"trap and result", []diffOutcome{{err: trap(bc.TrapUnreachable, 0)}, {results: []uint64{1}}}, nil, true},
		{"trap kind", []diffOutcome{{err: trap(bc.TrapOutOfBounds, 3)}, {err: trap(bc.TrapUnreachable, 3)}}, nil, true},
		{"trap location", []diffOutcome{{err: trap(bc.TrapOutOfBounds, 3)}, {err: trap(bc.TrapOutOfBounds, 4)}}, nil, true},
		{"host calls", []diffOutcome{{}, {}}, [][]string{{"spectest.print_i32[1]"}, {"spectest.print_i32[2]"}}, true},
		{"host call count", []diffOutcome{{}, {}}, [][]string{{"spectest.print[]"}, nil}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			insts := []*diffInstance{{tier: jit.TierInterp}, {tier: jit.TierOptimizing}}
			for k, log := range tc.logs {
				insts[k].log = log
			}
			err := diffCompare(insts, tc.outs, "call")
			if (err != nil) != tc.mismatch {
				t.Errorf("diffCompare = %v, want a mismatch: %v", err, tc.mismatch)
			}
		})
	}
}
