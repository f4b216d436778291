// Command kiln runs, assembles, disassembles and verifies kiln bytecode.
//
//	kiln run [-tier=auto|interp|baseline|optimizing] [-func=main] [-stats] [-interpreted=F,...] [-perf-map] [-jitdump] [-global NAME=VALUE]... [LIMITS] FILE [ARG...]
//	kiln dump -stage=bytecode|ssa|nonssa|alloc|sched|asm [-tier=baseline|optimizing] [-func=NAME] FILE
//	kiln dump -html=OUT.html [-tier=baseline|optimizing] [-func=NAME] [-profile] FILE [ARG...]
//	kiln bench [-func=main] [-time=1s] [-n=N] FILE [ARG...]
//	kiln asm [-o OUT.kbc] FILE.kasm
//	kiln disasm [-o OUT.kasm] FILE.kbc
//	kiln verify FILE...
//	kiln wasm run [-tier=auto|interp|baseline|optimizing] [-dir HOST[:GUEST]]... [-env K=V]... [-fuel N] [-timeout D] [-max-memory-pages N] [-invoke NAME] MODULE.wasm|MODULE.wat [ARG...]
//	kiln wasm compile [-tier=baseline|optimizing] MODULE.wasm|MODULE.wat
//
// FILE may be in the text form (.kasm) or the binary form (.kbc); the binary
// form is recognised by its magic bytes, whatever the file name.
//
// run loads FILE, calls the exported function -func with the arguments
// parsed by its signature (i64 as decimal or 0x hex integers, f64 as
// floats), and prints each result on its own line. -stats prints to
// standard error the compile's cost and each function's tier, calls and
// edge counts (compiled code counts them as well while -stats is on:
// jit.Options.CountEdges). It provides these host
// functions to modules that import them:
//
//	putc (i64) -> ()        write the low byte to standard output
//	getc () -> (i64)        read a byte from standard input, -1 at its end
//	                        (standard output is flushed first)
//	print_i64 (i64) -> ()   write a decimal integer and a newline
//	print_f64 (f64) -> ()   write a float and a newline
//
// bench loads FILE on every tier, checks that -func returns the same
// results on each, and calls it repeatedly for -time (or -n times) per
// tier; it prints each tier's load time, the compile time of each stage,
// the time per call and its ratio to the interpreter's. The auto tier
// comes last: its calls include its tier-up, and its row ends with the
// tier it reached.
//
// run takes the embedding API's safety options as flags (LIMITS above),
// for running modules one does not trust:
//
//	-fuel N                 the call may take N backward branches and calls (jit.Options.Fuel)
//	-timeout D              a deadline, such as 100ms or 2s, on loading and on the call
//	-max-call-depth N       deepest call nesting (jit.Options.MaxCallDepth)
//	-max-memory-pages N     cap on linear memory, in 64 KiB pages (jit.Options.MaxMemoryPages);
//	                        memory.grow beyond it returns -1
//	-max-module-bytes N     largest input file (jit.Options.MaxModuleBytes)
//	-max-functions N        most functions in the module (jit.Options.MaxFunctions)
//	-max-function-instrs N  most instructions in one function (jit.Options.MaxFunctionInstrs)
//	-max-registers N        most registers in one function (jit.Options.MaxRegisters)
//	-max-compile-bytes N    estimated compile memory per function for the compiled
//	                        tiers (jit.Options.MaxCompileBytes); a module over it
//	                        runs in the interpreter, with a note on standard error
//
// Zero leaves a limit at the engine's default (no fuel limit, no timeout).
// A trap, an exhausted limit or a module over a limit is reported as one
// line on standard error naming the flag involved, for example
//
//	kiln: trap: fuel exhausted in count at instruction 2 (-fuel=1000)
//
// Interrupting kiln (Ctrl-C) stops loading or the running call at the next
// point where it checks, and kiln exits with status 130; a second Ctrl-C
// ends it at once.
//
// dump prints each function (or the one named by -func) after a stage of
// the compiler: the bytecode, the SSA machine IR after lowering, the
// machine IR out of SSA form, the machine IR after baseline register
// allocation (alloc) or after the optimizing tier's integrated scheduling
// and register assignment (sched, with its statistics), or the machine
// code with the bytecode offsets interleaved. -tier selects the pipeline
// nonssa and asm show.
//
// dump -html=OUT.html writes instead one self-contained HTML page (package
// dumphtml) with every stage of one function side by side, its
// control-flow graph and clickable names that highlight across the
// stages. -func names the function and is required when FILE has several.
// ARG values, parsed as run parses them, make kiln first call the
// function in the interpreter (host functions read no input and their
// output is discarded) so that the page shows the profile of that run;
// without them it shows the static estimate, unless -profile asks for the
// run (for a function without parameters).
//
// wasm run runs a WebAssembly module (the binary format, or the text
// format when the file does not start with the binary format's magic
// bytes) with package wasm. A WASI command (a module exporting _start,
// such as a C program built by clang --target=wasm32-wasi or a Rust one
// built for wasm32-wasip1) runs with ARG as its arguments (its own
// path first), the variables of -env as its whole environment, kiln's
// standard streams and the host directories of -dir (HOST, or HOST:GUEST
// to show it to the program as GUEST); kiln exits with the program's exit
// status. -invoke=NAME calls an export instead, with ARG parsed by its
// parameter types as run parses them, printing each result on its own
// line; a module without _start has its only exported function called
// that way. Modules may import print_i32, print_i64, print_f32 and
// print_f64 from "env" (a value and a newline on standard output) and
// a memory from any module but WASI's. A trap is reported with the
// specification's message, the function and the byte offset of the
// instruction in the module.
//
// wasm compile decodes, validates, translates and compiles every
// function of a module (-tier=optimizing by default) and prints the time
// of each stage, in total and per byte of the binary module, like
// wasmtime compile; the translator validates again, which its time
// includes.
//
// An error in a text module (.kasm or .wat) is reported as FILE:LINE: or
// FILE:LINE:COL:, where editors jump to. -h prints a command's help.
//
// Exit status: 0 on success; 1 when the program traps, runs out of fuel or
// time, a module is invalid or over a limit, or a file cannot be read; 2
// for usage errors (unknown commands or flags, bad flag values or
// arguments); 130 when interrupted; for wasm run, the program's exit
// status when it exits with one.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/cmdload"
	"github.com/kiln-jit/kiln/jit"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage:
  kiln run [-tier=auto|interp|baseline|optimizing] [-func=main] [-stats] [-interpreted=F,...] [-perf-map] [-jitdump] [-global NAME=VALUE]... [LIMITS] FILE [ARG...]
  kiln dump -stage=bytecode|ssa|nonssa|alloc|sched|asm [-tier=baseline|optimizing] [-func=NAME] FILE
  kiln dump -html=OUT.html [-tier=baseline|optimizing] [-func=NAME] [-profile] FILE [ARG...]
  kiln bench [-func=main] [-time=1s] [-n=N] FILE [ARG...]
  kiln asm [-o OUT.kbc] FILE.kasm
  kiln disasm [-o OUT.kasm] FILE.kbc
  kiln verify FILE...
