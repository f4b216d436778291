package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kiln-jit/kiln/bench/bf"
	"github.com/kiln-jit/kiln/bench/kernels"
	"github.com/kiln-jit/kiln/bench/wasm"
	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/link"
)

// The configurations, in table order. Native and Wazero are the
// references of the ratios x-native and x-wazero.
const (
	KilnInterp     = "kiln-interp"
	KilnBaseline   = "kiln-baseline"
	KilnOptimizing = "kiln-optimizing"
	// KilnAuto is the auto tier: the interpreter first, the optimizing
	// tier once hot (on-stack replacement moves a running call), measured
	// on one instance across the runs like the other tiers.
	KilnAuto = "kiln-auto"
	// KilnOptimizingSource is the optimizing tier with every block kept in
	// its instruction order (registers still assigned by the integrated
	// pass): what latency scheduling gains.
	KilnOptimizingSource = "kiln-optimizing-source"
	// KilnOptimizingSeparate is the optimizing tier with the separate
	// pipeline (prepass scheduling, linear scan, postpass scheduling) in
	// place of the integrated pass.
	KilnOptimizingSeparate = "kiln-optimizing-separate"
	// KilnOptimizingParallel is the optimizing tier compiling a module's
	// functions on GOMAXPROCS workers; the other kiln configurations
	// compile on one, as wazero's compiler does, so that the compile
	// times compare single-threaded.
	KilnOptimizingParallel = "kiln-optimizing-parallel"
	Wazero                 = "wazero-compiler"
	WazeroInterp           = "wazero-interp"
	Native                 = "native"
	GCC                    = "gcc"
)

// Config is a way to run programs: a kiln tier, a wazero engine, native
// Go or gcc.
type Config struct {
	Name string
	// prepare returns a runner of p, or nil when the configuration does
	// not run programs of p's kind (native Go has no Brainfuck twin, gcc
	// no kernel twin).
	prepare func(p *Program) (Runner, error)
	// compile compiles a C program's WebAssembly module once (see
	// CompileTime); nil for the configurations that run no WebAssembly.
	compile func(p *Program) (front, back time.Duration, err error)
}

// Runner runs one program in one configuration.
type Runner interface {
	// Run runs the program n times and returns the time the runs took,
	// without the resets between runs (clearing the tape and the output).
	// It checks every run's output (Brainfuck) or result (kernels)
	// against the expected one and fails on a mismatch.
	Run(n int) (time.Duration, error)
	// Close releases the runner's resources.
	Close() error
}

// SkipError says that a configuration is available but cannot run a
// program here (for example, kiln could not compile it on this machine).
type SkipError struct{ Reason string }

// Error returns the reason.
func (e *SkipError) Error() string { return e.Reason }

// Prepare returns a runner of p in configuration c, or nil when c does not
// run programs of p's kind. The runner has not run yet.
func (c *Config) Prepare(p *Program) (Runner, error) {
	r, err := c.prepare(p)
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w", p, c.Name, err)
	}
	return r, nil
}

// kilnTiers are kiln's tiers as they are, in table order, with their
// engine options: each compiles on one worker, as wazero's compiler does.
var kilnTiers = []struct {
	name string
	opts jit.Options
}{
	{KilnInterp, jit.Options{Tier: jit.TierInterp, CompileWorkers: 1}},
	{KilnBaseline, jit.Options{Tier: jit.TierBaseline, CompileWorkers: 1}},
	{KilnOptimizing, jit.Options{Tier: jit.TierOptimizing, CompileWorkers: 1}},
	{KilnAuto, jit.Options{Tier: jit.TierAuto, CompileWorkers: 1}},
}

// wazeroEngines are wazero's engines, in table order, with their runtime
// configurations. stoppable says that RunWASI stops a run at its context's
// deadline (WithCloseOnContextDone): not the compiler's, whose compiled
// termination checks slow some programs down tenfold (sightglass's
// quicksort: 20 ms to 200 ms), where the interpreter loses a few percent.
var wazeroEngines = []struct {
	name      string
	newConfig func() wazero.RuntimeConfig
	stoppable bool
}{
	{Wazero, wazero.NewRuntimeConfigCompiler, false},
	{WazeroInterp, wazero.NewRuntimeConfigInterpreter, true},
}

