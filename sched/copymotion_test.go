package sched

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/mir"
)

// motionMeasure is what the final code of a set of functions costs in
// reconciliation: split blocks (static and weighted by their edge's
// frequency, one jump each), register moves (copies and exchanges,
// weighted by block frequency, split blocks included) and the modelled
// cost of alloc.MoveParallelCopies's model (moves plus two per split-edge
// execution).
type motionMeasure struct {
	splits, regOnly int
	wSplits, wMoves float64
	moves           int
	motions         int
	elapsed, motion time.Duration
	instrs          int
	stats           Stats
}

func (m *motionMeasure) cost() float64 { return m.wMoves + alloc.DefaultSplitCost*m.wSplits }

// recon is the reconciliation code's share of the cost: the register moves
// the pass put on edges (after any motion) and the split edges' jumps,
// frequency-weighted; the moves in regions (evictions, copies into fixed
// registers, two-address copies) are left out.
func (m *motionMeasure) recon() float64 {
	return m.stats.WeightedEdgeMoves + alloc.DefaultSplitCost*m.wSplits
}

// measureMotion allocates every function of funcs with opts, checks each
// output with mir.Verify and alloc.CheckAllocation, and measures it.
func measureMotion(t testing.TB, funcs []*mir.Func, opts Options) motionMeasure {
	t.Helper()
	var mm motionMeasure
	for _, f := range funcs {
		start := time.Now()
		r, err := Allocate(f, opts)
		mm.elapsed += time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if err := mir.Verify(r.Func); err != nil {
			t.Fatalf("verify %s: %v\n%s", f.Name, err, mir.Format(r.Func))
		}
		if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
			t.Fatalf("check %s (motion off %v): %v\n%s", f.Name, opts.NoCopyMotion, err, mir.Format(r.Func))
		}
		mm.instrs += f.NumInstrs()
		mm.stats.Add(&r.Stats)
		c := measureCode(r.Func, r.Origins)
		mm.moves += c.moves
		mm.wMoves += c.wMoves
		for b, blk := range r.Func.Blocks {
			if r.Origins.Block[b] < 0 {
				mm.splits++
				mm.wSplits += blk.Freq
				only := true
				for _, in := range blk.Instrs {
					if in.Op != mir.OpCopy && in.Op != mir.OpXchg && in.Op != mir.OpJMP {
						only = false
					}
				}
				if only {
					mm.regOnly++
				}
			}
		}
	}
	mm.motion = mm.stats.CopyMotion
	return mm
}

