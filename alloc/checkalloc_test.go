package alloc

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// checkModules returns the kernels' modules and the shared test programs'.
func checkModules() []*bc.Module {
	var mods []*bc.Module
	for _, k := range testprogs.Kernels() {
		mods = append(mods, k.Module)
	}
	seen := map[*bc.Module]bool{}
	for _, c := range testprogs.ProgramCases() {
		if !seen[c.Module] {
			seen[c.Module] = true
			mods = append(mods, c.Module)
		}
	}
	return mods
}

// baselineWithOrigins takes SSA function f out of SSA with opts and
// allocates it with the baseline; it returns the non-SSA input and the
// allocation.
func baselineWithOrigins(t testing.TB, f *mir.Func, opts DestructOptions) (pre, post *mir.Func, o *Origins) {
	t.Helper()
	d, err := Destruct(f, opts)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	post, o, err = BaselineNonSSAWithOrigins(d.Func.Clone())
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return d.Func, post, o
}

// TestCheckAllocationAcceptsBaseline checks the baseline allocation of
// every function of the kernels, the shared test programs and the
// instruction cases, and of random programs, taken out of SSA by Destruct
// (pinned and unpinned) and naively.
func TestCheckAllocationAcceptsBaseline(t *testing.T) {
	var funcs []*mir.Func
	seen := map[*bc.Module]bool{}
	for _, m := range checkModules() {
		seen[m] = true
		fs, err := lower.Module(m, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		funcs = append(funcs, fs...)
	}
	for _, c := range testprogs.InstructionCases() {
		if seen[c.Module] {
			continue
		}
		seen[c.Module] = true
		fs, err := lower.Module(c.Module, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		funcs = append(funcs, fs...)
	}
	funcs = append(funcs, randomSSA(t, 3, 60)...)
	n := 0
	for _, f := range funcs {
		for _, how := range []string{"pinned", "unpinned", "naive"} {
			var pre *mir.Func
			switch how {
			case "naive":
				pre = f.Clone()
				if err := NaiveDestruct(pre); err != nil {
					t.Fatal(err)
				}
			default:
				d, err := Destruct(f, DestructOptions{NoConstraints: how == "unpinned"})
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				pre = d.Func
			}
			post, o, err := BaselineNonSSAWithOrigins(pre.Clone())
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if err := CheckAllocation(pre, post, o); err != nil {
				t.Fatalf("%s: %v\n%s\n%s", how, err, mir.Format(pre), mir.Format(post))
			}
			n++
		}
	}
	t.Logf("%d allocations checked", n)
}

// parseAllocated parses the text of an allocated function whose lines
// carry their origins in comments: every instruction line ends with ";=K"
// (K the index of its input instruction) or ";=-" (inserted), and a block
// header line may end with ";=bN" (the input block it holds; by default its
// own number) or ";=edge" (an added block).
func parseAllocated(t *testing.T, src string) (*mir.Func, *Origins) {
	t.Helper()
	f, err := mir.ParseFunc([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	o := &Origins{}
	for n, line := range strings.Split(src, "\n") {
		code, comment, _ := strings.Cut(line, ";")
		code, comment = strings.TrimSpace(code), strings.TrimSpace(comment)
		tag, tagged := strings.CutPrefix(comment, "=")
		switch {
		case code == "":
		case blockHeader.MatchString(code):
			ob := len(o.Block)
			switch {
			case !tagged:
			case tag == "edge":
				ob = -1
			default:
				if _, err := fmt.Sscanf(tag, "b%d", &ob); err != nil {
					t.Fatalf("line %d: bad block origin %q", n+1, tag)
				}
			}
			o.Block = append(o.Block, ob)
			o.Instr = append(o.Instr, nil)
		case len(o.Block) > 0 && code != "end":
			k := -1
			if !tagged {
				t.Fatalf("line %d: instruction without origin: %q", n+1, line)
			}
			if tag != "-" {
				if _, err := fmt.Sscanf(tag, "%d", &k); err != nil {
					t.Fatalf("line %d: bad origin %q", n+1, tag)
				}
			}
			last := len(o.Instr) - 1
			o.Instr[last] = append(o.Instr[last], int32(k))
		}
	}
	return f, o
}

// blockHeader matches the start of a block header line.
var blockHeader = regexp.MustCompile(`^b[0-9]+:`)

// parseInput parses the text of an input function.
func parseInput(t *testing.T, src string) *mir.Func {
	t.Helper()
	f, err := mir.ParseFunc([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return f
}

// Inputs of the hand-written cases.
const (
	// Two independent computations, and a value redefined after its last
	// use.
	preStraight = `
func f #0 (gpr gpr) -> (gpr) nonssa
  vregs 4
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  v2:gpr = LEAQ v0, $1
  v3:gpr = LEAQ v1, $2
  v2:gpr = LEAQ v2, $5
  v3:gpr = LEAQ v1, $7
  v2:gpr = ADDQ v2, v3
  RET v2
end`

	// A copy, a value kept across a call, and constants used after it in
	// both successors.
	preCall = `
func f #0 (gpr) -> (gpr) nonssa
  vregs 5
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Copy v0
  v2:gpr = LEAQ v1, $1
  v3:gpr = MOVQconst $42
  v4:gpr = CALL #0 v1
  TESTQ v4, v4
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  v4:gpr = ADDQ v4, v2
  v4:gpr = ADDQ v4, v3
  RET v4
b2: preds=b0 freq=0.5
  RET v3
end`

	// A diamond with a copy on one side and a critical edge on the other.
	preDiamond = `
func f #0 (gpr gpr) -> (gpr) nonssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  TESTQ v0, v0
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  v0:gpr = Copy v1
  JMP -> b2 1
b2: preds=b0,b1 freq=1
  RET v0
end`

	// Loads and stores through one base and index: b0[3] reads bytes
	// 0-7, b0[4] writes 8-15, b0[5] reads 4-11, b0[6] writes 4-7.
	preMemory = `
func f #0 (gpr gpr gpr) -> (gpr) nonssa
  vregs 5
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  v2:gpr = Arg #2
  v3:gpr = MOVQload [v0+v1*1]
  MOVQstore [v0+v1*1+8], v2
  v4:gpr = MOVQload [v0+v1*1+4]
  MOVLstore [v0+v1*1+4], v3
  v3:gpr = ADDQ v3, v4
  RET v3
end`

	// Stores through one base and index (b0[3] and b0[4] overlap, b0[5]
	// overlaps neither) and one through another base.
	preStores = `
func f #0 (gpr gpr gpr) -> (gpr) nonssa
  vregs 3
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  v2:gpr = Arg #2
  MOVQstore [v0+v1*1], v2
  MOVLstore [v0+v1*1+4], v2
  MOVBstore [v0+v1*1+8], v2
  MOVBstore [v2+v1*1+100], v0
  RET v2
end`

	// Flags: an ALU op writing flags, then a compare and a branch.
	preFlags = `
func f #0 (gpr gpr) -> (gpr) nonssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  v1:gpr = ADDQ v1, v0
  CMPQconst v0, $5
  JCC.l -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  RET v0
b2: preds=b0 freq=0.5
  RET v1
end`

	// Constants reaching a join: equal on both paths (v1) or not (v2).
	preJoinConst = `
func f #0 (gpr) -> (gpr) nonssa
  vregs 3
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $7
  TESTQ v0, v0
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  v2:gpr = MOVQconst $1
  JMP -> b3 1
b2: preds=b0 freq=0.5
  v2:gpr = MOVQconst $2
  JMP -> b3 1
b3: preds=b1,b2 freq=1
  v0:gpr = CALL #0 v0
  v0:gpr = ADDQ v0, v1
  v0:gpr = ADDQ v0, v2
  RET v0
end`

	// A context field loaded before a call and used after it: the input
	// relies on calls leaving the context unchanged.
	preCtx = `
func f #0 (gpr) -> (gpr) nonssa
  vregs 3
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  v2:gpr = CALL #0 v0
  v2:gpr = MOVQload [v1+v0*1]
  RET v2
end`

	// A context field loaded before a call and loaded again after it, as
	// when memory may grow.
	preCtxReload = `
func f #0 (gpr) -> (gpr) nonssa
  vregs 4` + preCtxReloadBody + `
end`

	preCtxReloadBody = `
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  v2:gpr = MOVQload [v1+v0*1]
  v2:gpr = CALL #0 v2
  v3:gpr = CtxLoad #0
  v2:gpr = MOVQload [v3+v2*1]
  RET v2`

	// A table load whose index a conditional trap checks first.
	preGuarded = `
func f #0 (gpr gpr) -> (gpr) nonssa
  vregs 4
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  CMPQconst v0, $8
  TRAPCC.ae #4
  v2:gpr = TABLEload v0
  v3:gpr = LEAQ v1, $1
  v2:gpr = ADDQ v2, v3
  RET v2
end`
)

// allocCase is one hand-written allocation with the expected verdict.
type allocCase struct {
	name, pre, post string
	// want is "" when the checker must accept, else a substring of its
	// error.
	want string
}

var allocCases = []allocCase{
	{name: "straight in input order", pre: preStraight, want: "", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax = LEAQ rdi, $1 ;=2
  rcx = LEAQ rsi, $2 ;=3
  rax = LEAQ rax, $5 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "independent instructions swapped", pre: preStraight, want: "", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rcx = LEAQ rsi, $2 ;=3
  rax = LEAQ rdi, $1 ;=2
  rax = LEAQ rax, $5 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "redefinition scheduled before the last use of the old value", pre: preStraight, want: "", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rsi = Arg #1 ;=1
  rdi = Arg #0 ;=0
  rax = LEAQ rdi, $1 ;=2
  rcx = LEAQ rsi, $2 ;=3
  rdx = LEAQ rsi, $7 ;=5
  rax = LEAQ rax, $5 ;=4
  rax = ADDQ rax, rdx ;=6
  RET rax ;=7
end`},
	{name: "use reads the wrong register", pre: preStraight, want: "use 0 (rsi) must hold v2 defined at input b0[2] (LEAQ), but it holds v1 defined at input b0[1] (Arg)", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax = LEAQ rdi, $1 ;=2
  rcx = LEAQ rsi, $2 ;=3
  rax = LEAQ rsi, $5 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "stale value after redefinition", pre: preStraight, want: "b0[6] (ADDQ): from input b0[6]: use 1 (rcx) must hold v3 defined at input b0[5] (LEAQ), but it holds v3 defined at input b0[3] (LEAQ)", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax = LEAQ rdi, $1 ;=2
  rcx = LEAQ rsi, $2 ;=3
  rax = LEAQ rax, $5 ;=4
  rdx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "arguments saved before their Arg instructions", pre: preStraight, want: "", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rcx = Copy rsi ;=-
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax = LEAQ rdi, $1 ;=2
  rsi = LEAQ rcx, $2 ;=3
  rax = LEAQ rax, $5 ;=4
  rsi = LEAQ rcx, $7 ;=5
  rax = ADDQ rax, rsi ;=6
  RET rax ;=7
end`},
	{name: "missing input instruction", pre: preStraight, want: "b0: input b0[3] (LEAQ) is missing", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax = LEAQ rdi, $1 ;=2
  rax = LEAQ rax, $5 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "duplicated input instruction", pre: preStraight, want: "b0[4] (LEAQ): input b0[3] (LEAQ) appears twice in the block (also at b0[3])", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax = LEAQ rdi, $1 ;=2
  rcx = LEAQ rsi, $2 ;=3
  rcx = LEAQ rsi, $2 ;=3
  rax = LEAQ rax, $5 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "changed immediate", pre: preStraight, want: "does not match its origin input b0[4] (LEAQ): immediate 6, the origin's is 5", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax = LEAQ rdi, $1 ;=2
  rcx = LEAQ rsi, $2 ;=3
  rax = LEAQ rax, $6 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "scratch register in a non-move", pre: preStraight, want: "def 0 r11 is reserved", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  r11 = LEAQ rdi, $1 ;=2
  rcx = LEAQ rsi, $2 ;=3
  rax = LEAQ r11, $5 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "value carried in a scratch register across a non-move", pre: preStraight, want: "use 0 (rax) must hold v0 defined at input b0[0] (Arg), but it holds no value of the input", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  r11 = Copy rdi ;=-
  rcx = LEAQ rsi, $2 ;=3
  rax = Copy r11 ;=-
  rax = LEAQ rax, $1 ;=2
  rax = LEAQ rax, $5 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},
	{name: "parallel copy left in allocated code", pre: preStraight, want: "parallel copy in allocated code", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax, rcx = ParCopy rdi, rsi ;=-
  rax = LEAQ rax, $1 ;=2
  rcx = LEAQ rcx, $2 ;=3
  rax = LEAQ rax, $5 ;=4
  rcx = LEAQ rsi, $7 ;=5
  rax = ADDQ rax, rcx ;=6
  RET rax ;=7
end`},

	{name: "dropped copy, callee-saved register across a call, rematerialized constants", pre: preCall, want: "", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = LEAQ rdi, $1 ;=2
  rax = MOVQconst $42 ;=3
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rax = ADDQ rax, rbx ;=0
  rcx = MOVQconst $42 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = MOVQconst $42 ;=-
  RET rax ;=0
end`},
	{name: "orphaned constant deleted, rematerialized where used", pre: preCall, want: "", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = LEAQ rdi, $1 ;=2
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rax = ADDQ rax, rbx ;=0
  rcx = MOVQconst $42 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = MOVQconst $42 ;=-
  RET rax ;=0
end`},
	{name: "constant deleted though its register is read", pre: preCall, want: "b2[1] (RET): from input b2[0]: use 0 (rax) must hold v3 = the constant MOVQconst $42, but it holds no value of the input", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = LEAQ rdi, $1 ;=2
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rax = ADDQ rax, rbx ;=0
  rax = ADDQ rax, r12 ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = Copy r12 ;=-
  RET rax ;=0
end`},
	{name: "copy kept as a move, stack slots across a call", pre: preCall, want: "", post: `
func f #0 (gpr) -> (gpr) allocated
  slots gpr gpr
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Copy rdi ;=1
  rcx = LEAQ rsi, $1 ;=2
  s0 = Spill rcx ;=-
  rdx = MOVQconst $42 ;=3
  s1 = Spill rdx ;=-
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rcx = Reload s0 ;=-
  rax = ADDQ rax, rcx ;=0
  rcx = Reload s1 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = Reload s1 ;=-
  RET rax ;=0
end`},
	{name: "value read from a caller-saved register after a call", pre: preCall, want: "b1[0] (ADDQ): from input b1[0]: use 1 (rcx) must hold v2 as it enters input b1, but it holds no value of the input", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rcx = LEAQ rdi, $1 ;=2
  rax = MOVQconst $42 ;=3
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rax = ADDQ rax, rcx ;=0
  rcx = MOVQconst $42 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = MOVQconst $42 ;=-
  RET rax ;=0
end`},
	{name: "missing reload", pre: preCall, want: "b1[1] (ADDQ): from input b1[0]: use 1 (rcx) must hold v2 as it enters input b1, but it holds no value of the input", post: `
func f #0 (gpr) -> (gpr) allocated
  slots gpr gpr
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Copy rdi ;=1
  rcx = LEAQ rsi, $1 ;=2
  s0 = Spill rcx ;=-
  rdx = MOVQconst $42 ;=3
  s1 = Spill rdx ;=-
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rdx = Reload s0 ;=-
  rax = ADDQ rax, rcx ;=0
  rcx = Reload s1 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = Reload s1 ;=-
  RET rax ;=0
end`},
	{name: "reload from the wrong slot", pre: preCall, want: "b1[1] (ADDQ): from input b1[0]: use 1 (rcx) must hold v2 as it enters input b1, but it holds the constant MOVQconst $42", post: `
func f #0 (gpr) -> (gpr) allocated
  slots gpr gpr
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Copy rdi ;=1
  rcx = LEAQ rsi, $1 ;=2
  s0 = Spill rcx ;=-
  rdx = MOVQconst $42 ;=3
  s1 = Spill rdx ;=-
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rcx = Reload s1 ;=-
  rax = ADDQ rax, rcx ;=0
  rcx = Reload s1 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = Reload s1 ;=-
  RET rax ;=0
end`},
	{name: "wrong rematerialized constant", pre: preCall, want: "b2[1] (RET): from input b2[0]: use 0 (rax) must hold v3 = the constant MOVQconst $42, but it holds the constant MOVQconst $43", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = LEAQ rdi, $1 ;=2
  rax = MOVQconst $42 ;=3
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rax = ADDQ rax, rbx ;=0
  rcx = MOVQconst $42 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = MOVQconst $43 ;=-
  RET rax ;=0
end`},
	{name: "block holding the wrong input block", pre: preCall, want: "b1[1] (RET): does not match its origin input b1[0] (ADDQ): op ADDQ", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = LEAQ rdi, $1 ;=2
  rax = MOVQconst $42 ;=3
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rax = MOVQconst $42 ;=-
  RET rax ;=0
b2: preds=b0 freq=0.5
  rax = ADDQ rax, rbx ;=0
  rcx = MOVQconst $42 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
end`},
	{name: "instruction moved into another block", pre: preCall, want: "b0[5] (ADDQ): does not match its origin input b0[0] (Arg): op Arg", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = LEAQ rdi, $1 ;=2
  rax = MOVQconst $42 ;=3
  rax = CALL #0 rdi ;=4
  TESTQ rax, rax ;=5
  rbx = ADDQ rbx, rax ;=0
  JCC.e -> b1 0.5, b2 0.5 ;=6
b1: preds=b0 freq=0.5
  rcx = MOVQconst $42 ;=-
  rax = ADDQ rax, rcx ;=1
  RET rax ;=2
b2: preds=b0 freq=0.5
  rax = MOVQconst $42 ;=-
  RET rax ;=0
end`},

	{name: "added edge block with a move", pre: preDiamond, want: "", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  TESTQ rdi, rdi ;=2
  JCC.e -> b1 0.5, b3 0.5 ;=3
b1: preds=b0 freq=0.5
  rax = Copy rsi ;=0
  JMP -> b2 1 ;=1
b2: preds=b1,b3 freq=1
  RET rax ;=0
b3: preds=b0 freq=0.5 ;=edge
  rax = Copy rdi ;=-
  JMP -> b2 1 ;=-
end`},
	{name: "added edge blocks in a chain, with an exchange", pre: preDiamond, want: "", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  TESTQ rdi, rdi ;=2
  JCC.e -> b1 0.5, b3 0.5 ;=3
b1: preds=b0 freq=0.5
  rax = Copy rsi ;=0
  JMP -> b2 1 ;=1
b2: preds=b1,b4 freq=1
  RET rax ;=0
b3: preds=b0 freq=0.5 ;=edge
  rdx = Copy rdi ;=-
  JMP -> b4 1 ;=-
b4: preds=b3 freq=0.5 ;=edge
  rax, rdx = Xchg rax, rdx ;=-
  JMP -> b2 1 ;=-
end`},
	{name: "value reaching a join in different registers", pre: preDiamond, want: "b2[0] (RET): from input b2[0]: use 0 (rax) must hold v0 as it enters input b2, but it holds no value of the input", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  TESTQ rdi, rdi ;=2
  JCC.e -> b1 0.5, b3 0.5 ;=3
b1: preds=b0 freq=0.5
  rax = Copy rsi ;=0
  JMP -> b2 1 ;=1
b2: preds=b1,b3 freq=1
  RET rax ;=0
b3: preds=b0 freq=0.5 ;=edge
  rcx = Copy rdi ;=-
  JMP -> b2 1 ;=-
end`},
	{name: "successor order changed", pre: preDiamond, want: "b0: successor 0 leads to b2, which holds input b2; successor 0 of input b0 is b1", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  TESTQ rdi, rdi ;=2
  JCC.ne -> b3 0.5, b1 0.5 ;=3
b1: preds=b0 freq=0.5
  rax = Copy rsi ;=0
  JMP -> b2 1 ;=1
b2: preds=b1,b3 freq=1
  RET rax ;=0
b3: preds=b0 freq=0.5 ;=edge
  rax = Copy rdi ;=-
  JMP -> b2 1 ;=-
end`},
	{name: "input instruction in an added block", pre: preDiamond, want: "b3[0] (Copy): origin 0 in an added block", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  TESTQ rdi, rdi ;=2
  JCC.e -> b1 0.5, b3 0.5 ;=3
b1: preds=b0 freq=0.5
  rax = Copy rsi ;=0
  JMP -> b2 1 ;=1
b2: preds=b1,b3 freq=1
  RET rax ;=0
b3: preds=b0 freq=0.5 ;=edge
  rax = Copy rdi ;=0
  JMP -> b2 1 ;=-
end`},
	{name: "exchange whose defs are not its uses", pre: preDiamond, want: "exchange must swap its uses in place", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  TESTQ rdi, rdi ;=2
  JCC.e -> b1 0.5, b3 0.5 ;=3
b1: preds=b0 freq=0.5
  rax = Copy rsi ;=0
  JMP -> b2 1 ;=1
b2: preds=b1,b3 freq=1
  RET rax ;=0
b3: preds=b0 freq=0.5 ;=edge
  rdi, rax = Xchg rax, rdi ;=-
  JMP -> b2 1 ;=-
end`},

	{name: "load and store with disjoint bytes reordered, loads reordered", pre: preMemory, want: "", post: `
func f #0 (gpr gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rdx = Arg #2 ;=2
  MOVQstore [rdi+rsi*1+8], rdx ;=4
  rcx = MOVQload [rdi+rsi*1+4] ;=5
  rax = MOVQload [rdi+rsi*1] ;=3
  MOVLstore [rdi+rsi*1+4], rax ;=6
  rax = ADDQ rax, rcx ;=7
  RET rax ;=8
end`},
	{name: "load moved above an overlapping store", pre: preMemory, want: "b0[4] (MOVQstore): from input b0[4] (MOVQstore): comes after input b0[5] (MOVQload), which follows it in the input and may access the same memory", post: `
func f #0 (gpr gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rdx = Arg #2 ;=2
  rcx = MOVQload [rdi+rsi*1+4] ;=5
  MOVQstore [rdi+rsi*1+8], rdx ;=4
  rax = MOVQload [rdi+rsi*1] ;=3
  MOVLstore [rdi+rsi*1+4], rax ;=6
  rax = ADDQ rax, rcx ;=7
  RET rax ;=8
end`},
	{name: "store moved above a load of the same address", pre: preMemory, want: "b0[6] (MOVQload): from input b0[5] (MOVQload): comes after input b0[6] (MOVLstore), which follows it in the input and may access the same memory", post: `
func f #0 (gpr gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rdx = Arg #2 ;=2
  rax = MOVQload [rdi+rsi*1] ;=3
  MOVQstore [rdi+rsi*1+8], rdx ;=4
  MOVLstore [rdi+rsi*1+4], rax ;=6
  rcx = MOVQload [rdi+rsi*1+4] ;=5
  rax = ADDQ rax, rcx ;=7
  RET rax ;=8
end`},
	{name: "stores with disjoint bytes reordered", pre: preStores, want: "", post: `
func f #0 (gpr gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rdx = Arg #2 ;=2
  MOVBstore [rdi+rsi*1+8], rdx ;=5
  MOVQstore [rdi+rsi*1], rdx ;=3
  MOVLstore [rdi+rsi*1+4], rdx ;=4
  MOVBstore [rdx+rsi*1+100], rdi ;=6
  rax = Copy rdx ;=-
  RET rax ;=7
end`},
	{name: "overlapping stores swapped", pre: preStores, want: "b0[4] (MOVQstore): from input b0[3] (MOVQstore): comes after input b0[4] (MOVLstore), which follows it in the input and may access the same memory", post: `
func f #0 (gpr gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rdx = Arg #2 ;=2
  MOVLstore [rdi+rsi*1+4], rdx ;=4
  MOVQstore [rdi+rsi*1], rdx ;=3
  MOVBstore [rdi+rsi*1+8], rdx ;=5
  MOVBstore [rdx+rsi*1+100], rdi ;=6
  rax = Copy rdx ;=-
  RET rax ;=7
end`},
	{name: "stores through different bases swapped", pre: preStores, want: "b0[6] (MOVBstore): from input b0[5] (MOVBstore): comes after input b0[6] (MOVBstore), which follows it in the input and may access the same memory", post: `
func f #0 (gpr gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rdx = Arg #2 ;=2
  MOVQstore [rdi+rsi*1], rdx ;=3
  MOVLstore [rdi+rsi*1+4], rdx ;=4
  MOVBstore [rdx+rsi*1+100], rdi ;=6
  MOVBstore [rdi+rsi*1+8], rdx ;=5
  rax = Copy rdx ;=-
  RET rax ;=7
end`},

	{name: "flags in input order", pre: preFlags, want: "", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rsi = ADDQ rsi, rdi ;=2
  CMPQconst rdi, $5 ;=3
  JCC.l -> b1 0.5, b2 0.5 ;=4
b1: preds=b0 freq=0.5
  rax = Copy rdi ;=-
  RET rax ;=0
b2: preds=b0 freq=0.5
  rax = Copy rsi ;=-
  RET rax ;=0
end`},
	{name: "original flag writer moved between a compare and its branch", pre: preFlags, want: "b0[4] (JCC): from input b0[4] (JCC): reads the flags of input b0[2] (ADDQ); in the input it reads those of input b0[3] (CMPQconst)", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  CMPQconst rdi, $5 ;=3
  rsi = ADDQ rsi, rdi ;=2
  JCC.l -> b1 0.5, b2 0.5 ;=4
b1: preds=b0 freq=0.5
  rax = Copy rdi ;=-
  RET rax ;=0
b2: preds=b0 freq=0.5
  rax = Copy rsi ;=-
  RET rax ;=0
end`},
	{name: "inserted flag writer between a compare and its branch", pre: preFlags, want: "b0[4] (ADDQ): inserted ADDQ is neither a move nor a rematerialization", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rsi = ADDQ rsi, rdi ;=2
  CMPQconst rdi, $5 ;=3
  rcx = ADDQ rcx, rdi ;=-
  JCC.l -> b1 0.5, b2 0.5 ;=4
b1: preds=b0 freq=0.5
  rax = Copy rdi ;=-
  RET rax ;=0
b2: preds=b0 freq=0.5
  rax = Copy rsi ;=-
  RET rax ;=0
end`},

	{name: "constant rematerialized at a join where it is equal on every path", pre: preJoinConst, want: "", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rax = MOVQconst $7 ;=1
  TESTQ rdi, rdi ;=2
  JCC.e -> b1 0.5, b2 0.5 ;=3
b1: preds=b0 freq=0.5
  rbx = MOVQconst $1 ;=0
  JMP -> b3 1 ;=1
b2: preds=b0 freq=0.5
  rbx = MOVQconst $2 ;=0
  JMP -> b3 1 ;=1
b3: preds=b1,b2 freq=1
  rax = CALL #0 rdi ;=0
  rcx = MOVQconst $7 ;=-
  rax = ADDQ rax, rcx ;=1
  rax = ADDQ rax, rbx ;=2
  RET rax ;=3
end`},
	{name: "constant rematerialized at a join where it differs between paths", pre: preJoinConst, want: "b3[4] (ADDQ): from input b3[2]: use 1 (rcx) must hold v2 as it enters input b3, but it holds the constant MOVQconst $1", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rax = MOVQconst $7 ;=1
  TESTQ rdi, rdi ;=2
  JCC.e -> b1 0.5, b2 0.5 ;=3
b1: preds=b0 freq=0.5
  rbx = MOVQconst $1 ;=0
  JMP -> b3 1 ;=1
b2: preds=b0 freq=0.5
  rbx = MOVQconst $2 ;=0
  JMP -> b3 1 ;=1
b3: preds=b1,b2 freq=1
  rax = CALL #0 rdi ;=0
  rcx = MOVQconst $7 ;=-
  rax = ADDQ rax, rcx ;=1
  rcx = MOVQconst $1 ;=-
  rax = ADDQ rax, rcx ;=2
  RET rax ;=3
end`},

	{name: "context field kept across a call", pre: preCtx, want: "", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  r12 = Copy rdi ;=-
  rbx = CtxLoad #0 ;=1
  rax = CALL #0 rdi ;=2
  rax = MOVQload [rbx+r12*1] ;=3
  RET rax ;=4
end`},
	{name: "context field the input reads across a call rematerialized after it", pre: preCtx, want: "", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  r12 = Copy rdi ;=-
  rcx = CtxLoad #0 ;=1
  rax = CALL #0 rdi ;=2
  rbx = CtxLoad #0 ;=-
  rax = MOVQload [rbx+r12*1] ;=3
  RET rax ;=4
end`},
	{name: "reloaded context field rematerialized after the call", pre: preCtxReload, want: "", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = CtxLoad #0 ;=1
  rdi = MOVQload [rbx+rdi*1] ;=2
  rax = CALL #0 rdi ;=3
  rcx = CtxLoad #0 ;=4
  rdx = CtxLoad #0 ;=-
  rax = MOVQload [rdx+rax*1] ;=5
  RET rax ;=6
end`},
	{name: "context field from before a call used for its reload after it", pre: preCtxReload, want: "b0[5] (MOVQload): from input b0[5]: use 0 (rbx) must hold v3 = context field 0 loaded after 1 calls of input b0, but it holds context field 0 loaded after 0 calls of input b0", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = CtxLoad #0 ;=1
  rdi = MOVQload [rbx+rdi*1] ;=2
  rax = CALL #0 rdi ;=3
  rcx = CtxLoad #0 ;=4
  rax = MOVQload [rbx+rax*1] ;=5
  RET rax ;=6
end`},
	{name: "context field rematerialized before a call for a use after it", pre: preCtxReload, want: "b0[6] (MOVQload): from input b0[5]: use 0 (rbp) must hold v3 = context field 0 loaded after 1 calls of input b0, but it holds context field 0 loaded after 0 calls of input b0", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = CtxLoad #0 ;=1
  rdi = MOVQload [rbx+rdi*1] ;=2
  rbp = CtxLoad #0 ;=-
  rax = CALL #0 rdi ;=3
  rcx = CtxLoad #0 ;=4
  rax = MOVQload [rbp+rax*1] ;=5
  RET rax ;=6
end`},
	{name: "context load moved above a call", pre: preCtxReload, want: "b0[3] (CtxLoad): from input b0[4] (CtxLoad): follows 0 calls of the block; in the input it follows 1", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rbx = CtxLoad #0 ;=1
  rdi = MOVQload [rbx+rdi*1] ;=2
  rbp = CtxLoad #0 ;=4
  rax = CALL #0 rdi ;=3
  rax = MOVQload [rbp+rax*1] ;=5
  RET rax ;=6
end`},
	{name: "independent instruction moved above a conditional trap", pre: preGuarded, want: "", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rsi = LEAQ rsi, $1 ;=5
  CMPQconst rdi, $8 ;=2
  TRAPCC.ae #4 ;=3
  rax = TABLEload rdi ;=4
  rax = ADDQ rax, rsi ;=6
  RET rax ;=7
end`},
	{name: "table load moved above the check of its index", pre: preGuarded, want: "b0[2] (TABLEload): from input b0[4] (TABLEload): moved above input b0[3] (TRAPCC)", post: `
func f #0 (gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  rsi = Arg #1 ;=1
  rax = TABLEload rdi ;=4
  CMPQconst rdi, $8 ;=2
  TRAPCC.ae #4 ;=3
  rsi = LEAQ rsi, $1 ;=5
  rax = ADDQ rax, rsi ;=6
  RET rax ;=7
end`},
	{name: "load moved above a call", pre: preCtx, want: "b0[3] (MOVQload): from input b0[3] (MOVQload): moved above input b0[2] (CALL)", post: `
func f #0 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0 ;=0
  r12 = Copy rdi ;=-
  rbx = CtxLoad #0 ;=1
  rbx = MOVQload [rbx+r12*1] ;=3
  rax = CALL #0 rdi ;=2
  rax = Copy rbx ;=-
  RET rax ;=4
end`},
}

// TestCheckAllocationHandWritten runs the checker on the hand-written
// allocations of allocCases: legal schedules and allocations must pass,
// each broken one must fail with its message, and neither function may be
// modified.
func TestCheckAllocationHandWritten(t *testing.T) {
	for _, tc := range allocCases {
		t.Run(tc.name, func(t *testing.T) {
			pre := parseInput(t, tc.pre)
			post, o := parseAllocated(t, tc.post)
			preText, postText := mir.Format(pre), mir.Format(post)
			err := CheckAllocation(pre, post, o)
			if mir.Format(pre) != preText || mir.Format(post) != postText {
				t.Fatal("CheckAllocation modified its arguments")
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rejected a correct allocation: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted a broken allocation; want an error containing %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
}

// allocatedModule is a module with every function taken out of SSA and
// allocated by the baseline, with the inputs and origins CheckAllocation
// needs, and the calls to test it with.
type allocatedModule struct {
	m     *bc.Module
	pre   []*mir.Func
	post  []*mir.Func
	o     []*Origins
	calls []testCall
}

type testCall struct {
	fn   string
	args []uint64
}

// allocatedModules allocates the kernels (called with their small inputs)
// and the shared test programs (called as their cases call them).
func allocatedModules(t testing.TB, opts DestructOptions) []allocatedModule {
	calls := map[*bc.Module][]testCall{}
	var mods []*bc.Module
	add := func(m *bc.Module, c testCall) {
		if _, ok := calls[m]; !ok {
			mods = append(mods, m)
		}
		calls[m] = append(calls[m], c)
	}
	for _, k := range testprogs.Kernels() {
		add(k.Module, testCall{k.Func, k.SmallArgs})
	}
	for _, c := range testprogs.ProgramCases() {
		add(c.Module, testCall{c.Func, c.Args})
	}
	var out []allocatedModule
	for _, m := range mods {
		funcs, err := lower.Module(m, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		am := allocatedModule{m: m, calls: calls[m]}
		for _, f := range funcs {
			pre, post, o := baselineWithOrigins(t, f, opts)
			am.pre = append(am.pre, pre)
			am.post = append(am.post, post)
			am.o = append(am.o, o)
		}
		out = append(out, am)
	}
	return out
}

// outcome is what one call of a function did: results, error and memory.
type outcome struct {
	res []uint64
	err string
	mem []byte
}

func (a outcome) equal(b outcome) bool {
	return slices.Equal(a.res, b.res) && a.err == b.err && bytes.Equal(a.mem, b.mem)
}

// run calls every test call of the module in the mir interpreter with fn
// in place of function i, with bounded fuel.
func (am *allocatedModule) run(t testing.TB, i int, fn *mir.Func) []outcome {
	t.Helper()
	funcs := slices.Clone(am.post)
	funcs[i] = fn
	var out []outcome
	for _, c := range am.calls {
		m := am.m
		mem := testrun.Memory(m)
		mach, err := mir.NewMachine(funcs, interp.Config{Fuel: 1 << 16}, nil, mem)
		if err != nil {
			out = append(out, outcome{err: "machine: " + err.Error()})
			continue
		}
		fi := m.ExportedFunc(c.fn)
		res := make([]uint64, len(m.Funcs[fi].Sig.Results))
		err = mach.Call(context.Background(), fi, c.args, res)
		o := outcome{res: res, mem: mem.Bytes}
		if err != nil {
			o.err = err.Error()
		}
		out = append(out, o)
	}
	return out
}

// cloneOrigins returns a deep copy of o.
func cloneOrigins(o *Origins) *Origins {
	c := &Origins{Block: slices.Clone(o.Block), Instr: make([][]int32, len(o.Instr))}
	for b, x := range o.Instr {
		c.Instr[b] = slices.Clone(x)
	}
	return c
}

// isOriginal reports whether instruction j of allocated block b is an
// input instruction other than a copy.
func isOriginal(pre *mir.Func, o *Origins, b, j int) bool {
	ob, k := o.Block[b], o.Instr[b][j]
	return ob >= 0 && k >= 0 && !isCopyOp(pre.Blocks[ob].Instrs[k].Op)
}

// freshDef reports whether instruction j of allocated block b is an input
// instruction whose results are new values (not copies, constants or
// context fields, which other values may equal).
func freshDef(pre *mir.Func, o *Origins, b, j int) bool {
	if !isOriginal(pre, o, b, j) {
		return false
	}
	switch pre.Blocks[o.Block[b]].Instrs[o.Instr[b][j]].Op {
	case mir.OpMOVQconst, mir.OpMOVSDconst, mir.OpCtxLoad:
		return false
	}
	return true
}

// lastWriter returns the last instruction before p in blk that defines r,
// or -1.
func lastWriter(blk *mir.Block, p int, r mir.Reg) int {
	for j := p - 1; j >= 0; j-- {
		if slices.Contains(blk.Instrs[j].Defs, r) {
			return j
		}
	}
	return -1
}

// nextReader returns the first instruction after p in blk that reads r, or
// -1 when none does or one writes r first.
func nextReader(blk *mir.Block, p int, r mir.Reg) int {
	for j := p + 1; j < len(blk.Instrs); j++ {
		if slices.Contains(blk.Instrs[j].Uses, r) {
			return j
		}
		if slices.Contains(blk.Instrs[j].Defs, r) {
			return -1
		}
	}
	return -1
}

// readBetween reports whether an instruction strictly between from and to
// reads r.
func readBetween(blk *mir.Block, from, to int, r mir.Reg) bool {
	for j := from + 1; j < to; j++ {
		if slices.Contains(blk.Instrs[j].Uses, r) {
			return true
		}
	}
	return false
}

// onlySpilledElsewhere reports whether the instructions strictly between
// from and to read r only to spill it to slots other than s, and none
// writes s.
func onlySpilledElsewhere(blk *mir.Block, from, to int, r, s mir.Reg) bool {
	for j := from + 1; j < to; j++ {
		in := blk.Instrs[j]
		if slices.Contains(in.Defs, s) {
			return false
		}
		if slices.Contains(in.Uses, r) && in.Op != mir.OpSpill {
			return false
		}
	}
	return true
}

// deleteInstr returns post and o without instruction j of block b.
func deleteInstr(post *mir.Func, o *Origins, b, j int) (*mir.Func, *Origins) {
	g, og := post.Clone(), cloneOrigins(o)
	g.Blocks[b].Instrs = slices.Delete(g.Blocks[b].Instrs, j, j+1)
	og.Instr[b] = slices.Delete(og.Instr[b], j, j+1)
	return g, og
}

// TestCheckAllocationCatchesValueChanges mutates correct baseline
// allocations where a simple argument shows that the mutation changes a
// value an input instruction reads, and requires the checker to reject
// every one:
//
//   - deleting a reload r = Reload s whose register was last written by an
//     instruction computing a new value D, spilled since only to other
//     slots, with nothing written to s since, when an input instruction
//     reads r next: it now reads D, which cannot be in s;
//   - deleting a spill s = Spill r of such a new value D, when a later
//     reload of s in the block feeds an input instruction: the reload now
//     gets what s held before, which cannot be D;
//   - retargeting a use of input instruction X to a register last written
//     by the input instruction D right before X in the input, when the
//     input operand is not what D wrote there: the input reads a value from
//     before D, or D's other result.
func TestCheckAllocationCatchesValueChanges(t *testing.T) {
	counts := map[string]int{}
	check := func(kind string, pre, post *mir.Func, o *Origins, where string) {
		counts[kind]++
		if err := CheckAllocation(pre, post, o); err == nil {
			t.Fatalf("%s at %s accepted:\n%s", kind, where, mir.Format(post))
		}
	}
	for _, opts := range []DestructOptions{{}, {NoConstraints: true}} {
		for _, am := range allocatedModules(t, opts) {
			for fi, post := range am.post {
				pre, o := am.pre[fi], am.o[fi]
				if err := CheckAllocation(pre, post, o); err != nil {
					t.Fatal(err)
				}
				for b, blk := range post.Blocks {
					for j, in := range blk.Instrs {
						where := fmt.Sprintf("%s b%d[%d]", post.Name, b, j)
						switch {
						case in.Op == mir.OpReload && in.Defs[0].IsPhys():
							r := in.Defs[0]
							d := lastWriter(blk, j, r)
							x := nextReader(blk, j, r)
							if d >= 0 && freshDef(pre, o, b, d) && onlySpilledElsewhere(blk, d, j, r, in.Uses[0]) && x >= 0 && isOriginal(pre, o, b, x) {
								g, og := deleteInstr(post, o, b, j)
								check("deleted reload", pre, g, og, where)
							}
						case in.Op == mir.OpSpill && in.Uses[0].IsPhys():
							r, s := in.Uses[0], in.Defs[0]
							d := lastWriter(blk, j, r)
							if d < 0 || !freshDef(pre, o, b, d) || readBetween(blk, d, j, r) {
								continue
							}
							// The next access of s must be a reload feeding
							// an input instruction.
							for k := j + 1; k < len(blk.Instrs); k++ {
								nx := blk.Instrs[k]
								if slices.Contains(nx.Defs, s) {
									break
								}
								if nx.Op == mir.OpReload && nx.Uses[0] == s {
									if x := nextReader(blk, k, nx.Defs[0]); x >= 0 && isOriginal(pre, o, b, x) {
										g, og := deleteInstr(post, o, b, j)
										check("deleted spill", pre, g, og, where)
									}
									break
								}
							}
						case isOriginal(pre, o, b, j):
							ob, k := o.Block[b], o.Instr[b][j]
							pin := pre.Blocks[ob].Instrs[k]
							for ui, r := range in.Uses {
								if !r.IsPhys() {
									continue
								}
								for _, r2 := range mir.Allocatable.OfClass(r.Class()).Regs() {
									if r2 == r {
										continue
									}
									d := lastWriter(blk, j, r2)
									if d < 0 || !freshDef(pre, o, b, d) || o.Instr[b][d] != k-1 {
										continue
									}
									dk := slices.Index(blk.Instrs[d].Defs, r2)
									if pre.Blocks[ob].Instrs[k-1].Defs[dk] == pin.Uses[ui] {
										continue
									}
									g, og := post.Clone(), cloneOrigins(o)
									g.Blocks[b].Instrs[j].Uses[ui] = r2
									check("retargeted use", pre, g, og, fmt.Sprintf("%s use %d %s->%s", where, ui, r, r2))
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("mutations rejected: %v", counts)
	for _, kind := range []string{"deleted reload", "deleted spill", "retargeted use"} {
		if counts[kind] < 20 {
			t.Errorf("only %d mutations of kind %q; the test needs more", counts[kind], kind)
		}
	}
}

// mutate applies one random change to a copy of an allocation: an operand
// changed to another location of its kind, a move deleted, or two adjacent
// dependent instructions swapped. ok is false when it found nothing to
// change.
func mutate(rng *rand.Rand, post *mir.Func, o *Origins) (kind string, g *mir.Func, og *Origins, ok bool) {
	type site struct{ b, j int }
	var all []site
	for b, blk := range post.Blocks {
		for j := range blk.Instrs {
			all = append(all, site{b, j})
		}
	}
	for range 50 {
		s := all[rng.IntN(len(all))]
		blk := post.Blocks[s.b]
		in := blk.Instrs[s.j]
		switch rng.IntN(3) {
		case 0:
			ops := slices.Concat(in.Defs, in.Uses)
			if len(ops) == 0 {
				continue
			}
			k := rng.IntN(len(ops))
			r, r2 := ops[k], mir.NoReg
			switch {
			case r.IsPhys():
				regs := mir.Allocatable.OfClass(r.Class()).Remove(r).Regs()
				r2 = regs[rng.IntN(len(regs))]
			case r.IsSlot() && len(post.Slots) > 1:
				r2 = mir.SlotReg((r.Index() + 1 + rng.IntN(len(post.Slots)-1)) % len(post.Slots))
			default:
				continue
			}
			g, og = post.Clone(), cloneOrigins(o)
			gin := g.Blocks[s.b].Instrs[s.j]
			if k < len(in.Defs) {
				gin.Defs[k] = r2
			} else {
				gin.Uses[k-len(in.Defs)] = r2
			}
			return "operand changed", g, og, true
		case 1:
			if !isMoveOp(in.Op) {
				continue
			}
			g, og = deleteInstr(post, o, s.b, s.j)
			return "move deleted", g, og, true
		default:
			if s.j+2 >= len(blk.Instrs) || !dependent(in, blk.Instrs[s.j+1]) {
				continue
			}
			g, og = post.Clone(), cloneOrigins(o)
			x, y := g.Blocks[s.b].Instrs, og.Instr[s.b]
			x[s.j], x[s.j+1] = x[s.j+1], x[s.j]
			y[s.j], y[s.j+1] = y[s.j+1], y[s.j]
			return "dependent instructions swapped", g, og, true
		}
	}
	return "", nil, nil, false
}

// dependent reports whether swapping two instructions may change what
// they compute: one writes a location or the flags the other reads or
// writes.
func dependent(a, b *mir.Instr) bool {
	touches := func(x *mir.Instr, r mir.Reg) bool {
		return slices.Contains(x.Defs, r) || slices.Contains(x.Uses, r)
	}
	for _, r := range a.Defs {
		if touches(b, r) {
			return true
		}
	}
	for _, r := range b.Defs {
		if slices.Contains(a.Uses, r) {
			return true
		}
	}
	ia, ib := a.Op.Info(), b.Op.Info()
	return ia.WritesFlags && (ib.ReadsFlags || ib.WritesFlags) || ib.WritesFlags && ia.ReadsFlags
}

// TestCheckAllocationMutationsAgreeWithInterpreter mutates correct
// baseline allocations at random (an operand changed, a move deleted, two
// dependent instructions swapped) and runs the mutants in the mir
// interpreter on the module's test calls: every mutant the checker accepts
// must behave exactly as the correct allocation (results, trap, memory, no
// fault), that is, every mutant that behaves differently must be rejected.
// A sample of the rejected mutants is run too, and enough of them must
// behave differently for the test to mean something.
func TestCheckAllocationMutationsAgreeWithInterpreter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type tally struct{ rejected, sampled, sampledDiffer, accepted int }
	stats := map[string]*tally{}
	for _, opts := range []DestructOptions{{}, {NoConstraints: true}} {
		for _, am := range allocatedModules(t, opts) {
			want := am.run(t, 0, am.post[0])
			for fi, post := range am.post {
				pre, o := am.pre[fi], am.o[fi]
				for range 12 {
					kind, g, og, ok := mutate(rng, post, o)
					if !ok {
						continue
					}
					if stats[kind] == nil {
						stats[kind] = &tally{}
					}
					st := stats[kind]
					if err := CheckAllocation(pre, g, og); err != nil {
						if strings.Contains(err.Error(), "internal error") {
							t.Fatalf("%s in %s: %v", kind, post.Name, err)
						}
						// Run a third of the rejected mutants too, to show
						// that most of them are really wrong.
						st.rejected++
						if st.rejected%3 == 0 {
							st.sampled++
							if !slices.EqualFunc(am.run(t, fi, g), want, outcome.equal) {
								st.sampledDiffer++
							}
						}
						continue
					}
					st.accepted++
					if !slices.EqualFunc(am.run(t, fi, g), want, outcome.equal) {
						t.Errorf("%s in %s accepted, but it changes what the function does:\n%s", kind, post.Name, mir.Format(g))
					}
				}
			}
		}
	}
	total := 0
	for kind, st := range stats {
		t.Logf("%s: %d rejected (%d of %d run in the interpreter behaved differently), %d accepted and behaving the same",
			kind, st.rejected, st.sampledDiffer, st.sampled, st.accepted)
		total += st.sampledDiffer
	}
	if total < 20 {
		t.Errorf("only %d mutants behaved differently; the test needs more", total)
	}
}

// TestCheckAllocationMalformed feeds the checker malformed origins and
// mismatched functions: it must return an error (never panic, which it
// would report as an internal error) and leave its arguments unchanged.
func TestCheckAllocationMalformed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ams := allocatedModules(t, DestructOptions{})
	var pres, posts []*mir.Func
	var origins []*Origins
	for _, am := range ams {
		pres = append(pres, am.pre...)
		posts = append(posts, am.post...)
		origins = append(origins, am.o...)
	}
	expectError := func(what string, pre, post *mir.Func, o *Origins) {
		t.Helper()
		preText, postText := mir.Format(pre), mir.Format(post)
		err := CheckAllocation(pre, post, o)
		if err == nil {
			t.Fatalf("%s: accepted", what)
		}
		if strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%s: %v", what, err)
		}
		if mir.Format(pre) != preText || mir.Format(post) != postText {
			t.Fatalf("%s: CheckAllocation modified its arguments", what)
		}
	}
	p0, q0, o0 := pres[0], posts[0], origins[0]
	if err := CheckAllocation(nil, q0, o0); err == nil {
		t.Fatal("nil input accepted")
	}
	if err := CheckAllocation(p0, nil, o0); err == nil {
		t.Fatal("nil allocation accepted")
	}
	expectError("nil origins", p0, q0, nil)
	expectError("empty origins", p0, q0, &Origins{})
	expectError("input as the allocation", p0, p0, o0)
	expectError("allocation as the input", q0, q0, o0)
	for i := range 40 {
		j := (i + 1 + rng.IntN(len(pres)-1)) % len(pres)
		if mir.Format(pres[i%len(pres)]) == mir.Format(pres[j]) {
			continue
		}
		expectError("another function's allocation", pres[i%len(pres)], posts[j], origins[j])
	}
	for range 2000 {
		i := rng.IntN(len(pres))
		pre, post, o := pres[i], posts[i], cloneOrigins(origins[i])
		what := ""
		switch rng.IntN(5) {
		case 0:
			b := rng.IntN(len(o.Block))
			old := o.Block[b]
			o.Block[b] = rng.IntN(len(pre.Blocks)+4) - 2
			if o.Block[b] == old {
				continue
			}
			what = fmt.Sprintf("block origin b%d: %d -> %d", b, old, o.Block[b])
		case 1:
			b := rng.IntN(len(o.Instr))
			if len(o.Instr[b]) == 0 {
				continue
			}
			j := rng.IntN(len(o.Instr[b]))
			ob := o.Block[b]
			old := o.Instr[b][j]
			o.Instr[b][j] = int32(rng.IntN(len(pre.Blocks[ob].Instrs)+4) - 2)
			// An inserted move may carry -1 or the index of any copy.
			movable := func(k int32) bool {
				return k == -1 || k >= 0 && int(k) < len(pre.Blocks[ob].Instrs) && isCopyOp(pre.Blocks[ob].Instrs[k].Op)
			}
			if o.Instr[b][j] == old || movable(old) && movable(o.Instr[b][j]) {
				continue
			}
			// A rematerialization marked inserted leaves its input
			// instruction deleted, which is allowed: the same code.
			if old >= 0 && o.Instr[b][j] == -1 && IsRematOp(pre.Blocks[ob].Instrs[old].Op) {
				continue
			}
			what = fmt.Sprintf("instruction origin b%d[%d]: %d -> %d", b, j, old, o.Instr[b][j])
		case 2:
			b := rng.IntN(len(o.Instr))
			if len(o.Instr[b]) == 0 {
				continue
			}
			o.Instr[b] = o.Instr[b][:rng.IntN(len(o.Instr[b]))]
			what = fmt.Sprintf("instruction origins of b%d truncated", b)
		case 3:
			if rng.IntN(2) == 0 {
				o.Block = o.Block[:len(o.Block)-1]
			} else {
				o.Instr = append(o.Instr, []int32{0})
			}
			what = "block origins of the wrong length"
		default:
			b := rng.IntN(len(o.Instr))
			o.Instr[b] = nil
			what = fmt.Sprintf("instruction origins of b%d missing", b)
		}
		expectError(what, pre, post, o)
	}
}

// BenchmarkCheckAllocation checks the baseline allocation of every
// function of the kernels and reports the time per allocated
// instruction.
func BenchmarkCheckAllocation(b *testing.B) {
	type job struct {
		pre, post *mir.Func
		o         *Origins
	}
	var jobs []job
	ninstr := 0
	for _, k := range testprogs.Kernels() {
		funcs, err := lower.Module(k.Module, lower.FullTarget())
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range funcs {
			pre, post, o := baselineWithOrigins(b, f, DestructOptions{})
			jobs = append(jobs, job{pre, post, o})
			ninstr += post.NumInstrs()
		}
	}
	b.ResetTimer()
	for range b.N {
		for _, j := range jobs {
			if err := CheckAllocation(j.pre, j.post, j.o); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ninstr), "ns/instr")
}

// reschedule returns a copy of an allocation with the instructions of
// every block put in a random order that respects every dependency the
// machine has: registers, slots and the flags (read after write, write
// after read, write after write, with calls clobbering the caller-saved
// registers and every non-move the scratch registers), the order of
// stores, calls and other effects among themselves and with loads, and
// of context loads with calls. The Args at the start of the entry block
// and the terminators stay where they are.
func reschedule(rng *rand.Rand, post *mir.Func, o *Origins) (*mir.Func, *Origins, int) {
	const flags, ctx = -1, -2
	locsOf := func(in *mir.Instr) (reads, writes []int) {
		id := func(r mir.Reg) int {
			switch {
			case r.IsPhys():
				return int(r)
			case r.IsSlot():
				return 64 + r.Index()
			}
			return 1<<24 + int(r&0xffffff) // stack-argument slots
		}
		for _, r := range in.Uses {
			reads = append(reads, id(r))
		}
		for _, r := range in.Defs {
			writes = append(writes, id(r))
		}
		info := in.Op.Info()
		for _, r := range in.Clobbers().Regs() {
			writes = append(writes, int(r))
		}
		if !isMoveOp(in.Op) {
			writes = append(writes, int(mir.ScratchGPR), int(mir.ScratchXMM))
		}
		if info.Call {
			for k := range 8 {
				writes = append(writes, id(mir.OutArgReg(k)))
			}
			writes = append(writes, ctx)
		}
		if in.Op == mir.OpCtxLoad {
			reads = append(reads, ctx)
		}
		if info.ReadsFlags {
			reads = append(reads, flags)
		}
		if info.WritesFlags {
			writes = append(writes, flags)
		}
		return reads, writes
	}
	g, og := post.Clone(), cloneOrigins(o)
	moved := 0
	for b, blk := range g.Blocks {
		lo := 0
		for lo < len(blk.Instrs) && blk.Instrs[lo].Op == mir.OpArg {
			lo++
		}
		hi := len(blk.Instrs) - 1
		n := hi - lo
		if n < 2 {
			continue
		}
		reads := make([][]int, n)
		writes := make([][]int, n)
		for i := range n {
			reads[i], writes[i] = locsOf(blk.Instrs[lo+i])
		}
		meets := func(x, y []int) bool {
			for _, a := range x {
				if slices.Contains(y, a) {
					return true
				}
			}
			return false
		}
		npred := make([]int, n)
		succs := make([][]int, n)
		for i := range n {
			ci := effectClass(blk.Instrs[lo+i])
			for j := i + 1; j < n; j++ {
				cj := effectClass(blk.Instrs[lo+j])
				mem := ci != acNone && cj != acNone && !(ci == acLoad && cj == acLoad)
				if mem || meets(writes[i], reads[j]) || meets(writes[i], writes[j]) || meets(reads[i], writes[j]) {
					npred[j]++
					succs[i] = append(succs[i], j)
				}
			}
		}
		var ready, order []int
		for i := range n {
			if npred[i] == 0 {
				ready = append(ready, i)
			}
		}
		for len(ready) > 0 {
			k := rng.IntN(len(ready))
			i := ready[k]
			ready = slices.Delete(ready, k, k+1)
			order = append(order, i)
			for _, j := range succs[i] {
				if npred[j]--; npred[j] == 0 {
					ready = append(ready, j)
				}
			}
		}
		instrs := slices.Clone(blk.Instrs[lo:hi])
		origins := slices.Clone(og.Instr[b][lo:hi])
		for p, i := range order {
			if p != i {
				moved++
			}
			blk.Instrs[lo+p] = instrs[i]
			og.Instr[b][lo+p] = origins[i]
		}
	}
	return g, og, moved
}

// TestCheckAllocationAcceptsRandomSchedules reorders correct baseline
// allocations at random within the machine's dependencies (moving input
// instructions past each other, spills and reloads past unrelated
// instructions, loads past loads) and requires the checker to accept every
// schedule, which the interpreter must also find to behave as before.
func TestCheckAllocationAcceptsRandomSchedules(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	moved, n := 0, 0
	for _, opts := range []DestructOptions{{}, {NoConstraints: true}} {
		for _, am := range allocatedModules(t, opts) {
			want := am.run(t, 0, am.post[0])
			for fi, post := range am.post {
				for range 2 {
					g, og, m := reschedule(rng, post, am.o[fi])
					if err := CheckAllocation(am.pre[fi], g, og); err != nil {
						t.Fatalf("rejected a legal schedule: %v\n%s", err, mir.Format(g))
					}
					if !slices.EqualFunc(am.run(t, fi, g), want, outcome.equal) {
						t.Fatalf("the schedule changes what %s does:\n%s", post.Name, mir.Format(g))
					}
					moved += m
					n++
				}
			}
		}
	}
	t.Logf("%d schedules, %d instructions moved", n, moved)
	if moved < 1000 {
		t.Errorf("only %d instructions moved; the schedules are too tame", moved)
	}
}

// TestCtxReadAcrossCall checks the analysis that decides whether an input
// relies on calls leaving the execution context unchanged.
func TestCtxReadAcrossCall(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want bool
	}{
		{"read before the call only", `
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  v2:gpr = MOVQload [v1+v0*1]
  v2:gpr = CALL #0 v2
  RET v2`, false},
		{"read after the call in the block", `
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  v2:gpr = CALL #0 v0
  v2:gpr = MOVQload [v1+v2*1]
  RET v2`, true},
		{"reloaded after the call", preCtxReloadBody, false},
		{"read after a call in another block", `
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  JMP -> b1 1
b1: preds=b0 freq=1
  v2:gpr = CALL #0 v0
  JMP -> b2 1
b2: preds=b1 freq=1
  v2:gpr = MOVQload [v1+v2*1]
  RET v2`, true},
		{"read through a copy made before the call", `
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  v3:gpr = Copy v1
  v2:gpr = CALL #0 v0
  v2:gpr = MOVQload [v3+v2*1]
  RET v2`, true},
		{"register redefined before the call", `
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  v1:gpr = LEAQ v0, $8
  v2:gpr = CALL #0 v0
  v2:gpr = MOVQload [v1+v2*1]
  RET v2`, false},
		{"call only on a path where the value is reloaded", `
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  TESTQ v0, v0
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  v2:gpr = CALL #0 v0
  v1:gpr = CtxLoad #0
  JMP -> b2 1
b2: preds=b0,b1 freq=1
  v2:gpr = MOVQload [v1+v0*1]
  RET v2`, false},
		{"around a loop", `
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = CtxLoad #0
  JMP -> b1 1
b1: preds=b0,b1 freq=10
  v2:gpr = MOVQload [v1+v0*1]
  v2:gpr = CALL #0 v2
  TESTQ v2, v2
  JCC.e -> b1 0.9, b2 0.1
b2: preds=b1 freq=1
  RET v2`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, m := range regexp.MustCompile(`v([0-9]+)`).FindAllStringSubmatch(tc.body, -1) {
				var k int
				fmt.Sscan(m[1], &k)
				n = max(n, k+1)
			}
			f := parseInput(t, fmt.Sprintf("func f #0 (gpr) -> (gpr) nonssa\n  vregs %d\n%s\nend\n", n, strings.TrimPrefix(tc.body, "\n")))
			if err := mir.Verify(f); err != nil {
				t.Fatal(err)
			}
			c := &acChecker{pre: f, nv: len(f.VRegs), live: mir.ComputeSparseLiveness(f)}
			if got := c.ctxReadAcrossCall(); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
