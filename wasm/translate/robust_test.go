package translate_test

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/wasm/binary"
	w "github.com/kiln-jit/kiln/wasm/internal/wasmtest"
	"github.com/kiln-jit/kiln/wasm/translate"
	"github.com/kiln-jit/kiln/wasm/validate"
)

// pipeline decodes, validates and translates b, and verifies the kiln
// module it makes. It fails the test on a panic or on an error of a type
// the packages do not document.
func pipeline(t *testing.T, b []byte) {
	t.Helper()
	m, err := binary.Decode(b)
	if err != nil {
		var de *binary.Error
		if !errors.As(err, &de) {
			t.Fatalf("decode error %T: %v", err, err)
		}
		return
	}
	tm, err := translate.Translate(m, translate.Options{})
	if err != nil {
		var ve *validate.Error
		var de *binary.Error
		var ue *translate.UnsupportedError
		var vue *validate.UnsupportedError
		if !errors.As(err, &ve) && !errors.As(err, &de) && !errors.As(err, &ue) && !errors.As(err, &vue) {
			t.Fatalf("translate error %T: %v", err, err)
		}
		return
	}
	globals := make([]uint64, m.NumImportedGlobals)
	bm, err := tm.Resolve(globals)
	if err != nil {
		var le *translate.LinkError
		var st *translate.SegmentTrap
		if !errors.As(err, &le) && !errors.As(err, &st) {
			t.Fatalf("resolve error %T: %v", err, err)
		}
		return
	}
	if err := bc.Verify(bm); err != nil {
		t.Fatalf("the kiln module does not verify: %v", err)
	}
}

func seeds(t testing.TB) [][]byte {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.wasm"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed modules: %v", err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// specModules returns the modules of the specification tests, from the
// archives in testdata: valid ones, and the malformed and invalid ones
// the scripts expect to be rejected.
func specModules(t testing.TB) [][]byte {
	var out [][]byte
	for _, name := range []string{"spectest.tar.gz", "spectest-more.tar.gz", "spectest2.tar.gz"} {
		files, err := w.ReadArchiveFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w.Modules(files)...)
	}
	return out
}

// TestMutations runs every truncation of ops.wasm and random byte changes
// of every test module through the pipeline.
func TestMutations(t *testing.T) {
	all := seeds(t)
	ops, err := os.ReadFile(filepath.Join("..", "testdata", "ops.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for n := range ops {
		pipeline(t, ops[:n])
	}
	rng := rand.New(rand.NewSource(1))
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := 0; i < n; i++ {
		b := append([]byte(nil), all[i%len(all)]...)
		for k := 1 + rng.Intn(3); k > 0; k-- {
			pos := rng.Intn(len(b))
			switch rng.Intn(3) {
			case 0:
				b[pos] = byte(rng.Intn(256))
			case 1:
				b[pos] ^= 1 << rng.Intn(8)
			default:
				b = append(b[:pos], b[pos+1:]...)
			}
		}
		pipeline(t, b)
	}
}

// TestHostileCounts checks that counts read from the input are bounded
// before anything is allocated for them.
func TestHostileCounts(t *testing.T) {
	huge := w.U32(0xffffffff)
	for name, in := range map[string][]byte{
		"types":    w.Module(w.Section(1, huge)),
		"imports":  w.Module(w.Section(2, huge)),
		"funcs":    w.Module(w.Section(3, huge)),
		"globals":  w.Module(w.Section(6, huge)),
		"exports":  w.Module(w.Section(7, huge)),
		"elements": w.Module(w.Section(9, huge)),
		"codes":    w.Module(w.Section(3, w.Vec()), w.Section(10, huge)),
		"data":     w.Module(w.Section(11, huge)),
		"params":   w.Module(w.Section(1, w.Vec(w.Cat([]byte{0x60}, huge)))),
		"br_table": w.Module(w.Section(1, w.Vec([]byte{0x60, 0, 0})), w.Section(3, w.Vec([]byte{0})), w.Section(10, w.Vec(w.Cat([]byte{7, 0, 0x0e}, huge)))),
	} {
		if _, err := binary.Decode(in); err == nil {
			t.Errorf("%s: a count of 2^32-1 decoded", name)
		}
	}
	// 2^32-1 locals are valid, but more than the translator allows.
	body := w.Cat([]byte{1}, huge, []byte{byte(binary.I64), byte(binary.OpEnd)})
	in := w.Module(w.Section(1, w.Vec([]byte{0x60, 0, 0})), w.Section(3, w.Vec([]byte{0})),
		w.Section(10, w.Vec(w.Cat(w.U32(uint32(len(body))), body))))
	m, err := binary.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	_, err = translate.Translate(m, translate.Options{})
	var ue *translate.UnsupportedError
	if !errors.As(err, &ue) {
		t.Errorf("2^32-1 locals: %v, want an UnsupportedError", err)
	}
}

// FuzzTranslate checks that no input makes the decoder, validator or
// translator panic, and that what they accept is a valid kiln module. Its
// seeds are the test modules and those of the specification tests.
func FuzzTranslate(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	for _, s := range specModules(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pipeline(t, b)
	})
}
