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
// of the integrated pass, and whether the functions are lowered with the
// edge counts of a first interpreted run or with the static estimate.
type spillArm struct {
	name    string
	oracle  sched.VictimOracle
	heur    jit.SpillHeuristic
	profile bool
}

// spillArms are the ablation's arms; the first is the reference: the
// scheduler's comparator, which the integrated pass uses by default.
// (Spill placement by minimum cut is not part of the pipeline yet, so it
// has no arm.)
var spillArms = []spillArm{
	{"comparator", sched.OracleThesis, jit.SpillComparator, true},
	{"ed", sched.OracleED, jit.SpillExpectedDistance, true},
	{"ed-static", sched.OracleED, jit.SpillExpectedDistance, false},
	{"nnu", sched.OracleNNU, jit.SpillNearestUse, true},
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
}

func (d *dynSpill) add(o dynSpill) {
	d.stores += o.stores
	d.reloads += o.reloads
	d.moves += o.moves
	d.remats += o.remats
}

// spillModule is a program as the ablation runs it: a kiln module, the
// function to call with its arguments, and the host functions it imports
// (none for the kernels and the C programs).
type spillModule struct {
	m    *bc.Module
	fn   int
	args []uint64
}

// spillModuleOf returns p as a spillModule, with its small arguments
// when small is set.
func spillModuleOf(p *Program) (*spillModule, error) {
	switch p.Kind {
	case KindKernel:
		return &spillModule{m: p.Kernel.Module, fn: p.Kernel.Module.ExportedFunc(p.Kernel.Func), args: p.Args}, nil
	case KindC:
		tm, run, err := translateC(p)
		if err != nil {
			return nil, err
		}
		m, err := tm.Resolve(nil)
		if err != nil {
			return nil, err
		}
		return &spillModule{m: m, fn: m.ExportedFunc(run.Key), args: p.Args}, nil
	}
	return nil, fmt.Errorf("%s: no spill ablation for this kind", p)
}

// newMemory returns the module's initial memory with its data segments.
func (s *spillModule) newMemory() *interp.Memory {
	mem := interp.NewMemory(s.m.Memory.MinPages, s.m.Memory.MaxPages)
	for _, d := range s.m.Data {
		copy(mem.Bytes[d.Offset:], d.Bytes)
	}
	return mem
}

// profile runs the program in the interpreter and returns its results and
// the profile of every function.
func (s *spillModule) profile() ([]uint64, []*profilecounters.Profile, error) {
	p, err := interp.Prepare(s.m)
	if err != nil {
		return nil, nil, err
	}
	mach, err := interp.NewMachine(p, interp.Config{}, nil, s.newMemory())
	if err != nil {
		return nil, nil, err
	}
	if len(s.m.Elems) > 0 {
		t := make([]int32, s.m.Table.Min)
		for i := range t {
			t[i] = -1
		}
		s.m.ApplyElems(t)
		mach.SetTable(t)
	}
	res := make([]uint64, len(s.m.Funcs[s.fn].Sig.Results))
	if err := mach.Call(context.Background(), s.fn, s.args, res); err != nil {
		return nil, nil, err
	}
	profs := make([]*profilecounters.Profile, len(s.m.Funcs))
	for i := range profs {
		profs[i] = p.Layouts[i].Profile(mach.Counters[i])
	}
	return res, profs, nil
}

// dynamic allocates every function with the arm's heuristic and
// registers, runs the allocated code in the machine-IR interpreter and
// counts the spill code it executes; the results must be want.
func (s *spillModule) dynamic(arm spillArm, regs mir.RegSet, profs []*profilecounters.Profile, want []uint64) (dynSpill, error) {
	info := lower.NewModuleInfo(s.m)
	funcs := make([]*mir.Func, len(s.m.Funcs))
	origins := make([]*alloc.Origins, len(s.m.Funcs))
	for i := range s.m.Funcs {
		opts := lower.Options{Target: lower.FullTarget(), Module: info}
		if arm.profile {
			opts.Profile = profs[i]
		}
		f, err := lower.Func(s.m, i, opts)
		if err != nil {
			return dynSpill{}, err
		}
		d, err := alloc.Destruct(f, alloc.DestructOptions{InPlace: true})
		if err != nil {
			return dynSpill{}, err
		}
		r, err := sched.Allocate(d.Func, sched.Options{Oracle: arm.oracle, Regs: regs})
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
	if err := mach.Call(context.Background(), s.fn, s.args, got); err != nil {
		return dynSpill{}, err
	}
	bc.Narrow(s.m.Funcs[s.fn].Sig.Results, got)
	if !slices.Equal(got, want) {
		return dynSpill{}, fmt.Errorf("allocated code returned %v, the interpreter %v", got, want)
	}
	var d dynSpill
	for fn, o := range origins {
		mach.Executions(fn, func(b, i int, in *mir.Instr, n uint64) {
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
				}
			}
		})
	}
	return d, nil
}

// spillPrograms returns the kernels and the C programs at their small
// arguments (the machine-IR interpreter runs them) or their benchmark
// arguments.
func spillPrograms(t testing.TB, small bool) []*Program {
	progs := Kernels(small)
	cs, err := CPrograms(small)
	if err != nil {
		t.Fatal(err)
	}
	return append(progs, cs...)
}

