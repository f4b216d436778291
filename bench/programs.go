package bench

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kiln-jit/kiln/bench/bf"
	"github.com/kiln-jit/kiln/bench/kernels"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// The kinds of programs.
const (
	KindBF     = "bf"
	KindKernel = "kernel"
	KindC      = "c"
	// KindModule is a real WebAssembly module that the benchmarks
	// compile but do not run (it imports WASI): a sightglass program
	// (SightglassModules).
	KindModule = "module"
)

// Program is a program the peer benchmarks run: a Brainfuck program with
// its input and expected output, one of kiln's benchmark kernels with its
// arguments and the result of its native Go twin, or a C program compiled
// to WebAssembly with its argument and expected result.
type Program struct {
	Kind string // KindBF, KindKernel, KindC or KindModule
	Name string

	// Brainfuck programs: the program's source; C programs: the C source
	// of the run function (see CPrograms).
	Source []byte

	// Brainfuck programs.
	Input  []byte
	Output []byte // the exact expected output
	Ops    []bf.Op

	// Kernels.
	Kernel testprogs.Kernel

	// Kernels and C programs: the arguments and the expected results, as
	// the API of package jit represents them (floats as their bits).
	// Kernels expect Kernel.Native(Args); C programs the result of the
	// gcc -O2 build, bit for bit.
	Args []uint64
	Want []uint64

	// C programs: the WebAssembly module compiled from Source, which
	// exports run (i32) -> (f64) when F64 is set, run (i32) -> (i64)
	// otherwise. Modules: the module.
	Wasm []byte
	F64  bool
}

// String returns "kind/name".
func (p *Program) String() string { return p.Kind + "/" + p.Name }

// checkResults compares a kernel's or a C program's results with the
// expected ones, bit for bit.
func (p *Program) checkResults(got []uint64) error {
	if slices.Equal(got, p.Want) {
		return nil
	}
	if p.F64 && len(got) == 1 && len(p.Want) == 1 {
		return fmt.Errorf("result %v (%#x), want %v (%#x)",
			math.Float64frombits(got[0]), got[0], math.Float64frombits(p.Want[0]), p.Want[0])
	}
	return fmt.Errorf("result %#x, want %#x", got, p.Want)
}

// The Brainfuck programs of the bench module itself.
//
//go:embed testdata/*.bf testdata/*.bf.in testdata/*.bf.out
var testdata embed.FS

// DefaultBFDir is where the shared Brainfuck programs are looked for when
// KILN_BF_DIR is not set, relative to the bench module's directory.
const DefaultBFDir = "../../shared/programs/bf"

// BFDir returns the directory of the shared Brainfuck programs: the
// environment variable KILN_BF_DIR, or DefaultBFDir.
func BFDir() string {
	if d := os.Getenv("KILN_BF_DIR"); d != "" {
		return d
	}
	return DefaultBFDir
}

// OwnBF returns the Brainfuck programs shipped with the bench module, in
// name order.
func OwnBF() ([]*Program, error) {
	sub, err := fs.Sub(testdata, "testdata")
	if err != nil {
		return nil, err
	}
	progs, _, err := loadBF(sub, "testdata")
	return progs, err
}

// SharedBF returns the Brainfuck programs in dir that have an expected
// output (NAME.bf with NAME.bf.out, and NAME.bf.in as input when present),
// in name order. It says in notes which files it passed over: malformed
// programs (error_*.bf) and programs without an expected output. A missing
// directory is an error satisfying errors.Is(err, fs.ErrNotExist).
func SharedBF(dir string) (progs []*Program, notes []string, err error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, err
	}
	return loadBF(os.DirFS(dir), dir)
}

// loadBF loads the programs of fsys; dir is its name in notes and errors.
func loadBF(fsys fs.FS, dir string) (progs []*Program, notes []string, err error) {
	paths, err := fs.Glob(fsys, "*.bf")
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(paths)
	for _, path := range paths {
		name := strings.TrimSuffix(path, ".bf")
		shown := filepath.Join(dir, path)
		if strings.HasPrefix(name, "error_") {
			notes = append(notes, shown+": a malformed program, not run")
			continue
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			return nil, nil, err
		}
		out, err := fs.ReadFile(fsys, path+".out")
		if errors.Is(err, fs.ErrNotExist) {
			notes = append(notes, shown+": no expected output ("+path+".out), not run")
			continue
		} else if err != nil {
			return nil, nil, err
		}
		in, err := fs.ReadFile(fsys, path+".in")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		ops, err := bf.Parse(src)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", shown, err)
		}
		progs = append(progs, &Program{Kind: KindBF, Name: name, Source: src, Input: in, Output: out, Ops: ops})
	}
	return progs, notes, nil
}

// Kernels returns kiln's benchmark kernels as programs, at their benchmark
// arguments, or at their small test arguments when small is set.
func Kernels(small bool) []*Program {
	var progs []*Program
	for _, k := range testprogs.Kernels() {
		if slices.Contains(kernels.WithoutTwin, k.Name) {
			continue
		}
		args := k.Args
		if small {
			args = k.SmallArgs
		}
		progs = append(progs, &Program{Kind: KindKernel, Name: k.Name, Kernel: k, Args: args, Want: k.Native(args)})
	}
	return progs
}

// AllPrograms returns the Brainfuck programs (the bench module's own, then
// those in bfDir when it exists), the kernels and the C programs (at their
// small test arguments when small is set), and notes on what was left out.
func AllPrograms(bfDir string, small bool) (progs []*Program, notes []string, err error) {
	if progs, err = OwnBF(); err != nil {
		return nil, nil, err
	}
	shared, sharedNotes, err := SharedBF(bfDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		abs, _ := filepath.Abs(bfDir)
		notes = append(notes, fmt.Sprintf("no shared Brainfuck programs: %s does not exist (set KILN_BF_DIR)", abs))
	case err != nil:
		return nil, nil, err
	}
	for _, p := range shared {
		if slices.ContainsFunc(progs, func(q *Program) bool { return q.Name == p.Name }) {
			return nil, nil, fmt.Errorf("shared Brainfuck program %s has the name of one of the bench module's own", p.Name)
		}
	}
	notes = append(notes, sharedNotes...)
	progs = append(progs, shared...)
	progs = append(progs, Kernels(small)...)
	cprogs, err := CPrograms(small)
	if err != nil {
		return nil, nil, err
	}
	progs = append(progs, cprogs...)
	return progs, notes, nil
}
