package jit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/internal/testprogs"
)

// BenchmarkKernelTiers runs every kernel at its benchmark input in the
// interpreter, in the baseline compiled tier and as native Go, all in the
// same benchmark for the same number of iterations, and reports:
//
//	interp-ns/op, baseline-ns/op, native-ns/op  time per call in each
//	x-interp    baseline time / interpreter time (below 1 is faster)
//	x-native    baseline time / native Go time
func BenchmarkKernelTiers(b *testing.B) {
	ctx := context.Background()
	for _, k := range testprogs.Kernels() {
		b.Run(k.Name, func(b *testing.B) {
			want := k.Native(k.Args)
			fns := make([]*Function, len(tiers))
			for i, tier := range tiers {
				mod, err := newEngine(b, Options{Tier: tier}).Load(k.Module)
				if err != nil {
					b.Fatal(err)
				}
				if mod.Tier() != tier {
					b.Fatalf("%s runs in %s: %v", k.Name, mod.Tier(), mod.CompileError())
				}
				inst, err := mod.Instantiate(nil)
				if err != nil {
					b.Fatal(err)
				}
				if fns[i], err = inst.Func(k.Func); err != nil {
					b.Fatal(err)
				}
				if got, err := fns[i].Call(ctx, k.Args...); err != nil || !slices.Equal(got, want) {
					b.Fatalf("%s in %s: %v %v, want %v", k.Name, tier, got, err, want)
				}
			}
			res := make([]uint64, len(want))
			times := make([]time.Duration, len(tiers))
			calls := 0
			start := time.Now()
			for b.Loop() {
				// The baseline tier is what b.Loop times; the others are
				// timed alongside with the same number of calls.
				if err := fns[1].CallInto(ctx, k.Args, res); err != nil {
					b.Fatal(err)
				}
				calls++
			}
			times[1] = time.Since(start)
			start = time.Now()
			for range calls {
				if err := fns[0].CallInto(ctx, k.Args, res); err != nil {
					b.Fatal(err)
				}
			}
			times[0] = time.Since(start)
			start = time.Now()
			for range calls {
				if got := k.Native(k.Args); got[0] != want[0] {
					b.Fatal("native result changed")
				}
			}
			native := time.Since(start)
			per := func(d time.Duration) float64 { return float64(d) / float64(calls) }
			b.ReportMetric(per(times[0]), "interp-ns/op")
			b.ReportMetric(per(times[1]), "baseline-ns/op")
			b.ReportMetric(per(native), "native-ns/op")
			b.ReportMetric(float64(times[1])/float64(times[0]), "x-interp")
			b.ReportMetric(float64(times[1])/float64(native), "x-native")
		})
	}
}

// BenchmarkCompileBaseline reports the baseline tier's compile time per
// bytecode instruction over all kernels, split by stage, and the
// encoder's share of the whole.
func BenchmarkCompileBaseline(b *testing.B) {
	e := newEngine(b, Options{Tier: TierBaseline})
	var total CompileStats
	for b.Loop() {
		for _, k := range testprogs.Kernels() {
			mod, err := e.Load(k.Module)
			if err != nil || mod.Tier() != TierBaseline {
				b.Fatalf("%s: %v %v", k.Name, err, mod.CompileError())
			}
			s := mod.CompileStats()
			total.Instructions += s.Instructions
			total.Lower += s.Lower
			total.Alloc += s.Alloc
			total.Encode += s.Encode
			total.Install += s.Install
		}
	}
	n := float64(total.Instructions)
	b.ReportMetric(float64(total.Total())/n, "ns/instr")
	b.ReportMetric(float64(total.Lower)/n, "lower-ns/instr")
	b.ReportMetric(float64(total.Alloc)/n, "alloc-ns/instr")
	b.ReportMetric(float64(total.Encode)/n, "encode-ns/instr")
	b.ReportMetric(float64(total.Install)/n, "install-ns/instr")
	b.ReportMetric(100*float64(total.Encode)/float64(total.Total()), "encode-%")
}

const identitySrc = `
func id (i64) -> (i64)
  ret r0
end
export "id" id
`

// BenchmarkCallOverhead measures a call from Go of a function that returns
// its argument, through Function.CallInto, in each tier.
func BenchmarkCallOverhead(b *testing.B) {
	for _, tier := range tiers {
		b.Run(tier.String(), func(b *testing.B) {
			mod := loadTier(b, tier, Options{}, identitySrc)
			inst, err := mod.Instantiate(nil)
			if err != nil {
				b.Fatal(err)
			}
			f, err := inst.Func("id")
			if err != nil {
				b.Fatal(err)
			}
			args, res := []uint64{7}, []uint64{0}
			ctx := context.Background()
			for b.Loop() {
				if err := f.CallInto(ctx, args, res); err != nil || res[0] != 7 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
