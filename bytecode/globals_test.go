package bytecode

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// tableModule is a small valid module with globals (exported, constant,
// imported), types, a table, an element segment, global.get, global.set,
// call_indirect and unreachable. The tests below break it in one place at
// a time; tableModuleText is its text.
func tableModule() *Module {
	return &Module{
		Hosts: []HostImport{{Name: "putc", Sig: Signature{Params: []Type{I64}}}},
		Types: []Signature{
			{Params: []Type{I64}, Results: []Type{I64}},
			{Params: []Type{F64}},
		},
		Globals: []Global{
			{Name: "counter", Type: I64, Mutable: true, Init: 5, Export: "counter"},
			{Name: "limit", Type: I32, Init: 0xffffffff},
			{Name: "scale", Type: F64, Mutable: true, Import: "env.scale"},
			{Name: "ratio", Type: F32, Init: uint64(math.Float32bits(0.5))},
		},
		Table: Table{Min: 4, Max: 8, HasMax: true, Export: "table"},
		Elems: []ElemSegment{{Offset: 1, Funcs: []uint32{1, 0}}},
		Funcs: []*Function{
			{
				Name: "main",
				Sig:  Signature{Params: []Type{I64}, Results: []Type{I64}},
				Regs: []Type{I64, I64, I32, F64},
				Code: []Instr{
					{Op: OpGlobalGet, Dst: 1, Callee: 0},                                     // 0
					{Op: OpGlobalSet, Callee: 0, A: 0},                                       // 1
					{Op: OpGlobalGet, Dst: 2, Callee: 1},                                     // 2
					{Op: OpCallIndirect, Callee: 0, A: 2, Args: []Reg{1}, Results: []Reg{1}}, // 3
					{Op: OpBrIf, A: 1, Target: 6},                                            // 4
					{Op: OpUnreachable},                                                      // 5
					{Op: OpReturn, Args: []Reg{1}},                                           // 6
				},
			},
			{
				Name: "inc",
				Sig:  Signature{Params: []Type{I64}, Results: []Type{I64}},
				Regs: []Type{I64},
				Code: []Instr{
					{Op: OpI64Add, Dst: 0, A: 0, UseImm: true, Imm: 1},
					{Op: OpReturn, Args: []Reg{0}},
				},
			},
		},
		Exports: []Export{{Name: "main", Func: 0}},
	}
}

// tableModuleText is the canonical text of tableModule.
const tableModuleText = `host putc (i64) -> ()
type t0 (i64) -> (i64)
type t1 (f64) -> ()
global counter i64 mut = 5 export "counter"
global limit i32 = -1
global scale f64 mut import "env.scale"
global ratio f32 = 0.5
table 4 8 export "table"
elem 1 inc main

func main (i64) -> (i64)
  regs i64 i32 f64
  global.get r1, counter
  global.set counter, r0
  global.get r2, limit
  call_indirect t0, r2 (r1) -> (r1)
  br_if r1, L6
  unreachable
L6:
  ret r1
end

func inc (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end

export "main" main
`

