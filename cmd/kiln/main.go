// Command kiln runs, assembles, disassembles and verifies kiln bytecode.
//
//	kiln run [-tier=interp|baseline|optimizing] [-func=main] [-stats] FILE [ARG...]
//	kiln dump -stage=bytecode|ssa|nonssa|alloc|sched|asm [-tier=baseline|optimizing] [-func=NAME] FILE
//	kiln asm [-o OUT.kbc] FILE.kasm
//	kiln disasm [-o OUT.kasm] FILE.kbc
//	kiln verify FILE...
//
// FILE may be in the text form (.kasm) or the binary form (.kbc); the binary
// form is recognised by its magic bytes, whatever the file name.
//
// run calls the exported function -func with the arguments parsed by its
// signature (i64 as decimal or 0x hex integers, f64 as floats), and prints
// each result on its own line. It provides these host functions to modules
// that import them:
//
//	putc (i64) -> ()        write the low byte to standard output
//	getc () -> (i64)        read a byte from standard input, -1 at its end
//	print_i64 (i64) -> ()   write a decimal integer and a newline
//	print_f64 (f64) -> ()   write a float and a newline
//
// dump prints each function (or the one named by -func) after a stage of
// the compiler: the bytecode, the SSA machine IR after lowering, the
// machine IR out of SSA form, the machine IR after baseline register
// allocation (alloc) or after the optimizing tier's integrated scheduling
// and register assignment (sched, with its statistics), or the machine
// code with the bytecode offsets interleaved. -tier selects the pipeline
// nonssa and asm show.
//
// Exit status: 0 on success, 1 when the program traps or a file is invalid,
// 2 for usage errors.
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
	"os/signal"
	"strconv"
	"strings"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage:
  kiln run [-tier=interp|baseline|optimizing] [-func=main] [-stats] FILE [ARG...]
  kiln dump -stage=bytecode|ssa|nonssa|alloc|sched|asm [-tier=baseline|optimizing] [-func=NAME] FILE
  kiln asm [-o OUT.kbc] FILE.kasm
  kiln disasm [-o OUT.kasm] FILE.kbc
  kiln verify FILE...
`

// errUsage marks errors that deserve exit status 2.
var errUsage = errors.New("usage error")

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdin, stdout, stderr)
	case "asm":
		err = cmdConvert("asm", args[1:], stdout, stderr)
	case "disasm":
		err = cmdConvert("disasm", args[1:], stdout, stderr)
	case "verify":
		err = cmdVerify(args[1:], stdout)
	case "dump":
		err = cmdDump(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "kiln: unknown command %q\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprint(stderr, usage)
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintln(stderr, "kiln:", err)
	var fe flagError
	if errors.As(err, &fe) {
		return 2
	}
	return 1
}

type flagError struct{ error }

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// load reads a module in either form.
func load(path string) (*bytecode.Module, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m *bytecode.Module
	if bytes.HasPrefix(data, []byte("\x00kln")) {
		m, err = bytecode.Decode(data)
	} else {
		m, err = bytecode.Assemble(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
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
	var errs []error
	for _, p := range args {
		m, err := load(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%d functions, %d instructions)\n", p, len(m.Funcs), countInstrs(m))
	}
	return errors.Join(errs...)
}

func countInstrs(m *bytecode.Module) int {
	n := 0
	for _, f := range m.Funcs {
		n += len(f.Code)
	}
	return n
}

func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	tierName := fs.String("tier", "interp", "execution tier: interp, baseline or optimizing")
	funcName := fs.String("func", "main", "exported function to call")
	stats := fs.Bool("stats", false, "print per-function statistics to standard error")
	if err := fs.Parse(args); err != nil {
		return flagError{err}
	}
	if fs.NArg() < 1 {
		return errUsage
	}
	tier, err := jit.ParseTier(*tierName)
	if err != nil {
		return flagError{err}
	}
	m, err := load(fs.Arg(0))
	if err != nil {
		return err
	}
	engine, err := jit.NewEngine(jit.Options{Tier: tier})
	if err != nil {
		return flagError{err}
	}
	mod, err := engine.Load(m)
	if err != nil {
		return err
	}
	if mod.Tier() != tier {
		fmt.Fprintf(stderr, "kiln: running in the %s tier: %v\n", mod.Tier(), mod.CompileError())
	}
	fnIdx := m.ExportedFunc(*funcName)
	if fnIdx < 0 {
		return fmt.Errorf("%s exports no function %q", fs.Arg(0), *funcName)
	}
	sig := m.Funcs[fnIdx].Sig
	callArgs, err := parseArgs(sig.Params, fs.Args()[1:])
	if err != nil {
		return flagError{fmt.Errorf("%s %s: %w", *funcName, sig, err)}
	}
	in := bufio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	imports, err := standardHosts(mod, in, out)
	if err != nil {
		return err
	}
	inst, err := mod.Instantiate(imports)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	results, err := inst.Call(ctx, *funcName, callArgs...)
	if *stats {
		printStats(stderr, inst)
	}
	if err != nil {
		return err
	}
	for i, t := range sig.Results {
		fmt.Fprintln(out, formatValue(t, results[i]))
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
		}
	}
	return vals, nil
}

func formatValue(t bytecode.Type, v uint64) string {
	if t == bytecode.F64 {
		return strconv.FormatFloat(math.Float64frombits(v), 'g', -1, 64)
	}
	return strconv.FormatInt(int64(v), 10)
}

// standardHosts returns the host functions the module imports, from the
// standard set; importing anything else is an error.
func standardHosts(mod *jit.Module, in *bufio.Reader, out *bufio.Writer) (jit.Imports, error) {
	i64 := []bytecode.Type{bytecode.I64}
	f64 := []bytecode.Type{bytecode.F64}
	available := map[string]jit.HostFunction{
		"putc": jit.RawHost(i64, nil, func(_ *jit.Caller, a, _ []uint64) error { return out.WriteByte(byte(a[0])) }),
		"getc": jit.RawHost(nil, i64, func(_ *jit.Caller, _, r []uint64) error {
			c, err := in.ReadByte()
			if err == io.EOF {
				r[0] = jit.I64(-1)
				return nil
			}
			r[0] = uint64(c)
			return err
		}),
		"print_i64": jit.RawHost(i64, nil, func(_ *jit.Caller, a, _ []uint64) error {
			_, err := fmt.Fprintln(out, int64(a[0]))
			return err
		}),
		"print_f64": jit.RawHost(f64, nil, func(_ *jit.Caller, a, _ []uint64) error {
			_, err := fmt.Fprintln(out, formatValue(bytecode.F64, a[0]))
			return err
		}),
	}
	imports := jit.Imports{}
	for _, h := range mod.HostImports() {
		fn, ok := available[h.Name]
		if !ok {
			return nil, fmt.Errorf("the module imports host function %q; kiln run provides putc, getc, print_i64 and print_f64", h.Name)
		}
		imports[h.Name] = fn
	}
	return imports, nil
}

func printStats(w io.Writer, inst *jit.Instance) {
	for _, s := range inst.Stats() {
		fmt.Fprintf(w, "func %s: tier %s, %d calls, %d instructions\n", s.Name, s.Tier, s.Calls, s.Instructions)
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
