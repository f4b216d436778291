package encode

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twitchyliquid64/golang-asm/obj"
	"golang.org/x/arch/x86/x86asm"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// TestWholeFunctionsDecode encodes every function of every shared test
// module (after baseline allocation) and decodes the machine code: the
// instruction stream must decode without gaps up to the pool, every
// relative branch must land on an instruction boundary inside the code,
// and the disassembly dump must mention the bytecode offsets. It does so
// with the default chunk size and with chunks of one and five
// instructions (branches between chunks, stubs after each chunk); with a
// chunk size above every function's size the code must not change.
// sharedBaselineFuncs returns every function of the shared test modules,
// lowered and allocated by the baseline.
func sharedBaselineFuncs(t testing.TB) []*mir.Func {
	t.Helper()
	seen := map[*bytecode.Module]bool{}
	var out []*mir.Func
	for _, c := range testprogs.AllCases() {
		if seen[c.Module] {
			continue
		}
		seen[c.Module] = true
		lowered, err := lower.Module(c.Module, lower.FullTarget())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range lowered {
			af, err := alloc.Baseline(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, af)
		}
	}
	return out
}

func TestWholeFunctionsDecode(t *testing.T) {
	for _, chunk := range []int{0, 1, 5} {
		t.Run(fmt.Sprintf("chunk=%d", chunk), func(t *testing.T) { testWholeFunctionsDecode(t, chunk) })
	}
}

func testWholeFunctionsDecode(t *testing.T, chunk int) {
	funcs := 0
	for _, af := range sharedBaselineFuncs(t) {
		code, err := FuncOptions(af, Options{ChunkInstrs: chunk})
		if err != nil {
			t.Fatalf("%s: %v", af.Name, err)
		}
		if chunk == 0 {
			whole, err := FuncOptions(af, Options{ChunkInstrs: 1 << 30})
			if err != nil {
				t.Fatalf("%s: %v", af.Name, err)
			}
			if !bytes.Equal(whole.Bytes, code.Bytes) || !slices.Equal(whole.PosMap, code.PosMap) {
				t.Fatalf("%s: one chunk of its own size and one far larger encode differently", af.Name)
			}
		}
		// Consuming the function encodes it the same and leaves its
		// blocks without instructions.
		consumed, err := FuncOptions(af.Clone(), Options{ChunkInstrs: chunk, Consume: true})
		if err != nil {
			t.Fatalf("%s consumed: %v", af.Name, err)
		}
		if !bytes.Equal(consumed.Bytes, code.Bytes) || !slices.Equal(consumed.PosMap, code.PosMap) || !slices.Equal(consumed.Sites, code.Sites) {
			t.Fatalf("%s: encoding with Consume differs", af.Name)
		}
		kept := af.Clone()
		if _, err := FuncOptions(kept, Options{ChunkInstrs: chunk, Consume: true}); err != nil {
			t.Fatal(err)
		}
		for _, b := range kept.Blocks {
			if b.Instrs != nil {
				t.Fatalf("%s: b%d keeps its instructions after a consuming encode", af.Name, b.ID)
			}
		}
		funcs++
		starts := map[int]bool{}
		var branches []int
		for off := 0; off < code.CodeSize; {
			inst, err := x86asm.Decode(code.Bytes[off:code.CodeSize], 64)
			if err != nil {
				t.Fatalf("%s: decode at %#x: %v", af.Name, off, err)
			}
			starts[off] = true
			if rel, ok := inst.Args[0].(x86asm.Rel); ok {
				branches = append(branches, off+inst.Len+int(rel))
			}
			off += inst.Len
		}
		for _, target := range branches {
			if !starts[target] {
				t.Fatalf("%s: a branch targets %#x, not an instruction start", af.Name, target)
			}
		}
		for _, r := range code.Relocs {
			if !starts[r.Target] {
				t.Fatalf("%s: jump table entry %#x is not an instruction start", af.Name, r.Target)
			}
		}
		dump := Disassemble(code, 0)
		if !strings.Contains(dump, "; func "+af.Name) || (len(code.PosMap) > 0 && !strings.Contains(dump, "; bytecode ")) {
			t.Fatalf("%s: dump lacks its annotations:\n%s", af.Name, dump)
		}
	}
	t.Logf("%d functions decoded", funcs)
}

// TestJumpsKeepOffBoundaries checks the jump padding on every function of
// the shared test modules, encoded in one chunk and in chunks of five
// instructions: no jump, call or return crosses or ends on a CodeAlign
// boundary (so none straddles the 32-byte windows of Intel's JCC
// erratum once installed at a multiple of CodeAlign), but the raw
// branches between chunks; and every chunk starts on a boundary.
func TestJumpsKeepOffBoundaries(t *testing.T) {
	jumps, chunks := 0, 0
	for _, af := range sharedBaselineFuncs(t) {
		code, err := Func(af)
		if err != nil {
			t.Fatalf("%s: %v", af.Name, err)
		}
		for off := 0; off < code.CodeSize; {
			inst, err := x86asm.Decode(code.Bytes[off:code.CodeSize], 64)
			if err != nil {
				t.Fatalf("%s: decode at %#x: %v", af.Name, off, err)
			}
			switch inst.Op {
			case x86asm.JMP, x86asm.CALL, x86asm.RET, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG,
				x86asm.JGE, x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS:
				jumps++
				if off%CodeAlign+inst.Len >= CodeAlign {
					t.Errorf("%s: %v at %#x, %d bytes, reaches a %d-byte boundary", af.Name, inst, off, inst.Len, CodeAlign)
				}
			}
			off += inst.Len
		}
		// Chunks of five instructions: each starts on a boundary.
		e := &encoder{a: getAssembler(), f: af, frame: layoutFrame(af), pool: &obj.LSym{Name: "pool"},
			poolIndex: map[[2]uint64]int64{}, chunkInstrs: 5}
		err = e.encode()
		putAssembler(e.a)
		if err != nil {
			t.Fatalf("%s: %v", af.Name, err)
		}
		for i, id := range e.order {
			if i > 0 && e.chunkOf[id] != e.chunkOf[e.order[i-1]] {
				chunks++
				if e.blockOff[id]%CodeAlign != 0 {
					t.Errorf("%s: chunk %d starts at %#x", af.Name, e.chunkOf[id], e.blockOff[id])
				}
			}
		}
	}
	if jumps < 1000 || chunks < 100 {
		t.Fatalf("only %d jumps and %d chunk starts checked", jumps, chunks)
	}
}

func TestExitStubDecodes(t *testing.T) {
	b, err := ExitStub()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for off := 0; off < len(b); n++ {
		inst, err := x86asm.Decode(b[off:], 64)
		if err != nil {
			t.Fatal(err)
		}
		off += inst.Len
		if off == len(b) && inst.Op != x86asm.RET {
			t.Fatalf("the stub ends with %v", inst.Op)
		}
	}
	// 14 GPRs and 16 XMM registers saved, then 3 moves and RET.
	if n != 14+16+4 {
		t.Fatalf("%d instructions in the exit stub", n)
	}
}