func TestVerifyAcceptsTableModule(t *testing.T) {
	if err := Verify(tableModule()); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyGlobalsAndTables(t *testing.T) {
	code := func(m *Module, pc int) *Instr { return &m.Funcs[0].Code[pc] }
	// private keeps the table to the module, as one that changes must be.
	private := func(m *Module) { m.Table.Import, m.Table.Export = "", "" }
	tests := []struct {
		name   string
		break_ func(m *Module)
		want   string
	}{
		// Instructions: the error names the function, offset, op and reason.
		{"global.set of a constant global", func(m *Module) { code(m, 1).Callee = 3 }, "verify: func main: instruction 1 (global.set): global ratio is constant (not mutable)"},
		{"global.get type", func(m *Module) { code(m, 0).Dst = 2 }, "verify: func main: instruction 0 (global.get): destination register r2 has type i32; global counter is i64"},
		{"global.set type", func(m *Module) { code(m, 1).A = 3 }, "verify: func main: instruction 1 (global.set): operand A register r3 has type f64; global counter is i64"},
		{"global.get unknown global", func(m *Module) { code(m, 0).Callee = 7 }, "verify: func main: instruction 0 (global.get): global 7 out of range (the module has 4 globals)"},
		{"global.set unknown global", func(m *Module) { code(m, 1).Callee = 4 }, "verify: func main: instruction 1 (global.set): global 4 out of range (the module has 4 globals)"},
		{"global.get register range", func(m *Module) { code(m, 0).Dst = 9 }, "verify: func main: instruction 0 (global.get): destination register r9 out of range (the function has 4 registers)"},
		{"global.get stray operand", func(m *Module) { code(m, 0).A = 1 }, "verify: func main: instruction 0 (global.get): stray operand register r1 in field A"},
		{"global.set stray destination", func(m *Module) { code(m, 1).Dst = 1 }, "verify: func main: instruction 1 (global.set): stray destination register r1"},
		{"call_indirect unknown signature", func(m *Module) { code(m, 3).Callee = 5 }, "verify: func main: instruction 3 (call_indirect): signature 5 out of range (the module has 2 types)"},
		{"call_indirect without a table", func(m *Module) { m.Table, m.Elems = Table{}, nil }, "verify: func main: instruction 3 (call_indirect): call_indirect in a module without a table"},
		{"call_indirect index type", func(m *Module) { code(m, 3).A = 3 }, "verify: func main: instruction 3 (call_indirect): operand A register r3 has type f64, want i32 or i64"},
		{"call_indirect argument type", func(m *Module) { code(m, 3).Callee, code(m, 3).Results = 1, nil }, "verify: func main: instruction 3 (call_indirect): argument 0 register r1 has type i64, want f64"},
		{"call_indirect result count", func(m *Module) { code(m, 3).Results = nil }, "verify: func main: instruction 3 (call_indirect): 0 result registers for a callee with signature (i64) -> (i64)"},
		{"unreachable stray callee", func(m *Module) { code(m, 5).Callee = 1 }, "verify: func main: instruction 5 (unreachable): stray callee 1"},
		{"unreachable stray argument", func(m *Module) { code(m, 5).Args = []Reg{0} }, "verify: func main: instruction 5 (unreachable): stray argument list"},
		{"stray callee on i64.add", func(m *Module) { m.Funcs[1].Code[0].Callee = 2 }, "verify: func inc: instruction 0 (i64.add): stray callee 2"},
		{"call_indirect unknown table", func(m *Module) { private(m); code(m, 3).Imm = 1 }, "verify: func main: instruction 3 (call_indirect): table 1 out of range (the module has 1 tables)"},
		{"call_indirect of externref", func(m *Module) { private(m); m.MoreTables = []Table{{Min: 1, Extern: true}}; code(m, 3).Imm = 1 }, "verify: func main: instruction 3 (call_indirect): call_indirect through table 1, a table of external references"},
		{"table.get unknown table", func(m *Module) { private(m); *code(m, 5) = Instr{Op: OpTableGet, Dst: 0, Callee: 2, A: 0} }, "verify: func main: instruction 5 (table.get): table 2 out of range (the module has 1 tables)"},
		{"table.set value type", func(m *Module) { private(m); *code(m, 5) = Instr{Op: OpTableSet, A: 0, B: 3} }, "verify: func main: instruction 5 (table.set): operand B register r3 has type f64, want i64"},
		{"table.init unknown segment", func(m *Module) { private(m); *code(m, 5) = Instr{Op: OpTableInit, Callee: 4, A: 0, B: 0, C: 0} }, "verify: func main: instruction 5 (table.init): element segment 4 out of range (the module has 1)"},
		{"elem.drop unknown segment", func(m *Module) { private(m); *code(m, 5) = Instr{Op: OpElemDrop, Callee: 1} }, "verify: func main: instruction 5 (elem.drop): element segment 1 out of range (the module has 1)"},
		{"memory.init unknown segment", func(m *Module) { private(m); *code(m, 5) = Instr{Op: OpMemoryInit, Callee: 0, A: 0, B: 0, C: 0} }, "verify: func main: instruction 5 (memory.init): data segment 0 out of range (the module has 0)"},
		{"ref.func unknown function", func(m *Module) { private(m); *code(m, 5) = Instr{Op: OpRefFunc, Dst: 0, Callee: 2} }, "verify: func main: instruction 5 (ref.func): function 2 out of range (the module has 2 functions)"},
		{"passive data offset", func(m *Module) { m.Data = []DataSegment{{Offset: 1, Passive: true}} }, "verify: passive data segment 0 has the offset 1 (a passive segment's must be 0)"},
		{"passive elem offset", func(m *Module) { private(m); m.Elems[0].Mode = ElemPassive }, "verify: element segment 0: a segment that is not active has offset 1 and table 0 (both must be 0)"},
		{"elem mode", func(m *Module) { private(m); m.Elems[0].Mode = 3 }, "verify: element segment 0: invalid mode 3"},
		{"elem table", func(m *Module) { private(m); m.Elems[0].Table = 1 }, "verify: element segment 0: table 1 out of range (the module has 1 tables)"},
		{"exported table that changes", func(m *Module) { m.Table.Export = "t"; m.MoreTables = []Table{{Min: 1}} }, "verify: table 0: an imported or exported table in a module whose tables change (see DynamicTables)"},

		// Module parts: the error names the global, segment or table.
		{"elem beyond the table", func(m *Module) { m.Elems[0].Offset = 3 }, "verify: element segment 0 ends at entry 5, beyond the table's 4 entries"},
		{"elem offset overflow", func(m *Module) { m.Elems[0].Offset = math.MaxUint32 }, "verify: element segment 0 ends at entry 4294967297, beyond the table's 4 entries"},
		{"elem function index", func(m *Module) { m.Elems = append(m.Elems, ElemSegment{Funcs: []uint32{0, 9}}) }, "verify: element segment 1: element 1: function 9 out of range (the module has 2 functions)"},
		{"elem without a table", func(m *Module) { m.Table = Table{} }, "verify: element segment 0: the module has no table"},
		{"table max below min", func(m *Module) { m.Table.Max = 2 }, "verify: table maximum of 2 entries is below its minimum of 4"},
		{"table max without HasMax", func(m *Module) { m.Table.HasMax = false }, "verify: table maximum 8 given without HasMax"},
		{"table size limit", func(m *Module) { m.Table.Min, m.Table.Max = MaxTableSize+1, MaxTableSize+1 }, "verify: table minimum of 16777217 entries exceeds the limit of 16777216"},
		{"imported global with Init", func(m *Module) { m.Globals[2].Init = 1 }, "verify: global scale: imported global has the initial value 0x1 (an imported global's Init must be 0)"},
		{"i32 global Init range", func(m *Module) { m.Globals[1].Init = 1 << 32 }, "verify: global limit: initial value 0x100000000 does not fit in 32 bits (the global is i32)"},
		{"f32 global Init range", func(m *Module) { m.Globals[3].Init |= 1 << 63 }, "verify: global ratio: initial value 0x800000003f000000 does not fit in 32 bits (the global is f32)"},
		{"global name", func(m *Module) { m.Globals[1].Name = "1x" }, `verify: global 1: name "1x" is not an identifier`},
		{"duplicate global", func(m *Module) { m.Globals[1].Name = "counter" }, `verify: global 1: duplicate name "counter"`},
		{"global type", func(m *Module) { m.Globals[1].Type = 0 }, "verify: global limit: invalid type type(0)"},
		{"global import name used by a host", func(m *Module) { m.Globals[2].Import = "putc" }, `verify: global scale: import name "putc" is already used by host import putc`},
		{"table import name used by a global", func(m *Module) { m.Table.Import = "env.scale" }, `verify: table: import name "env.scale" is already used by global scale`},
		{"memory import name used by a global", func(m *Module) { m.Memory = Memory{MinPages: 1, MaxPages: 1, Import: "env.scale"} }, `verify: memory: import name "env.scale" is already used by global scale`},
		{"memory import name used by the table", func(m *Module) { m.Table.Import, m.Memory = "env.mem", Memory{Import: "env.mem"} }, `verify: memory: import name "env.mem" is already used by the table`},
		{"memory export name used by the table", func(m *Module) { m.Memory.Export = "table" }, `verify: memory: duplicate export name "table"`},
		{"global export name used by a function", func(m *Module) { m.Globals[0].Export = "main" }, `verify: global counter: duplicate export name "main"`},
		{"table export name used by a global", func(m *Module) { m.Table.Export = "counter" }, `verify: table: duplicate export name "counter"`},
		{"type signature", func(m *Module) { m.Types[1].Params[0] = 9 }, "verify: type 1: invalid parameter type type(9)"},
		{"too many globals", func(m *Module) { m.Globals = make([]Global, MaxGlobals+1) }, "verify: 1048577 globals exceed the limit of 1048576"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tableModule()
			tt.break_(m)
			err := Verify(m)
			if err == nil {
				t.Fatalf("Verify accepted the module; want %q", tt.want)
			}
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is %T, not *VerifyError", err, err)
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n  %v\nwant\n  %s", err, tt.want)
			}
			if strings.HasPrefix(tt.want, "verify: func ") && (ve.Func < 0 || ve.Offset < 0) {
				t.Errorf("error %+v does not locate the instruction", ve)
			}
		})
	}
}

