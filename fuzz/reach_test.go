package fuzz

import (
	"errors"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
)

// TestGeneratorReach generates programs from random inputs and counts what
// they reach: values live at once far beyond the 16 registers of a class,
// irreducible loops, and every kind of trap (in the reference
// interpreter). Each must be reached by a fair share of programs.
func TestGeneratorReach(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 150
	}
	var (
		traps                         = map[bytecode.TrapKind]int{}
		calls, highGPR, highXMM, irr  int
		maxGPR, maxXMM, loops, maxDep int
	)
	for _, data := range randomInputs(3, n, 4000) {
		p, err := Generate(data, GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sh, err := MeasureShape(p.Module)
		if err != nil {
			t.Fatal(err)
		}
		if sh.MaxLiveGPR > 32 {
			highGPR++
		}
		if sh.MaxLiveXMM > 16 {
			highXMM++
		}
		if sh.Irreducible > 0 {
			irr++
		}
		loops += sh.Loops
		maxGPR, maxXMM, maxDep = max(maxGPR, sh.MaxLiveGPR), max(maxXMM, sh.MaxLiveXMM), max(maxDep, sh.MaxLoopDepth)
		res, err := Check(p.Module, p.Calls, Options{Hosts: StandardHosts(), Configs: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Outcomes {
			calls++
			var trap *bytecode.Trap
			switch {
			case errors.As(o.Err, &trap):
				traps[trap.Kind]++
			case o.Err != nil:
				t.Fatalf("call failed without a trap: %v", o.Err)
			default:
				traps[bytecode.TrapNone]++
			}
		}
	}
	t.Logf("%d programs, %d calls: %d with > 32 GPR values live at once (most %d), %d with > 16 XMM values (most %d), %d with irreducible loops, %d loops (deepest nesting %d)",
		n, calls, highGPR, maxGPR, highXMM, maxXMM, irr, loops, maxDep)
	for k := bytecode.TrapNone; k <= bytecode.TrapHostError; k++ {
		t.Logf("%-32s %d", k.String()+":", traps[k])
	}
	if highGPR < n/10 || highXMM < n/20 {
		t.Errorf("high register pressure in too few programs: %d (GPR), %d (XMM) of %d", highGPR, highXMM, n)
	}
	if irr < n/20 {
		t.Errorf("irreducible loops in only %d of %d programs", irr, n)
	}
	for k := bytecode.TrapNone; k <= bytecode.TrapHostError; k++ {
		if traps[k] == 0 {
			t.Errorf("no call ended with %s", k)
		}
	}
}