// Configs returns the configurations this machine can run, in table
// order, and a note for each that it cannot (kiln's optimizing tier while
// it is not available, gcc when it is not on PATH, wazero's compiler on
// platforms it does not support). Without gcc, the C programs have no
// native column and no x-native ratio.
func Configs() (configs []*Config, notes []string) {
	add := func(c *Config, err error) {
		if err != nil {
			notes = append(notes, err.Error())
			return
		}
		configs = append(configs, c)
	}
	for _, k := range kilnTiers {
		add(kilnConfig(k.name, k.opts))
	}
	add(kilnConfig(KilnOptimizingSource, jit.Options{Tier: jit.TierOptimizing, SourceOrderSchedule: true, CompileWorkers: 1}))
	add(kilnConfig(KilnOptimizingSeparate, jit.Options{Tier: jit.TierOptimizing, Pipeline: jit.PipelineSeparate, CompileWorkers: 1}))
	add(kilnConfig(KilnOptimizingParallel, jit.Options{Tier: jit.TierOptimizing}))
	for _, w := range wazeroEngines {
		add(wazeroConfig(w.name, w.newConfig))
	}
	add(nativeConfig(), nil)
	add(gccConfig())
	return configs, notes
}

// bfIO is the standard input and output of a Brainfuck run.
type bfIO struct {
	in  []byte
	pos int
	out []byte
}

func (io *bfIO) reset() {
	io.pos = 0
	io.out = io.out[:0]
}

func (io *bfIO) getc() int {
	if io.pos >= len(io.in) {
		return -1
	}
	c := io.in[io.pos]
	io.pos++
	return int(c)
}