// TestVerifyTableDeclarations checks which tables count as declared.
func TestVerifyTableDeclarations(t *testing.T) {
	for _, tt := range []struct {
		table Table
		has   bool
	}{
		{Table{}, false},
		{Table{Min: 1}, true},
		{Table{HasMax: true}, true},
		{Table{Import: "t"}, true},
		{Table{Export: "t"}, true},
	} {
		m := tableModule()
		m.Table, m.Elems = tt.table, nil
		if got := m.HasTable(); got != tt.has {
			t.Errorf("HasTable(%+v) = %v", tt.table, got)
		}
		if err := Verify(m); (err == nil) != tt.has {
			t.Errorf("Verify with table %+v: %v", tt.table, err)
		}
	}
}

func TestSignatureIDs(t *testing.T) {
	i64, f64, i32 := []Type{I64}, []Type{F64}, []Type{I32}
	m := &Module{
		Types: []Signature{
			{Params: i64, Results: i64}, // 0
			{Params: f64},               // 1
			{Params: i64, Results: i64}, // 0 again
			{Results: f64},              // 2: params and results are not interchangeable
			{Params: []Type{I64, I32}},  // 3
			{Params: []Type{I32, I64}},  // 4: order matters
		},
		Funcs: []*Function{
			{Name: "a", Sig: Signature{Params: f64}},               // 1
			{Name: "b", Sig: Signature{Params: i32, Results: i32}}, // 5: new
			{Name: "c", Sig: Signature{Params: i64, Results: i64}}, // 0
			{Name: "d", Sig: Signature{}},                          // 6
			{Name: "e", Sig: Signature{Params: i32, Results: i32}}, // 5
		},
	}
	funcIDs, typeIDs := m.SignatureIDs()
	if want := []uint32{0, 1, 0, 2, 3, 4}; !slices.Equal(typeIDs, want) {
		t.Errorf("type ids %v, want %v", typeIDs, want)
	}
	if want := []uint32{1, 5, 0, 6, 5}; !slices.Equal(funcIDs, want) {
		t.Errorf("function ids %v, want %v", funcIDs, want)
	}
	// The ids agree with Signature.Equal on random modules.
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		m := randomModule(r)
		funcIDs, typeIDs := m.SignatureIDs()
		if got := m.TypeIDs(); !slices.Equal(got, typeIDs) {
			t.Fatalf("TypeIDs() = %v, SignatureIDs gives %v", got, typeIDs)
		}
		var sigs []Signature
		var ids []uint32
		for i, s := range m.Types {
			sigs, ids = append(sigs, s), append(ids, typeIDs[i])
		}
		for i, f := range m.Funcs {
			sigs, ids = append(sigs, f.Sig), append(ids, funcIDs[i])
		}
		for i := range sigs {
			if int(ids[i]) >= len(sigs) {
				t.Fatalf("id %d of %d signatures is not dense", ids[i], len(sigs))
			}
			for j := range sigs {
				if (ids[i] == ids[j]) != sigs[i].Equal(sigs[j]) {
					t.Fatalf("%s (id %d) and %s (id %d)", sigs[i], ids[i], sigs[j], ids[j])
				}
			}
		}
	}
}

