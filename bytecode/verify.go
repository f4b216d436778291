package bytecode

import (
	"fmt"
	"math"
)

// Limits on module shapes. They keep a hostile module from making kiln
// allocate without bound before it runs a single instruction.
const (
	MaxRegs        = 1 << 20 // registers per function
	MaxParams      = 256     // parameters (and, separately, results) per signature
	MaxCode        = 1 << 24 // instructions per function
	MaxSwitchTable = 1 << 16 // entries in one switch table
	MaxFuncs       = 1 << 20 // functions per module
	MaxHosts       = 1 << 16 // host imports per module
	MaxGlobals     = 1 << 20 // globals per module
	MaxTypes       = 1 << 20 // signatures in Module.Types
	MaxTableSize   = 1 << 24 // entries of a table (its minimum size, and the most table.grow reaches)
	MaxTables      = 1 << 10 // tables per module
)

// VerifyError reports the first rule a module breaks. Func and Offset locate
// it: Func is -1 for module-level errors, Offset is -1 for errors about a
// function as a whole.
type VerifyError struct {
	Func     int
	FuncName string
	Offset   int
	Op       Op
	Msg      string
}

// Error formats the error with its location, for example
// "verify: func fib: instruction 3 (i64.add): register r9 out of range".
func (e *VerifyError) Error() string {
	switch {
	case e.Func < 0:
		return "verify: " + e.Msg
	case e.Offset < 0:
		return fmt.Sprintf("verify: func %s: %s", e.funcLabel(), e.Msg)
	}
	return fmt.Sprintf("verify: func %s: instruction %d (%s): %s", e.funcLabel(), e.Offset, e.Op, e.Msg)
}

func (e *VerifyError) funcLabel() string {
	if e.FuncName != "" {
		return e.FuncName
	}
	return fmt.Sprintf("#%d", e.Func)
}

// Verify checks that m is well formed: every register index, type, branch
// target, callee, global and signature is valid, unused instruction fields
// are zero, control cannot fall off the end of a function, names are
// identifiers and unique, and memory, data, globals, the table, element
// segments, imports and exports are consistent. Code after a terminator
// that no branch reaches is allowed. Verify returns the first problem it
// finds as a *VerifyError.
func Verify(m *Module) error {
	if m == nil {
		return &VerifyError{Func: -1, Msg: "nil module"}
	}
	modErr := func(format string, args ...any) error {
		return &VerifyError{Func: -1, Offset: -1, Msg: fmt.Sprintf(format, args...)}
	}
	if m.Memory.MaxPages > MaxPages {
		return modErr("memory maximum %d pages exceeds the limit of %d", m.Memory.MaxPages, MaxPages)
	}
	if m.Memory.MinPages > m.Memory.MaxPages {
		return modErr("memory minimum %d pages exceeds its maximum %d", m.Memory.MinPages, m.Memory.MaxPages)
	}
	memBytes := uint64(m.Memory.MinPages) * PageSize
	for i, d := range m.Data {
		if d.Passive {
			if d.Offset != 0 {
				return modErr("passive data segment %d has the offset %d (a passive segment's must be 0)", i, d.Offset)
			}
			continue
		}
		if end := uint64(d.Offset) + uint64(len(d.Bytes)); end > memBytes {
			return modErr("data segment %d ends at byte %d, beyond the initial memory of %d bytes", i, end, memBytes)
		}
	}
	if len(m.Hosts) > MaxHosts {
		return modErr("%d host imports exceed the limit of %d", len(m.Hosts), MaxHosts)
	}
	if len(m.Funcs) > MaxFuncs {
		return modErr("%d functions exceed the limit of %d", len(m.Funcs), MaxFuncs)
	}
	if len(m.Globals) > MaxGlobals {
		return modErr("%d globals exceed the limit of %d", len(m.Globals), MaxGlobals)
	}
	if len(m.Types) > MaxTypes {
		return modErr("%d types exceed the limit of %d", len(m.Types), MaxTypes)
	}
	hostNames := make(map[string]bool, len(m.Hosts))
	for i, h := range m.Hosts {
		if !IsIdentifier(h.Name) {
			return modErr("host import %d: name %q is not an identifier", i, h.Name)
		}
		if hostNames[h.Name] {
			return modErr("host import %d: duplicate name %q", i, h.Name)
		}
		hostNames[h.Name] = true
		if err := checkSignature(h.Sig); err != nil {
			return modErr("host import %s: %v", h.Name, err)
		}
	}
	if err := verifyModuleParts(m); err != nil {
		return err
	}
	funcNames := make(map[string]bool, len(m.Funcs))
	for i, f := range m.Funcs {
		if f == nil {
			return modErr("function %d is nil", i)
		}
		if !IsIdentifier(f.Name) {
			return &VerifyError{Func: i, Offset: -1, Msg: fmt.Sprintf("name %q is not an identifier", f.Name)}
		}
		if funcNames[f.Name] {
			return &VerifyError{Func: i, FuncName: f.Name, Offset: -1, Msg: "duplicate function name"}
		}
		funcNames[f.Name] = true
	}
	for i, f := range m.Funcs {
		if err := verifyFunc(m, i, f); err != nil {
			return err
		}
	}
	exportNames := make(map[string]bool, len(m.Exports))
	for i, e := range m.Exports {
		if e.Name == "" {
			return modErr("export %d has an empty name", i)
		}
		if exportNames[e.Name] {
			return modErr("duplicate export name %q", e.Name)
		}
		exportNames[e.Name] = true
		if int(e.Func) >= len(m.Funcs) {
			return modErr("export %q refers to function %d; the module has %d", e.Name, e.Func, len(m.Funcs))
		}
	}
	for i := range m.Globals {
		g := &m.Globals[i]
		if g.Export == "" {
			continue
		}
		if exportNames[g.Export] {
			return modErr("global %s: duplicate export name %q", g.Name, g.Export)
		}
		exportNames[g.Export] = true
	}
	if e := m.Table.Export; e != "" && m.HasTable() {
		if exportNames[e] {
			return modErr("table: duplicate export name %q", e)
		}
		exportNames[e] = true
	}
	if e := m.Memory.Export; e != "" && exportNames[e] {
		return modErr("memory: duplicate export name %q", e)
	}
	return nil
}

