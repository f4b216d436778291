package jit

import (
	"context"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// tiers lists the tiers every shared case runs in.
var tiers = []Tier{TierInterp, TierBaseline}

// TestSharedCasesInEveryTier runs the shared table of cases (every
// instruction's semantics with its edge cases, the programs and the
// kernels at several inputs) through the embedding API in every tier.
func TestSharedCasesInEveryTier(t *testing.T) {
	cases := append(testprogs.InstructionCases(), testprogs.ProgramCases()...)
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			e := newEngine(t, Options{Tier: tier})
			mods := map[*bytecode.Module]*Module{}
			for _, c := range cases {
				mod, ok := mods[c.Module]
				if !ok {
					var err error
					if mod, err = e.Load(c.Module); err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					if mod.Tier() != tier {
						t.Fatalf("%s: module runs in tier %s (%v), want %s", c.Name, mod.Tier(), mod.CompileError(), tier)
					}
					mods[c.Module] = mod
				}
				inst, err := mod.Instantiate(nil)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				got, err := inst.Call(context.Background(), c.Func, c.Args...)
				if err := c.Check(got, err, inst.Memory()); err != nil {
					t.Errorf("%s: %v", c.Name, err)
				}
			}
		})
	}
}
