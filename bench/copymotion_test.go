package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/sched"
)

// motionArms are the arms of the copy-motion measurement: the thesis's
// reconciliation, which splits every critical edge that carries code;
// with the code that fits the edge's source put there (stores, and
// reloads and moves into free registers) and reloads sunk to the top of
// joins; and with parallel copy motion too, the default.
var motionArms = []struct {
	name string
	opts sched.Options
}{
	{"split", sched.Options{NoCopyMotion: true, NoEdgeHoisting: true, NoReloadSinking: true}},
	{"place", sched.Options{NoCopyMotion: true}},
	{"motion", sched.Options{}},
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
	var s strings.Builder
	fmt.Fprintf(&s, "\n%-24s %-6s %-7s %11s %11s %11s %11s %11s %7s\n",
		"program", "regs", "arm", "moves", "split jmps", "stores", "reloads", "cost", "ratio")
	totals := make(map[string]*dynSpill)
	cost := func(d dynSpill) uint64 { return d.moves + 2*d.splitJumps }
	for _, sm := range spillCases(t) {
		want, profs, err := sm.profile(sm.small)
		if err != nil {
			t.Fatalf("%s: interpreter: %v", sm.name, err)
		}
		for _, rs := range spillRegSets {
			var ref dynSpill
			for k, arm := range motionArms {
				opts := arm.opts
				opts.Regs = rs.regs
				d, err := sm.dynamic(opts, true, profs, want)
				if err != nil {
					t.Fatalf("%s %s %s: %v", sm.name, rs.name, arm.name, err)
				}
				if k == 0 {
					ref = d
				}
				key := rs.name + " " + arm.name
				if totals[key] == nil {
					totals[key] = &dynSpill{}
				}
				totals[key].add(d)
				fmt.Fprintf(&s, "%-24s %-6s %-7s %11d %11d %11d %11d %11d %7s\n", sm.name, rs.name, arm.name,
					d.moves, d.splitJumps, d.stores, d.reloads, cost(d), ratio(cost(d), cost(ref)))
			}
		}
	}
	for _, rs := range spillRegSets {
		ref := totals[rs.name+" "+motionArms[0].name]
		for _, arm := range motionArms {
			d := totals[rs.name+" "+arm.name]
			fmt.Fprintf(&s, "%-24s %-6s %-7s %11d %11d %11d %11d %11d %7s\n", "all programs", rs.name, arm.name,
				d.moves, d.splitJumps, d.stores, d.reloads, cost(*d), ratio(cost(*d), cost(*ref)))
		}
	}
	t.Log(s.String())
}
