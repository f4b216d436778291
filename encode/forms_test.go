package encode

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
	"golang.org/x/arch/x86/x86asm"
)

// randomMember returns a random register of a class (golang-asm number).
func randomMember(r *rand.Rand, class uint8, classes []regClass) int16 {
	reg, vary := classReg(class, classes)
	return reg + int16(uint8(r.IntN(16))&vary)
}

// randomValue returns a random int64 for which class(v) == c, with every
// width of value equally likely to be tried.
func randomValue(r *rand.Rand, c uint8, class func(int64) uint8, fits func(int64) bool) int64 {
	for {
		v := int64(r.Uint64() >> r.IntN(64))
		if r.IntN(2) == 0 {
			v = -v
		}
		if c <= constI1 && class(int64(c)) == c {
			v = int64(c) // the one-member classes
		}
		if class(v) == c && fits(v) {
			return v
		}
		if class(0) == c && r.IntN(8) == 0 {
			return 0
		}
	}
}

// randomInstance returns an instruction of form k with random
// registers and values of the form's classes.
func randomInstance(r *rand.Rand, k formKey, sym *obj.LSym) obj.Prog {
	var none [3][2]uint8
	q := sampleProg(k, 0, none)
	fs := [3]operandForm{k.from, k.to, k.rest}
	for op := range uint8(3) {
		if op == 2 && k.nrest == 0 {
			break
		}
		a := progOperand(&q, op)
		f := fs[op]
		any64 := func(int64) bool { return true }
		fits32 := func(v int64) bool { return v == int64(int32(v)) }
		switch f.kind {
		case kindReg:
			a.Reg = randomMember(r, f.reg, directClasses)
		case kindConst:
			a.Offset = randomValue(r, f.size, constClass, any64)
		case kindMem:
			a.Reg = randomMember(r, f.reg, memClasses)
			if f.index != 0 {
				a.Index = randomMember(r, f.index, memClasses)
			}
			a.Offset = randomValue(r, f.size, dispClass, fits32)
		case kindSym:
			a.Sym = sym
			a.Offset = 16 * r.Int64N(1<<16)
		}
	}
	return q
}

// TestFormsRoundTrip checks every instruction form the package's encodings
// use (those of the shared test modules' functions, and any that tests run
// before filled; TestModulesMatchGolangAsm checks those of the jit's
// compiles the same way) against golang-asm: instances with random
// registers, constants and displacements of the form's classes come out
// of the template byte for byte as golang-asm encodes them alone, with
// the same relocations, and decode (x86asm) as one instruction of their
// length.
func TestFormsRoundTrip(t *testing.T) {
	for _, f := range sharedBaselineFuncs(t) {
		if _, err := Func(f); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
	}
	if n := checkForms(t, 24); n < 250 {
		t.Fatalf("only %d forms filled", n)
	}
}

// checkForms checks samples random instances of every filled form and
// returns the number of forms.
func checkForms(t testing.TB, samples int) int {
	formsMu.RLock()
	all := make([]*form, 0, len(forms))
	for _, f := range forms {
		all = append(all, f)
	}
	formsMu.RUnlock()
	slices.SortFunc(all, func(x, y *form) int { return cmpKeys(x.key, y.key) })
	a := getAssembler()
	defer putAssembler(a)
	r := rand.New(rand.NewPCG(1, 2))
	sym := &obj.LSym{Name: "pool"}
	for _, f := range all {
		k := f.key
		if f.bad {
			t.Errorf("form %v %+v has no template", k.as, k)
			continue
		}
		for range samples {
			q := randomInstance(r, k, sym)
			var got []byte
			var gotRelocs []obj.Reloc
			f.instantiate(&q, &got, &gotRelocs, 0)
			q.Ctxt = a.ctxt
			text := fmt.Sprint(&q)
			want, wantRelocs, ok := a.encodeAlone(&q)
			if !ok {
				t.Fatalf("golang-asm cannot encode %s, an instance of a form it encodes", text)
			}
			if !bytes.Equal(got, want) || !slices.Equal(gotRelocs, wantRelocs) {
				t.Fatalf("%s: the template gives % x %v, golang-asm % x %v", text, got, gotRelocs, want, wantRelocs)
			}
			if k.as == x86.ABYTE || k.as == x86.ALONG {
				continue // data: the bytes of branches between chunks
			}
			inst, err := x86asm.Decode(got, 64)
			if err != nil || inst.Len != len(got) {
				t.Fatalf("%s: % x decodes as %v (%d bytes), %v", text, got, inst, inst.Len, err)
			}
		}
	}
	t.Logf("%d forms, %d instances each", len(all), samples)
	return len(all)
}

// cmpKeys orders forms, for a deterministic test.
func cmpKeys(x, y formKey) int {
	return strings.Compare(fmt.Sprintf("%v", x), fmt.Sprintf("%v", y))
}
