package testprogs

import (
	"embed"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/kiln-jit/kiln/bytecode"
)

// The benchmark kernels and the hand-written test programs, in the text
// form. Each file is one module.
//
//go:embed kernels/*.kasm
var kernelSources embed.FS

// Kernel is a benchmark program with its inputs and a plain Go version of
// the same algorithm.
type Kernel struct {
	Name string
	// Module is assembled from the embedded source kernels/Name.kasm. It is
	// shared by every caller of Kernels and ProgramCases and must not be
	// modified.
	Module *bytecode.Module
	// Func is the exported entry point.
	Func string
	// Args is the benchmark input: it runs for roughly 1 to 50 ms in the
	// interpreter.
	Args []uint64
	// SmallArgs is a small input for correctness tests (well under 1 ms in
	// the interpreter).
	SmallArgs []uint64
	// Native runs the same algorithm in plain Go, with the same loop
	// structure and, where the bytecode uses linear memory, the same memory
	// layout in a Go []byte. Its results equal the bytecode's bit for bit
	// (f64 results as bits).
	Native func(args []uint64) []uint64
}

// Kernels returns the benchmark kernels. The modules are assembled once and
// shared; the returned slice is the caller's own. Kernels panics only if an
// embedded source does not assemble, which the package's tests rule out.
func Kernels() []Kernel {
	return slices.Clone(kernels())
}

var kernels = sync.OnceValue(func() []Kernel {
	mods := modules()
	k := func(name string, args, small []uint64, native func([]uint64) []uint64) Kernel {
		return Kernel{Name: name, Module: mods[name], Func: name, Args: args, SmallArgs: small, Native: native}
	}
	return []Kernel{
		k("fib", []uint64{I(27)}, []uint64{I(15)}, func(a []uint64) []uint64 {
			return []uint64{I(fibNative(int64(a[0])))}
		}),
		k("sieve", []uint64{I(400000)}, []uint64{I(1000)}, func(a []uint64) []uint64 {
			return []uint64{I(sieveNative(int64(a[0])))}
		}),
		k("matmul", []uint64{I(64)}, []uint64{I(8)}, func(a []uint64) []uint64 {
			return []uint64{F(matmulNative(int64(a[0])))}
		}),
		k("mandel", []uint64{I(96), I(200)}, []uint64{I(16), I(64)}, func(a []uint64) []uint64 {
			n, sum := mandelNative(int64(a[0]), int64(a[1]))
			return []uint64{I(n), F(sum)}
		}),
		k("switchloop", []uint64{I(2000), I(300), I(0x5eed)}, []uint64{I(200), I(5), I(1)}, func(a []uint64) []uint64 {
			return []uint64{switchloopNative(int64(a[0]), int64(a[1]), a[2])}
		}),
		k("crc32", []uint64{I(65536), I(0x12345678)}, []uint64{I(1000), I(42)}, func(a []uint64) []uint64 {
			crc, h := crc32Native(int64(a[0]), a[1])
			return []uint64{crc, h}
		}),
		k("sieve32", []uint64{I32(400000)}, []uint64{I32(1000)}, func(a []uint64) []uint64 {
			return []uint64{I32(sieve32Native(int32(a[0])))}
		}),
		k("hash32", []uint64{I32(200000), 0x9747b28c}, []uint64{I32(1001), I32(42)}, func(a []uint64) []uint64 {
			return []uint64{uint64(hash32Native(int32(a[0]), uint32(a[1])))}
		}),
		k("mandel32", []uint64{I32(96), I32(200)}, []uint64{I32(16), I32(64)}, func(a []uint64) []uint64 {
			n, sum := mandel32Native(int32(a[0]), int32(a[1]))
			return []uint64{I32(n), F32(sum)}
		}),
	}
})

// modules assembles every embedded source once, keyed by file name without
// the extension.
var modules = sync.OnceValue(func() map[string]*bytecode.Module {
	entries, err := kernelSources.ReadDir("kernels")
	if err != nil {
		panic(fmt.Sprintf("testprogs: %v", err))
	}
	mods := map[string]*bytecode.Module{}
	for _, e := range entries {
		src, err := kernelSources.ReadFile("kernels/" + e.Name())
		if err != nil {
			panic(fmt.Sprintf("testprogs: %v", err))
		}
		m, err := bytecode.Assemble(src)
		if err != nil {
			panic(fmt.Sprintf("testprogs: kernels/%s: %v", e.Name(), err))
		}
		name, _ := strings.CutSuffix(e.Name(), ".kasm")
		mods[name] = m
	}
	return mods
})

