// Command wasm runs WebAssembly modules (1.0, and the parts of 2.0 the
// front end supports: see package wasm/validate) on kiln with its
// WebAssembly front end: it decodes and validates a module (packages wasm/binary and
// wasm/validate; a module in the text format, one that does not start
// with the binary format's magic bytes, is parsed first by package
// wasm/text), translates it to kiln bytecode (package wasm/translate),
// instantiates it, running its start function (package wasm/link), calls
// an exported function with the arguments given on the command line and
// prints each result on its own line.
//
// Usage:
//
//	go run ./examples/wasm [-tier=auto|interp|baseline|optimizing] [-invoke=NAME] [-fuel=N] [-timeout=D] [-max-memory-pages=N] MODULE.wasm|MODULE.wat [ARGS...]
//
// Without -invoke, the module's only exported function is called (a
// module that exports several needs -invoke; one that exports none is
// just instantiated). Arguments are parsed by the function's parameter
// types: integers in decimal (or 0x hexadecimal; an i32 may also be given
// as an unsigned value below 2^32), floats as Go's strconv.ParseFloat
// reads them ("1.5", "-inf", "nan"). Results are printed as signed
// decimal integers, and floats as strconv.FormatFloat(v, 'g', -1, bits)
// formats them.
//
// The module may import nothing but the functions of the "env" module
// this command provides: print_i32, print_i64, print_f32, print_f64
// (printing their argument on standard output as results are printed).
//
// -fuel bounds the backward branches and calls the call may make,
// -timeout the time loading and running may take, and -max-memory-pages
// what memory.grow may reach (a module without a declared maximum may
// otherwise grow to 4 GiB).
//
// A trap is reported with the specification's message ("integer divide by
// zero"), the kiln function and the byte offset in the module of the
// instruction that trapped. The exit status is 0 on success, 1 for a
// trap or any other error, 2 for usage errors and 130 when interrupted.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kiln-jit/kiln/internal/cmdload"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/text"
	"github.com/kiln-jit/kiln/wasm/translate"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// config is what the flags select.
type config struct {
	tier     jit.Tier
	invoke   string
	fuel     int64
	timeout  time.Duration
	maxPages uint
}

// usageError is an error in the command line rather than in the module.
type usageError struct{ msg string }

// Error returns the message.
func (e *usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := cmdload.NotifyInterrupt()
	defer stop()
	return runContext(ctx, args, stdout, stderr)
}

func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tierName := fs.String("tier", "auto", "execution tier: auto (the interpreter, then the optimizing tier once hot), interp, baseline or optimizing")
	var cfg config
	fs.StringVar(&cfg.invoke, "invoke", "", "the exported function to call (default: the only one)")
	fs.Int64Var(&cfg.fuel, "fuel", 0, "backward branches and calls the call may make (0: no limit)")
	fs.DurationVar(&cfg.timeout, "timeout", 0, "deadline on loading and running, such as 2s (0: none)")
	fs.UintVar(&cfg.maxPages, "max-memory-pages", 0, "cap on the memory in 64 KiB pages, below the module's maximum (0: the module's)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: wasm [-tier=auto|interp|baseline|optimizing] [-invoke=NAME] [-fuel=N] [-timeout=D] [-max-memory-pages=N] MODULE.wasm|MODULE.wat [ARGS...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() < 1 {
		fs.Usage()
		return exitUsage
	}
	var err error
	if cfg.tier, err = jit.ParseTier(*tierName); err != nil {
		fmt.Fprintln(stderr, "wasm:", err)
		return exitUsage
	}
	if cfg.maxPages > 65536 {
		fmt.Fprintln(stderr, "wasm: -max-memory-pages must be at most 65536")
		return exitUsage
	}
	if cfg.fuel < 0 || cfg.timeout < 0 {
		fmt.Fprintln(stderr, "wasm: -fuel and -timeout must not be negative")
		return exitUsage
	}
	path := fs.Arg(0)
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "wasm:", err)
		return exitError
	}
	err = execute(ctx, src, fs.Args()[1:], cfg, stdout)
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "wasm: %s: %v\n", path, err)
		return exitUsage
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "wasm: interrupted: %s: %v\n", path, err)
		return exitInterrupted
	}
	fmt.Fprintf(stderr, "wasm: %s: %v\n", path, err)
	return exitError
}

// execute decodes, translates, instantiates and calls.
func execute(ctx context.Context, src []byte, args []string, cfg config, stdout io.Writer) error {
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}
	if !bytes.HasPrefix(src, []byte(binary.Magic)) {
		b, err := text.ToBinary(src)
		if err != nil {
			return fmt.Errorf("text format: %w", err)
		}
		src = b
	}
	bm, err := binary.Decode(src)
	if err != nil {
		return err
	}
	tm, err := translate.Translate(bm, translate.Options{})
	if err != nil {
		return err
	}
	name, export, err := pickExport(tm, cfg.invoke)
	if err != nil {
		return err
	}
	var params []binary.ValType
	if export != nil {
		params = export.Func.Params
	}
	if export == nil && len(args) > 0 {
		return &usageError{"the module exports no function to pass the arguments to"}
	}
	if len(args) != len(params) {
		return &usageError{fmt.Sprintf("%s takes %d arguments %s, got %d", name, len(params), export.Func, len(args))}
	}
	vals := make([]uint64, len(args))
	for i, a := range args {
		if vals[i], err = parseValue(params[i], a); err != nil {
			return &usageError{fmt.Sprintf("argument %d: %v", i+1, err)}
		}
	}
	engine, err := jit.NewEngine(jit.Options{Tier: cfg.tier, Fuel: cfg.fuel, MaxMemoryPages: uint32(cfg.maxPages)})
	if err != nil {
		return err
	}
	var inst *link.Instance
	_, err = cmdload.Load(ctx, func(ctx context.Context) (*jit.Module, error) {
		var err error
		inst, err = link.Instantiate(ctx, engine, tm, envImports(stdout, tm, uint32(cfg.maxPages)))
		return nil, err
	})
	if err != nil {
		return describe(tm, err)
	}
	if export == nil {
		return nil
	}
	results, err := inst.Call(ctx, name, vals...)
	if err != nil {
		return describe(tm, err)
	}
	for i, r := range results {
		fmt.Fprintln(stdout, formatValue(export.Func.Results[i], r))
	}
	return nil
}

