package sched

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// TestInPlaceSameResult checks Options.InPlace: the result made out of the
// input's instructions is the one the pass makes without it (the same
// code, origins and counts) for every shared case's module, every kernel
// and a generated function, with every register and with few, with each
// spill heuristic, with and without store placement, and in source order.
func TestInPlaceSameResult(t *testing.T) {
	var funcs []*mir.Func
	for _, m := range testprogs.CaseModules() {
		fs, err := lower.Module(m, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			d, err := alloc.Destruct(f, alloc.DestructOptions{})
			if err != nil {
				t.Fatal(err)
			}
			funcs = append(funcs, d.Func)
		}
	}
	funcs = append(funcs, generatedFunc(t, 3000))
	configs := map[string]Options{
		"default":           {},
		"source-order":      {SourceOrder: true},
		"ed-tight":          {Oracle: OracleED, Regs: tightRegs},
		"nnu-tight":         {Oracle: OracleNNU, Regs: tightRegs},
		"noplacement-tight": {NoPlacement: true, Regs: tightRegs},
		"nomotion-tight":    {NoCopyMotion: true, Regs: tightRegs},
	}
	rewritten := 0
	for name, opts := range configs {
		for _, f := range funcs {
			want, err := Allocate(f.Clone(), opts)
			if err != nil {
				t.Fatalf("%s %s: %v", name, f.Name, err)
			}
			in := f.Clone()
			before := map[*mir.Instr]bool{}
			for _, b := range in.Blocks {
				for _, x := range b.Instrs {
					before[x] = true
				}
			}
			inPlace := opts
			inPlace.InPlace = true
			got, err := Allocate(in, inPlace)
			if err != nil {
				t.Fatalf("%s %s in place: %v", name, f.Name, err)
			}
			if w, g := mir.Format(want.Func), mir.Format(got.Func); w != g {
				t.Fatalf("%s %s: the code made in place differs:\n%s\nwant:\n%s", name, f.Name, g, w)
			}
			if !slices.Equal(want.Origins.Block, got.Origins.Block) ||
				!slices.EqualFunc(want.Origins.Instr, got.Origins.Instr, slices.Equal[[]int32]) {
				t.Fatalf("%s %s: the origins made in place differ", name, f.Name)
			}
			ws, gs := want.Stats, got.Stats
			ws.Dataflow, ws.Integrated, ws.Reconcile, ws.Distance, ws.CopyMotion = 0, 0, 0, 0, 0
			gs.Dataflow, gs.Integrated, gs.Reconcile, gs.Distance, gs.CopyMotion = 0, 0, 0, 0, 0
			if fmt.Sprint(ws) != fmt.Sprint(gs) {
				t.Fatalf("%s %s: statistics differ in place:\n%+v\nwant\n%+v", name, f.Name, gs, ws)
			}
			for _, b := range got.Func.Blocks {
				for _, x := range b.Instrs {
					if before[x] {
						rewritten++
					}
				}
			}
		}
	}
	// The pass must really have used the input's instructions.
	if rewritten == 0 {
		t.Fatal("no output instruction is an input instruction rewritten")
	}
	t.Logf("%d functions, %d configurations, %d output instructions rewritten in place", len(funcs), len(configs), rewritten)
}