func TestTableFuncs(t *testing.T) {
	m := tableModule()
	if got, want := m.TableFuncs(), []int32{-1, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("TableFuncs = %v, want %v", got, want)
	}
	// Later segments overwrite earlier ones; empty segments add nothing.
	m.Elems = append(m.Elems, ElemSegment{Offset: 2, Funcs: []uint32{1}}, ElemSegment{Offset: 4})
	if got, want := m.TableFuncs(), []int32{-1, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("TableFuncs = %v, want %v", got, want)
	}
	m.Elems = nil
	if got := m.TableFuncs(); len(got) != 0 {
		t.Errorf("TableFuncs without segments = %v", got)
	}
}

func TestCloneCopiesModuleParts(t *testing.T) {
	m := tableModule()
	c := m.Clone()
	if d := textModuleDiff(m, c); d != "" {
		t.Fatal(d)
	}
	c.Globals[0].Init = 99
	c.Types[0].Params[0] = F64
	c.Elems[0].Funcs[0] = 0
	c.Table.Min = 1
	if m.Globals[0].Init != 5 || m.Types[0].Params[0] != I64 || m.Elems[0].Funcs[0] != 1 || m.Table.Min != 4 {
		t.Fatal("Clone shares memory with the original")
	}
}

func TestInstrUsesDefsOfNewFormats(t *testing.T) {
	for _, tt := range []struct {
		in         Instr
		uses, defs []Reg
	}{
		{Instr{Op: OpGlobalGet, Dst: 3, Callee: 1}, nil, []Reg{3}},
		{Instr{Op: OpGlobalSet, A: 4, Callee: 1}, []Reg{4}, nil},
		{Instr{Op: OpCallIndirect, A: 2, Args: []Reg{5, 6}, Results: []Reg{7}}, []Reg{2, 5, 6}, []Reg{7}},
		{Instr{Op: OpUnreachable}, nil, nil},
	} {
		if got := tt.in.Uses(nil); !slices.Equal(got, tt.uses) {
			t.Errorf("%s: uses %v, want %v", tt.in.Op, got, tt.uses)
		}
		if got := tt.in.Defs(nil); !slices.Equal(got, tt.defs) {
			t.Errorf("%s: defs %v, want %v", tt.in.Op, got, tt.defs)
		}
		c := tt.in.Clone()
		if !c.Equal(&tt.in) {
			t.Errorf("%s: clone differs", tt.in.Op)
		}
	}
	if (&Instr{Op: OpUnreachable}).FallsThrough() {
		t.Error("unreachable falls through")
	}
	if (&Instr{Op: OpCallIndirect}).FallsThrough() != true {
		t.Error("call_indirect does not fall through")
	}
}

