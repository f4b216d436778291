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
		dump := dumpFunc
		if optimizing {
			dump = dumpOptimizing
		}
		text, err := dump(m, i, *stage, *naive)
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

// dumpFunc runs function i through the baseline pipeline up to stage.
func dumpFunc(m *bytecode.Module, i int, stage string, naive bool) (string, error) {
	f, err := lower.Func(m, i, lower.Options{Target: lower.HostTarget()})
	if err != nil {
		return "", err
	}
	if stage == "ssa" {
		return printIR(f)
	}
	f, err = alloc.BaselineOutOfSSA(f, naive)
	if err != nil {
		return "", err
	}
	if stage == "nonssa" {
		return printIR(f)
	}
	a, err := alloc.BaselineNonSSA(f)
	if err != nil {
		return "", err
	}
	if stage == "alloc" {
		return printIR(a)
	}
	code, err := encode.Func(a)
	if err != nil {
		return "", err
	}
	return encode.Disassemble(code, 0), nil
}

// dumpOptimizing runs function i through the optimizing pipeline up to
// stage: out of SSA with renaming constraints (alloc.Destruct), the
// integrated scheduling and register assignment (sched), the machine code.
// The sched stage ends with the pass's statistics as comments.
func dumpOptimizing(m *bytecode.Module, i int, stage string, _ bool) (string, error) {
	f, err := lower.Func(m, i, lower.Options{Target: lower.HostTarget()})
	if err != nil {
		return "", err
	}
	if stage == "ssa" {
		return printIR(f)
	}
	d, err := alloc.Destruct(f, alloc.DestructOptions{})
	if err != nil {
		return "", err
	}
	if stage == "nonssa" {
		return printIR(d.Func)
	}
	r, err := sched.Allocate(d.Func, sched.Options{})
	if err != nil {
		return "", err
	}
	if stage == "sched" {
		text, err := printIR(r.Func)
		s := &r.Stats
		text += fmt.Sprintf("; %d instructions in, %d regions, %d cycles (%.4g weighted)\n", s.Instrs, s.Regions, s.Cycles, s.WeightedCycles)
		text += fmt.Sprintf("; in regions: %d spills, %d reloads, %d rematerializations, %d moves (weighted %.4g, %.4g, %.4g, %.4g)\n",
			s.Spills, s.Reloads, s.Remats, s.Moves, s.WeightedSpills, s.WeightedReloads, s.WeightedRemats, s.WeightedMoves)
		text += fmt.Sprintf("; on edges: %d moves, %d loads, %d stores, %d rematerializations (weighted %.4g, %.4g, %.4g, %.4g), %d split edges\n",
			s.EdgeMoves, s.EdgeLoads, s.EdgeStores, s.EdgeRemats, s.WeightedEdgeMoves, s.WeightedEdgeLoads, s.WeightedEdgeStores, s.WeightedEdgeRemats, s.SplitEdges)
		return text, err
	}
	code, err := encode.Func(r.Func)
	if err != nil {
		return "", err
	}
	return encode.Disassemble(code, 0), nil
}

func printIR(f *mir.Func) (string, error) {
	var b bytes.Buffer
	err := mir.Print(&b, f)
	return b.String(), err
}
