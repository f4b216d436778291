package sched

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/mir"
)

// codeMeasure counts what an allocated function's code holds, the same
// way for every pipeline: spill code is stores to stack slots (Spill),
// loads from them (Reload) and inserted recomputations of constants and
// context fields (origin -1); moves are register copies, exchanges and
// transfers to and from stack-argument slots. Weighted counts multiply by
// the block's frequency (an added edge block's frequency is its edge's).
type codeMeasure struct {
	instrs, spills, reloads, remats, moves, slots int
	// calleeSaved counts the callee-saved registers the code names (each
	// costs a store in the prologue and a load in the epilogue, which the
	// encoder adds).
	calleeSaved    int
	wSpill, wMoves float64
}

func (c *codeMeasure) spillCode() int { return c.spills + c.reloads + c.remats }

func (c *codeMeasure) add(o codeMeasure) {
	c.instrs += o.instrs
	c.spills += o.spills
	c.reloads += o.reloads
	c.remats += o.remats
	c.moves += o.moves
	c.slots += o.slots
	c.calleeSaved += o.calleeSaved
	c.wSpill += o.wSpill
	c.wMoves += o.wMoves
}

// measureCode measures allocated function f with origins o.
func measureCode(f *mir.Func, o *alloc.Origins) codeMeasure {
	c := codeMeasure{slots: len(f.Slots)}
	var csr mir.RegSet
	for bi, b := range f.Blocks {
		c.instrs += len(b.Instrs)
		for i, in := range b.Instrs {
			for _, rs := range [2][]mir.Reg{in.Defs, in.Uses} {
				for _, r := range rs {
					if mir.CalleeSaved.Has(r) {
						csr = csr.Add(r)
					}
				}
			}
			spill, move := false, false
			switch in.Op {
			case mir.OpSpill:
				spill = in.Defs[0].IsSlot()
				move = !spill
				if spill {
					c.spills++
				}
			case mir.OpReload:
				spill = in.Uses[0].IsSlot()
				move = !spill
				if spill {
					c.reloads++
				}
			case mir.OpCopy, mir.OpXchg:
				move = true
			case mir.OpMOVQconst, mir.OpMOVSDconst, mir.OpCtxLoad:
				if o.Instr[bi][i] < 0 {
					spill = true
					c.remats++
				}
			}
			switch {
			case spill:
				c.wSpill += b.Freq
			case move:
				c.moves++
				c.wMoves += b.Freq
			}
		}
	}
	c.calleeSaved = csr.Len()
	return c
}

// numInstrs returns the number of instructions of funcs.
func numInstrs(funcs []*mir.Func) int {
	n := 0
	for _, f := range funcs {
		n += f.NumInstrs()
	}
	return n
}

// comparisonSet is a named set of inputs (alloc.Destruct's output).
type comparisonSet struct {
	name  string
	funcs []*mir.Func
}

// comparisonSets returns the kernels (every function of each kernel
// module), the shared test programs (every module of ProgramCases, the
// kernels included) and the generated functions of 1k and 10k
// instructions, lowered with the static profile and taken out of SSA
// form.
func comparisonSets(t testing.TB) []comparisonSet {
	kernels, programs := testprogFuncs(t)
	gen := func(n int) []*mir.Func {
		m := testprogs.GeneratedModule(n, 1)
		return []*mir.Func{destructModule(t, m)[m.ExportedFunc("gen")]}
	}
	return []comparisonSet{
		{"kernels", kernels},
		{"programs", programs},
		{"generated 1k", gen(1000)},
		{"generated 10k", gen(10000)},
	}
}

