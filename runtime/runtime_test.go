package runtime

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/kiln-jit/kiln/encode"
)

// TestContextLayout checks that ExecCtx, the encoder's ABI constants and
// the trampolines' #defines agree.
func TestContextLayout(t *testing.T) {
	var c ExecCtx
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"MemBase", unsafe.Offsetof(c.MemBase), encode.CtxMemBase},
		{"MemLen", unsafe.Offsetof(c.MemLen), encode.CtxMemLen},
		{"MemBound", unsafe.Offsetof(c.MemBound), encode.CtxMemBound},
		{"StackLimit", unsafe.Offsetof(c.StackLimit), encode.CtxStackLimit},
		{"Budget", unsafe.Offsetof(c.Budget), encode.CtxBudget},
		{"Depth", unsafe.Offsetof(c.Depth), encode.CtxDepth},
		{"MaxDepth", unsafe.Offsetof(c.MaxDepth), encode.CtxMaxDepth},
		{"FuncTable", unsafe.Offsetof(c.FuncTable), encode.CtxFuncTable},
		{"ExitStub", unsafe.Offsetof(c.ExitStub), encode.CtxExitStub},
		{"ExitCode", unsafe.Offsetof(c.ExitCode), encode.CtxExitCode},
		{"ExitArg", unsafe.Offsetof(c.ExitArg), encode.CtxExitArg},
		{"ExitFunc", unsafe.Offsetof(c.ExitFunc), encode.CtxExitFunc},
		{"ExitSite", unsafe.Offsetof(c.ExitSite), encode.CtxExitSite},
		{"CallFunc", unsafe.Offsetof(c.CallFunc), encode.CtxCallFunc},
		{"CallSite", unsafe.Offsetof(c.CallSite), encode.CtxCallSite},
		{"ExitSP", unsafe.Offsetof(c.ExitSP), encode.CtxExitSP},
		{"GoSP", unsafe.Offsetof(c.GoSP), encode.CtxGoSP},
		{"GoBP", unsafe.Offsetof(c.GoBP), encode.CtxGoBP},
		{"JitSP", unsafe.Offsetof(c.JitSP), encode.CtxJitSP},
		{"Regs", unsafe.Offsetof(c.Regs), encode.CtxRegs},
		{"XRegs", unsafe.Offsetof(c.XRegs), encode.CtxXRegs},
		{"Globals", unsafe.Offsetof(c.Globals), encode.CtxGlobals},
		{"Table", unsafe.Offsetof(c.Table), encode.CtxTable},
		{"OSRDepth", unsafe.Offsetof(c.OSRDepth), encode.CtxOSRDepth},
		{"OSREntry", unsafe.Offsetof(c.OSREntry), encode.CtxOSREntry},
		{"OSRFrame", unsafe.Offsetof(c.OSRFrame), encode.CtxOSRFrame},
		{"size", unsafe.Sizeof(c), encode.CtxSize},
	} {
		if f.got != f.want {
			t.Errorf("ExecCtx.%s at %d, the encoder says %d", f.name, f.got, f.want)
		}
	}
	src, err := os.ReadFile("enter_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"CTX_EXITCODE": encode.CtxExitCode, "CTX_EXITSP": encode.CtxExitSP, "CTX_GOSP": encode.CtxGoSP,
		"CTX_GOBP": encode.CtxGoBP, "CTX_JITSP": encode.CtxJitSP, "CTX_REGS": encode.CtxRegs, "CTX_XREGS": encode.CtxXRegs}
	found := 0
	for _, m := range regexp.MustCompile(`#define (CTX_\w+) (\d+)`).FindAllStringSubmatch(string(src), -1) {
		v, _ := strconv.Atoi(m[2])
		if w, ok := want[m[1]]; !ok || v != w {
			t.Errorf("enter_amd64.s defines %s as %d, want %d", m[1], v, w)
		}
		found++
	}
	if found != len(want) {
		t.Errorf("enter_amd64.s has %d offsets, want %d", found, len(want))
	}
}

// mappingPerms returns the permissions of the mapping containing addr.
func mappingPerms(t *testing.T, addr uintptr) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		var lo, hi uintptr
		if _, err := fmt.Sscanf(fields[0], "%x-%x", &lo, &hi); err == nil && addr >= lo && addr < hi {
			return fields[1]
		}
	}
	t.Fatalf("no mapping contains %#x", addr)
	return ""
}

func exitStub(t *testing.T) uintptr {
	b, err := encode.ExitStub()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Install([]Part{{Bytes: b}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c })
	return c.Addr(0)
}

