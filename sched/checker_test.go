package sched

import (
	"context"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// TestCheckerRejectsBrokenAllocations breaks the integrated pass's
// allocations of the kernels on purpose, compiled with few registers so
// that there is spill code to break: every reload, rematerialization and
// register move it inserted is deleted in turn, and every use operand is
// pointed at another register of its class. The checker must reject each
// mutant, unless the mutant still computes the kernel's results in the mir
// interpreter and reads no undefined value (a deleted move can be dead).
func TestCheckerRejectsBrokenAllocations(t *testing.T) {
	rejected, harmless := 0, 0
	for _, k := range testprogs.Kernels() {
		funcs, err := lower.Module(k.Module, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		fi := k.Module.ExportedFunc(k.Func)
		r, d, err := Compile(funcs[fi], Options{Regs: mir.MakeRegSet(mir.R8, mir.R9, mir.RBX, mir.X8, mir.X9)})
		if err != nil {
			t.Fatal(err)
		}
		if err := alloc.CheckAllocation(d.Func, r.Func, r.Origins); err != nil {
			t.Fatalf("%s: the unbroken allocation is rejected: %v", k.Name, err)
		}
		run := func(g *mir.Func) ([]uint64, bool) {
			all := slices.Clone(funcs)
			for i, f := range all {
				if i != fi {
					rr, _, err := Compile(f, Options{})
					if err != nil {
						t.Fatal(err)
					}
					all[i] = rr.Func
				}
			}
			all[fi] = g
			mem := interp.NewMemory(k.Module.Memory.MinPages, k.Module.Memory.MaxPages)
			mach, err := mir.NewMachine(all, interp.Config{}, nil, mem)
			if err != nil {
				return nil, false
			}
			res := make([]uint64, len(k.Native(k.SmallArgs)))
			if err := mach.Call(context.Background(), fi, k.SmallArgs, res); err != nil {
				return nil, false
			}
			return res, true
		}
		want := k.Native(k.SmallArgs)
		judge := func(what string, g *mir.Func) {
			if mir.Verify(g) != nil {
				return // not a well-formed allocation at all
			}
			if err := alloc.CheckAllocation(d.Func, g, r.Origins); err != nil {
				rejected++
				return
			}
			got, ok := run(g)
			if !ok || !slices.Equal(got, want) {
				t.Errorf("%s: %s: accepted, but computes %v (ok %v), want %v", k.Name, what, got, ok, want)
				return
			}
			harmless++
		}
		for bi, b := range r.Func.Blocks {
			for ii, in := range b.Instrs {
				if r.Origins.Instr[bi][ii] < 0 && in.Op != mir.OpJMP {
					g := r.Func.Clone()
					nb := g.Blocks[bi]
					nb.Instrs = slices.Delete(slices.Clone(nb.Instrs), ii, ii+1)
					saved := r.Origins.Instr[bi]
					r.Origins.Instr[bi] = slices.Delete(slices.Clone(saved), ii, ii+1)
					judge("deleting "+in.Op.String(), g)
					r.Origins.Instr[bi] = saved
				}
				for ui, u := range in.Uses {
					if !u.IsPhys() {
						continue
					}
					for _, other := range []mir.Reg{mir.R8, mir.R9, mir.RBX, mir.X8, mir.X9} {
						if other == u || other.Class() != u.Class() {
							continue
						}
						g := r.Func.Clone()
						g.Blocks[bi].Instrs[ii].Uses[ui] = other
						judge("retargeting a use of "+in.Op.String(), g)
					}
				}
			}
		}
	}
	t.Logf("%d broken allocations rejected, %d harmless mutants accepted", rejected, harmless)
	if rejected == 0 {
		t.Fatal("no mutant was rejected")
	}
}
