package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
	"github.com/kiln-jit/kiln/sched"
)

// spillArm is one arm of the spill-heuristic ablation: the victim oracle
// of the integrated pass, whether the functions are lowered with the
// edge counts of a first interpreted run or with the static estimate,
// whether spill code stays where the integrated pass put it, and whether
// the list scheduler evicts rather than waits under register pressure.
type spillArm struct {
	name    string
	oracle  sched.VictimOracle
	heur    jit.SpillHeuristic
	profile bool
	noPlace bool // keep the stores and reloads where the integrated pass placed them
	noWait  bool // sched.Options.NoPressureWait
}

// spillArms are the ablation's arms; the first is the reference: the
// scheduler's comparator without spill placement and without waiting
// under pressure, the integrated pass as it was before expected-distance
// spilling. The second is the comparator with today's scheduler, the
// others ablate the default ("ed").
var spillArms = []spillArm{
	{"cmp-before", sched.OracleThesis, jit.SpillComparator, true, true, true},
	{"cmp-noplace", sched.OracleThesis, jit.SpillComparator, true, true, false},
	{"comparator", sched.OracleThesis, jit.SpillComparator, true, false, false},
	{"ed-noplace", sched.OracleED, jit.SpillExpectedDistance, true, true, false},
	{"ed", sched.OracleED, jit.SpillExpectedDistance, true, false, false},
	{"ed-static", sched.OracleED, jit.SpillExpectedDistance, false, false, false},
	{"nnu", sched.OracleNNU, jit.SpillNearestUse, true, false, false},
}

// spillRegSets are the register sets the dynamic counts are taken with:
// every allocatable register, and few (three general-purpose and two XMM
// registers besides the fixed ones), where the choice of victim matters on
// every program.
var spillRegSets = []struct {
	name string
	regs mir.RegSet
}{
	{"all", 0},
	{"tight", mir.MakeRegSet(mir.R8, mir.R9, mir.RBX, mir.X8, mir.X9)},
}

// dynSpill counts the spill code a run executed: stores to stack slots,
// loads from them, register moves (copies, exchanges, transfers to and
// from stack-argument slots) and rematerialized constants and context
// fields.
type dynSpill struct {
	stores, reloads, moves, remats uint64
	// memRemats counts the rematerializations that read memory (a context
	// field, or a floating-point constant from the constant pool): with
	// the reloads, the loads the spill code executes.
	memRemats uint64
	// splitJumps counts the jumps out of blocks that split an edge for its
	// reconciliation code.
	splitJumps uint64
}

func (d *dynSpill) add(o dynSpill) {
	d.splitJumps += o.splitJumps
	d.stores += o.stores
	d.reloads += o.reloads
	d.moves += o.moves
	d.remats += o.remats
	d.memRemats += o.memRemats
}

// loads returns the loads the spill code executed: reloads from stack
// slots and rematerializations that read memory.
func (d *dynSpill) loads() uint64 { return d.reloads + d.memRemats }

// spillCase is a program as the ablation runs it: a kiln module, the
// function to call, and its small arguments (for the interpreted runs and
// the machine-IR interpreter) and benchmark arguments.
type spillCase struct {
	name        string
	m           *bc.Module
	fn          int
	small, args []uint64
}

// spillCaseOf returns the kernel or C program p (at its benchmark
// arguments) as a spillCase with the small arguments of its twin q.
func spillCaseOf(p, q *Program) (*spillCase, error) {
	c := &spillCase{name: p.String(), small: q.Args, args: p.Args}
	switch p.Kind {
	case KindKernel:
		c.m, c.fn = p.Kernel.Module, p.Kernel.Module.ExportedFunc(p.Kernel.Func)
	case KindC:
		tm, run, err := translateC(p)
		if err != nil {
			return nil, err
		}
		if c.m, err = tm.Resolve(nil); err != nil {
			return nil, err
		}
		c.fn = c.m.ExportedFunc(run.Key)
	default:
		return nil, fmt.Errorf("%s: no spill ablation for this kind", p)
	}
	return c, nil
}

