package sched

import (
	"fmt"
	"testing"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// generatedFunc returns the generated function of about n bytecode
// instructions, lowered and taken out of SSA form, and the module.
func generatedFunc(t testing.TB, n int) *mir.Func {
	t.Helper()
	m := testprogs.GeneratedModule(n, 1)
	funcs, err := lower.Module(m, lower.FullTarget())
	if err != nil {
		t.Fatal(err)
	}
	d, err := alloc.Destruct(funcs[m.ExportedFunc("gen")], alloc.DestructOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Func
}

// TestGeneratedFunctions allocates the generated functions and checks the
// results with the mir verifier and runs them.
func TestGeneratedFunctions(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		f := generatedFunc(t, n)
		r, err := Allocate(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := mir.Verify(r.Func); err != nil {
			t.Fatal(err)
		}
		t.Logf("n=%d: %d instrs, %d regions, spill code %d, moves %d+%d", n, r.Stats.Instrs, r.Stats.Regions, r.Stats.SpillCode(), r.Stats.Moves, r.Stats.EdgeMoves)
	}
}

// BenchmarkScaling times the integrated pass on generated functions of
// about 1k, 10k and 100k bytecode instructions and reports nanoseconds per
// input instruction (of the machine IR it allocates): near-constant per
// instruction means near-linear time.
func BenchmarkScaling(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		f := generatedFunc(b, n)
		ninstr := f.NumInstrs()
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for b.Loop() {
				if _, err := Allocate(f, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N*ninstr), "ns/instr")
			b.ReportMetric(float64(ninstr), "instrs")
		})
	}
}
