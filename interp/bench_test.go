package interp

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/internal/testprogs"
)

// BenchmarkKernels runs every benchmark kernel of package testprogs at its
// benchmark input, in the interpreter and, in the same run and for the same
// number of iterations, as native Go. Besides ns/op (the interpreter's time
// per call) it reports:
//
//	interp-ns/op  interpreter time per call (as ns/op)
//	native-ns/op  time per call of the kernel's native Go version
//	x-native      interp-ns/op / native-ns/op
//	instr/op      bytecode instructions executed per call (from the edge counters)
//	ns/instr      interpreter time per executed bytecode instruction
//
// Kernels initialise all the memory they read, so one machine serves every
// iteration.
func BenchmarkKernels(b *testing.B) {
	ctx := context.Background()
	for _, k := range testprogs.Kernels() {
		b.Run(k.Name, func(b *testing.B) {
			m := k.Module
			mach := newMachine(b, m, Config{})
			fn := m.ExportedFunc(k.Func)
			if fn < 0 {
				b.Fatalf("no export %q", k.Func)
			}
			res := make([]uint64, len(m.Funcs[fn].Sig.Results))

			// One untimed call checks the interpreter against the native
			// version (and warms up); the counters then restart from zero.
			want := k.Native(k.Args)
			if err := mach.Call(ctx, fn, k.Args, res); err != nil {
				b.Fatal(err)
			}
			if !slices.Equal(res, want) {
				b.Fatalf("interpreter %#x, native %#x", res, want)
			}
			for _, c := range mach.Counters {
				clear(c)
			}

			calls := 0
			start := time.Now()
			for b.Loop() {
				if err := mach.Call(ctx, fn, k.Args, res); err != nil {
					b.Fatal(err)
				}
				calls++
			}
			interpTime := time.Since(start)

			// b.Loop has stopped the timer: the native loop does not count
			// towards ns/op. Comparing every result keeps the calls alive.
			start = time.Now()
			for range calls {
				if got := k.Native(k.Args); !slices.Equal(got, want) {
					b.Fatalf("native %#x, want %#x", got, want)
				}
			}
			nativeTime := time.Since(start)

			var instrs uint64
			for i, l := range mach.Program().Layouts {
				instrs += l.ExecutedInstructions(mach.Counters[i])
			}
			if calls == 0 || instrs == 0 {
				b.Fatalf("%d calls executed %d instructions", calls, instrs)
			}
			interpNs := float64(interpTime.Nanoseconds()) / float64(calls)
			nativeNs := float64(nativeTime.Nanoseconds()) / float64(calls)
			b.ReportMetric(interpNs, "interp-ns/op")
			b.ReportMetric(nativeNs, "native-ns/op")
			b.ReportMetric(interpNs/nativeNs, "x-native")
			b.ReportMetric(float64(instrs)/float64(calls), "instr/op")
			b.ReportMetric(float64(interpTime.Nanoseconds())/float64(instrs), "ns/instr")
		})
	}
}