// TestInstallAndEnter installs a hand-assembled function (rax = rdi + rsi)
// and calls it on a thread.
func TestInstallAndEnter(t *testing.T) {
	if !Supported() {
		t.Skip("compiled code is not supported here")
	}
	add := []byte{0x48, 0x89, 0xf8, 0x48, 0x01, 0xf0, 0xc3} // mov rax, rdi; add rax, rsi; ret
	code, err := Install([]Part{{Bytes: []byte{0xc3}}, {Bytes: add}})
	if err != nil {
		t.Fatal(err)
	}
	if PartAlign%encode.CodeAlign != 0 || code.Addr(1)%PartAlign != 0 || code.Addr(1) == code.Addr(0) {
		t.Fatalf("part addresses %#x %#x", code.Addr(0), code.Addr(1))
	}
	if p := mappingPerms(t, code.Addr(1)); p != "r-xp" {
		t.Fatalf("code mapping is %s, want r-xp", p)
	}
	th, err := NewThread(1<<20, exitStub(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	th.Ctx.Regs[7], th.Ctx.Regs[6] = 40, 2 // rdi, rsi
	th.Enter(code.Addr(1))
	if th.Ctx.ExitCode != 0 || th.Ctx.Regs[0] != 42 {
		t.Fatalf("exit %d, rax %d", th.Ctx.ExitCode, th.Ctx.Regs[0])
	}
	if !code.Contains(code.Addr(1)) || code.Contains(0) {
		t.Fatal("Contains is wrong")
	}
}

// TestThreadCounters checks that a thread's counters are the words just
// below its context, so that code adds to counter i of n at R15-8*(n-i),
// and that NewThread refuses counts it cannot lay out.
func TestThreadCounters(t *testing.T) {
	if !Supported() {
		t.Skip("compiled code is not supported here")
	}
	// add qword [r15+disp], 1, with a byte's or four bytes' displacement.
	addAt := func(disp int32) []byte {
		if disp == int32(int8(disp)) {
			return []byte{0x49, 0x83, 0x47, byte(disp), 0x01}
		}
		b := []byte{0x49, 0x83, 0x87, 0, 0, 0, 0, 0x01}
		binary.LittleEndian.PutUint32(b[3:], uint32(disp))
		return b
	}
	for _, n := range []int{1, 3, 16, 17, 1000} {
		// Counter 0 once, counter n-1 twice.
		body := append(addAt(int32(-8*n)), addAt(-8)...)
		body = append(append(body, addAt(-8)...), 0xc3)
		code, err := Install([]Part{{Bytes: body}})
		if err != nil {
			t.Fatal(err)
		}
		th, err := NewThread(64<<10, exitStub(t), n)
		if err != nil {
			t.Fatal(err)
		}
		if len(th.Counters) != n || cap(th.Counters) != n {
			t.Fatalf("%d counters: len %d cap %d", n, len(th.Counters), cap(th.Counters))
		}
		th.Enter(code.Addr(0))
		want := make([]uint64, n)
		want[0]++
		want[n-1] += 2
		if th.Ctx.ExitCode != 0 || !slices.Equal(th.Counters, want) {
			t.Errorf("%d counters: exit %d, counters %v, want %v", n, th.Ctx.ExitCode, th.Counters, want)
		}
	}
	for _, n := range []int{-1, MaxCounters + 1} {
		if _, err := NewThread(64<<10, 0, n); err == nil {
			t.Errorf("a thread with %d counters was accepted", n)
		}
	}
}

func TestRelocations(t *testing.T) {
	part := Part{Bytes: make([]byte, 32), Relocs: []Reloc{{Offset: 16, Target: 8}}}
	code, err := Install([]Part{{Bytes: []byte{1}}, part})
	if err != nil {
		t.Fatal(err)
	}
	mem := code.bytes(1, 32)
	if got := binary.LittleEndian.Uint64(mem[16:]); got != uint64(code.Addr(1)+8) {
		t.Fatalf("relocated word %#x, want %#x", got, code.Addr(1)+8)
	}
	if _, err := Install([]Part{{Bytes: make([]byte, 8), Relocs: []Reloc{{Offset: 4, Target: 0}}}}); err == nil {
		t.Fatal("a relocation past the part was accepted")
	}
}

func TestThreadStack(t *testing.T) {
	if !Supported() {
		t.Skip("compiled code is not supported here")
	}
	th, err := NewThread(64<<10, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	top := th.StackTop()
	if top%16 != 0 || th.Ctx.StackLimit >= top || th.Ctx.JitSP != top {
		t.Fatalf("top %#x limit %#x jitsp %#x", top, th.Ctx.StackLimit, th.Ctx.JitSP)
	}
	if err := th.Store(top-8, 77); err != nil {
		t.Fatal(err)
	}
	if v, err := th.Load(top - 8); err != nil || v != 77 {
		t.Fatalf("load %d %v", v, err)
	}
	if _, err := th.Load(top + 4096); err == nil {
		t.Fatal("load outside the stack succeeded")
	}
	// The guard page below the stack is inaccessible.
	if p := mappingPerms(t, th.Ctx.StackLimit-StackMargin-1); p != "---p" {
		t.Fatalf("guard page is %s", p)
	}
	if _, err := NewThread(100, 0, 0); err == nil {
		t.Fatal("a tiny stack was accepted")
	}
}
