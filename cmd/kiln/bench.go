package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/cmdload"
	"github.com/kiln-jit/kiln/jit"
)

// benchTiers are the tiers kiln bench compares, the reference first; the
// auto tier (the default) last, its calls including its tier-up.
var benchTiers = []jit.Tier{jit.TierInterp, jit.TierBaseline, jit.TierOptimizing, jit.TierAuto}

// benchRow is what kiln bench measured on one tier.
type benchRow struct {
	tier    jit.Tier
	load    time.Duration
	stats   jit.CompileStats
	calls   int
	perCall time.Duration
	note    string // why the tier was not measured; for the auto tier, what its tier-up did
}

// cmdBench loads a module on every tier, checks that a function returns
// the same results on each, and times repeated calls: kiln bench
// [-func=main] [-time=D] [-n=N] FILE [ARG...]. It prints, per tier, the
// load time and the compile time of each stage, the number of calls
// timed, the time per call and its ratio to the interpreter's. Host
// functions are kiln run's, with no input and their output discarded.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stderr)
	fn := fs.String("func", "main", "exported function to call")
	budget := fs.Duration("time", time.Second, "time to spend calling the function on each tier")
	n := fs.Int("n", 0, "calls to time on each tier (0: as many as -time allows)")
	if err := fs.Parse(args); err != nil {
		return flagError{err}
	}
	if fs.NArg() < 1 {
		return errUsage
	}
	if *budget <= 0 || *n < 0 {
		return flagError{fmt.Errorf("-time must be positive and -n not negative")}
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rows []benchRow
	var want []uint64
	for _, tier := range benchTiers {
		row, results, err := benchTier(ctx, tier, data, *fn, fs.Args()[1:], *budget, *n)
		var se *bytecode.SyntaxError
		switch {
		case errors.As(err, &se):
			return atLine(path, err) // the module's, whatever the tier
		case err != nil:
			return fmt.Errorf("%s: %s tier: %w", path, tier, err)
		}
		if row.note == "" {
			if want == nil {
				want = results
			} else if !slices.Equal(results, want) {
				return fmt.Errorf("%s: %s returns %v on the %s tier, %v on the interpreter", path, *fn, results, tier, want)
			}
		}
		rows = append(rows, row)
	}
	printBench(stdout, rows)
	return nil
}

// benchTier loads the module on tier and times calls of fn.
func benchTier(ctx context.Context, tier jit.Tier, data []byte, fn string, argText []string, budget time.Duration, n int) (benchRow, []uint64, error) {
	row := benchRow{tier: tier}
	engine, err := jit.NewEngine(jit.Options{Tier: tier})
	if err != nil {
		return row, nil, err
	}
	load := engine.LoadTextContext
	if isBinary(data) {
		load = engine.LoadBinaryContext
	}
	start := time.Now()
	mod, err := cmdload.Load(ctx, func(ctx context.Context) (*jit.Module, error) { return load(ctx, data) })
	if err != nil {
		return row, nil, err
	}
	row.load = time.Since(start)
	if mod.Tier() != tier {
		row.note = fmt.Sprintf("runs in the %s tier: %v", mod.Tier(), mod.CompileError())
		return row, nil, nil
	}
	row.stats = mod.CompileStats()
	sig, found := exportedSig(mod, fn)
	if !found {
		return row, nil, fmt.Errorf("no exported function %q (exports: %s)", fn, exportNames(mod))
	}
	callArgs, err := parseArgs(sig.Params, argText)
	if err != nil {
		return row, nil, flagError{fmt.Errorf("%s %s: %w", fn, sig, err)}
	}
	imports, err := standardHosts(mod, bufio.NewReader(bytes.NewReader(nil)), bufio.NewWriter(io.Discard))
	if err != nil {
		return row, nil, err
	}
	inst, err := mod.Instantiate(imports)
	if err != nil {
		return row, nil, err
	}
	f, err := inst.Func(fn)
	if err != nil {
		return row, nil, err
	}
	results := make([]uint64, len(sig.Results))
	if err := f.CallInto(ctx, callArgs, results); err != nil {
		return row, nil, err
	}
	first := slices.Clone(results)
	start = time.Now()
	for n == 0 && time.Since(start) < budget || row.calls < n {
		if err := f.CallInto(ctx, callArgs, results); err != nil {
			return row, nil, err
		}
		row.calls++
	}
	row.perCall = time.Since(start) / time.Duration(row.calls)
	if tier == jit.TierAuto {
		// What the tier-up compiled, and when the code changed.
		row.stats = inst.CompileStats()
		row.note = fmt.Sprintf("now %s", inst.Tier())
		if err := inst.TierUpError(); err != nil {
			row.note += fmt.Sprintf(" (tier-up failed: %v)", err)
		}
		if k := inst.OSREntries(); k > 0 {
			row.note += fmt.Sprintf(", %d on-stack replacements", k)
		}
		if k, _, err := inst.Reoptimizations(); k > 0 || err != nil {
			row.note += fmt.Sprintf(", %d re-optimizations", k)
			if err != nil {
				row.note += fmt.Sprintf(" (last failed: %v)", err)
			}
		}
	}
	return row, first, nil
}

// printBench prints the table of kiln bench.
func printBench(w io.Writer, rows []benchRow) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tier\tload\tlower\tout of SSA\talloc\tencode\tinstall\tcalls\tper call\tx interp\t")
	var ref time.Duration
	for _, r := range rows {
		if r.note != "" && r.calls == 0 {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\t\t\t\t%s\n", r.tier, ms(r.load), r.note)
			continue
		}
		if ref == 0 {
			ref = r.perCall
		}
		s := r.stats
		stage := []string{"-", "-", "-", "-", "-"}
		if r.tier != jit.TierInterp {
			stage = []string{ms(s.Lower), ms(s.OutOfSSA), ms(s.Alloc), ms(s.Encode), ms(s.Install)}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%.3f\t", r.tier, ms(r.load), stage[0], stage[1], stage[2],
			stage[3], stage[4], r.calls, ms(r.perCall), float64(r.perCall)/float64(ref))
		if r.note != "" {
			fmt.Fprintf(tw, "  %s", r.note)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
