package jit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/internal/testprogs"
	kilnrt "github.com/kiln-jit/kiln/runtime"
)

// limitsSource has two functions, grow (which grows memory by its
// argument and returns memory.grow's result) and sum (four registers).
const limitsSource = `
memory 1 100
func grow (i64) -> (i64)
  regs i64
  memory.grow r1, r0
  ret r1
end
func sum (i64) -> (i64)
  regs i64 i64 i64
  i64.add r1, r0, r0
  i64.add r2, r1, r0
  i64.add r3, r2, r1
  ret r3
end
export "grow" grow
export "sum" sum
`

// TestLoadLimits loads the module under each limit just below what it
// needs and checks the *LimitError, then just at it and checks it loads.
func TestLoadLimits(t *testing.T) {
	src := []byte(limitsSource)
	tests := []struct {
		limit      string
		over, fits Options
	}{
		{"MaxModuleBytes", Options{MaxModuleBytes: len(src) - 1}, Options{MaxModuleBytes: len(src)}},
		{"MaxFunctions", Options{MaxFunctions: 1}, Options{MaxFunctions: 2}},
		{"MaxFunctionInstrs", Options{MaxFunctionInstrs: 3}, Options{MaxFunctionInstrs: 4}},
		{"MaxRegisters", Options{MaxRegisters: 3}, Options{MaxRegisters: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.limit, func(t *testing.T) {
			e, err := NewEngine(tc.over)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.LoadText(src)
			var le *LimitError
			if !errors.As(err, &le) || le.Limit != tc.limit {
				t.Fatalf("load over %s: err = %v, want a *LimitError for it", tc.limit, err)
			}
			t.Log(err)
			e, err = NewEngine(tc.fits)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.LoadText(src); err != nil {
				t.Fatalf("load at %s: %v", tc.limit, err)
			}
		})
	}
}

// TestMaxCompileBytes checks that a function whose estimated compile
// memory is over the bound leaves its module in the interpreter, with a
// *LimitError as the compile error, that the module still runs, and that a
// bound above the estimate (and its live sets) compiles it.
func TestMaxCompileBytes(t *testing.T) {
	if !kilnrt.Supported() {
		t.Skip("compiled tiers are not supported here")
	}
	m := testprogs.DeepNest(3000)
	need := EstimateCompileBytes(m.Funcs[0], TierBaseline)
	for _, tier := range []Tier{TierBaseline, TierOptimizing} {
		e, err := NewEngine(Options{Tier: tier, MaxCompileBytes: need - 1})
		if err != nil {
			t.Fatal(err)
		}
		mod, err := e.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		var le *LimitError
		if mod.Tier() != TierInterp || !errors.As(mod.CompileError(), &le) || le.Limit != "MaxCompileBytes" {
			t.Fatalf("%s: tier %s, compile error %v; want the interpreter and a MaxCompileBytes limit", tier, mod.Tier(), mod.CompileError())
		}
		if got := runMain(t, mod); got != "23130" {
			t.Errorf("%s: main = %s, want 23130", tier, got)
		}
		// The deep nest's live sets are linear in its size (a few values
		// live through every block): twice the estimate covers them.
		e, _ = NewEngine(Options{Tier: tier, MaxCompileBytes: 2 * need})
		if mod, err = e.Load(m); err != nil || mod.Tier() != tier {
			t.Fatalf("%s within the bound: tier %s, err %v, compile error %v", tier, mod.Tier(), err, mod.CompileError())
		}
	}
}

// TestLoadContextCancelled checks that a cancelled context stops loading
// on every tier with an error wrapping the context's.
func TestLoadContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tier := range pathologicalTiers() {
		e, err := NewEngine(Options{Tier: tier})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.LoadContext(ctx, testprogs.DeepNest(300)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", tier, err)
		}
		if _, err := e.LoadTextContext(ctx, []byte(limitsSource)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: text: err = %v, want context.Canceled", tier, err)
		}
	}
}

// TestMaxMemoryPagesGrow checks that memory.grow returns -1 beyond the
// engine's cap (below the module's own maximum of 100 pages) on every tier.
func TestMaxMemoryPagesGrow(t *testing.T) {
	for _, tier := range pathologicalTiers() {
		e, err := NewEngine(Options{Tier: tier, MaxMemoryPages: 4})
		if err != nil {
			t.Fatal(err)
		}
		mod, err := e.LoadText([]byte(limitsSource))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := mod.Instantiate(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ delta, want int64 }{{3, 1}, {1, -1}, {0, 4}} {
			res, err := inst.Call(context.Background(), "grow", I64(c.delta))
			if err != nil || int64(res[0]) != c.want {
				t.Errorf("%s: grow(%d) = %v, %v; want %d", tier, c.delta, res, err, c.want)
			}
		}
	}
}

// nestedCounters nests d counted loops, each with a counter register of
// its own that stays live across every loop inside it: live sets of Θ(d²)
// entries from Θ(d) instructions. Each loop runs its body once, so main
// returns its argument after linear work.
func nestedCounters(d int) []byte {
	var sb strings.Builder
	sb.WriteString("func main (i64) -> (i64)\n  regs")
	for range d {
		sb.WriteString(" i64")
	}
	sb.WriteString("\n")
	for i := 1; i <= d; i++ {
		fmt.Fprintf(&sb, "  i64.const r%d, 2\nH%d:\n  i64.sub r%d, r%d, 1\n  br.eq r%d, 0, E%d\n", i, i, i, i, i, i)
	}
	for i := d; i >= 1; i-- {
		fmt.Fprintf(&sb, "  jump H%d\nE%d:\n", i, i)
	}
	sb.WriteString("  ret r0\nend\nexport \"main\" main\n")
	return []byte(sb.String())
}

// TestMaxCompileBytesLiveSets checks that MaxCompileBytes also bounds a
// function whose size estimate is small but whose live sets are
// quadratic: it stays in the interpreter under a bound its size alone
// would pass, and compiles without a bound.
func TestMaxCompileBytesLiveSets(t *testing.T) {
	if !kilnrt.Supported() {
		t.Skip("compiled tiers are not supported here")
	}
	src := nestedCounters(500)
	for _, tier := range []Tier{TierBaseline, TierOptimizing} {
		e, err := NewEngine(Options{Tier: tier, MaxCompileBytes: 20 << 20})
		if err != nil {
			t.Fatal(err)
		}
		mod, err := e.LoadText(src)
		if err != nil {
			t.Fatal(err)
		}
		if est := EstimateCompileBytes(mod.Bytecode().Funcs[0], tier); est >= 20<<20 {
			t.Fatalf("size estimate %d is over the bound already", est)
		}
		var le *LimitError
		if mod.Tier() != TierInterp || !errors.As(mod.CompileError(), &le) || le.Limit != "MaxCompileBytes" {
			t.Fatalf("%s: tier %s, compile error %v; want the interpreter and a MaxCompileBytes limit", tier, mod.Tier(), mod.CompileError())
		}
		t.Log(mod.CompileError())
		e, _ = NewEngine(Options{Tier: tier, MaxCompileBytes: -1})
		if mod, err = e.LoadText(src); err != nil || mod.Tier() != tier {
			t.Fatalf("%s without a bound: tier %s, err %v, compile error %v", tier, mod.Tier(), err, mod.CompileError())
		}
		if got := runMain(t, mod); got != "23130" {
			t.Errorf("%s: main = %s, want 23130", tier, got)
		}
	}
}
