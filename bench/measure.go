package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
)

// MinRun is the default floor below which a program is not timed: its
// fastest run in a configuration called from Go (all but gcc, which times
// itself inside its own process) is so short that call and host-call
// overheads, not the code, would be measured. Several of the shared
// Brainfuck programs finish in microseconds.
const MinRun = 100 * time.Microsecond

// trial holds one program's runners, one per configuration, after a
// first run of each has checked its output.
type trial struct {
	configs []*Config
	runners []Runner // nil: the configuration does not run this kind of program, or skips it
	notes   []string // a note per configuration that skips the program ("" for none)
	first   []time.Duration
}

// newTrial prepares p in every configuration and runs it once in each,
// checking its output: a mismatch is an error.
func newTrial(p *Program, configs []*Config) (*trial, error) {
	s := &trial{configs: configs, runners: make([]Runner, len(configs)),
		notes: make([]string, len(configs)), first: make([]time.Duration, len(configs))}
	for i, c := range configs {
		r, err := c.Prepare(p)
		var skip *SkipError
		if errors.As(err, &skip) {
			s.notes[i] = skip.Reason
			continue
		}
		if err != nil {
			s.close()
			return nil, err
		}
		if r == nil {
			continue
		}
		s.runners[i] = r
		if s.first[i], err = r.Run(1); err != nil {
			s.close()
			return nil, fmt.Errorf("%s in %s: %w", p, c.Name, err)
		}
	}
	return s, nil
}

func (s *trial) close() {
	for _, r := range s.runners {
		if r != nil {
			r.Close()
		}
	}
}

// fastest returns the shortest first run of the program in the
// configurations called from Go (all but gcc).
func (s *trial) fastest() time.Duration {
	best := time.Duration(math.MaxInt64)
	for i, r := range s.runners {
		if r != nil && s.configs[i].Name != GCC {
			best = min(best, s.first[i])
		}
	}
	return best
}

// index returns the position of the configuration named name, or -1.
func (s *trial) index(name string) int {
	for i, c := range s.configs {
		if c.Name == name && s.runners[i] != nil {
			return i
		}
	}
	return -1
}

// MeasureOptions control Measure.
type MeasureOptions struct {
	// Reps is the number of samples per configuration; the fastest is
	// kept. Configurations take turns sample by sample, each round in a
	// rotated order, so that machine noise hits all alike.
	Reps int
	// Sample is the least duration of a sample: a sample runs the program
	// as many times as that takes (estimated from the first run), at
	// least once.
	Sample time.Duration
	// MinRun is the floor below which a program is not timed (see the
	// constant MinRun); 0 times every program.
	MinRun time.Duration
	// Log, when not nil, receives a line per program as it is measured.
	Log io.Writer
}

// Result is one program's measurement.
type Result struct {
	Program *Program
	// PerRun holds, per configuration name, the time of one run: the
	// minimum over the samples of the sample's time divided by its runs.
	// A configuration that does not run the program has no entry.
	PerRun map[string]time.Duration
	// Notes holds, per configuration name, why it did not run the
	// program although it runs programs of its kind.
	Notes map[string]string
	// Short is set when the program's fastest first run in a
	// configuration called from Go (all but gcc), Fastest, was below the
	// floor; the program was checked but not timed, and PerRun holds the
	// first runs.
	Short   bool
	Fastest time.Duration
}

// Measure checks and times every program in every configuration.
func Measure(progs []*Program, configs []*Config, opts MeasureOptions) ([]Result, error) {
	var results []Result
	for _, p := range progs {
		r, err := measure(p, configs, opts)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "measured %s\n", p)
		}
	}
	return results, nil
}

func measure(p *Program, configs []*Config, opts MeasureOptions) (Result, error) {
	s, err := newTrial(p, configs)
	if err != nil {
		return Result{}, err
	}
	defer s.close()
	res := Result{Program: p, PerRun: map[string]time.Duration{}, Notes: map[string]string{}}
	var live []int // configurations that run p
	for i, c := range configs {
		if s.notes[i] != "" {
			res.Notes[c.Name] = s.notes[i]
		}
		if s.runners[i] != nil {
			live = append(live, i)
			res.PerRun[c.Name] = s.first[i]
		}
	}
	if len(live) == 0 {
		return res, nil
	}
	if f := s.fastest(); f < opts.MinRun {
		res.Short, res.Fastest = true, f
		return res, nil
	}
	runs := make([]int, len(configs))
	best := make([]time.Duration, len(configs))
	for _, i := range live {
		runs[i] = int(max(1, min(1e6, opts.Sample/max(s.first[i], 1))))
		best[i] = time.Duration(math.MaxInt64)
	}
	for rep := range max(opts.Reps, 1) {
		for k := range live {
			i := live[(k+rep)%len(live)]
			d, err := s.runners[i].Run(runs[i])
			if err != nil {
				return Result{}, fmt.Errorf("%s in %s: %w", p, configs[i].Name, err)
			}
			best[i] = min(best[i], d/time.Duration(runs[i]))
		}
	}
	for _, i := range live {
		res.PerRun[configs[i].Name] = best[i]
	}
	return res, nil
}

