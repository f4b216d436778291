package lower

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/mir"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden lowers each testdata/*.kasm module for the full target and
// compares the machine IR text with testdata/*.golden.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.kasm")
	if err != nil || len(files) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := bc.Assemble(src)
			if err != nil {
				t.Fatal(err)
			}
			funcs, err := Module(m, FullTarget())
			if err != nil {
				t.Fatal(err)
			}
			if err := mir.VerifyModule(funcs, HostSigs(m)); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := mir.Print(&out, funcs...); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(path, ".kasm") + ".golden"
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("lowering of %s differs from %s:\n%s", path, golden, out.String())
			}
			// The text reads back as the same functions.
			back, err := mir.Parse(want)
			if err != nil {
				t.Fatalf("golden does not parse: %v", err)
			}
			var again bytes.Buffer
			if err := mir.Print(&again, back...); err != nil || !bytes.Equal(again.Bytes(), want) {
				t.Errorf("golden does not round-trip: %v", err)
			}
		})
	}
}

// TestGoldenCoversEveryOpcode checks that the golden inputs use every
// bytecode instruction the compiled tiers support.
func TestGoldenCoversEveryOpcode(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.kasm")
	used := map[bc.Op]bool{}
	for _, path := range files {
		src, _ := os.ReadFile(path)
		m, err := bc.Assemble(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Funcs {
			for _, in := range f.Code {
				used[in.Op] = true
			}
		}
	}
	for op := bc.Op(1); int(op) < bc.NumOps; op++ {
		if !used[op] && Supports(op) {
			t.Errorf("no golden input uses %s", op)
		}
	}
}

// TestSupportsEveryOp: the compiled tiers lower every valid op.
func TestSupportsEveryOp(t *testing.T) {
	for op := bc.Op(1); int(op) < bc.NumOps; op++ {
		if !Supports(op) {
			t.Errorf("Supports(%s) = false", op)
		}
	}
	if Supports(bc.Op(bc.NumOps)) {
		t.Errorf("Supports(an invalid op) = true")
	}
}