// newMemory returns the module's initial memory with its data segments.
func (s *spillCase) newMemory() *interp.Memory {
	mem := interp.NewMemory(s.m.Memory.MinPages, s.m.Memory.MaxPages)
	s.m.ApplyData(mem.Bytes)
	return mem
}

// profile runs the program in the interpreter with args and returns its
// results and the profile of every function.
func (s *spillCase) profile(args []uint64) ([]uint64, []*profilecounters.Profile, error) {
	p, err := interp.Prepare(s.m)
	if err != nil {
		return nil, nil, err
	}
	mach, err := interp.NewMachine(p, interp.Config{}, nil, s.newMemory())
	if err != nil {
		return nil, nil, err
	}
	res := make([]uint64, len(s.m.Funcs[s.fn].Sig.Results))
	if err := mach.Call(context.Background(), s.fn, args, res); err != nil {
		return nil, nil, err
	}
	profs := make([]*profilecounters.Profile, len(s.m.Funcs))
	for i := range profs {
		profs[i] = p.Layouts[i].Profile(mach.Counters[i])
	}
	return res, profs, nil
}

// dynamic allocates every function with opts (lowered with profs when
// profiled, else with the static estimate), runs the allocated code with
// the small arguments in the machine-IR interpreter and counts the spill
// code it executes; the results must be want.
func (s *spillCase) dynamic(opts sched.Options, profiled bool, profs []*profilecounters.Profile, want []uint64) (dynSpill, error) {
	info := lower.NewModuleInfo(s.m)
	funcs := make([]*mir.Func, len(s.m.Funcs))
	origins := make([]*alloc.Origins, len(s.m.Funcs))
	for i := range s.m.Funcs {
		lo := lower.Options{Target: lower.FullTarget(), Module: info}
		if profiled {
			lo.Profile = profs[i]
		}
		f, err := lower.Func(s.m, i, lo)
		if err != nil {
			return dynSpill{}, err
		}
		d, err := alloc.Destruct(f, alloc.DestructOptions{InPlace: true})
		if err != nil {
			return dynSpill{}, err
		}
		r, err := sched.Allocate(d.Func, opts)
		if err != nil {
			return dynSpill{}, err
		}
		if err := alloc.CheckAllocation(d.Func, r.Func, r.Origins); err != nil {
			return dynSpill{}, err
		}
		funcs[i], origins[i] = r.Func, r.Origins
	}
	mach, err := mir.NewMachine(funcs, interp.Config{}, nil, s.newMemory())
	if err != nil {
		return dynSpill{}, err
	}
	mach.CountExecutions = true
	mach.Globals = make([]uint64, len(s.m.Globals))
	for k, g := range s.m.Globals {
		mach.Globals[k] = g.Init
	}
	mach.Table = mir.TableEntries(s.m)
	got := make([]uint64, len(want))
	if err := mach.Call(context.Background(), s.fn, s.small, got); err != nil {
		return dynSpill{}, err
	}
	bc.Narrow(s.m.Funcs[s.fn].Sig.Results, got)
	if !slices.Equal(got, want) {
		return dynSpill{}, fmt.Errorf("allocated code returned %v, the interpreter %v", got, want)
	}
	var d dynSpill
	for fn, o := range origins {
		mach.Executions(fn, func(b, i int, in *mir.Instr, n uint64) {
			if o.Block[b] < 0 && in.Op.Info().Terminator {
				d.splitJumps += n
			}
			switch in.Op {
			case mir.OpSpill:
				if in.Defs[0].IsSlot() {
					d.stores += n
				} else {
					d.moves += n
				}
			case mir.OpReload:
				if in.Uses[0].IsSlot() {
					d.reloads += n
				} else {
					d.moves += n
				}
			case mir.OpCopy, mir.OpXchg:
				d.moves += n
			case mir.OpMOVQconst, mir.OpMOVSDconst, mir.OpMOVSSconst, mir.OpCtxLoad:
				if o.Instr[b][i] < 0 {
					d.remats += n
					if in.Op == mir.OpCtxLoad || in.Op != mir.OpMOVQconst && in.Imm != 0 {
						d.memRemats += n
					}
				}
			}
		})
	}
	return d, nil
}