// pickExport finds the function to call: the named one, or the only one.
func pickExport(m *translate.Module, name string) (string, *translate.Export, error) {
	if name != "" {
		e, ok := m.Export(name)
		if !ok || e.Kind != binary.ExternFunc {
			return "", nil, &usageError{fmt.Sprintf("no exported function %q (exports: %s)", name, exportList(m))}
		}
		return name, e, nil
	}
	var found *translate.Export
	for i := range m.Exports {
		if e := &m.Exports[i]; e.Kind == binary.ExternFunc {
			if found != nil {
				return "", nil, &usageError{fmt.Sprintf("the module exports several functions; choose one with -invoke (exports: %s)", exportList(m))}
			}
			found = e
		}
	}
	if found == nil {
		return "", nil, nil
	}
	return found.Name, found, nil
}

func exportList(m *translate.Module) string {
	var names []string
	for _, e := range m.Exports {
		if e.Kind == binary.ExternFunc {
			names = append(names, strconv.Quote(e.Name))
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// describe rewords a trap with the specification's message and where in
// the module it happened.
func describe(m *translate.Module, err error) error {
	trap, ok := translate.TrapOf(err)
	if !ok {
		return err
	}
	msg := translate.TrapMessage(trap.Kind)
	where := fmt.Sprintf("in %s", trap.FuncName)
	if off, ok := m.SourceOffset(trap); ok {
		where += fmt.Sprintf(" at byte 0x%x", off)
	}
	if trap.Cause != nil {
		return fmt.Errorf("trap: %s %s: %w", msg, where, trap.Cause)
	}
	return fmt.Errorf("trap: %s %s", msg, where)
}

// parseValue parses a command-line argument as a value of type t.
func parseValue(t binary.ValType, s string) (uint64, error) {
	switch t {
	case binary.I32:
		if v, err := strconv.ParseInt(s, 0, 32); err == nil {
			return uint64(uint32(int32(v))), nil
		}
		v, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			return 0, fmt.Errorf("%q is not an i32", s)
		}
		return v, nil
	case binary.I64:
		if v, err := strconv.ParseInt(s, 0, 64); err == nil {
			return uint64(v), nil
		}
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not an i64", s)
		}
		return v, nil
	case binary.F32:
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return 0, fmt.Errorf("%q is not an f32", s)
		}
		return uint64(math.Float32bits(float32(v))), nil
	case binary.F64:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not an f64", s)
		}
		return math.Float64bits(v), nil
	}
	return 0, fmt.Errorf("unknown type %s", t)
}

// formatValue formats a value of type t for output.
func formatValue(t binary.ValType, v uint64) string {
	switch t {
	case binary.I32:
		return strconv.FormatInt(int64(int32(v)), 10)
	case binary.I64:
		return strconv.FormatInt(int64(v), 10)
	case binary.F32:
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', -1, 32)
	case binary.F64:
		return strconv.FormatFloat(math.Float64frombits(v), 'g', -1, 64)
	}
	return strconv.FormatUint(v, 10)
}

// envImports provides the "env" module's print functions, and a fresh
// memory or table for a memory or table the module imports (a C program
// linked with --import-memory, say), of the size the module declares; an
// imported memory's maximum is capped at maxPages when that is not 0.
func envImports(stdout io.Writer, tm *translate.Module, maxPages uint32) link.Resolver {
	printer := func(t binary.ValType) *link.Func {
		return &link.Func{
			Type: binary.FuncType{Params: []binary.ValType{t}},
			Fn: func(_ *jit.Caller, args, _ []uint64) error {
				_, err := fmt.Fprintln(stdout, formatValue(t, args[0]))
				return err
			},
		}
	}
	env := link.Imports{"env": {
		"print_i32": printer(binary.I32),
		"print_i64": printer(binary.I64),
		"print_f32": printer(binary.F32),
		"print_f64": printer(binary.F64),
	}}
	for _, im := range tm.Imports {
		var x link.Extern
		switch im.Kind {
		case binary.ExternMemory:
			l := im.Memory
			if maxPages > 0 && (!l.HasMax || l.Max > maxPages) && l.Min <= maxPages {
				l.Max, l.HasMax = maxPages, true
			}
			if m, err := link.NewMemory(l); err == nil {
				x = m
			}
		case binary.ExternTable:
			if t, err := link.NewTable(im.Table.Limits); err == nil {
				x = t
			}
		}
		if x != nil {
			if env[im.Module] == nil {
				env[im.Module] = map[string]link.Extern{}
			}
			env[im.Module][im.Name] = x
		}
	}
	return env.Resolve
}
