package mir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/interp"
)

// Tests of pinned non-SSA code in the interpreter. Helpers start with
// irtPin.

// irtPinParse parses text that must hold funcs and verify as a module.
func irtPinParse(t *testing.T, text string) []*Func {
	t.Helper()
	fs, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	irtVerify(t, fs, nil)
	return fs
}

// irtPinGolden returns the functions of testdata/text/pinned.mir.
func irtPinGolden(t *testing.T) []*Func {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "text", "pinned.mir"))
	if err != nil {
		t.Fatal(err)
	}
	return irtPinParse(t, string(src))
}

// irtPinScaleAllocated is the allocated form of "scale" in pinned.mir
// (x*10+1), which also overwrites RBX.
const irtPinScaleAllocated = `func scale #1 (gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0
  rbx = MOVQconst $-1
  rax = IMUL3Qconst rdi, $10
  rax = LEAQ rax, $1
  RET rax
end
`

// irtPinMainAllocated is an allocated caller of "scale" with the same
// signature as pinned.mir's main: scale(a+c) + b, b kept in RBX.
const irtPinMainAllocated = `func main #0 (gpr gpr gpr) -> (gpr) allocated
  vregs 0
b0: freq=1
  rdi = Arg #0
  rbx = Copy rsi
  rdi = ADDQ rdi, rdx
  rax = CALL #1 rdi
  rax = ADDQ rax, rbx
  RET rax
end
`

// TestInterpPinnedCalls runs the pinned functions of the golden file
// (IDIVQ, a variable shift, a value in RBX across a call, tied ADDQs)
// against callers and callees in every form.
func TestInterpPinnedCalls(t *testing.T) {
	golden := irtPinGolden(t)
	unpin := func(f *Func, form Form) *Func {
		g := f.Clone()
		g.Pins, g.Form = nil, form
		return g
	}
	allocScale, err := ParseFunc([]byte(irtPinScaleAllocated))
	if err != nil {
		t.Fatal(err)
	}
	allocMain, err := ParseFunc([]byte(irtPinMainAllocated))
	if err != nil {
		t.Fatal(err)
	}
	scale := func(x int64) int64 { return x*10 + 1 }
	pinnedMain := func(a, b, c int64) int64 {
		if b == 0 {
			return 0
		}
		return (a%b)<<(c&63) + scale(a/b)
	}
	callers := []struct {
		name string
		f    *Func
		want func(a, b, c int64) int64
	}{
		{"pinned", golden[0], pinnedMain},
		{"unpinned", unpin(golden[0], FormNonSSA), pinnedMain},
		{"allocated", allocMain, func(a, b, c int64) int64 { return scale(a+c) + b }},
	}
	callees := []struct {
		name string
		f    *Func
	}{
		{"pinned", golden[1]},
		{"unpinned", unpin(golden[1], FormNonSSA)},
		{"ssa", unpin(golden[1], FormSSA)},
		{"allocated", allocScale},
	}
	args := [][3]int64{{100, 7, 3}, {-100, 7, 1}, {5, 0, 1}, {1 << 40, -3, 0}, {9, 10, 63}}
	for _, caller := range callers {
		for _, callee := range callees {
			t.Run(caller.name+"-calls-"+callee.name, func(t *testing.T) {
				funcs := []*Func{caller.f, callee.f}
				irtVerify(t, funcs, nil)
				m := irtMachine(t, funcs, interp.Config{})
				for _, a := range args {
					got, err := irtCall(m, 0, uint64(a[0]), uint64(a[1]), uint64(a[2]))
					if want := caller.want(a[0], a[1], a[2]); err != nil || int64(got[0]) != want {
						t.Errorf("main%v = %d, %v; want %d", a, int64(got[0]), err, want)
					}
				}
				got, err := irtCall(m, 1, 4)
				if err != nil || got[0] != 41 {
					t.Errorf("scale(4) from Go = %v, %v", got, err)
				}
			})
		}
	}
	// The function in which nothing is pinned.
	f := golden[2].Clone()
	f.Index = 0
	if _, err := irtRun(t, f); err != nil {
		t.Errorf("nopins: %v", err)
	}
}

// TestInterpPinnedStackArgs runs validPinnedCalls: a pinned caller passes
// register and stack arguments to an allocated callee.
func TestInterpPinnedStackArgs(t *testing.T) {
	fs := irtPinParse(t, validPinnedCalls)
	got, err := irtCall(irtMachine(t, fs, interp.Config{}), 0, irtF(1.5))
	if err != nil || got[0] != 8 || got[1] != irtF(3) {
		t.Fatalf("caller(1.5) = %v, %v; want [8 %#x]", got, err, irtF(3))
	}
}

