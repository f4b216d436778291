package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/cmdload"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/text"
	"github.com/kiln-jit/kiln/wasm/translate"
	"github.com/kiln-jit/kiln/wasm/validate"
	"github.com/kiln-jit/kiln/wasm/wasi"
)

// wasmCommands are the usage lines of kiln wasm.
const wasmCommands = `  kiln wasm run [-tier=auto|interp|baseline|optimizing] [-dir HOST[:GUEST]]... [-env K=V]... [-fuel N] [-timeout D] [-max-memory-pages N] [-invoke NAME] MODULE.wasm|MODULE.wat [ARG...]
  kiln wasm compile [-tier=baseline|optimizing] MODULE.wasm|MODULE.wat
`

// wasmUsage is the usage of kiln wasm.
const wasmUsage = "usage:\n" + wasmCommands

// exitStatus is the error of a program that exited with a status other
// than 0: kiln exits with the same status, printing nothing.
type exitStatus struct{ code int }

// Error returns the status.
func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// cmdWasm is kiln wasm: run or compile.
func cmdWasm(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, wasmUsage)
		return flagError{errors.New("wasm: no command: run or compile")}
	}
	switch args[0] {
	case "run":
		return cmdWasmRun(ctx, args[1:], stdin, stdout, stderr)
	case "compile":
		return cmdWasmCompile(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, wasmUsage)
		return nil
	}
	fmt.Fprint(stderr, wasmUsage)
	return flagError{fmt.Errorf("wasm: unknown command %q", args[0])}
}

// wasmRunFlags are the flags of kiln wasm run.
type wasmRunFlags struct {
	tier     string
	dirs     []string
	env      []string
	fuel     int64
	timeout  time.Duration
	maxPages uint64
	invoke   string
}

func (f *wasmRunFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.tier, "tier", "auto", "execution tier: auto (the interpreter, then the optimizing tier once hot), interp, baseline or optimizing")
	fs.Func("dir", "a host directory the program may use, as HOST or HOST:GUEST (the path the program knows it by; default HOST) (repeatable)", func(v string) error {
		if v == "" || strings.HasPrefix(v, ":") {
			return errors.New("want HOST or HOST:GUEST")
		}
		f.dirs = append(f.dirs, v)
		return nil
	})
	fs.Func("env", "a variable of the program's environment, as KEY=VALUE (repeatable; nothing of kiln's own environment is passed)", func(v string) error {
		if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
			return errors.New("want KEY=VALUE")
		}
		f.env = append(f.env, v)
		return nil
	})
	fs.Int64Var(&f.fuel, "fuel", 0, "backward branches and calls each call from kiln may make (0: no limit)")
	fs.DurationVar(&f.timeout, "timeout", 0, "deadline on loading and running, such as 2s (0: none)")
	fs.Uint64Var(&f.maxPages, "max-memory-pages", 0, "cap on the memory in 64 KiB pages, below the module's maximum (0: the module's)")
	fs.StringVar(&f.invoke, "invoke", "", "call this exported function with ARGs and print its results, instead of running the WASI command's _start")
}

// runtimeConfig checks the flags and returns the runtime's configuration.
func (f *wasmRunFlags) runtimeConfig() (wasm.RuntimeConfig, error) {
	tier, err := jit.ParseTier(f.tier)
	if err != nil {
		return wasm.RuntimeConfig{}, err
	}
	if f.fuel < 0 || f.timeout < 0 {
		return wasm.RuntimeConfig{}, errors.New("-fuel and -timeout must not be negative")
	}
	if f.maxPages > bytecode.MaxPages {
		return wasm.RuntimeConfig{}, fmt.Errorf("-max-memory-pages %d exceeds %d", f.maxPages, bytecode.MaxPages)
	}
	return wasm.RuntimeConfig{
		Engine: jit.Options{Tier: tier, Fuel: f.fuel, MaxMemoryPages: uint32(f.maxPages)},
		WASI:   true,
	}, nil
}

// explain adds to err the flag that stopped the program, if one did.
func (f *wasmRunFlags) explain(err error) error {
	var trap *bytecode.Trap
	switch {
	case errors.As(err, &trap) && trap.Kind == bytecode.TrapFuelExhausted:
		return fmt.Errorf("%w (-fuel=%d)", err, f.fuel)
	case errors.Is(err, context.DeadlineExceeded) && f.timeout > 0:
		return fmt.Errorf("%w (-timeout=%v)", err, f.timeout)
	}
	return err
}