// ProgramCases returns the cases of the kernels and of the hand-written test
// programs. For every kernel there is a case at SmallArgs and cases at
// several other small inputs (edge cases such as empty inputs included),
// expecting what Native computes. The hand-written programs (calls with
// several results, select, conversions, memory.size and memory.grow, a
// switch with a default and repeated targets, recursion) have expected
// results worked out by hand, including traps at exact offsets, some in a
// callee, and memory contents after the call. Each case expects a fresh
// instance: memory as the module's data segments leave it.
func ProgramCases() []Case {
	var cases []Case
	for _, k := range kernels() {
		inputs := append([][]uint64{k.SmallArgs}, kernelInputs[k.Name]...)
		for _, args := range inputs {
			cases = append(cases, Case{
				Name:   fmt.Sprintf("%s%s", k.Name, formatArgs(k.Module, k.Func, args)),
				Module: k.Module,
				Func:   k.Func,
				Args:   slices.Clone(args),
				Want:   k.Native(args),
			})
		}
	}
	mods := modules()
	for _, p := range handCases() {
		c := p
		c.Module = mods[p.program]
		c.Case.Name = fmt.Sprintf("%s.%s%s", p.program, c.Func, formatArgs(c.Module, c.Func, c.Args))
		cases = append(cases, c.Case)
	}
	return cases
}

// kernelInputs are the small inputs, besides SmallArgs, of each kernel's
// cases.
var kernelInputs = map[string][][]uint64{
	"fib":        {{I(0)}, {I(1)}, {I(2)}, {I(-3)}, {I(10)}},
	"sieve":      {{I(0)}, {I(2)}, {I(3)}, {I(4)}, {I(100)}, {I(4099)}},
	"sieve32":    {{I32(0)}, {I32(2)}, {I32(3)}, {I32(-5)}, {I32(100)}, {I32(4099)}},
	"hash32":     {{I32(0), I32(0)}, {I32(1), I32(1)}, {I32(2), I32(7)}, {I32(3), I32(-1)}, {I32(4), I32(9)}, {I32(-8), I32(3)}},
	"mandel32":   {{I32(0), I32(10)}, {I32(1), I32(1)}, {I32(-4), I32(3)}, {I32(7), I32(0)}, {I32(13), I32(100)}},
	"matmul":     {{I(0)}, {I(1)}, {I(2)}, {I(3)}, {I(13)}},
	"mandel":     {{I(0), I(10)}, {I(1), I(5)}, {I(7), I(0)}, {I(5), I(1000)}, {I(24), I(100)}},
	"switchloop": {{I(0), I(3), I(7)}, {I(5), I(0), I(7)}, {I(1), I(1), I(0)}, {I(97), I(3), I(-1)}, {I(1000), I(1), I(12345)}},
	"crc32":      {{I(0), I(1)}, {I(1), I(0)}, {I(7), I(3)}, {I(8), I(0)}, {I(9), I(-1)}, {I(4099), I(-5)}},
}

// formatArgs prints arguments as "(1, 2.5)" using the function's parameter
// types.
func formatArgs(m *bytecode.Module, fn string, args []uint64) string {
	params := m.Funcs[m.ExportedFunc(fn)].Sig.Params
	s := "("
	for i, a := range args {
		if i > 0 {
			s += ","
		}
		if params[i] == bytecode.F64 {
			s += fmt.Sprint(math.Float64frombits(a))
		} else {
			s += fmt.Sprint(int64(a))
		}
	}
	return s + ")"
}

// programCase is a hand-written case of the program in kernels/program.kasm.
type programCase struct {
	program string
	Case
}

