package bytecode

// The binary form of kiln bytecode.
//
// Numbers. A "uvarint" is an unsigned LEB128 number as written by
// encoding/binary.AppendUvarint: seven bits per byte, least significant group
// first, the high bit set on every byte but the last. A "varint" is a signed
// int64 in zigzag form as written by encoding/binary.AppendVarint: x >= 0 is
// the uvarint 2x and x < 0 the uvarint -2x-1 (so 0, -1, 1, -2, ... become 0,
// 1, 2, 3, ...). Every uvarint and varint must use the fewest bytes that
// encode its value: an encoding whose last byte is 0x00 (other than the
// single byte 0x00) is rejected, and so is one that does not fit in 64 bits.
// Registers, branch targets, callees (function, host import, signature and
// global indices), page counts, table sizes, data and element segment
// offsets and function indices are uvarints that must fit in 32 bits;
// counts are uvarints bounded by the limits in verify.go and by the input
// that remains.
//
// Grammar ({...} is a repetition, as many times as the preceding count
// says; "byte" is one raw byte):
//
//	module    = magic 0x01 memory data hosts funcs exports
//	          | magic 0x02 memory data hosts types globals table elems
//	            funcs exports
//	          | magic 0x03 memory data hosts types globals table elems
//	            segments funcs exports
//	magic     = 0x00 'k' 'l' 'n'
//	memory    = uvarint(MinPages) uvarint(MaxPages)
//	data      = uvarint(count) {uvarint(Offset) uvarint(len) {byte}}
//	hosts     = uvarint(count) {string(Name) sig}
//	types     = uvarint(count) {sig}
//	globals   = uvarint(count) {global}
//	global    = string(Name) type byte(flags) [init] [string(Import)]
//	            [string(Export)]
//	table     = byte(flags) uvarint(Min) [uvarint(Max)] [string(Import)]
//	            [string(Export)] [string(MemoryImport)] [string(MemoryExport)]
//	elems     = uvarint(count) {uvarint(Offset) uvarint(n) {uvarint(Func)}}
//	segments  = uvarint(count) {uvarint(index)}   (the passive data segments)
//	            byte(table 0 flags) uvarint(ntables) {table1}
//	            {byte(Mode) uvarint(Table)}    (one per element segment)
//	table1    = byte(flags) uvarint(Min) [uvarint(Max)]
//	funcs     = uvarint(count) {func}
//	func      = string(Name) sig uvarint(nregs) {type} uvarint(ncode) {instr}
//	exports   = uvarint(count) {string(Name) uvarint(Func)}
//	string    = uvarint(len) {byte}
//	sig       = uvarint(nparams) {type} uvarint(nresults) {type}
//	type      = 0x01 (i64) | 0x02 (f64) | 0x03 (i32) | 0x04 (f32)
//	instr     = uvarint(Op<<1 | UseImm) operands
//
// The version byte selects the layout: a module without types, globals,
// table, element segments, memory import and memory export is written as version 1 (the
// layout from before those parts existed, so older encodings still
// decode), any other as version 2, and a version 2 module must have at
// least one of them.
//
// Version 3 adds the segments part: the indices of the passive data
// segments in increasing order, table 0's flags (0x02: Extern), the
// tables beyond table 0 (flags 0x01 HasMax and 0x02 Extern) and each
// element segment's mode and table. A module that has any of these (a
// passive data segment, a table of external references, several tables,
// an element segment that is not active or not of table 0) is written as
// version 3, and a version 3 module must have one.
//
// A global's flags are 0x01 (Mutable), 0x02 (imported: string(Import)
// follows) and 0x04 (exported: string(Export) follows); no other bit may
// be set, and Import and Export are not empty when their bit is set. A
// global that is not imported has its init: for i64 the varint of
// int64(Init); for i32 the varint of int32(Init), which must lie in the
// int32 range; for f64 the 8 bytes and for f32 the 4 bytes of Init,
// little-endian. An imported global has no init (its Init is 0). The
// table's flags are 0x01 (HasMax: uvarint(Max) follows), 0x02 (imported)
// and 0x04 (exported), likewise; a module without a table writes flags 0
// and Min 0. The table's flags byte also carries the memory's: 0x08 when
// it is imported and 0x10 when it is exported, its import and export
// names (Memory.Import, Memory.Export) following the table's. (A module
// with an imported or exported memory is written as version 2.)
//
// A function's nregs counts the registers beyond its parameters: the types
// of registers len(Sig.Params) .. len(Regs)-1. The registers that hold the
// parameters are not written; they have the parameter types.
//
// The UseImm bit may only be set for opcodes whose OpInfo.Imm is true (the
// i64 binary operations, i64 comparisons and compare-and-branches), and
// for call_indirect, where it says that uvarint(Imm), the table index
// (not 0), follows the callee. The
// operands of an instruction follow its opcode's Format; R is a register
// (uvarint), T a branch target (uvarint) and I a varint:
//
//	FormatConst       R(Dst) then, for i64.const, I(Imm); for f64.const,
//	                  the 8 bytes of uint64(Imm), little-endian
//	FormatUnary       R(Dst) R(A)
//	FormatBinary      R(Dst) R(A) then I(Imm) if UseImm, else R(B)
//	FormatSelect      R(Dst) R(A) R(B) R(C)
//	FormatLoad        R(Dst) R(A) I(Imm)
//	FormatStore       R(A) R(B) I(Imm)
//	FormatMemorySize  R(Dst)
//	FormatJump        T(Target)
//	FormatBranch      R(A) T(Target)
//	FormatCmpBranch   R(A) then I(Imm) if UseImm, else R(B); then T(Target)
//	FormatSwitch      R(A) uvarint(n) {T(Table[i])} T(Target)
//	FormatCall        uvarint(Callee) uvarint(nargs) {R(Args[i])}
//	                  uvarint(nresults) {R(Results[i])}
//	FormatReturn      uvarint(n) {R(Args[i])}
//	FormatTrap        I(Imm)
//	FormatGlobalGet   R(Dst) uvarint(Callee)
//	FormatGlobalSet   uvarint(Callee) R(A)
//	FormatCallIndirect uvarint(Callee) R(A) uvarint(nargs) {R(Args[i])}
//	                  uvarint(nresults) {R(Results[i])}
//	FormatMemoryBulk  R(A) R(B) R(C)
//	FormatSegmentBulk uvarint(Callee) R(A) R(B) R(C)
//	FormatSegment     uvarint(Callee)
//	FormatRefFunc     R(Dst) uvarint(Callee)
//	FormatTableGet    R(Dst) uvarint(Callee) R(A)
//	FormatTableSet    uvarint(Callee) R(A) R(B)
//	FormatTableSize   R(Dst) uvarint(Callee)
//	FormatTableGrow   R(Dst) uvarint(Callee) R(A) R(B)
//	FormatTableFill   uvarint(Callee) R(A) R(B) R(C)
//	FormatTableBulk   uvarint(Callee) uvarint(Imm) R(A) R(B) R(C)
//	FormatNone        nothing (unreachable; its opcode takes two bytes)
//
// Op is the opcode's numeric value as defined in ops.go, so the order of the
// Op constants is part of the format: reordering them needs a new version.
// Instr fields that the format does not list are zero (the verifier requires
// it of every valid module). Bytes after the export section are an error.
//
// Limits. Decode rejects a count above the corresponding limit of verify.go
// before reading the items: host imports (MaxHosts), types (MaxTypes),
// globals (MaxGlobals), the functions of an element segment
// (MaxTableSize), functions (MaxFuncs), signature parameters and results
// (MaxParams each), registers including the parameters (MaxRegs),
// instructions per function (MaxCode) and switch table entries
// (MaxSwitchTable). The argument and result lists of calls and the
// value list of ret are held to MaxParams, which no valid module exceeds.
// Every count, and every string or data length, must also be small enough
// for the rest of the input to hold that many items of the smallest
// possible size, so Decode allocates at most in proportion to its input.
//
// Decode checks the structure as it reads and then runs Verify, so it
// accepts exactly the byte strings Encode produces for valid modules: every
// field has a single encoding, and Encode(Decode(b)) == b whenever Decode
// succeeds.

