package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kiln-jit/kiln/wasm/wasi"
)

// SightglassProgram is a program in the sightglass suite's layout: a
// .wasm module exporting _start and importing bench.start and bench.end,
// run with its own folder preopened as the working directory ".", where
// it finds its inputs, and whose output must equal the expected files
// beside it.
type SightglassProgram struct {
	// Name names the program in tables: the module's file name without
	// .wasm, or its folder's name for the suite's NAME/benchmark.wasm.
	Name string
	// Path is the module's file and Dir its folder.
	Path, Dir string
	// StdoutFile and StderrFile are the expected outputs ("" when there
	// is none): BASE.stdout.expected beside the module BASE.wasm, or else
	// default.stdout.expected (the suite names both ways; libsodium's
	// modules share the default ones), and likewise for stderr.
	StdoutFile, StderrFile string
}

// FindSightglass returns the sightglass programs at paths: each a .wasm
// file, or a directory searched recursively for .wasm files. They come in
// the order of paths, each directory's in lexical order.
func FindSightglass(paths []string) ([]*SightglassProgram, error) {
	var progs []*SightglassProgram
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("sightglass programs: %w", err)
		}
		if !info.IsDir() {
			progs = append(progs, newSightglassProgram(root))
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".wasm") {
				progs = append(progs, newSightglassProgram(p))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sightglass programs under %s: %w", root, err)
		}
	}
	return progs, nil
}

func newSightglassProgram(path string) *SightglassProgram {
	dir := filepath.Dir(path)
	base := strings.TrimSuffix(filepath.Base(path), ".wasm")
	p := &SightglassProgram{Name: base, Path: path, Dir: dir}
	if base == "benchmark" {
		if abs, err := filepath.Abs(dir); err == nil {
			p.Name = filepath.Base(abs)
		}
	}
	expected := func(stream string) string {
		for _, f := range []string{base + "." + stream + ".expected", "default." + stream + ".expected"} {
			f = filepath.Join(dir, f)
			if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() {
				return f
			}
		}
		return ""
	}
	p.StdoutFile, p.StderrFile = expected("stdout"), expected("stderr")
	return p
}

// SightglassRecord is the outcome of a sightglass program on one engine,
// as cmd/sightglass prints it in JSON (one object a line).
type SightglassRecord struct {
	// Module is the program's name (SightglassProgram.Name), Path its
	// module's file and Engine the engine's name (WASIEngines).
	Module string `json:"module"`
	Path   string `json:"path"`
	Engine string `json:"engine"`
	// OK says that every run exited with status 0 having called
	// bench.start and then bench.end once each, and that its standard
	// output and error equal the expected files (ignoring whitespace at
	// their ends). Checked says that there was an expected file to
	// compare with: a program without one (the suite's hashset, richards)
	// is OK when it runs, unchecked.
	OK      bool `json:"ok"`
	Checked bool `json:"checked"`
	// Error says what failed when OK is false ("" when it is true).
	Error string `json:"error"`
	// Runs is the number of runs made (fewer than asked when one failed).
	Runs int `json:"runs"`
	// CompileSeconds, BenchSeconds (between bench.start and bench.end)
	// and TotalSeconds (the whole run, compile included) are each the
	// fastest over the runs (see WASIResult); when the first run fails,
	// its times up to the failure.
	CompileSeconds float64 `json:"compile_seconds"`
	BenchSeconds   float64 `json:"bench_seconds"`
	TotalSeconds   float64 `json:"total_seconds"`
	// PeakHeapBytes is the largest WASIResult.PeakHeap over the runs.
	PeakHeapBytes uint64 `json:"peak_heap_bytes"`
}

// SightglassOptions says how RunSightglass runs a program.
type SightglassOptions struct {
	// Runs is the number of runs (at least 1); the fastest times are
	// kept.
	Runs int
	// Timeout bounds each run (0: none).
	Timeout time.Duration
}