func handCases() []programCase {
	const (
		minI = math.MinInt64
		maxI = math.MaxInt64
	)
	var l []programCase
	ok := func(prog, fn string, args []uint64, want ...uint64) {
		l = append(l, programCase{prog, Case{Func: fn, Args: args, Want: want}})
	}
	trap := func(prog, fn string, args []uint64, kind bytecode.TrapKind, inFunc string, offset int) {
		l = append(l, programCase{prog, Case{Func: fn, Args: args, Trap: kind, TrapFunc: inFunc, TrapOffset: offset}})
	}
	withMemory := func(mem map[uint32][]byte) { l[len(l)-1].Memory = mem }
	args := func(a ...uint64) []uint64 { return a }
	le64 := func(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
	negZero := math.Copysign(0, -1)

	// arith: divmod and floor_divmod (several results through a call).
	ok("arith", "divmod", args(I(7), I(2)), I(3), I(1))
	ok("arith", "divmod", args(I(-7), I(2)), I(-3), I(-1))
	ok("arith", "divmod", args(I(minI), I(1)), I(minI), I(0))
	trap("arith", "divmod", args(I(7), I(0)), bytecode.TrapDivideByZero, "divmod", 0)
	trap("arith", "divmod", args(I(minI), I(-1)), bytecode.TrapIntegerOverflow, "divmod", 0)
	ok("arith", "floor_divmod", args(I(7), I(2)), I(3), I(1))
	ok("arith", "floor_divmod", args(I(-7), I(2)), I(-4), I(1))
	ok("arith", "floor_divmod", args(I(7), I(-2)), I(-4), I(-1))
	ok("arith", "floor_divmod", args(I(-7), I(-2)), I(3), I(-1))
	ok("arith", "floor_divmod", args(I(6), I(-3)), I(-2), I(0))
	ok("arith", "floor_divmod", args(I(minI), I(3)), I(-3074457345618258603), I(1))
	trap("arith", "floor_divmod", args(I(5), I(0)), bytecode.TrapDivideByZero, "divmod", 0)
	trap("arith", "floor_divmod", args(I(minI), I(-1)), bytecode.TrapIntegerOverflow, "divmod", 0)
	// minmax and spread: select, and results that are also arguments.
	ok("arith", "minmax", args(I(3), I(-9)), I(-9), I(3))
	ok("arith", "minmax", args(I(4), I(4)), I(4), I(4))
	ok("arith", "spread", args(I(5), I(-2), I(11)), I(13), I(-2), I(11))
	ok("arith", "spread", args(I(11), I(5), I(-2)), I(13), I(-2), I(11))
	ok("arith", "spread", args(I(-2), I(11), I(5)), I(13), I(-2), I(11))
	ok("arith", "spread", args(I(maxI), I(minI), I(0)), I(-1), I(minI), I(maxI))
	// round_trip: i64 -> f64 -> i64 rounding and saturation.
	ok("arith", "round_trip", args(I(12345)), F(12345), F(12345), I(12345), I(12345))
	ok("arith", "round_trip", args(I(1<<53+1)), F(1<<53), F(1<<53), I(1<<53), I(1<<53))
	ok("arith", "round_trip", args(I(-1)), F(-1), F(1<<64), I(-1), math.MaxUint64)
	ok("arith", "round_trip", args(I(maxI)), F(1<<63), F(1<<63), I(maxI), 1<<63)
	ok("arith", "round_trip", args(I(minI)), F(-1<<63), F(1<<63), I(minI), 1<<63)
	// scale_to_int: trapping truncation.
	ok("arith", "scale_to_int", args(F(2.5), I(3)), I(7))
	ok("arith", "scale_to_int", args(F(-1.25), I(4)), I(-5))
	ok("arith", "scale_to_int", args(F(-0.75), I(1)), I(0))
	ok("arith", "scale_to_int", args(F(-1<<62), I(2)), I(minI))
	trap("arith", "scale_to_int", args(F(1<<62), I(2)), bytecode.TrapIntegerOverflow, "", 2)
	trap("arith", "scale_to_int", args(F(1e18), I(-10)), bytecode.TrapIntegerOverflow, "", 2)
	trap("arith", "scale_to_int", args(F(math.Inf(1)), I(0)), bytecode.TrapInvalidConversion, "", 2)
	trap("arith", "scale_to_int", args(F(math.NaN()), I(1)), bytecode.TrapInvalidConversion, "", 2)
	// float_parts: rounding, signed zero, raw bits.
	ok("arith", "float_parts", args(F(2.5)), F(2), F(2), 0x4004000000000000, 0)
	ok("arith", "float_parts", args(F(3.5)), F(3), F(4), 0x400c000000000000, 0)
	ok("arith", "float_parts", args(F(-0.5)), F(-1), F(negZero), 0xbfe0000000000000, 1)
	ok("arith", "float_parts", args(F(negZero)), F(negZero), F(negZero), 1<<63, 1)

	// memory: the array [10, -20, 30, -40, 50] from the data segments.
	ok("memory", "get", args(I(0)), I(10))
	ok("memory", "get", args(I(1)), I(-20))
	ok("memory", "get", args(I(4)), I(50))
	trap("memory", "get", args(I(5)), bytecode.TrapExplicit, "", 6)
	trap("memory", "get", args(I(-1)), bytecode.TrapExplicit, "", 6)
	ok("memory", "push", args(I(-99)), I(6))
	withMemory(map[uint32][]byte{0: le64(6), 40: append(le64(50), le64(-99)...), 56: {0}})
	ok("memory", "peek", args(I(8)), I(10))
	ok("memory", "peek", args(I(4)), I(10<<32))
	ok("memory", "peek", args(I(bytecode.PageSize-8)), I(0))
	trap("memory", "peek", args(I(bytecode.PageSize-7)), bytecode.TrapOutOfBounds, "", 0)
	trap("memory", "peek", args(I(-1)), bytecode.TrapOutOfBounds, "", 0)
	ok("memory", "fill", args(I(100), I(4), I(0x1ff)), I(-4))
	withMemory(map[uint32][]byte{99: {0, 0xff, 0xff, 0xff, 0xff, 0}})
	ok("memory", "fill", args(I(200), I(0), I(1)), I(0))
	withMemory(map[uint32][]byte{200: {0}})
	ok("memory", "fill", args(I(bytecode.PageSize-3), I(3), I(7)), I(21))
	trap("memory", "fill", args(I(bytecode.PageSize-3), I(5), I(7)), bytecode.TrapOutOfBounds, "", 4)
	withMemory(map[uint32][]byte{bytecode.PageSize - 4: {0, 7, 7, 7}})
	ok("memory", "grow", args(I(0)), I(1), I(1), 0xab00)
	ok("memory", "grow", args(I(1)), I(1), I(2), 0xab00)
	withMemory(map[uint32][]byte{bytecode.PageSize - 1: {0}, 2*bytecode.PageSize - 2: {0, 0xab}})
	ok("memory", "grow", args(I(2)), I(1), I(3), 0xab00)
	ok("memory", "grow", args(I(3)), I(-1), I(1), I(-1))
	ok("memory", "grow", args(I(-1)), I(-1), I(1), I(-1))

	// control: switch, recursion, loops.
	for _, c := range [][2]int64{{0, 100}, {1, 101}, {2, 202}, {3, 203}, {4, 304}, {5, 205}, {6, 306}, {7, 207}, {8, -1}, {-1, -1}, {minI, -1}} {
		ok("control", "classify", args(I(c[0])), I(c[1]))
	}
	ok("control", "ack", args(I(0), I(0)), I(1))
	ok("control", "ack", args(I(1), I(5)), I(7))
	ok("control", "ack", args(I(2), I(3)), I(9))
	ok("control", "ack", args(I(3), I(3)), I(61))
	ok("control", "ack", args(I(3), I(4)), I(125))
	ok("control", "sum_down", args(I(-5)), I(0))
	ok("control", "sum_down", args(I(10)), I(55))
	ok("control", "sum_down", args(I(500)), I(125250))
	ok("control", "collatz", args(I(1)), I(0), I(1))
	ok("control", "collatz", args(I(6)), I(8), I(16))
	ok("control", "collatz", args(I(27)), I(111), I(9232))
	ok("control", "collatz", args(I(97)), I(118), I(9232))
	trap("control", "collatz", args(I(0)), bytecode.TrapExplicit, "", 14)
	trap("control", "collatz", args(I(-6)), bytecode.TrapExplicit, "", 14)
	ok("control", "gcd", args(I(48), I(18)), I(6))
	ok("control", "gcd", args(I(0), I(0)), I(0))
	ok("control", "gcd", args(I(-2), I(6)), I(2))
	ok("control", "lcm", args(I(4), I(6)), I(12))
	ok("control", "lcm", args(I(21), I(6)), I(42))
	ok("control", "lcm", args(I(0), I(5)), I(0))
	trap("control", "lcm", args(I(0), I(0)), bytecode.TrapDivideByZero, "", 1)
	return l
}

// The native Go versions of the kernels. They follow the bytecode closely:
// same loops, same order of floating-point operations (products are
// converted explicitly so that the compiler cannot fuse them into
// multiply-adds), same memory layout.

func fibNative(n int64) int64 {
	if n < 2 {
		return n
	}
	return fibNative(n-1) + fibNative(n-2)
}

func sieveNative(n int64) int64 {
	if n <= 2 {
		return 0
	}
	flags := make([]byte, n)
	for i := int64(0); i < n; i++ {
		flags[i] = 1
	}
	var count int64
	for i := int64(2); i < n; i++ {
		if flags[i] == 0 {
			continue
		}
		count++
		for j := i * i; j < n; j += i {
			flags[j] = 0
		}
	}
	return count
}

func loadF64(mem []byte, addr int64) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(mem[addr:]))
}

