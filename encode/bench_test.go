package encode

import "testing"

// BenchmarkEncode encodes every function of the shared test modules
// (after baseline allocation), assembling from the instruction forms and
// with golang-asm alone, and reports the time per machine IR instruction
// and per byte of machine code.
func BenchmarkEncode(b *testing.B) {
	funcs := sharedBaselineFuncs(b)
	instrs, bytes := 0, 0
	for _, f := range funcs {
		for _, blk := range f.Blocks {
			instrs += len(blk.Instrs)
		}
		c, err := Func(f)
		if err != nil {
			b.Fatal(err)
		}
		bytes += c.CodeSize
	}
	for _, m := range []struct {
		name string
		mode asmMode
	}{{"forms", modeForms}, {"golang-asm", modeGolangAsm}} {
		b.Run(m.name, func(b *testing.B) {
			defer assembleMode.Store(assembleMode.Swap(int32(m.mode)))
			for b.Loop() {
				for _, f := range funcs {
					if _, err := Func(f); err != nil {
						b.Fatal(err)
					}
				}
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/float64(instrs), "ns/instr")
			b.ReportMetric(per/float64(bytes), "ns/codebyte")
		})
	}
}