// RunSightglass runs p on engine opts.Runs times, each run with a fresh
// engine and instance, and checks every run's output. It stops at the
// first run that fails, whose error the record then carries.
func RunSightglass(p *SightglassProgram, engine string, opts SightglassOptions) SightglassRecord {
	rec := SightglassRecord{Module: p.Name, Path: p.Path, Engine: engine, Checked: p.StdoutFile != "" || p.StderrFile != ""}
	fail := func(err error) SightglassRecord {
		rec.OK = false
		rec.Error = err.Error()
		return rec
	}
	bin, err := os.ReadFile(p.Path)
	if err != nil {
		return fail(err)
	}
	var want [2]*string
	for i, f := range []string{p.StdoutFile, p.StderrFile} {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return fail(err)
		}
		s := string(b)
		want[i] = &s
	}
	for run := range max(opts.Runs, 1) {
		var stdout, stderr bytes.Buffer
		prog := &WASIProgram{
			Wasm:   bin,
			Args:   []string{strings.TrimSuffix(filepath.Base(p.Path), ".wasm")},
			Stdout: &stdout, Stderr: &stderr,
			Dirs:  []wasi.Preopen{{HostDir: p.Dir, GuestPath: "."}},
			Bench: true,
		}
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if opts.Timeout > 0 {
			ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		}
		res, err := RunWASI(ctx, engine, prog)
		cancel()
		if err == nil {
			err = checkSightglassRun(res, stdout.String(), stderr.String(), want)
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("timed out after %v: %w", opts.Timeout, err)
			}
			if run > 0 {
				err = fmt.Errorf("run %d: %w", run+1, err)
			}
			rec.Runs = run + 1
			if run == 0 {
				rec.CompileSeconds, rec.BenchSeconds, rec.TotalSeconds = res.Compile.Seconds(), res.Bench.Seconds(), res.Total.Seconds()
			}
			return fail(err)
		}
		if run == 0 || res.Compile.Seconds() < rec.CompileSeconds {
			rec.CompileSeconds = res.Compile.Seconds()
		}
		if run == 0 || res.Bench.Seconds() < rec.BenchSeconds {
			rec.BenchSeconds = res.Bench.Seconds()
		}
		if run == 0 || res.Total.Seconds() < rec.TotalSeconds {
			rec.TotalSeconds = res.Total.Seconds()
		}
		rec.PeakHeapBytes = max(rec.PeakHeapBytes, res.PeakHeap)
		rec.Runs = run + 1
	}
	rec.OK = true
	return rec
}

// checkSightglassRun checks a run's status, its calls of bench.start and
// bench.end and its output (want: the expected stdout and stderr, nil
// when there is none).
func checkSightglassRun(res WASIResult, stdout, stderr string, want [2]*string) error {
	if res.ExitCode != 0 {
		return fmt.Errorf("exit status %d (stderr %q)", res.ExitCode, excerptString(stderr, 0))
	}
	if res.BenchStarts != 1 || res.BenchEnds != 1 {
		return fmt.Errorf("bench.start called %d times and bench.end %d, want once each", res.BenchStarts, res.BenchEnds)
	}
	for i, got := range []string{stdout, stderr} {
		if want[i] == nil {
			continue
		}
		if err := compareTrimmed(got, *want[i]); err != nil {
			return fmt.Errorf("%s: %w", [2]string{"stdout", "stderr"}[i], err)
		}
	}
	return nil
}