func TestBuilderGlobalsAndTable(t *testing.T) {
	b := NewModuleBuilder()
	g := b.Global(Global{Name: "g", Type: I64, Mutable: true, Init: 7})
	sig := b.Type([]Type{I64}, []Type{I64})
	double := b.Func("double", []Type{I64}, []Type{I64})
	double.Binary(OpI64Add, 0, 0, 0)
	double.Return(0)
	f := b.Func("f", []Type{I64}, []Type{I64})
	v := f.NewReg(I64)
	f.GlobalGet(v, g)
	f.CallIndirect(sig, f.Param(0), []Reg{v}, []Reg{v})
	f.GlobalSet(g, v)
	f.Return(v)
	dead := b.Func("dead", nil, nil)
	dead.Unreachable()
	b.Table(Table{Min: 2}).Elem(1, double)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if m.Table.Min != 2 || len(m.Elems) != 1 || m.Elems[0].Offset != 1 || !slices.Equal(m.Elems[0].Funcs, []uint32{0}) {
		t.Errorf("table %+v, elems %+v", m.Table, m.Elems)
	}
	if got := m.Funcs[1].Code[1]; got.Op != OpCallIndirect || got.Callee != sig || got.A != 0 {
		t.Errorf("call_indirect = %+v", got)
	}
	if got := m.Funcs[2].Code[0].Op; got != OpUnreachable {
		t.Errorf("dead's instruction is %s", got)
	}
}

