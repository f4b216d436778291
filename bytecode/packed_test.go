package bytecode

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPackedCodeRoundTrip(t *testing.T) {
	seeds := 2000
	if testing.Short() {
		seeds = 200
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 0x9ac))
		m := randomModule(r)
		for _, f := range append(m.Funcs, baseModule().Funcs...) {
			p := PackCode(f.Code)
			if p.Len() != len(f.Code) {
				t.Fatalf("seed %d, %s: Len %d, want %d", seed, f.Name, p.Len(), len(f.Code))
			}
			code, err := p.Unpack()
			if err != nil {
				t.Fatalf("seed %d, %s: %v", seed, f.Name, err)
			}
			if len(code) != len(f.Code) {
				t.Fatalf("seed %d, %s: %d instructions unpacked, want %d", seed, f.Name, len(code), len(f.Code))
			}
			for i := range code {
				if !code[i].Equal(&f.Code[i]) {
					t.Fatalf("seed %d, %s, instruction %d: unpacked %+v, want %+v", seed, f.Name, i, code[i], f.Code[i])
				}
			}
			// The unpacked code is the caller's: changing it leaves the
			// packed form as it was.
			for i := range code {
				code[i] = Instr{}
			}
			again, err := p.Unpack()
			if err != nil || len(again) != len(f.Code) || (len(again) > 0 && !again[0].Equal(&f.Code[0])) {
				t.Fatalf("seed %d, %s: a second unpack after changing the first differs (%v)", seed, f.Name, err)
			}
		}
	}
}

func TestPackedCodeIsSmall(t *testing.T) {
	// A loop of loads, adds, stores and compare-and-branches: a few bytes
	// an instruction, against the unpacked form's hundred or so.
	var code []Instr
	for i := range 1000 {
		code = append(code,
			Instr{Op: OpI64Load8U, Dst: 1, A: 0},
			Instr{Op: OpI64Add, Dst: 1, A: 1, UseImm: true, Imm: 1},
			Instr{Op: OpI64Store8, A: 0, B: 1},
			Instr{Op: OpBrNe, A: 1, UseImm: true, Target: uint32(4 * i)})
	}
	p := PackCode(code)
	if per := float64(p.Bytes()) / float64(p.Len()); per > 6 {
		t.Errorf("%.1f bytes per instruction packed, want at most 6", per)
	}
}

func TestPackedCodeZero(t *testing.T) {
	var p PackedCode
	code, err := p.Unpack()
	if err != nil || code != nil || p.Len() != 0 {
		t.Errorf("zero PackedCode: Unpack = %v, %v; Len %d", code, err, p.Len())
	}
	if p := PackCode(nil); p.Len() != 0 || p.Bytes() != 0 {
		t.Errorf("PackCode(nil): Len %d, Bytes %d", p.Len(), p.Bytes())
	}
}

func TestPackedCodeCorrupt(t *testing.T) {
	p := PackCode([]Instr{{Op: OpI64Const, Dst: 1, Imm: 300}, {Op: OpReturn}})
	for _, bad := range []PackedCode{
		{data: p.data[:len(p.data)-1], n: 2}, // truncated
		{data: p.data, n: 1},                 // bytes left over
		{data: []byte{0xff, 0xff, 0x7f}, n: 1},
	} {
		if _, err := bad.Unpack(); err == nil || !strings.HasPrefix(err.Error(), "bytecode: unpack: ") {
			t.Errorf("Unpack of %x (n %d): error %v, want an unpack error", bad.data, bad.n, err)
		}
	}
}

func TestPackedCodeUnpackRange(t *testing.T) {
	// A long function, so that ranges start far from the first mark.
	long := &Function{Name: "long"}
	for i := range 1000 {
		long.Code = append(long.Code,
			Instr{Op: OpI64Load8U, Dst: 1, A: 0, Imm: int64(i)},
			Instr{Op: OpI64Add, Dst: 1, A: 1, UseImm: true, Imm: int64(i * 7)},
			Instr{Op: OpBrNe, A: 1, UseImm: true, Target: uint32(i)})
	}
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 0x7a))
		m := randomModule(r)
		for _, f := range append(m.Funcs, long) {
			p := PackCode(f.Code)
			for range 8 {
				start := r.IntN(len(f.Code) + 1)
				end := start + r.IntN(len(f.Code)-start+1)
				prefix := []Instr{{Op: OpReturn}}
				got, err := p.UnpackRange(prefix, start, end)
				if err != nil {
					t.Fatalf("seed %d, %s [%d, %d): %v", seed, f.Name, start, end, err)
				}
				if len(got) != 1+end-start || got[0].Op != OpReturn {
					t.Fatalf("seed %d, %s [%d, %d): %d instructions, want the prefix and %d", seed, f.Name, start, end, len(got), end-start)
				}
				for i := start; i < end; i++ {
					if !got[1+i-start].Equal(&f.Code[i]) {
						t.Fatalf("seed %d, %s: instruction %d unpacked as %+v, want %+v", seed, f.Name, i, got[1+i-start], f.Code[i])
					}
				}
			}
			if _, err := p.UnpackRange(nil, 0, len(f.Code)+1); err == nil {
				t.Fatalf("seed %d, %s: a range beyond the code unpacked", seed, f.Name)
			}
		}
	}
}