// checkOutput compares a Brainfuck run's output with the expected one.
func checkOutput(got, want []byte) error {
	if bytes.Equal(got, want) {
		return nil
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Errorf("output differs from the expected output at byte %d (got %d bytes, want %d): got %q, want %q",
		i, len(got), len(want), excerpt(got, i), excerpt(want, i))
}

func excerpt(b []byte, i int) []byte {
	return b[max(0, i-10):min(len(b), i+10)]
}

// bfLoop runs a Brainfuck program n times with run, resetting the tape
// (with clearTape) and the input and output before each run and checking
// the output after it. Only the runs are timed.
func bfLoop(n int, io *bfIO, want []byte, clearTape func(), run func() error) (time.Duration, error) {
	var total time.Duration
	for range n {
		clearTape()
		io.reset()
		start := time.Now()
		err := run()
		total += time.Since(start)
		if err != nil {
			return 0, err
		}
		if err := checkOutput(io.out, want); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// kernelLoop runs a kernel or a C program n times with call, which leaves
// the results in res, checking them against p's after every call. The
// whole loop is timed.
func kernelLoop(n int, res []uint64, p *Program, call func() error) (time.Duration, error) {
	start := time.Now()
	for range n {
		if err := call(); err != nil {
			return 0, err
		}
		if err := p.checkResults(res); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// kilnConfig runs programs in one kiln tier: Brainfuck programs through
// bf.Kiln, kernels as they are, C programs through the WebAssembly front
// end (packages wasm/translate and wasm/link). It fails when the
// engine refuses the tier (kiln's optimizing tier while it is not
// available).
func kilnConfig(name string, opts jit.Options) (*Config, error) {
	tier := opts.Tier
	engine, err := jit.NewEngine(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: not available: %v", name, err)
	}
	compile := func(p *Program) (front, back time.Duration, err error) {
		start := time.Now()
		tm, err := translateModule(p)
		if err != nil {
			return 0, 0, err
		}
		bm, err := tm.Resolve(nil)
		if err != nil {
			return 0, 0, err
		}
		front = time.Since(start)
		start = time.Now()
		mod, err := engine.Load(bm)
		back = time.Since(start)
		if err != nil {
			return 0, 0, err
		}
		if err := checkTier(mod, tier); err != nil {
			return 0, 0, err
		}
		return front, back, nil
	}
	return &Config{Name: name, compile: compile, prepare: func(p *Program) (Runner, error) {
		if p.Kind == KindC {
			return prepareKilnC(engine, tier, p)
		}
		m := p.Kernel.Module
		if p.Kind == KindBF {
			var err error
			if m, err = bf.Kiln(p.Ops); err != nil {
				return nil, err
			}
		}
		mod, err := engine.Load(m)
		if err != nil {
			return nil, err
		}
		if err := checkTier(mod, tier); err != nil {
			return nil, err
		}
		ctx := context.Background()
		if p.Kind == KindKernel {
			inst, err := mod.Instantiate(nil)
			if err != nil {
				return nil, err
			}
			fn, err := inst.Func(p.Kernel.Func)
			if err != nil {
				return nil, err
			}
			return kernelRunner(ctx, fn, p), nil
		}
		io := &bfIO{in: p.Input}
		inst, err := mod.Instantiate(jit.Imports{
			"putc": jit.RawHost([]bc.Type{bc.I64}, nil, func(_ *jit.Caller, args, _ []uint64) error {
				io.out = append(io.out, byte(args[0]))
				return nil
			}),
			"getc": jit.RawHost(nil, []bc.Type{bc.I64}, func(_ *jit.Caller, _, res []uint64) error {
				res[0] = jit.I64(int64(io.getc()))
				return nil
			}),
		})
		if err != nil {
			return nil, err
		}
		fn, err := inst.Func("run")
		if err != nil {
			return nil, err
		}
		return runFunc(func(n int) (time.Duration, error) {
			return bfLoop(n, io, p.Output, func() { clear(inst.Memory()) }, func() error {
				return fn.CallInto(ctx, nil, nil)
			})
		}), nil
	}}, nil
}

// checkTier returns a *SkipError when mod does not run in tier (kiln could
// not compile it on this machine).
func checkTier(mod *jit.Module, tier jit.Tier) error {
	if got := mod.Tier(); got != tier {
		reason := fmt.Sprintf("the module runs in tier %s", got)
		if err := mod.CompileError(); err != nil {
			reason += ": " + err.Error()
		}
		return &SkipError{reason}
	}
	return nil
}

// prepareKilnC translates a C program's module and instantiates it in
// engine with package link.
func prepareKilnC(engine *jit.Engine, tier jit.Tier, p *Program) (Runner, error) {
	tm, run, err := translateC(p)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	inst, err := link.Instantiate(ctx, engine, tm, nil)
	if err != nil {
		return nil, err
	}
	if err := checkTier(inst.Kiln.Module(), tier); err != nil {
		return nil, err
	}
	fn, err := inst.Kiln.Func(run.Key)
	if err != nil {
		return nil, err
	}
	return kernelRunner(ctx, fn, p), nil
}

// kernelRunner calls fn with p's arguments and checks its results, n
// times a run.
func kernelRunner(ctx context.Context, fn *jit.Function, p *Program) Runner {
	res := make([]uint64, len(p.Want))
	return runFunc(func(n int) (time.Duration, error) {
		return kernelLoop(n, res, p, func() error { return fn.CallInto(ctx, p.Args, res) })
	})
}

// runFunc is a Runner with nothing to release.
type runFunc func(n int) (time.Duration, error)

func (f runFunc) Run(n int) (time.Duration, error) { return f(n) }
func (f runFunc) Close() error                     { return nil }

// wazeroConfig runs programs in wazero with a runtime configuration
// (compiler or interpreter): Brainfuck programs through bf.Wasm, kernels
// through their twins in package kernels, C programs as they are. It
// fails when this platform cannot run the configuration.
func wazeroConfig(name string, newConfig func() wazero.RuntimeConfig) (c *Config, err error) {
	// NewRuntimeConfigCompiler's runtime panics on platforms the compiler
	// does not support: try it once on a module with an empty function.
	probe := wasm.NewModule()
	probe.Func(nil, nil)
	bin, err := probe.Encode()
	if err != nil {
		return nil, err
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%s: not available: %v", name, r)
			}
		}()
		ctx := context.Background()
		rt := wazero.NewRuntimeWithConfig(ctx, newConfig())
		defer rt.Close(ctx)
		if _, cerr := rt.CompileModule(ctx, bin); cerr != nil {
			err = fmt.Errorf("%s: not available: %v", name, cerr)
		}
	}()
	if err != nil {
		return nil, err
	}
	// Compile-time samples share a runtime: closing a compiled module
	// drops it from the runtime's cache, so that the next CompileModule
	// of the same bytes compiles again.
	var compileRT wazero.Runtime
	compile := func(p *Program) (front, back time.Duration, err error) {
		ctx := context.Background()
		if compileRT == nil {
			compileRT = wazero.NewRuntimeWithConfig(ctx, newConfig())
		}
		start := time.Now()
		compiled, err := compileRT.CompileModule(ctx, p.Wasm)
		back = time.Since(start)
		if err != nil {
			return 0, 0, err
		}
		return 0, back, compiled.Close(ctx)
	}
	return &Config{Name: name, compile: compile, prepare: func(p *Program) (Runner, error) {
		ctx := context.Background()
		rt := wazero.NewRuntimeWithConfig(ctx, newConfig())
		r, err := prepareWazero(ctx, rt, p)
		if err != nil {
			rt.Close(ctx)
			return nil, err
		}
		return r, nil
	}}, nil
}

// wazeroRunner is a Runner owning a wazero runtime.
type wazeroRunner struct {
	rt  wazero.Runtime
	run func(n int) (time.Duration, error)
}

func (r *wazeroRunner) Run(n int) (time.Duration, error) { return r.run(n) }
func (r *wazeroRunner) Close() error                     { return r.rt.Close(context.Background()) }

func prepareWazero(ctx context.Context, rt wazero.Runtime, p *Program) (Runner, error) {
	var bin []byte
	var err error
	io := &bfIO{in: p.Input}
	if p.Kind == KindBF {
		if bin, err = bf.Wasm(p.Ops); err != nil {
			return nil, err
		}
		_, err = rt.NewHostModuleBuilder("env").
			NewFunctionBuilder().
			WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
				io.out = append(io.out, byte(stack[0]))
			}), []api.ValueType{api.ValueTypeI32}, nil).
			Export("putc").
			NewFunctionBuilder().
			WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
				stack[0] = api.EncodeI32(int32(io.getc()))
			}), nil, []api.ValueType{api.ValueTypeI32}).
			Export("getc").
			Instantiate(ctx)
		if err != nil {
			return nil, err
		}
	} else if p.Kind == KindC || p.Kind == KindModule {
		bin = p.Wasm
	} else if bin, err = kernels.Wasm(p.Kernel.Name); err != nil {
		return nil, err
	}
	compiled, err := rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, err
	}
	mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName(p.Name))
	if err != nil {
		return nil, err
	}
	if p.Kind == KindKernel || p.Kind == KindC {
		name := "run"
		if p.Kind == KindKernel {
			name = p.Kernel.Func
		}
		fn := mod.ExportedFunction(name)
		if fn == nil {
			return nil, fmt.Errorf("the module exports no function %q", name)
		}
		stack := make([]uint64, max(len(p.Args), len(p.Want)))
		res := stack[:len(p.Want)]
		return &wazeroRunner{rt, func(n int) (time.Duration, error) {
			return kernelLoop(n, res, p, func() error {
				copy(stack, p.Args)
				return fn.CallWithStack(ctx, stack)
			})
		}}, nil
	}
	fn := mod.ExportedFunction("run")
	tape, ok := mod.Memory().Read(0, bf.TapeSize)
	if fn == nil || !ok {
		return nil, errors.New("the module lacks its run function or its tape")
	}
	stack := make([]uint64, 1)
	return &wazeroRunner{rt, func(n int) (time.Duration, error) {
		return bfLoop(n, io, p.Output, func() { clear(tape) }, func() error {
			return fn.CallWithStack(ctx, stack)
		})
	}}, nil
}

