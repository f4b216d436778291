package wasi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// wrapperModule is a module in the text format that imports every
// preview-1 function and exports a function of the same name and type
// that calls it, so that a test can call each with arguments of its
// choosing, and its memory (one page).
func wrapperModule() string {
	var b strings.Builder
	b.WriteString("(module\n")
	for _, h := range hostFuncList {
		fmt.Fprintf(&b, "  (import %q %q (func $%s %s))\n", ModuleName, h.name, h.name, wasmSig(h))
	}
	b.WriteString("  (memory (export \"memory\") 1)\n")
	for _, h := range hostFuncList {
		fmt.Fprintf(&b, "  (func (export %q) %s", h.name, wasmSig(h))
		for i := range h.params {
			fmt.Fprintf(&b, " (local.get %d)", i)
		}
		fmt.Fprintf(&b, " (call $%s))\n", h.name)
	}
	b.WriteString(")\n")
	return b.String()
}

// wasmSig is the type of h in the text format.
func wasmSig(h *hostFunc) string {
	var b strings.Builder
	if h.params != "" {
		b.WriteString("(param")
		for _, p := range h.params {
			if p == 'I' {
				b.WriteString(" i64")
			} else {
				b.WriteString(" i32")
			}
		}
		b.WriteString(")")
	}
	if !h.noResults {
		b.WriteString(" (result i32)")
	}
	return b.String()
}

// wrapper is the translated wrapperModule, made once.
var wrapper = func() func(t testing.TB) *translate.Module {
	var m *translate.Module
	return func(t testing.TB) *translate.Module {
		if m == nil {
			m = translateModule(t, []byte(wrapperModule()))
		}
		return m
	}
}()

// guest is an instance of the wrapper module with its System.
type guest struct {
	t    testing.TB
	inst *link.Instance
	sys  *System
	// next is where str places the next string.
	next uint64
}

// newGuest instantiates the wrapper module on tier with cfg (its clock
// fixed unless cfg has one).
func newGuest(t testing.TB, tier jit.Tier, cfg Config) *guest {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = newFixedClock()
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	engine, err := jit.NewEngine(jit.Options{Tier: tier})
	if err != nil {
		t.Fatal(err)
	}
	m := wrapper(t)
	inst, err := link.Instantiate(context.Background(), engine, m, s.Imports(m).Resolve)
	if err != nil {
		t.Fatal(err)
	}
	return &guest{t: t, inst: inst, sys: s, next: 32 << 10}
}

// call calls the preview-1 function name and returns its errno.
func (g *guest) call(name string, args ...uint64) Errno {
	g.t.Helper()
	r, err := g.inst.Call(context.Background(), name, args...)
	if err != nil {
		g.t.Fatalf("%s%v: %v", name, args, err)
	}
	return Errno(r[0])
}

// str places s in memory (at 32 KiB and up) and returns its address and
// length.
func (g *guest) str(s string) (uint64, uint64) {
	g.t.Helper()
	p := g.next
	g.write(p, []byte(s))
	g.next += uint64(len(s)+7) &^ 7
	return p, uint64(len(s))
}

// write copies b into memory at p.
func (g *guest) write(p uint64, b []byte) {
	g.t.Helper()
	if err := g.inst.Kiln.WriteMemory(p, b); err != nil {
		g.t.Fatal(err)
	}
}

// read copies n bytes out of memory at p.
func (g *guest) read(p, n uint64) []byte {
	g.t.Helper()
	b, err := g.inst.Kiln.ReadMemory(p, n)
	if err != nil {
		g.t.Fatal(err)
	}
	return b
}

// u32 reads a number out of memory at p.
func (g *guest) u32(p uint64) uint64 { return uint64(memory(g.read(p, 4)).mustU32(0)) }

func (m memory) mustU32(p uint64) uint32 { v, _ := m.u32(p); return v }

// open opens path under the directory fd with the rights and flags
// given and returns the errno and the new descriptor.
func (g *guest) open(dirfd uint64, lookup uint64, path string, oflags, base, inh, fdflags uint64) (Errno, uint64) {
	g.t.Helper()
	p, n := g.str(path)
	const fdPtr = 64
	e := g.call("path_open", dirfd, lookup, p, n, oflags, base, inh, fdflags, fdPtr)
	return e, g.u32(fdPtr)
}