// moduleConfig is what the program sees: its arguments (the module's
// path first), environment, streams and directories.
func (f *wasmRunFlags) moduleConfig(path string, args []string, stdin io.Reader, stdout, stderr io.Writer) wasm.ModuleConfig {
	cfg := wasm.NewModuleConfig().
		WithArgs(append([]string{path}, args...)...).
		WithStdin(stdin).WithStdout(stdout).WithStderr(stderr).
		WithStartFunctions()
	for _, kv := range f.env {
		k, v, _ := strings.Cut(kv, "=")
		cfg = cfg.WithEnv(k, v)
	}
	for _, d := range f.dirs {
		host, guest, ok := strings.Cut(d, ":")
		if !ok || guest == "" {
			guest = host
		}
		cfg = cfg.WithDirMount(host, guest)
	}
	return cfg
}

// cmdWasmRun is kiln wasm run.
func cmdWasmRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("wasm run", stderr)
	var f wasmRunFlags
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return flagError{err}
	}
	if fs.NArg() < 1 {
		fs.Usage()
		return flagError{errors.New("wasm run: no module")}
	}
	cfg, err := f.runtimeConfig()
	if err != nil {
		return flagError{err}
	}
	path := fs.Arg(0)
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	rt, err := wasm.NewRuntime(ctx, cfg)
	if err != nil {
		return err
	}
	defer rt.Close(context.Background())
	compiled, err := rt.CompileModule(ctx, src)
	if err != nil {
		return positioned(path, err)
	}
	if err := hostModules(ctx, rt, compiled, stdout); err != nil {
		return err
	}
	// Without -invoke, a WASI command runs its _start; a module that is
	// no command has its only exported function called.
	name, command := f.invoke, false
	if name == "" {
		if _, ok := compiled.ExportedFunction("_start"); ok {
			name, command = "_start", true
		} else if name, err = onlyFunction(compiled); err != nil {
			return flagError{fmt.Errorf("%s: %w", path, err)}
		}
	}
	progArgs := fs.Args()[1:]
	var ft wasm.FunctionType
	var vals []uint64
	if name != "" {
		var ok bool
		if ft, ok = compiled.ExportedFunction(name); !ok {
			return flagError{fmt.Errorf("%s: no exported function %q (exports: %s)", path, name, compiled.ExportedFunctionList())}
		}
		if !command {
			if vals, err = parseArgs(kilnTypes(ft.Params), progArgs); err != nil {
				return flagError{fmt.Errorf("%s %s: %w", name, ft, err)}
			}
			progArgs = nil
		}
	} else if len(progArgs) > 0 {
		return flagError{fmt.Errorf("%s exports no function to pass the arguments to", path)}
	}
	var mod *wasm.Module
	modCfg := f.moduleConfig(path, progArgs, stdin, stdout, stderr)
	if !command {
		// A reactor's initialization, if it has one.
		modCfg = modCfg.WithStartFunctions("_initialize")
	}
	_, err = cmdload.Load(ctx, func(ctx context.Context) (*jit.Module, error) {
		var err error
		mod, err = rt.InstantiateModule(ctx, compiled, modCfg)
		return nil, err
	})
	if err == nil && name != "" {
		var results []uint64
		if fn := mod.ExportedFunction(name); fn == nil {
			err = fmt.Errorf("the instance has no function %q", name)
		} else {
			results, err = fn.Call(ctx, vals...)
		}
		if err == nil {
			for i, t := range ft.Results {
				fmt.Fprintln(stdout, formatValue(kilnTypes([]binary.ValType{t})[0], results[i]))
			}
		}
	}
	var exit *wasi.ExitError
	switch {
	case errors.As(err, &exit) && exit.Code == 0:
		return nil
	case errors.As(err, &exit):
		return exitStatus{int(exit.Code)}
	case err != nil:
		return fmt.Errorf("%s: %w", path, f.explain(err))
	}
	return nil
}

// onlyFunction returns the name of the module's only exported function,
// "" when it exports none.
func onlyFunction(c *wasm.CompiledModule) (string, error) {
	name := ""
	for _, e := range c.Exports() {
		if e.Kind != wasm.ExternFunc {
			continue
		}
		if name != "" {
			return "", fmt.Errorf("the module exports several functions and no _start; choose one with -invoke (exports: %s)", c.ExportedFunctionList())
		}
		name = e.Name
	}
	return name, nil
}

// kilnTypes returns the kiln types of WebAssembly value types, for
// parsing and printing values as kiln run does.
func kilnTypes(ts []wasm.ValueType) []bytecode.Type {
	out := make([]bytecode.Type, len(ts))
	for i, t := range ts {
		switch t {
		case wasm.ValueTypeI32:
			out[i] = bytecode.I32
		case wasm.ValueTypeF32:
			out[i] = bytecode.F32
		case wasm.ValueTypeF64:
			out[i] = bytecode.F64
		default:
			out[i] = bytecode.I64
		}
	}
	return out
}