import (
	"encoding/binary"
	"fmt"
	"math"
)

// binMagic starts every binary module; binVersion follows it.
const (
	binMagic    = "\x00kln"
	binVersion  = 1 // modules without types, globals, table and element segments
	binVersion2 = 2 // modules with some of them
	binVersion3 = 3 // modules with passive data segments
)

// Flag bits of globals and the table in the binary form.
const (
	binGlobalMutable = 0x01
	binGlobalImport  = 0x02
	binGlobalExport  = 0x04
	binTableMax      = 0x01
	binTableImport   = 0x02
	binTableExport   = 0x04
	binMemoryImport  = 0x08
	binMemoryExport  = 0x10
)

// Minimum encoded sizes in bytes of repeated items, used to reject counts
// that the remaining input cannot possibly hold before allocating for them.
const (
	binMinData   = 2 // offset, length
	binMinHost   = 3 // name length, nparams, nresults
	binMinFunc   = 5 // name length, nparams, nresults, nregs, ncode
	binMinExport = 2 // name length, function index
	binMinType   = 2 // nparams, nresults
	binMinGlobal = 3 // name length, type, flags
	binMinElem   = 2 // offset, count
	binMinInstr  = 2 // opcode and at least one operand or count
)

// Encode verifies m and returns its binary form. If m does not pass Verify,
// Encode returns the verifier's *VerifyError.
func Encode(m *Module) ([]byte, error) {
	if err := Verify(m); err != nil {
		return nil, err
	}
	return binAppendModule(make([]byte, 0, binSizeHint(m)), m), nil
}

// binSizeHint guesses the encoded size of m, to size Encode's buffer.
func binSizeHint(m *Module) int {
	n := 64
	for _, d := range m.Data {
		n += 8 + len(d.Bytes)
	}
	for _, f := range m.Funcs {
		n += 16 + len(f.Name) + len(f.Regs) + 6*len(f.Code)
	}
	n += 8*len(m.Types) + 24*len(m.Globals)
	for _, e := range m.Elems {
		n += 8 + 3*len(e.Funcs)
	}
	return n
}

// binAppendModule appends the binary form of m to dst. It does not verify m:
// for a module that Verify rejects, it writes the fields each format uses
// and drops the rest, so the result need not decode to m. Encode calls it
// only for verified modules; tests use it to make malformed inputs.
func binAppendModule(dst []byte, m *Module) []byte {
	dst = append(dst, binMagic...)
	v2, v3 := binNeedsVersion2(m), binNeedsVersion3(m)
	switch {
	case v3:
		dst = append(dst, binVersion3)
	case v2:
		dst = append(dst, binVersion2)
	default:
		dst = append(dst, binVersion)
	}
	dst = binary.AppendUvarint(dst, uint64(m.Memory.MinPages))
	dst = binary.AppendUvarint(dst, uint64(m.Memory.MaxPages))
	dst = binary.AppendUvarint(dst, uint64(len(m.Data)))
	for _, d := range m.Data {
		dst = binary.AppendUvarint(dst, uint64(d.Offset))
		dst = binAppendString(dst, d.Bytes)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.Hosts)))
	for _, h := range m.Hosts {
		dst = binAppendString(dst, h.Name)
		dst = binAppendSig(dst, h.Sig)
	}
	if v2 || v3 {
		dst = binAppendVersion2Parts(dst, m)
	}
	if v3 {
		dst = binAppendVersion3Parts(dst, m)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.Funcs)))
	for _, f := range m.Funcs {
		dst = binAppendFunc(dst, f)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.Exports)))
	for _, e := range m.Exports {
		dst = binAppendString(dst, e.Name)
		dst = binary.AppendUvarint(dst, uint64(e.Func))
	}
	return dst
}

// binNeedsVersion2 reports whether m has a part only version 2 can hold.
func binNeedsVersion2(m *Module) bool {
	return len(m.Types) > 0 || len(m.Globals) > 0 || m.HasTable() || len(m.Elems) > 0 ||
		m.Memory.Import != "" || m.Memory.Export != ""
}

