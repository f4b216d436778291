package fuzz

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/floatbits"
	"github.com/kiln-jit/kiln/runtime"
)

// TestGeneratorReach generates programs from random inputs and counts what
// they reach: values live at once far beyond the 16 registers of a class,
// irreducible loops, every kind of trap (in the reference interpreter),
// and NaNs (with payloads other than the default NaN's) in the results
// and host-call arguments, where their bits are compared. Each must be
// reached by a fair share of programs.
func TestGeneratorReach(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 300
	}
	var (
		traps                         = map[bytecode.TrapKind]int{}
		calls, highGPR, highXMM, irr  int
		maxGPR, maxXMM, loops, maxDep int
		nans                          nanCount
	)
	for _, data := range randomInputs(3, n, 4000) {
		p, err := Generate(data, GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sh, err := MeasureShape(p.Module)
		if err != nil {
			t.Fatal(err)
		}
		if sh.MaxLiveGPR > 32 {
			highGPR++
		}
		if sh.MaxLiveXMM > 16 {
			highXMM++
		}
		if sh.Irreducible > 0 {
			irr++
		}
		loops += sh.Loops
		maxGPR, maxXMM, maxDep = max(maxGPR, sh.MaxLiveGPR), max(maxXMM, sh.MaxLiveXMM), max(maxDep, sh.MaxLoopDepth)
		res, err := Check(p.Module, p.Calls, Options{Hosts: StandardHosts(), GlobalImports: p.GlobalImports, Configs: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range res.Outcomes {
			nans.add(p.Module, p.Calls[i], o)
			calls++
			var trap *bytecode.Trap
			switch {
			case errors.As(o.Err, &trap):
				traps[trap.Kind]++
			case o.Err != nil:
				t.Fatalf("call failed without a trap: %v", o.Err)
			default:
				traps[bytecode.TrapNone]++
			}
		}
	}
	t.Logf("%d programs, %d calls: %d with > 32 GPR values live at once (most %d), %d with > 16 XMM values (most %d), %d with irreducible loops, %d loops (deepest nesting %d)",
		n, calls, highGPR, maxGPR, highXMM, maxXMM, irr, loops, maxDep)
	for k := bytecode.TrapNone; k <= bytecode.TrapHostError; k++ {
		t.Logf("%-32s %d", k.String()+":", traps[k])
	}
	t.Logf("NaN results: %d (%d with a payload), NaN host arguments: %d (%d with a payload)",
		nans.results, nans.resultPayloads, nans.hostArgs, nans.hostArgPayloads)
	if highGPR < n/10 || highXMM < n/20 {
		t.Errorf("high register pressure in too few programs: %d (GPR), %d (XMM) of %d", highGPR, highXMM, n)
	}
	if irr < n/20 {
		t.Errorf("irreducible loops in only %d of %d programs", irr, n)
	}
	for k := bytecode.TrapNone; k <= bytecode.TrapHostError; k++ {
		if traps[k] == 0 {
			t.Errorf("no call ended with %s", k)
		}
	}
	if nans.resultPayloads < n/40 || nans.hostArgPayloads < n/40 {
		t.Errorf("too few NaNs with payloads where their bits are compared: %d results, %d host arguments in %d programs",
			nans.resultPayloads, nans.hostArgPayloads, n)
	}
}

// nanCount counts the NaNs among the float results and host-call
// arguments of calls, and how many of them have a payload other than the
// default NaN's (whatever their sign and quiet bit).
type nanCount struct {
	results, resultPayloads   int
	hostArgs, hostArgPayloads int
}

func (c *nanCount) add(m *bytecode.Module, call Call, o Outcome) {
	count := func(t bytecode.Type, v uint64, all, payloads *int) {
		var nan, payload bool
		switch t {
		case bytecode.F64:
			nan, payload = floatbits.IsNaN64(v), v&(floatbits.QuietBit64-1) != 0
		case bytecode.F32:
			nan, payload = floatbits.IsNaN32(uint32(v)), uint32(v)&(floatbits.QuietBit32-1) != 0
		}
		if nan {
			*all++
			if payload {
				*payloads++
			}
		}
	}
	if o.Err == nil {
		for k, t := range m.Funcs[m.ExportedFunc(call.Func)].Sig.Results {
			count(t, o.Results[k], &c.results, &c.resultPayloads)
		}
	}
	for _, h := range o.HostCalls {
		for k, t := range m.Hosts[m.HostIndex(h.Name)].Sig.Params {
			count(t, h.Args[k], &c.hostArgs, &c.hostArgPayloads)
		}
	}
}

// TestGeneratorReachesEveryOp generates programs and requires every opcode
// (the 32-bit ones, globals, call_indirect and unreachable included) to
// appear, the ops that take an immediate operand in both forms, every
// operand that takes either integer type (the destination of a
// comparison, a condition, a switch index, an address, memory.grow's
// operands, call_indirect's index) with both an i32 and an i64 register,
// and every kind of global and table declaration. Running the programs in
// the reference interpreter, some calls must end with each trap of
// call_indirect and unreachable. Most programs must still do without
// globals, tables and unreachable.
func TestGeneratorReachesEveryOp(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 120
	}
	count := make([]int, bytecode.NumOps)
	forms := map[string]int{}
	traps := map[bytecode.TrapKind]int{}
	plain := 0
	for _, data := range randomInputs(5, n, 4000) {
		p, err := Generate(data, GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		uses := false
		for _, f := range p.Module.Funcs {
			for i := range f.Code {
				in := &f.Code[i]
				count[in.Op]++
				uses = uses || in.Op >= bytecode.OpGlobalGet
				for _, form := range operandForms(f, in) {
					forms[form]++
				}
			}
		}
		for _, form := range moduleForms(p.Module) {
			forms[form]++
		}
		if !uses && len(p.Module.Globals) == 0 && !p.Module.HasTable() {
			plain++
		}
		res, err := Check(p.Module, p.Calls, Options{Hosts: StandardHosts(), GlobalImports: p.GlobalImports, Configs: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Outcomes {
			var trap *bytecode.Trap
			if errors.As(o.Err, &trap) {
				traps[trap.Kind]++
			}
		}
	}
	least, leastOp := -1, bytecode.OpInvalid
	for op := bytecode.OpI64Const; int(op) < bytecode.NumOps; op++ {
		if count[op] == 0 {
			t.Errorf("%d programs never use %s", n, op)
		}
		if op >= bytecode.OpI32Const && (least < 0 || count[op] < least) {
			least, leastOp = count[op], op
		}
		for _, form := range wantedForms(op) {
			if forms[form] == 0 {
				t.Errorf("%d programs never use %s", n, form)
			}
		}
	}
	for _, form := range wantedModuleForms() {
		if forms[form] == 0 {
			t.Errorf("%d programs never have %s", n, form)
		}
	}
	for _, k := range []bytecode.TrapKind{bytecode.TrapUnreachable, bytecode.TrapUndefinedElement,
		bytecode.TrapUninitializedElement, bytecode.TrapIndirectCallTypeMismatch, bytecode.TrapTableOutOfBounds, bytecode.TrapInvalidReference} {
		t.Logf("%-32s %d", k.String()+":", traps[k])
		// A store of a value that is no function reference into a
		// funcref table ends about one program in 150: the short run's
		// programs are too few to be sure of one.
		if traps[k] == 0 && !(testing.Short() && k == bytecode.TrapInvalidReference) {
			t.Errorf("no call of %d programs ended with %s", n, k)
		}
	}
	if plain < n*2/5 {
		t.Errorf("only %d of %d programs do without globals, tables and unreachable", plain, n)
	}
	reached := 0
	for op := bytecode.OpI32Const; int(op) < bytecode.NumOps; op++ {
		if count[op] > 0 {
			reached++
		}
	}
	t.Logf("%d programs (%d without globals, tables and unreachable): %d of the %d ops from %s to %s reached, the rarest %s (%d times); %d operand and declaration forms",
		n, plain, reached, bytecode.NumOps-int(bytecode.OpI32Const), bytecode.OpI32Const, bytecode.Op(bytecode.NumOps-1),
		leastOp, least, len(forms))
}

// moduleForms names the kinds of globals and table m declares.
func moduleForms(m *bytecode.Module) []string {
	var out []string
	for _, g := range m.Globals {
		kind := "constant"
		if g.Mutable {
			kind = "mutable"
		}
		out = append(out, fmt.Sprintf("a %s %s global", kind, g.Type))
		if g.Import != "" {
			out = append(out, fmt.Sprintf("an imported %s %s global", kind, g.Type))
		}
		if g.Export != "" {
			out = append(out, fmt.Sprintf("an exported %s %s global", kind, g.Type))
		}
	}
	if !m.HasTable() {
		return out
	}
	t := &m.Table
	if t.HasMax {
		out = append(out, "a table with a maximum")
	}
	if t.Export != "" {
		out = append(out, "an exported table")
	}
	if t.Min == 0 {
		out = append(out, "a table of no entries")
	}
	entries := m.TableFuncs()
	if len(entries) < int(t.Min) || slices.Contains(entries, -1) {
		out = append(out, "a table with null entries")
	}
	funcIDs, typeIDs := m.SignatureIDs()
	for i, id := range typeIDs {
		if slices.Contains(typeIDs[:i], id) {
			out = append(out, "two equal signatures")
		}
		if !slices.Contains(funcIDs, id) {
			out = append(out, "a signature no function has")
		}
	}
	return out
}

// wantedModuleForms lists the forms of moduleForms that programs must
// have.
func wantedModuleForms() []string {
	var out []string
	for _, t := range valueTypes {
		for _, kind := range []string{"constant", "mutable"} {
			out = append(out, fmt.Sprintf("a %s %s global", kind, t), fmt.Sprintf("an imported %s %s global", kind, t),
				fmt.Sprintf("an exported %s %s global", kind, t))
		}
	}
	return append(out, "a table with a maximum", "an exported table", "a table of no entries",
		"a table with null entries", "two equal signatures", "a signature no function has")
}

// operandForms names the forms in which in uses its operands that have a
// choice: the type of each IntType operand and whether B is an immediate.
func operandForms(f *bytecode.Function, in *bytecode.Instr) []string {
	info := in.Op.Info()
	var out []string
	if info.Dst == bytecode.IntType {
		out = append(out, fmt.Sprintf("%s with an %s destination", in.Op, f.Regs[in.Dst]))
	}
	if info.A == bytecode.IntType {
		out = append(out, fmt.Sprintf("%s with an %s operand", in.Op, f.Regs[in.A]))
	}
	if info.Imm {
		out = append(out, immForm(in.Op, in.UseImm))
	}
	return out
}

// wantedForms lists the forms of op that programs must use.
func wantedForms(op bytecode.Op) []string {
	info := op.Info()
	var out []string
	for _, t := range []bytecode.Type{bytecode.I32, bytecode.I64} {
		if info.Dst == bytecode.IntType {
			out = append(out, fmt.Sprintf("%s with an %s destination", op, t))
		}
		if info.A == bytecode.IntType {
			out = append(out, fmt.Sprintf("%s with an %s operand", op, t))
		}
	}
	if info.Imm {
		out = append(out, immForm(op, false), immForm(op, true))
	}
	return slices.Compact(out)
}

func immForm(op bytecode.Op, imm bool) string {
	if imm {
		return fmt.Sprintf("%s with an immediate", op)
	}
	return fmt.Sprintf("%s with a register B", op)
}

// TestReoptimizationIsReached checks that generated programs drive the
// re-optimizing configuration into recompiling and running re-optimized
// code (those that repeat their calls), with every result still equal to
// the reference's.
func TestReoptimizationIsReached(t *testing.T) {
	if !runtime.Supported() {
		t.Skip("compiled tiers are not supported on this platform")
	}
	n := 200
	if testing.Short() {
		n = 80
	}
	repeated, reached, total := 0, 0, 0
	for _, data := range randomInputs(11, n, 4000) {
		p, err := Generate(data, GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Repeated == nil {
			continue
		}
		repeated++
		res, err := Check(p.Module, p.Repeated, Options{Hosts: StandardHosts(), GlobalImports: p.GlobalImports, Configs: RepeatConfigs})
		if err != nil {
			t.Fatal(err)
		}
		if k := res.Reoptimized[RepeatConfigs[0]]; k > 0 {
			reached++
			total += k
		}
	}
	t.Logf("%d of %d programs have repeated calls; %d re-optimized on them (%d recompiles)", repeated, n, reached, total)
	if repeated == 0 || reached == 0 {
		t.Errorf("%d of %d programs repeat their calls and %d re-optimized: the configuration is not exercised", repeated, n, reached)
	}
}
