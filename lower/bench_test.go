package lower

import (
	"fmt"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/internal/testprogs"
)

// BenchmarkLowerKernels reports lowering throughput on the benchmark
// kernels in bytecode instructions per millisecond.
func BenchmarkLowerKernels(b *testing.B) {
	for _, k := range testprogs.Kernels() {
		b.Run(k.Name, func(b *testing.B) {
			instrs := k.Module.Instructions()
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
		m := testprogs.GeneratedModule(n, 7)
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
