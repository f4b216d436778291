package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/dumphtml"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
	"github.com/kiln-jit/kiln/sched"
)

func cmdDump(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("dump", stderr)
	stage := fs.String("stage", "asm", "bytecode, ssa, nonssa, alloc, sched or asm")
	naive := fs.Bool("naive", false, "take functions out of SSA by naive φ instantiation instead of coalescing (as jit.Options.NaiveOutOfSSA)")
	tierName := fs.String("tier", "baseline", "the compiled tier whose pipeline nonssa and asm show: baseline or optimizing (sched implies optimizing)")
	only := fs.String("func", "", "dump only this function")
	htmlOut := fs.String("html", "", "instead of one stage as text, write one HTML page with every stage of the function -func (required when FILE has several functions) to this file; "+
		"ARG values after FILE are the function's arguments for a run in the interpreter whose counts make the profile the page shows (otherwise: the static estimate, unless -profile)")
	profile := fs.Bool("profile", false, "with -html: profile the function by running it in the interpreter even without ARG values (for a function without parameters)")
	if err := fs.Parse(args); err != nil {
		return flagError{err}
	}
	if *profile && *htmlOut == "" {
		return flagError{errors.New("-profile needs -html")}
	}
	if *htmlOut != "" {
		stageSet := false
		fs.Visit(func(f *flag.Flag) { stageSet = stageSet || f.Name == "stage" })
		if stageSet {
			return flagError{errors.New("-stage and -html exclude each other: the page shows every stage")}
		}
		if fs.NArg() < 1 {
			return errUsage
		}
		return dumpHTML(htmlRequest{out: *htmlOut, path: fs.Arg(0), args: fs.Args()[1:], profile: *profile,
			fn: *only, tier: *tierName, naive: *naive}, stdout)
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
		return fmt.Errorf("%s has no function %q (functions: %s)", fs.Arg(0), *only, funcNames(m))
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

// htmlRequest is what kiln dump -html is asked for.
type htmlRequest struct {
	out, path string   // the page to write, the module to read
	args      []string // argument values for a profiling run
	profile   bool     // run even without argument values
	fn        string   // the function's name; "" for the only one
	tier      string   // -tier
	naive     bool     // -naive
}

// dumpHTML is kiln dump -html=OUT: it writes the page of package dumphtml
// for the requested function to the requested file. With argument values,
// or with profile set, it first runs the function in the interpreter with
// them, and the page shows the profile that run counted.
func dumpHTML(req htmlRequest, stdout io.Writer) error {
	tier, err := dumphtml.ParseTier(req.tier)
	if err != nil {
		return flagError{err}
	}
	m, err := load(req.path)
	if err != nil {
		return err
	}
	fn := 0
	switch {
	case req.fn != "":
		if fn = m.FuncIndex(req.fn); fn < 0 {
			return fmt.Errorf("%s has no function %q (functions: %s)", req.path, req.fn, funcNames(m))
		}
	case len(m.Funcs) != 1:
		return flagError{fmt.Errorf("%s has %d functions: -html needs -func", req.path, len(m.Funcs))}
	}
	opts := dumphtml.Options{Tier: tier, Target: lower.HostTarget(), NaiveOutOfSSA: req.naive}
	if req.profile || len(req.args) > 0 {
		if opts.Profile, err = profileRun(m, fn, req.args); err != nil {
			return err
		}
	}
	var page bytes.Buffer
	if err := dumphtml.Write(&page, m, fn, opts); err != nil {
		return fmt.Errorf("%s: %w", req.path, err)
	}
	if err := os.WriteFile(req.out, page.Bytes(), 0o644); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "wrote %s (func %s, %s tier)\n", req.out, m.Funcs[fn].Name, tier)
	return err
}

// profileRun calls function fn of m in the interpreter with the arguments
// argText (parsed as kiln run parses them) and returns the function's
// profile from the counts. The host functions are kiln run's, with no
// input and their output discarded; imported globals are zero.
func profileRun(m *bytecode.Module, fn int, argText []string) (*profilecounters.Profile, error) {
	bf := m.Funcs[fn]
	args, err := parseArgs(bf.Sig.Params, argText)
	if err != nil {
		return nil, flagError{fmt.Errorf("%s %s: %w", bf.Name, bf.Sig, err)}
	}
	hosts, err := interpHosts(m)
	if err != nil {
		return nil, err
	}
	p, err := interp.Prepare(m)
	if err != nil {
		return nil, fmt.Errorf("profiling run: %w", err)
	}
	mem := interp.NewMemory(m.Memory.MinPages, m.Memory.MaxPages)
	m.ApplyData(mem.Bytes)
	mach, err := interp.NewMachine(p, interp.Config{}, hosts, mem)
	if err != nil {
		return nil, fmt.Errorf("profiling run: %w", err)
	}
	results := make([]uint64, len(bf.Sig.Results))
	if err := mach.Call(context.Background(), fn, args, results); err != nil {
		return nil, fmt.Errorf("profiling run of %s: %w", bf.Name, err)
	}
	return p.Layouts[fn].Profile(mach.Counters[fn]), nil
}

// interpHosts returns the interpreter's host functions for the module's
// host imports: kiln run's standard set, reading no input (getc returns
// -1) and discarding output. Importing anything else, or one of them with
// another signature, is an error.
func interpHosts(m *bytecode.Module) ([]interp.HostFunc, error) {
	available := hostFuncs(bufio.NewReader(bytes.NewReader(nil)), bufio.NewWriter(io.Discard))
	hosts := make([]interp.HostFunc, len(m.Hosts))
	for i, h := range m.Hosts {
		a, ok := available[h.Name]
		if !ok {
			return nil, fmt.Errorf("the module imports host function %q; the profiling run provides putc, getc, print_i64 and print_f64", h.Name)
		}
		if !a.sig.Equal(h.Sig) {
			return nil, fmt.Errorf("the module imports host function %s as %s; the profiling run provides it as %s", h.Name, h.Sig, a.sig)
		}
		hosts[i] = func(_ context.Context, args, results []uint64) error { return a.fn(args, results) }
	}
	return hosts, nil
}

// funcNames lists the names of m's functions, quoted.
func funcNames(m *bytecode.Module) string {
	names := make([]string, len(m.Funcs))
	for i, f := range m.Funcs {
		names[i] = strconv.Quote(f.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
