package text

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/internal/wasmtest"
)

// The core specification scripts (.wast) and their text modules (.wat),
// and the JSON command files and binary modules wast2json made of them.
var (
	textFiles = sync.OnceValues(func() (map[string][]byte, error) {
		return wasmtest.ReadArchiveFile("../testdata/spectest-text.tar.gz")
	})
	coreFiles = sync.OnceValues(func() (map[string][]byte, error) {
		return wasmtest.ReadArchiveFile("../testdata/spectest.tar.gz")
	})
)

func loadFiles(t testing.TB) (text, core map[string][]byte) {
	t.Helper()
	text, err := textFiles()
	if err != nil {
		t.Fatal(err)
	}
	core, err = coreFiles()
	if err != nil {
		t.Fatal(err)
	}
	return text, core
}

// wastModule is a top-level (module ...) of a script.
type wastModule struct {
	script string
	line   int
	src    []byte
}

// wastModules returns the top-level modules of a script in the text
// format (neither "module binary" nor "module quote").
func wastModules(script string, src []byte) ([]wastModule, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	var mods []wastModule
	depth, start := 0, 0
	for i, t := range toks {
		switch t.kind {
		case tLParen:
			if depth == 0 {
				start = i
			}
			depth++
		case tRParen:
			depth--
			if depth != 0 {
				break
			}
			if toks[start+1].kind != tAtom || toks[start+1].text != "module" {
				break
			}
			k := start + 2
			if toks[k].kind == tID {
				k++
			}
			if toks[k].kind == tAtom && (toks[k].text == "binary" || toks[k].text == "quote") {
				break
			}
			mods = append(mods, wastModule{script: script, line: toks[start].line, src: src[toks[start].off : t.off+1]})
		}
	}
	return mods, nil
}

type command struct {
	Type       string `json:"type"`
	Line       int    `json:"line"`
	Filename   string `json:"filename"`
	Text       string `json:"text"`
	ModuleType string `json:"module_type"`
}

func commands(t testing.TB, core map[string][]byte, script string) []command {
	t.Helper()
	var s struct {
		Commands []command `json:"commands"`
	}
	if err := json.Unmarshal(core[script+".json"], &s); err != nil {
		t.Fatalf("%s.json: %v", script, err)
	}
	return s.Commands
}

func scripts(files map[string][]byte) []string {
	var names []string
	for name := range files {
		if base, ok := strings.CutSuffix(name, ".wast"); ok {
			names = append(names, base)
		}
	}
	sort.Strings(names)
	return names
}

// withoutCustom returns a binary module without its custom sections.
func withoutCustom(b []byte) []byte {
	out := append([]byte(nil), b[:8]...)
	for pos := 8; pos < len(b); {
		id := b[pos]
		size, n := uint32(0), 1
		for shift := 0; pos+n < len(b); shift += 7 {
			c := b[pos+n]
			n++
			size |= uint32(c&0x7f) << shift
			if c < 0x80 {
				break
			}
		}
		end := pos + n + int(size)
		if end > len(b) {
			end = len(b)
		}
		if id != 0 {
			out = append(out, b[pos:end]...)
		}
		pos = end
	}
	return out
}

// normalize clears what depends on the module's layout rather than its
// content: byte offsets and custom sections.
func normalize(m *binary.Module) {
	m.Customs = nil
	for i := range m.Imports {
		m.Imports[i].Offset = 0
	}
	for i := range m.Globals {
		m.Globals[i].Init.Offset = 0
	}
	for i := range m.Exports {
		m.Exports[i].Offset = 0
	}
	for i := range m.Elems {
		m.Elems[i].Offset.Offset, m.Elems[i].Pos = 0, 0
	}
	for i := range m.Codes {
		m.Codes[i].Offset = 0
	}
	for i := range m.Datas {
		m.Datas[i].Offset.Offset, m.Datas[i].Pos = 0, 0
	}
}

// TestRoundTrip parses every module of the core specification scripts
// and compares it with the binary module wast2json made of it: the
// decoded modules must be equal and, custom sections aside, so must the
// bytes.
func TestRoundTrip(t *testing.T) {
	text, core := loadFiles(t)
	total, same, identical := 0, 0, 0
	for _, script := range scripts(text) {
		files := map[int]string{}
		for _, c := range commands(t, core, script) {
			if c.Type == "module" && strings.HasSuffix(c.Filename, ".wasm") {
				files[c.Line] = c.Filename
			}
		}
		mods, err := wastModules(script, text[script+".wast"])
		if err != nil {
			t.Fatalf("%s.wast: %v", script, err)
		}
		for _, m := range mods {
			file, ok := files[m.line]
			if !ok {
				continue // a module of an assert_* command
			}
			total++
			t.Run(fmt.Sprintf("%s:%d", script, m.line), func(t *testing.T) {
				got, err := ToBinary(m.src)
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				want := core[file]
				gm, err := binary.Decode(got)
				if err != nil {
					t.Fatalf("decode of the encoding: %v", err)
				}
				wm, err := binary.Decode(want)
				if err != nil {
					t.Fatalf("decode of %s: %v", file, err)
				}
				normalize(gm)
				normalize(wm)
				if !reflect.DeepEqual(gm, wm) {
					t.Fatalf("module differs from %s:\n got %+v\nwant %+v", file, gm, wm)
				}
				same++
				if bytes.Equal(got, withoutCustom(want)) {
					identical++
				} else {
					t.Logf("equal to %s when decoded, but not byte for byte", file)
				}
			})
		}
	}
	t.Logf("%d modules: %d equal when decoded, %d byte for byte (custom sections aside)", total, same, identical)
	if total < 500 {
		t.Errorf("only %d modules found", total)
	}
}

// TestMalformed parses the text modules of the core scripts'
// assert_malformed commands: each must fail with an error that says what
// the script expects.
func TestMalformed(t *testing.T) {
	text, core := loadFiles(t)
	n := 0
	for _, script := range scripts(text) {
		for _, c := range commands(t, core, script) {
			if c.ModuleType != "text" {
				continue
			}
			n++
			src, ok := text[c.Filename]
			if !ok {
				t.Errorf("%s: no file %s", script, c.Filename)
				continue
			}
			_, err := Parse(src)
			var e *Error
			switch {
			case err == nil:
				t.Errorf("%s:%d: %s parsed; want %q", script, c.Line, c.Filename, c.Text)
			case !errors.As(err, &e):
				t.Errorf("%s:%d: %s: error %v is not an *Error", script, c.Line, c.Filename, err)
			case !strings.Contains(err.Error(), c.Text):
				t.Errorf("%s:%d: %s: error %q; want %q", script, c.Line, c.Filename, err, c.Text)
			}
		}
	}
	if n != 234 {
		t.Errorf("%d text modules, want 234", n)
	}
}

// TestOps parses testdata/ops.wat, the translator's test module, and
// compares it with ops.wasm, which wabt made of it.
func TestOps(t *testing.T) {
	src, err := os.ReadFile("../testdata/ops.wat")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../testdata/ops.wasm")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ToBinary(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, withoutCustom(want)) {
		t.Errorf("ops.wat encodes differently from ops.wasm:\n got % x\nwant % x", got, withoutCustom(want))
	}
}
