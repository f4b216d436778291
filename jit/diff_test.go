package jit

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// TestTiersAgreeOnRandomInputs calls every exported function of every
// shared test module with random and edge-case arguments in every tier,
// under the same fuel and depth limits, and requires the same results (or
// the same trap at the same offset) and the same memory.
func TestTiersAgreeOnRandomInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	seen := map[*bytecode.Module]bool{}
	calls := 0
	opts := Options{Fuel: 20000, MaxCallDepth: 200}
	for _, c := range testprogs.AllCases() {
		if seen[c.Module] {
			continue
		}
		seen[c.Module] = true
		mods := make([]*Module, len(tierConfigs))
		for i, cfg := range tierConfigs {
			var err error
			if mods[i], err = newEngine(t, cfg.with(opts)).Load(c.Module); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range c.Module.Exports {
			sig := c.Module.Funcs[e.Func].Sig
			for k := 0; k < 20; k++ {
				args := testprogs.RandomArgs(r, sig.Params)
				var first struct {
					res []uint64
					err error
					mem []byte
				}
				for i, mod := range mods {
					inst, err := mod.Instantiate(nil)
					if err != nil {
						t.Fatal(err)
					}
					res, err := inst.Call(context.Background(), e.Name, args...)
					if i == 0 {
						first.res, first.err, first.mem = res, err, bytes.Clone(inst.Memory())
						continue
					}
					if diff := compareOutcome(sig.Results, first.res, first.err, res, err); diff != "" {
						t.Fatalf("%s (%s) args %#x: %s vs %s: %s", e.Name, c.Name, args, tierConfigs[0].name, tierConfigs[i].name, diff)
					}
					if !bytes.Equal(first.mem, inst.Memory()) {
						t.Fatalf("%s args %#x: memory differs between %s and %s", e.Name, args, tierConfigs[0].name, tierConfigs[i].name)
					}
				}
				calls++
			}
		}
	}
	t.Logf("%d calls compared across %d configurations", calls, len(tierConfigs))
}

func compareOutcome(types []bytecode.Type, ra []uint64, ea error, rb []uint64, eb error) string {
	var ta, tb *bytecode.Trap
	okA, okB := errors.As(ea, &ta), errors.As(eb, &tb)
	switch {
	case okA != okB || (ea == nil) != (eb == nil):
		return "outcomes differ: " + errText(ea) + " / " + errText(eb)
	case okA:
		if ta.Kind != tb.Kind || ta.FuncName != tb.FuncName || ta.Offset != tb.Offset || ta.Code != tb.Code {
			return "traps differ: " + ta.Error() + " / " + tb.Error()
		}
	case ea != nil:
		return "errors: " + ea.Error() + " / " + eb.Error()
	default:
		for i, ty := range types {
			if !testprogs.SameValue(ty, ra[i], rb[i]) {
				return "results differ: " + testprogs.Format(ty, ra[i]) + " / " + testprogs.Format(ty, rb[i])
			}
		}
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