// binNeedsVersion3 reports whether m has a part only version 3 can hold.
func binNeedsVersion3(m *Module) bool {
	for _, d := range m.Data {
		if d.Passive {
			return true
		}
	}
	for _, e := range m.Elems {
		if e.Mode != ElemActive || e.Table != 0 {
			return true
		}
	}
	return m.Table.Extern || len(m.MoreTables) > 0
}

// Table flags of the version 3 part.
const (
	binTable3Max    = 0x01
	binTable3Extern = 0x02
)

// binAppendVersion3Parts appends the segments part of m.
func binAppendVersion3Parts(dst []byte, m *Module) []byte {
	n := 0
	for _, d := range m.Data {
		if d.Passive {
			n++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for i, d := range m.Data {
		if d.Passive {
			dst = binary.AppendUvarint(dst, uint64(i))
		}
	}
	tableFlags := func(t *Table) byte {
		var f byte
		if t.HasMax {
			f |= binTable3Max
		}
		if t.Extern {
			f |= binTable3Extern
		}
		return f
	}
	dst = append(dst, tableFlags(&m.Table)&binTable3Extern)
	dst = binary.AppendUvarint(dst, uint64(len(m.MoreTables)))
	for i := range m.MoreTables {
		t := &m.MoreTables[i]
		dst = append(dst, tableFlags(t))
		dst = binary.AppendUvarint(dst, uint64(t.Min))
		if t.HasMax {
			dst = binary.AppendUvarint(dst, uint64(t.Max))
		}
	}
	for _, e := range m.Elems {
		dst = append(dst, byte(e.Mode))
		dst = binary.AppendUvarint(dst, uint64(e.Table))
	}
	return dst
}

// binAppendVersion2Parts appends the types, globals, table and element
// segments of m.
func binAppendVersion2Parts(dst []byte, m *Module) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(m.Types)))
	for _, s := range m.Types {
		dst = binAppendSig(dst, s)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.Globals)))
	for i := range m.Globals {
		g := &m.Globals[i]
		dst = binAppendString(dst, g.Name)
		dst = append(dst, byte(g.Type))
		var flags byte
		if g.Mutable {
			flags |= binGlobalMutable
		}
		if g.Import != "" {
			flags |= binGlobalImport
		}
		if g.Export != "" {
			flags |= binGlobalExport
		}
		dst = append(dst, flags)
		if g.Import == "" {
			switch g.Type {
			case F64:
				dst = binary.LittleEndian.AppendUint64(dst, g.Init)
			case F32:
				dst = binary.LittleEndian.AppendUint32(dst, uint32(g.Init))
			case I32:
				dst = binary.AppendVarint(dst, int64(int32(uint32(g.Init))))
			default:
				dst = binary.AppendVarint(dst, int64(g.Init))
			}
		} else {
			dst = binAppendString(dst, g.Import)
		}
		if g.Export != "" {
			dst = binAppendString(dst, g.Export)
		}
	}
	t := &m.Table
	var flags byte
	if t.HasMax {
		flags |= binTableMax
	}
	if t.Import != "" {
		flags |= binTableImport
	}
	if t.Export != "" {
		flags |= binTableExport
	}
	if m.Memory.Import != "" {
		flags |= binMemoryImport
	}
	if m.Memory.Export != "" {
		flags |= binMemoryExport
	}
	dst = append(dst, flags)
	dst = binary.AppendUvarint(dst, uint64(t.Min))
	if t.HasMax {
		dst = binary.AppendUvarint(dst, uint64(t.Max))
	}
	if t.Import != "" {
		dst = binAppendString(dst, t.Import)
	}
	if t.Export != "" {
		dst = binAppendString(dst, t.Export)
	}
	if m.Memory.Import != "" {
		dst = binAppendString(dst, m.Memory.Import)
	}
	if m.Memory.Export != "" {
		dst = binAppendString(dst, m.Memory.Export)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.Elems)))
	for _, e := range m.Elems {
		dst = binary.AppendUvarint(dst, uint64(e.Offset))
		dst = binary.AppendUvarint(dst, uint64(len(e.Funcs)))
		for _, f := range e.Funcs {
			dst = binary.AppendUvarint(dst, uint64(f))
		}
	}
	return dst
}

func binAppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func binAppendTypes(dst []byte, ts []Type) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ts)))
	for _, t := range ts {
		dst = append(dst, byte(t))
	}
	return dst
}

func binAppendSig(dst []byte, s Signature) []byte {
	return binAppendTypes(binAppendTypes(dst, s.Params), s.Results)
}

func binAppendRegs(dst []byte, rs []Reg) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(rs)))
	for _, r := range rs {
		dst = binary.AppendUvarint(dst, uint64(r))
	}
	return dst
}

func binAppendFunc(dst []byte, f *Function) []byte {
	if f == nil {
		f = &Function{} // only reachable for unverified modules
	}
	dst = binAppendString(dst, f.Name)
	dst = binAppendSig(dst, f.Sig)
	dst = binAppendTypes(dst, f.Regs[min(len(f.Sig.Params), len(f.Regs)):])
	dst = binary.AppendUvarint(dst, uint64(len(f.Code)))
	for i := range f.Code {
		dst = binAppendInstr(dst, &f.Code[i])
	}
	return dst
}

