package fuzz

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
)

// TestGenerateIsTotalAndDeterministic feeds the generator edge-case and
// random inputs: each gives a valid program with calls that match its
// exports, and the same bytes always give the same program.
func TestGenerateIsTotalAndDeterministic(t *testing.T) {
	inputs := [][]byte{nil, {}, {0}, make([]byte, 100), bytes.Repeat([]byte{0xff}, 5000),
		bytes.Repeat([]byte{0x80, 0x01}, 3000)}
	inputs = append(inputs, randomInputs(11, 60, 5000)...)
	for i, data := range inputs {
		p, err := Generate(data, GenOptions{})
		if err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		if err := bytecode.Verify(p.Module); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		if len(p.Calls) == 0 {
			t.Fatalf("input %d: no calls", i)
		}
		for _, c := range p.Calls {
			fn := p.Module.ExportedFunc(c.Func)
			if fn < 0 || len(p.Module.Funcs[fn].Sig.Params) != len(c.Args) {
				t.Fatalf("input %d: call %+v does not fit the module", i, c)
			}
		}
		again, _ := Generate(slices.Clone(data), GenOptions{})
		if FormatProgram(p, "") != FormatProgram(again, "") {
			t.Fatalf("input %d: two different programs from the same bytes", i)
		}
	}
}

// TestGenerateRespectsOptions checks the size limits.
func TestGenerateRespectsOptions(t *testing.T) {
	for _, data := range randomInputs(12, 40, 5000) {
		p, err := Generate(data, GenOptions{MaxFuncs: 2, MaxInstrs: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Module.Funcs) > 2 {
			t.Fatalf("%d functions, want at most 2", len(p.Module.Funcs))
		}
	}
}

// TestFormatProgramRoundTrip writes programs as text and reads them back.
func TestFormatProgramRoundTrip(t *testing.T) {
	for _, data := range randomInputs(13, 20, 3000) {
		p, _ := Generate(data, GenOptions{})
		text := FormatProgram(p, "a note\nof two lines")
		q, err := ParseProgram([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if FormatProgram(q, "a note\nof two lines") != text {
			t.Fatalf("round trip changed the program:\n%s", text)
		}
	}
	if _, err := ParseProgram([]byte("func f () -> ()\n  ret\nend\n")); err == nil {
		t.Error("a program without calls was accepted")
	}
	if _, err := ParseProgram([]byte("; call f 0xzz\nfunc f () -> ()\n  ret\nend\nexport \"f\" f\n")); err == nil {
		t.Error("a malformed argument was accepted")
	}
}

// TestMinimizeShrinksToTheCause minimizes large generated programs whose
// first call traps out of bounds, keeping only that property: what is left
// must be a handful of instructions that still trap the same way.
func TestMinimizeShrinksToTheCause(t *testing.T) {
	traps := func(p *Program) bool {
		res, err := Check(p.Module, p.Calls[:1], Options{Hosts: StandardHosts(), Configs: []string{}})
		var trap *bytecode.Trap
		return err == nil && errors.As(res.Outcomes[0].Err, &trap) && trap.Kind == bytecode.TrapOutOfBounds
	}
	done := 0
	for _, data := range randomInputs(14, 400, 4000) {
		p, _ := Generate(data, GenOptions{})
		if !traps(p) {
			continue
		}
		before := FormatProgram(p, "")
		q := Minimize(p, traps, time.Minute)
		if before != FormatProgram(p, "") {
			t.Fatal("Minimize modified its input")
		}
		if !traps(q) || bytecode.Verify(q.Module) != nil {
			t.Fatal("the minimized program lost the property")
		}
		n := q.Module.Instructions()
		if n > 6 || len(q.Calls) != 1 {
			t.Errorf("minimized to %d instructions and %d calls:\n%s", n, len(q.Calls), FormatProgram(q, ""))
		}
		if done++; done == 3 {
			return
		}
	}
	t.Fatalf("only %d programs trapped out of bounds", done)
}