// verifyModuleParts checks the types, globals, table, element segments
// and import names of m.
func verifyModuleParts(m *Module) error {
	modErr := func(format string, args ...any) error {
		return &VerifyError{Func: -1, Offset: -1, Msg: fmt.Sprintf(format, args...)}
	}
	for i, s := range m.Types {
		if err := checkSignature(s); err != nil {
			return modErr("type %d: %v", i, err)
		}
	}
	// Import names are unique across kinds: the embedder supplies every
	// import in one table keyed by name.
	imports := make(map[string]string, len(m.Hosts))
	for _, h := range m.Hosts {
		imports[h.Name] = "host import " + h.Name
	}
	globalNames := make(map[string]bool, len(m.Globals))
	for i := range m.Globals {
		g := &m.Globals[i]
		if !IsIdentifier(g.Name) {
			return modErr("global %d: name %q is not an identifier", i, g.Name)
		}
		if globalNames[g.Name] {
			return modErr("global %d: duplicate name %q", i, g.Name)
		}
		globalNames[g.Name] = true
		if !g.Type.Valid() {
			return modErr("global %s: invalid type %s", g.Name, g.Type)
		}
		if g.Import != "" {
			if g.Init != 0 {
				return modErr("global %s: imported global has the initial value %#x (an imported global's Init must be 0)", g.Name, g.Init)
			}
			if prev, dup := imports[g.Import]; dup {
				return modErr("global %s: import name %q is already used by %s", g.Name, g.Import, prev)
			}
			imports[g.Import] = "global " + g.Name
		}
		if g.Type.Is32() && g.Init > math.MaxUint32 {
			return modErr("global %s: initial value %#x does not fit in 32 bits (the global is %s)", g.Name, g.Init, g.Type)
		}
	}
	if len(m.MoreTables) > 0 && !m.HasTable() {
		return modErr("tables 1..%d without a table 0", len(m.MoreTables))
	}
	if len(m.MoreTables) > MaxTables-1 {
		return modErr("%d tables exceed the limit of %d", 1+len(m.MoreTables), MaxTables)
	}
	for ti := range 1 + len(m.MoreTables) {
		t := m.TableAt(uint32(ti))
		name := "table"
		if ti > 0 {
			name = fmt.Sprintf("table %d", ti)
		}
		if t.Min > MaxTableSize {
			return modErr("%s minimum of %d entries exceeds the limit of %d", name, t.Min, MaxTableSize)
		}
		if t.HasMax && t.Max < t.Min {
			return modErr("%s maximum of %d entries is below its minimum of %d", name, t.Max, t.Min)
		}
		if !t.HasMax && t.Max != 0 {
			return modErr("%s maximum %d given without HasMax", name, t.Max)
		}
		if ti > 0 && (t.Import != "" || t.Export != "") {
			return modErr("table %d: only table 0 may be imported or exported", ti)
		}
		if t.Extern && (t.Import != "" || t.Export != "") {
			return modErr("table %d: a table of external references may not be imported or exported", ti)
		}
		if (t.Import != "" || t.Export != "") && m.DynamicTables() {
			return modErr("table %d: an imported or exported table in a module whose tables change (see DynamicTables)", ti)
		}
		if t.Import != "" {
			if prev, dup := imports[t.Import]; dup {
				return modErr("table: import name %q is already used by %s", t.Import, prev)
			}
			imports[t.Import] = "the table"
		}
	}
	if mi := m.Memory.Import; mi != "" {
		if prev, dup := imports[mi]; dup {
			return modErr("memory: import name %q is already used by %s", mi, prev)
		}
	}
	for i, e := range m.Elems {
		if len(e.Funcs) > MaxTableSize {
			return modErr("element segment %d: %d elements exceed the limit of %d", i, len(e.Funcs), MaxTableSize)
		}
		switch e.Mode {
		case ElemActive:
			if !m.HasTable() {
				return modErr("element segment %d: the module has no table", i)
			}
			if int(e.Table) >= m.NumTables() {
				return modErr("element segment %d: table %d out of range (the module has %d tables)", i, e.Table, m.NumTables())
			}
			t := m.TableAt(e.Table)
			if end := uint64(e.Offset) + uint64(len(e.Funcs)); end > uint64(t.Min) {
				return modErr("element segment %d ends at entry %d, beyond the table's %d entries", i, end, t.Min)
			}
		case ElemPassive, ElemDeclarative:
			if e.Offset != 0 || e.Table != 0 {
				return modErr("element segment %d: a segment that is not active has offset %d and table %d (both must be 0)", i, e.Offset, e.Table)
			}
		default:
			return modErr("element segment %d: invalid mode %d", i, e.Mode)
		}
		for k, f := range e.Funcs {
			if f == NullFunc {
				continue
			}
			if int(f) >= len(m.Funcs) {
				return modErr("element segment %d: element %d: function %d out of range (the module has %d functions)", i, k, f, len(m.Funcs))
			}
		}
	}
	return nil
}

