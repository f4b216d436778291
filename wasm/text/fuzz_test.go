package text

import (
	"testing"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// FuzzParse checks that ToBinary never panics, and that every module it
// accepts decodes with binary.Decode. The seeds are the modules of the
// core specification scripts and their malformed text modules.
func FuzzParse(f *testing.F) {
	text, _ := loadFiles(f)
	for _, script := range scripts(text) {
		mods, err := wastModules(script, text[script+".wast"])
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range mods {
			f.Add(m.src)
		}
	}
	for name, b := range text {
		if len(name) > 4 && name[len(name)-4:] == ".wat" {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		b, err := ToBinary(src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			return
		}
		if _, err := binary.Decode(b); err != nil {
			t.Fatalf("accepted, but the encoding does not decode: %v", err)
		}
	})
}
