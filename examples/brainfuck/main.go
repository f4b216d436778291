// Command brainfuck runs Brainfuck programs on kiln: it translates the
// program to kiln bytecode (merging runs of + - < >, folding pointer moves
// into memory offsets, and turning clear and multiply loops into straight
// code), loads it into a kiln engine, and runs it with standard input and
// output connected through two host functions.
//
// Usage:
//
//	go run ./examples/brainfuck [-tier=interp|baseline|optimizing] [-stats] PROGRAM.bf < input
//
// Cells are bytes that wrap around; the tape has 262144 cells and the
// pointer starts at the first one; moving off either end is an error.
// Reading at the end of input leaves the cell unchanged. Unbalanced
// brackets are reported with their line and column, and the exit status is
// 1 for any error.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program, with its streams passed in so that tests can
// drive it. It returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("brainfuck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tierName := fs.String("tier", "interp", "execution tier: interp, baseline or optimizing")
	stats := fs.Bool("stats", false, "print execution statistics to standard error")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: brainfuck [-tier=interp|baseline|optimizing] [-stats] PROGRAM.bf < input")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	tier, err := jit.ParseTier(*tierName)
	if err != nil {
		fmt.Fprintln(stderr, "brainfuck:", err)
		return 2
	}
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "brainfuck:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := execute(ctx, src, tier, stdin, stdout, stderr, *stats); err != nil {
		fmt.Fprintf(stderr, "brainfuck: %s: %v\n", path, err)
		return 1
	}
	return 0
}

// execute translates and runs a program.
func execute(ctx context.Context, src []byte, tier jit.Tier, stdin io.Reader, stdout, stderr io.Writer, stats bool) error {
	m, err := translate(src)
	if err != nil {
		return err
	}
	engine, err := jit.NewEngine(jit.Options{Tier: tier})
	if err != nil {
		return err
	}
	mod, err := engine.Load(m)
	if err != nil {
		return err
	}
	in := bufio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	inst, err := mod.Instantiate(jit.Imports{
		"putc": jit.RawHost([]bytecode.Type{bytecode.I64}, nil, func(_ *jit.Caller, args, _ []uint64) error {
			return out.WriteByte(byte(args[0]))
		}),
		"getc": jit.RawHost(nil, []bytecode.Type{bytecode.I64}, func(_ *jit.Caller, _, results []uint64) error {
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
	if stats {
		for _, s := range inst.Stats() {
			fmt.Fprintf(stderr, "%s: tier %s, %d calls, %d bytecode instructions executed\n", s.Name, s.Tier, s.Calls, s.Instructions)
		}
	}
	var trap *bytecode.Trap
	if errors.As(runErr, &trap) && trap.Kind == bytecode.TrapOutOfBounds {
		return fmt.Errorf("the tape pointer moved outside the %d-cell tape (bytecode offset %d)", tapeCells, trap.Offset)
	}
	return runErr
}
