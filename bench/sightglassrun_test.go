package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sightglassLayout holds two sightglass programs in the suite's layout
// (see its README.md).
const sightglassLayout = "testdata/sightglass-layout"

// writeFiles makes the files of files (path: contents) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFindSightglass checks the names of the programs found and the
// expected files each is given, by the suite's naming rules.
func TestFindSightglass(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"shootout/shootout-a.wasm":            "",
		"shootout/shootout-a.stdout.expected": "",
		"shootout/shootout-a.stderr.expected": "",
		"shootout/shootout-b.wasm":            "",
		"shootout/default.stdout.expected":    "",
		"gcc-loops/benchmark.wasm":            "",
		"gcc-loops/default.stdout.expected":   "",
		"gcc-loops/default.stderr.expected":   "",
		"hashset/benchmark.wasm":              "",
		"hashset/notes.txt":                   "",
	})
	progs, err := FindSightglass([]string{dir, filepath.Join(dir, "hashset", "benchmark.wasm")})
	if err != nil {
		t.Fatal(err)
	}
	type found struct{ name, stdout, stderr string }
	want := []found{
		{"gcc-loops", "gcc-loops/default.stdout.expected", "gcc-loops/default.stderr.expected"},
		{"hashset", "", ""},
		{"shootout-a", "shootout/shootout-a.stdout.expected", "shootout/shootout-a.stderr.expected"},
		{"shootout-b", "shootout/default.stdout.expected", ""},
		{"hashset", "", ""}, // the file named on its own
	}
	var got []found
	for _, p := range progs {
		rel := func(f string) string {
			if f == "" {
				return ""
			}
			r, _ := filepath.Rel(dir, f)
			return filepath.ToSlash(r)
		}
		got = append(got, found{p.Name, rel(p.StdoutFile), rel(p.StderrFile)})
	}
	if !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
	if _, err := FindSightglass([]string{filepath.Join(dir, "nosuch")}); err == nil {
		t.Error("no error for a path that does not exist")
	}
}

// testEngines are the engines the sightglass tests run on: under -short,
// one kiln tier and wazero's compiler.
func testEngines() []string {
	if testing.Short() {
		return []string{KilnInterp, KilnOptimizing, Wazero}
	}
	return WASIEngines()
}

