package lower

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/mir"
)

type outcome struct {
	results []uint64
	err     error
	mem     []byte
	fuel    int64
}

const diffFuel = 20000

func runInterp(t *testing.T, m *bc.Module, fn int, args []uint64) outcome {
	p, err := interp.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	mem := testrun.Memory(m)
	mach, err := interp.NewMachine(p, interp.Config{Fuel: diffFuel, MaxCallDepth: 200}, nil, mem)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	err = mach.Call(context.Background(), fn, testrun.BoundaryArgs(m.Funcs[fn].Sig.Params, args), res)
	return outcome{res, err, mem.Bytes, mach.FuelLeft()}
}

func runMIR(t *testing.T, funcs []*mir.Func, m *bc.Module, fn int, args []uint64) outcome {
	mem := testrun.Memory(m)
	mach, err := mir.NewMachine(funcs, interp.Config{Fuel: diffFuel, MaxCallDepth: 200}, nil, mem)
	if err != nil {
		t.Fatal(err)
	}
	testrun.Instantiate(mach, m)
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	err = mach.Call(context.Background(), fn, testrun.BoundaryArgs(m.Funcs[fn].Sig.Params, args), res)
	return outcome{res, err, mem.Bytes, mach.FuelLeft()}
}

// sameOutcome compares two runs: the same trap (kind, function, offset) or
// the same results (NaNs equal), the same memory and the same fuel left.
func sameOutcome(types []bc.Type, a, b outcome) string {
	var ta, tb *bc.Trap
	ea, eb := errors.As(a.err, &ta), errors.As(b.err, &tb)
	switch {
	case ea != eb:
		return "one traps, the other does not: " + errString(a.err) + " vs " + errString(b.err)
	case ea:
		if ta.Kind != tb.Kind || ta.FuncName != tb.FuncName || ta.Offset != tb.Offset || ta.Code != tb.Code {
			return "different traps: " + ta.Error() + " vs " + tb.Error()
		}
	case a.err != nil || b.err != nil:
		return "errors: " + errString(a.err) + " vs " + errString(b.err)
	default:
		for i, t := range types {
			if !testprogs.SameValue(t, a.results[i], b.results[i]) {
				return "results differ: " + testprogs.Format(t, a.results[i]) + " vs " + testprogs.Format(t, b.results[i])
			}
		}
	}
	if !bytes.Equal(a.mem, b.mem) {
		return "memory differs"
	}
	if a.fuel != b.fuel {
		return "fuel left differs"
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// TestDifferentialRandomInputs calls every exported function of every
// shared test module with random and edge-case arguments, in the
// interpreter and in the mir interpreter after lowering, with the same
// fuel budget, and requires identical outcomes.
func TestDifferentialRandomInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	seen := map[*bc.Module]bool{}
	runs := 0
	for _, c := range testprogs.AllCases() {
		m := c.Module
		if seen[m] {
			continue
		}
		seen[m] = true
		funcs, err := Module(m, FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range m.Exports {
			sig := m.Funcs[e.Func].Sig
			for i := 0; i < 40; i++ {
				args := testprogs.RandomArgs(r, sig.Params)
				want := runInterp(t, m, int(e.Func), args)
				got := runMIR(t, funcs, m, int(e.Func), args)
				var fault *mir.Fault
				if errors.As(got.err, &fault) {
					t.Fatalf("%s(%v): %v", e.Name, args, got.err)
				}
				if diff := sameOutcome(sig.Results, want, got); diff != "" {
					t.Fatalf("%s (%s) args %#x: %s", e.Name, c.Name, args, diff)
				}
				runs++
			}
		}
	}
	t.Logf("%d calls compared", runs)
}