// TestCopyMotionReducesSplits compares the integrated pass with parallel
// copy motion (the default) against split-everywhere (NoCopyMotion) on
// the kernels (profiled and static), the programs and generated
// functions, in the default setting and with few registers: every output
// verifies and passes the allocation checker, and on every set motion
// leaves no more split edges, no more split edges carrying only register
// moves, and no more frequency-weighted moves or modelled cost (register
// moves plus split-edge jumps, measured on the final code) than
// split-everywhere, with fewer weighted moves over all sets. (Split
// edges that carry stack-slot moves stay split: motion moves register
// copies only.)
// The table (go test ./sched -run CopyMotionReduces -v) reports the
// counts and the pass's compile time per input instruction, with a third
// row per set for the thesis's placement (every critical edge with code
// split: no motion, no hoisting, no sinking), and, besides the cost of all
// moves, the reconciliation code's own (w.recon: edge moves and split
// jumps). The reconciliation cost is what the pass acts on and what the
// paper's weighted-moves figure counts (the copies of SSA destruction);
// the cost of all moves also counts the region's own copies (two-address
// copies, evictions, copies into fixed registers), which no motion
// removes. Over all sets, motion's reconciliation cost must be below
// split-everywhere's.
func TestCopyMotionReducesSplits(t *testing.T) {
	var report strings.Builder
	fmt.Fprintf(&report, "\n%-18s %-6s %7s %7s %9s %6s %10s %10s %9s %7s %9s %9s\n",
		"set", "regs", "splits", "regonly", "w.splits", "moves", "w.moves", "w.cost", "w.recon", "motions", "ns/instr", "motion/in")
	var totOn, totOff, totThesis motionMeasure
	kernels, programs := testprogFuncs(t)
	sets := []comparisonSet{{"kernels-profiled", profiledKernels(t)}, {"kernels", kernels}, {"programs", programs}}
	gen := testprogs.GeneratedModule(3000, 7)
	sets = append(sets, comparisonSet{"generated 3k", []*mir.Func{destructModule(t, gen)[gen.ExportedFunc("gen")]}})
	for _, set := range sets {
		for _, regs := range []struct {
			name string
			set  mir.RegSet
		}{{"all", 0}, {"tight", tightRegs}} {
			// thesis: every critical edge with reconciliation code split
			// (no motion, no hoisting to the source, no sinking to a join).
			thesis := measureMotion(t, set.funcs, Options{NoCopyMotion: true, NoEdgeHoisting: true, NoReloadSinking: true, Regs: regs.set})
			off := measureMotion(t, set.funcs, Options{NoCopyMotion: true, Regs: regs.set})
			on := measureMotion(t, set.funcs, Options{Regs: regs.set})
			for _, x := range []struct {
				name string
				m    motionMeasure
			}{{"thesis", thesis}, {"split", off}, {"motion", on}} {
				fmt.Fprintf(&report, "%-18s %-6s %7d %7d %9.1f %6d %10.1f %10.1f %9.1f %7d %9.0f %9.1f  %s\n",
					set.name, regs.name, x.m.splits, x.m.regOnly, x.m.wSplits, x.m.moves, x.m.wMoves, x.m.cost(), x.m.recon(), x.m.stats.Motions,
					float64(x.m.elapsed.Nanoseconds())/float64(x.m.instrs),
					float64(x.m.motion.Nanoseconds())/float64(x.m.instrs), x.name)
			}
			totThesis.splits += thesis.splits
			totThesis.wSplits += thesis.wSplits
			totThesis.wMoves += thesis.wMoves
			totThesis.stats.Add(&thesis.stats)
			if on.splits > off.splits {
				t.Errorf("%s %s: %d split edges with motion, %d without", set.name, regs.name, on.splits, off.splits)
			}
			if on.regOnly > off.regOnly {
				t.Errorf("%s %s: %d split edges carry only register moves with motion, %d without", set.name, regs.name, on.regOnly, off.regOnly)
			}
			if on.wMoves > off.wMoves*(1+1e-9) {
				t.Errorf("%s %s: weighted moves %.2f with motion, %.2f without", set.name, regs.name, on.wMoves, off.wMoves)
			}
			if on.cost() > off.cost()*(1+1e-9) {
				t.Errorf("%s %s: weighted cost %.2f with motion, %.2f without", set.name, regs.name, on.cost(), off.cost())
			}
			if on.stats.MotionCostAfter > on.stats.MotionCostBefore*(1+1e-9) {
				t.Errorf("%s %s: modelled cost grew from %.2f to %.2f", set.name, regs.name, on.stats.MotionCostBefore, on.stats.MotionCostAfter)
			}
			totOn.regOnly += on.regOnly
			totOff.regOnly += off.regOnly
			totOn.motions += on.stats.Motions
			totOn.splits += on.splits
			totOff.splits += off.splits
			totOn.wSplits += on.wSplits
			totOff.wSplits += off.wSplits
			totOn.wMoves += on.wMoves
			totOff.wMoves += off.wMoves
			totOn.stats.Add(&on.stats)
			totOff.stats.Add(&off.stats)
		}
	}
	fmt.Fprintf(&report, "against the thesis's placement (every critical edge with code split): split edges %d -> %d, weighted %.1f -> %.1f; weighted cost %.1f -> %.1f (%.2fx lower); reconciliation cost %.1f -> %.1f (%.2fx lower)\n",
		totThesis.splits, totOn.splits, totThesis.wSplits, totOn.wSplits, totThesis.cost(), totOn.cost(), totThesis.cost()/totOn.cost(),
		totThesis.recon(), totOn.recon(), totThesis.recon()/totOn.recon())
	fmt.Fprintf(&report, "total: split edges carrying only register moves %d -> %d; split edges %d -> %d (%.2fx fewer), weighted split edges %.1f -> %.1f, weighted moves %.1f -> %.1f, weighted cost %.1f -> %.1f (%.2fx lower); reconciliation cost %.1f -> %.1f (%.2fx lower)\n",
		totOff.regOnly, totOn.regOnly, totOff.splits, totOn.splits, float64(totOff.splits)/float64(max(totOn.splits, 1)), totOff.wSplits, totOn.wSplits,
		totOff.wMoves, totOn.wMoves, totOff.cost(), totOn.cost(), totOff.cost()/totOn.cost(), totOff.recon(), totOn.recon(), totOff.recon()/totOn.recon())
	if totOn.motions == 0 || totOn.wMoves >= totOff.wMoves {
		t.Errorf("motion applied %d motions, weighted moves %.2f against %.2f split-everywhere", totOn.motions, totOn.wMoves, totOff.wMoves)
	}
	if totOn.recon() >= totOff.recon() {
		t.Errorf("reconciliation cost %.2f with motion, %.2f split-everywhere", totOn.recon(), totOff.recon())
	}
	t.Log(report.String())
}

// BenchmarkCopyMotion times the integrated pass with copy motion on the
// kernels and generated functions with every register and with few, and
// reports the motion pass's own time per input instruction
// (Stats.CopyMotion) and the whole pass's, with motion and without.
func BenchmarkCopyMotion(b *testing.B) {
	for _, name := range []string{"kernels", "gen1k", "gen10k"} {
		for _, regs := range []struct {
			name string
			set  mir.RegSet
		}{{"all", 0}, {"tight", tightRegs}} {
			b.Run(name+"-"+regs.name, func(b *testing.B) {
				funcs := benchInput(b, name)
				instrs := numInstrs(funcs)
				var motion, on, off time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for _, f := range funcs {
						start := time.Now()
						r, err := Allocate(f, Options{NoVerify: true, Regs: regs.set})
						if err != nil {
							b.Fatal(err)
						}
						on += time.Since(start)
						motion += r.Stats.CopyMotion
						start = time.Now()
						if _, err := Allocate(f, Options{NoVerify: true, Regs: regs.set, NoCopyMotion: true}); err != nil {
							b.Fatal(err)
						}
						off += time.Since(start)
					}
				}
				per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / float64(instrs) }
				b.ReportMetric(per(motion), "motion-ns/instr")
				b.ReportMetric(per(on), "with-ns/instr")
				b.ReportMetric(per(off), "without-ns/instr")
			})
		}
	}
}