// NativeReference returns the configuration of the ratio x-native for
// programs of kind: gcc -O2 for the C programs, native Go for the others
// (only kernels have a native Go twin; the Brainfuck programs' gcc builds
// are left out of the ratio, gcc replacing whole loops of them).
func NativeReference(kind string) string {
	if kind == KindC {
		return GCC
	}
	return Native
}

// ratios returns the ratios of configuration name's time in r to its
// native reference's, wazero's compiler's and wazero's interpreter's, and
// whether each could be computed.
func ratios(r Result, name string) (xs [3]float64, ok [3]bool) {
	t, has := r.PerRun[name]
	if !has {
		return xs, ok
	}
	for i, ref := range [3]string{NativeReference(r.Program.Kind), Wazero, WazeroInterp} {
		if rt, has := r.PerRun[ref]; has && rt > 0 {
			xs[i], ok[i] = float64(t)/float64(rt), true
		}
	}
	return xs, ok
}

// WriteTable prints results as one table, a row per program and
// configuration: the time of one run and its ratios to the native build
// (x-native: native Go for kernels, gcc -O2 for C programs), to wazero's
// compiler (x-wazero) and to wazero's interpreter (x-wazero-interp). A
// kind with several timed programs ends with a geometric mean row per
// configuration, over the programs that have the ratio. The programs
// below the floor follow the table on one line, with their fastest first
// run.
func WriteTable(w io.Writer, results []Result, configs []*Config) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "program\tconfiguration\t time/run\tx-native\tx-wazero\tx-wazero-interp")
	var short []string
	row := func(name, config, t string, xs [3]float64, ok [3]bool) {
		var cols [3]string
		for i := range cols {
			cols[i] = "-"
			if ok[i] {
				cols[i] = FormatRatio(xs[i])
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%9s\t%8s\t%8s\t%15s\n", name, config, t, cols[0], cols[1], cols[2])
	}
	last := map[string]int{} // kind -> index of its last program
	for k, r := range results {
		last[r.Program.Kind] = k
	}
	for k, r := range results {
		name := r.Program.String()
		if r.Short {
			short = append(short, fmt.Sprintf("%s %s", name, FormatDuration(r.Fastest)))
		} else {
			for _, c := range configs {
				t, ok := r.PerRun[c.Name]
				if !ok {
					if note := r.Notes[c.Name]; note != "" {
						fmt.Fprintf(tw, "%s\t%s\t(%s)\n", name, c.Name, note)
						name = ""
					}
					continue
				}
				xs, has := ratios(r, c.Name)
				row(name, c.Name, FormatDuration(t), xs, has)
				name = ""
			}
		}
		kind := r.Program.Kind
		if last[kind] != k {
			continue
		}
		// The last program of its kind: the geometric means of the kind.
		var timed []Result
		for _, q := range results {
			if q.Program.Kind == kind && !q.Short {
				timed = append(timed, q)
			}
		}
		if len(timed) < 2 {
			continue
		}
		name = kind + "/geomean"
		for _, c := range configs {
			var xs [3]float64
			var has [3]bool
			for i := range xs {
				var vals []float64
				for _, q := range timed {
					if x, ok := ratios(q, c.Name); ok[i] {
						vals = append(vals, x[i])
					}
				}
				if len(vals) > 0 {
					xs[i], has[i] = geomean(vals), true
				}
			}
			if has != [3]bool{} {
				row(name, c.Name, "", xs, has)
				name = ""
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(short) > 0 {
		_, err := fmt.Fprintf(w, "\nnot timed, their fastest first run being under the floor: %s\n", strings.Join(short, ", "))
		return err
	}
	return nil
}

// FormatDuration prints d with three significant digits in a unit that
// suits it.
func FormatDuration(d time.Duration) string {
	f := float64(d)
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%.0f ns", f)
	case d < time.Millisecond:
		return sig3(f/1e3) + " µs"
	case d < time.Second:
		return sig3(f/1e6) + " ms"
	}
	return sig3(f/1e9) + " s"
}

// FormatRatio prints a ratio with three significant digits.
func FormatRatio(x float64) string { return sig3(x) }

func sig3(x float64) string {
	switch {
	case x <= 0 || math.IsNaN(x):
		return fmt.Sprint(x)
	case x < 1:
		return fmt.Sprintf("%.*f", 2-int(math.Floor(math.Log10(x))), x)
	case x < 10:
		return fmt.Sprintf("%.2f", x)
	case x < 100:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.0f", x)
}
