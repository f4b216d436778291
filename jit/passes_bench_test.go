package jit

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	kilnrt "github.com/kiln-jit/kiln/runtime"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// sightglassModules translates the MVP-lowered sightglass modules the
// peer benchmark keeps (bench/testdata/sightglass), keyed by name, with
// their sizes in bytes; it skips the benchmark when there are none or the
// compiled tiers do not run here.
func sightglassModules(tb testing.TB) (names []string, mods map[string]*bytecode.Module, sizes map[string]int) {
	tb.Helper()
	if !kilnrt.Supported() {
		tb.Skip("no compiled tiers on this platform")
	}
	files, _ := filepath.Glob("../bench/testdata/sightglass/*.wasm")
	if len(files) == 0 {
		tb.Skip("no sightglass modules (bench/testdata/sightglass)")
	}
	mods, sizes = map[string]*bytecode.Module{}, map[string]int{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		bm, err := binary.Decode(src)
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		m, err := translate.Translate(bm, translate.Options{})
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".wasm")
		names = append(names, name)
		mods[name], sizes[name] = m.Bytecode(), len(src)
	}
	return names, mods, sizes
}

// BenchmarkCompilePasses compiles each MVP-lowered sightglass module on
// the optimizing tier with one compile worker and reports, per pass of
// the pipeline, its time and the memory it allocates per bytecode
// instruction (metrics "<pass>-ns/instr" and "<pass>-B/instr"), and the
// whole compile's per Wasm byte: the per-stage budget table of the
// compiled tiers.
//
//	go test ./jit -run '^$' -bench CompilePasses -benchtime 1x
func BenchmarkCompilePasses(b *testing.B) {
	names, mods, sizes := sightglassModules(b)
	for _, tier := range []Tier{TierBaseline, TierOptimizing} {
		for _, name := range names {
			b.Run(fmt.Sprintf("%s/%s", tier, name), func(b *testing.B) {
				sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
				allocated := func() uint64 {
					metrics.Read(sample)
					return sample[0].Value.Uint64()
				}
				var last uint64
				bytes := map[string]uint64{}
				e := newEngine(b, Options{Tier: tier, CompileWorkers: 1, OnPass: func(ev PassEvent) {
					// One worker: what was allocated since the last
					// event is the pass's.
					now := allocated()
					pass, _, _ := strings.Cut(ev.Pass, "/")
					bytes[pass] += now - last
					last = now
				}})
				st, err := loadEach(b, e, mods[name], func() { last = allocated() })
				if err != nil {
					b.Fatal(err)
				}
				n := float64(b.N)
				instrs := float64(st.Instructions)
				for _, p := range st.Passes {
					b.ReportMetric(float64(p.Time.Nanoseconds())/instrs, p.Name+"-ns/instr")
					b.ReportMetric(float64(bytes[p.Name])/n/instrs, p.Name+"-B/instr")
				}
				b.ReportMetric(float64(st.Total().Nanoseconds())/float64(sizes[name]), "compile-ns/B")
				b.ReportMetric(instrs, "instrs")
			})
		}
	}
}

// BenchmarkAblation compiles the MVP-lowered sightglass modules on the
// optimizing tier with one compile worker, whole and with each part of
// the integrated pass turned off (PassSwitches; the nearest-next-use and
// the comparator spill choice in place of expected distances), and with
// the separate pipeline and linear scan alone, and reports per bytecode
// instruction the time of the allocation stage and of the whole compile,
// and the static spill code and reconciliation moves: what each piece
// costs to compile and what it saves in code.
//
//	go test ./jit -run '^$' -bench Ablation -benchtime 1x
func BenchmarkAblation(b *testing.B) {
	names, mods, _ := sightglassModules(b)
	variants := []struct {
		name string
		opts Options
	}{
		{"integrated", Options{}},
		{"spill=nearest-use", Options{SpillHeuristic: SpillNearestUse}},
		{"spill=comparator", Options{SpillHeuristic: SpillComparator}},
	}
	for _, s := range PassSwitches() {
		variants = append(variants, struct {
			name string
			opts Options
		}{"no-" + strings.ReplaceAll(s.Name, "/", ":"), Options{DisablePasses: []string{s.Name}}})
	}
	variants = append(variants, struct {
		name string
		opts Options
	}{"separate", Options{Pipeline: PipelineSeparate}}, struct {
		name string
		opts Options
	}{"linear-scan", Options{Pipeline: PipelineLinearScan}})
	for _, v := range variants {
		for _, name := range names {
			b.Run(v.name+"/"+name, func(b *testing.B) {
				opts, m := v.opts, mods[name]
				opts.Tier, opts.CompileWorkers = TierOptimizing, 1
				e := newEngine(b, opts)
				st, err := loadEach(b, e, m, nil)
				if err != nil && opts.Pipeline != PipelineIntegrated {
					// The separate pipeline's linear scan cannot allocate
					// every function (one of rust-compression's needs more
					// registers for spill temporaries than it has).
					b.Skipf("%s: %v", v.name, err)
				}
				if err != nil {
					b.Fatal(err)
				}
				instrs := float64(st.Instructions)
				b.ReportMetric(float64(st.Alloc.Nanoseconds())/instrs, "alloc-ns/instr")
				b.ReportMetric(float64(st.Total().Nanoseconds())/instrs, "compile-ns/instr")
				b.ReportMetric(float64(st.Sched.SpillCode()), "spill-code")
				b.ReportMetric(float64(st.Sched.Moves+st.Sched.EdgeMoves), "moves")
				b.ReportMetric(float64(st.CodeBytes), "code-bytes")
			})
		}
	}
}

// loadEach loads m on e once per iteration of b's loop, calling before
// (when not nil) before each load, and returns the last compile's
// statistics, or why a compile failed.
func loadEach(b *testing.B, e *Engine, m *bytecode.Module, before func()) (CompileStats, error) {
	var st CompileStats
	for b.Loop() {
		if before != nil {
			before()
		}
		mod, err := e.Load(m)
		if err != nil {
			return st, err
		}
		if err := mod.CompileError(); err != nil {
			return st, err
		}
		st = mod.CompileStats()
	}
	return st, nil
}
