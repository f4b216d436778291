package bench

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/translate"
	"github.com/kiln-jit/kiln/wasm/wasi"
)

// WASIEngines returns the names of the engines RunWASI runs WASI
// programs on, in table order: kiln's interpreter, baseline, optimizing
// and auto tiers (each compiling on one worker, as wazero's compiler
// does) and wazero's compiler and interpreter, the latter two with
// wazero's WASI (imports/wasi_snapshot_preview1).
func WASIEngines() []string {
	var names []string
	for _, k := range kilnTiers {
		names = append(names, k.name)
	}
	for _, w := range wazeroEngines {
		names = append(names, w.name)
	}
	return names
}

// WASIProgram is a WASI command to run and the world it runs in.
type WASIProgram struct {
	// Wasm is the module's binary.
	Wasm []byte
	// Args are the program's arguments, its name first; Env its
	// environment, each entry "KEY=VALUE" (nothing of the host's).
	Args, Env []string
	// Stdout and Stderr receive the program's output (nil discards it);
	// its standard input is empty.
	Stdout, Stderr io.Writer
	// Dirs are the preopened directories, in descriptor order from 3:
	// each a host directory under the guest path the program knows it
	// by. wazero names a preopen of "." "/" to the program (its
	// fsconfig.go: the guest resolves its working directory itself);
	// kiln names it ".". The C library resolves relative paths against
	// either.
	Dirs []wasi.Preopen
	// Bench provides the imports bench.start and bench.end ([] -> []) of
	// the sightglass programs, which mark the measured part of the run.
	Bench bool
}

// WASIResult is what one run of a WASI program did and how long it took.
type WASIResult struct {
	// ExitCode is the status the program exited with (0 when _start
	// returned).
	ExitCode uint32
	// Compile is the time from the module's bytes to an instance ready to
	// run _start: for kiln, decoding, validation and translation
	// (packages wasm/binary, translate) and link.Instantiate (loading,
	// which compiles every function in the baseline and optimizing
	// tiers, and instantiation); for wazero, CompileModule and
	// InstantiateModule without its start functions. kiln's auto tier
	// compiles later, in the background, while the program runs.
	Compile time.Duration
	// Bench is the time between the calls of bench.start and bench.end
	// (with WASIProgram.Bench), and BenchStarts and BenchEnds how often
	// the program called each.
	Bench                  time.Duration
	BenchStarts, BenchEnds int
	// Total is the whole run: Compile and the run of _start.
	Total time.Duration
	// PeakHeap is the largest size of the Go heap's objects
	// (runtime/metrics /memory/classes/heap/objects:bytes: live objects
	// and garbage not yet swept) sampled every millisecond during the
	// run, compile included, above the size after a collection just
	// before it. Both engines keep a linear memory on the Go heap, so it
	// is counted; machine code and kiln's machine stacks (mmap'd) are not.
	PeakHeap uint64
}

// RunWASI runs p on the engine named engine (one of WASIEngines) with a
// fresh engine and instance. err is an error that kept the program from
// running to its exit (a compile error, a trap, ctx's end); the result
// still holds the times up to it. kiln's tiers always poll for ctx's end,
// and so does wazero's interpreter when ctx has a deadline
// (WithCloseOnContextDone). wazero's compiler runs without its termination
// checks, which slow it down up to tenfold: at ctx's end, RunWASI returns
// ctx's error and leaves that run going on a goroutine of its own until
// the program ends, so that what runs next in the process is timed on a
// busier machine.
func RunWASI(ctx context.Context, engine string, p *WASIProgram) (res WASIResult, err error) {
	runtime.GC()
	heap := startHeapSampler()
	defer func() { res.PeakHeap = heap.stop() }()
	for _, k := range kilnTiers {
		if k.name == engine {
			err = runKilnWASI(ctx, k.opts, p, &res)
			return res, err
		}
	}
	for _, w := range wazeroEngines {
		if w.name == engine {
			err = runWazeroWASI(ctx, w.newConfig, w.stoppable, p, &res)
			return res, err
		}
	}
	return res, fmt.Errorf("unknown engine %q (engines: %s)", engine, strings.Join(WASIEngines(), ", "))
}

// benchMarks records the calls of bench.start and bench.end.
type benchMarks struct {
	res   *WASIResult
	start time.Time
}

func (b *benchMarks) begin() {
	b.res.BenchStarts++
	b.start = time.Now()
}

func (b *benchMarks) end() {
	b.res.BenchEnds++
	if b.res.BenchStarts > 0 {
		b.res.Bench = time.Since(b.start)
	}
}

func runKilnWASI(ctx context.Context, opts jit.Options, p *WASIProgram, res *WASIResult) error {
	start := time.Now()
	defer func() { res.Total = time.Since(start) }()
	engine, err := jit.NewEngine(opts)
	if err != nil {
		return fmt.Errorf("kiln engine: %w", err)
	}
	bm, err := binary.Decode(p.Wasm)
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	m, err := translate.Translate(bm, translate.Options{})
	if err != nil {
		return fmt.Errorf("translate: %w", err)
	}
	s, err := wasi.New(wasi.Config{Args: p.Args, Env: p.Env, Stdout: p.Stdout, Stderr: p.Stderr, Preopens: p.Dirs})
	if err != nil {
		return fmt.Errorf("wasi: %w", err)
	}
	defer s.Close()
	imports := s.Imports(m)
	if p.Bench {
		marks := &benchMarks{res: res}
		nop := binary.FuncType{}
		imports["bench"] = map[string]link.Extern{
			"start": &link.Func{Type: nop, Fn: func(*jit.Caller, []uint64, []uint64) error { marks.begin(); return nil }},
			"end":   &link.Func{Type: nop, Fn: func(*jit.Caller, []uint64, []uint64) error { marks.end(); return nil }},
		}
	}
	inst, err := link.Instantiate(ctx, engine, m, imports.Resolve)
	if err != nil {
		return fmt.Errorf("instantiate: %w", err)
	}
	if err := checkTier(inst.Kiln.Module(), opts.Tier); err != nil {
		return err
	}
	res.Compile = time.Since(start)
	res.ExitCode, err = wasi.RunStart(ctx, inst)
	if err != nil {
		return fmt.Errorf("_start: %w", err)
	}
	return nil
}

