package bytecode

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// FuzzAssemble checks that Assemble never panics and that whatever it
// accepts survives Disassemble and Assemble unchanged, with stable text.
func FuzzAssemble(f *testing.F) {
	for _, pattern := range []string{"*.kasm", "*.golden"} {
		files, err := filepath.Glob(filepath.Join("testdata", "text", pattern))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	r := rand.New(rand.NewPCG(7, 7))
	for range 8 {
		f.Add(Disassemble(randomModule(r)))
	}
	for _, s := range []string{
		"",
		"func f () -> ()\n  ret\nend\n",
		"func f (i64) -> (i64)\n  switch r0, [a, b], a\na:\nb:\n  ret r0\nend\n",
		"func f () -> (f64)\n  regs f64\n  f64.const r0, nan:0x7ff0000000000001\n  ret r0\nend\n",
		"memory 1 1\ndata 0 \"\\xff;\"\n",
		"func f () -> ()\n  jump L\nL:\nend\n",
		tableModuleText,
		"global g f32 mut = -nan export \"g\"\nglobal h i32 import \"h\"\n",
		"table 0 0 import \"t\"\ntype s (i32) -> ()\nfunc f (i32) -> ()\n  call_indirect s, r0 (r0)\n  unreachable\nend\nelem 0\n",
		"table 3\nelem 1 f f\nfunc f () -> ()\n  unreachable\nend\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Assemble(src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error %v is %T, not *SyntaxError", err, err)
			}
			return
		}
		text := Disassemble(m)
		m2, err := Assemble(text)
		if err != nil {
			t.Fatalf("canonical text does not assemble: %v\ninput:\n%s\ntext:\n%s", err, src, text)
		}
		if d := textModuleDiff(m, m2); d != "" {
			t.Fatalf("module changed by the round trip: %s\ninput:\n%s\ntext:\n%s", d, src, text)
		}
		if text2 := Disassemble(m2); !bytes.Equal(text, text2) {
			t.Fatalf("text not stable:\nfirst:\n%s\nsecond:\n%s", text, text2)
		}
	})
}
