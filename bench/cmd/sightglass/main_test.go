package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layout holds two sightglass programs in the suite's layout.
var layout = filepath.Join("..", "..", "testdata", "sightglass-layout")

// engines are the engines the tests run on: under -short, kiln's
// interpreter and optimizing tiers and wazero's compiler.
func engines() string {
	if testing.Short() {
		return "kiln-interp,kiln-optimizing,wazero-compiler"
	}
	return "kiln-interp,kiln-baseline,kiln-optimizing,kiln-auto,wazero-compiler,wazero-interp"
}

// TestJSON runs the command with -json on the two programs and checks
// every line's fields.
func TestJSON(t *testing.T) {
	var out, errOut strings.Builder
	status := run([]string{"-json", "-n=2", "-timeout=5m", "-engines=" + engines(), layout}, &out, &errOut)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	t.Log("\n" + errOut.String())
	type pair struct{ module, engine string }
	var got []pair
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var fields map[string]any
		if err := json.Unmarshal([]byte(line), &fields); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for _, f := range []string{"module", "path", "engine", "ok", "checked", "error", "runs",
			"compile_seconds", "bench_seconds", "total_seconds", "peak_heap_bytes"} {
			if _, ok := fields[f]; !ok {
				t.Errorf("%s: no field %q", line, f)
			}
		}
		if fields["ok"] != true || fields["checked"] != true || fields["error"] != "" || fields["runs"] != 2.0 {
			t.Errorf("%s: want ok and checked, no error, 2 runs", line)
		}
		if total, ok := fields["total_seconds"].(float64); !ok || total <= 0 {
			t.Errorf("%s: no total time", line)
		}
		got = append(got, pair{fields["module"].(string), fields["engine"].(string)})
	}
	var want []pair
	for _, m := range []string{"noop", "shootout-ackermann"} {
		for _, e := range strings.Split(engines(), ",") {
			want = append(want, pair{m, e})
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("records for %v, want %v", got, want)
	}

	// The table of the records, from the file.
	file := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	errOut.Reset()
	if status := run([]string{"-from=" + file, "-engines=kiln-interp,wazero-compiler"}, &table, &errOut); status != 0 {
		t.Fatalf("-from: status %d: %s", status, errOut.String())
	}
	t.Log("\n" + table.String())
	for _, want := range []string{"the records of " + file, "noop                kiln-interp", "shootout-ackermann  kiln-interp",
		"geomean             kiln-interp"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	if strings.Contains(engines(), "kiln-optimizing") && strings.Contains(table.String(), "kiln-optimizing") {
		t.Error("the table has an engine -engines left out")
	}
}

// TestTable runs the command on one program and checks the table.
func TestTable(t *testing.T) {
	var out, errOut strings.Builder
	status := run([]string{"-q", "-engines=kiln-interp,wazero-compiler", filepath.Join(layout, "shootout", "shootout-ackermann.wasm"),
		filepath.Join(layout, "noop")}, &out, &errOut)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"sightglass programs:", "x-bench", "shootout-ackermann  kiln-interp", "noop ",
		"wazero-compiler", "geomean             kiln-interp"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("progress written with -q: %s", errOut.String())
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args   []string
		status int
	}{
		{nil, 2},
		{[]string{"-n=0", layout}, 2},
		{[]string{"-engines=nosuch", layout}, 2},
		{[]string{"-timeout=-1s", layout}, 2},
		{[]string{filepath.Join(layout, "nosuch")}, 1},
		{[]string{t.TempDir()}, 1}, // no .wasm files
		{[]string{"-from=" + filepath.Join(t.TempDir(), "nosuch")}, 1},
		{[]string{"-from=x.jsonl", layout}, 2}, // both
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		if status := run(tt.args, &out, &errOut); status != tt.status {
			t.Errorf("%v: status %d, want %d (%s)", tt.args, status, tt.status, errOut.String())
		}
	}
}
