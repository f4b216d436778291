package bench

import (
	"fmt"
	"testing"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/sched"
)

// motionArms are the arms of the copy-motion measurement: the thesis's
// reconciliation, which splits every critical edge that carries code;
// with the code that fits the edge's source put there (stores, and
// reloads and moves into free registers) and reloads sunk to the top of
// joins; and with parallel copy motion too, the default.
var motionArms = []dynArm{
	{"split", sched.Options{NoCopyMotion: true, NoEdgeHoisting: true, NoReloadSinking: true}, true},
	{"place", sched.Options{NoCopyMotion: true}, true},
	{"motion", sched.Options{}, true},
}

// TestCopyMotionDynamic runs every kernel, C program and spill pathology,
// allocated with each arm of motionArms (with the runtime profile, every
// register and few), in the machine-IR interpreter, and counts the
// register moves and the jumps out of edge-splitting blocks it executes,
// with the spill stores and reloads. Every allocation is checked and every
// run must return the interpreter's result. The report: go test -run
// CopyMotionDynamic -v; "cost" is moves plus two per split-block jump, the
// cost model of alloc.MoveParallelCopies, and its ratio is to the split
// arm.
func TestCopyMotionDynamic(t *testing.T) {
	cost := func(d dynSpill) uint64 { return d.moves + 2*d.splitJumps }
	head := fmt.Sprintf("%-24s %-6s %-7s %11s %11s %11s %11s %11s %7s\n",
		"program", "regs", "arm", "moves", "split jmps", "stores", "reloads", "cost", "ratio")
	t.Log("\n" + head + dynamicTable(t, motionArms, func(program, regs, arm string, d, ref dynSpill) string {
		return fmt.Sprintf("%-24s %-6s %-7s %11d %11d %11d %11d %11d %7s\n", program, regs, arm,
			d.moves, d.splitJumps, d.stores, d.reloads, cost(d), ratio(cost(d), cost(ref)))
	}))
}

// BenchmarkCopyMotion times each program at its benchmark arguments on
// the optimizing tier with its edge counts, with parallel copy motion
// (the default) and without (jit.Options.NoCopyMotion), the two taking
// turns run by run, and reports each one's time per run and the ratio
// motion/off. The tier uses every register, where the kernels and C
// programs leave few register copies on critical edges for motion to
// move (TestCopyMotionDynamic counts them with few registers too).
func BenchmarkCopyMotion(b *testing.B) {
	arms := []struct {
		name string
		opts jit.Options
	}{{"off", jit.Options{NoCopyMotion: true}}, {"motion", jit.Options{}}}
	names := make([]string, len(arms))
	for k, arm := range arms {
		names[k] = arm.name
	}
	for _, c := range spillCases(b) {
		b.Run(c.name, func(b *testing.B) {
			total := timeArms(b, c, names, func(k int, want []uint64) (func() error, error) {
				return prepareArm(c, arms[k].opts, true, want)
			})
			b.ReportMetric(float64(total[1])/float64(total[0]), "motion/off")
		})
	}
}
