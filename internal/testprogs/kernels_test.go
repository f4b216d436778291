package testprogs_test

import (
	"context"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/interp"
)

// instance is a fresh interpreter instance of a module.
type instance struct {
	mach *interp.Machine
}

func newInstance(t testing.TB, m *bytecode.Module) *instance {
	t.Helper()
	p, err := interp.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	mem := testrun.Memory(m)
	mach, err := interp.NewMachine(p, interp.Config{}, nil, mem)
	if err != nil {
		t.Fatal(err)
	}
	return &instance{mach}
}

func (in *instance) call(t testing.TB, name string, args []uint64) ([]uint64, error) {
	t.Helper()
	m := in.mach.Program().Module
	fn := m.ExportedFunc(name)
	if fn < 0 {
		t.Fatalf("no export %q", name)
	}
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	err := in.mach.Call(context.Background(), fn, args, res)
	return res, err
}

func TestProgramCasesInInterpreter(t *testing.T) {
	cases := testprogs.ProgramCases()
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.Name] {
			t.Errorf("duplicate case name %q", c.Name)
		}
		names[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			in := newInstance(t, c.Module)
			got, err := in.call(t, c.Func, c.Args)
			if err := c.Check(got, err, in.mach.Memory.Bytes); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestProgramCasesAreDeterministic(t *testing.T) {
	a, b := testprogs.ProgramCases(), testprogs.ProgramCases()
	if len(a) != len(b) {
		t.Fatalf("%d cases, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !slices.Equal(a[i].Args, b[i].Args) || !slices.Equal(a[i].Want, b[i].Want) {
			t.Fatalf("case %d differs between calls: %q and %q", i, a[i].Name, b[i].Name)
		}
	}
}

// trapOps lists, for each trap kind the cases expect, the opcodes that can
// raise it.
var trapOps = map[bytecode.TrapKind][]bytecode.Op{
	bytecode.TrapDivideByZero:      {bytecode.OpI64DivS, bytecode.OpI64DivU, bytecode.OpI64RemS, bytecode.OpI64RemU},
	bytecode.TrapIntegerOverflow:   {bytecode.OpI64DivS, bytecode.OpI64TruncF64S, bytecode.OpI64TruncF64U},
	bytecode.TrapInvalidConversion: {bytecode.OpI64TruncF64S, bytecode.OpI64TruncF64U},
	bytecode.TrapOutOfBounds: {
		bytecode.OpI64Load8S, bytecode.OpI64Load8U, bytecode.OpI64Load16S, bytecode.OpI64Load16U,
		bytecode.OpI64Load32S, bytecode.OpI64Load32U, bytecode.OpI64Load, bytecode.OpF64Load,
		bytecode.OpI64Store8, bytecode.OpI64Store16, bytecode.OpI64Store32, bytecode.OpI64Store, bytecode.OpF64Store,
	},
	bytecode.TrapExplicit: {bytecode.OpTrap},
}

// TestTrapOffsets checks that every trap case names an instruction that can
// raise the expected trap, so that a miscounted offset is caught even if
// an executor were to agree with it.
func TestTrapOffsets(t *testing.T) {
	n := 0
	for _, c := range testprogs.ProgramCases() {
		if c.Trap == bytecode.TrapNone {
			continue
		}
		n++
		name := c.TrapFunc
		if name == "" {
			name = c.Func
		}
		fi := c.Module.FuncIndex(name)
		if fi < 0 {
			t.Errorf("%s: no function %q", c.Name, name)
			continue
		}
		code := c.Module.Funcs[fi].Code
		if c.TrapOffset < 0 || c.TrapOffset >= len(code) {
			t.Errorf("%s: offset %d outside %s", c.Name, c.TrapOffset, name)
			continue
		}
		if op := code[c.TrapOffset].Op; !slices.Contains(trapOps[c.Trap], op) {
			t.Errorf("%s: %s at %s+%d cannot trap %q", c.Name, op, name, c.TrapOffset, c.Trap)
		}
	}
	if n < 10 {
		t.Errorf("only %d trap cases", n)
	}
}

// TestKernelsNativeMatchesInterpreter runs every kernel at SmallArgs and at
// its other case inputs on one instance, in two orders, so that memory left
// over from an earlier call cannot change a result.
func TestKernelsNativeMatchesInterpreter(t *testing.T) {
	cases := testprogs.ProgramCases()
	for _, k := range testprogs.Kernels() {
		t.Run(k.Name, func(t *testing.T) {
			if k.Module.ExportedFunc(k.Func) < 0 {
				t.Fatalf("no export %q", k.Func)
			}
			var inputs [][]uint64
			inputs = append(inputs, k.SmallArgs)
			for _, c := range cases {
				if c.Module == k.Module {
					inputs = append(inputs, c.Args)
				}
			}
			if len(inputs) < 5 {
				t.Fatalf("only %d inputs", len(inputs))
			}
			in := newInstance(t, k.Module)
			check := func(args []uint64) {
				got, err := in.call(t, k.Func, args)
				if err != nil {
					t.Fatalf("%v: %v", args, err)
				}
				if want := k.Native(args); !slices.Equal(got, want) {
					t.Errorf("%s%v: interpreter %#x, native %#x", k.Name, args, got, want)
				}
			}
			for _, args := range inputs {
				check(args)
			}
			for _, args := range slices.Backward(inputs) {
				check(args)
			}
		})
	}
}

// TestKernelBenchmarkArgs runs every kernel once at its benchmark input in
// the interpreter and compares with the native version.
func TestKernelBenchmarkArgs(t *testing.T) {
	if testing.Short() {
		t.Skip("benchmark-size inputs")
	}
	for _, k := range testprogs.Kernels() {
		in := newInstance(t, k.Module)
		got, err := in.call(t, k.Func, k.Args)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		if want := k.Native(k.Args); !slices.Equal(got, want) {
			t.Errorf("%s%v: interpreter %#x, native %#x", k.Name, k.Args, got, want)
		}
	}
}

func kernel(t *testing.T, name string) testprogs.Kernel {
	t.Helper()
	for _, k := range testprogs.Kernels() {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no kernel %q", name)
	return testprogs.Kernel{}
}

// TestKernelsKnownValues checks the native versions against values known
// independently of this package.
func TestKernelsKnownValues(t *testing.T) {
	run := func(name string, args ...uint64) []uint64 { return kernel(t, name).Native(args) }
	for n, want := range map[int64]int64{0: 0, 1: 1, 2: 1, 10: 55, 20: 6765, -4: -4} {
		if got := int64(run("fib", uint64(n))[0]); got != want {
			t.Errorf("fib(%d) = %d, want %d", n, got, want)
		}
	}
	for n, want := range map[int64]int64{0: 0, 2: 0, 3: 1, 10: 4, 100: 25, 1000: 168, 1 << 16: 6542} {
		if got := int64(run("sieve", uint64(n))[0]); got != want {
			t.Errorf("sieve(%d) = %d, want %d", n, got, want)
		}
	}
	// A 1x1 multiplication is A[0][0]*B[0][0] = -3 * 0.
	if got := run("matmul", 1)[0]; got != testprogs.F(0) {
		t.Errorf("matmul(1) = %#x", got)
	}
}

// TestCRC32MatchesStandardLibrary checks the crc32 kernel's result in the
// interpreter against hash/crc32 over the bytes it left in memory.
func TestCRC32MatchesStandardLibrary(t *testing.T) {
	k := kernel(t, "crc32")
	for _, n := range []int64{1, 7, 8, 100, 4099} {
		in := newInstance(t, k.Module)
		got, err := in.call(t, k.Func, []uint64{uint64(n), 99})
		if err != nil {
			t.Fatal(err)
		}
		if want := crc32.ChecksumIEEE(in.mach.Memory.Bytes[:n]); got[0] != uint64(want) {
			t.Errorf("crc32(%d) = %#x, hash/crc32 says %#x", n, got[0], want)
		}
	}
}

// TestSwitchloopTakesEveryCase checks that the switchloop kernel's dispatch
// switch takes every table entry and its default at SmallArgs.
func TestSwitchloopTakesEveryCase(t *testing.T) {
	k := kernel(t, "switchloop")
	in := newInstance(t, k.Module)
	if _, err := in.call(t, k.Func, k.SmallArgs); err != nil {
		t.Fatal(err)
	}
	fn := k.Module.ExportedFunc(k.Func)
	layout := in.mach.Program().Layouts[fn]
	counts := layout.EdgeCounts(in.mach.Counters[fn])
	switches := 0
	for _, blk := range layout.Blocks {
		if blk.Last != bytecode.OpSwitch {
			continue
		}
		switches++
		if blk.NumEdges < 9 {
			t.Errorf("switch with %d edges, want 8 cases and a default at least", blk.NumEdges)
		}
		for e := blk.FirstEdge; e < blk.FirstEdge+blk.NumEdges; e++ {
			if counts[e] == 0 {
				t.Errorf("switch edge %d (%s %d) never taken", e, layout.Edges[e].Kind, layout.Edges[e].Case)
			}
		}
	}
	if switches != 1 {
		t.Errorf("%d switches, want 1", switches)
	}
}