// TestInterpPinnedAliasing shows that virtual registers pinned to one
// physical register share it: where their lives overlap (which the
// out-of-SSA translation must never produce), the later value or an
// undefined register is read where the earlier value was meant. Each
// function verifies, and without its pins it computes the intended value.
func TestInterpPinnedAliasing(t *testing.T) {
	for _, c := range []struct {
		name     string
		text     string
		args     []uint64
		unpinned uint64 // result without pins
		pinned   uint64 // result with pins, if fault is empty
		fault    string
	}{
		{"later value", `func alias #0 () -> (gpr) nonssa
  vregs 4
  pins v0=rax v1=rax v3=rax
b0: freq=1
  v0:gpr = MOVQconst $1
  v1:gpr = MOVQconst $2
  v2:gpr = Copy v0
  v2:gpr = ADDQ v2, v1
  v3:gpr = Copy v2
  RET v3
end
`, nil, 3, 4, ""},
		{"undefined temporary", `func alias #0 (gpr) -> (gpr) nonssa
  vregs 6
  pins v0=rdi v1=rdx v4=rdx v5=rax
b0: freq=1
  v0:gpr = Arg #0
  v1:gpr = MOVQconst $7
  v3:xmm, v4:gpr = CVTUQ2SD v0
  v2:gpr = LEAQ v1, $1
  v5:gpr = Copy v2
  RET v5
end
`, []uint64{5}, 8, 0, "mir: fault in alias b0[3] (LEAQ): use 0 (v1 in rdx) is undefined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := irtPinParse(t, c.text)[0]
			plain := f.Clone()
			plain.Pins = nil
			got, err := irtRun(t, plain, c.args...)
			if err != nil || got[0] != c.unpinned {
				t.Fatalf("without pins: %v, %v; want %d", got, err, c.unpinned)
			}
			got, err = irtRun(t, f, c.args...)
			if c.fault != "" {
				var fault *Fault
				if !errors.As(err, &fault) || err.Error() != c.fault {
					t.Fatalf("with pins: %v, %v; want the fault %q", got, err, c.fault)
				}
				return
			}
			if err != nil || got[0] != c.pinned {
				t.Fatalf("with pins: %v, %v; want %d", got, err, c.pinned)
			}
		})
	}
}

// irtPinAcrossCall builds a pinned caller that keeps a value pinned to reg
// across call (a call without arguments or results), reads it, and
// returns it plus one, and a callee that overwrites RBX and XMM9.
func irtPinAcrossCall(t *testing.T, reg Reg, call string) []*Func {
	t.Helper()
	text := `func main #0 () -> (gpr) nonssa
  vregs 3
  pins v0=%[1]s v2=rax
b0: freq=1
  v0:gpr = MOVQconst $5
  %[2]s
  v1:gpr = LEAQ v0, $1
  v2:gpr = Copy v1
  RET v2
end
`
	if reg.Class() == XMM {
		text = `func main #0 () -> (xmm) nonssa
  vregs 3
  pins v0=%[1]s v2=xmm0
b0: freq=1
  v0:xmm = MOVSDconst $5
  %[2]s
  v1:xmm = SQRTSD v0
  v2:xmm = Copy v1
  RET v2
end
`
	}
	text = fmt.Sprintf(text, reg, call) + `
func nop #1 () -> () nonssa
  vregs 2
  pins v0=rbx v1=xmm9
b0: freq=1
  v0:gpr = MOVQconst $-1
  v1:xmm = MOVSDconst $-1
  RET
end
`
	fs, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	irtVerify(t, fs, []HostSig{{}})
	return fs
}

// TestInterpPinnedCallClobbers checks that a value pinned to a
// caller-saved register does not survive a call (reading it faults) and
// that one pinned to a callee-saved register does.
func TestInterpPinnedCallClobbers(t *testing.T) {
	host := func(ctx context.Context, args, results []uint64) error { return nil }
	for _, call := range []string{"CALL #1", "CALLHOST #0"} {
		for _, r := range Allocatable.Regs() {
			t.Run(fmt.Sprintf("%s/%s", strings.Fields(call)[0], r), func(t *testing.T) {
				funcs := irtPinAcrossCall(t, r, call)
				got, err := irtCall(irtMachine(t, funcs, interp.Config{}, host), 0)
				if CalleeSaved.Has(r) {
					if err != nil || got[0] != 6 {
						t.Fatalf("callee-saved %s: %v, %v; want 6", r, got, err)
					}
					return
				}
				op := "LEAQ"
				if r.Class() == XMM {
					op = "SQRTSD"
				}
				want := fmt.Sprintf("mir: fault in main b0[2] (%s): use 0 (v0 in %s) is undefined", op, r)
				if err == nil || err.Error() != want {
					t.Fatalf("caller-saved %s: %v, %v; want the fault %q", r, got, err, want)
				}
			})
		}
	}
	// Without pins the same caller keeps its value: unpinned virtual
	// registers are not registers a call clobbers.
	funcs := irtPinAcrossCall(t, RCX, "CALL #1")
	funcs[0].Pins = nil
	got, err := irtCall(irtMachine(t, funcs, interp.Config{}), 0)
	if err != nil || got[0] != 6 {
		t.Fatalf("unpinned: %v, %v; want 6", got, err)
	}
}

