package fuzz

import "testing"

// BenchmarkCheckGenerated measures one differential check of a generated
// program (generation, every configuration, comparison): the cost of one
// fuzzing execution without coverage instrumentation.
func BenchmarkCheckGenerated(b *testing.B) {
	inputs := randomInputs(21, 64, 4000)
	programs := make([]*Program, len(inputs))
	instrs := 0
	for i, data := range inputs {
		p, err := Generate(data, GenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		programs[i] = p
		instrs += p.Module.Instructions()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := programs[i%len(programs)]
		if _, err := Check(p.Module, p.Calls, Options{Hosts: StandardHosts(), GlobalImports: p.GlobalImports}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(instrs)/float64(len(programs)), "instrs/program")
}