func binAppendInstr(dst []byte, in *Instr) []byte {
	op := uint64(in.Op) << 1
	if in.UseImm || in.Op == OpCallIndirect && in.Imm != 0 {
		op |= 1
	}
	info := in.Op.Info()
	dst = binary.AppendUvarint(dst, op)
	reg := func(r Reg) { dst = binary.AppendUvarint(dst, uint64(r)) }
	bOrImm := func() {
		if in.UseImm {
			dst = binary.AppendVarint(dst, in.Imm)
		} else {
			reg(in.B)
		}
	}
	switch in.Op.Info().Format {
	case FormatConst:
		reg(in.Dst)
		if in.Op == OpF64Const {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(in.Imm))
		} else {
			dst = binary.AppendVarint(dst, in.Imm)
		}
	case FormatUnary:
		reg(in.Dst)
		reg(in.A)
	case FormatBinary:
		reg(in.Dst)
		reg(in.A)
		bOrImm()
	case FormatSelect:
		reg(in.Dst)
		reg(in.A)
		reg(in.B)
		reg(in.C)
	case FormatMemoryBulk:
		reg(in.A)
		reg(in.B)
		reg(in.C)
	case FormatSegmentBulk:
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
		reg(in.A)
		reg(in.B)
		reg(in.C)
	case FormatSegment:
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
	case FormatRefFunc, FormatTableSize:
		reg(in.Dst)
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
	case FormatTableGet:
		reg(in.Dst)
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
		reg(in.A)
	case FormatTableSet:
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
		reg(in.A)
		reg(in.B)
	case FormatTableGrow:
		reg(in.Dst)
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
		reg(in.A)
		reg(in.B)
	case FormatTableFill, FormatTableBulk:
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
		if info.Format == FormatTableBulk {
			dst = binary.AppendUvarint(dst, uint64(in.Imm))
		}
		reg(in.A)
		reg(in.B)
		reg(in.C)
	case FormatLoad:
		reg(in.Dst)
		reg(in.A)
		dst = binary.AppendVarint(dst, in.Imm)
	case FormatStore:
		reg(in.A)
		reg(in.B)
		dst = binary.AppendVarint(dst, in.Imm)
	case FormatMemorySize:
		reg(in.Dst)
	case FormatJump:
		dst = binary.AppendUvarint(dst, uint64(in.Target))
	case FormatBranch:
		reg(in.A)
		dst = binary.AppendUvarint(dst, uint64(in.Target))
	case FormatCmpBranch:
		reg(in.A)
		bOrImm()
		dst = binary.AppendUvarint(dst, uint64(in.Target))
	case FormatSwitch:
		reg(in.A)
		dst = binary.AppendUvarint(dst, uint64(len(in.Table)))
		for _, t := range in.Table {
			dst = binary.AppendUvarint(dst, uint64(t))
		}
		dst = binary.AppendUvarint(dst, uint64(in.Target))
	case FormatCall:
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
		dst = binAppendRegs(dst, in.Args)
		dst = binAppendRegs(dst, in.Results)
	case FormatReturn:
		dst = binAppendRegs(dst, in.Args)
	case FormatTrap:
		dst = binary.AppendVarint(dst, in.Imm)
	case FormatGlobalGet:
		reg(in.Dst)
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
	case FormatGlobalSet:
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
		reg(in.A)
	case FormatCallIndirect:
		dst = binary.AppendUvarint(dst, uint64(in.Callee))
		if in.Imm != 0 {
			dst = binary.AppendUvarint(dst, uint64(in.Imm))
		}
		reg(in.A)
		dst = binAppendRegs(dst, in.Args)
		dst = binAppendRegs(dst, in.Results)
	}
	return dst
}

// DecodeError reports where and why Decode rejected its input. Pos is the
// offset in the input of the item that could not be decoded (for example
// the first byte of a varint or of an instruction). Func is the index of the
// function being decoded and Instr the index of the instruction within it;
// both are -1 when not applicable. FuncName is the function's name once it
// has been read.
type DecodeError struct {
	Pos      int
	Func     int
	FuncName string
	Instr    int
	Msg      string
	// Err is the underlying error, if any: a *LimitError when the input
	// exceeds a limit of DecodeLimits.
	Err error
}

// Unwrap returns the underlying error, or nil.
func (e *DecodeError) Unwrap() error { return e.Err }

// Error formats the error with its location, for example
// "decode: byte 57: func fib: instruction 3: unknown opcode 250". The
// function and instruction parts are left out when they do not apply. A
// function name that is not an identifier is quoted; a function whose name
// has not been read is written #Func.
func (e *DecodeError) Error() string {
	s := fmt.Sprintf("decode: byte %d: ", e.Pos)
	if e.Func >= 0 {
		switch {
		case IsIdentifier(e.FuncName):
			s += "func " + e.FuncName + ": "
		case e.FuncName != "":
			s += fmt.Sprintf("func %q: ", e.FuncName)
		default:
			s += fmt.Sprintf("func #%d: ", e.Func)
		}
	}
	if e.Instr >= 0 {
		s += fmt.Sprintf("instruction %d: ", e.Instr)
	}
	return s + e.Msg
}

// Decode parses the binary form of a module (see Encode) and returns the
// module after checking it with Verify. It never panics. It rejects every
// input that Encode would not produce for a valid module: malformed input
// gets a *DecodeError saying where decoding stopped, and a well-formed
// encoding of a module that Verify rejects gets the verifier's *VerifyError.
// The module shares no memory with b.
func Decode(b []byte) (*Module, error) { return DecodeLimits(b, Limits{}) }

// DecodeLimits is Decode under limits: a module over one of them is
// refused with a *DecodeError wrapping a *LimitError where its encoding
// declares the count over the limit, without decoding further.
func DecodeLimits(b []byte, lim Limits) (*Module, error) {
	m, err := binDecodeUnverifiedLimits(b, lim)
	if err != nil {
		return nil, err
	}
	if err := Verify(m); err != nil {
		return nil, err
	}
	return m, nil
}

// binDecodeUnverified decodes the structure of a binary module without
// running Verify. The module it returns may break the verifier's rules (a
// register or branch target out of range, a callee that does not exist,
// mismatched types, bad names), but it respects the limits on counts, every
// opcode and type in it is valid, and UseImm is set only for opcodes that
// allow immediates. Errors are *DecodeError.
func binDecodeUnverified(b []byte) (*Module, error) { return binDecodeUnverifiedLimits(b, Limits{}) }

