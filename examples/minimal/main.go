// Command minimal is the smallest useful kiln embedding: it builds a module
// with the bytecode builder, instantiates it with one host function, and
// calls an exported function from Go.
//
// The module exports gcd(a, b), Euclid's algorithm, which reports every
// step to the host function "step" before returning.
//
//	go run ./examples/minimal
//
// Loading and the call run under a context that an interrupt (Ctrl-C)
// cancels; an interrupted run exits with status 130, any other error with
// status 1.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
)

// buildModule returns a module exporting gcd(a, b i64) -> i64.
func buildModule() (*bc.Module, error) {
	b := bc.NewModuleBuilder()
	step := b.Host("step", []bc.Type{bc.I64, bc.I64}, nil)

	gcd := b.Func("gcd", []bc.Type{bc.I64, bc.I64}, []bc.Type{bc.I64})
	a, x := gcd.Param(0), gcd.Param(1)
	t := gcd.NewReg(bc.I64)
	loop, done := gcd.NewLabel(), gcd.NewLabel()
	gcd.Bind(loop)
	gcd.BrCmpImm(bc.OpBrEq, x, 0, done) // while b != 0
	gcd.CallHost(step, []bc.Reg{a, x}, nil)
	gcd.Binary(bc.OpI64RemU, t, a, x) //   a, b = b, a % b
	gcd.Mov(a, x)
	gcd.Mov(x, t)
	gcd.Jump(loop)
	gcd.Bind(done)
	gcd.Return(a)
	b.Export("gcd", gcd)
	return b.Build()
}

// run loads the module, calls gcd(1071, 462) under ctx and writes the
// steps, the result and the call's statistics to out.
func run(ctx context.Context, out io.Writer) error {
	m, err := buildModule()
	if err != nil {
		return fmt.Errorf("build the module: %w", err)
	}
	engine, err := jit.NewEngine(jit.Options{})
	if err != nil {
		return err
	}
	mod, err := engine.LoadContext(ctx, m)
	if err != nil {
		return err
	}
	inst, err := mod.Instantiate(jit.Imports{
		// A plain Go function: kiln derives the signature (i64 i64) -> ().
		"step": jit.MustHost(func(a, b int64) { fmt.Fprintf(out, "gcd(%d, %d)\n", a, b) }),
	})
	if err != nil {
		return err
	}
	res, err := inst.Call(ctx, "gcd", jit.I64(1071), jit.I64(462))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "= %d\n", int64(res[0]))
	s := inst.Stats()[0]
	fmt.Fprintf(out, "%s ran %d bytecode instructions in the %s tier\n", s.Name, s.Instructions, s.Tier)
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(os.Stderr, "minimal: interrupted:", err)
		os.Exit(130)
	default:
		fmt.Fprintln(os.Stderr, "minimal:", err)
		os.Exit(1)
	}
}
