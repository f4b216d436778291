package fuzz

import (
	"bytes"
	"errors"
	"maps"
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
	for _, line := range []string{`; global env.g 0x1`, `; global "env.g"`, `; global "env.g" 0xzz`, `; global "env.g" 1 2`} {
		if _, err := ParseProgram([]byte("; call f\n" + line + "\nfunc f () -> ()\n  ret\nend\nexport \"f\" f\n")); err == nil {
			t.Errorf("the malformed line %q was accepted", line)
		}
	}
}

// TestFormatProgramKeepsGlobalImports reads back the values of imported
// globals.
func TestFormatProgramKeepsGlobalImports(t *testing.T) {
	found := 0
	for _, data := range randomInputs(15, 200, 3000) {
		p, _ := Generate(data, GenOptions{})
		if len(p.GlobalImports) == 0 {
			continue
		}
		q, err := ParseProgram([]byte(FormatProgram(p, "")))
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(p.GlobalImports, q.GlobalImports) {
			t.Fatalf("global imports %v read back as %v", p.GlobalImports, q.GlobalImports)
		}
		found++
	}
	if found < 10 {
		t.Errorf("only %d of 200 programs import globals", found)
	}
}

// TestMinimizeShrinksToTheCause minimizes large generated programs whose
// first call traps out of bounds, keeping only that property: what is left
// must be a handful of instructions that still trap the same way.
func TestMinimizeShrinksToTheCause(t *testing.T) {
	traps := func(p *Program) bool {
		res, err := Check(p.Module, p.Calls[:1], Options{Hosts: StandardHosts(), GlobalImports: p.GlobalImports, Configs: []string{}})
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

// TestMinimizeHandlesGlobalsAndTables minimizes generated programs whose
// first call traps in call_indirect or at unreachable, keeping only the
// trap's kind: what is left must be valid, small, and without globals,
// signatures and element segments the trap does not need.
func TestMinimizeHandlesGlobalsAndTables(t *testing.T) {
	kinds := map[bytecode.TrapKind]bool{bytecode.TrapUnreachable: true, bytecode.TrapUndefinedElement: true,
		bytecode.TrapUninitializedElement: true, bytecode.TrapIndirectCallTypeMismatch: true}
	trapKind := func(p *Program) bytecode.TrapKind {
		res, err := Check(p.Module, p.Calls[:1], Options{Hosts: StandardHosts(), GlobalImports: p.GlobalImports, Configs: []string{}})
		var trap *bytecode.Trap
		if err != nil || !errors.As(res.Outcomes[0].Err, &trap) {
			return bytecode.TrapNone
		}
		return trap.Kind
	}
	done := map[bytecode.TrapKind]bool{}
	for _, data := range randomInputs(16, 600, 4000) {
		p, _ := Generate(data, GenOptions{})
		kind := trapKind(p)
		if !kinds[kind] || done[kind] || len(p.Module.Globals) == 0 {
			continue
		}
		q := Minimize(p, func(q *Program) bool { return trapKind(q) == kind }, time.Minute)
		if trapKind(q) != kind || bytecode.Verify(q.Module) != nil {
			t.Fatal("the minimized program lost the property")
		}
		m := q.Module
		usedGlobals, usedTypes := map[uint32]bool{}, map[uint32]bool{}
		for _, f := range m.Funcs {
			for i := range f.Code {
				switch in := &f.Code[i]; in.Op {
				case bytecode.OpGlobalGet, bytecode.OpGlobalSet:
					usedGlobals[in.Callee] = true
				case bytecode.OpCallIndirect:
					usedTypes[in.Callee] = true
				}
			}
		}
		text := FormatProgram(q, "")
		switch {
		case m.Instructions() > 8 || len(q.Calls) != 1:
			t.Errorf("%s: minimized to %d instructions and %d calls:\n%s", kind, m.Instructions(), len(q.Calls), text)
		case len(m.Globals) != len(usedGlobals) || len(m.Types) != len(usedTypes):
			t.Errorf("%s: unused globals or signatures are left:\n%s", kind, text)
		case kind == bytecode.TrapUnreachable && (m.HasTable() || len(m.Elems) > 0):
			t.Errorf("%s: the table is left:\n%s", kind, text)
		}
		// Every element segment left is needed: without it the program
		// no longer traps that way.
		for e := range m.Elems {
			r := cloneProgram(q)
			r.Module.Elems = append(r.Module.Elems[:e], r.Module.Elems[e+1:]...)
			if bytecode.Verify(r.Module) == nil && trapKind(r) == kind {
				t.Errorf("%s: element segment %d is left, yet not needed:\n%s", kind, e, text)
			}
		}
		for _, g := range m.Globals {
			if _, ok := q.GlobalImports[g.Import]; g.Import != "" && !ok {
				t.Errorf("%s: imported global %s lost its value", kind, g.Name)
			}
		}
		done[kind] = true
		if len(done) == len(kinds) {
			return
		}
	}
	t.Errorf("only %d of the %d trap kinds were minimized", len(done), len(kinds))
}
