package lower

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// generatedModule builds a function of about n instructions: runs of
// integer and float arithmetic, loads and stores, over 32 registers, cut
// into blocks by forward branches, with a loop around every few blocks, so
// SSA construction sees φs, joins and back edges throughout.
func generatedModule(n int, seed uint64) *bc.Module {
	r := rand.New(rand.NewPCG(seed, 1))
	b := bc.NewModuleBuilder().Memory(1, 1)
	f := b.Func("gen", []bc.Type{bc.I64}, []bc.Type{bc.I64})
	var ints, floats []bc.Reg
	ints = append(ints, f.Param(0))
	for len(ints) < 24 {
		ints = append(ints, f.NewReg(bc.I64))
	}
	for len(floats) < 8 {
		floats = append(floats, f.NewReg(bc.F64))
	}
	ri := func() bc.Reg { return ints[r.IntN(len(ints))] }
	rf := func() bc.Reg { return floats[r.IntN(len(floats))] }
	intOps := []bc.Op{bc.OpI64Add, bc.OpI64Sub, bc.OpI64Mul, bc.OpI64And, bc.OpI64Or, bc.OpI64Xor, bc.OpI64Shl, bc.OpI64ShrU}
	floatOps := []bc.Op{bc.OpF64Add, bc.OpF64Sub, bc.OpF64Mul}
	counter := f.NewReg(bc.I64)
	for f.Len() < n {
		// A loop of a few blocks.
		f.I64Const(counter, 0)
		loop := f.NewLabel()
		f.Bind(loop)
		for blk := 0; blk < 4; blk++ {
			skip := f.NewLabel()
			for k := 0; k < 6; k++ {
				switch x := r.IntN(10); {
				case x < 5:
					if r.IntN(2) == 0 {
						f.Binary(intOps[r.IntN(len(intOps))], ri(), ri(), ri())
					} else {
						f.BinaryImm(intOps[r.IntN(len(intOps))], ri(), ri(), int64(r.IntN(100)))
					}
				case x < 7:
					f.Binary(floatOps[r.IntN(len(floatOps))], rf(), rf(), rf())
				case x < 8:
					f.Unary(bc.OpF64ConvertI64S, rf(), ri())
				case x < 9:
					a := ri()
					f.BinaryImm(bc.OpI64And, a, a, 0xff0)
					f.Load(bc.OpI64Load, ri(), a, 8)
				default:
					a := ri()
					f.BinaryImm(bc.OpI64And, a, a, 0xff0)
					f.Store(bc.OpI64Store, a, ri(), 0)
				}
			}
			f.BrCmp(bc.OpBrLtS, ri(), ri(), skip)
			f.BinaryImm(bc.OpI64Add, ri(), ri(), 1)
			f.Bind(skip)
		}
		f.BinaryImm(bc.OpI64Add, counter, counter, 1)
		f.BrCmpImm(bc.OpBrLtS, counter, 3, loop)
	}
	f.Return(ints[1])
	b.Export("gen", f)
	m, err := b.Build()
	if err != nil {
		panic(err)
	}
	return m
}

// BenchmarkLowerKernels reports lowering throughput on the benchmark
// kernels in bytecode instructions per millisecond.
func BenchmarkLowerKernels(b *testing.B) {
	for _, k := range testprogs.Kernels() {
		b.Run(k.Name, func(b *testing.B) {
			instrs := 0
			for _, f := range k.Module.Funcs {
				instrs += len(f.Code)
			}
			start := time.Now()
			for b.Loop() {
				if _, err := Module(k.Module, FullTarget()); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			b.ReportMetric(float64(instrs)*float64(b.N)/(float64(elapsed)/float64(time.Millisecond)), "instr/ms")
			b.ReportMetric(float64(elapsed)/float64(b.N)/float64(instrs), "ns/instr")
		})
	}
}

// BenchmarkLowerScaling lowers generated functions of 1k, 10k and 100k
// instructions; ns/instr staying flat shows lowering is linear in the
// function's size.
func BenchmarkLowerScaling(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		m := generatedModule(n, 7)
		size := len(m.Funcs[0].Code)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if _, err := Func(m, 0, Options{Target: FullTarget()}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(size), "ns/instr")
		})
	}
}