` + wasmCommands + `LIMITS of run (0: the default):
  -fuel N  -timeout D  -max-call-depth N  -max-memory-pages N
  -max-module-bytes N  -max-functions N  -max-function-instrs N
  -max-registers N  -max-compile-bytes N
exit status: 0 success, 1 trap, limit or invalid file, 2 usage, 130 interrupted;
  wasm run: the program's own when it exits with one
`

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1   // a trap, an exhausted or exceeded limit, an invalid or unreadable file
	exitUsage       = 2   // an unknown command or flag, a bad flag value or argument
	exitInterrupted = 130 // interrupted (SIGINT), as shells report it
)

// errUsage marks errors that deserve exit status 2.
var errUsage = errors.New("usage error")

// run is the whole command, with its streams passed in so that tests can
// drive it. It returns the exit status. An interrupt (Ctrl-C) cancels the
// context the command runs under; a second one gets the default
// behaviour back and ends the process at once.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := cmdload.NotifyInterrupt()
	defer stop()
	return runContext(ctx, args, stdin, stdout, stderr)
}

// runContext runs the command under ctx: cancelling ctx is an interrupt.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(ctx, args[1:], stdin, stdout, stderr)
	case "asm":
		err = cmdConvert("asm", args[1:], stdout, stderr)
	case "disasm":
		err = cmdConvert("disasm", args[1:], stdout, stderr)
	case "verify":
		err = cmdVerify(args[1:], stdout)
	case "dump":
		err = cmdDump(args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(ctx, args[1:], stdout, stderr)
	case "wasm":
		err = cmdWasm(ctx, args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "kiln: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
	var exit exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit):
		return exit.code
	case errors.Is(err, errUsage):
		fmt.Fprint(stderr, usage)
		return exitUsage
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "kiln: interrupted:", err)
		return exitInterrupted
	}
	fmt.Fprintln(stderr, "kiln:", err)
	var fe flagError
	if errors.As(err, &fe) {
		return exitUsage
	}
	return exitError
}

// flagError is an error in the command line (exit status 2).
type flagError struct{ error }

// Unwrap returns the error, so that errors.Is finds flag.ErrHelp in it.
func (e flagError) Unwrap() error { return e.error }

// newFlagSet returns the flag set of command name, whose help (-h) shows
// the command's lines of the usage and its flags.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage:")
		for _, line := range strings.Split(usage, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "kiln "+name+" ") {
				fmt.Fprintln(stderr, line)
			}
		}
		fs.PrintDefaults()
	}
	return fs
}

// isBinary reports whether data is a module in the binary form, by its
// magic bytes.
func isBinary(data []byte) bool { return bytes.HasPrefix(data, []byte("\x00kln")) }

// load reads a module in either form.
func load(path string) (*bytecode.Module, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m *bytecode.Module
	if isBinary(data) {
		m, err = bytecode.Decode(data)
	} else {
		m, err = bytecode.Assemble(data)
	}
	if err != nil {
		return nil, atLine(path, err)
	}
	return m, nil
}

// lineError is an error in a line of a text module, formatted as
// FILE:LINE: MESSAGE, the form editors jump to.
type lineError struct {
	msg string
	err error
}

// Error returns the message.
func (e *lineError) Error() string { return e.msg }

// Unwrap returns the error the message was made of.
func (e *lineError) Unwrap() error { return e.err }

// atLine puts the file's name in front of err: as FILE:LINE: when err
// holds a *bytecode.SyntaxError with a line (whose "line N: " it
// replaces), as FILE: otherwise.
func atLine(path string, err error) error {
	var se *bytecode.SyntaxError
	if errors.As(err, &se) && se.Line > 0 {
		msg := err.Error()
		tag := "line " + strconv.Itoa(se.Line) + ": "
		if i := strings.Index(msg, tag); i >= 0 {
			return &lineError{msg: fmt.Sprintf("%s:%d: %s", path, se.Line, msg[i+len(tag):]), err: err}
		}
	}
	return fmt.Errorf("%s: %w", path, err)
}

func cmdConvert(mode string, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(mode, stderr)
	outPath := fs.String("o", "", "output file (default: standard output)")
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
	var out []byte
	if mode == "asm" {
		if out, err = bytecode.Encode(m); err != nil {
			return err
		}
	} else {
		out = bytecode.Disassemble(m)
	}
	if *outPath == "" {
		_, err = stdout.Write(out)
		return err
	}
	return os.WriteFile(*outPath, out, 0o644)
}

func cmdVerify(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintln(stdout, "usage: kiln verify FILE...")
		return nil
	}
	var errs []error
	for _, p := range args {
		m, err := load(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%d functions, %d instructions)\n", p, len(m.Funcs), m.Instructions())
	}
	return errors.Join(errs...)
}

// runFlags are the flags of kiln run.
type runFlags struct {
	tier    string
	fn      string
	stats   bool
	timeout time.Duration
	opts    jit.Options
	pages   uint64   // -max-memory-pages, checked before it becomes opts.MaxMemoryPages
	globals []string // -global NAME=VALUE, in order
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.tier, "tier", "auto", "execution tier: auto (the interpreter, then the optimizing tier once hot), interp, baseline or optimizing")
	fs.StringVar(&f.fn, "func", "main", "exported function to call")
	fs.BoolVar(&f.stats, "stats", false, "print per-function statistics to standard error (compiled code counts calls and edges for them)")
	fs.BoolVar(&f.opts.PerfMap, "perf-map", false, "name the compiled functions for Linux perf in /tmp/perf-PID.map")
	fs.BoolVar(&f.opts.JITDump, "jitdump", false, "record the compiled functions for perf inject --jit in /tmp/jit-PID.dump")
	fs.Int64Var(&f.opts.Fuel, "fuel", 0, "backward branches and calls the call may take (0: no limit)")
	fs.DurationVar(&f.timeout, "timeout", 0, "deadline on loading and on the call, such as 100ms (0: none)")
	fs.IntVar(&f.opts.MaxCallDepth, "max-call-depth", 0, "deepest call nesting (0: the engine's default)")
	fs.Uint64Var(&f.pages, "max-memory-pages", 0, "cap on linear memory in 64 KiB pages; memory.grow beyond it returns -1 (0: the module's maximum)")
	fs.IntVar(&f.opts.MaxModuleBytes, "max-module-bytes", 0, "largest module file in bytes (0: no limit)")
	fs.IntVar(&f.opts.MaxFunctions, "max-functions", 0, "most functions in the module (0: the format's limit)")
	fs.IntVar(&f.opts.MaxFunctionInstrs, "max-function-instrs", 0, "most instructions in one function (0: the format's limit)")
	fs.IntVar(&f.opts.MaxRegisters, "max-registers", 0, "most registers in one function (0: the format's limit)")
	fs.Func("interpreted", "comma-separated functions that stay in the interpreter while the others are compiled", func(v string) error {
		names := strings.Split(v, ",")
		f.opts.Interpreted = func(name string) bool { return slices.Contains(names, name) }
		return nil
	})
	fs.Func("global", "value of an imported global, as NAME=VALUE (repeatable)", func(v string) error {
		f.globals = append(f.globals, v)
		return nil
	})
	fs.Int64Var(&f.opts.MaxCompileBytes, "max-compile-bytes", 0, "estimated compile memory per function for the compiled tiers; a module over it runs in the interpreter (0: the default, negative: no limit)")
}

// engineOptions checks the flag values and returns the engine's options.
func (f *runFlags) engineOptions() (jit.Options, error) {
	opts := f.opts
	tier, err := jit.ParseTier(f.tier)
	if err != nil {
		return opts, err
	}
	opts.Tier = tier
	// Statistics count the compiled code's calls and edges too (a few
	// percent of run time), not only the interpreter's.
	opts.CountEdges = f.stats
	for _, v := range []struct {
		name  string
		value int64
	}{
		{"fuel", opts.Fuel},
		{"timeout", int64(f.timeout)},
		{"max-call-depth", int64(opts.MaxCallDepth)},
		{"max-module-bytes", int64(opts.MaxModuleBytes)},
		{"max-functions", int64(opts.MaxFunctions)},
		{"max-function-instrs", int64(opts.MaxFunctionInstrs)},
		{"max-registers", int64(opts.MaxRegisters)},
	} {
		if v.value < 0 {
			return opts, fmt.Errorf("-%s must not be negative", v.name)
		}
	}
	if f.pages > bytecode.MaxPages {
		return opts, fmt.Errorf("-max-memory-pages %d exceeds %d", f.pages, bytecode.MaxPages)
	}
	opts.MaxMemoryPages = uint32(f.pages)
	return opts, nil
}

// limitFlags names the flag that sets each limit a *jit.LimitError can name.
var limitFlags = map[string]string{
	"MaxModuleBytes":    "max-module-bytes",
	"MaxFunctions":      "max-functions",
	"MaxFunctionInstrs": "max-function-instrs",
	"MaxRegisters":      "max-registers",
	"MaxCompileBytes":   "max-compile-bytes",
}

// explain adds to err the flag that stopped the program, if a flag did: the
// fuel, the call depth, the timeout or a module limit.
func (f *runFlags) explain(err error) error {
	var trap *bytecode.Trap
	var limit *jit.LimitError
	switch {
	case errors.As(err, &trap) && trap.Kind == bytecode.TrapFuelExhausted:
		return fmt.Errorf("%w (-fuel=%d)", err, f.opts.Fuel)
	case errors.As(err, &trap) && trap.Kind == bytecode.TrapStackOverflow && f.opts.MaxCallDepth > 0:
		return fmt.Errorf("%w (-max-call-depth=%d)", err, f.opts.MaxCallDepth)
	case errors.Is(err, context.DeadlineExceeded) && f.timeout > 0:
		return fmt.Errorf("%w (-timeout=%v)", err, f.timeout)
	case errors.As(err, &limit) && limitFlags[limit.Limit] != "":
		return fmt.Errorf("%w (-%s=%d)", err, limitFlags[limit.Limit], limit.Max)
	}
	return err
}

// cmdRun is kiln run. The timeout, when set, covers loading (and compiling)
// the module as well as the call.
func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	var rf runFlags
	rf.register(fs)
	if err := fs.Parse(args); err != nil {
		return flagError{err}
	}
	if fs.NArg() < 1 {
		return errUsage
	}
	opts, err := rf.engineOptions()
	if err != nil {
		return flagError{err}
	}
	engine, err := jit.NewEngine(opts)
	if err != nil {
		return flagError{err}
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if rf.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, rf.timeout)
		defer cancel()
	}
	load := engine.LoadTextContext
	if isBinary(data) {
		load = engine.LoadBinaryContext
	}
	mod, err := cmdload.Load(ctx, func(ctx context.Context) (*jit.Module, error) { return load(ctx, data) })
	if err != nil {
		return atLine(path, rf.explain(err))
	}
	if mod.Tier() != opts.Tier {
		fmt.Fprintf(stderr, "kiln: running in the %s tier: %v\n", mod.Tier(), rf.explain(mod.CompileError()))
	}
	sig, found := exportedSig(mod, rf.fn)
	if !found {
		return fmt.Errorf("%s exports no function %q (exports: %s)", path, rf.fn, exportNames(mod))
	}
	callArgs, err := parseArgs(sig.Params, fs.Args()[1:])
	if err != nil {
		return flagError{fmt.Errorf("%s %s: %w", rf.fn, sig, err)}
	}
	in := bufio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	imports, err := standardHosts(mod, in, out)
	if err != nil {
		return err
	}
	if err := rf.globalImports(mod, imports); err != nil {
		return flagError{err}
	}
	inst, err := mod.Instantiate(imports)
	if err != nil {
		if rf.pages > 0 {
			err = fmt.Errorf("%w (-max-memory-pages=%d)", err, rf.pages)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	results, err := inst.Call(ctx, rf.fn, callArgs...)
	if rf.stats {
		if inst.Tier() != jit.TierInterp {
			fmt.Fprintln(stderr, inst.CompileStats())
		}
		if err := inst.TierUpError(); err != nil {
			fmt.Fprintln(stderr, err)
		}
		if d := inst.TierUpTime(); d > 0 {
			fmt.Fprintf(stderr, "tier-up: compiled in %.1f ms, %d on-stack replacements\n", float64(d.Microseconds())/1e3, inst.OSREntries())
		}
		if n, d, err := inst.Reoptimizations(); n > 0 || err != nil {
			fmt.Fprintf(stderr, "re-optimizations: %d in %.1f ms", n, float64(d.Microseconds())/1e3)
			if err != nil {
				fmt.Fprintf(stderr, ", the last failed: %v", err)
			}
			fmt.Fprintln(stderr)
		}
		printStats(stderr, inst)
	}
	if err != nil {
		return rf.explain(err)
	}
	for i, t := range sig.Results {
		fmt.Fprintln(out, formatValue(t, results[i]))
	}
	return nil
}

// exportedSig returns the signature of mod's exported function name.
func exportedSig(mod *jit.Module, name string) (bytecode.Signature, bool) {
	for _, e := range mod.Exports() {
		if e.Name == name {
			return e.Sig, true
		}
	}
	return bytecode.Signature{}, false
}

// exportNames lists mod's exported functions, quoted, with their
// signatures.
func exportNames(mod *jit.Module) string {
	var names []string
	for _, e := range mod.Exports() {
		names = append(names, fmt.Sprintf("%q %s", e.Name, e.Sig))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// globalImports adds the values the -global flags give to the module's
// imported globals to imports, each parsed as a value of the global's
// type.
func (f *runFlags) globalImports(mod *jit.Module, imports jit.Imports) error {
	for _, spec := range f.globals {
		name, value, ok := strings.Cut(spec, "=")
		if !ok {
			return fmt.Errorf("-global %q: want NAME=VALUE", spec)
		}
		i := slices.IndexFunc(mod.GlobalImports(), func(g bytecode.Global) bool { return g.Import == name })
		if i < 0 {
			return fmt.Errorf("-global %s: the module imports no global %q", spec, name)
		}
		t := mod.GlobalImports()[i].Type
		v, err := parseArgs([]bytecode.Type{t}, []string{value})
		if err != nil {
			return fmt.Errorf("-global %s: %w", spec, err)
		}
		imports[name] = jit.GlobalValue(t, v[0])
	}
	return nil
}

func parseArgs(types []bytecode.Type, args []string) ([]uint64, error) {
	if len(args) != len(types) {
		return nil, fmt.Errorf("takes %d arguments, got %d", len(types), len(args))
	}
	vals := make([]uint64, len(args))
	for i, a := range args {
		switch types[i] {
		case bytecode.I64:
			v, err := strconv.ParseInt(a, 0, 64)
			if err != nil {
				u, uerr := strconv.ParseUint(a, 0, 64)
				if uerr != nil {
					return nil, fmt.Errorf("argument %d: %q is not an i64", i+1, a)
				}
				v = int64(u)
			}
			vals[i] = uint64(v)
		case bytecode.F64:
			v, err := strconv.ParseFloat(a, 64)
			if err != nil {
				return nil, fmt.Errorf("argument %d: %q is not an f64", i+1, a)
			}
			vals[i] = math.Float64bits(v)
		case bytecode.I32:
			v, err := strconv.ParseInt(a, 0, 64)
			if err != nil || v < math.MinInt32 || v > math.MaxUint32 {
				return nil, fmt.Errorf("argument %d: %q is not an i32", i+1, a)
			}
			vals[i] = uint64(uint32(v))
		case bytecode.F32:
			v, err := strconv.ParseFloat(a, 32)
			if err != nil {
				return nil, fmt.Errorf("argument %d: %q is not an f32", i+1, a)
			}
			vals[i] = uint64(math.Float32bits(float32(v)))
		}
	}
	return vals, nil
}

func formatValue(t bytecode.Type, v uint64) string {
	switch t {
	case bytecode.F64:
		return strconv.FormatFloat(math.Float64frombits(v), 'g', -1, 64)
	case bytecode.F32:
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', -1, 32)
	case bytecode.I32:
		return strconv.FormatInt(int64(int32(uint32(v))), 10)
	}
	return strconv.FormatInt(int64(v), 10)
}

// hostFunc is one of the host functions kiln run provides.
type hostFunc struct {
	sig bytecode.Signature
	fn  func(args, results []uint64) error
}

// hostFuncs returns the host functions kiln run provides, by name,
// reading from in and writing to out.
func hostFuncs(in *bufio.Reader, out *bufio.Writer) map[string]hostFunc {
	i64 := []bytecode.Type{bytecode.I64}
	f64 := []bytecode.Type{bytecode.F64}
	return map[string]hostFunc{
		"putc": {bytecode.Signature{Params: i64}, func(a, _ []uint64) error { return out.WriteByte(byte(a[0])) }},
		"getc": {bytecode.Signature{Results: i64}, func(_, r []uint64) error {
			// Show what the program wrote so far, such as a prompt.
			if err := out.Flush(); err != nil {
				return err
			}
			c, err := in.ReadByte()
			if err == io.EOF {
				r[0] = jit.I64(-1)
				return nil
			}
			r[0] = uint64(c)
			return err
		}},
		"print_i64": {bytecode.Signature{Params: i64}, func(a, _ []uint64) error {
			_, err := fmt.Fprintln(out, int64(a[0]))
			return err
		}},
		"print_f64": {bytecode.Signature{Params: f64}, func(a, _ []uint64) error {
			_, err := fmt.Fprintln(out, formatValue(bytecode.F64, a[0]))
			return err
		}},
	}
}

// standardHosts returns the host functions the module imports, from the
// standard set; importing anything else is an error.
func standardHosts(mod *jit.Module, in *bufio.Reader, out *bufio.Writer) (jit.Imports, error) {
	available := hostFuncs(in, out)
	imports := jit.Imports{}
	for _, h := range mod.HostImports() {
		a, ok := available[h.Name]
		if !ok {
			return nil, fmt.Errorf("the module imports host function %q; kiln run provides putc, getc, print_i64 and print_f64", h.Name)
		}
		imports[h.Name] = jit.RawHost(a.sig.Params, a.sig.Results, func(_ *jit.Caller, args, results []uint64) error {
			return a.fn(args, results)
		})
	}
	return imports, nil
}

func printStats(w io.Writer, inst *jit.Instance) {
	for _, s := range inst.Stats() {
		fmt.Fprintf(w, "func %s: tier %s, %d calls, %d instructions\n", s.Name, s.Tier, s.Calls, s.Instructions)
		if s.CompileError != nil {
			fmt.Fprintf(w, "  left interpreted: %v\n", s.CompileError)
		}
		var parts []string
		for _, e := range s.Edges {
			if e.Count > 0 {
				parts = append(parts, fmt.Sprintf("%d->%d %s x%d", e.From, e.To, e.Kind, e.Count))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  edges: %s\n", strings.Join(parts, ", "))
		}
	}
}