// binDecodeUnverifiedLimits is binDecodeUnverified under limits.
func binDecodeUnverifiedLimits(b []byte, lim Limits) (*Module, error) {
	d := &binDecoder{b: b, fn: -1, instr: -1, lim: lim}
	m, err := d.module()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// binDecoder reads a binary module. pos is the offset of the next unread
// byte; fn, fnName and instr locate errors; where and whereIdx name the
// module-level item being read ("host import", 2), if any.
type binDecoder struct {
	lim      Limits
	size     int // the current function's instructions and table entries
	b        []byte
	pos      int
	fn       int
	fnName   string
	instr    int
	where    string
	whereIdx int
}

// limit returns a *DecodeError at input offset pos wrapping err, a
// *LimitError, or nil when err is nil.
func (d *binDecoder) limit(pos int, err error) error {
	if err == nil {
		return nil
	}
	e := d.errAt(pos, "%v", err).(*DecodeError)
	e.Err = err
	return e
}

// errAt returns a *DecodeError at input offset pos in the current context.
func (d *binDecoder) errAt(pos int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if d.where != "" {
		msg = fmt.Sprintf("%s %d: %s", d.where, d.whereIdx, msg)
	}
	return &DecodeError{Pos: pos, Func: d.fn, FuncName: d.fnName, Instr: d.instr, Msg: msg}
}

func (d *binDecoder) remaining() int { return len(d.b) - d.pos }

// uvarint reads a minimally encoded unsigned LEB128 number; what names it in
// errors.
func (d *binDecoder) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(d.b[d.pos:])
	switch {
	case n == 0:
		return 0, d.errAt(d.pos, "%s: unexpected end of input", what)
	case n < 0:
		return 0, d.errAt(d.pos, "%s: varint overflows 64 bits", what)
	case n > 1 && d.b[d.pos+n-1] == 0:
		return 0, d.errAt(d.pos, "%s: non-minimal varint encoding", what)
	}
	d.pos += n
	return v, nil
}

// varint reads a minimally encoded zigzag varint.
func (d *binDecoder) varint(what string) (int64, error) {
	u, err := d.uvarint(what)
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x, err
}

// u32 reads a uvarint that must fit in 32 bits.
func (d *binDecoder) u32(what string) (uint32, error) {
	if v, ok := d.fastU32(); ok {
		return v, nil
	}
	start := d.pos
	v, err := d.uvarint(what)
	if err != nil {
		return 0, err
	}
	if v > math.MaxUint32 {
		return 0, d.errAt(start, "%s %d does not fit in 32 bits", what, v)
	}
	return uint32(v), nil
}

// fastU32 reads a minimal uvarint that fits in 32 bits, the common case,
// without naming it. If the next bytes are anything else it reads nothing and
// returns false, and the caller reads them again with a method that reports
// the error.
func (d *binDecoder) fastU32() (uint32, bool) {
	v, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 || n > 1 && d.b[d.pos+n-1] == 0 || v > math.MaxUint32 {
		return 0, false
	}
	d.pos += n
	return uint32(v), true
}

// reg reads a register number.
func (d *binDecoder) reg(what string) (Reg, error) {
	if v, ok := d.fastU32(); ok {
		return Reg(v), nil
	}
	start := d.pos
	v, err := d.uvarint(what + " register")
	if err != nil {
		return 0, err
	}
	if v > math.MaxUint32 {
		return 0, d.errAt(start, "%s register r%d does not fit in 32 bits", what, v)
	}
	return Reg(v), nil
}

// count reads the number of items of a list. It fails if the number exceeds
// limit (when limit > 0) or if the input that remains after it cannot hold
// that many items of at least minSize bytes each, so that callers may
// allocate for count items.
func (d *binDecoder) count(what string, limit uint64, minSize int) (int, error) {
	start := d.pos
	v, err := d.uvarint(what)
	if err != nil {
		return 0, err
	}
	if limit > 0 && v > limit {
		return 0, d.errAt(start, "%s %d exceeds the limit of %d", what, v, limit)
	}
	return d.fit(start, what, v, minSize)
}

// fit checks that v items of at least minSize bytes each can fit in the
// remaining input; start is the offset of the count v was read from.
func (d *binDecoder) fit(start int, what string, v uint64, minSize int) (int, error) {
	if rem := d.remaining(); v > uint64(rem/minSize) {
		return 0, d.errAt(start, "%s %d is too large for the %d remaining bytes", what, v, rem)
	}
	return int(v), nil
}

// byteString reads a length-prefixed byte string and returns a copy of it
// (nil when it is empty).
func (d *binDecoder) byteString(what string) ([]byte, error) {
	n, err := d.count(what+" length", 0, 1)
	if err != nil || n == 0 {
		return nil, err
	}
	s := make([]byte, n)
	copy(s, d.b[d.pos:])
	d.pos += n
	return s, nil
}

// str reads a length-prefixed string.
func (d *binDecoder) str(what string) (string, error) {
	n, err := d.count(what+" length", 0, 1)
	if err != nil {
		return "", err
	}
	s := string(d.b[d.pos : d.pos+n])
	d.pos += n
	return s, nil
}

// typ reads one type byte.
func (d *binDecoder) typ(what string) (Type, error) {
	if d.pos >= len(d.b) {
		return 0, d.errAt(d.pos, "%s: unexpected end of input", what)
	}
	t := Type(d.b[d.pos])
	if !t.Valid() {
		return 0, d.errAt(d.pos, "%s: unknown type byte %d", what, d.b[d.pos])
	}
	d.pos++
	return t, nil
}

// types reads a count and that many type bytes.
func (d *binDecoder) types(what string) ([]Type, error) {
	n, err := d.count(what+" count", MaxParams, 1)
	if err != nil {
		return nil, err
	}
	return d.typeBytes(what, n, 0)
}

