package encode_test

import (
	"slices"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/runtime"
)

// BenchmarkSightglassEncode loads the sightglass module rust-compression
// on the optimizing tier (one compile worker) with the instruction lists
// assembled from the forms and by golang-asm alone, alternating between
// the two in every iteration so that both see the same machine, and
// reports the encode stage (CompileStats.Encode) of each: the least and
// the median over the iterations, in milliseconds.
func BenchmarkSightglassEncode(b *testing.B) {
	if !runtime.Supported() {
		b.Skip("compiled tiers are not supported on this platform")
	}
	m := wasmModule(b, "../bench/testdata/sightglass/rust-compression.wasm")
	e, err := jit.NewEngine(jit.Options{Tier: jit.TierOptimizing, CompileWorkers: 1})
	if err != nil {
		b.Fatal(err)
	}
	var times [2][]time.Duration
	for b.Loop() {
		for i, golangAsm := range []bool{false, true} {
			restore := encode.SetGolangAsm(golangAsm)
			mod, err := e.Load(m)
			restore()
			if err != nil {
				b.Fatal(err)
			}
			times[i] = append(times[i], mod.CompileStats().Encode)
		}
	}
	for i, name := range []string{"forms", "golang-asm"} {
		slices.Sort(times[i])
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(times[i][0]), name+"-min-ms")
		b.ReportMetric(ms(times[i][len(times[i])/2]), name+"-median-ms")
	}
}
