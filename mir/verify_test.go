package mir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validLoop is a small valid SSA function: sum of 0..n-1.
const validLoop = `func sum #0 (gpr) -> (gpr) ssa
  vregs 7
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $0
  JMP -> b1 1
b1: preds=b0,b2 freq=10
  v2:gpr = Phi v1, v4
  v3:gpr = Phi v1, v5
  CMPQ v2, v0
  JCC.ge -> b3 0.1, b2 0.9
b2: preds=b1 freq=9
  v4:gpr = LEAQ v2, $1
  v5:gpr = ADDQ v3, v2
  JMP -> b1 1
b3: preds=b1 freq=1
  v6:gpr = MOVQconst $1
  RET v3
end
`

// valid32 is a valid SSA function with the 32-bit and f32 ops at the
// edges of their immediate ranges and their flag producers.
const valid32 = `func f #0 (gpr xmm) -> (gpr gpr xmm) ssa
  vregs 13
b0: freq=1
  v0:gpr = Arg #0
  v1:xmm = Arg #1
  v2:gpr = SHLLconst v0, $31
  v3:gpr = RORLconst v2, $0
  v4:gpr = ADDLconst v3, $-2147483648
  v5:gpr = IMUL3Lconst v4, $2147483647
  v6:xmm = MOVSSconst $4294967295
  v7:xmm = MOVSSconst $0
  v8:xmm = ROUNDSS #3 v1
  v9:xmm = MINSS v8, v6
  CMPLconst v5, $-1
  v10:gpr = SETCC.l
  UCOMISS v9, v7
  v11:gpr = SETCC.fne
  TESTLconst v11, $2147483647
  v12:gpr = SETCC.e
  RET v10, v12, v9
end
`