// hostModules provides the "env" module's print functions (print_i32,
// print_i64, print_f32, print_f64: a value and a newline on standard
// output), and a fresh memory for a memory the module imports from a
// module other than WASI (a C program linked with --import-memory, say),
// of the size it declares.
func hostModules(ctx context.Context, rt *wasm.Runtime, c *wasm.CompiledModule, stdout io.Writer) error {
	builders := map[string]*wasm.HostModuleBuilder{}
	builder := func(name string) *wasm.HostModuleBuilder {
		if builders[name] == nil {
			builders[name] = rt.NewHostModuleBuilder(name)
		}
		return builders[name]
	}
	env := builder("env")
	for _, t := range []wasm.ValueType{wasm.ValueTypeI32, wasm.ValueTypeI64, wasm.ValueTypeF32, wasm.ValueTypeF64} {
		kt := kilnTypes([]wasm.ValueType{t})[0]
		env.NewFunctionBuilder().WithRawFunc(func(_ *wasm.Caller, args, _ []uint64) error {
			_, err := fmt.Fprintln(stdout, formatValue(kt, args[0]))
			return err
		}, []wasm.ValueType{t}, nil).Export("print_" + t.String())
	}
	for _, im := range c.Imports() {
		if im.Kind == wasm.ExternMemory && im.Module != wasi.ModuleName {
			builder(im.Module).ExportMemory(im.Name, im.Limits)
		}
	}
	for _, b := range builders {
		if _, err := b.Instantiate(ctx); err != nil {
			return err
		}
	}
	return nil
}

// positioned rewrites an error in a text module as FILE:LINE:COL: MSG,
// where editors jump to; other errors get the file's name in front.
func positioned(path string, err error) error {
	var te *text.Error
	if errors.As(err, &te) {
		return fmt.Errorf("%s:%d:%d: %s", path, te.Line, te.Col, te.Msg)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// cmdWasmCompile is kiln wasm compile: it decodes, validates, translates
// and compiles every function of a module, and prints the time each
// stage took, in total and per byte of the binary module.
func cmdWasmCompile(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("wasm compile", stderr)
	tierName := fs.String("tier", "optimizing", "the compiled tier: baseline or optimizing")
	if err := fs.Parse(args); err != nil {
		return flagError{err}
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return flagError{errors.New("wasm compile: want one module")}
	}
	tier, err := jit.ParseTier(*tierName)
	if err != nil {
		return flagError{err}
	}
	if tier != jit.TierBaseline && tier != jit.TierOptimizing {
		return flagError{fmt.Errorf("-tier=%s compiles nothing: choose baseline or optimizing", tier)}
	}
	path := fs.Arg(0)
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(src) == 0 {
		return fmt.Errorf("%s: empty file: not a module", path)
	}
	type stage struct {
		name string
		d    time.Duration
	}
	var stages []stage
	timed := func(name string, fn func() error) error {
		start := time.Now()
		err := fn()
		stages = append(stages, stage{name, time.Since(start)})
		return err
	}
	bin := src
	if !wasm.IsBinary(src) {
		if err := timed("parse text", func() (err error) { bin, err = text.ToBinary(src); return err }); err != nil {
			return positioned(path, err)
		}
	}
	var bm *binary.Module
	if err := timed("decode", func() (err error) { bm, err = binary.Decode(bin); return err }); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := timed("validate", func() error { return validate.Module(bm) }); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var tm *translate.Module
	if err := timed("translate", func() (err error) { tm, err = translate.Translate(bm, translate.Options{}); return err }); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	engine, err := jit.NewEngine(jit.Options{Tier: tier})
	if err != nil {
		return err
	}
	var mod *jit.Module
	err = timed("compile", func() error {
		var globals []uint64
		for _, im := range tm.Imports {
			if im.Kind == binary.ExternGlobal {
				globals = append(globals, 0)
			}
		}
		km, err := tm.Resolve(globals)
		if err != nil {
			return err
		}
		mod, err = cmdload.Load(ctx, func(ctx context.Context) (*jit.Module, error) { return engine.LoadContext(ctx, km) })
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := mod.CompileError(); err != nil {
		return fmt.Errorf("%s: the %s tier cannot compile it here: %w", path, tier, err)
	}
	cs := mod.CompileStats()
	fmt.Fprintf(stdout, "%s: %d bytes, %d functions; %d instructions of kiln bytecode compiled to %d bytes of machine code (%s)\n",
		path, len(bin), cs.Functions, cs.Instructions, cs.CodeBytes, tier)
	var total time.Duration
	for _, s := range stages {
		total += s.d
		fmt.Fprintf(stdout, "%-11s %10.3f ms %10.1f ns/byte\n", s.name, float64(s.d.Nanoseconds())/1e6, float64(s.d.Nanoseconds())/float64(len(bin)))
	}
	fmt.Fprintf(stdout, "%-11s %10.3f ms %10.1f ns/byte\n", "total", float64(total.Nanoseconds())/1e6, float64(total.Nanoseconds())/float64(len(bin)))
	fmt.Fprintln(stdout, cs)
	return nil
}