// TestSpillHeuristicsDynamic runs every kernel and C program, allocated
// with each arm of the spill ablation, in the machine-IR interpreter, and
// counts the spill stores, reloads, moves and rematerializations it
// executes (with every register and with few). Every allocation is
// checked and every run must return the interpreter's result. The table
// is the report: go test -run SpillHeuristicsDynamic -v (the ratios are
// to the comparator's counts in the same register set).
func TestSpillHeuristicsDynamic(t *testing.T) {
	var s strings.Builder
	fmt.Fprintf(&s, "\n%-24s %-6s %-11s %12s %12s %12s %12s %8s %8s\n",
		"program", "regs", "arm", "stores", "reloads", "moves", "remats", "st/cmp", "ld/cmp")
	totals := make(map[string]*dynSpill)
	for _, p := range spillPrograms(t, true) {
		sm, err := spillModuleOf(p)
		if err != nil {
			t.Fatal(err)
		}
		want, profs, err := sm.profile()
		if err != nil {
			t.Fatalf("%s: interpreter: %v", p, err)
		}
		for _, rs := range spillRegSets {
			var ref dynSpill
			for k, arm := range spillArms {
				d, err := sm.dynamic(arm, rs.regs, profs, want)
				if err != nil {
					t.Fatalf("%s %s %s: %v", p, rs.name, arm.name, err)
				}
				if k == 0 {
					ref = d
				}
				key := rs.name + " " + arm.name
				if totals[key] == nil {
					totals[key] = &dynSpill{}
				}
				totals[key].add(d)
				fmt.Fprintf(&s, "%-24s %-6s %-11s %12d %12d %12d %12d %8s %8s\n", p, rs.name, arm.name,
					d.stores, d.reloads, d.moves, d.remats, ratio(d.stores, ref.stores), ratio(d.reloads, ref.reloads))
			}
		}
	}
	for _, rs := range spillRegSets {
		ref := totals[rs.name+" "+spillArms[0].name]
		for _, arm := range spillArms {
			d := totals[rs.name+" "+arm.name]
			fmt.Fprintf(&s, "%-24s %-6s %-11s %12d %12d %12d %12d %8s %8s\n", "all programs", rs.name, arm.name,
				d.stores, d.reloads, d.moves, d.remats, ratio(d.stores, ref.stores), ratio(d.reloads, ref.reloads))
		}
	}
	t.Log(s.String())
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

// BenchmarkSpillHeuristics times each kernel and C program at its
// benchmark arguments with each arm of the spill ablation on the
// optimizing tier: the profiled arms compile (Instance.Optimize) after a
// first interpreted run at the small arguments, the static arm at load.
// It reports each arm's time per run and its ratio to the comparator's.
// The arms take turns, run by run.
func BenchmarkSpillHeuristics(b *testing.B) {
	for _, p := range spillPrograms(b, false) {
		b.Run(p.Name, func(b *testing.B) {
			small := smallArgs(b, p)
			runs := make([]func() error, len(spillArms))
			for k, arm := range spillArms {
				run, err := prepareSpillArm(p, arm, small)
				if err != nil {
					b.Fatal(err)
				}
				runs[k] = run
			}
			total := make([]time.Duration, len(spillArms))
			for i := 0; b.Loop(); i++ {
				for j := range spillArms {
					k := (i + j) % len(spillArms)
					start := time.Now()
					if err := runs[k](); err != nil {
						b.Fatal(err)
					}
					total[k] += time.Since(start)
				}
			}
			for k, arm := range spillArms {
				b.ReportMetric(float64(total[k].Nanoseconds())/float64(b.N), arm.name+"-ns/op")
				b.ReportMetric(float64(total[k])/float64(total[0]), arm.name+"-x-comparator")
			}
		})
	}
}

// smallArgs returns the small test arguments of p.
func smallArgs(t testing.TB, p *Program) []uint64 {
	for _, q := range spillPrograms(t, true) {
		if q.Kind == p.Kind && q.Name == p.Name {
			return q.Args
		}
	}
	t.Fatalf("%s: no small arguments", p)
	return nil
}

// prepareSpillArm compiles p on the optimizing tier with arm's heuristic
// (after an interpreted run with the small arguments for a profiled arm)
// and returns a function that runs it once with its benchmark arguments
// and checks the result.
func prepareSpillArm(p *Program, arm spillArm, small []uint64) (func() error, error) {
	tier := jit.TierOptimizing
	if arm.profile {
		tier = jit.TierInterp
	}
	engine, err := jit.NewEngine(jit.Options{Tier: tier, SpillHeuristic: arm.heur})
	if err != nil {
		return nil, err
	}
	sm, err := spillModuleOf(p)
	if err != nil {
		return nil, err
	}
	mod, err := engine.Load(sm.m)
	if err != nil {
		return nil, err
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		return nil, err
	}
	name := sm.m.Funcs[sm.fn].Name
	for _, e := range sm.m.Exports {
		if int(e.Func) == sm.fn {
			name = e.Name
		}
	}
	fn, err := inst.Func(name)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	res := make([]uint64, len(p.Want))
	if arm.profile {
		if err := fn.CallInto(ctx, small, res); err != nil {
			return nil, err
		}
		if err := inst.Optimize(); err != nil {
			return nil, err
		}
	}
	return func() error {
		if err := fn.CallInto(ctx, p.Args, res); err != nil {
			return err
		}
		if !slices.Equal(res, p.Want) {
			return fmt.Errorf("%s %s: got %v, want %v", p, arm.name, res, p.Want)
		}
		return nil
	}, nil
}