func storeF64(mem []byte, addr int64, v float64) {
	binary.LittleEndian.PutUint64(mem[addr:], math.Float64bits(v))
}

func matmulNative(n int64) float64 {
	if n <= 0 {
		return 0
	}
	stride := 8 * n
	bBase := stride * n
	cBase := 2 * bBase
	mem := make([]byte, 3*bBase)
	for i := int64(0); i < n; i++ {
		for j := int64(0); j < n; j++ {
			addr := (i*n + j) * 8
			storeF64(mem, addr, float64((2*j+i)%7)-3)
			storeF64(mem, addr+bBase, float64((3*i+j)%5)*0.5)
		}
	}
	for i := int64(0); i < n; i++ {
		for j := int64(0); j < n; j++ {
			pa := i * stride
			end := pa + stride
			pb := j*8 + bBase
			sum := 0.0
			for pa < end {
				sum += float64(loadF64(mem, pa) * loadF64(mem, pb))
				pa += 8
				pb += stride
			}
			storeF64(mem, (i*n+j)*8+cBase, sum)
		}
	}
	total := 0.0
	for p := cBase; p < cBase+bBase; p += 8 {
		total += loadF64(mem, p)
	}
	return total
}

func mandelNative(size, maxiter int64) (int64, float64) {
	var total int64
	check := 0.0
	if size <= 0 {
		return 0, 0
	}
	scale := 2.5 / float64(size)
	for y := int64(0); y < size; y++ {
		ci := float64(float64(y)*scale) - 1.25
		for x := int64(0); x < size; x++ {
			cr := float64(float64(x)*scale) - 2
			zr, zi := 0.0, 0.0
			it := int64(0)
			for it < maxiter {
				zr2 := float64(zr * zr)
				zi2 := float64(zi * zi)
				if zr2+zi2 > 4 {
					break
				}
				t := float64(zr * zi)
				zi = t + t + ci
				zr = zr2 - zi2 + cr
				it++
			}
			total += it
			check += float64(zr*zr) + float64(zi*zi)
		}
	}
	return total, check
}

