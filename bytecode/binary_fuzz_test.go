package bytecode

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// binFuzzSeeds returns encodings of random valid modules and a few small
// hand-made inputs.
func binFuzzSeeds(t testing.TB) [][]byte {
	seeds := [][]byte{
		nil,
		[]byte(binHeader),
		binCat(binHeader, binU(0, 0, 0, 0, 0, 0)),
		binFib(binRetR0),
	}
	for _, m := range []*Module{baseModule(), tableModule()} {
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for seed := range 24 {
		b, err := Encode(randomModule(rand.New(rand.NewPCG(uint64(seed), 0xf022))))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// is exactly what Encode produces for the module it returns.
func FuzzDecode(f *testing.F) {
	for _, b := range binFuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		m, err := Decode(b)
		if !bytes.Equal(in, b) {
			t.Fatalf("Decode modified its input")
		}
		binCheckDecodeResult(t, b, m, err)
	})
}

// binCorruptions break a valid module in ways that keep it encodable; the
// results decode structurally but fail verification.
var binCorruptions = []func(m *Module, r *rand.Rand){
	func(m *Module, r *rand.Rand) { // register out of range or of the wrong type
		f := m.Funcs[r.IntN(len(m.Funcs))]
		in := &f.Code[r.IntN(len(f.Code))]
		in.Dst += Reg(r.IntN(3))
		in.A += Reg(r.IntN(20))
		in.Args = append(in.Args, Reg(r.IntN(1<<20)))
	},
	func(m *Module, r *rand.Rand) { // branch targets out of range
		f := m.Funcs[r.IntN(len(m.Funcs))]
		in := &f.Code[r.IntN(len(f.Code))]
		in.Target += uint32(len(f.Code))
		for i := range in.Table {
			in.Table[i] = ^uint32(i)
		}
	},
	func(m *Module, r *rand.Rand) { // callee out of range, result lists changed
		f := m.Funcs[r.IntN(len(m.Funcs))]
		for i := range f.Code {
			f.Code[i].Callee += uint32(r.IntN(4))
			f.Code[i].Results = append(f.Code[i].Results, 0)
		}
	},
	func(m *Module, r *rand.Rand) { // signatures changed under the calls
		f := m.Funcs[r.IntN(len(m.Funcs))]
		f.Sig.Params = append(f.Sig.Params, F64)
		f.Sig.Results = nil
	},
	func(m *Module, r *rand.Rand) { // fewer registers
		f := m.Funcs[r.IntN(len(m.Funcs))]
		f.Regs = f.Regs[:len(f.Sig.Params)]
	},
	func(m *Module, r *rand.Rand) { // no code, or code that falls off the end
		f := m.Funcs[r.IntN(len(m.Funcs))]
		if r.IntN(2) == 0 {
			f.Code = nil
		} else {
			f.Code = append(f.Code, Instr{Op: OpI64Neg})
		}
	},
	func(m *Module, r *rand.Rand) { // names
		m.Funcs[0].Name = []string{"", "1x", "a b", m.Funcs[len(m.Funcs)-1].Name}[r.IntN(4)]
		m.Hosts = append(m.Hosts, HostImport{Name: "dup"}, HostImport{Name: "dup"})
		m.Exports = append(m.Exports, Export{Name: ""}, Export{Name: "e", Func: uint32(r.IntN(10))})
	},
	func(m *Module, r *rand.Rand) { // memory and data
		m.Memory = Memory{MinPages: uint32(r.IntN(5)), MaxPages: uint32(r.IntN(MaxPages * 2))}
		m.Data = append(m.Data, DataSegment{Offset: ^uint32(0) - 1, Bytes: []byte("xyz")})
	},
	func(m *Module, r *rand.Rand) { // globals, types, table and element segments
		m.Globals = append(m.Globals, Global{Name: "g", Type: I32, Init: 1 << 40, Import: []string{"", "x"}[r.IntN(2)]})
		m.Types = append(m.Types, Signature{Params: []Type{9}})
		m.Table = Table{Min: uint32(r.IntN(3)), Max: uint32(r.IntN(3))}
		m.Elems = append(m.Elems, ElemSegment{Offset: uint32(r.IntN(4)), Funcs: []uint32{uint32(r.IntN(10))}})
		f := m.Funcs[r.IntN(len(m.Funcs))]
		f.Code = append([]Instr{{Op: OpGlobalSet, Callee: uint32(r.IntN(3)), A: Reg(r.IntN(4))}, {Op: OpCallIndirect, Callee: uint32(r.IntN(3))}}, f.Code...)
	},
	func(m *Module, r *rand.Rand) { // memory offsets beyond 32 bits
		f := m.Funcs[r.IntN(len(m.Funcs))]
		for i := range f.Code {
			if fm := f.Code[i].Op.Info().Format; fm == FormatLoad || fm == FormatStore {
				f.Code[i].Imm <<= 20
			}
		}
	},
}

// FuzzVerify checks that Verify never panics on modules that are well formed
// structurally but may break any of its rules, and that a module it accepts
// encodes to the decoded bytes.
func FuzzVerify(f *testing.F) {
	for _, b := range binFuzzSeeds(f) {
		f.Add(b)
	}
	for seed := range 60 {
		r := rand.New(rand.NewPCG(uint64(seed), 0x5e7))
		m := randomModule(r)
		binCorruptions[seed%len(binCorruptions)](m, r)
		f.Add(binAppendModule(nil, m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := binDecodeUnverified(b)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("binDecodeUnverified error %v is %T", err, err)
			}
			return
		}
		if err := Verify(m); err != nil {
			if _, ok := err.(*VerifyError); !ok {
				t.Fatalf("Verify error %v is %T", err, err)
			}
			return
		}
		if b2 := binAppendModule(nil, m); !bytes.Equal(b, b2) {
			t.Fatalf("verified module re-encodes to %x, want %x", b2, b)
		}
	})
}

// TestBinaryCorruptionsDecode checks that the FuzzVerify seeds made by
// binCorruptions still decode structurally, so that they exercise Verify.
func TestBinaryCorruptionsDecode(t *testing.T) {
	decoded, rejected := 0, 0
	for seed := range 60 {
		r := rand.New(rand.NewPCG(uint64(seed), 0x5e7))
		m := randomModule(r)
		binCorruptions[seed%len(binCorruptions)](m, r)
		m2, err := binDecodeUnverified(binAppendModule(nil, m))
		if err != nil {
			t.Logf("seed %d: %v", seed, err)
			continue
		}
		decoded++
		if Verify(m2) != nil {
			rejected++
		}
	}
	t.Logf("%d of 60 corrupted modules decode, %d of them fail Verify", decoded, rejected)
	if decoded < 50 || rejected < 40 {
		t.Errorf("the corruptions are too weak or break the structure too often")
	}
}