func runWazeroWASI(ctx context.Context, newConfig func() wazero.RuntimeConfig, stoppable bool, p *WASIProgram, res *WASIResult) (err error) {
	start := time.Now()
	defer func() { res.Total = time.Since(start) }()
	cfg := newConfig()
	if _, ok := ctx.Deadline(); ok && stoppable {
		cfg = cfg.WithCloseOnContextDone(true)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	// left is set when a run is left going, which then owns rt.
	var left atomic.Bool
	defer func() {
		if !left.Load() {
			rt.Close(context.Background())
		}
	}()
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return fmt.Errorf("wazero WASI: %w", err)
	}
	// The marks are copied into res once the run ends: a run left going
	// writes on.
	marks := &benchMarks{res: &WASIResult{}}
	defer func() {
		if !left.Load() {
			res.Bench, res.BenchStarts, res.BenchEnds = marks.res.Bench, marks.res.BenchStarts, marks.res.BenchEnds
		}
	}()
	if p.Bench {
		_, err := rt.NewHostModuleBuilder("bench").
			NewFunctionBuilder().WithGoFunction(api.GoFunc(func(context.Context, []uint64) { marks.begin() }), nil, nil).Export("start").
			NewFunctionBuilder().WithGoFunction(api.GoFunc(func(context.Context, []uint64) { marks.end() }), nil, nil).Export("end").
			Instantiate(ctx)
		if err != nil {
			return fmt.Errorf("bench imports: %w", err)
		}
	}
	compiled, err := rt.CompileModule(ctx, p.Wasm)
	if err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	fsc := wazero.NewFSConfig()
	for _, d := range p.Dirs {
		if d.ReadOnly {
			fsc = fsc.WithReadOnlyDirMount(d.HostDir, d.GuestPath)
		} else {
			fsc = fsc.WithDirMount(d.HostDir, d.GuestPath)
		}
	}
	mc := wazero.NewModuleConfig().WithArgs(p.Args...).WithFSConfig(fsc).WithStartFunctions().
		WithSysWalltime().WithSysNanotime().WithSysNanosleep().WithRandSource(rand.Reader)
	if p.Stdout != nil {
		mc = mc.WithStdout(p.Stdout)
	}
	if p.Stderr != nil {
		mc = mc.WithStderr(p.Stderr)
	}
	for _, kv := range p.Env {
		k, v, _ := strings.Cut(kv, "=")
		mc = mc.WithEnv(k, v)
	}
	mod, err := rt.InstantiateModule(ctx, compiled, mc)
	if err != nil {
		return fmt.Errorf("instantiate: %w", err)
	}
	fn := mod.ExportedFunction("_start")
	if fn == nil {
		return errors.New("the module exports no function _start")
	}
	res.Compile = time.Since(start)
	if stoppable {
		_, err = fn.Call(ctx)
	} else {
		// state: 0 running, 1 ended, 2 left going.
		var state atomic.Int32
		done := make(chan error, 1)
		go func() {
			_, err := fn.Call(ctx)
			if !state.CompareAndSwap(0, 1) {
				rt.Close(context.Background())
			}
			done <- err
		}()
		select {
		case err = <-done:
		case <-ctx.Done():
			if state.CompareAndSwap(0, 2) {
				left.Store(true)
				return fmt.Errorf("_start: %w (the run goes on: wazero's compiler runs without termination checks)", ctx.Err())
			}
			err = <-done
		}
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() != sys.ExitCodeContextCanceled && exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
		res.ExitCode = exit.ExitCode()
		return nil
	}
	if err != nil {
		return fmt.Errorf("_start: %w", err)
	}
	return nil
}

// heapMetric is the runtime/metrics sample of the Go heap's objects.
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapSampler samples the Go heap's size every millisecond on a
// goroutine of its own, keeping the largest above the size it started
// at.
type heapSampler struct {
	base uint64
	peak uint64
	done chan struct{}
	wg   sync.WaitGroup
}

func readHeap() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func startHeapSampler() *heapSampler {
	h := &heapSampler{base: readHeap(), done: make(chan struct{})}
	h.peak = h.base
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-t.C:
				h.peak = max(h.peak, readHeap())
			}
		}
	}()
	return h
}

// stop ends the sampling and returns the peak above the start.
func (h *heapSampler) stop() uint64 {
	close(h.done)
	h.wg.Wait()
	h.peak = max(h.peak, readHeap())
	return h.peak - h.base
}

// WazeroVersion returns the version of wazero built into the running
// binary.
func WazeroVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/tetratelabs/wazero" {
				return m.Version
			}
		}
	}
	return "(unknown version)"
}
