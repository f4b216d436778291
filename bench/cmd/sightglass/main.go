// Command sightglass runs programs in the layout of the Bytecode
// Alliance's sightglass benchmark suite on kiln's interpreter, baseline,
// optimizing and auto tiers and on wazero's compiler and interpreter (with
// wazero's WASI), one engine after another in this one process, and prints
// one table: per program and engine the compile time, the time between
// bench.start and bench.end, the whole run's time, the peak heap, the
// three times' ratios to wazero's compiler and, per engine, the geometric
// means of the ratios over the programs that ran OK on it and on wazero's
// compiler.
//
// Usage, from the bench directory:
//
//	go run ./cmd/sightglass [-engines=kiln-optimizing,wazero-compiler] [-n=N] [-timeout=D] [-json] PATH...
//
// Each PATH is a .wasm file or a directory searched recursively for .wasm
// files, so that programs outside the repository run the same way (the
// suite itself is not in the repository: its modules need WebAssembly
// 2.0). A program is run as the suite runs it: it exports _start and
// imports bench.start and bench.end ([] -> []), which it calls around
// its measured work; its folder is preopened as its working directory
// "." (where it reads its inputs), as upstream's runner preopens it, its
// only argument is its name (the module's file name without .wasm: the
// programs read no arguments), its environment and standard input are
// empty, its clocks and random source the host's; its standard output and error must equal
// BASE.stdout.expected and BASE.stderr.expected beside BASE.wasm, or
// else default.stdout.expected and default.stderr.expected, whitespace at
// their ends ignored. A program with neither file is run unchecked (OK
// when it exits with status 0 having called bench.start and bench.end once
// each; its row says "output unchecked", its JSON "checked": false).
//
// Each engine runs each program -n times, compiling afresh each time,
// and the fastest of each time is kept (the largest peak heap). -timeout
// bounds each run; a program that fails, times out or does not compile on
// an engine (kiln refuses SIMD, for one) shows as FAILED with its error,
// and the others go on. The peak heap is the largest size of the Go
// heap's objects (runtime/metrics), sampled every millisecond during the
// run, above its size after a collection before it: it counts the linear
// memory, which both engines keep on the Go heap, and the compilers' data,
// but not machine code or kiln's machine stacks.
//
// With -json, the command prints instead one JSON object a line for each
// program and engine as it finishes: module, path, engine, ok, checked,
// error, runs, compile_seconds, bench_seconds, total_seconds and
// peak_heap_bytes (see bench.SightglassRecord). -from=FILE runs nothing
// and prints the table of the records of such a file (of the engines
// -engines names, all by default):
//
//	go run ./cmd/sightglass -json PATH... > run.jsonl
//	go run ./cmd/sightglass -from=run.jsonl
//
// Progress goes to standard error unless -q. The exit status is 0 when every program ran, OK or
// not; 1 when a path could not be read or has no .wasm; 2 for bad usage.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kiln-jit/kiln/bench"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command, with its streams passed in so that tests can
// drive it. It returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sightglass", flag.ContinueOnError)
	fs.SetOutput(stderr)
	engineList := fs.String("engines", "", "comma-separated engines (default: all: "+strings.Join(bench.WASIEngines(), ",")+")")
	runs := fs.Int("n", 1, "runs per program and engine; the fastest times are kept")
	timeout := fs.Duration("timeout", 10*time.Minute, "limit of each run (0: none)")
	asJSON := fs.Bool("json", false, "print one JSON object a line per program and engine instead of the table")
	quiet := fs.Bool("q", false, "do not report progress on standard error")
	from := fs.String("from", "", "print the table of the JSON lines of an earlier -json run in `FILE` instead of running")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sightglass [flags] PATH... (.wasm files or directories searched for them)")
		fmt.Fprintln(stderr, "       sightglass [-engines=...] -from=FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if (fs.NArg() == 0) == (*from == "") || *runs < 1 || *timeout < 0 {
		fs.Usage()
		return 2
	}
	engines := bench.WASIEngines()
	if *engineList != "" {
		names := strings.Split(*engineList, ",")
		for _, n := range names {
			if !slices.Contains(engines, n) {
				fmt.Fprintf(stderr, "sightglass: no engine %q (engines: %s)\n", n, strings.Join(engines, ", "))
				return 2
			}
		}
		engines = slices.DeleteFunc(engines, func(e string) bool { return !slices.Contains(names, e) })
	}
	if *from != "" {
		recs, err := readRecords(*from)
		if err != nil {
			fmt.Fprintln(stderr, "sightglass:", err)
			return 1
		}
		recs = slices.DeleteFunc(recs, func(r bench.SightglassRecord) bool { return !slices.Contains(engines, r.Engine) })
		bench.SortSightglassRecords(recs, engines)
		fmt.Fprintf(stdout, "sightglass programs: the records of %s\n\n", *from)
		if err := bench.WriteSightglassTable(stdout, recs, engines); err != nil {
			fmt.Fprintln(stderr, "sightglass:", err)
			return 1
		}
		return 0
	}
	progs, err := bench.FindSightglass(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "sightglass:", err)
		return 1
	}
	if len(progs) == 0 {
		fmt.Fprintf(stderr, "sightglass: no .wasm files in %s\n", strings.Join(fs.Args(), " "))
		return 1
	}
	opts := bench.SightglassOptions{Runs: *runs, Timeout: *timeout}
	enc := json.NewEncoder(stdout)
	var recs []bench.SightglassRecord
	for _, p := range progs {
		for _, e := range engines {
			rec := bench.RunSightglass(p, e, opts)
			if !*quiet {
				status := "ok"
				if !rec.OK {
					status = "FAILED: " + rec.Error
				} else if !rec.Checked {
					status = "ok (output unchecked)"
				}
				fmt.Fprintf(stderr, "%s %s: compile %.3gs bench %.3gs total %.3gs: %s\n",
					p.Name, e, rec.CompileSeconds, rec.BenchSeconds, rec.TotalSeconds, status)
			}
			if *asJSON {
				if err := enc.Encode(rec); err != nil {
					fmt.Fprintln(stderr, "sightglass:", err)
					return 1
				}
			}
			recs = append(recs, rec)
		}
	}
	if *asJSON {
		return 0
	}
	fmt.Fprintf(stdout, "sightglass programs: %s %s/%s, %d CPUs, wazero %s; fastest of %d runs, timeout %v\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), bench.WazeroVersion(), *runs, *timeout)
	if err := bench.WriteSightglassTable(stdout, recs, engines); err != nil {
		fmt.Fprintln(stderr, "sightglass:", err)
		return 1
	}
	return 0
}

// readRecords reads the JSON lines of a -json run.
func readRecords(file string) ([]bench.SightglassRecord, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []bench.SightglassRecord
	dec := json.NewDecoder(f)
	for {
		var r bench.SightglassRecord
		if err := dec.Decode(&r); err == io.EOF {
			return recs, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", file, len(recs)+1, err)
		}
		recs = append(recs, r)
	}
}
