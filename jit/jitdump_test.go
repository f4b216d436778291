package jit

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
)

// jitRecord is a parsed jitdump record.
type jitRecord struct {
	id                    uint32
	addr, size, index     uint64
	name                  string
	code                  []byte
	lines                 []uint32 // debug info: the line of each entry
	lineAddrs             []uint64
	debugAddr, debugCount uint64
}

// parseJITDump parses a jitdump file as perf inject reads it.
func parseJITDump(t *testing.T, data []byte) (pid uint32, recs []jitRecord) {
	t.Helper()
	le := binary.LittleEndian
	if len(data) < jitdumpHeader || le.Uint32(data) != jitdumpMagic || le.Uint32(data[4:]) != jitdumpVersion ||
		le.Uint32(data[8:]) != jitdumpHeader || le.Uint32(data[12:]) != jitdumpMachine {
		t.Fatalf("bad header % x", data[:min(len(data), jitdumpHeader)])
	}
	pid = le.Uint32(data[20:])
	cstring := func(b []byte) (string, []byte) {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			t.Fatal("unterminated string")
		}
		return string(b[:i]), b[i+1:]
	}
	for rest := data[jitdumpHeader:]; len(rest) > 0; {
		if len(rest) < 16 {
			t.Fatalf("%d trailing bytes", len(rest))
		}
		id, size := le.Uint32(rest), int(le.Uint32(rest[4:]))
		if size < 16 || size > len(rest) {
			t.Fatalf("record of %d bytes with %d left", size, len(rest))
		}
		body := rest[16:size]
		r := jitRecord{id: id}
		switch id {
		case jitCodeLoad:
			r.addr, r.size, r.index = le.Uint64(body[16:]), le.Uint64(body[24:]), le.Uint64(body[32:])
			if le.Uint64(body[8:]) != r.addr {
				t.Errorf("vma %#x, code address %#x", le.Uint64(body[8:]), r.addr)
			}
			var tail []byte
			r.name, tail = cstring(body[40:])
			r.code = tail
		case jitCodeDebugInfo:
			r.debugAddr, r.debugCount = le.Uint64(body), le.Uint64(body[8:])
			e := body[16:]
			for range r.debugCount {
				r.lineAddrs = append(r.lineAddrs, le.Uint64(e))
				r.lines = append(r.lines, le.Uint32(e[8:]))
				_, e = cstring(e[16:])
			}
			if len(e) != 0 {
				t.Errorf("debug info: %d bytes after the entries", len(e))
			}
		default:
			t.Fatalf("unexpected record id %d", id)
		}
		recs = append(recs, r)
		rest = rest[size:]
	}
	return pid, recs
}

// TestJITDump loads a module with JITDump set on both compiled tiers and
// parses the file: a header for this process, then per function a
// debug-info record for its address and a code-load record with its name,
// its installed bytes and a code index counting up.
func TestJITDump(t *testing.T) {
	old := processJITDump
	defer func() { processJITDump = old }()
	processJITDump = &jitDump{path: filepath.Join(t.TempDir(), "jit-test.dump")}
	m, err := bytecode.Assemble([]byte(`func add (i64 i64) -> (i64)
  i64.add r0, r0, r1
  ret r0
end
func twice (i64) -> (i64)
  call add (r0, r0) -> (r0)
  br.lt_s r0, 100, again
  ret r0
again:
  call add (r0, r0) -> (r0)
  ret r0
end
`))
	if err != nil {
		t.Fatal(err)
	}
	var mods []*Module
	for _, tier := range []Tier{TierBaseline, TierOptimizing} {
		e, err := NewEngine(Options{Tier: tier, JITDump: true})
		if err != nil {
			t.Fatal(err)
		}
		mod, err := e.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		if mod.CompileError() != nil {
			t.Skipf("no compiled tiers here: %v", mod.CompileError())
		}
		mods = append(mods, mod)
	}
	data, err := os.ReadFile(processJITDump.path)
	if err != nil {
		t.Fatal(err)
	}
	pid, recs := parseJITDump(t, data)
	if int(pid) != os.Getpid() {
		t.Errorf("pid %d, want %d", pid, os.Getpid())
	}
	if len(recs) != 2*len(m.Funcs)*len(mods) {
		t.Fatalf("%d records, want %d", len(recs), 2*len(m.Funcs)*len(mods))
	}
	k := 0
	for mi, mod := range mods {
		tier := mod.Tier()
		for i, f := range m.Funcs {
			dbg, load := recs[k], recs[k+1]
			addr := uint64(mod.compiled.entries[i])
			c := mod.compiled.funcs[i]
			if dbg.id != jitCodeDebugInfo || dbg.debugAddr != addr || dbg.debugCount == 0 {
				t.Errorf("%s %s: debug record %+v", tier, f.Name, dbg)
			}
			for j, a := range dbg.lineAddrs {
				if a < addr || a >= addr+uint64(c.CodeSize) || dbg.lines[j] < 1 || int(dbg.lines[j]) > len(f.Code) {
					t.Errorf("%s %s: line entry %#x line %d outside the function", tier, f.Name, a, dbg.lines[j])
				}
			}
			want := mod.compiled.code.CopyBytes(i, c.CodeSize)
			if load.id != jitCodeLoad || load.addr != addr || load.size != uint64(c.CodeSize) ||
				load.index != uint64(mi*len(m.Funcs)+i) || load.name != perfName(tier, f.Name) || !bytes.Equal(load.code, want) {
				t.Errorf("%s %s: code-load record %+v", tier, f.Name, load)
			}
			k += 2
		}
	}
}
