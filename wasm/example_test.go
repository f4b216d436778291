package wasm_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/kiln-jit/kiln/wasm"
)

// Example compiles a module once, instantiates it twice with a host
// function written in Go, and calls an export of each instance.
func Example() {
	ctx := context.Background()
	r, err := wasm.NewRuntime(ctx, wasm.RuntimeConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close(ctx)
	_, err = r.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(x int32) int32 { return x * 10 }).Export("scale").
		Instantiate(ctx)
	if err != nil {
		log.Fatal(err)
	}
	compiled, err := r.CompileModule(ctx, []byte(`(module
  (import "env" "scale" (func $scale (param i32) (result i32)))
  (global $total (mut i32) (i32.const 0))
  (func (export "add") (param i32) (result i32)
    (global.set $total (i32.add (global.get $total) (call $scale (local.get 0))))
    (global.get $total)))`))
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range []uint64{1, 2} {
		mod, err := r.InstantiateModule(ctx, compiled, wasm.NewModuleConfig())
		if err != nil {
			log.Fatal(err)
		}
		add := mod.ExportedFunction("add")
		for range n {
			results, err := add.Call(ctx, n)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(add.Type(), "->", results[0])
		}
	}
	// Output:
	// [i32] -> [i32] -> 10
	// [i32] -> [i32] -> 20
	// [i32] -> [i32] -> 40
}

// Example_wasi runs a WASI command: its _start runs at instantiation,
// and proc_exit's status comes back as an *ExitError.
func Example_wasi() {
	ctx := context.Background()
	r, err := wasm.NewRuntime(ctx, wasm.RuntimeConfig{WASI: true})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close(ctx)
	_, err = r.InstantiateModule(ctx, mustCompile(r, `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "hi\n")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 16)) ;; one buffer: 3 bytes at 16
    (i32.store (i32.const 4) (i32.const 3))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.const 2))))`), wasm.NewModuleConfig().WithStdout(os.Stdout))
	var exit *wasm.ExitError
	if errors.As(err, &exit) {
		fmt.Println("exit status", exit.Code)
	}
	// Output:
	// hi
	// exit status 2
}

func mustCompile(r *wasm.Runtime, src string) *wasm.CompiledModule {
	c, err := r.CompileModule(context.Background(), []byte(src))
	if err != nil {
		log.Fatal(err)
	}
	return c
}
