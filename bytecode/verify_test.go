package bytecode

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// baseModule is a small valid module that the verifier tests break in one
// place at a time.
func baseModule() *Module {
	return &Module{
		Memory: Memory{MinPages: 1, MaxPages: 2},
		Data:   []DataSegment{{Offset: 10, Bytes: []byte("hi")}},
		Hosts:  []HostImport{{Name: "putc", Sig: Signature{Params: []Type{I64}}}},
		Funcs: []*Function{
			{
				Name: "main",
				Sig:  Signature{Params: []Type{I64}, Results: []Type{I64}},
				Regs: []Type{I64, I64, F64},
				Code: []Instr{
					{Op: OpI64Add, Dst: 1, A: 0, UseImm: true, Imm: 1},         // 0
					{Op: OpCallHost, Callee: 0, Args: []Reg{1}},                // 1
					{Op: OpBrLtS, A: 1, B: 0, Target: 4},                       // 2
					{Op: OpCall, Callee: 1, Args: []Reg{2}, Results: []Reg{2}}, // 3
					{Op: OpReturn, Args: []Reg{1}},                             // 4
				},
			},
			{
				Name: "half",
				Sig:  Signature{Params: []Type{F64}, Results: []Type{F64}},
				Regs: []Type{F64, F64},
				Code: []Instr{
					{Op: OpF64Const, Dst: 1, Imm: 0x3fe0000000000000},
					{Op: OpF64Mul, Dst: 0, A: 0, B: 1},
					{Op: OpReturn, Args: []Reg{0}},
				},
			},
		},
		Exports: []Export{{Name: "main", Func: 0}},
	}
}