func checkSignature(s Signature) error {
	if len(s.Params) > MaxParams || len(s.Results) > MaxParams {
		return fmt.Errorf("signature %s has more than %d parameters or results", s, MaxParams)
	}
	for _, t := range s.Params {
		if !t.Valid() {
			return fmt.Errorf("invalid parameter type %s", t)
		}
	}
	for _, t := range s.Results {
		if !t.Valid() {
			return fmt.Errorf("invalid result type %s", t)
		}
	}
	return nil
}

type funcVerifier struct {
	m   *Module
	idx int
	f   *Function
	pc  int
	in  *Instr
}

func (v *funcVerifier) errf(format string, args ...any) error {
	e := &VerifyError{Func: v.idx, FuncName: v.f.Name, Offset: v.pc, Msg: fmt.Sprintf(format, args...)}
	if v.in != nil {
		e.Op = v.in.Op
	} else {
		e.Offset = -1
	}
	return e
}

func verifyFunc(m *Module, idx int, f *Function) error {
	v := &funcVerifier{m: m, idx: idx, f: f, pc: -1}
	if err := checkSignature(f.Sig); err != nil {
		return v.errf("%v", err)
	}
	if len(f.Regs) > MaxRegs {
		return v.errf("%d registers exceed the limit of %d", len(f.Regs), MaxRegs)
	}
	if len(f.Regs) < len(f.Sig.Params) {
		return v.errf("%d registers cannot hold %d parameters", len(f.Regs), len(f.Sig.Params))
	}
	for i, t := range f.Regs {
		if !t.Valid() {
			return v.errf("register r%d has invalid type %s", i, t)
		}
		if i < len(f.Sig.Params) && t != f.Sig.Params[i] {
			return v.errf("register r%d has type %s but parameter %d is %s", i, t, i, f.Sig.Params[i])
		}
	}
	if len(f.Code) == 0 {
		return v.errf("function has no code")
	}
	if len(f.Code) > MaxCode {
		return v.errf("%d instructions exceed the limit of %d", len(f.Code), MaxCode)
	}
	for pc := range f.Code {
		v.pc, v.in = pc, &f.Code[pc]
		if err := v.instr(); err != nil {
			return err
		}
	}
	if last := &f.Code[len(f.Code)-1]; last.FallsThrough() {
		v.pc, v.in = len(f.Code)-1, last
		return v.errf("control falls off the end of the function (the last instruction must be jump, switch, ret, trap or unreachable)")
	}
	return nil
}