func TestTextGlobalsAndTables(t *testing.T) {
	m, err := Assemble([]byte(tableModuleText))
	if err != nil {
		t.Fatal(err)
	}
	if d := textModuleDiff(m, tableModule()); d != "" {
		t.Fatal(d)
	}
	if got := string(textCheckRoundTrip(t, m)); got != tableModuleText {
		t.Fatalf("Disassemble =\n%s\nwant\n%s", got, tableModuleText)
	}
	// Names may be used before their declarations; type names are the
	// source's own, and the optional parts appear in other spellings.
	src := `func f (i32) -> (i64)
  regs i64
  call_indirect binop, r0 (r1, r1) -> (r1)
  global.set g, r1
  ret r1
end
table 0 0 import "t" export "u"
type binop (i64 i64) -> (i64)
global g i64 mut = 0x7fffffffffffffff
global h i32 = 4294967295
global k f64 = -nan
global j f32 mut import "j" export "j"
elem 0
`
	m, err = Assemble([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Global{
		{Name: "g", Type: I64, Mutable: true, Init: math.MaxInt64},
		{Name: "h", Type: I32, Init: math.MaxUint32},
		{Name: "k", Type: F64, Init: textCanonicalNaN | 1<<63},
		{Name: "j", Type: F32, Mutable: true, Import: "j", Export: "j"},
	}
	if !slices.Equal(m.Globals, want) {
		t.Errorf("globals %+v, want %+v", m.Globals, want)
	}
	if m.Table != (Table{HasMax: true, Import: "t", Export: "u"}) || len(m.Elems) != 1 || len(m.Elems[0].Funcs) != 0 {
		t.Errorf("table %+v, elems %+v", m.Table, m.Elems)
	}
	text := string(textCheckRoundTrip(t, m))
	for _, line := range []string{
		"type t0 (i64 i64) -> (i64)\n",
		"global g i64 mut = 9223372036854775807\n",
		"global h i32 = -1\n",
		"global k f64 = nan:0xfff8000000000000\n",
		`global j f32 mut import "j" export "j"` + "\n",
		`table 0 0 import "t" export "u"` + "\n",
		"elem 0\n",
		"  call_indirect t0, r0 (r1, r1) -> (r1)\n",
		"  global.set g, r1\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("canonical text lacks %q:\n%s", line, text)
		}
	}
	// A table of no entries without maximum, import or export is none.
	m, err = Assemble([]byte("table 0\n"))
	if err != nil || m.HasTable() || len(Disassemble(m)) != 0 {
		t.Errorf("table 0: %v, %+v, %q", err, m, Disassemble(m))
	}
}

func TestAssembleGlobalAndTableErrors(t *testing.T) {
	fn := func(body string) string {
		return "global g i64 mut = 0\ntype s () -> ()\ntable 2\nfunc f () -> ()\n  regs i64 f64\n" + body + "\nend\n"
	}
	tests := []struct{ name, src, want string }{
		{"global i32 range", "global g i32 = 4294967296", "line 1: i32 constant 4294967296 out of range"},
		{"global i64 float", "global g i64 = 1.5", `line 1: invalid integer "1.5"`},
		{"global f32 NaN", "global g f32 = nan:0x1", "line 1: nan:0x1 is not an f32 NaN bit pattern"},
		{"global f64 range", "global g f64 = 1e999", "line 1: float 1e999 out of range"},
		{"global without value", "global g i64 mut", `line 1: expected "=" or "import", found end of line`},
		{"global bad type", "global g i8 = 0", `line 1: unknown type "i8" (want i32, i64, f32 or f64)`},
		{"global bad name", "global 9 i64 = 0", `line 1: invalid global name "9"`},
		{"global export without name", "global g i64 = 1 export", "line 1: expected a quoted export name, found end of line"},
		{"global empty export", `global g i64 = 1 export ""`, "line 1: empty export name"},
		{"global empty import", `global g i64 import ""`, "line 1: empty import name"},
		{"global trailing", "global g i64 = 1 2", `line 1: unexpected "2" after the global`},
		{"duplicate global", "global g i64 = 1\nglobal g i32 = 2", `line 2: duplicate global "g" (the first is on line 1)`},
		{"duplicate type", "type t () -> ()\ntype t (i64) -> ()", `line 2: duplicate type "t" (the first is on line 1)`},
		{"type without signature", "type t", `line 1: expected "(", found end of line`},
		{"table 1 export", "table 1\ntable 2 export \"t\"", "table 1: only table 0 may be imported or exported"},
		{"table bad max", "table 1 x", `line 1: invalid maximum table size "x"`},
		{"table trailing", "table 1 2 3", `line 1: unexpected "3" after the table declaration`},
		{"table import twice", `table 1 import "a" import "b"`, `line 1: unexpected "import" after the table declaration`},
		{"elem bad offset", "table 1\nelem x", `line 2: invalid element segment offset "x"`},
		{"elem unknown function", "table 1\nelem 0 nosuch", `line 2: element segment 0: unknown function "nosuch"`},
		{"global inside func", fn("  global h i64 = 0"), `line 6: func f: "global" is not allowed inside a function (missing "end"?)`},
		{"global.get missing", fn("  global.get r0"), "line 6: func f: missing operand: global.get takes rD, GLOBAL"},
		{"global.get unknown", fn("  global.get r0, x\n  ret"), `line 6: func f: unknown global "x"`},
		{"global.set register first", fn("  global.set r0, g\n  ret"), `line 6: func f: expected a register, found "g"`},
		{"global.set unknown", fn("  global.set x, r0\n  ret"), `line 6: func f: unknown global "x"`},
		{"call_indirect unknown type", fn("  call_indirect x, r0 ()\n  ret"), `line 6: func f: unknown type "x"`},
		{"call_indirect missing comma", fn("  call_indirect s r0 ()"), `line 6: func f: expected ",", found "r0"`},
		{"call_indirect missing index", fn("  call_indirect s, ()"), `line 6: func f: expected a register, found "("`},
		{"unreachable operand", fn("  unreachable r0"), "line 6: func f: too many operands: unreachable takes no operands"},
		{"verify global type", fn("  global.get r1, g\n  ret"), "line 6: func f: instruction 0 (global.get): destination register r1 has type f64; global g is i64"},
		{"verify call_indirect index", fn("  call_indirect s, r1 ()\n  ret"), "line 6: func f: instruction 0 (call_indirect): operand A register r1 has type f64, want i32 or i64"},
		{"verify call_indirect without table", "type s () -> ()\nfunc f () -> ()\n  regs i64\n  call_indirect s, r0 ()\n  ret\nend", "line 4: func f: instruction 0 (call_indirect): call_indirect in a module without a table"},
		{"verify elem range", "table 1\nfunc f () -> ()\n  ret\nend\nelem 1 f", "element segment 0 ends at entry 2, beyond the table's 1 entries"},
		{"verify import clash", "host h () -> ()\nglobal g i64 import \"h\"", `global g: import name "h" is already used by host import h`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Assemble([]byte(tt.src))
			if err == nil {
				t.Fatalf("Assemble accepted\n%s", tt.src)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T", err, err)
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n  %s\nwant\n  %s", err, tt.want)
			}
		})
	}
}

