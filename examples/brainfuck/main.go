// Command brainfuck runs Brainfuck programs on kiln: it translates the
// program to kiln bytecode (merging runs of + - < >, folding pointer moves
// into memory offsets, and turning clear and multiply loops into straight
// code), loads it into a kiln engine, and runs it with standard input and
// output connected through two host functions.
//
// Usage:
//
//	go run ./examples/brainfuck [-tier=auto|interp|baseline|optimizing] [-stats] [-fuel=N] [-timeout=D] PROGRAM.bf < input
//
// Cells are bytes that wrap around; the tape has 262144 cells and the
// pointer starts at the first one; moving off either end is an error.
// Reading at the end of input leaves the cell unchanged; output is flushed
// before every read, so prompts appear. Unbalanced brackets are reported
// with their line and column. Translation takes time and memory linear in
// the program, whatever its nesting depth.
//
// -fuel bounds the loop iterations the program may run (jit.Options.Fuel
// counts backward branches), and -timeout bounds the time translating,
// loading and running may take. Interrupting the program (Ctrl-C) stops
// translation, loading or the run at the next point where it checks; a
// second Ctrl-C ends it at once.
//
// The exit status is 0 on success, 1 for any error (including running out
// of fuel or time), 2 for usage errors and 130 when interrupted.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/cmdload"
	"github.com/kiln-jit/kiln/jit"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130 // interrupted (SIGINT), as shells report it
)

// config is what the flags select.
type config struct {
	tier    jit.Tier
	stats   bool          // print execution statistics to standard error
	fuel    int64         // jit.Options.Fuel (0: no limit)
	timeout time.Duration // deadline on translating, loading and running (0: none)
}

// run is the whole program, with its streams passed in so that tests can
// drive it. It returns the exit status. An interrupt (Ctrl-C) cancels the
// context the program runs under; a second one gets the default behaviour
// back and ends the process at once.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := cmdload.NotifyInterrupt()
	defer stop()
	return runContext(ctx, args, stdin, stdout, stderr)
}

// runContext is run under ctx: cancelling ctx is an interrupt.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("brainfuck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tierName := fs.String("tier", "auto", "execution tier: auto (the interpreter, then the optimizing tier once hot), interp, baseline or optimizing")
	var cfg config
	fs.BoolVar(&cfg.stats, "stats", false, "print execution statistics to standard error")
	fs.Int64Var(&cfg.fuel, "fuel", 0, "loop iterations (backward branches) the program may run (0: no limit)")
	fs.DurationVar(&cfg.timeout, "timeout", 0, "deadline on translating, loading and running, such as 2s (0: none)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: brainfuck [-tier=auto|interp|baseline|optimizing] [-stats] [-fuel=N] [-timeout=D] PROGRAM.bf < input")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	path := fs.Arg(0)
	var err error
	if cfg.tier, err = jit.ParseTier(*tierName); err != nil {
		fmt.Fprintln(stderr, "brainfuck:", err)
		return exitUsage
	}
	if cfg.fuel < 0 || cfg.timeout < 0 {
		fmt.Fprintln(stderr, "brainfuck: -fuel and -timeout must not be negative")
		return exitUsage
	}
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "brainfuck:", err)
		return exitError
	}
	if err := execute(ctx, src, cfg, stdin, stdout, stderr); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "brainfuck: interrupted: %s: %v\n", path, err)
			return exitInterrupted
		}
		fmt.Fprintf(stderr, "brainfuck: %s: %v\n", path, err)
		return exitError
	}
	return exitOK
}

// execute translates, loads and runs a program under ctx and the
// configuration's limits.
func execute(ctx context.Context, src []byte, cfg config, stdin io.Reader, stdout, stderr io.Writer) error {
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}
	m, err := translateContext(ctx, src)
	if err != nil {
		return cfg.explain(err)
	}
	engine, err := jit.NewEngine(jit.Options{Tier: cfg.tier, Fuel: cfg.fuel})
	if err != nil {
		return err
	}
	// The engine keeps its own copy of the module: dropping ours as the
	// load starts lets the garbage collector take it while a large
	// program compiles.
	mod, err := cmdload.Load(ctx, func(ctx context.Context) (*jit.Module, error) {
		own := m
		m = nil
		return engine.LoadContext(ctx, own)
	})
	if err != nil {
		return cfg.explain(err)
	}
	in := bufio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	inst, err := mod.Instantiate(jit.Imports{
		"putc": jit.RawHost([]bytecode.Type{bytecode.I64}, nil, func(_ *jit.Caller, args, _ []uint64) error {
			return out.WriteByte(byte(args[0]))
		}),
		"getc": jit.RawHost(nil, []bytecode.Type{bytecode.I64}, func(_ *jit.Caller, _, results []uint64) error {
			// Show what the program wrote so far, such as a prompt.
			if err := out.Flush(); err != nil {
				return err
			}
			c, err := in.ReadByte()
			if err == io.EOF {
				results[0] = jit.I64(-1)
				return nil
			}
			if err != nil {
				return err
			}
			results[0] = uint64(c)
			return nil
		}),
	})
	if err != nil {
		return err
	}
	_, runErr := inst.Call(ctx, "run")
	if err := out.Flush(); err != nil && runErr == nil {
		runErr = err
	}
	if cfg.stats {
		if mod.Tier() != jit.TierInterp {
			fmt.Fprintln(stderr, mod.CompileStats())
		}
		for _, s := range inst.Stats() {
			fmt.Fprintf(stderr, "%s: tier %s, %d calls, %d bytecode instructions executed\n", s.Name, s.Tier, s.Calls, s.Instructions)
		}
	}
	return cfg.explain(runErr)
}

// explain rewords a trap at the tape's ends in the program's terms, and
// names the flag that stopped the program when one did.
func (cfg config) explain(err error) error {
	var trap *bytecode.Trap
	switch {
	case errors.As(err, &trap) && trap.Kind == bytecode.TrapOutOfBounds:
		return fmt.Errorf("the tape pointer moved outside the %d-cell tape (bytecode offset %d)", tapeCells, trap.Offset)
	case errors.As(err, &trap) && trap.Kind == bytecode.TrapFuelExhausted:
		return fmt.Errorf("%w (-fuel=%d)", err, cfg.fuel)
	case errors.Is(err, context.DeadlineExceeded) && cfg.timeout > 0:
		return fmt.Errorf("%w (-timeout=%v)", err, cfg.timeout)
	}
	return err
}
