package bench

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// The C programs: their sources, the WebAssembly modules clang compiled
// from them, and the native driver (see testdata/c/README.md).
//
//go:embed testdata/c/src/*.c testdata/c/wasm/*.wasm testdata/c/repeat.c
var cdata embed.FS

// cProgram is a C program with its arguments and expected results.
type cProgram struct {
	name string
	f64  bool // run returns an f64 (an i64 otherwise)
	// n is the benchmark argument and small the test argument; want and
	// smallWant are the bits of run's results at them, as the gcc -O2
	// build computes them (kiln and wazero compute the same bits).
	n, small        int32
	want, smallWant uint64
}

// cPrograms are the C programs in table order. Their benchmark arguments
// take a fraction of a second in the gcc -O2 build.
var cPrograms = []cProgram{
	// -0.16908618459857994 after 1,000,000 steps, -0.16908760523460614
	// after 1000.
	{"nbody", true, 1_000_000, 1000, 0xbfc5a49db887357c, 0xbfc5a4a9a3521fae},
	// Checksum 8629 and 30 flips at 9, 228 and 16 at 7, as
	// checksum<<32 | flips.
	{"fannkuchredux", false, 9, 7, 0x000021b5_0000001e, 0x000000e4_00000010},
	// 1.2742241481294836 at 1000, 1.2742199912349306 at 100.
	{"spectralnorm", true, 1000, 100, 0x3ff46338dc3fd55e, 0x3ff4633480643706},
	// The three below are kiln's own (testdata/c/README.md): integer code
	// with branchy loops, the kind of code the programs above lack.
	// Collatz steps of 1..n summed, 2,864,311, and the longest, 307; 3142
	// and 118 up to 100; as sum<<32 | longest.
	{"interp", false, 30_000, 100, 0x002bb4b7_00000133, 0x00000c46_00000076},
	// 103,655 tokens for 1,000,000 bytes, 474 for 3000; as
	// tokens<<32 | checksum.
	{"lz77", false, 1_000_000, 3000, 0x000194e7_6e99b3cb, 0x000001da_df3b0507},
	// 66,219 of 300,000 keys found, 671 of 3000; as found<<32 | checksum.
	{"sort", false, 300_000, 3000, 0x000102ab_81344e8f, 0x0000029f_20b53ee7},
}

// CNames returns the names of the C programs in table order.
func CNames() []string {
	var names []string
	for _, c := range cPrograms {
		names = append(names, c.name)
	}
	return names
}

// CPrograms returns the C programs (nbody, fannkuchredux, spectralnorm:
// programs of The Computer Language Benchmarks Game adapted to
// freestanding C; interp, lz77, sort: kiln's own; all compiled to
// WebAssembly 1.0 by clang) at their
// benchmark arguments, or at their small test arguments when small is
// set. Every configuration runs the same module (kiln and wazero) or the
// same C (gcc), and must return the expected result bit for bit.
func CPrograms(small bool) ([]*Program, error) {
	var progs []*Program
	for _, c := range cPrograms {
		src, err := cdata.ReadFile("testdata/c/src/" + c.name + ".c")
		if err != nil {
			return nil, err
		}
		bin, err := cdata.ReadFile("testdata/c/wasm/" + c.name + ".wasm")
		if err != nil {
			return nil, err
		}
		n, want := c.n, c.want
		if small {
			n, want = c.small, c.smallWant
		}
		progs = append(progs, &Program{Kind: KindC, Name: c.name, Source: src, Wasm: bin, F64: c.f64,
			Args: []uint64{uint64(uint32(n))}, Want: []uint64{want}})
	}
	return progs, nil
}

// translateC decodes, validates and translates a C program's module with
// the WebAssembly front end (package wasm and its subpackages), and returns it with its
// export run, whose type it checks.
func translateC(p *Program) (*translate.Module, *translate.Export, error) {
	bm, err := binary.Decode(p.Wasm)
	if err != nil {
		return nil, nil, err
	}
	tm, err := translate.Translate(bm, translate.Options{})
	if err != nil {
		return nil, nil, err
	}
	e, ok := tm.Export("run")
	if !ok || e.Kind != binary.ExternFunc {
		return nil, nil, fmt.Errorf("the module exports no function run")
	}
	want := binary.FuncType{Params: []binary.ValType{binary.I32}, Results: []binary.ValType{binary.I64}}
	if p.F64 {
		want.Results[0] = binary.F64
	}
	if !e.Func.Equal(want) {
		return nil, nil, fmt.Errorf("run has type %s, want %s", e.Func, want)
	}
	return tm, e, nil
}

// buildC compiles a C program with its native driver (testdata/c/repeat.c)
// into dir with gcc -O2 and returns the executable's path. Floating-point
// contraction is off, as WebAssembly has none (gcc contracts a*b+c into
// fused multiply-adds where the target has them, x86-64's baseline does
// not).
func buildC(gcc, dir string, p *Program) (string, error) {
	driver, err := cdata.ReadFile("testdata/c/repeat.c")
	if err != nil {
		return "", err
	}
	src, drv, exe := filepath.Join(dir, p.Name+".c"), filepath.Join(dir, "repeat.c"), filepath.Join(dir, p.Name)
	if err := os.WriteFile(src, p.Source, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(drv, driver, 0o644); err != nil {
		return "", err
	}
	args := []string{"-O2", "-ffp-contract=off"}
	if p.F64 {
		args = append(args, "-DRET_DOUBLE")
	}
	args = append(args, "-o", exe, src, drv, "-lm")
	if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc %v: %v\n%s", args, err, out)
	}
	return exe, nil
}

// cRunner runs a C program's gcc build, which times itself.
type cRunner struct {
	dir, exe string
	p        *Program
}

// Run runs the program's run function n times in one process.
func (r *cRunner) Run(n int) (time.Duration, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(r.exe, strconv.Itoa(int(int32(r.p.Args[0]))), strconv.Itoa(n))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, stderr.Bytes())
	}
	var bits uint64
	var ns int64
	if _, err := fmt.Sscanf(stdout.String(), "bits %v ns %d\n", &bits, &ns); err != nil {
		return 0, fmt.Errorf("unexpected report %q: %v", stdout.Bytes(), err)
	}
	if err := r.p.checkResults([]uint64{bits}); err != nil {
		return 0, err
	}
	return time.Duration(ns), nil
}

// Close removes the build.
func (r *cRunner) Close() error { return os.RemoveAll(r.dir) }