// binTableModule is the encoding of tableModule, written by hand.
var binTableModule = binCat(
	"\x00kln\x02",
	"\x00\x00",                           // memory
	"\x00",                               // data
	"\x01\x04putc\x01\x01\x00",           // hosts
	"\x02\x01\x01\x01\x01\x01\x02\x00",   // types (i64) -> (i64), (f64) -> ()
	"\x04",                               // 4 globals
	"\x07counter\x01\x05\x0a\x07counter", // i64, mutable and exported, zigzag(5)
	"\x05limit\x03\x00\x01",              // i32, zigzag(-1)
	"\x05scale\x02\x03\x09env.scale",     // f64, mutable and imported
	"\x05ratio\x04\x00\x00\x00\x00\x3f",  // f32 0.5
	"\x05\x04\x08\x05table",              // table: max, exported; 4, 8
	"\x01\x01\x02\x01\x00",               // elems: at 1, functions 1 and 0
	"\x02",                               // 2 functions
	"\x04main\x01\x01\x01\x01", "\x03\x01\x03\x02", "\x07",
	binOp(OpGlobalGet, false), "\x01\x00",
	binOp(OpGlobalSet, false), "\x00\x00",
	binOp(OpGlobalGet, false), "\x02\x01",
	binOp(OpCallIndirect, false), "\x00\x02\x01\x01\x01\x01",
	binOp(OpBrIf, false), "\x01\x06",
	binOp(OpUnreachable, false),
	binOp(OpReturn, false), "\x01\x01",
	"\x03inc\x01\x01\x01\x01", "\x00", "\x02",
	binOp(OpI64Add, true), "\x00\x00\x02",
	binOp(OpReturn, false), "\x01\x00",
	"\x01\x04main\x00", // exports
)

func TestBinaryVersion2Golden(t *testing.T) {
	got, err := Encode(tableModule())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, binTableModule) {
		t.Fatalf("Encode =\n%x\nwant\n%x", got, binTableModule)
	}
	m, err := Decode(binTableModule)
	if err != nil {
		t.Fatal(err)
	}
	if d := textModuleDiff(m, tableModule()); d != "" {
		t.Fatal(d)
	}
	// A module with none of the version 2 parts, unreachable included, is
	// written as version 1.
	m.Types, m.Globals, m.Table, m.Elems = nil, nil, Table{}, nil
	m.Funcs[0].Code = []Instr{{Op: OpUnreachable}}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if b[4] != 1 {
		t.Fatalf("version %d, want 1", b[4])
	}
	if m2, err := Decode(b); err != nil || !binModulesEqual(m, m2) {
		t.Fatalf("version 1 round trip: %v", err)
	}
	// Every table declaration round-trips.
	for _, tb := range []Table{{HasMax: true}, {Import: "i"}, {Export: "e"}, {Min: 3, Max: 3, HasMax: true, Import: "i", Export: "e"}} {
		m := tableModule()
		m.Table, m.Elems = tb, nil
		m.Funcs[0].Code[3].A = 1 // i64 index
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if m2, err := Decode(b); err != nil || m2.Table != tb {
			t.Fatalf("table %+v: %v, %+v", tb, err, m2)
		}
	}
	// An imported memory round-trips with and without a table, and makes
	// a module that has nothing else of version 2 a version 2 module.
	for _, tb := range []Table{{}, {Min: 3, Import: "i", Export: "e"}} {
		m := tableModule()
		m.Table, m.Elems = tb, nil
		m.Funcs[0].Code[3].A = 1
		m.Memory = Memory{MinPages: 1, MaxPages: 3, Import: "env.memory", Export: "memory"}
		if tb == (Table{}) {
			m.Types, m.Globals, m.Funcs[0].Code = nil, nil, []Instr{{Op: OpUnreachable}}
		}
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if b[4] != 2 {
			t.Fatalf("memory import with table %+v: version %d, want 2", tb, b[4])
		}
		m2, err := Decode(b)
		if err != nil || m2.Memory != m.Memory || m2.Table != tb {
			t.Fatalf("memory import with table %+v: %v, %+v", tb, err, m2)
		}
		text := Disassemble(m)
		if !bytes.Contains(text, []byte(`memory 1 3 import "env.memory" export "memory"`)) {
			t.Fatalf("disassembly lacks the memory import:\n%s", text)
		}
		m3, err := Assemble(text)
		if err != nil || m3.Memory != m.Memory {
			t.Fatalf("text round trip of a memory import: %v, %+v", err, m3)
		}
	}
}

