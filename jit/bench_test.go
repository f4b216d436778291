package jit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/internal/testprogs"
)

// BenchmarkKernelTiers runs every kernel at its benchmark input in every
// tier configuration (tierConfigs) and as native Go, all in the same
// benchmark for the same number of iterations, and reports:
//
//	<config>-ns/op, native-ns/op  time per call in each
//	x-interp    baseline time / interpreter time (below 1 is faster)
//	x-native    baseline time / native Go time
//	x-naive     baseline time / baseline-naive time: what alloc.Destruct
//	            gains over naive φ instantiation
func BenchmarkKernelTiers(b *testing.B) {
	ctx := context.Background()
	for _, k := range testprogs.Kernels() {
		b.Run(k.Name, func(b *testing.B) {
			want := k.Native(k.Args)
			fns := make([]*Function, len(tierConfigs))
			timed := -1 // the configuration b.Loop times
			for i, cfg := range tierConfigs {
				if cfg.name == "baseline" {
					timed = i
				}
				mod, err := newEngine(b, cfg.opts).Load(k.Module)
				if err != nil {
					b.Fatal(err)
				}
				if mod.Tier() != cfg.opts.Tier {
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
					b.Fatalf("%s in %s: %v %v, want %v", k.Name, cfg.name, got, err, want)
				}
			}
			res := make([]uint64, len(want))
			times := make(map[string]time.Duration, len(tierConfigs))
			calls := 0
			start := time.Now()
			for b.Loop() {
				if err := fns[timed].CallInto(ctx, k.Args, res); err != nil {
					b.Fatal(err)
				}
				calls++
			}
			times["baseline"] = time.Since(start)
			for i, cfg := range tierConfigs {
				if i == timed {
					continue
				}
				start = time.Now()
				for range calls {
					if err := fns[i].CallInto(ctx, k.Args, res); err != nil {
						b.Fatal(err)
					}
				}
				times[cfg.name] = time.Since(start)
			}
			start = time.Now()
			for range calls {
				if got := k.Native(k.Args); got[0] != want[0] {
					b.Fatal("native result changed")
				}
			}
			native := time.Since(start)
			per := func(d time.Duration) float64 { return float64(d) / float64(calls) }
			for _, cfg := range tierConfigs {
				b.ReportMetric(per(times[cfg.name]), cfg.name+"-ns/op")
			}
			b.ReportMetric(per(native), "native-ns/op")
			base := float64(times["baseline"])
			b.ReportMetric(base/float64(times["interp"]), "x-interp")
			b.ReportMetric(base/float64(native), "x-native")
			b.ReportMetric(base/float64(times["baseline-naive"]), "x-naive")
		})
	}
}

// BenchmarkCompileBaseline reports the baseline tier's compile time per
// bytecode instruction over all kernels, split by stage, and the
// encoder's share of the whole, with alloc.Destruct (destruct) and with
// naive φ instantiation (naive). It also reports the machine code size
// per bytecode instruction, which shrinks with the copies Destruct saves.
func BenchmarkCompileBaseline(b *testing.B) {
	for _, naive := range []bool{false, true} {
		name := "destruct"
		if naive {
			name = "naive"
		}
		b.Run(name, func(b *testing.B) {
			e := newEngine(b, Options{Tier: TierBaseline, NaiveOutOfSSA: naive})
			var total CompileStats
			for b.Loop() {
				for _, k := range testprogs.Kernels() {
					mod, err := e.Load(k.Module)
					if err != nil || mod.Tier() != TierBaseline {
						b.Fatalf("%s: %v %v", k.Name, err, mod.CompileError())
					}
					s := mod.CompileStats()
					total.Instructions += s.Instructions
					total.CodeBytes += s.CodeBytes
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
			b.ReportMetric(float64(total.CodeBytes)/n, "code-bytes/instr")
		})
	}
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
	for _, cfg := range tierConfigs {
		b.Run(cfg.name, func(b *testing.B) {
			mod := loadTier(b, cfg.opts.Tier, cfg.opts, identitySrc)
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
