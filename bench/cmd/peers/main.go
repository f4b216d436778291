// Command peers prints kiln's peer comparison as a table: every program
// (Brainfuck programs, kiln's benchmark kernels and the C programs
// compiled to WebAssembly) in every configuration (kiln's tiers, wazero's
// compiler and interpreter, native Go, gcc), with the time of one run, its
// ratio to the native build where the program has one (native Go for the
// kernels, gcc -O2 for the C programs), to wazero's compiler and to
// wazero's interpreter, and the geometric means of the ratios per kind of
// program. When C programs are among those run, a second table gives the
// time kiln (front end and load in each tier) and wazero (CompileModule)
// take to compile their modules, per byte of the module.
//
// Each configuration's time is the fastest of -n samples; configurations
// take turns sample by sample so that machine noise hits all alike. Every
// output or result is checked before it is timed.
//
// Usage, from the bench directory:
//
//	go run ./cmd/peers [-n=5] [-programs=primes,fib,c/*] [-configs=kiln-baseline,wazero-compiler]
//	go run ./cmd/peers -sightglass -compile-n=3 [-configs=...]
//
// -sightglass prints only the compile table, for the sightglass modules
// of testdata/sightglass (real programs compiled by others), with the
// geometric means of each configuration's ratios to wazero's compiler.
//
// -programs takes names (NAME or KIND/NAME) and kinds (KIND/*: bf/*,
// kernel/*, c/*).
package main

import (
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
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reps := fs.Int("n", 5, "samples per configuration; the fastest is kept")
	programs := fs.String("programs", "", "comma-separated programs to run, as NAME, KIND/NAME or KIND/* (default: all)")
	configNames := fs.String("configs", "", "comma-separated configurations to run (default: all available)")
	sample := fs.Duration("sample", 20*time.Millisecond, "least duration of one sample")
	minRun := fs.Duration("min-run", bench.MinRun, "do not time programs whose fastest run is shorter (0: time all)")
	bfDir := fs.String("bf-dir", bench.BFDir(), "directory of the shared Brainfuck programs")
	small := fs.Bool("small", false, "run the kernels and the C programs at their small test arguments")
	compileReps := fs.Int("compile-n", 20, "compile samples per configuration for the C programs; the fastest is kept")
	quiet := fs.Bool("q", false, "do not report progress on standard error")
	sightglass := fs.Bool("sightglass", false, "print only the compile table of the sightglass modules (testdata/sightglass; use -compile-n=3 or so: the largest take seconds)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || *reps < 1 || *compileReps < 1 {
		fs.Usage()
		return 2
	}
	if *sightglass {
		return runSightglass(stdout, stderr, *configNames, *compileReps)
	}
	progs, notes, err := bench.AllPrograms(*bfDir, *small)
	if err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 1
	}
	if progs, err = selectPrograms(progs, *programs); err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 2
	}
	configs, configNotes := bench.Configs()
	notes = append(configNotes, notes...)
	if configs, err = selectConfigs(configs, *configNames); err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 2
	}
	opts := bench.MeasureOptions{Reps: *reps, Sample: *sample, MinRun: *minRun}
	if !*quiet {
		opts.Log = stderr
	}
	results, err := bench.Measure(progs, configs, opts)
	if err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 1
	}
	compiles, err := bench.MeasureCompile(progs, configs, *compileReps)
	if err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 1
	}
	fmt.Fprintf(stdout, "kiln peer benchmarks: %s %s/%s, %d CPUs, wazero %s; fastest of %d samples of at least %v\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), bench.WazeroVersion(), *reps, *sample)
	for _, n := range notes {
		fmt.Fprintln(stdout, "note:", n)
	}
	fmt.Fprintln(stdout)
	if err := bench.WriteTable(stdout, results, configs); err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 1
	}
	if len(compiles) > 0 {
		fmt.Fprintf(stdout, "\ncompile time of the C programs' modules, fastest of %d samples:\n\n", *compileReps)
		if err := bench.WriteCompileTable(stdout, compiles, configs); err != nil {
			fmt.Fprintln(stderr, "peers:", err)
			return 1
		}
	}
	return 0
}

// runSightglass prints the compile table of the sightglass modules in the
// configurations named in configNames (all when it is empty), the fastest
// of reps samples each.
func runSightglass(stdout, stderr io.Writer, configNames string, reps int) int {
	progs, err := bench.SightglassModules()
	if err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 1
	}
	configs, notes := bench.Configs()
	if configs, err = selectConfigs(configs, configNames); err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 2
	}
	compiles, err := bench.MeasureCompile(progs, configs, reps)
	if err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 1
	}
	fmt.Fprintf(stdout, "compile time of the sightglass modules: %s %s/%s, %d CPUs, wazero %s; fastest of %d samples\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), bench.WazeroVersion(), reps)
	for _, n := range notes {
		fmt.Fprintln(stdout, "note:", n)
	}
	fmt.Fprintln(stdout)
	if err := bench.WriteCompileTable(stdout, compiles, configs); err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 1
	}
	return 0
}

// selectPrograms keeps the programs named in list (all when it is empty):
// by name, by kind and name, or by kind (KIND/*).
func selectPrograms(progs []*bench.Program, list string) ([]*bench.Program, error) {
	if list == "" {
		return progs, nil
	}
	var out []*bench.Program
	for _, name := range strings.Split(list, ",") {
		found := false
		for _, p := range progs {
			match := p.Name == name || p.String() == name || p.Kind+"/*" == name
			if match && !slices.Contains(out, p) {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no program %q", name)
		}
	}
	return out, nil
}

// selectConfigs keeps the configurations named in list (all when it is
// empty), in table order.
func selectConfigs(configs []*bench.Config, list string) ([]*bench.Config, error) {
	if list == "" {
		return configs, nil
	}
	names := strings.Split(list, ",")
	for _, n := range names {
		if !slices.ContainsFunc(configs, func(c *bench.Config) bool { return c.Name == n }) {
			return nil, fmt.Errorf("no available configuration %q", n)
		}
	}
	return slices.DeleteFunc(configs, func(c *bench.Config) bool { return !slices.Contains(names, c.Name) }), nil
}