// switchloopArgs is the address of the argument bytes in switchloop.
const switchloopArgs = 32768

func switchloopNative(length, reps int64, seed uint64) uint64 {
	acc, x := seed, uint64(0)
	if length <= 0 || reps <= 0 {
		return acc ^ x
	}
	mem := make([]byte, 2*switchloopArgs)
	s := seed
	for pc := int64(0); pc < length; pc++ {
		s = s*6364136223846793005 + 1442695040888963407
		mem[pc] = byte((s >> 32) % 12)
		mem[pc+switchloopArgs] = byte(s >> 24)
	}
	for rep := int64(0); rep < reps; rep++ {
		for pc := int64(0); pc < length; pc++ {
			op, arg := mem[pc], uint64(mem[pc+switchloopArgs])
			switch op {
			case 0:
				acc += arg
			case 1:
				acc -= arg
			case 2:
				acc *= arg | 1
			case 3:
				acc ^= acc >> (arg & 31)
			case 4:
				acc = bits.RotateLeft64(acc, int(arg&63))
			case 5:
				x += acc
			case 6:
				acc, x = x, acc
			case 7:
				acc &= 0xffffffff
			case 8:
				if acc&1 != 0 {
					acc = acc*3 + 1
				}
			case 9:
				x ^= arg
				acc += x
			default:
				acc = ^acc + arg
			}
		}
	}
	return acc ^ x
}

func crc32Native(n int64, seed uint64) (crc, hash uint64) {
	if n <= 0 {
		return 0, 0
	}
	x := seed
	if x == 0 {
		x = 0x9e3779b97f4a7c15
	}
	mem := make([]byte, (n+7)&^7)
	for i := int64(0); i < n; i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(mem[i:], x)
	}
	crc = 0xffffffff
	for i := int64(0); i < n; i++ {
		crc ^= uint64(mem[i])
		for k := 8; k != 0; k-- {
			mask := -(crc & 1) & 0xedb88320
			crc = crc>>1 ^ mask
		}
	}
	for i := int64(0); i+8 <= n; i += 8 {
		w := binary.LittleEndian.Uint64(mem[i:])
		hash = bits.RotateLeft64(hash^w, 27)*0x9e3779b97f4a7c15 + uint64(bits.OnesCount64(w))
	}
	return crc ^ 0xffffffff, hash
}
