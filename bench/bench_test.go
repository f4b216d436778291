package bench

import (
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

// benchProgram checks p's output in every configuration, then times
// kiln's baseline tier (the first configuration when it is missing) with
// b.Loop and every other configuration for the same number of runs, and
// reports:
//
//	<config>-ns/op          the time of one run in each configuration
//	<config>-x-native       time / native Go time (kernels)
//	<config>-x-wazero       time / wazero's compiler's time
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
	native, wz := s.index(Native), s.index(Wazero)
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
	}
}
