package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kiln-jit/kiln/alloc"
	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// compileModule lowers m for target and runs every function through
// Destruct and the integrated pass with opts, verifying each result.
func compileModule(t testing.TB, m *bc.Module, target lower.Target, opts Options) []*mir.Func {
	t.Helper()
	funcs, err := lower.Module(m, target)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	for i, f := range funcs {
		r, d, err := Compile(f, opts)
		if err != nil {
			t.Fatalf("compile %s: %v", f.Name, err)
		}
		if err := mir.Verify(r.Func); err != nil {
			t.Fatalf("verify %s: %v\n%s", f.Name, err, mir.Format(r.Func))
		}
		if opts.Oracle != OracleThesis {
			if err := alloc.CheckAllocation(d.Func, r.Func, r.Origins); err != nil {
				t.Fatalf("check %s: %v", f.Name, err)
			}
		}
		funcs[i] = r.Func
	}
	if err := mir.VerifyModule(funcs, lower.HostSigs(m)); err != nil {
		t.Fatalf("verify module: %v", err)
	}
	return funcs
}

// TestDifferentialCases runs every shared case (single instructions,
// programs, kernels at small inputs) through the integrated pass in every
// region order, in source order, and with the distance-based spill
// heuristics (expected distance, nearest next use; with every register
// and with few, each allocation also checked by alloc.CheckAllocation),
// and checks the case's expectations in the mir interpreter, which also
// faults on any read of a register a call or an instruction clobbered.
func TestDifferentialCases(t *testing.T) {
	cases := testprogs.AllCases()
	type config struct {
		name string
		opts Options
	}
	var configs []config
	for _, o := range Orders {
		configs = append(configs, config{o.String(), Options{Order: o}})
	}
	configs = append(configs, config{"source-order", Options{SourceOrder: true}})
	// Each spill heuristic (the default, expected distance, among them),
	// with every register and with few (where they choose most often),
	// each allocation also checked by alloc.CheckAllocation.
	for _, o := range VictimOracles {
		configs = append(configs, config{o.String(), Options{Oracle: o}},
			config{o.String() + "-tight", Options{Oracle: o, Regs: tightRegs}})
	}
	// Parallel copy motion (on in every configuration above): off
	// (split-everywhere), without block motion, and with random
	// decisions (random motions and random points in blocks) with every
	// register and with few, so that any motion the pass could choose is
	// run.
	configs = append(configs, config{"no-copy-motion", Options{NoCopyMotion: true}},
		config{"no-block-motion", Options{NoBlockMotion: true}},
		config{"no-copy-motion-tight", Options{NoCopyMotion: true, Oracle: OracleED, Regs: tightRegs}})
	for seed := range uint64(3) {
		configs = append(configs, config{fmt.Sprintf("random-motion-%d", seed), Options{Oracle: OracleED, motionRand: rand.New(rand.NewPCG(seed, 1))}},
			config{fmt.Sprintf("random-motion-tight-%d", seed), Options{Oracle: OracleED, Regs: tightRegs, motionRand: rand.New(rand.NewPCG(seed, 2))}})
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			for _, c := range cases {
				funcs := compileModule(t, c.Module, lower.FullTarget(), cfg.opts)
				got, err, mem := testrun.MIR(t, c.Module, funcs, c.Func, c.Args)
				if err := c.Check(got, err, mem); err != nil {
					t.Errorf("%s: %v", c.Name, err)
					if testing.Verbose() {
						fmt.Println(mir.Format(funcs[c.Module.ExportedFunc(c.Func)]))
					}
				}
			}
		})
	}
}

// TestCheckerAcceptsEveryAllocation runs the static allocation checker on
// the integrated pass's output for every function of every shared case
// and of generated functions, in every region order, in source order and
// with a small register set, and with each spill heuristic (with every
// register, with few, and with few in source order).
func TestCheckerAcceptsEveryAllocation(t *testing.T) {
	var mods []*bc.Module
	seen := map[*bc.Module]bool{}
	for _, c := range testprogs.AllCases() {
		if !seen[c.Module] {
			seen[c.Module] = true
			mods = append(mods, c.Module)
		}
	}
	mods = append(mods, testprogs.GeneratedModule(3000, 3))
	var configs []Options
	for _, o := range Orders {
		configs = append(configs, Options{Order: o})
	}
	configs = append(configs, Options{SourceOrder: true},
		Options{Regs: mir.MakeRegSet(mir.R8, mir.R9, mir.RBX, mir.X8, mir.X9)})
	for _, o := range VictimOracles {
		configs = append(configs, Options{Oracle: o}, Options{Oracle: o, Regs: tightRegs},
			Options{Oracle: o, SourceOrder: true, Regs: tightRegs})
	}
	// Copy motion off, and with random decisions.
	configs = append(configs, Options{NoCopyMotion: true}, Options{NoCopyMotion: true, Regs: tightRegs},
		Options{Regs: tightRegs, motionRand: rand.New(rand.NewPCG(7, 7))},
		Options{motionRand: rand.New(rand.NewPCG(8, 8))})
	n := 0
	for _, opts := range configs {
		for _, m := range mods {
			funcs, err := lower.Module(m, lower.FullTarget())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range funcs {
				r, d, err := Compile(f, opts)
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				if err := alloc.CheckAllocation(d.Func, r.Func, r.Origins); err != nil {
					t.Errorf("order %s source %v regs %v oracle %s: %v", opts.Order, opts.SourceOrder, opts.Regs, opts.Oracle, err)
				}
				n++
			}
		}
	}
	t.Logf("%d allocations checked", n)
}