// spillCases returns the kernels, the C programs and the spill
// pathologies (spillPathologies).
func spillCases(t testing.TB) []*spillCase {
	small, big := Kernels(true), Kernels(false)
	cs, err := CPrograms(true)
	if err != nil {
		t.Fatal(err)
	}
	small = append(small, cs...)
	if cs, err = CPrograms(false); err != nil {
		t.Fatal(err)
	}
	big = append(big, cs...)
	var out []*spillCase
	for i, p := range big {
		c, err := spillCaseOf(p, small[i])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	for _, pc := range spillPathologies {
		m, err := bc.Assemble([]byte(pc.src))
		if err != nil {
			t.Fatalf("%s: %v", pc.name, err)
		}
		out = append(out, &spillCase{name: "spill/" + pc.name, m: m, fn: m.ExportedFunc("main"),
			small: []uint64{pc.small}, args: []uint64{pc.big}})
	}
	return out
}

// TestSpillHeuristicsDynamic runs every kernel and C program, allocated
// with each arm of the spill ablation, in the machine-IR interpreter, and
// counts the spill stores, reloads, moves and rematerializations it
// executes (with every register and with few). Every allocation is
// checked and every run must return the interpreter's result. The table
// is the report: go test -run SpillHeuristicsDynamic -v (the ratios are
// to the first arm's counts in the same register set: stores, reloads,
// and the spill code's loads, reloads and rematerializations that read
// memory together).
func TestSpillHeuristicsDynamic(t *testing.T) {
	arms := make([]dynArm, len(spillArms))
	for k, arm := range spillArms {
		arms[k] = dynArm{arm.name, sched.Options{Oracle: arm.oracle, NoPlacement: arm.noPlace, NoPressureWait: arm.noWait}, arm.profile}
	}
	head := fmt.Sprintf("%-24s %-6s %-11s %12s %12s %12s %12s %10s %8s %8s %8s\n",
		"program", "regs", "arm", "stores", "reloads", "moves", "remats", "mem.remat", "st/ref", "ld/ref", "mem/ref")
	t.Log("\n" + head + dynamicTable(t, arms, func(program, regs, arm string, d, ref dynSpill) string {
		return fmt.Sprintf("%-24s %-6s %-11s %12d %12d %12d %12d %10d %8s %8s %8s\n", program, regs, arm,
			d.stores, d.reloads, d.moves, d.remats, d.memRemats, ratio(d.stores, ref.stores), ratio(d.reloads, ref.reloads),
			ratio(d.loads(), ref.loads()))
	}))
}

// dynArm is one way of allocating in a table of dynamic counts: the
// integrated pass's options (the register set is the table's) and whether
// the functions are lowered with the profile of a first interpreted run
// or with the static estimate.
type dynArm struct {
	name     string
	opts     sched.Options
	profiled bool
}

// dynamicTable runs every spill case (spillCases) allocated with each arm,
// with every register set of spillRegSets, in the machine-IR interpreter
// (every allocation checked, every run returning the interpreter's
// result), and returns the table's rows: one per case, register set and
// arm, then the totals over all cases, each formatted by row from its
// counts and those of the first arm in the same register set.
func dynamicTable(t *testing.T, arms []dynArm, row func(program, regs, arm string, d, ref dynSpill) string) string {
	var s strings.Builder
	totals := make(map[string]*dynSpill)
	for _, sm := range spillCases(t) {
		want, profs, err := sm.profile(sm.small)
		if err != nil {
			t.Fatalf("%s: interpreter: %v", sm.name, err)
		}
		for _, rs := range spillRegSets {
			var ref dynSpill
			for k, arm := range arms {
				opts := arm.opts
				opts.Regs = rs.regs
				d, err := sm.dynamic(opts, arm.profiled, profs, want)
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
				s.WriteString(row(sm.name, rs.name, arm.name, d, ref))
			}
		}
	}
	for _, rs := range spillRegSets {
		ref := totals[rs.name+" "+arms[0].name]
		for _, arm := range arms {
			s.WriteString(row("all programs", rs.name, arm.name, *totals[rs.name+" "+arm.name], *ref))
		}
	}
	return s.String()
}

// ratio formats a/b, or "-" when b is zero.
func ratio(a, b uint64) string {
	if b == 0 {
		if a == 0 {
			return "="
		}
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

// BenchmarkSpillHeuristics times each program at its benchmark arguments
// with each arm of the spill ablation on the optimizing tier: the
// profiled arms compile (Instance.Optimize) after a first interpreted run
// at the small arguments, the static arm at load. It reports each arm's
// time per run and its ratio to the first arm's. The arms take turns,
// run by run.
func BenchmarkSpillHeuristics(b *testing.B) {
	names := make([]string, len(spillArms))
	for k, arm := range spillArms {
		names[k] = arm.name
	}
	for _, c := range spillCases(b) {
		b.Run(c.name, func(b *testing.B) {
			total := timeArms(b, c, names, func(k int, want []uint64) (func() error, error) {
				return prepareSpillArm(c, spillArms[k], want)
			})
			for k, name := range names {
				b.ReportMetric(float64(total[k])/float64(total[0]), name+"-x-ref")
			}
		})
	}
}

// timeArms times case c at its benchmark arguments with each arm (named
// by names, prepared by prepare for results want, the interpreter's),
// the arms taking turns run by run (timeInTurns); it reports each arm's
// time per run as name-ns/op and returns the arms' total times.
func timeArms(b *testing.B, c *spillCase, names []string, prepare func(k int, want []uint64) (func() error, error)) []time.Duration {
	want, _, err := c.profile(c.args)
	if err != nil {
		b.Fatal(err)
	}
	runs := make([]func() error, len(names))
	for k := range names {
		if runs[k], err = prepare(k, want); err != nil {
			b.Fatal(err)
		}
	}
	total := timeInTurns(b, runs)
	for k, name := range names {
		b.ReportMetric(float64(total[k].Nanoseconds())/float64(b.N), name+"-ns/op")
	}
	return total
}

// timeInTurns runs each of runs once per benchmark iteration, taking
// turns (each iteration starts with the next), and returns each one's
// total time.
func timeInTurns(b *testing.B, runs []func() error) []time.Duration {
	total := make([]time.Duration, len(runs))
	for i := 0; b.Loop(); i++ {
		for j := range runs {
			k := (i + j) % len(runs)
			start := time.Now()
			if err := runs[k](); err != nil {
				b.Fatal(err)
			}
			total[k] += time.Since(start)
		}
	}
	return total
}

// prepareSpillArm compiles c on the optimizing tier with arm's heuristic
// (after an interpreted run with the small arguments for a profiled arm)
// and returns a function that runs it once with its benchmark arguments
// and checks that the results are want.
func prepareSpillArm(c *spillCase, arm spillArm, want []uint64) (func() error, error) {
	return prepareArm(c, jit.Options{SpillHeuristic: arm.heur, NoSpillPlacement: arm.noPlace, NoPressureWait: arm.noWait}, arm.profile, want)
}

// prepareArm is prepareSpillArm for any options of the optimizing tier
// (opts.Tier is set here).
func prepareArm(c *spillCase, opts jit.Options, profile bool, want []uint64) (func() error, error) {
	opts.Tier = jit.TierOptimizing
	if profile {
		opts.Tier = jit.TierInterp
	}
	engine, err := jit.NewEngine(opts)
	if err != nil {
		return nil, err
	}
	mod, err := engine.Load(c.m)
	if err != nil {
		return nil, err
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		return nil, err
	}
	name := c.m.Funcs[c.fn].Name
	for _, e := range c.m.Exports {
		if int(e.Func) == c.fn {
			name = e.Name
		}
	}
	fn, err := inst.Func(name)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	res := make([]uint64, len(want))
	if profile {
		if err := fn.CallInto(ctx, c.small, res); err != nil {
			return nil, err
		}
		if err := inst.Optimize(); err != nil {
			return nil, err
		}
	}
	return func() error {
		if err := fn.CallInto(ctx, c.args, res); err != nil {
			return err
		}
		if !slices.Equal(res, want) {
			return fmt.Errorf("%s: got %v, want %v", c.name, res, want)
		}
		return nil
	}, nil
}