func TestVerifyAcceptsValid(t *testing.T) {
	for _, text := range []string{validLoop, valid32} {
		f, err := ParseFunc([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(f); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVerifyRejects runs the verifier on hand-broken functions, one rule
// each, and checks its message.
func TestVerifyRejects(t *testing.T) {
	for _, tt := range []struct {
		name, text, want string
	}{
		{"scale without an index", `func f #0 () -> (gpr) nonssa
  vregs 2
b0: freq=1
  v0:gpr = CtxLoad #0
  v1:gpr = MOVQload [v0+noreg*8+16]
  RET v1
end`, "b0[1] (MOVQload): scale 8 without an index, want 1"},
		{"memory operand without a base", `func f #0 () -> (gpr) nonssa
  vregs 2
b0: freq=1
  v0:gpr = CtxLoad #0
  v1:gpr = MOVQload [noreg+v0*1]
  RET v1
end`, "b0[1] (MOVQload): use 0 is noreg"},
		{"entry with predecessors", `func f #0 () -> () ssa
  vregs 0
b0: preds=b0 freq=1
  JMP -> b0 1
end`, "verify f: b0: the entry block has predecessors"},
		{"empty block", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  JMP -> b1 1
b1: preds=b0 freq=1
end`, "verify f: b1: empty block"},
		{"no terminator", `func f #0 () -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = MOVQconst $1
end`, "verify f: b0[0] (MOVQconst): block does not end with a terminator"},
		{"terminator in the middle", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  RET
  RET
end`, "b0[0] (RET): terminator before the end of the block"},
		{"successor count", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  JMP -> b1 0.5, b1 0.5
b1: preds=b0,b0 freq=1
  RET
end`, "b0: JMP needs 1 successors, block has 2"},
		{"probability sum", `func f #0 (gpr) -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = Arg #0
  TESTQ v0, v0
  JCC.e -> b1 0.5, b2 0.6
b1: preds=b0 freq=1
  RET
b2: preds=b0 freq=1
  RET
end`, "b0: successor probabilities sum to 1.1"},
		{"probability range", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  JMP -> b1 2
b1: preds=b0 freq=1
  RET
end`, "b0: successor b1 has probability 2"},
		{"negative frequency", `func f #0 () -> () ssa
  vregs 0
b0: freq=-1
  RET
end`, "b0: frequency -1"},
		{"missing predecessor entry", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  JMP -> b1 1
b1: freq=1
  RET
end`, "b0: edge to b1: 1 successor entries but b1 lists b0 0 times as predecessor"},
		{"predecessor without edge", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  JMP -> b1 1
b1: preds=b0,b2 freq=1
  RET
b2: preds=b0 freq=1
  RET
end`, "predecessor b2 has no edge to this block"},
		{"unreachable", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  RET
b1: freq=1
  RET
end`, "verify f: b1: unreachable block"},
		{"phi operand count", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  JMP -> b1 1
b1: preds=b0 freq=1
  v1:gpr = Phi v0, v0
  RET
end`, "b1[0] (Phi): φ with 1 defs and 2 operands in a block with 1 predecessors"},
		{"phi after an instruction", `func f #0 (gpr) -> () ssa
  vregs 3
b0: freq=1
  v0:gpr = Arg #0
  JMP -> b1 1
b1: preds=b0 freq=1
  v1:gpr = MOVQconst $1
  v2:gpr = Phi v0
  RET
end`, "b1[1] (Phi): φ after a non-φ instruction"},
		{"phi outside SSA", `func f #0 (gpr) -> () nonssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  JMP -> b1 1
b1: preds=b0 freq=1
  v1:gpr = Phi v0
  RET
end`, "b1[0] (Phi): φ in nonssa form"},
		{"parallel copy in SSA", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = ParCopy v0
  RET
end`, "b0[1] (ParCopy): parallel copy in SSA form"},
		{"parallel copy writes twice", `func f #0 (gpr) -> () nonssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr, v1:gpr = ParCopy v0, v0
  RET
end`, "parallel copy writes v1 twice"},
		{"argument index", `func f #0 (gpr) -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = Arg #1
  RET
end`, "b0[0] (Arg): argument 1 out of range (the function has 1 parameters)"},
		{"argument class", `func f #0 (xmm) -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = Arg #0
  RET
end`, "b0[0] (Arg): def 0 v0 has class gpr, want xmm"},
		{"argument outside entry", `func f #0 (gpr) -> () ssa
  vregs 1
b0: freq=1
  JMP -> b1 1
b1: preds=b0 freq=1
  v0:gpr = Arg #0
  RET
end`, "b1[0] (Arg): Arg outside the entry block"},
		{"return count", `func f #0 () -> (gpr) ssa
  vregs 0
b0: freq=1
  RET
end`, "b0[0] (RET): returns 0 values; the function has 1 results"},
		{"return class", `func f #0 () -> (gpr) ssa
  vregs 1
b0: freq=1
  v0:xmm = MOVSDconst $0
  RET v0
end`, "b0[1] (RET): result 0 has class xmm, want gpr"},
		{"operand count", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = NEGQ v0, v0
  RET
end`, "b0[1] (NEGQ): 1 defs and 2 uses, want 1 and 1"},
		{"undeclared register", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  CMPQ v5, v5
  RET
end`, "b0[0] (CMPQ): use 0 v5 is not declared (the function has 0 virtual registers)"},
		{"physical register before allocation", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  CMPQ rax, rax
  RET
end`, "b0[0] (CMPQ): use 0 rax is a physical register before allocation"},
		{"virtual register after allocation", `func f #0 () -> () allocated
  vregs 1
  undefined v0:gpr
b0: freq=1
  CMPQ v0, v0
  RET
end`, "b0[0] (CMPQ): use 0 v0 is virtual in allocated form"},
		{"class mismatch", `func f #0 () -> () ssa
  vregs 2
b0: freq=1
  v0:xmm = MOVSDconst $0
  v1:gpr = NEGQ v0
  RET
end`, "b0[1] (NEGQ): use 0 v0 has class xmm, want gpr"},
		{"copy classes differ", `func f #0 () -> () ssa
  vregs 2
b0: freq=1
  v0:xmm = MOVSDconst $0
  v1:gpr = Copy v0
  RET
end`, "b0[1] (Copy): use 0 v0 has class xmm, the other operands gpr"},
		{"immediate too wide", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = ADDQconst v0, $4294967296
  RET
end`, "b0[1] (ADDQconst): immediate 4294967296 does not fit in 32 bits"},
		{"shift count", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = SHLQconst v0, $64
  RET
end`, "b0[1] (SHLQconst): shift count 64 outside 0..63"},
		{"32-bit immediate too wide", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = ANDLconst v0, $4294967295
  RET
end`, "b0[1] (ANDLconst): immediate 4294967295 does not fit in 32 bits"},
		{"32-bit compare immediate too wide", `func f #0 (gpr) -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = Arg #0
  CMPLconst v0, $-2147483649
  RET
end`, "b0[1] (CMPLconst): immediate -2147483649 does not fit in 32 bits"},
		{"32-bit shift count", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = SARLconst v0, $32
  RET
end`, "b0[1] (SARLconst): shift count 32 outside 0..31"},
		{"negative 32-bit shift count", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = ROLLconst v0, $-1
  RET
end`, "b0[1] (ROLLconst): shift count -1 outside 0..31"},
		{"f32 constant too wide", `func f #0 () -> () ssa
  vregs 1
b0: freq=1
  v0:xmm = MOVSSconst $4294967296
  RET
end`, "b0[0] (MOVSSconst): f32 bits 4294967296 outside 0..4294967295"},
		{"negative f32 constant", `func f #0 () -> () ssa
  vregs 1
b0: freq=1
  v0:xmm = MOVSSconst $-1
  RET
end`, "b0[0] (MOVSSconst): f32 bits -1 outside 0..4294967295"},
		{"f32 rounding mode", `func f #0 (xmm) -> () ssa
  vregs 2
b0: freq=1
  v0:xmm = Arg #0
  v1:xmm = ROUNDSS #4 v0
  RET
end`, "b0[1] (ROUNDSS): unknown rounding mode 4"},
		{"flags clobbered by a 32-bit shift", `func f #0 (gpr) -> () ssa
  vregs 3
b0: freq=1
  v0:gpr = Arg #0
  CMPL v0, v0
  v1:gpr = SHLLconst v0, $3
  v2:gpr = SETCC.e
  RET
end`, "b0[3] (SETCC): reads flags last written by SHLLconst"},
		{"flags clobbered by f32 min", `func f #0 (xmm) -> () ssa
  vregs 3
b0: freq=1
  v0:xmm = Arg #0
  UCOMISS v0, v0
  v1:xmm = MINSS v0, v0
  v2:gpr = SETCC.feq
  RET
end`, "b0[3] (SETCC): reads flags last written by MINSS"},
		{"scale", `func f #0 (gpr) -> () ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQload [v0+v0*3]
  RET
end`, "b0[1] (MOVQload): scale 3 is not 1, 2, 4 or 8"},
		{"stray condition", `func f #0 (gpr) -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = Arg #0
  CMPQ.l v0, v0
  RET
end`, "b0[1] (CMPQ): stray condition l"},
		{"context field", `func f #0 () -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = CtxLoad #99
  RET
end`, "b0[0] (CtxLoad): unknown context field 99"},
		{"trap kind", `func f #0 () -> () ssa
  vregs 0
b0: freq=1
  TRAP #0 $0
end`, "b0[0] (TRAP): unknown trap kind 0"},
		{"flags never set", `func f #0 () -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = SETCC.e
  RET
end`, "b0[0] (SETCC): reads flags no instruction of the block set"},
		{"flags clobbered", `func f #0 (gpr) -> () ssa
  vregs 3
b0: freq=1
  v0:gpr = Arg #0
  CMPQ v0, v0
  v1:gpr = SHLQconst v0, $3
  v2:gpr = SETCC.e
  RET
end`, "b0[3] (SETCC): reads flags last written by SHLQconst"},
		{"defined twice", `func f #0 () -> () ssa
  vregs 1
b0: freq=1
  v0:gpr = MOVQconst $1
  v0:gpr = MOVQconst $2
  RET
end`, "b0[1] (MOVQconst): v0 is defined again (first at b0[0])"},
		{"use before definition", `func f #0 () -> () ssa
  vregs 2
b0: freq=1
  v1:gpr = NEGQ v0
  v0:gpr = MOVQconst $2
  RET
end`, "b0[0] (NEGQ): v0 is used before its definition at [1]"},
		{"definition does not dominate", `func f #0 (gpr) -> (gpr) ssa
  vregs 2
b0: freq=1
  v0:gpr = Arg #0
  TESTQ v0, v0
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  v1:gpr = MOVQconst $1
  JMP -> b2 1
b2: preds=b0,b1 freq=1
  RET v1
end`, "b2[0] (RET): v1 is used where its definition in b1 does not dominate"},
		{"phi operand not dominated", `func f #0 (gpr) -> (gpr) ssa
  vregs 3
b0: freq=1
  v0:gpr = Arg #0
  TESTQ v0, v0
  JCC.e -> b1 0.5, b2 0.5
b1: preds=b0 freq=0.5
  v1:gpr = MOVQconst $1
  JMP -> b2 1
b2: preds=b0,b1 freq=1
  v2:gpr = Phi v1, v0
  RET v2
end`, "b2[0] (Phi): φ operand v1 (from b0) is not dominated by its definition in b1"},
		{"fixed register", `func f #0 () -> () allocated
  vregs 0
b0: freq=1
  rax, rdx = IDIVQ rbx, rcx
  RET
end`, "b0[0] (IDIVQ): use 0 is rbx, must be rax"},
		{"tied operand", `func f #0 () -> () allocated
  vregs 0
b0: freq=1
  rax = ADDQ rbx, rcx
  RET
end`, "b0[0] (ADDQ): def 0 is rax but is tied to use 0 in rbx"},
		{"early clobber", `func f #0 () -> () allocated
  vregs 0
b0: freq=1
  rax, rdx = IDIVQ rax, rdx
  RET
end`, "b0[0] (IDIVQ): early-clobbered def 1 shares rdx with use 1"},
		{"reserved register", `func f #0 () -> () allocated
  vregs 0
b0: freq=1
  r15 = MOVQconst $1
  RET
end`, "b0[0] (MOVQconst): def 0 r15 is reserved"},
		{"memory-to-memory copy", `func f #0 () -> () allocated
  slots gpr gpr
  vregs 0
b0: freq=1
  s0 = Copy s1
  RET
end`, "b0[0] (Copy): memory-to-memory copy"},
		{"return register", `func f #0 () -> (gpr) allocated
  vregs 0
b0: freq=1
  rbx = MOVQconst $1
  RET rbx
end`, "b0[1] (RET): use 0 is rbx, must be rax"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFunc([]byte(tt.text + "\n"))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = Verify(f)
			if err == nil {
				t.Fatalf("verify accepted the function; want %q", tt.want)
			}
			var ve *VerifyError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error\n  %v\nwant it to contain\n  %s", err, tt.want)
			}
		})
	}
}

func TestVerifyModuleCalls(t *testing.T) {
	const text = `func main #0 () -> (gpr) ssa
  vregs 1
b0: freq=1
  v0:gpr = CALL #1
  RET v0
end

func helper #1 () -> (xmm) ssa
  vregs 1
b0: freq=1
  v0:xmm = MOVSDconst $0
  RET v0
end
`
	fs, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyModule(fs, nil); err == nil || !strings.Contains(err.Error(), "operands do not match the callee's signature") {
		t.Fatalf("signature mismatch: %v", err)
	}
	fs[0].Blocks[0].Instrs[0].Aux = 7
	if err := VerifyModule(fs, nil); err == nil || !strings.Contains(err.Error(), "callee 7 out of range") {
		t.Fatalf("callee range: %v", err)
	}
	if err := VerifyModule(fs[1:], nil); err == nil || !strings.Contains(err.Error(), "index 1 at position 0") {
		t.Fatalf("index: %v", err)
	}
}

func TestVerifyStructureWithoutParser(t *testing.T) {
	f := NewFunc("f", 0, nil, nil)
	if err := Verify(f); err == nil || !strings.Contains(err.Error(), "no blocks") {
		t.Fatalf("no blocks: %v", err)
	}
	b := f.NewBlock()
	b.Append(&Instr{Op: OpRET, Pos: -1})
	b.ID = 3
	if err := Verify(f); err == nil || !strings.Contains(err.Error(), "block at position 0 has ID 3") {
		t.Fatalf("block id: %v", err)
	}
}

// validPinnedCalls is a pinned non-SSA caller (all register arguments and
// results pinned per the calling convention, the stack argument v7 not
// pinned) of an allocated callee: callee(1..7, x) = (7+1, x+x).
const validPinnedCalls = `func caller #0 (xmm) -> (gpr xmm) nonssa
  vregs 11
  pins v0=xmm0 v1=rdi v2=rsi v3=rdx v4=rcx v5=r8 v6=r9 v8=xmm0 v9=rax v10=xmm0
b0: freq=1
  v0:xmm = Arg #0
  v1:gpr = MOVQconst $1
  v2:gpr = MOVQconst $2
  v3:gpr = MOVQconst $3
  v4:gpr = MOVQconst $4
  v5:gpr = MOVQconst $5
  v6:gpr = MOVQconst $6
  v7:gpr = MOVQconst $7
  v8:xmm = Copy v0
  v9:gpr, v10:xmm = CALL #1 v1, v2, v3, v4, v5, v6, v7, v8
  RET v9, v10
end

func callee #1 (gpr gpr gpr gpr gpr gpr gpr xmm) -> (gpr xmm) allocated
  vregs 0
b0: freq=1
  rax = Reload in0
  rax = ADDQ rax, rdi
  xmm0 = ADDSD xmm0, xmm0
  RET rax, xmm0
end
`

// TestVerifyAcceptsPinned verifies correctly pinned functions: the golden
// file (IDIVQ, a variable shift, a call, tied ADDQs, RETs in RAX) and a
// call with register and stack arguments.
func TestVerifyAcceptsPinned(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "text", "pinned.mir"))
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"pinned.mir": string(golden), "calls": validPinnedCalls} {
		fs, err := Parse([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := VerifyModule(fs, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestVerifyRejectsPins runs the verifier on hand-broken pinned functions,
// one rule each (edit, when set, changes the parsed function first), and
// checks its message.
func TestVerifyRejectsPins(t *testing.T) {
	const oneVReg = `func f #0 () -> () nonssa
  vregs 1
  pins v0=rbx
b0: freq=1
  v0:gpr = MOVQconst $1
  RET
end`
	for _, tt := range []struct {
		name, text string
		edit       func(f *Func)
		want       string
	}{
		{"pins in SSA form", `func f #0 () -> () ssa
  vregs 1
  pins v0=rax
b0: freq=1
  v0:gpr = MOVQconst $1
  RET
end`, nil, "mir: verify f: pins in ssa form"},
		{"pins in allocated form", `func f #0 () -> () allocated
  vregs 0
  pins
b0: freq=1
  RET
end`, nil, "mir: verify f: pins in allocated form"},
		{"too few pins", oneVReg, func(f *Func) { f.Pins = []Reg{} }, "mir: verify f: 0 pins for 1 virtual registers"},
		{"too many pins", oneVReg, func(f *Func) { f.Pins = append(f.Pins, NoReg) }, "mir: verify f: 2 pins for 1 virtual registers"},
		{"pinned to a stack slot", `func f #0 () -> () nonssa
  slots gpr
  vregs 1
  pins v0=s0
b0: freq=1
  v0:gpr = MOVQconst $1
  RET
end`, nil, "mir: verify f: v0 is pinned to s0, which is not a physical register"},
		{"pinned to another class", `func f #0 () -> () nonssa
  vregs 1
  pins v0=xmm1
b0: freq=1
  v0:gpr = MOVQconst $1
  RET
end`, nil, "mir: verify f: v0 has class gpr but is pinned to xmm1"},
		{"pinned to the context register", `func f #0 () -> () nonssa
  vregs 1
  pins v0=r15
b0: freq=1
  v0:gpr = MOVQconst $1
  RET
end`, nil, "mir: verify f: v0 is pinned to r15, which is reserved"},
		{"pinned to a scratch register", `func f #0 () -> () nonssa
  vregs 1
  pins v0=xmm15
b0: freq=1
  v0:xmm = MOVSDconst $1
  RET
end`, nil, "mir: verify f: v0 is pinned to xmm15, which is reserved"},
		{"fixed use pinned elsewhere", `func f #0 (gpr gpr) -> () nonssa
  vregs 4
  pins v0=rdi v1=rsi v2=rax v3=rdx
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = Arg #1
  v2:gpr, v3:gpr = IDIVQ v0, v1
  RET
end`, nil, "mir: verify f: b0[2] (IDIVQ): use 0 v0 is pinned to rdi, must be rax"},
		{"fixed use not pinned", `func f #0 () -> () nonssa
  vregs 2
  pins v0=rax
b0: freq=1
  v0:gpr = MOVQconst $1
  v1:gpr = MOVQconst $3
  v0:gpr = SHLQ v0, v1
  RET
end`, nil, "mir: verify f: b0[2] (SHLQ): use 1 v1 is not pinned, must be pinned to rcx"},
		{"argument not pinned", `func f #0 (gpr) -> () nonssa
  vregs 1
  pins
b0: freq=1
  v0:gpr = Arg #0
  RET
end`, nil, "mir: verify f: b0[0] (Arg): def 0 v0 is not pinned, must be pinned to rdi"},
		{"call result pinned elsewhere", `func f #0 () -> () nonssa
  vregs 1
  pins v0=rbx
b0: freq=1
  v0:gpr = CALL #0
  RET
end`, nil, "mir: verify f: b0[0] (CALL): def 0 v0 is pinned to rbx, must be rax"},
		{"return value not pinned", `func f #0 () -> (xmm) nonssa
  vregs 1
  pins
b0: freq=1
  v0:xmm = MOVSDconst $0
  RET v0
end`, nil, "mir: verify f: b0[1] (RET): use 0 v0 is not pinned, must be pinned to xmm0"},
		{"tied def is another register", `func f #0 () -> () nonssa
  vregs 3
  pins v0=rax
b0: freq=1
  v0:gpr = MOVQconst $1
  v1:gpr = MOVQconst $2
  v2:gpr = ADDQ v0, v1
  RET
end`, nil, "mir: verify f: b0[2] (ADDQ): def 0 is v2 but is tied to use 0, which is v0"},
		{"early-clobbered def is a use", `func f #0 () -> () nonssa
  vregs 3
  pins v0=rax v1=rdx v2=rax
b0: freq=1
  v0:gpr = MOVQconst $7
  v1:gpr = MOVQconst $2
  v2:gpr, v1:gpr = IDIVQ v0, v1
  RET
end`, nil, "mir: verify f: b0[2] (IDIVQ): early-clobbered def 1 shares v1 with use 1"},
		{"early-clobbered def pinned like a use", `func f #0 () -> () nonssa
  vregs 4
  pins v0=rax v1=rdx v2=rax v3=rdx
b0: freq=1
  v0:gpr = MOVQconst $7
  v3:gpr = MOVQconst $2
  v2:gpr, v1:gpr = IDIVQ v0, v3
  RET
end`, nil, "mir: verify f: b0[2] (IDIVQ): early-clobbered def 1 v1 and use 1 v3 are both pinned to rdx"},
		{"two defs pinned to one register", `func f #0 () -> () nonssa
  vregs 4
  pins v2=rbx v3=rbx
b0: freq=1
  v0:gpr = MOVQconst $1
  v1:gpr = MOVQconst $2
  v2:gpr, v3:gpr = Xchg v0, v1
  RET
end`, nil, "mir: verify f: b0[2] (Xchg): def 0 v2 and def 1 v3 are both pinned to rbx"},
		{"two uses pinned to one register", `func f #0 () -> () nonssa
  vregs 2
  pins v0=rbx v1=rbx
b0: freq=1
  v0:gpr = MOVQconst $1
  v1:gpr = MOVQconst $2
  CMPQ v0, v1
  RET
end`, nil, "mir: verify f: b0[2] (CMPQ): use 0 v0 and use 1 v1 are different registers pinned to rbx"},
		{"parallel copy destinations pinned to one register", `func f #0 () -> () nonssa
  vregs 4
  pins v2=rcx v3=rcx
b0: freq=1
  v0:gpr = MOVQconst $1
  v1:gpr = MOVQconst $2
  v2:gpr, v3:gpr = ParCopy v0, v1
  RET
end`, nil, "mir: verify f: b0[2] (ParCopy): parallel copy writes rcx twice (v2 and v3 are pinned to it)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFunc([]byte(tt.text + "\n"))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if tt.edit != nil {
				tt.edit(f)
			}
			err = Verify(f)
			var ve *VerifyError
			if err == nil || !errors.As(err, &ve) || err.Error() != tt.want {
				t.Fatalf("error\n  %v\nwant\n  %s", err, tt.want)
			}
			// The same function without pins is valid: each case breaks
			// a pin rule only.
			f.Pins = nil
			if err := Verify(f); err != nil {
				t.Errorf("without pins: %v", err)
			}
		})
	}
}
