package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
)

var update = flag.Bool("update", false, "rewrite the golden bytecode in testdata/golden")

// TestGolden translates every program in testdata/golden and compares the
// bytecode, in its text form, with the .kasm file next to it. The .kasm
// files were written by the recursive translator this package had before
// its stages became iterative, so the test pins the translation exactly.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.bf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden programs in testdata/golden")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".bf")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := translate(src)
			if err != nil {
				t.Fatalf("translate: %v", err)
			}
			got := bytecode.Disassemble(m)
			golden := strings.TrimSuffix(f, ".bf") + ".kasm"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("translation differs from %s:\n%s", golden, firstDifference(got, want))
			}
		})
	}
}

// firstDifference describes the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g := strings.Split(string(got), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, gl, wl)
		}
	}
	return "(no line differs)"
}