// compareTrimmed compares an output with the expected one, whitespace
// at their ends left out.
func compareTrimmed(got, want string) error {
	got, want = strings.TrimRight(got, " \t\r\n"), strings.TrimRight(want, " \t\r\n")
	if got == want {
		return nil
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	line := strings.Count(got[:i], "\n") + 1
	return fmt.Errorf("differs from the expected output at line %d (got %d bytes, want %d): got %q, want %q",
		line, len(got), len(want), excerptString(got, i), excerptString(want, i))
}

// excerptString returns up to 40 bytes of s around i.
func excerptString(s string, i int) string {
	return s[max(0, i-20):min(len(s), i+20)]
}

// WriteSightglassTable prints records as a table, a row per program and
// engine in the order of engines: the compile time, the time between
// bench.start and bench.end, the whole run, the peak heap and the ratios
// of the three times to wazero's compiler's on the same program (the
// failed runs with their errors instead), then for each engine the
// geometric means of its ratios, each over the programs that ran OK on
// it and on wazero's compiler.
func WriteSightglassTable(w io.Writer, recs []SightglassRecord, engines []string) error {
	// Programs are told apart by their paths: two folders' benchmark.wasm
	// may share a name.
	type key struct{ path, engine string }
	byKey := map[key]*SightglassRecord{}
	var modules []string
	for i := range recs {
		r := &recs[i]
		if _, seen := byKey[key{r.Path, ""}]; !seen {
			byKey[key{r.Path, ""}] = r
			modules = append(modules, r.Path)
		}
		byKey[key{r.Path, r.Engine}] = r
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "program\tengine\t   compile\t     bench\t     total\t peak heap\tx-compile\t x-bench\t x-total\t")
	ratios := map[string]*[3][]float64{}
	for _, e := range engines {
		ratios[e] = new([3][]float64)
	}
	for _, m := range modules {
		ref := byKey[key{m, Wazero}]
		name := byKey[key{m, ""}].Module
		for _, e := range engines {
			r := byKey[key{m, e}]
			if r == nil {
				continue
			}
			if !r.OK {
				fmt.Fprintf(tw, "%s\t%s\t%10s\t%10s\t%10s\t%10s\t%9s\t%8s\t%8s\tFAILED: %s\n", name, e,
					"-", "-", "-", "-", "-", "-", "-", shortError(r.Error))
				name = ""
				continue
			}
			note := ""
			if !r.Checked {
				note = "(output unchecked)"
			}
			times := [3]float64{r.CompileSeconds, r.BenchSeconds, r.TotalSeconds}
			var xs [3]string
			for i := range xs {
				xs[i] = "-"
				if ref != nil && ref.OK {
					refTimes := [3]float64{ref.CompileSeconds, ref.BenchSeconds, ref.TotalSeconds}
					if refTimes[i] > 0 && times[i] > 0 {
						x := times[i] / refTimes[i]
						xs[i] = FormatRatio(x)
						ratios[e][i] = append(ratios[e][i], x)
					}
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%10s\t%10s\t%10s\t%10s\t%9s\t%8s\t%8s\t%s\n", name, e,
				formatSeconds(times[0]), formatSeconds(times[1]), formatSeconds(times[2]),
				formatBytes(r.PeakHeapBytes), xs[0], xs[1], xs[2], note)
			name = ""
		}
	}
	if len(modules) > 1 {
		for _, e := range engines {
			if e == Wazero {
				continue
			}
			rs := ratios[e]
			if len(rs[0]) == 0 {
				continue
			}
			var gs [3]string
			for i := range gs {
				gs[i] = "-"
				if len(rs[i]) > 0 {
					gs[i] = FormatRatio(geomean(rs[i]))
				}
			}
			fmt.Fprintf(tw, "geomean\t%s\t\t\t\t\t%9s\t%8s\t%8s\t(%d programs)\n", e, gs[0], gs[1], gs[2], len(rs[0]))
		}
	}
	return tw.Flush()
}

// shortError returns the first line of an error, cut to 100 bytes.
func shortError(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

func formatSeconds(s float64) string {
	return FormatDuration(time.Duration(s * 1e9))
}

// formatBytes prints a byte count in KiB, MiB or GiB, three significant
// digits.
func formatBytes(n uint64) string {
	f := float64(n)
	for _, u := range []string{"B", "KiB", "MiB"} {
		if f < 1024 {
			return sig3(f) + " " + u
		}
		f /= 1024
	}
	return sig3(f) + " GiB"
}

// SortSightglassRecords orders records by program (in the order of their
// first records; a program is its path) and then by engine, in the order
// of engines.
func SortSightglassRecords(recs []SightglassRecord, engines []string) {
	first := map[string]int{}
	for i, r := range recs {
		if _, ok := first[r.Path]; !ok {
			first[r.Path] = i
		}
	}
	slices.SortStableFunc(recs, func(a, b SightglassRecord) int {
		if d := first[a.Path] - first[b.Path]; d != 0 {
			return d
		}
		return slices.Index(engines, a.Engine) - slices.Index(engines, b.Engine)
	})
}