// typeBytes reads n type bytes into a new slice with front free elements
// before them (nil if the slice would be empty).
func (d *binDecoder) typeBytes(what string, n, front int) ([]Type, error) {
	if n+front == 0 {
		return nil, nil
	}
	ts := make([]Type, front+n)
	for i := front; i < len(ts); i++ {
		var err error
		if ts[i], err = d.typ(what); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

func (d *binDecoder) sig() (Signature, error) {
	var s Signature
	var err error
	if s.Params, err = d.types("parameter type"); err != nil {
		return s, err
	}
	s.Results, err = d.types("result type")
	return s, err
}

// regs reads a register list of at most MaxParams entries (a valid call or
// ret never has more).
func (d *binDecoder) regs(what string) ([]Reg, error) {
	n, err := d.count(what+" count", MaxParams, 1)
	if err != nil || n == 0 {
		return nil, err
	}
	rs := make([]Reg, n)
	for i := range rs {
		if r, ok := d.fastU32(); ok {
			rs[i] = Reg(r)
		} else if rs[i], err = d.reg(fmt.Sprintf("%s %d", what, i)); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

func (d *binDecoder) module() (*Module, error) {
	if len(d.b) < len(binMagic) || string(d.b[:len(binMagic)]) != binMagic {
		if n := min(len(d.b), len(binMagic)); string(d.b[:n]) == binMagic[:n] {
			return nil, d.errAt(0, "magic: unexpected end of input")
		}
		return nil, d.errAt(0, "bad magic %q, want %q", d.b[:min(len(d.b), len(binMagic))], binMagic)
	}
	d.pos = len(binMagic)
	if d.pos >= len(d.b) {
		return nil, d.errAt(d.pos, "version: unexpected end of input")
	}
	version := d.b[d.pos]
	if version != binVersion && version != binVersion2 && version != binVersion3 {
		return nil, d.errAt(d.pos, "unsupported version %d", version)
	}
	d.pos++

	m := &Module{}
	var err error
	if m.Memory.MinPages, err = d.u32("memory minimum pages"); err != nil {
		return nil, err
	}
	if m.Memory.MaxPages, err = d.u32("memory maximum pages"); err != nil {
		return nil, err
	}

	n, err := d.count("data segment count", 0, binMinData)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		m.Data = make([]DataSegment, n)
	}
	for i := range m.Data {
		d.where, d.whereIdx = "data segment", i
		ds := &m.Data[i]
		if ds.Offset, err = d.u32("offset"); err != nil {
			return nil, err
		}
		if ds.Bytes, err = d.byteString("data"); err != nil {
			return nil, err
		}
	}
	d.where = ""

	if n, err = d.count("host import count", MaxHosts, binMinHost); err != nil {
		return nil, err
	}
	if n > 0 {
		m.Hosts = make([]HostImport, n)
	}
	for i := range m.Hosts {
		d.where, d.whereIdx = "host import", i
		h := &m.Hosts[i]
		if h.Name, err = d.str("name"); err != nil {
			return nil, err
		}
		if h.Sig, err = d.sig(); err != nil {
			return nil, err
		}
	}
	d.where = ""

	if version == binVersion2 || version == binVersion3 {
		start := d.pos
		if err := d.version2Parts(m); err != nil {
			return nil, err
		}
		if version == binVersion2 && !binNeedsVersion2(m) {
			return nil, d.errAt(start, "version 2 module without types, globals, table, element segments or memory import or export (it must be written as version 1)")
		}
	}
	if version == binVersion3 {
		start := d.pos
		if err := d.version3Parts(m); err != nil {
			return nil, err
		}
		if !binNeedsVersion3(m) {
			return nil, d.errAt(start, "version 3 module without passive data segments, several tables, a table of external references or element segments beyond active ones of table 0 (it must be written as version 1 or 2)")
		}
	}

	funcsAt := d.pos
	if n, err = d.count("function count", MaxFuncs, binMinFunc); err != nil {
		return nil, err
	}
	if err := d.limit(funcsAt, d.lim.over("Funcs", "", n, d.lim.Funcs)); err != nil {
		return nil, err
	}
	if n > 0 {
		m.Funcs = make([]*Function, n)
	}
	for i := range m.Funcs {
		d.fn = i
		if m.Funcs[i], err = d.function(); err != nil {
			return nil, err
		}
	}
	d.fn, d.fnName = -1, ""

	if n, err = d.count("export count", 0, binMinExport); err != nil {
		return nil, err
	}
	if n > 0 {
		m.Exports = make([]Export, n)
	}
	for i := range m.Exports {
		d.where, d.whereIdx = "export", i
		e := &m.Exports[i]
		if e.Name, err = d.str("name"); err != nil {
			return nil, err
		}
		if e.Func, err = d.u32("function index"); err != nil {
			return nil, err
		}
	}
	d.where = ""

	if d.pos != len(d.b) {
		return nil, d.errAt(d.pos, "%d trailing bytes after the export section", len(d.b)-d.pos)
	}
	return m, nil
}

// version2Parts reads the types, globals, table and element segments of a
// version 2 module into m.
func (d *binDecoder) version2Parts(m *Module) error {
	n, err := d.count("type count", MaxTypes, binMinType)
	if err != nil {
		return err
	}
	if n > 0 {
		m.Types = make([]Signature, n)
	}
	for i := range m.Types {
		d.where, d.whereIdx = "type", i
		if m.Types[i], err = d.sig(); err != nil {
			return err
		}
	}
	d.where = ""

	if n, err = d.count("global count", MaxGlobals, binMinGlobal); err != nil {
		return err
	}
	if n > 0 {
		m.Globals = make([]Global, n)
	}
	for i := range m.Globals {
		d.where, d.whereIdx = "global", i
		if err := d.global(&m.Globals[i]); err != nil {
			return err
		}
	}
	d.where = ""

	d.where, d.whereIdx = "table", 0
	flags, err := d.flags(binTableMax | binTableImport | binTableExport | binMemoryImport | binMemoryExport)
	if err != nil {
		return err
	}
	t := &m.Table
	if t.Min, err = d.u32("minimum size"); err != nil {
		return err
	}
	if flags&binTableMax != 0 {
		t.HasMax = true
		if t.Max, err = d.u32("maximum size"); err != nil {
			return err
		}
	}
	if flags&binTableImport != 0 {
		if t.Import, err = d.nonEmptyStr("import name"); err != nil {
			return err
		}
	}
	if flags&binTableExport != 0 {
		if t.Export, err = d.nonEmptyStr("export name"); err != nil {
			return err
		}
	}
	if flags&binMemoryImport != 0 {
		d.where = "memory"
		if m.Memory.Import, err = d.nonEmptyStr("import name"); err != nil {
			return err
		}
	}
	if flags&binMemoryExport != 0 {
		d.where = "memory"
		if m.Memory.Export, err = d.nonEmptyStr("export name"); err != nil {
			return err
		}
	}
	d.where = ""

	if n, err = d.count("element segment count", 0, binMinElem); err != nil {
		return err
	}
	if n > 0 {
		m.Elems = make([]ElemSegment, n)
	}
	for i := range m.Elems {
		d.where, d.whereIdx = "element segment", i
		e := &m.Elems[i]
		if e.Offset, err = d.u32("offset"); err != nil {
			return err
		}
		k, err := d.count("function count", MaxTableSize, 1)
		if err != nil {
			return err
		}
		if k > 0 {
			e.Funcs = make([]uint32, k)
		}
		for j := range e.Funcs {
			if e.Funcs[j], err = d.u32(fmt.Sprintf("element %d function index", j)); err != nil {
				return err
			}
		}
	}
	d.where = ""
	return nil
}

// version3Parts reads the segments part of a version 3 module into m.
func (d *binDecoder) version3Parts(m *Module) error {
	d.where, d.whereIdx = "passive data segments", 0
	defer func() { d.where = "" }()
	n, err := d.count("passive data segment count", uint64(len(m.Data)), 1)
	if err != nil {
		return err
	}
	next := uint32(0)
	for k := range n {
		at := d.pos
		i, err := d.u32(fmt.Sprintf("passive segment %d", k))
		if err != nil {
			return err
		}
		if i < next || int(i) >= len(m.Data) {
			return d.errAt(at, "passive data segment index %d out of order or range (%d segments)", i, len(m.Data))
		}
		m.Data[i].Passive = true
		next = i + 1
	}
	d.where = "table"
	flags, err := d.flags(binTable3Extern)
	if err != nil {
		return err
	}
	m.Table.Extern = flags&binTable3Extern != 0
	d.where = "tables"
	n, err = d.count("table count", MaxTables-1, 2)
	if err != nil {
		return err
	}
	if n > 0 {
		m.MoreTables = make([]Table, n)
	}
	for i := range m.MoreTables {
		d.whereIdx = i + 1
		t := &m.MoreTables[i]
		flags, err := d.flags(binTable3Max | binTable3Extern)
		if err != nil {
			return err
		}
		t.Extern = flags&binTable3Extern != 0
		if t.Min, err = d.u32("minimum size"); err != nil {
			return err
		}
		if flags&binTable3Max != 0 {
			t.HasMax = true
			if t.Max, err = d.u32("maximum size"); err != nil {
				return err
			}
		}
	}
	for i := range m.Elems {
		d.where, d.whereIdx = "element segment", i
		mode, err := d.flags(0x03)
		if err != nil {
			return err
		}
		m.Elems[i].Mode = ElemMode(mode)
		if m.Elems[i].Table, err = d.u32("table"); err != nil {
			return err
		}
	}
	return nil
}

// global reads one global.
func (d *binDecoder) global(g *Global) error {
	var err error
	if g.Name, err = d.str("name"); err != nil {
		return err
	}
	if g.Type, err = d.typ("type"); err != nil {
		return err
	}
	flags, err := d.flags(binGlobalMutable | binGlobalImport | binGlobalExport)
	if err != nil {
		return err
	}
	g.Mutable = flags&binGlobalMutable != 0
	if flags&binGlobalImport != 0 {
		if g.Import, err = d.nonEmptyStr("import name"); err != nil {
			return err
		}
	} else if err := d.globalInit(g); err != nil {
		return err
	}
	if flags&binGlobalExport != 0 {
		if g.Export, err = d.nonEmptyStr("export name"); err != nil {
			return err
		}
	}
	return nil
}

// globalInit reads the initial value of a global that is not imported.
func (d *binDecoder) globalInit(g *Global) error {
	switch g.Type {
	case F64, F32:
		size := 8
		if g.Type == F32 {
			size = 4
		}
		if d.remaining() < size {
			return d.errAt(d.pos, "%s initial value: unexpected end of input", g.Type)
		}
		if size == 8 {
			g.Init = binary.LittleEndian.Uint64(d.b[d.pos:])
		} else {
			g.Init = uint64(binary.LittleEndian.Uint32(d.b[d.pos:]))
		}
		d.pos += size
	case I32:
		start := d.pos
		v, err := d.varint("initial value")
		if err != nil {
			return err
		}
		if v < math.MinInt32 || v > math.MaxInt32 {
			return d.errAt(start, "i32 initial value %d is not in the int32 range", v)
		}
		g.Init = uint64(uint32(v))
	default:
		v, err := d.varint("initial value")
		if err != nil {
			return err
		}
		g.Init = uint64(v)
	}
	return nil
}

// flags reads a flag byte in which only the bits of allowed may be set.
func (d *binDecoder) flags(allowed byte) (byte, error) {
	if d.pos >= len(d.b) {
		return 0, d.errAt(d.pos, "flags: unexpected end of input")
	}
	f := d.b[d.pos]
	if f&^allowed != 0 {
		return 0, d.errAt(d.pos, "unknown flags %#x", f&^allowed)
	}
	d.pos++
	return f, nil
}

// nonEmptyStr reads a length-prefixed string that must not be empty (an
// import or export name whose flag is set).
func (d *binDecoder) nonEmptyStr(what string) (string, error) {
	start := d.pos
	s, err := d.str(what)
	if err == nil && s == "" {
		return "", d.errAt(start, "empty %s", what)
	}
	return s, err
}

func (d *binDecoder) function() (*Function, error) {
	d.fnName = ""
	f := &Function{}
	var err error
	if f.Name, err = d.str("name"); err != nil {
		return nil, err
	}
	d.fnName = f.Name
	if f.Sig, err = d.sig(); err != nil {
		return nil, err
	}
	np := len(f.Sig.Params)
	start := d.pos
	v, err := d.uvarint("register count")
	if err != nil {
		return nil, err
	}
	if v > MaxRegs-uint64(np) {
		return nil, d.errAt(start, "%d registers beyond the %d parameters exceed the limit of %d", v, np, MaxRegs)
	}
	nr, err := d.fit(start, "register count", v, 1)
	if err != nil {
		return nil, err
	}
	if err := d.limit(start, d.lim.over("Regs", f.Name, np+nr, d.lim.Regs)); err != nil {
		return nil, err
	}
	if f.Regs, err = d.typeBytes("register type", nr, np); err != nil {
		return nil, err
	}
	copy(f.Regs, f.Sig.Params)

	start = d.pos
	n, err := d.count("instruction count", MaxCode, binMinInstr)
	if err != nil {
		return nil, err
	}
	d.size = n
	if err := d.limit(start, d.lim.overSoFar("FuncSize", f.Name, d.size, d.lim.FuncSize)); err != nil {
		return nil, err
	}
	if n > 0 {
		f.Code = make([]Instr, n)
	}
	for i := range f.Code {
		d.instr = i
		if err := d.instruction(&f.Code[i]); err != nil {
			return nil, err
		}
	}
	d.instr = -1
	return f, nil
}

func (d *binDecoder) instruction(in *Instr) error {
	start := d.pos
	v, err := d.uvarint("opcode")
	if err != nil {
		return err
	}
	if op := v >> 1; op == uint64(OpInvalid) || op >= uint64(numOps) {
		return d.errAt(start, "unknown opcode %d", op)
	}
	in.Op = Op(v >> 1)
	info := in.Op.Info()
	tableBit := false
	if v&1 != 0 {
		switch {
		case in.Op == OpCallIndirect:
			tableBit = true
		case !info.Imm:
			return d.errAt(start, "%s takes no immediate operand (useImm bit set)", in.Op)
		default:
			in.UseImm = true
		}
	}

	// Each step stores one field; the first error stops the rest.
	reg := func(r *Reg, what string) {
		if err == nil {
			*r, err = d.reg(what)
		}
	}
	imm := func(what string) {
		if err == nil {
			in.Imm, err = d.varint(what)
		}
	}
	bOrImm := func() {
		if in.UseImm {
			imm("immediate")
		} else {
			reg(&in.B, "operand B")
		}
	}
	target := func(t *uint32, what string) {
		if err == nil {
			*t, err = d.u32(what)
		}
	}

	switch info.Format {
	case FormatConst:
		reg(&in.Dst, "destination")
		if in.Op != OpF64Const {
			imm("constant")
		} else if err == nil {
			if d.remaining() < 8 {
				return d.errAt(d.pos, "f64 constant: unexpected end of input")
			}
			in.Imm = int64(binary.LittleEndian.Uint64(d.b[d.pos:]))
			d.pos += 8
		}
	case FormatUnary:
		reg(&in.Dst, "destination")
		reg(&in.A, "operand A")
	case FormatBinary:
		reg(&in.Dst, "destination")
		reg(&in.A, "operand A")
		bOrImm()
	case FormatSelect:
		reg(&in.Dst, "destination")
		reg(&in.A, "operand A")
		reg(&in.B, "operand B")
		reg(&in.C, "operand C")
	case FormatMemoryBulk:
		reg(&in.A, "operand A")
		reg(&in.B, "operand B")
		reg(&in.C, "operand C")
	case FormatSegmentBulk:
		target(&in.Callee, "segment")
		reg(&in.A, "operand A")
		reg(&in.B, "operand B")
		reg(&in.C, "operand C")
	case FormatSegment:
		target(&in.Callee, "segment")
	case FormatRefFunc, FormatTableSize:
		reg(&in.Dst, "destination")
		target(&in.Callee, "callee")
	case FormatTableGet:
		reg(&in.Dst, "destination")
		target(&in.Callee, "table")
		reg(&in.A, "operand A")
	case FormatTableSet:
		target(&in.Callee, "table")
		reg(&in.A, "operand A")
		reg(&in.B, "operand B")
	case FormatTableGrow:
		reg(&in.Dst, "destination")
		target(&in.Callee, "table")
		reg(&in.A, "operand A")
		reg(&in.B, "operand B")
	case FormatTableFill, FormatTableBulk:
		target(&in.Callee, "callee")
		if info.Format == FormatTableBulk {
			var t uint32
			target(&t, "table")
			in.Imm = int64(t)
		}
		reg(&in.A, "operand A")
		reg(&in.B, "operand B")
		reg(&in.C, "operand C")
	case FormatLoad:
		reg(&in.Dst, "destination")
		reg(&in.A, "operand A")
		imm("memory offset")
	case FormatStore:
		reg(&in.A, "operand A")
		reg(&in.B, "operand B")
		imm("memory offset")
	case FormatMemorySize:
		reg(&in.Dst, "destination")
	case FormatJump:
		target(&in.Target, "branch target")
	case FormatBranch:
		reg(&in.A, "operand A")
		target(&in.Target, "branch target")
	case FormatCmpBranch:
		reg(&in.A, "operand A")
		bOrImm()
		target(&in.Target, "branch target")
	case FormatSwitch:
		reg(&in.A, "operand A")
		if err != nil {
			return err
		}
		var n int
		tableAt := d.pos
		if n, err = d.count("switch table size", MaxSwitchTable, 1); err != nil {
			return err
		}
		d.size += n
		if err := d.limit(tableAt, d.lim.overSoFar("FuncSize", d.fnName, d.size, d.lim.FuncSize)); err != nil {
			return err
		}
		if n > 0 {
			in.Table = make([]uint32, n)
		}
		for i := range in.Table {
			var ok bool
			if in.Table[i], ok = d.fastU32(); ok {
				continue
			}
			if in.Table[i], err = d.u32(fmt.Sprintf("switch case %d target", i)); err != nil {
				return err
			}
		}
		target(&in.Target, "switch default target")
	case FormatCall:
		target(&in.Callee, "callee")
		if err == nil {
			in.Args, err = d.regs("argument")
		}
		if err == nil {
			in.Results, err = d.regs("result")
		}
	case FormatReturn:
		in.Args, err = d.regs("return value")
	case FormatTrap:
		imm("trap code")
	case FormatGlobalGet:
		reg(&in.Dst, "destination")
		target(&in.Callee, "global")
	case FormatGlobalSet:
		target(&in.Callee, "global")
		reg(&in.A, "operand A")
	case FormatCallIndirect:
		target(&in.Callee, "signature")
		if tableBit {
			tablePos := d.pos
			var t uint32
			target(&t, "table")
			if err == nil && t == 0 {
				return d.errAt(tablePos, "table 0 written explicitly (the table bit must be clear)")
			}
			in.Imm = int64(t)
		}
		reg(&in.A, "operand A")
		if err == nil {
			in.Args, err = d.regs("argument")
		}
		if err == nil {
			in.Results, err = d.regs("result")
		}
	}
	return err
}
