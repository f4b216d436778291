// Package wasm is kiln's WebAssembly embedding API: a Go program compiles
// a module once, instantiates it any number of times with host functions
// written in Go and with WASI, calls its exports, reads and writes its
// memory, and closes what it made, with contexts for cancellation.
//
//	r, _ := wasm.NewRuntime(ctx, wasm.RuntimeConfig{WASI: true})
//	defer r.Close(ctx)
//	r.NewHostModuleBuilder("env").
//		NewFunctionBuilder().WithFunc(func(a, b int32) int32 { return a + b }).Export("add").
//		Instantiate(ctx)
//	compiled, _ := r.CompileModule(ctx, src) // binary or text format
//	mod, _ := r.InstantiateModule(ctx, compiled, wasm.NewModuleConfig().WithStdout(os.Stdout))
//	results, err := mod.ExportedFunction("run").Call(ctx, 1, 2)
//
// The module imports what it uses by name, and the runtime resolves the
// names: functions and memories of host modules (HostModuleBuilder),
// exports of named instances (ModuleConfig.WithName) and, when
// RuntimeConfig.WASI is set, WASI preview 1 ("wasi_snapshot_preview1",
// package wasm/wasi). A module declares each host function it calls:
//
//	(import "env" "add" (func $add (param i32 i32) (result i32)))
//
// A WASI command runs when it is instantiated: the config's start
// functions ("_start" by default) are called after the module's own start
// function. proc_exit with status 0 ends them normally; another status is
// an error wrapping an *ExitError with the status.
//
// Values cross the API as uint64 (i32 zero-extended, floats as their
// bits), as in package jit. A trap is an error naming the specification's
// message, the function and the byte offset of the instruction in the
// module; errors.As finds the *bytecode.Trap. Cancelling the context of a
// call stops it at its next backward branch or call, on every tier.
//
// # The front end
//
// The subpackages do the work:
//
//   - binary decodes the binary format into a Module and reads function
//     bodies instruction by instruction.
//   - text parses the text format and encodes it in the binary format.
//   - validate checks a decoded module by the specification's rules.
//   - translate turns a valid module into a kiln bytecode module.
//   - link instantiates translated modules on a jit.Engine: imports,
//     shared memories, tables and globals, segments, the start function.
//   - wasi implements WASI preview 1 over the host's files, in a sandbox
//     of preopened directories.
//
// The tests of this package run the WebAssembly specification's scripts
// and a differential fuzzer over all of them, and the API's own tests on
// every tier. The command kiln wasm (cmd/kiln) runs modules from the
// command line with this package.
//
// # Where kiln differs from wazero
//
// The names follow wazero's (Runtime, CompiledModule, Module,
// HostModuleBuilder, ModuleConfig) where the two agree; these differ:
//
//   - RuntimeConfig is a struct holding package jit's Options as they are
//     (tier, fuel, memory cap, limits), and NewRuntime returns an error for
//     invalid ones, where wazero's config methods panic.
//   - WASI is switched on for the runtime (RuntimeConfig.WASI) rather than
//     instantiated as a host module once: each instance gets a WASI system
//     of its own, made from its ModuleConfig, since arguments, environment,
//     streams and directories belong to one program.
//   - Directories are host directories (WithDirMount, over os.Root), not
//     an fs.FS: package wasi needs a real directory to sandbox.
//   - CompileModule decodes, validates and translates once. The kiln
//     module is loaded into the engine once per instance (package link
//     resolves segment offsets and imported sizes into it); in jit.TierAuto,
//     the default, an instance is compiled from its own edge counts once it
//     is hot anyway, and the baseline and optimizing tiers compile each
//     instance's code at instantiation.
//   - Host functions are typed Go functions (int32, uint32, int64, uint64,
//     float32, float64, a context.Context or *Caller first, an error last)
//     or raw ones with explicit types, taking their arguments and giving
//     their results in two slices rather than one stack slice.
//   - Memory.Read returns a copy with an error, not a view with a bool:
//     a view would be invalidated by memory.grow.
//   - ExportedGlobal gives read-only globals; instances share mutable
//     globals through imports.
//   - Only the numeric value types cross the API: kiln supports no
//     reference-typed values and no SIMD.
package wasm
