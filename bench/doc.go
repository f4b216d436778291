// Package bench measures kiln against its peers on the same programs:
// kiln's tiers (interpreter, baseline, optimizing), wazero's optimizing
// compiler and its interpreter, native Go (for the kernels, through their
// Go twins) and gcc -O2 (for the Brainfuck programs, through a C
// translation, and for the C programs, from their sources, when gcc is on
// PATH).
//
// The programs are Brainfuck programs (the module's own in testdata, and
// the shared ones in KILN_BF_DIR when that directory exists), translated
// one plain way by package bf for every back end; kiln's benchmark
// kernels (internal/testprogs), which wazero runs as the WebAssembly twins
// of package kernels; and six C programs, three of The Computer Language
// Benchmarks Game (nbody, fannkuchredux, spectralnorm) and three integer
// programs of kiln's own with branchy loops (interp, a bytecode
// interpreter's dispatch loop; lz77, hash-chain compression; sort,
// quicksort and binary search; see CPrograms and testdata/c/README.md),
// whose WebAssembly modules, compiled by clang,
// kiln runs through its WebAssembly front end (packages wasm/translate
// and link) and wazero as they are, and whose C gcc compiles. Every
// configuration's output or result is checked against the expected one
// before it is timed, and again on every timed run; the C programs'
// results, f64 included, must match the gcc build's bit for bit.
//
// The translations are deliberately plain, but gcc -O2 optimizes the C
// translation as it pleases: it replaces clear loops ([-]) and copy loops
// ([->+<]) by straight code, which is why it is orders of magnitude faster
// on programs full of them.
//
// The go test benchmarks (BenchmarkBF, BenchmarkKernels, BenchmarkC) time
// every configuration in one benchmark for the same number of runs and
// report each configuration's ns/op and its ratios to the native build
// (x-native: native Go for the kernels, gcc for the C programs) and to
// wazero's compiler (x-wazero), and kiln's interpreter's ratio to wazero's
// interpreter. BenchmarkCCompile reports the compile time of the C
// programs' modules per byte: kiln's front end plus jit.Engine.Load in
// each tier, and wazero's CompileModule. The command cmd/peers prints the
// same comparisons as tables, taking the fastest of several samples per
// configuration, with the geometric means of the ratios per kind of
// program:
//
//	go run ./cmd/peers -n=3 -programs='c/*'            # the C programs, both tables
//	go test -run '^$' -bench '^BenchmarkC$' -benchtime=1x
//	go test -run '^$' -bench CCompile
//
// The spill-heuristic ablation (spill_test.go) compares the optimizing
// tier's spill-victim choices (jit.Options.SpillHeuristic, with the edge
// counts of a first interpreted run or the static estimate) on the
// kernels, the C programs and four spill pathologies (spillpaths_test.go:
// a switch in a hot loop taking its cases in turn, the same with a few hot
// cases, a long block with pressure near the register count, and a do/while
// loop whose condition is used only at its bottom):
// TestSpillHeuristicsDynamic runs the allocated code in the machine-IR
// interpreter and counts the spill stores, reloads, moves and
// rematerializations it executes (and of those the ones that read memory:
// a context field or a pooled constant, which with the reloads are the
// spill code's loads), with every register and with few;
// BenchmarkSpillHeuristics times the compiled code:
//
//	go test -run SpillHeuristicsDynamic -v
//	go test -run '^$' -bench SpillHeuristics -benchtime=20x
//
// WASI programs run on kiln's tiers with kiln's WASI (package wasm/wasi)
// and on wazero's engines with wazero's (RunWASI). The command
// cmd/sightglass runs programs in the layout of the sightglass benchmark
// suite (FindSightglass, RunSightglass) from any folder, checks their
// output against the expected files beside them, and prints the compile
// time, the time between their bench.start and bench.end, the whole run's
// time and the peak heap of each engine, with ratios to wazero's compiler:
//
//	go run ./cmd/sightglass -n=3 -timeout=180s /path/to/sightglass/benchmarks
//	go run ./cmd/sightglass -json PATH... > run.jsonl
//
// TestWASIDiff runs the C tests of the WASI test suite (the library's
// wasm/wasi/testdata) on kiln's WASI in every tier and on wazero's, and
// compares their exit status, output and the files they leave.
//
// This is a module of its own so that kiln itself keeps its short list of
// dependencies.
package bench
