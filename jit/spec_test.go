package jit

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/runtime"
)

// TestWasmSpecNumericCompiled runs every numeric assertion of the
// WebAssembly specification tests as real machine code in both compiled
// tiers: one module per op, one function per assertion (with the
// immediate form as a second function where the op has one). A result must
// be what the specification says (a NaN of its kind) and the same bits the
// interpreter computes, NaN payloads included.
func TestWasmSpecNumericCompiled(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	list, err := testprogs.SpecAssertions()
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		a      *testprogs.SpecAssertion
		useImm bool
	}
	var ops []bytecode.Op
	byOp := map[bytecode.Op][]fn{}
	for i := range list {
		a := &list[i]
		if _, ok := byOp[a.Op]; !ok {
			ops = append(ops, a.Op)
		}
		byOp[a.Op] = append(byOp[a.Op], fn{a, false})
		if a.Op.Info().Imm && len(a.Args) == 2 {
			byOp[a.Op] = append(byOp[a.Op], fn{a, true})
		}
	}
	for _, tier := range []Tier{TierBaseline, TierOptimizing} {
		t.Run(tier.String(), func(t *testing.T) {
			ref := newEngine(t, Options{Tier: TierInterp})
			e := newEngine(t, Options{Tier: tier, CheckAllocations: true})
			ran := 0
			for _, op := range ops {
				fns := byOp[op]
				b := bytecode.NewModuleBuilder().Memory(1, 1)
				for k, f := range fns {
					src := f.a.Module(f.useImm).Funcs[0]
					name := fmt.Sprintf("f%d", k)
					fb := b.Func(name, src.Sig.Params, src.Sig.Results)
					for _, r := range src.Regs[len(src.Sig.Params):] {
						fb.NewReg(r)
					}
					for _, in := range src.Code {
						fb.Emit(in)
					}
					b.Export(name, fb)
				}
				m, err := b.Build()
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				mod, err := e.Load(m)
				if err != nil || mod.Tier() != tier {
					t.Fatalf("%s: %v (tier %s: %v)", op, err, mod.Tier(), mod.CompileError())
				}
				inst, err := mod.Instantiate(nil)
				if err != nil {
					t.Fatal(err)
				}
				refMod, err := ref.Load(m)
				if err != nil {
					t.Fatal(err)
				}
				refInst, err := refMod.Instantiate(nil)
				if err != nil {
					t.Fatal(err)
				}
				for k, f := range fns {
					a := f.a
					args := a.Args
					if f.useImm {
						args = args[:1]
					}
					name := fmt.Sprintf("f%d", k)
					got, err := inst.Call(context.Background(), name, args...)
					want, wantErr := refInst.Call(context.Background(), name, args...)
					where := fmt.Sprintf("%s %s%#x (imm %v)", a.Where, op, a.Args, f.useImm)
					if a.Trap != bytecode.TrapNone {
						var tr *bytecode.Trap
						if !errors.As(err, &tr) || tr.Kind != a.Trap || tr.Offset != 0 {
							t.Errorf("%s: got %#x, %v; want trap %q at 0", where, got, err, a.Trap)
						}
						continue
					}
					if err != nil || wantErr != nil {
						t.Errorf("%s: %v (interpreter: %v)", where, err, wantErr)
						continue
					}
					switch {
					case got[0] != want[0]:
						t.Errorf("%s: got %#x, the interpreter %#x", where, got[0], want[0])
					case a.NaN != testprogs.NaNNone:
						if !a.NaN.Holds(a.Result, got[0]) {
							t.Errorf("%s: got %#x, want %s", where, got[0], a.NaN)
						}
					case got[0] != a.Want:
						t.Errorf("%s: got %#x, want %#x", where, got[0], a.Want)
					}
					ran++
				}
			}
			t.Logf("%d assertions", ran)
		})
	}
}
