package bench

import (
	"fmt"
	"strings"
)

// spillPathology is a program built to make the choice of spill victim
// matter (the expected-distance note's pathological cases): main takes
// the iteration count and returns a hash of what it computed.
type spillPathology struct {
	name       string
	src        string // kiln assembly
	small, big uint64 // the test and benchmark arguments
}

var spillPathologies = []spillPathology{
	{"switch-in-loop", switchInLoop(12, 32, 0), 2000, 2_000_000},
	{"switch-skewed", switchInLoop(12, 32, 2), 2000, 2_000_000},
	{"long-block", longBlock(16), 2000, 2_000_000},
	{"do-while", doWhile(12), 14000, 14_000_000},
}

// asm accumulates kiln assembly lines.
type asm struct{ strings.Builder }

func (a *asm) line(format string, args ...any) {
	fmt.Fprintf(&a.Builder, format, args...)
	a.WriteByte('\n')
}

// regs declares n further i64 registers after main's parameter r0.
func (a *asm) header(n int) {
	a.line("func main (i64) -> (i64)")
	a.line("  regs%s", strings.Repeat(" i64", n))
}

// footer returns main returning register ret, and its export, after the
// lines so far.
func (a *asm) footer(ret string) string {
	a.line("  ret %s", ret)
	a.line("end")
	a.line(`export "main" main`)
	return a.String()
}

// switchInLoop is a hot loop around a switch of cases cases (a power of
// two), each updating three of acc accumulators, which are all live
// around the switch: r1 is the counter, r2 the case index, r3... the
// accumulators. With hot zero the iterations take the cases in turn;
// otherwise (a power of two) seven in eight take one of the first hot
// cases and the others any case, the shape of the thesis's regmatch (a
// loop around a switch with few hot cases): only a profile tells the
// accumulators the hot cases update from the others.
func switchInLoop(acc, cases, hot int) string {
	var a asm
	a.header(2 + acc)
	r := func(k int) int { return 3 + k%acc }
	for k := range acc {
		a.line("  i64.add r%d, r0, %d", r(k), 2*k+1)
	}
	a.line("  i64.const r1, 0")
	a.line("loop:")
	if hot == 0 {
		a.line("  i64.and r2, r1, %d", cases-1)
	} else {
		a.line("  i64.and r2, r1, 7")
		a.line("  br.eq r2, 0, cold")
		a.line("  i64.and r2, r1, %d", hot-1)
		a.line("  jump pick")
		a.line("cold:")
		a.line("  i64.shr_u r2, r1, 3")
		a.line("  i64.and r2, r2, %d", cases-1)
		a.line("pick:")
	}
	labels := make([]string, cases)
	for k := range labels {
		labels[k] = fmt.Sprintf("c%d", k)
	}
	a.line("  switch r2, [%s], next", strings.Join(labels, ", "))
	for k := range cases {
		a.line("c%d:", k)
		a.line("  i64.mul r%d, r%d, %d", r(k), r(k), k+3)
		a.line("  i64.xor r%d, r%d, r1", r(k+5), r(k+5))
		a.line("  i64.add r%d, r%d, r%d", r(k+7), r(k+7), r(k+1))
		a.line("  jump next")
	}
	a.line("next:")
	a.line("  i64.add r1, r1, 1")
	a.line("  br.lt_s r1, r0, loop")
	for k := 1; k < acc; k++ {
		a.line("  i64.xor r3, r3, r%d", r(k))
	}
	return a.footer("r3")
}

// longBlock is a hot loop whose body is one block computing n values from
// the counter, each from the one before, and folding them into the
// accumulator last first, so that all of them are live at once: r1 is the
// counter, r2 the accumulator, r3... the values.
func longBlock(n int) string {
	var a asm
	a.header(2 + n)
	a.line("  i64.const r1, 0")
	a.line("  i64.const r2, 0")
	a.line("loop:")
	a.line("  i64.mul r3, r1, 3")
	for k := 1; k < n; k++ {
		a.line("  i64.mul r%d, r%d, %d", 3+k, 2+k, k+2)
		a.line("  i64.xor r%d, r%d, r1", 3+k, 3+k)
	}
	for k := n - 1; k >= 0; k-- {
		op := []string{"add", "xor", "sub"}[k%3]
		a.line("  i64.%s r2, r2, r%d", op, 3+k)
	}
	a.line("  i64.add r1, r1, 1")
	a.line("  br.lt_s r1, r0, loop")
	return a.footer("r2")
}

// doWhile is a hot do/while loop whose condition value is computed at the
// top and used only at the bottom, with n values of pressure in between:
// r1 is the induction variable, r2 the condition value, r3 the
// accumulator, r4... the values.
func doWhile(n int) string {
	var a asm
	a.header(3 + n)
	a.line("  i64.const r1, 0")
	a.line("  i64.const r3, 0")
	a.line("loop:")
	a.line("  i64.mul r2, r1, 7")
	a.line("  i64.add r4, r1, 5")
	for k := 1; k < n; k++ {
		a.line("  i64.mul r%d, r%d, %d", 4+k, 3+k, 2*k+1)
		a.line("  i64.add r%d, r%d, r1", 4+k, 4+k)
	}
	for k := n - 1; k >= 0; k-- {
		a.line("  i64.xor r3, r3, r%d", 4+k)
		a.line("  i64.rotl r3, r3, 7")
	}
	a.line("  i64.add r1, r1, 1")
	a.line("  br.lt_s r2, r0, loop")
	return a.footer("r3")
}
