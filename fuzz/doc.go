// Package fuzz checks that every kiln tier and back-end stage computes
// exactly what the reference interpreter computes.
//
// It has four parts:
//
//   - Generate turns any byte string into a valid program (a module, the
//     values of its imported globals and the calls to make on it), so that
//     go test -fuzz can drive it and no input is ever thrown away. The
//     programs use every instruction, on all four types (i64, f64, i32,
//     f32), and reach what back ends get wrong: nested and irreducible
//     loops, switches, dozens of values live at once, calls with several
//     results, bounded recursion, host calls that fail, touch memory, call
//     back in or cancel the call, memory growth, and every trap. Some of
//     them (about two in five) also have globals of every type (mutable
//     and constant, imported, exported), a table with element segments,
//     call_indirect through it (mostly to a function of the right
//     signature; unguarded, also out of range, through null entries and
//     with the wrong signature) and unreachable. They always terminate
//     (see Generate).
//
//   - Check runs a module's calls in the reference interpreter (package
//     interp) and in every configuration (Configurations): the machine IR
//     after lowering (for all CPU features and for plain SSE2), after
//     out-of-SSA translation and after register allocation, each run in
//     the machine-IR interpreter, which also checks the allocated code's
//     register constraints; and the embedding API's tiers, the compiled
//     ones as real x86-64 code. After every call it compares results,
//     traps (kind, function, bytecode offset, code, cause), memory, the
//     sequence of host calls, the values of the globals and, where a
//     configuration reports it, the fuel left. The first difference is a
//     *Mismatch.
//
//   - Globals are compared bit for bit after every call. The reference
//     and the machine-IR configurations compare every global (the
//     harness reads the machines' global storage, which it initialises
//     with the module's initial values and the imported values of
//     Options.GlobalImports); the jit configurations compare the
//     exported globals only, which are all that the embedding API
//     (jit.Instance.Global) can read. Generated programs export about
//     half of their globals, so that unexported ones, which a compiler
//     may treat differently, are exercised too: their values still show
//     in results, memory and host calls. The jit configurations also
//     check an exported table's entries (jit.Instance.TableEntry) before
//     the first call.
//
//   - Minimize and MinimizeMismatch shrink a failing program (unused
//     globals, signatures and element segments included); WriteRegression
//     stores it as bytecode text (FormatProgram, with its calls and the
//     values of its imported globals in comments) under testdata/regress,
//     where TestRegressions runs it from then on.
//
//   - The fuzz targets: FuzzDifferential here; FuzzSequentialize in alloc
//     (parallel copies); FuzzAssemble, FuzzDecode and FuzzVerify in
//     bytecode; FuzzParse in mir. go test runs their seed corpora; .ci/run
//     fuzzes each for a few seconds.
//
// # Fuzzing your own front end
//
// An interpreter that compiles its language to kiln bytecode can check
// its output the same way: generate source programs from the fuzzer's
// bytes, compile them, and pass the module to Check with host functions
// written as HostFunc (deterministic functions of their arguments and of
// memory). Any Mismatch is a kiln bug worth reporting with the program
// MinimizeMismatch gives. The Brainfuck example's FuzzFrontEnd does this.
//
// # NaNs
//
// Every tier produces the same NaN bits: kiln has one deterministic rule
// for the payload of every NaN an operation returns (see
// internal/floatbits). So Check compares NaNs like any other value, bit
// for bit, in results, memory and host-call arguments and results. The
// generated programs make NaNs often (quiet and signalling, of either
// sign and width, with payloads) and let them flow through arithmetic,
// min and max, square roots, rounding, promotion and demotion, neg, abs,
// copysign, reinterpretations, stores and host calls. A front end's
// programs need no special care about NaNs to be checked.
//
// # Long runs
//
//	go test ./fuzz -run='^$' -fuzz=FuzzDifferential -fuzztime=30m -fuzzminimizetime=50x -timeout=0
//
// -timeout=0 matters: go test's default 10-minute timeout also applies to
// the fuzzing workers, and a worker that lives longer is killed, which the
// engine reports as "fuzzing process hung or terminated unexpectedly
// while minimizing: EOF" with an input that passes when run again. A
// count rather than a time for -fuzzminimizetime keeps minimization of
// the slower programs from being cut short. The fuzzing engine's corpus
// lives in the Go build cache; a failure is also minimized by the engine
// into testdata/fuzz/FuzzDifferential.
//
// The engine discards a worker's standard error, so a worker that dies of
// a fatal error ("fuzzing process hung or terminated unexpectedly: exit
// status 2") would take its crash text with it. The package's TestMain
// has every process, coordinator and workers, record a crash in a file of
// its own (package internal/crashlog: $KILN_CRASH_DIR, by default
// kiln-crashes in the temporary directory), and the coordinator prints
// its workers' crash files when it ends.
package fuzz
