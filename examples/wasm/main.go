// Command wasm is a short example of kiln's WebAssembly embedding API,
// package wasm: it gives a module a host function written in Go,
// instantiates the module and calls one of its exports. Given a WASI
// program, it runs that instead, with the arguments that follow and the
// standard streams, and exits with the program's status.
//
//	go run ./examples/wasm                       # the module below
//	go run ./examples/wasm PROGRAM.wasm [ARG...] # a WASI command
//
// kiln wasm run (in cmd/kiln) is the complete command, with directories,
// environment, tiers and limits.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kiln-jit/kiln/wasm"
)

// addWat is the module: it imports the host function it calls.
const addWat = `(module
  (import "env" "log" (func $log (param i32)))
  (func (export "add") (param i32 i32) (result i32)
    (call $log (local.get 0))
    (i32.add (local.get 0) (local.get 1))))`

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	var exit *wasm.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(int(exit.Code))
	case err != nil:
		fmt.Fprintln(os.Stderr, "wasm:", err)
		os.Exit(1)
	}
}

// run runs the example, or the WASI program args name.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	r, err := wasm.NewRuntime(ctx, wasm.RuntimeConfig{WASI: true})
	if err != nil {
		return err
	}
	defer r.Close(ctx)
	if len(args) > 0 {
		return runWASI(ctx, r, args, stdin, stdout, stderr)
	}
	_, err = r.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(x int32) { fmt.Fprintln(stdout, "log:", x) }).Export("log").
		Instantiate(ctx)
	if err != nil {
		return err
	}
	mod, err := r.Instantiate(ctx, []byte(addWat))
	if err != nil {
		return err
	}
	results, err := mod.ExportedFunction("add").Call(ctx, 2, 40)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "add(2, 40) =", int32(results[0]))
	return nil
}

// runWASI runs the WASI command args[0] with args as its arguments; its
// _start runs when it is instantiated.
func runWASI(ctx context.Context, r *wasm.Runtime, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	src, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	compiled, err := r.CompileModule(ctx, src)
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	cfg := wasm.NewModuleConfig().WithArgs(args...).WithStdin(stdin).WithStdout(stdout).WithStderr(stderr)
	_, err = r.InstantiateModule(ctx, compiled, cfg)
	return err
}
