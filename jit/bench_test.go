package jit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// BenchmarkKernelTiers runs every kernel at its benchmark input in every
// tier configuration (benchConfigs) and as native Go, all in the same
// benchmark for the same number of iterations, and reports:
//
//	<config>-ns/op, native-ns/op  time per call in each
//	x-interp    baseline time / interpreter time (below 1 is faster)
//	x-native    baseline time / native Go time
//	x-naive     baseline time / baseline-naive time: what alloc.Destruct
//	            gains over naive φ instantiation
//	optimizing-x-native    optimizing tier time / native Go time
//	optimizing-x-baseline  optimizing tier time / baseline time
//	optimizing-x-source    optimizing tier time / the same with blocks kept
//	                       in source order: what latency scheduling gains
//	optimizing-x-separate  optimizing tier time / the same with the separate
//	                       pipeline (prepass, linear scan, postpass)
func BenchmarkKernelTiers(b *testing.B) {
	ctx := context.Background()
	for _, k := range testprogs.Kernels() {
		b.Run(k.Name, func(b *testing.B) {
			want := k.Native(k.Args)
			fns := make([]*Function, len(benchConfigs))
			timed := -1 // the configuration b.Loop times
			for i, cfg := range benchConfigs {
				if cfg.name == "baseline" {
					timed = i
				}
				fns[i] = kernelFunc(b, cfg.name, cfg.opts, k, want)
			}
			res := make([]uint64, len(want))
			times := make(map[string]time.Duration, len(benchConfigs))
			calls := 0
			start := time.Now()
			for b.Loop() {
				if err := fns[timed].CallInto(ctx, k.Args, res); err != nil {
					b.Fatal(err)
				}
				calls++
			}
			times["baseline"] = time.Since(start)
			for i, cfg := range benchConfigs {
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
			for _, cfg := range benchConfigs {
				b.ReportMetric(per(times[cfg.name]), cfg.name+"-ns/op")
			}
			b.ReportMetric(per(native), "native-ns/op")
			base := float64(times["baseline"])
			b.ReportMetric(base/float64(times["interp"]), "x-interp")
			b.ReportMetric(base/float64(native), "x-native")
			b.ReportMetric(base/float64(times["baseline-naive"]), "x-naive")
			opt := float64(times["optimizing"])
			b.ReportMetric(opt/float64(native), "optimizing-x-native")
			b.ReportMetric(opt/base, "optimizing-x-baseline")
			b.ReportMetric(opt/float64(times["optimizing-source"]), "optimizing-x-source")
			b.ReportMetric(opt/float64(times["optimizing-separate"]), "optimizing-x-separate")
		})
	}
}

// kernelFunc loads kernel k under opts (configuration name), checks that
// it runs in opts.Tier and answers want, and returns its function.
func kernelFunc(b *testing.B, name string, opts Options, k testprogs.Kernel, want []uint64) *Function {
	b.Helper()
	mod, err := newEngine(b, opts).Load(k.Module)
	if err != nil {
		b.Fatal(err)
	}
	if mod.Tier() != opts.Tier {
		b.Fatalf("%s runs in %s: %v", k.Name, mod.Tier(), mod.CompileError())
	}
	inst, err := mod.Instantiate(nil)
	if err != nil {
		b.Fatal(err)
	}
	fn, err := inst.Func(k.Func)
	if err != nil {
		b.Fatal(err)
	}
	if got, err := fn.Call(context.Background(), k.Args...); err != nil || !slices.Equal(got, want) {
		b.Fatalf("%s in %s: %v %v, want %v", k.Name, name, got, err, want)
	}
	return fn
}

// BenchmarkCompile reports each compiled tier's compile time per bytecode
// instruction over all kernels and over a generated function of about
// 10k instructions, split by stage (lowering, out of SSA, register
// allocation, encoding, installation), the encoder's share of the whole,
// and the machine code size per bytecode instruction: the baseline with
// alloc.Destruct's coalescer (baseline) and with naive φ instantiation
// (baseline-naive), and the optimizing tier (optimizing).
func BenchmarkCompile(b *testing.B) {
	inputs := map[string][]*bytecode.Module{"generated-10k": {testprogs.GeneratedModule(10000, 1)}}
	for _, k := range testprogs.Kernels() {
		inputs["kernels"] = append(inputs["kernels"], k.Module)
	}
	for _, input := range []string{"kernels", "generated-10k"} {
		for _, cfg := range []tierConfig{
			{"baseline", Options{Tier: TierBaseline}},
			{"baseline-naive", Options{Tier: TierBaseline, NaiveOutOfSSA: true}},
			{"optimizing", Options{Tier: TierOptimizing}},
		} {
			b.Run(input+"/"+cfg.name, func(b *testing.B) {
				e := newEngine(b, cfg.opts)
				var total CompileStats
				for b.Loop() {
					for _, m := range inputs[input] {
						mod, err := e.Load(m)
						if err != nil || mod.Tier() != cfg.opts.Tier {
							b.Fatalf("%v %v", err, mod.CompileError())
						}
						s := mod.CompileStats()
						total.Instructions += s.Instructions
						total.CodeBytes += s.CodeBytes
						total.Lower += s.Lower
						total.OutOfSSA += s.OutOfSSA
						total.Alloc += s.Alloc
						total.Encode += s.Encode
						total.Install += s.Install
					}
				}
				n := float64(total.Instructions)
				b.ReportMetric(float64(total.Total())/n, "ns/instr")
				b.ReportMetric(float64(total.Lower)/n, "lower-ns/instr")
				b.ReportMetric(float64(total.OutOfSSA)/n, "outofssa-ns/instr")
				b.ReportMetric(float64(total.Alloc)/n, "alloc-ns/instr")
				b.ReportMetric(float64(total.Encode)/n, "encode-ns/instr")
				b.ReportMetric(float64(total.Install)/n, "install-ns/instr")
				b.ReportMetric(100*float64(total.Encode)/float64(total.Total()), "encode-%")
				b.ReportMetric(float64(total.CodeBytes)/n, "code-bytes/instr")
			})
		}
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
	for _, cfg := range benchConfigs {
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

// hostLoopSrc calls a host function n times from a loop.
const hostLoopSrc = `host tick (i64) -> (i64)
func loop (i64) -> (i64)
  regs i64 i64
  i64.const r1, 0
again:
  call_host tick (r1) -> (r2)
  i64.add r1, r1, 1
  br.lt_s r1, r0, again
  ret r2
end
export "loop" loop
`

// BenchmarkHostCallOverhead reports the cost of one call from compiled (or
// interpreted) code to a host function that does nothing, in each tier:
// the exit to Go, the call, the return and the resumption.
func BenchmarkHostCallOverhead(b *testing.B) {
	const n = 1000
	for _, cfg := range benchConfigs {
		b.Run(cfg.name, func(b *testing.B) {
			mod := loadTier(b, cfg.opts.Tier, cfg.opts, hostLoopSrc)
			inst, err := mod.Instantiate(Imports{"tick": RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64},
				func(_ *Caller, args, results []uint64) error {
					results[0] = args[0] + 1
					return nil
				})})
			if err != nil {
				b.Fatal(err)
			}
			f, err := inst.Func("loop")
			if err != nil {
				b.Fatal(err)
			}
			args, res := []uint64{n}, []uint64{0}
			ctx := context.Background()
			for b.Loop() {
				if err := f.CallInto(ctx, args, res); err != nil || res[0] != n {
					b.Fatal(res, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N*n), "ns/hostcall")
		})
	}
}

// callsSource calls a small function n times directly, through the table,
// and through a global (a loop that keeps its counter in a global).
const callsSource = `type unop (i64) -> (i64)
global count i64 mut = 0
table 1
elem 0 inc

func inc (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end

func direct (i64) -> (i64)
  regs i64
  i64.const r1, 0
loop:
  br.le_s r0, 0, done
  call inc (r1) -> (r1)
  i64.sub r0, r0, 1
  jump loop
done:
  ret r1
end

func indirect (i64) -> (i64)
  regs i64 i64
  i64.const r1, 0
  i64.const r2, 0
loop:
  br.le_s r0, 0, done
  call_indirect unop, r2 (r1) -> (r1)
  i64.sub r0, r0, 1
  jump loop
done:
  ret r1
end

func counted (i64) -> (i64)
  regs i64
  i64.const r1, 0
  global.set count, r1
loop:
  br.le_s r0, 0, done
  global.get r1, count
  i64.add r1, r1, 1
  global.set count, r1
  i64.sub r0, r0, 1
  jump loop
done:
  global.get r1, count
  ret r1
end

export "direct" direct
export "indirect" indirect
export "counted" counted
`

// BenchmarkCalls runs 10,000 calls of a one-instruction function directly
// and through call_indirect, and a loop of as many iterations whose
// counter lives in a global, in the interpreter and the compiled tiers,
// and reports each one's time per iteration and, per tier:
//
//	<tier>-indirect-x-direct  call_indirect time / direct call time (the
//	                          cost of the bounds and signature checks)
//	<tier>-global-x-direct    global loop time / direct call loop time
func BenchmarkCalls(b *testing.B) {
	const n = 10000
	ctx := context.Background()
	tiers := []Tier{TierInterp, TierBaseline, TierOptimizing}
	var fns [3][3]*Function
	for t, tier := range tiers {
		mod, err := newEngine(b, Options{Tier: tier}).LoadText([]byte(callsSource))
		if err != nil {
			b.Fatal(err)
		}
		if mod.Tier() != tier {
			b.Skipf("module runs in %s: %v", mod.Tier(), mod.CompileError())
		}
		inst, err := mod.Instantiate(nil)
		if err != nil {
			b.Fatal(err)
		}
		for k, name := range []string{"direct", "indirect", "counted"} {
			if fns[t][k], err = inst.Func(name); err != nil {
				b.Fatal(err)
			}
			if got, err := fns[t][k].Call(ctx, n); err != nil || got[0] != n {
				b.Fatalf("%s in %s = %v, %v; want %d", name, tier, got, err, n)
			}
		}
	}
	var times [3][3]time.Duration
	args, res := []uint64{n}, make([]uint64, 1)
	calls := 0
	start := time.Now()
	for b.Loop() {
		if err := fns[0][0].CallInto(ctx, args, res); err != nil {
			b.Fatal(err)
		}
		calls++
	}
	times[0][0] = time.Since(start)
	for t := range tiers {
		for k := range fns[t] {
			if t == 0 && k == 0 {
				continue
			}
			start := time.Now()
			for range calls {
				if err := fns[t][k].CallInto(ctx, args, res); err != nil {
					b.Fatal(err)
				}
			}
			times[t][k] = time.Since(start)
		}
	}
	for t, tier := range tiers {
		for k, name := range []string{"direct", "indirect", "global"} {
			b.ReportMetric(float64(times[t][k])/float64(calls*n), tier.String()+"-"+name+"-ns/iter")
		}
		b.ReportMetric(float64(times[t][1])/float64(times[t][0]), tier.String()+"-indirect-x-direct")
		b.ReportMetric(float64(times[t][2])/float64(times[t][0]), tier.String()+"-global-x-direct")
	}
}
