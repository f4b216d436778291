package mir

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// prints, parses back to equal functions, and prints to the same text.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "text", "*.mir"))
	for _, name := range files {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(src)
		}
	}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 0x66757a7a))
		var buf bytes.Buffer
		if err := Print(&buf, txtRandFunc(r)); err == nil {
			f.Add(buf.Bytes())
		}
	}
	f.Add([]byte(txtHead + "  v0:gpr = MOVQload [rax+rbx*8-16] @3\n  JMP -> b0 1\nend\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fs, err := Parse(src)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if strings.HasPrefix(pe.Msg, "internal error") {
				t.Fatalf("%v", err)
			}
			return
		}
		var text bytes.Buffer
		if err := Print(&text, fs...); err != nil {
			t.Fatalf("Print of parsed functions: %v", err)
		}
		again, err := Parse(text.Bytes())
		if err != nil {
			t.Fatalf("Parse of printed text: %v\n%s", err, text.String())
		}
		if len(again) != len(fs) {
			t.Fatalf("%d functions, then %d", len(fs), len(again))
		}
		for i := range fs {
			if d := txtFuncsDiff(fs[i], again[i]); d != "" {
				t.Fatalf("function %d: %s\n%s", i, d, text.String())
			}
		}
		var text2 bytes.Buffer
		if err := Print(&text2, again...); err != nil {
			t.Fatal(err)
		}
		if text2.String() != text.String() {
			t.Fatalf("unstable text:\n%s\nvs\n%s", text.String(), text2.String())
		}
	})
}