// reg checks that register r exists and has type want (AnyType: any type,
// returned for the caller to compare; IntType: i32 or i64).
func (v *funcVerifier) reg(what string, r Reg, want Type) (Type, error) {
	if int(r) >= len(v.f.Regs) {
		return 0, v.errf("%s register r%d out of range (the function has %d registers)", what, r, len(v.f.Regs))
	}
	got := v.f.Regs[r]
	switch {
	case want == IntType && !got.IsInt():
		return 0, v.errf("%s register r%d has type %s, want i32 or i64", what, r, got)
	case want != AnyType && want != IntType && got != want:
		return 0, v.errf("%s register r%d has type %s, want %s", what, r, got, want)
	}
	return got, nil
}

func (v *funcVerifier) target(what string, t uint32) error {
	if int(t) >= len(v.f.Code) {
		return v.errf("%s target %d out of range (the function has %d instructions)", what, t, len(v.f.Code))
	}
	return nil
}

func (v *funcVerifier) instr() error {
	in := v.in
	if !in.Op.Valid() {
		return v.errf("invalid opcode %d", uint16(in.Op))
	}
	info := in.Op.Info()
	f := info.Format

	// Fields an opcode does not use must be zero.
	usesDst := f == FormatConst || f == FormatUnary || f == FormatBinary || f == FormatSelect ||
		f == FormatLoad || f == FormatMemorySize || f == FormatGlobalGet || f == FormatRefFunc ||
		f == FormatTableGet || f == FormatTableSize || f == FormatTableGrow
	usesA := f == FormatUnary || f == FormatBinary || f == FormatSelect || f == FormatLoad ||
		f == FormatStore || f == FormatBranch || f == FormatCmpBranch || f == FormatSwitch ||
		f == FormatGlobalSet || f == FormatCallIndirect || f == FormatMemoryBulk || f == FormatSegmentBulk ||
		f == FormatTableGet || f == FormatTableSet || f == FormatTableGrow || f == FormatTableFill || f == FormatTableBulk
	usesC := f == FormatSelect || f == FormatMemoryBulk || f == FormatSegmentBulk || f == FormatTableFill || f == FormatTableBulk
	usesCallee := f == FormatCall || f == FormatGlobalGet || f == FormatGlobalSet || f == FormatCallIndirect ||
		f == FormatSegmentBulk || f == FormatSegment || f == FormatRefFunc || f == FormatTableGet ||
		f == FormatTableSet || f == FormatTableSize || f == FormatTableGrow || f == FormatTableFill || f == FormatTableBulk
	usesArgs := f == FormatCall || f == FormatReturn || f == FormatCallIndirect
	usesResults := f == FormatCall || f == FormatCallIndirect
	usesB := f == FormatBinary || f == FormatSelect || f == FormatStore || f == FormatCmpBranch ||
		f == FormatMemoryBulk || f == FormatSegmentBulk || f == FormatTableSet || f == FormatTableGrow ||
		f == FormatTableFill || f == FormatTableBulk
	usesImm := f == FormatConst || f == FormatLoad || f == FormatStore || f == FormatTrap ||
		(info.Imm && in.UseImm) || f == FormatTableBulk || f == FormatCallIndirect
	switch {
	case !usesDst && in.Dst != 0:
		return v.errf("stray destination register r%d", in.Dst)
	case !usesA && in.A != 0:
		return v.errf("stray operand register r%d in field A", in.A)
	case (!usesB || in.UseImm) && in.B != 0:
		return v.errf("stray operand register r%d in field B", in.B)
	case !usesC && in.C != 0:
		return v.errf("stray operand register r%d in field C", in.C)
	case in.UseImm && !info.Imm:
		return v.errf("%s takes no immediate operand", in.Op)
	case !usesImm && in.Imm != 0:
		return v.errf("stray immediate %d", in.Imm)
	case !info.Branch && in.Target != 0:
		return v.errf("stray branch target %d", in.Target)
	case in.Op != OpSwitch && len(in.Table) != 0:
		return v.errf("stray switch table")
	case !usesCallee && in.Callee != 0:
		return v.errf("stray callee %d", in.Callee)
	case !usesArgs && len(in.Args) != 0:
		return v.errf("stray argument list")
	case !usesResults && len(in.Results) != 0:
		return v.errf("stray result list")
	}

	var err error
	var dstType Type
	if usesDst {
		if dstType, err = v.reg("destination", in.Dst, info.Dst); err != nil {
			return err
		}
	}
	want := func(t Type) Type {
		if t == AnyType && usesDst {
			return dstType
		}
		return t
	}
	if usesA {
		if _, err = v.reg("operand A", in.A, want(info.A)); err != nil {
			return err
		}
	}
	if usesB && !in.UseImm {
		if _, err = v.reg("operand B", in.B, want(info.B)); err != nil {
			return err
		}
	}
	if usesC {
		if _, err = v.reg("operand C", in.C, want(info.C)); err != nil {
			return err
		}
	}

	switch {
	case in.Op == OpF32Const && (in.Imm < 0 || in.Imm > math.MaxUint32):
		return v.errf("f32 constant bits %#x do not fit in 32 bits", in.Imm)
	case (in.Op == OpI32Const || in.UseImm && info.A == I32) && (in.Imm < math.MinInt32 || in.Imm > math.MaxInt32):
		return v.errf("i32 immediate %d is not in the int32 range", in.Imm)
	}
	switch f {
	case FormatLoad, FormatStore:
		if in.Imm < math.MinInt32 || in.Imm > math.MaxInt32 {
			return v.errf("memory offset %d does not fit in 32 bits", in.Imm)
		}
	case FormatJump, FormatBranch, FormatCmpBranch:
		return v.target("branch", in.Target)
	case FormatSwitch:
		if len(in.Table) > MaxSwitchTable {
			return v.errf("switch table of %d entries exceeds the limit of %d", len(in.Table), MaxSwitchTable)
		}
		for i, t := range in.Table {
			if err := v.target(fmt.Sprintf("switch case %d", i), t); err != nil {
				return err
			}
		}
		return v.target("switch default", in.Target)
	case FormatSegmentBulk, FormatSegment:
		if in.Op == OpElemDrop {
			return v.elemSegment(in.Callee)
		}
		if int(in.Callee) >= len(v.m.Data) {
			return v.errf("data segment %d out of range (the module has %d)", in.Callee, len(v.m.Data))
		}
	case FormatRefFunc:
		if int(in.Callee) >= len(v.m.Funcs) {
			return v.errf("function %d out of range (the module has %d functions)", in.Callee, len(v.m.Funcs))
		}
	case FormatTableGet, FormatTableSet, FormatTableSize, FormatTableGrow, FormatTableFill:
		return v.table(uint64(in.Callee))
	case FormatTableBulk:
		if in.Op == OpTableInit {
			if err := v.elemSegment(in.Callee); err != nil {
				return err
			}
			return v.table(uint64(in.Imm))
		}
		if err := v.table(uint64(in.Callee)); err != nil {
			return err
		}
		return v.table(uint64(in.Imm))
	case FormatGlobalGet, FormatGlobalSet:
		if int(in.Callee) >= len(v.m.Globals) {
			return v.errf("global %d out of range (the module has %d globals)", in.Callee, len(v.m.Globals))
		}
		g := &v.m.Globals[in.Callee]
		what, r := "destination", in.Dst
		if f == FormatGlobalSet {
			if !g.Mutable {
				return v.errf("global %s is constant (not mutable)", g.Name)
			}
			what, r = "operand A", in.A
		}
		if t := v.f.Regs[r]; t != g.Type {
			return v.errf("%s register r%d has type %s; global %s is %s", what, r, t, g.Name, g.Type)
		}
	case FormatCall, FormatCallIndirect:
		var sig Signature
		switch in.Op {
		case OpCall:
			if int(in.Callee) >= len(v.m.Funcs) {
				return v.errf("callee %d out of range (the module has %d functions)", in.Callee, len(v.m.Funcs))
			}
			sig = v.m.Funcs[in.Callee].Sig
		case OpCallHost:
			if int(in.Callee) >= len(v.m.Hosts) {
				return v.errf("host import %d out of range (the module has %d host imports)", in.Callee, len(v.m.Hosts))
			}
			sig = v.m.Hosts[in.Callee].Sig
		default:
			if !v.m.HasTable() {
				return v.errf("call_indirect in a module without a table")
			}
			if err := v.table(uint64(in.Imm)); err != nil {
				return err
			}
			if v.m.TableAt(uint32(in.Imm)).Extern {
				return v.errf("call_indirect through table %d, a table of external references", in.Imm)
			}
			if int(in.Callee) >= len(v.m.Types) {
				return v.errf("signature %d out of range (the module has %d types)", in.Callee, len(v.m.Types))
			}
			sig = v.m.Types[in.Callee]
		}
		if len(in.Args) != len(sig.Params) {
			return v.errf("%d arguments for a callee with signature %s", len(in.Args), sig)
		}
		for i, r := range in.Args {
			if _, err := v.reg(fmt.Sprintf("argument %d", i), r, sig.Params[i]); err != nil {
				return err
			}
		}
		if len(in.Results) != len(sig.Results) {
			return v.errf("%d result registers for a callee with signature %s", len(in.Results), sig)
		}
		for i, r := range in.Results {
			if _, err := v.reg(fmt.Sprintf("result %d", i), r, sig.Results[i]); err != nil {
				return err
			}
			for _, prev := range in.Results[:i] {
				if prev == r {
					return v.errf("register r%d receives two results", r)
				}
			}
		}
	case FormatReturn:
		if len(in.Args) != len(v.f.Sig.Results) {
			return v.errf("returns %d values; the function's signature is %s", len(in.Args), v.f.Sig)
		}
		for i, r := range in.Args {
			if _, err := v.reg(fmt.Sprintf("return value %d", i), r, v.f.Sig.Results[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// table checks that table t exists.
func (v *funcVerifier) table(t uint64) error {
	if t >= uint64(v.m.NumTables()) {
		return v.errf("table %d out of range (the module has %d tables)", t, v.m.NumTables())
	}
	return nil
}

// elemSegment checks that element segment e exists.
func (v *funcVerifier) elemSegment(e uint32) error {
	if int(e) >= len(v.m.Elems) {
		return v.errf("element segment %d out of range (the module has %d)", e, len(v.m.Elems))
	}
	return nil
}

// IsIdentifier reports whether s is a valid function, host import or global
// name: a letter or '_' followed by letters, digits, '_' and '.'.
func IsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '.')) {
			return false
		}
	}
	return true
}