// TestInterpPinnedOpClobbers gives an ordinary op a Clobbers set (no op
// has one today) and checks that in pinned and allocated code the
// registers it clobbers but does not define become undefined after it,
// while unpinned virtual registers are untouched.
func TestInterpPinnedOpClobbers(t *testing.T) {
	saved := opTable[OpNOTQ]
	opTable[OpNOTQ].Clobbers = MakeRegSet(RDX, RSI)
	t.Cleanup(func() { opTable[OpNOTQ] = saved })
	for _, c := range []struct {
		name, text, fault string
		want              uint64
	}{
		{"pinned clobbered", `func f #0 () -> (gpr) nonssa
  vregs 3
  pins v0=rdx v2=rax
b0: freq=1
  v0:gpr = MOVQconst $5
  v1:gpr = MOVQconst $1
  v1:gpr = NOTQ v1
  v2:gpr = LEAQ v0, $1
  RET v2
end
`, "mir: fault in f b0[3] (LEAQ): use 0 (v0 in rdx) is undefined", 0},
		{"pinned defined", `func f #0 () -> (gpr) nonssa
  vregs 3
  pins v0=rdx v1=rsi v2=rax
b0: freq=1
  v0:gpr = MOVQconst $5
  v1:gpr = MOVQconst $-8
  v1:gpr = NOTQ v1
  v2:gpr = LEAQ v1, $1
  RET v2
end
`, "", 8},
		{"pinned elsewhere", `func f #0 () -> (gpr) nonssa
  vregs 3
  pins v0=rbx v2=rax
b0: freq=1
  v0:gpr = MOVQconst $5
  v1:gpr = MOVQconst $1
  v1:gpr = NOTQ v1
  v2:gpr = LEAQ v0, $1
  RET v2
end
`, "", 6},
		{"unpinned", `func f #0 () -> (gpr) nonssa
  vregs 3
b0: freq=1
  v0:gpr = MOVQconst $5
  v1:gpr = MOVQconst $1
  v1:gpr = NOTQ v1
  v2:gpr = LEAQ v0, $1
  RET v2
end
`, "", 6},
		{"allocated clobbered", `func f #0 () -> (gpr) allocated
  vregs 0
b0: freq=1
  rsi = MOVQconst $5
  rdx = MOVQconst $1
  rdx = NOTQ rdx
  rax = LEAQ rsi, $1
  RET rax
end
`, "mir: fault in f b0[3] (LEAQ): use 0 (rsi) is undefined", 0},
		{"allocated defined", `func f #0 () -> (gpr) allocated
  vregs 0
b0: freq=1
  rdx = MOVQconst $5
  rdx = NOTQ rdx
  rax = LEAQ rdx, $7
  RET rax
end
`, "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := irtPinParse(t, c.text)[0]
			got, err := irtRun(t, f)
			if c.fault != "" {
				if err == nil || err.Error() != c.fault {
					t.Fatalf("%v, %v; want the fault %q", got, err, c.fault)
				}
				return
			}
			if err != nil || got[0] != c.want {
				t.Fatalf("%v, %v; want %d", got, err, c.want)
			}
		})
	}
}

// TestInterpPinnedFaults checks the faults of malformed pins, which the
// verifier rejects too.
func TestInterpPinnedFaults(t *testing.T) {
	build := func(pins []Reg) *Func {
		f := irtFunc("f", 0, FormNonSSA, nil, []Class{GPR})
		v := f.NewVReg(GPR)
		b := f.NewBlock()
		b.Append(irtImm(irtI(OpMOVQconst, irtR(v)), 1))
		b.Append(irtI(OpRET, nil, v))
		f.Pins = pins
		return f
	}
	for _, c := range []struct {
		pins []Reg
		want string
	}{
		{[]Reg{}, "mir: fault in f: 0 pins for 1 virtual registers"},
		{[]Reg{RAX, RAX}, "mir: fault in f: 2 pins for 1 virtual registers"},
		{[]Reg{R11}, "mir: fault in f b0[0] (MOVQconst): def 0: v0 is pinned to r11, which is reserved"},
		{[]Reg{RSP}, "mir: fault in f b0[0] (MOVQconst): def 0: v0 is pinned to rsp, which is reserved"},
		{[]Reg{SlotReg(0)}, "mir: fault in f b0[0] (MOVQconst): def 0: v0 is pinned to s0, which is not a physical register"},
	} {
		f := build(c.pins)
		if Verify(f) == nil {
			t.Errorf("Verify accepts pins %v", c.pins)
		}
		_, err := irtCall(irtMachine(t, []*Func{f}, interp.Config{}), 0)
		if err == nil || err.Error() != c.want {
			t.Errorf("pins %v: %v, want %q", c.pins, err, c.want)
		}
	}
	// Outside non-SSA form the interpreter ignores Pins.
	f := build([]Reg{RBX})
	f.Form = FormSSA
	if got, err := irtCall(irtMachine(t, []*Func{f}, interp.Config{}), 0); err != nil || got[0] != 1 {
		t.Errorf("ssa with pins: %v, %v", got, err)
	}
}
