package encode_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/runtime"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// TestModulesMatchGolangAsm compiles the repository's programs through
// the jit, on the baseline and the optimizing tier, with every
// instruction list assembled both from the instruction forms and by
// golang-asm (the package's TestMain): the kernels and test modules of
// internal/testprogs, the .kasm programs, the WebAssembly test modules,
// the C programs of the benchmarks and the sightglass modules (these only
// on the optimizing tier, and not with -short). A difference in a byte, a
// relocation or an instruction's offset fails the load; no list may fall
// back to golang-asm. Then every instruction form the compiles used is
// checked with random operands (see TestFormsRoundTrip).
func TestModulesMatchGolangAsm(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	if !encode.Comparing() {
		t.Fatal("the package's tests do not compare the forms with golang-asm")
	}
	type module struct {
		name  string
		m     *bytecode.Module
		large bool
	}
	var mods []module
	seen := map[*bytecode.Module]bool{}
	add := func(name string, m *bytecode.Module, large bool) {
		if !seen[m] {
			seen[m] = true
			mods = append(mods, module{name, m, large})
		}
	}
	for _, k := range testprogs.Kernels() {
		add("kernel "+k.Name, k.Module, false)
	}
	for _, c := range testprogs.AllCases() {
		add("case "+c.Name, c.Module, false)
	}
	for _, pat := range []string{"../examples/programs/*.kasm", "../wasm/testdata/*.kasm"} {
		files, _ := filepath.Glob(pat)
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := bytecode.Assemble(src)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			add(file, m, false)
		}
	}
	for _, pat := range []string{"../wasm/testdata/*.wasm", "../bench/testdata/c/wasm/*.wasm", "../bench/testdata/sightglass/*.wasm"} {
		files, _ := filepath.Glob(pat)
		if len(files) == 0 {
			t.Fatalf("no modules %s", pat)
		}
		for _, file := range files {
			add(file, wasmModule(t, file), filepath.Base(filepath.Dir(file)) == "sightglass")
		}
	}
	before := encode.UncoveredLists()
	compiled := 0
	for _, tier := range []jit.Tier{jit.TierBaseline, jit.TierOptimizing} {
		e, err := jit.NewEngine(jit.Options{Tier: tier})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mods {
			if m.large && (tier == jit.TierBaseline || testing.Short()) {
				continue
			}
			mod, err := e.Load(m.m)
			if err != nil {
				t.Fatalf("%s, tier %s: %v", m.name, tier, err)
			}
			compiled += mod.CompileStats().Functions
		}
	}
	if n := encode.UncoveredLists() - before; n != 0 {
		t.Errorf("golang-asm assembled %d lists the forms did not cover", n)
	}
	if compiled < 1000 {
		t.Fatalf("only %d functions compiled", compiled)
	}
	t.Logf("%d modules, %d functions compiled on both assemblers", len(mods), compiled)
	// Every form those compiles used, with random operands.
	if n := encode.CheckForms(t, 8); n < 500 {
		t.Fatalf("only %d instruction forms used", n)
	}
}

// wasmModule decodes and translates the WebAssembly module in file.
func wasmModule(tb testing.TB, file string) *bytecode.Module {
	tb.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	bm, err := binary.Decode(b)
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	tm, err := translate.Translate(bm, translate.Options{})
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return tm.Bytecode()
}
