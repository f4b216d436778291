// Package testrun runs a module's exported function in the reference
// interpreter or, compiled to machine IR, in the mir interpreter, on a
// fresh memory holding the module's data segments: the two runs the
// back-end stages' differential tests compare.
package testrun

import (
	"context"
	"errors"
	"slices"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/mir"
)

// Memory returns a fresh memory of m's minimum size holding m's data
// segments: the memory every run of m starts from.
func Memory(m *bc.Module) *interp.Memory {
	mem := interp.NewMemory(m.Memory.MinPages, m.Memory.MaxPages)
	m.ApplyData(mem.Bytes)
	return mem
}

// MIR runs exported function name of m, given as the machine IR funcs
// (one per function of m, in any form), in the mir interpreter, and
// returns the results, the error (a trap) and the memory afterwards; the
// globals start at their initial values (imported ones at zero, as in the
// reference interpreter). A
// fault of the interpreter (an undefined register or slot read, which only
// a broken compilation causes) fails the test.
//
//lint:ignore ST1008 the outcome of a run: results, its trap, the memory after it
func MIR(t testing.TB, m *bc.Module, funcs []*mir.Func, name string, args []uint64) ([]uint64, error, []byte) {
	t.Helper()
	mem := Memory(m)
	mach, err := mir.NewMachine(funcs, interp.Config{}, nil, mem)
	if err != nil {
		t.Fatalf("mir machine: %v", err)
	}
	Instantiate(mach, m)
	fn := m.ExportedFunc(name)
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	err = mach.Call(context.Background(), fn, BoundaryArgs(m.Funcs[fn].Sig.Params, args), res)
	var fault *mir.Fault
	if errors.As(err, &fault) {
		t.Fatalf("%s%v: %v", name, args, err)
	}
	return res, err, mem.Bytes
}

// Instantiate gives a mir machine running m's functions m's globals, at
// their initial values (imported ones at zero, as in the reference
// interpreter), and m's table.
func Instantiate(mach *mir.Machine, m *bc.Module) {
	mach.Globals = make([]uint64, len(m.Globals))
	for i, g := range m.Globals {
		mach.Globals[i] = g.Init
	}
	mach.Table = mir.TableEntries(m)
	mach.Segments = interp.NewSegments(m)
	if t := interp.NewTables(m); t != nil {
		mach.Tables, mach.Table = t, t.Words()
	}
}

// Reference runs exported function name of m in the reference interpreter
// and returns the results, the error and the memory afterwards.
//
//lint:ignore ST1008 the outcome of a run: results, its trap, the memory after it
func Reference(t testing.TB, m *bc.Module, name string, args []uint64) ([]uint64, error, []byte) {
	t.Helper()
	p, err := interp.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	mem := Memory(m)
	mach, err := interp.NewMachine(p, interp.Config{}, nil, mem)
	if err != nil {
		t.Fatal(err)
	}
	fn := m.ExportedFunc(name)
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	err = mach.Call(context.Background(), fn, args, res)
	return res, err, mem.Bytes
}

// ParseFunc parses a function in the mir text form and verifies it; either
// failure fails the test.
func ParseFunc(t testing.TB, src string) *mir.Func {
	t.Helper()
	f, err := mir.ParseFunc([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	if err := mir.Verify(f); err != nil {
		t.Fatalf("verify: %v\n%s", err, src)
	}
	return f
}

// Call runs the single function f (calling no other) in the mir
// interpreter on an empty memory and returns its results; any error fails
// the test.
func Call(t testing.TB, f *mir.Func, args ...uint64) []uint64 {
	t.Helper()
	mach, err := mir.NewMachine([]*mir.Func{f}, interp.Config{}, nil, interp.NewMemory(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	res := make([]uint64, len(f.Results))
	if err := mach.Call(context.Background(), 0, args, res); err != nil {
		t.Fatalf("%s%v: %v\n%s", f.Name, args, err, mir.Format(f))
	}
	return res
}

// BoundaryArgs returns args as compiled code receives them from Go: the jit
// passes an i32 or f32 argument as its low 32 bits, zero-extended, so the
// mir interpreter, which runs the code compiled code would run, must get
// them that way too.
func BoundaryArgs(params []bc.Type, args []uint64) []uint64 {
	out := slices.Clone(args)
	bc.Narrow(params, out)
	return out
}