// TestPipelineComparison compares the integrated pass with the separate
// pipeline (prepass, linear scan, postpass) and linear scan alone on the
// kernels, the programs and the generated functions: static spill code
// (stores, reloads and rematerializations) as a share of the output's
// instructions (the thesis's Spill%), static moves, frequency-weighted
// spill code and moves, stack slots, callee-saved registers used (summed
// over the functions; each costs a save and a restore the encoder adds,
// which the spill code does not count), and frequency-weighted cycles of
// the final code issued in order in the default model (ScheduleLength),
// all measured on the code alike (measureCode). It asserts only that every
// output verifies and passes the allocation checker; the table is the
// report (go test ./sched -run PipelineComparison -v).
func TestPipelineComparison(t *testing.T) {
	var report, phases strings.Builder
	fmt.Fprintf(&phases, "\ntime per input instruction by phase (ns, one run; integrated: dataflow, integrated pass, second pass; separate: prepass, liveness, scan, rewrite, postpass)\n")
	fmt.Fprintf(&report, "\n%-14s %-12s %7s %7s %6s %7s %6s %11s %11s %6s %5s %11s %9s\n",
		"set", "pipeline", "in", "out", "spill", "spill%", "moves", "w.spill", "w.moves", "slots", "csr", "w.cycles", "ns/instr")
	for _, set := range comparisonSets(t) {
		in := 0
		for _, f := range set.funcs {
			in += f.NumInstrs()
		}
		var own [3]int
		for pi, p := range pipelines {
			var total codeMeasure
			var cycles float64
			var elapsed time.Duration
			var ph SeparatePhases
			var st Stats
			for _, f := range set.funcs {
				start := time.Now()
				var r *Result
				var err error
				if p.sep != nil {
					var sr *SeparateResult
					if sr, err = p.sep(f, Options{}); err == nil {
						r = &sr.Result
						ph.Prepass += sr.Phases.Prepass
						ph.Liveness += sr.Phases.Liveness
						ph.Scan += sr.Phases.Scan
						ph.Rewrite += sr.Phases.Rewrite
						ph.Postpass += sr.Phases.Postpass
					}
				} else {
					r, err = p.run(f, Options{})
				}
				elapsed += time.Since(start)
				if err != nil {
					t.Fatalf("%s %s: %v", p.name, f.Name, err)
				}
				st.Add(&r.Stats)
				if err := mir.Verify(r.Func); err != nil {
					t.Fatalf("%s %s: %v", p.name, f.Name, err)
				}
				if err := alloc.CheckAllocation(f, r.Func, r.Origins); err != nil {
					t.Fatalf("%s %s: %v", p.name, f.Name, err)
				}
				total.add(measureCode(r.Func, r.Origins))
				_, w := ScheduleLength(r.Func, nil)
				cycles += w
				own[pi] += r.Stats.SpillCode()
			}
			fmt.Fprintf(&report, "%-14s %-12s %7d %7d %6d %6.2f%% %6d %11.1f %11.1f %6d %5d %11.1f %9.0f\n",
				set.name, p.name, in, total.instrs, total.spillCode(),
				100*float64(total.spillCode())/float64(max(total.instrs, 1)), total.moves,
				total.wSpill, total.wMoves, total.slots, total.calleeSaved, cycles, float64(elapsed.Nanoseconds())/float64(in))
			ns := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(in) }
			if p.sep == nil {
				fmt.Fprintf(&phases, "%-14s %-12s total %6.0f: dataflow %5.0f, integrated %5.0f, second pass %5.0f\n",
					set.name, p.name, ns(elapsed), ns(st.Dataflow), ns(st.Integrated), ns(st.Reconcile))
			} else {
				fmt.Fprintf(&phases, "%-14s %-12s total %6.0f: prepass %5.0f, liveness %5.0f, scan %5.0f, rewrite %5.0f, postpass %5.0f\n",
					set.name, p.name, ns(elapsed), ns(ph.Prepass), ns(ph.Liveness), ns(ph.Scan), ns(ph.Rewrite), ns(ph.Postpass))
			}
		}
		fmt.Fprintf(&report, "%-14s (spill code each pipeline reports itself: integrated %d, separate %d, linear scan %d)\n",
			"", own[0], own[1], own[2])
	}
	t.Log(report.String() + phases.String())
}

// benchInputs caches the benchmark inputs (alloc.Destruct's output),
// prepared outside the timed region.
var benchInputs = struct {
	sync.Mutex
	sets map[string][]*mir.Func
}{sets: map[string][]*mir.Func{}}

func benchInput(b *testing.B, name string) []*mir.Func {
	benchInputs.Lock()
	defer benchInputs.Unlock()
	if fs, ok := benchInputs.sets[name]; ok {
		return fs
	}
	var fs []*mir.Func
	switch name {
	case "kernels":
		for _, k := range testprogs.Kernels() {
			fs = append(fs, destructModule(b, k.Module)...)
		}
	default:
		var n int
		if _, err := fmt.Sscanf(name, "gen%dk", &n); err != nil {
			b.Fatal(err)
		}
		m := testprogs.GeneratedModule(1000*n, 1)
		fs = []*mir.Func{destructModule(b, m)[m.ExportedFunc("gen")]}
	}
	benchInputs.sets[name] = fs
	return fs
}

// BenchmarkPipelineCompileTime times the integrated pass (Allocate), the
// separate pipeline and linear scan alone on the same inputs, in one loop
// so that all three see the same machine state: the kernels together, and
// generated functions of 1k, 10k and 100k instructions. It reports each
// pipeline's nanoseconds per input instruction and the ratios
// separate/integrated and linear-scan/integrated. The inputs are
// prepared (and verified) before the timer starts; the pipelines run
// with NoVerify, as the JIT runs them, so that only the algorithms are
// timed.
func BenchmarkPipelineCompileTime(b *testing.B) {
	for _, name := range []string{"kernels", "gen1k", "gen10k", "gen100k"} {
		b.Run(name, func(b *testing.B) {
			funcs := benchInput(b, name)
			instrs := numInstrs(funcs)
			var spent [3]time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for pi, p := range pipelines {
					start := time.Now()
					for _, f := range funcs {
						if _, err := p.run(f, Options{NoVerify: true}); err != nil {
							b.Fatal(err)
						}
					}
					spent[pi] += time.Since(start)
				}
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / float64(instrs) }
			b.ReportMetric(per(spent[0]), "integrated-ns/instr")
			b.ReportMetric(per(spent[1]), "separate-ns/instr")
			b.ReportMetric(per(spent[2]), "linearscan-ns/instr")
			b.ReportMetric(float64(spent[1])/float64(spent[0]), "separate/integrated")
			b.ReportMetric(float64(spent[2])/float64(spent[0]), "linearscan/integrated")
		})
	}
}
