package jit

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

var (
	edgeI64 = []int64{0, 1, -1, 2, 3, 7, 10, 63, 64, 100, 255, 256, 1000, 65535, 65536, math.MaxInt32,
		math.MinInt32, math.MaxInt64, math.MinInt64, 1 << 32, -1000}
	edgeF64 = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, 1e300, -1e300, math.Inf(1),
		math.Inf(-1), math.NaN(), 9223372036854775807, -9223372036854775808, 18446744073709551616, 3.75}
)

func randomArgs(r *rand.Rand, types []bytecode.Type) []uint64 {
	args := make([]uint64, len(types))
	for i, t := range types {
		if t == bytecode.F64 {
			if r.IntN(3) == 0 {
				args[i] = F64(r.NormFloat64() * 100)
			} else {
				args[i] = F64(edgeF64[r.IntN(len(edgeF64))])
			}
			continue
		}
		switch r.IntN(3) {
		case 0:
			args[i] = uint64(r.Int64())
		case 1:
			args[i] = uint64(r.IntN(50))
		default:
			args[i] = uint64(edgeI64[r.IntN(len(edgeI64))])
		}
	}
	return args
}

// TestTiersAgreeOnRandomInputs calls every exported function of every
// shared test module with random and edge-case arguments in every tier,
// under the same fuel and depth limits, and requires the same results (or
// the same trap at the same offset) and the same memory.
func TestTiersAgreeOnRandomInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	seen := map[*bytecode.Module]bool{}
	calls := 0
	opts := Options{Fuel: 20000, MaxCallDepth: 200}
	for _, c := range append(testprogs.ProgramCases(), testprogs.InstructionCases()...) {
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
				args := randomArgs(r, sig.Params)
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
