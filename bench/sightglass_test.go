package bench

import (
	"testing"

	"github.com/kiln-jit/kiln/jit"
)

// TestSightglassModules checks that every sightglass module is there and
// goes through kiln's front end and loads on the interpreter tier (the
// compiled tiers are BenchmarkSightglassCompile's).
func TestSightglassModules(t *testing.T) {
	progs, err := SightglassModules()
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) != 9 {
		t.Fatalf("%d sightglass modules, want 9 (testdata/sightglass/README.md)", len(progs))
	}
	e, err := jit.NewEngine(jit.Options{Tier: jit.TierInterp})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		tm, err := translateModule(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		bm, err := tm.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, err := e.Load(bm); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		t.Logf("%s: %d bytes, %d functions, %d instructions", p, len(p.Wasm), len(bm.Funcs), bm.Instructions())
	}
}