func TestVerifyAcceptsBase(t *testing.T) {
	if err := Verify(baseModule()); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyRejects(t *testing.T) {
	code := func(m *Module, pc int) *Instr { return &m.Funcs[0].Code[pc] }
	tests := []struct {
		name   string
		break_ func(m *Module)
		want   string
	}{
		{"memory max over limit", func(m *Module) { m.Memory.MaxPages = MaxPages + 1 }, "verify: memory maximum 65537 pages exceeds the limit of 65536"},
		{"memory min over max", func(m *Module) { m.Memory.MinPages = 3 }, "verify: memory minimum 3 pages exceeds its maximum 2"},
		{"data beyond memory", func(m *Module) { m.Data[0].Offset = PageSize - 1 }, "verify: data segment 0 ends at byte 65537, beyond the initial memory of 65536 bytes"},
		{"host name", func(m *Module) { m.Hosts[0].Name = "9x" }, `verify: host import 0: name "9x" is not an identifier`},
		{"duplicate host", func(m *Module) { m.Hosts = append(m.Hosts, m.Hosts[0]) }, `verify: host import 1: duplicate name "putc"`},
		{"host signature", func(m *Module) { m.Hosts[0].Sig.Params[0] = 7 }, "verify: host import putc: invalid parameter type type(7)"},
		{"nil function", func(m *Module) { m.Funcs[1] = nil }, "verify: function 1 is nil"},
		{"function name", func(m *Module) { m.Funcs[1].Name = "a b" }, `verify: func #1: name "a b" is not an identifier`},
		{"duplicate function", func(m *Module) { m.Funcs[1].Name = "main" }, "verify: func main: duplicate function name"},
		{"too few registers", func(m *Module) { m.Funcs[0].Regs = nil }, "verify: func main: 0 registers cannot hold 1 parameters"},
		{"parameter register type", func(m *Module) { m.Funcs[0].Regs[0] = F64 }, "verify: func main: register r0 has type f64 but parameter 0 is i64"},
		{"invalid register type", func(m *Module) { m.Funcs[0].Regs[2] = 0 }, "verify: func main: register r2 has invalid type type(0)"},
		{"no code", func(m *Module) { m.Funcs[1].Code = nil }, "verify: func half: function has no code"},
		{"falls off end", func(m *Module) { m.Funcs[1].Code[2] = Instr{Op: OpF64Neg, Dst: 0, A: 0} }, "verify: func half: instruction 2 (f64.neg): control falls off the end of the function"},
		{"invalid opcode", func(m *Module) { code(m, 0).Op = Op(NumOps) }, fmt.Sprintf("verify: func main: instruction 0 (op(%d)): invalid opcode %d", NumOps, NumOps)},
		{"register out of range", func(m *Module) { code(m, 0).A = 9 }, "verify: func main: instruction 0 (i64.add): operand A register r9 out of range (the function has 3 registers)"},
		{"register type", func(m *Module) { code(m, 0).Dst = 2 }, "verify: func main: instruction 0 (i64.add): destination register r2 has type f64, want i64"},
		{"stray B with immediate", func(m *Module) { code(m, 0).B = 1 }, "instruction 0 (i64.add): stray operand register r1 in field B"},
		{"stray C", func(m *Module) { code(m, 0).C = 1 }, "instruction 0 (i64.add): stray operand register r1 in field C"},
		{"immediate not allowed", func(m *Module) {
			m.Funcs[1].Code[1] = Instr{Op: OpF64Mul, Dst: 0, A: 0, UseImm: true, Imm: 3}
		}, "verify: func half: instruction 1 (f64.mul): f64.mul takes no immediate operand"},
		{"stray immediate", func(m *Module) { m.Funcs[1].Code[1].Imm = 3 }, "instruction 1 (f64.mul): stray immediate 3"},
		{"stray target", func(m *Module) { code(m, 0).Target = 1 }, "instruction 0 (i64.add): stray branch target 1"},
		{"stray table", func(m *Module) { code(m, 0).Table = []uint32{1} }, "instruction 0 (i64.add): stray switch table"},
		{"stray callee", func(m *Module) { code(m, 0).Callee = 1 }, "instruction 0 (i64.add): stray callee 1"},
		{"stray args", func(m *Module) { code(m, 0).Args = []Reg{0} }, "instruction 0 (i64.add): stray argument list"},
		{"stray dst", func(m *Module) { code(m, 2).Dst = 1 }, "instruction 2 (br.lt_s): stray destination register r1"},
		{"branch target", func(m *Module) { code(m, 2).Target = 5 }, "instruction 2 (br.lt_s): branch target 5 out of range (the function has 5 instructions)"},
		{"switch case target", func(m *Module) {
			*code(m, 2) = Instr{Op: OpSwitch, A: 0, Table: []uint32{0, 9}, Target: 1}
		}, "instruction 2 (switch): switch case 1 target 9 out of range"},
		{"switch default target", func(m *Module) {
			*code(m, 2) = Instr{Op: OpSwitch, A: 0, Table: []uint32{0}, Target: 7}
		}, "instruction 2 (switch): switch default target 7 out of range"},
		{"switch index type", func(m *Module) {
			*code(m, 2) = Instr{Op: OpSwitch, A: 2, Target: 1}
		}, "instruction 2 (switch): operand A register r2 has type f64, want i32 or i64"},
		{"callee out of range", func(m *Module) { code(m, 3).Callee = 2 }, "instruction 3 (call): callee 2 out of range (the module has 2 functions)"},
		{"host out of range", func(m *Module) { code(m, 1).Callee = 1 }, "instruction 1 (call_host): host import 1 out of range (the module has 1 host imports)"},
		{"argument count", func(m *Module) { code(m, 3).Args = nil }, "instruction 3 (call): 0 arguments for a callee with signature (f64) -> (f64)"},
		{"argument type", func(m *Module) { code(m, 1).Args[0] = 2 }, "instruction 1 (call_host): argument 0 register r2 has type f64, want i64"},
		{"result count", func(m *Module) { code(m, 1).Results = []Reg{1} }, "instruction 1 (call_host): 1 result registers for a callee with signature (i64) -> ()"},
		{"result type", func(m *Module) { code(m, 3).Results[0] = 1 }, "instruction 3 (call): result 0 register r1 has type i64, want f64"},
		{"duplicate results", func(m *Module) {
			m.Funcs[1].Sig.Results = []Type{F64, F64}
			m.Funcs[1].Code[2].Args = []Reg{0, 0}
			code(m, 3).Results = []Reg{2, 2}
		}, "instruction 3 (call): register r2 receives two results"},
		{"return count", func(m *Module) { code(m, 4).Args = nil }, "instruction 4 (ret): returns 0 values; the function's signature is (i64) -> (i64)"},
		{"return type", func(m *Module) { code(m, 4).Args[0] = 2 }, "instruction 4 (ret): return value 0 register r2 has type f64, want i64"},
		{"mov types differ", func(m *Module) { *code(m, 0) = Instr{Op: OpMov, Dst: 1, A: 2} }, "instruction 0 (mov): operand A register r2 has type f64, want i64"},
		{"select types differ", func(m *Module) {
			*code(m, 0) = Instr{Op: OpSelect, Dst: 2, A: 0, B: 2, C: 1}
		}, "instruction 0 (select): operand C register r1 has type i64, want f64"},
		{"memory offset", func(m *Module) {
			*code(m, 0) = Instr{Op: OpI64Load, Dst: 1, A: 0, Imm: 1 << 31}
		}, "instruction 0 (i64.load): memory offset 2147483648 does not fit in 32 bits"},
		{"export name", func(m *Module) { m.Exports[0].Name = "" }, "verify: export 0 has an empty name"},
		{"duplicate export", func(m *Module) { m.Exports = append(m.Exports, m.Exports[0]) }, `verify: duplicate export name "main"`},
		{"export function", func(m *Module) { m.Exports[0].Func = 5 }, `verify: export "main" refers to function 5; the module has 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := baseModule()
			tt.break_(m)
			err := Verify(m)
			if err == nil {
				t.Fatalf("Verify accepted the module; want error containing %q", tt.want)
			}
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is %T, not *VerifyError", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error\n  %v\ndoes not contain\n  %s", err, tt.want)
			}
		})
	}
}

func TestVerifyAcceptsUnreachableCode(t *testing.T) {
	m := baseModule()
	f := m.Funcs[1]
	// Instructions after the return are never reached and need no terminator
	// of their own as long as the function's last instruction is one.
	f.Code = append(f.Code, Instr{Op: OpF64Neg, Dst: 0, A: 0}, Instr{Op: OpTrap, Imm: 3})
	if err := Verify(m); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyRandomModules(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		if err := Verify(randomModule(r)); err != nil {
			t.Fatalf("module %d: %v", i, err)
		}
	}
}

func TestIsIdentifier(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "_": true, "f.x_1": true, "Z9": true,
		"": false, "1a": false, ".a": false, "a-b": false, "a b": false, "é": false,
	} {
		if got := IsIdentifier(s); got != want {
			t.Errorf("IsIdentifier(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestBuilder(t *testing.T) {
	b := NewModuleBuilder().Memory(1, 1)
	putc := b.Host("putc", []Type{I64}, nil)
	count := b.Func("count", []Type{I64}, []Type{I64})
	n := count.Param(0)
	i := count.NewReg(I64)
	loop, done := count.NewLabel(), count.NewLabel()
	count.I64Const(i, 0)
	count.Bind(loop)
	count.BrCmp(OpBrGeS, i, n, done)
	count.CallHost(putc, []Reg{i}, nil)
	count.BinaryImm(OpI64Add, i, i, 1)
	count.Jump(loop)
	count.Bind(done)
	count.Return(i)
	b.Export("count", count)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if got := f.Code[1].Target; got != 5 {
		t.Errorf("br.ge_s target = %d, want 5", got)
	}
	if got := f.Code[4].Target; got != 1 {
		t.Errorf("jump target = %d, want 1", got)
	}
	if m.ExportedFunc("count") != 0 || m.HostIndex("putc") != 0 || m.FuncIndex("count") != 0 {
		t.Errorf("lookups failed")
	}
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *ModuleBuilder)
		want  string
	}{
		{"unbound label", func(b *ModuleBuilder) {
			f := b.Func("f", nil, nil)
			f.Jump(f.NewLabel())
		}, "build func f: instruction 0: label 0: branch to a label that was never bound"},
		{"label bound twice", func(b *ModuleBuilder) {
			f := b.Func("f", nil, nil)
			l := f.NewLabel()
			f.Bind(l)
			f.Bind(l)
			f.Return()
		}, "build func f: label 0 bound twice"},
		{"emit branch", func(b *ModuleBuilder) {
			f := b.Func("f", nil, nil)
			f.Emit(Instr{Op: OpJump})
		}, "build func f: instruction 0: Emit of branch jump"},
		{"bad param", func(b *ModuleBuilder) {
			f := b.Func("f", nil, nil)
			f.Param(3)
			f.Return()
		}, "build func f: parameter 3 out of range"},
		{"verify failure", func(b *ModuleBuilder) {
			f := b.Func("f", nil, nil)
			f.I64Const(0, 1)
		}, "register r0 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewModuleBuilder()
			tt.build(b)
			_, err := b.Build()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Build error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestCloneIsDeep(t *testing.T) {
	m := baseModule()
	c := m.Clone()
	c.Funcs[0].Code[1].Args[0] = 2
	c.Data[0].Bytes[0] = 'X'
	c.Hosts[0].Sig.Params[0] = F64
	if m.Funcs[0].Code[1].Args[0] != 1 || m.Data[0].Bytes[0] != 'h' || m.Hosts[0].Sig.Params[0] != I64 {
		t.Fatal("Clone shares memory with the original")
	}
}
