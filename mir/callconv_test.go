package mir

import (
	"math/rand/v2"
	"testing"
)

// TestOperandSpecsMatchCallingConvention checks that the fixed locations
// DefSpec and UseSpec compute for calls, returns and arguments (without
// allocating) are those ArgLocations and ResultLocations give, on random
// signatures that overflow the argument registers.
func TestOperandSpecsMatchCallingConvention(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 500; iter++ {
		classes := func(n int) []Class {
			cs := make([]Class, n)
			for i := range cs {
				cs[i] = GPR
				if r.IntN(3) == 0 {
					cs[i] = XMM
				}
			}
			return cs
		}
		params, results := classes(r.IntN(12)), classes(r.IntN(6))
		f := NewFunc("f", 0, params, results)
		reg := func(c Class) Reg { return f.NewVReg(c) }
		call := &Instr{Op: OpCALL}
		for _, c := range params {
			call.Uses = append(call.Uses, reg(c))
		}
		for _, c := range results {
			call.Defs = append(call.Defs, reg(c))
		}
		ret := &Instr{Op: OpRET, Uses: call.Defs}
		for i, want := range ArgLocations(params, false) {
			if got := f.UseSpec(call, i).Fixed; got != want {
				t.Fatalf("%v -> %v: call use %d at %s, want %s", params, results, i, got, want)
			}
		}
		for i, want := range ResultLocations(params, results, false) {
			if got := f.DefSpec(call, i).Fixed; got != want {
				t.Fatalf("%v -> %v: call def %d at %s, want %s", params, results, i, got, want)
			}
		}
		for i, want := range ResultLocations(params, results, true) {
			if got := f.UseSpec(ret, i).Fixed; got != want {
				t.Fatalf("%v -> %v: ret use %d at %s, want %s", params, results, i, got, want)
			}
		}
		for i, want := range ArgLocations(params, true) {
			arg := &Instr{Op: OpArg, Defs: []Reg{reg(params[i])}, Aux: int32(i)}
			if got := f.DefSpec(arg, 0).Fixed; got != want {
				t.Fatalf("%v: argument %d at %s, want %s", params, i, got, want)
			}
		}
	}
}
