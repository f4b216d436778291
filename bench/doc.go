// Package bench measures kiln against its peers on the same programs:
// kiln's tiers (interpreter, baseline, and the optimizing tier once the
// engine offers it), wazero's optimizing compiler and its interpreter,
// native Go (for the kernels, through their Go twins) and gcc -O2 (for the
// Brainfuck programs, through a C translation, when gcc is on PATH).
//
// The programs are Brainfuck programs (the module's own in testdata, and
// the shared ones in KILN_BF_DIR when that directory exists), translated
// one plain way by package bf for every back end, and kiln's benchmark
// kernels (internal/testprogs), which wazero runs as the WebAssembly twins
// of package kernels. Every configuration's output or result is checked
// against the expected one before it is timed, and again on every timed
// run.
//
// The translations are deliberately plain, but gcc -O2 optimizes the C
// translation as it pleases: it replaces clear loops ([-]) and copy loops
// ([->+<]) by straight code, which is why it is orders of magnitude faster
// on programs full of them.
//
// The go test benchmarks (BenchmarkBF, BenchmarkKernels) time every
// configuration in one benchmark for the same number of runs and report
// each configuration's ns/op and its ratios to native Go (x-native) and to
// wazero's compiler (x-wazero). The command cmd/peers prints the same
// comparison as a table, taking the fastest of several samples per
// configuration.
//
// This is a module of its own so that kiln itself keeps its short list of
// dependencies.
package bench