// nativeConfig runs kernels' native Go twins.
func nativeConfig() *Config {
	return &Config{Name: Native, prepare: func(p *Program) (Runner, error) {
		if p.Kind != KindKernel {
			return nil, nil
		}
		res := make([]uint64, len(p.Want))
		return runFunc(func(n int) (time.Duration, error) {
			return kernelLoop(n, res, p, func() error {
				copy(res, p.Kernel.Native(p.Args))
				return nil
			})
		}), nil
	}}
}

// gccConfig runs Brainfuck programs translated to C (bf.C) and C programs
// from their sources, compiled with gcc -O2 into a temporary directory. It
// fails when gcc is not on PATH.
func gccConfig() (*Config, error) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return nil, fmt.Errorf("%s: not available, so the C programs have no native column: %v", GCC, err)
	}
	return &Config{Name: GCC, prepare: func(p *Program) (Runner, error) {
		if p.Kind != KindBF && p.Kind != KindC {
			return nil, nil
		}
		dir, err := os.MkdirTemp("", "kiln-bench-gcc-")
		if err != nil {
			return nil, err
		}
		if p.Kind == KindC {
			exe, err := buildC(gcc, dir, p)
			if err != nil {
				os.RemoveAll(dir)
				return nil, err
			}
			return &cRunner{dir: dir, exe: exe, p: p}, nil
		}
		src, exe := filepath.Join(dir, p.Name+".c"), filepath.Join(dir, p.Name)
		if err := os.WriteFile(src, bf.C(p.Ops), 0o644); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if out, err := exec.Command(gcc, "-O2", "-o", exe, src).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("gcc -O2: %v\n%s", err, out)
		}
		return &gccRunner{dir: dir, exe: exe, p: p}, nil
	}}, nil
}

// gccRunner runs a compiled C translation, which times itself.
type gccRunner struct {
	dir, exe string
	p        *Program
}

func (r *gccRunner) Run(n int) (time.Duration, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(r.exe, strconv.Itoa(n))
	cmd.Stdin = bytes.NewReader(r.p.Input)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, stderr.Bytes())
	}
	if err := checkOutput(stdout.Bytes(), r.p.Output); err != nil {
		return 0, err
	}
	s, ok := strings.CutPrefix(strings.TrimSpace(stderr.String()), "ns ")
	ns, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("unexpected timing report %q", stderr.Bytes())
	}
	return time.Duration(ns), nil
}

func (r *gccRunner) Close() error { return os.RemoveAll(r.dir) }