// TestRunSightglass runs sightglass programs, as they are and with their
// expected output changed or left out, on every engine and checks the
// records.
func TestRunSightglass(t *testing.T) {
	noop, err := os.ReadFile(filepath.Join(sightglassLayout, "noop", "benchmark.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	wrong := t.TempDir()
	writeFiles(t, wrong, map[string]string{
		"noop/benchmark.wasm":            string(noop),
		"noop/benchmark.stdout.expected": "[noop] something else\n",
		"bare/noop.wasm":                 string(noop),
		"bad/bad.wasm":                   "\x00asm\x01\x00\x00\x00\x01",
		"bad/bad.stdout.expected":        "",
	})
	tests := []struct {
		path      string
		name      string
		ok        bool
		checked   bool
		errSubstr string
	}{
		{filepath.Join(sightglassLayout, "noop", "benchmark.wasm"), "noop", true, true, ""},
		{filepath.Join(sightglassLayout, "shootout", "shootout-ackermann.wasm"), "shootout-ackermann", true, true, ""},
		{filepath.Join(wrong, "noop", "benchmark.wasm"), "noop", false, true, "stdout: differs from the expected output at line 1"},
		{filepath.Join(wrong, "bare", "noop.wasm"), "noop", true, false, ""},
		{filepath.Join(wrong, "bad", "bad.wasm"), "bad", false, true, "compile"},
	}
	for _, tt := range tests {
		progs, err := FindSightglass([]string{tt.path})
		if err != nil || len(progs) != 1 {
			t.Fatalf("%s: %d programs, error %v", tt.path, len(progs), err)
		}
		for _, e := range testEngines() {
			t.Run(tt.name+"/"+filepath.Base(filepath.Dir(tt.path))+"/"+e, func(t *testing.T) {
				r := RunSightglass(progs[0], e, SightglassOptions{Runs: 2})
				t.Logf("%+v", r)
				if r.Module != tt.name || r.Engine != e || r.Path != tt.path {
					t.Errorf("module %q engine %q path %q, want %q, %q, %q", r.Module, r.Engine, r.Path, tt.name, e, tt.path)
				}
				if r.OK != tt.ok || r.Checked != tt.checked {
					t.Errorf("ok %v checked %v, want %v and %v (error %q)", r.OK, r.Checked, tt.ok, tt.checked, r.Error)
				}
				if tt.ok {
					if r.Error != "" || r.Runs != 2 || r.TotalSeconds <= 0 || r.CompileSeconds <= 0 ||
						r.TotalSeconds < r.BenchSeconds || r.TotalSeconds < r.CompileSeconds {
						t.Errorf("error %q, %d runs, compile %gs, bench %gs, total %gs: want no error, 2 runs and times that add up",
							r.Error, r.Runs, r.CompileSeconds, r.BenchSeconds, r.TotalSeconds)
					}
					return
				}
				// kiln reports a malformed module at decoding, wazero at
				// compiling.
				if tt.errSubstr == "compile" && strings.Contains(r.Error, "decode") {
					return
				}
				if !strings.Contains(r.Error, tt.errSubstr) {
					t.Errorf("error %q, want one with %q", r.Error, tt.errSubstr)
				}
			})
		}
	}
}

// TestRunSightglassTimeout checks that a run that outlasts its timeout
// fails with an error saying so.
func TestRunSightglassTimeout(t *testing.T) {
	progs, err := FindSightglass([]string{filepath.Join(sightglassLayout, "shootout")})
	if err != nil || len(progs) != 1 {
		t.Fatalf("%d programs, error %v", len(progs), err)
	}
	r := RunSightglass(progs[0], KilnInterp, SightglassOptions{Runs: 1, Timeout: time.Nanosecond})
	if r.OK || !strings.Contains(r.Error, "timed out after 1ns") {
		t.Errorf("ok %v, error %q: want a timeout", r.OK, r.Error)
	}
}

// TestWriteSightglassTable checks the table's rows, ratios and geometric
// means on made-up records.
func TestWriteSightglassTable(t *testing.T) {
	recs := []SightglassRecord{
		{Module: "a", Path: "a.wasm", Engine: Wazero, OK: true, Checked: true, CompileSeconds: 1, BenchSeconds: 2, TotalSeconds: 3, PeakHeapBytes: 1 << 20},
		{Module: "a", Path: "a.wasm", Engine: KilnOptimizing, OK: true, Checked: true, CompileSeconds: 2, BenchSeconds: 1, TotalSeconds: 3, PeakHeapBytes: 2048},
		{Module: "b", Path: "b.wasm", Engine: KilnOptimizing, OK: true, Checked: false, CompileSeconds: 8, BenchSeconds: 4, TotalSeconds: 12},
		{Module: "b", Path: "b.wasm", Engine: Wazero, OK: true, Checked: false, CompileSeconds: 1, BenchSeconds: 1, TotalSeconds: 2},
		{Module: "c", Path: "c.wasm", Engine: KilnOptimizing, Error: "translate: unsupported: SIMD"},
		{Module: "c", Path: "c.wasm", Engine: Wazero, OK: true, CompileSeconds: 1, BenchSeconds: 1, TotalSeconds: 1},
	}
	engines := []string{KilnOptimizing, Wazero}
	SortSightglassRecords(recs, engines)
	if recs[2].Module != "b" || recs[2].Engine != KilnOptimizing {
		t.Errorf("records not in program and engine order: %+v", recs)
	}
	var b strings.Builder
	if err := WriteSightglassTable(&b, recs, engines); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	// Compare the rows with their runs of spaces made one.
	var rows []string
	for _, line := range strings.Split(b.String(), "\n") {
		rows = append(rows, strings.Join(strings.Fields(line), " "))
	}
	for _, want := range []string{
		"a kiln-optimizing 2.00 s 1.00 s 3.00 s 2.00 KiB 2.00 0.500 1.00",
		"wazero-compiler 1.00 s 2.00 s 3.00 s 1.00 MiB 1.00 1.00 1.00",
		"b kiln-optimizing 8.00 s 4.00 s 12.0 s 0 B 8.00 4.00 6.00 (output unchecked)",
		"c kiln-optimizing - - - - - - - FAILED: translate: unsupported: SIMD",
		// sqrt(2*8), sqrt(0.5*4), sqrt(1*6)
		"geomean kiln-optimizing 4.00 1.41 2.45 (2 programs)",
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("the table lacks the row %q", want)
		}
	}
	if strings.Contains(b.String(), "geomean  wazero-compiler") {
		t.Error("the table has a geometric mean of wazero's compiler's ratios to itself")
	}
}