func TestBinaryVersion2DecodeErrors(t *testing.T) {
	// header2 is a version 2 module up to its types: no memory, data or
	// hosts.
	header2 := binCat("\x00kln\x02", binU(0, 0, 0, 0))
	noTable := "\x00\x00"
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"no version 2 parts", binCat(header2, binU(0, 0), noTable, binU(0, 0, 0)), "decode: byte 9: version 2 module without types, globals, table, element segments or memory import or export (it must be written as version 1)"},
		{"type count limit", binCat(header2, binU(MaxTypes+1)), "decode: byte 9: type count 1048577 exceeds the limit of 1048576"},
		{"type count vs remaining", binCat(header2, binU(3), "\x00\x00"), "decode: byte 9: type count 3 is too large for the 2 remaining bytes"},
		{"type byte", binCat(header2, binU(1, 1), "\x07"), "decode: byte 11: type 0: parameter type: unknown type byte 7"},
		{"global count limit", binCat(header2, binU(0), binU(MaxGlobals+1)), "decode: byte 10: global count 1048577 exceeds the limit of 1048576"},
		{"global type", binCat(header2, binU(0, 1, 1), "g\x09\x00"), "decode: byte 13: global 0: type: unknown type byte 9"},
		{"global flags", binCat(header2, binU(0, 1, 1), "g\x01\x08"), "decode: byte 14: global 0: unknown flags 0x8"},
		{"global empty import", binCat(header2, binU(0, 1, 1), "g\x01\x02\x00"), "decode: byte 15: global 0: empty import name"},
		{"global empty export", binCat(header2, binU(0, 1, 1), "g\x01\x04\x00\x00"), "decode: byte 16: global 0: empty export name"},
		{"global i32 range", binCat(header2, binU(0, 1, 1), "g\x03\x00", binS(math.MaxInt32+1)), "decode: byte 15: global 0: i32 initial value 2147483648 is not in the int32 range"},
		{"global f32 truncated", binCat(header2, binU(0, 1, 1), "g\x04\x00\x00\x00\x00"), "decode: byte 15: global 0: f32 initial value: unexpected end of input"},
		{"global f64 truncated", binCat(header2, binU(0, 1, 1), "g\x02\x00\x00"), "decode: byte 15: global 0: f64 initial value: unexpected end of input"},
		{"global i64 overlong", binCat(header2, binU(0, 1, 1), "g\x01\x00\x80\x00"), "decode: byte 15: global 0: initial value: non-minimal varint encoding"},
		{"table flags", binCat(header2, binU(0, 0), "\x20\x00"), "decode: byte 11: table 0: unknown flags 0x20"},
		{"table truncated", binCat(header2, binU(0, 0)), "decode: byte 11: table 0: flags: unexpected end of input"},
		{"table max overflow", binCat(header2, binU(0, 0), "\x01\x00", binU(1<<32)), "decode: byte 13: table 0: maximum size 4294967296 does not fit in 32 bits"},
		{"table empty export", binCat(header2, binU(0, 0), "\x04\x00\x00"), "decode: byte 13: table 0: empty export name"},
		{"elem count vs remaining", binCat(header2, binU(0, 0), noTable, binU(5), "\x00\x00"), "decode: byte 13: element segment count 5 is too large for the 2 remaining bytes"},
		{"elem function count limit", binCat(header2, binU(0, 0), noTable, binU(1, 0), binU(MaxTableSize+1)), "decode: byte 15: element segment 0: function count 16777217 exceeds the limit of 16777216"},
		{"elem function overflow", binCat(header2, binU(0, 0), noTable, binU(1, 0, 1), binU(1<<32)), "decode: byte 16: element segment 0: element 0 function index 4294967296 does not fit in 32 bits"},
		{"global.get callee overflow", binCat(binTableModule[:bytes.Index(binTableModule, []byte("\x04main\x01"))], "\x04main\x01\x01\x01\x01\x00\x01", binOp(OpGlobalGet, false), "\x00", binU(1<<32)), "instruction 0: global 4294967296 does not fit in 32 bits"},
		{"call_indirect truncated", binCat(binTableModule[:bytes.Index(binTableModule, []byte("\x04main\x01"))], "\x04main\x01\x01\x01\x01\x00\x01", binOp(OpCallIndirect, false), "\x00\x00"), "instruction 0: argument count: unexpected end of input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			binNoPanic(t, tt.input, "Decode", func() { _, err = Decode(tt.input) })
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%x) = %v, want a *DecodeError", tt.input, err)
			}
			if got := err.Error(); got != tt.want && !(strings.HasPrefix(tt.want, "instruction") && strings.HasSuffix(got, tt.want)) {
				t.Fatalf("Decode(%x) error\n  %s\nwant\n  %s", tt.input, got, tt.want)
			}
		})
	}
}

// TestBinaryVersion2Limits checks that huge counts in the new sections fail
// without allocating for them.
func TestBinaryVersion2Limits(t *testing.T) {
	header2 := binCat("\x00kln\x02", binU(0, 0, 0, 0))
	huge := binU(1<<62, 0, 0, 0)
	inputs := [][]byte{
		binCat(header2, huge),
		binCat(header2, binU(0), huge),
		binCat(header2, binU(0, 0), "\x00\x00", huge),
		binCat(header2, binU(0, 0), "\x00\x00", binU(1, 0), binU(MaxTableSize), "\x00\x00"),
	}
	for _, b := range inputs {
		var de *DecodeError
		if _, err := Decode(b); !errors.As(err, &de) || !strings.Contains(de.Msg, "too large for the") && !strings.Contains(de.Msg, "exceeds the limit") {
			t.Errorf("Decode(%x) = %v, want an error about a count", b, err)
		}
	}
}
