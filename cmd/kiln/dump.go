package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/sched"
)

func cmdDump(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("dump", stderr)
	stage := fs.String("stage", "asm", "bytecode, ssa, nonssa, alloc, sched or asm")
	naive := fs.Bool("naive", false, "take functions out of SSA by naive φ instantiation instead of coalescing (as jit.Options.NaiveOutOfSSA)")
	tierName := fs.String("tier", "baseline", "the compiled tier whose pipeline nonssa and asm show: baseline or optimizing (sched implies optimizing)")
	only := fs.String("func", "", "dump only this function")
	if err := fs.Parse(args); err != nil {
		return flagError{err}
	}
	if fs.NArg() != 1 {
		return errUsage
	}
	m, err := load(fs.Arg(0))
	if err != nil {
		return err
	}
	switch *stage {
	case "bytecode", "ssa", "nonssa", "alloc", "sched", "asm":
	default:
		return flagError{fmt.Errorf("unknown stage %q (want bytecode, ssa, nonssa, alloc, sched or asm)", *stage)}
	}
	optimizing := *stage == "sched"
	switch *tierName {
	case "baseline":
	case "optimizing":
		optimizing = true
	default:
		return flagError{fmt.Errorf("unknown tier %q (want baseline or optimizing)", *tierName)}
	}
	if optimizing && *stage == "alloc" {
		return flagError{fmt.Errorf("stage alloc is the baseline's allocation; the optimizing tier's is stage sched")}
	}
	if *stage == "bytecode" {
		_, err := stdout.Write(bytecode.Disassemble(m))
		return err
	}
	found := false
	for i, f := range m.Funcs {
		if *only != "" && f.Name != *only {
			continue
		}
		found = true
		text, err := dumpFunc(m, i, *stage, *naive, optimizing, lower.HostTarget())
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, text)
	}
	if !found {
		return fmt.Errorf("%s has no function %q", fs.Arg(0), *only)
	}
	return nil
}

// dumpFunc runs function i through a compiled tier's pipeline up to
// stage: lowering; out of SSA (the baseline's coalescing, or naive φ
// instantiation; the optimizing tier's alloc.Destruct with renaming
// constraints); register allocation (the baseline's stack slots, stage
// alloc; the optimizing tier's integrated scheduling and register
// assignment, stage sched, which ends with the pass's statistics as
// comments); the machine code. target is the CPU the code is for.
func dumpFunc(m *bytecode.Module, i int, stage string, naive, optimizing bool, target lower.Target) (string, error) {
	f, err := lower.Func(m, i, lower.Options{Target: target})
	if err != nil {
		return "", err
	}
	if stage == "ssa" {
		return printIR(f)
	}
	if optimizing {
		d, err := alloc.Destruct(f, alloc.DestructOptions{})
		if err != nil {
			return "", err
		}
		f = d.Func
	} else if f, err = alloc.BaselineOutOfSSA(f, naive, false); err != nil {
		return "", err
	}
	if stage == "nonssa" {
		return printIR(f)
	}
	var a *mir.Func
	var stats string
	if optimizing {
		r, err := sched.Allocate(f, sched.Options{})
		if err != nil {
			return "", err
		}
		a, stats = r.Func, schedStats(&r.Stats)
	} else if a, err = alloc.BaselineNonSSA(f); err != nil {
		return "", err
	}
	if stage == "alloc" || stage == "sched" {
		text, err := printIR(a)
		return text + stats, err
	}
	code, err := encode.Func(a)
	if err != nil {
		return "", err
	}
	return encode.Disassemble(code, 0), nil
}

// schedStats formats the integrated pass's statistics as comments.
func schedStats(s *sched.Stats) string {
	return fmt.Sprintf("; %d instructions in, %d regions, %d cycles (%.4g weighted)\n", s.Instrs, s.Regions, s.Cycles, s.WeightedCycles) +
		fmt.Sprintf("; in regions: %d spills, %d reloads, %d rematerializations, %d moves (weighted %.4g, %.4g, %.4g, %.4g)\n",
			s.Spills, s.Reloads, s.Remats, s.Moves, s.WeightedSpills, s.WeightedReloads, s.WeightedRemats, s.WeightedMoves) +
		fmt.Sprintf("; on edges: %d moves, %d loads, %d stores, %d rematerializations (weighted %.4g, %.4g, %.4g, %.4g), %d split edges\n",
			s.EdgeMoves, s.EdgeLoads, s.EdgeStores, s.EdgeRemats, s.WeightedEdgeMoves, s.WeightedEdgeLoads, s.WeightedEdgeStores, s.WeightedEdgeRemats, s.SplitEdges)
}

func printIR(f *mir.Func) (string, error) {
	var b bytes.Buffer
	err := mir.Print(&b, f)
	return b.String(), err
}
