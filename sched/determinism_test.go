package sched

import (
	"bytes"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
)

// TestDeterministicCode compiles every kernel, program and a generated
// function twice from separately lowered IR, in every region order, and
// requires byte-identical machine code.
func TestDeterministicCode(t *testing.T) {
	var mods []*bc.Module
	seen := map[*bc.Module]bool{}
	for _, k := range testprogs.Kernels() {
		if !seen[k.Module] {
			seen[k.Module] = true
			mods = append(mods, k.Module)
		}
	}
	for _, c := range testprogs.ProgramCases() {
		if !seen[c.Module] {
			seen[c.Module] = true
			mods = append(mods, c.Module)
		}
	}
	mods = append(mods, testprogs.GeneratedModule(2000, 7))
	code := func(m *bc.Module, opts Options) [][]byte {
		funcs, err := lower.Module(m, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, f := range funcs {
			r, _, err := Compile(f, opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := encode.Func(r.Func)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c.Bytes)
		}
		return out
	}
	for _, o := range Orders {
		for _, m := range mods {
			a, b := code(m, Options{Order: o}), code(m, Options{Order: o})
			for i := range a {
				if !bytes.Equal(a[i], b[i]) {
					t.Errorf("%s: function %s compiles to different code", o, m.Funcs[i].Name)
				}
			}
		}
	}
}
