package bench

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// machineConfigs are the configurations of this machine, found once per test
// binary.
var machineConfigs = sync.OnceValues(Configs)

// logConfigNotes logs why configurations are missing.
func logConfigNotes(b *testing.B) {
	_, notes := machineConfigs()
	for _, n := range notes {
		b.Log(n)
	}
}

// BenchmarkBF runs the Brainfuck programs (the module's own, then those in
// KILN_BF_DIR) in every configuration; see benchProgram.
func BenchmarkBF(b *testing.B) {
	progs, notes, err := AllPrograms(BFDir(), false)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range notes {
		b.Log(n)
	}
	logConfigNotes(b)
	for _, p := range progs {
		if p.Kind == KindBF {
			b.Run(p.Name, func(b *testing.B) { benchProgram(b, p) })
		}
	}
}

// BenchmarkKernels runs kiln's benchmark kernels at their benchmark
// arguments in every configuration; see benchProgram.
func BenchmarkKernels(b *testing.B) {
	logConfigNotes(b)
	for _, p := range Kernels(false) {
		b.Run(p.Name, func(b *testing.B) { benchProgram(b, p) })
	}
}

// BenchmarkC runs the C programs (nbody, fannkuchredux, spectralnorm,
// interp, lz77, sort) at their benchmark arguments in every configuration: kiln's tiers through
// the WebAssembly front end, wazero's compiler and interpreter on the same
// modules, and the gcc -O2 build of the same C; see benchProgram. One run
// of every configuration takes tens of seconds, wazero's interpreter most
// of them: use -benchtime=1x.
func BenchmarkC(b *testing.B) {
	logConfigNotes(b)
	progs, err := CPrograms(false)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range progs {
		b.Run(p.Name, func(b *testing.B) { benchProgram(b, p) })
	}
}

// BenchmarkCCompile compiles each C program's module in every
// configuration that compiles WebAssembly, once per iteration each, and
// reports:
//
//	<config>-ns/byte        front end and load (kiln), CompileModule
//	                        (wazero), per byte of the module
//	<config>-front-ns/byte  kiln's front end alone (decoding, validation,
//	                        translation to kiln bytecode)
//	<config>-x-wazero       time / wazero's compiler's time
//
// See Config.CompileTime.
func BenchmarkCCompile(b *testing.B) {
	progs, err := CPrograms(false)
	if err != nil {
		b.Fatal(err)
	}
	benchCompile(b, progs)
}

// BenchmarkSightglassCompile is BenchmarkCCompile on the sightglass
// modules of testdata/sightglass (real programs compiled by others, 76 KB
// to 2.7 MB): kiln's front end and load on every tier against wazero's
// CompileModule, per byte of the module.
func BenchmarkSightglassCompile(b *testing.B) {
	progs, err := SightglassModules()
	if err != nil {
		b.Fatal(err)
	}
	benchCompile(b, progs)
}

// benchCompile times the compiles of the programs' modules in every
// configuration (see BenchmarkCCompile).
func benchCompile(b *testing.B, progs []*Program) {
	logConfigNotes(b)
	cs, _ := machineConfigs()
	for _, p := range progs {
		b.Run(p.Name, func(b *testing.B) {
			front := make([]time.Duration, len(cs))
			back := make([]time.Duration, len(cs))
			live := make([]bool, len(cs))
			runs := 0
			for b.Loop() {
				for i, c := range cs {
					f, bk, ok, err := c.CompileTime(p)
					var skip *SkipError
					if errors.As(err, &skip) {
						continue
					}
					if err != nil {
						b.Fatal(err)
					}
					live[i] = ok
					front[i] += f
					back[i] += bk
				}
				runs++
			}
			wz := slices.IndexFunc(cs, func(c *Config) bool { return c.Name == Wazero })
			perByte := float64(runs * len(p.Wasm))
			for i, c := range cs {
				if !live[i] {
					continue
				}
				total := front[i] + back[i]
				b.ReportMetric(float64(total)/perByte, c.Name+"-ns/byte")
				if front[i] > 0 {
					b.ReportMetric(float64(front[i])/perByte, c.Name+"-front-ns/byte")
				}
				if wz >= 0 && live[wz] && i != wz {
					b.ReportMetric(float64(total)/float64(front[wz]+back[wz]), c.Name+"-x-wazero")
				}
			}
		})
	}
}

// benchProgram checks p's output in every configuration, then times
// kiln's baseline tier (the first configuration when it is missing) with
// b.Loop and every other configuration for the same number of runs, and
// reports:
//
//	<config>-ns/op               the time of one run in each configuration
//	<config>-x-native            time / native time (native Go for
//	                             kernels, gcc -O2 for C programs)
//	<config>-x-wazero            time / wazero's compiler's time
//	kiln-interp-x-wazero-interp  kiln's interpreter's time / wazero's
//	                             interpreter's time
//
// A program whose fastest run is under MinRun is skipped: it would measure
// call overheads rather than code.
func benchProgram(b *testing.B, p *Program) {
	cs, _ := machineConfigs()
	s, err := newTrial(p, cs)
	if err != nil {
		b.Fatal(err)
	}
	defer s.close()
	for i, n := range s.notes {
		if n != "" {
			b.Logf("%s skips %s: %s", cs[i].Name, p, n)
		}
	}
	if f := s.fastest(); f < MinRun {
		b.Skipf("%s runs in %v at best, under the %v floor: too short to time", p, f, MinRun)
	}
	timed := s.index(KilnBaseline)
	if timed < 0 {
		timed = slices.IndexFunc(s.runners, func(r Runner) bool { return r != nil })
	}
	total := make([]time.Duration, len(cs))
	runs := 0
	for b.Loop() {
		d, err := s.runners[timed].Run(1)
		if err != nil {
			b.Fatal(err)
		}
		total[timed] += d
		runs++
	}
	for i, r := range s.runners {
		if r == nil || i == timed {
			continue
		}
		if total[i], err = r.Run(runs); err != nil {
			b.Fatal(err)
		}
	}
	native, wz, wzi := s.index(NativeReference(p.Kind)), s.index(Wazero), s.index(WazeroInterp)
	for i, c := range cs {
		if s.runners[i] == nil {
			continue
		}
		b.ReportMetric(float64(total[i])/float64(runs), c.Name+"-ns/op")
		if native >= 0 && i != native {
			b.ReportMetric(float64(total[i])/float64(total[native]), c.Name+"-x-native")
		}
		if wz >= 0 && i != wz {
			b.ReportMetric(float64(total[i])/float64(total[wz]), c.Name+"-x-wazero")
		}
		if wzi >= 0 && c.Name == KilnInterp {
			b.ReportMetric(float64(total[i])/float64(total[wzi]), c.Name+"-x-wazero-interp")
		}
	}
}
