package jit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
)

// TestPerfMap loads a module of two functions on each compiled tier with
// PerfMap set and parses the map file: one line per function and tier,
// at the function's entry address, with its code size and its name, and
// an interpreted module writes nothing.
func TestPerfMap(t *testing.T) {
	old := processPerfMap
	defer func() { processPerfMap = old }()
	processPerfMap = &perfMap{path: filepath.Join(t.TempDir(), "perf-test.map")}

	src := `func add (i64 i64) -> (i64)
  i64.add r0, r0, r1
  ret r0
end
func twice (i64) -> (i64)
  call add (r0, r0) -> (r0)
  ret r0
end
export "twice" twice
`
	m, err := bytecode.Assemble([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, tier := range []Tier{TierInterp, TierBaseline, TierOptimizing} {
		e, err := NewEngine(Options{Tier: tier, PerfMap: true})
		if err != nil {
			t.Fatal(err)
		}
		mod, err := e.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		if tier == TierInterp {
			continue
		}
		if mod.CompileError() != nil {
			t.Skipf("no compiled tiers here: %v", mod.CompileError())
		}
		for i, f := range m.Funcs {
			line := fmt.Sprintf("%x %x kiln:%s:%s", mod.compiled.entries[i], mod.compiled.funcs[i].CodeSize, tier, f.Name)
			want[line] = true
		}
	}
	data, err := os.ReadFile(processPerfMap.path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(want) {
		t.Errorf("%d lines, want %d:\n%s", len(lines), len(want), data)
	}
	for _, l := range lines {
		if !want[l] {
			t.Errorf("unexpected line %q; want the lines %v", l, want)
		}
	}
}

// TestPerfMapUnwritable checks that a map file that cannot be opened
// fails the compile, which leaves the module in the interpreter with the
// error as its compile error.
func TestPerfMapUnwritable(t *testing.T) {
	old := processPerfMap
	defer func() { processPerfMap = old }()
	processPerfMap = &perfMap{path: filepath.Join(t.TempDir(), "missing", "perf.map")}
	m, err := bytecode.Assemble([]byte("func f () -> ()\n  ret\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(Options{Tier: TierBaseline, PerfMap: true})
	if err != nil {
		t.Fatal(err)
	}
	mod, err := e.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if mod.Tier() != TierInterp || mod.CompileError() == nil || !strings.Contains(mod.CompileError().Error(), "perf map") {
		t.Errorf("tier %s, compile error %v; want the interpreter and the perf map's error", mod.Tier(), mod.CompileError())
	}
}
