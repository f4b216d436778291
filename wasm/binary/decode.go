package binary

import "fmt"

// Section ids.
const (
	secCustom   = 0
	secType     = 1
	secImport   = 2
	secFunction = 3
	secTable    = 4
	secMemory   = 5
	secGlobal   = 6
	secExport   = 7
	secStart    = 8
	secElement  = 9
	secCode     = 10
	secData     = 11
	secDataCnt  = 12
)

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global",
	"export", "start", "element", "code", "data", "data count"}

// sectionOrder is the rank of each section id in the order the sections
// must come in: the data count section stands between the element and
// code sections.
var sectionOrder = [...]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 10}

// Magic and Version open every module.
const (
	Magic   = "\x00asm"
	Version = 1
)

// Decode decodes a module of WebAssembly 2.0 from its binary form. It
// returns an *Error for malformed input.
func Decode(b []byte) (*Module, error) { return DecodeFeatures(b, Features2) }

// DecodeFeatures decodes a module that may use the features f: an
// instruction, type, section or encoding of another feature is malformed
// (as it is in WebAssembly 1.0, when f is Features1).
func DecodeFeatures(b []byte, f Features) (*Module, error) {
	d := &decoder{m: &Module{Features: f}, feat: f}
	if err := d.decode(b); err != nil {
		return nil, err
	}
	return d.m, nil
}

type decoder struct {
	m       *Module
	feat    Features
	nFuncs  int  // entries of the function section
	hasFunc bool // the function section was present
	cr      CodeReader
	stack   []byte
	// dataIdx is the offset of the first memory.init or data.drop, -1
	// for none: they need the data count section.
	dataIdx int
}

func (d *decoder) decode(b []byte) error {
	r := &reader{buf: b, fn: -1, feat: d.feat}
	d.dataIdx = -1
	if len(b) < 4 && string(b) == Magic[:len(b)] {
		// A header cut short, the empty input included.
		r.pos = len(b)
		r.fail(msgUnexpectedEnd)
		return r.err
	}
	if len(b) < 4 || string(b[:4]) != Magic {
		r.fail("magic header not detected")
		return r.err
	}
	r.pos = 4
	if len(b) < 8 {
		r.pos = len(b)
		r.fail(msgUnexpectedEnd)
		return r.err
	}
	if v := uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24; v != Version {
		r.fail("unknown binary version %d", v)
		return r.err
	}
	r.pos = 8
	last := 0
	codeSeen := false
	for r.remaining() > 0 {
		start := r.pos
		id := r.byte()
		if id > secData && !(id == secDataCnt && d.feat.Has(FeatureBulkMemory)) {
			r.failAt(start, "invalid section id %d", id)
			return r.err
		}
		name := sectionNames[id]
		r.section = name
		size := r.u32()
		if r.err != nil {
			return r.err
		}
		if int64(size) > int64(r.remaining()) {
			r.fail("%s: section of %d bytes, %d remain", msgLengthOOB, size, r.remaining())
			return r.err
		}
		if id != secCustom {
			if sectionOrder[id] <= last {
				r.failAt(start, "unexpected content after last section (section %s out of order or repeated)", name)
				return r.err
			}
			last = sectionOrder[id]
		}
		body := b[r.pos : r.pos+int(size)]
		s := &reader{buf: body, base: r.pos, section: name, fn: -1, eofMsg: msgUnexpectedEndS, feat: d.feat}
		r.pos += int(size)
		d.section(id, s)
		if s.err != nil {
			return s.err
		}
		if s.pos != len(body) {
			s.fail("%s: %d bytes left over", msgSectionSize, len(body)-s.pos)
			return s.err
		}
		r.section = ""
		if id == secCode {
			codeSeen = true
		}
	}
	if d.hasFunc && d.nFuncs > 0 && !codeSeen {
		r.section = "code"
		r.fail("function and code section have inconsistent lengths: %d functions, no code section", d.nFuncs)
		return r.err
	}
	m := d.m
	if m.HasDataCount && int64(m.DataCount) != int64(len(m.Datas)) {
		r.section = "data"
		r.fail("data count and data section have inconsistent lengths: %d and %d", m.DataCount, len(m.Datas))
		return r.err
	}
	if d.dataIdx >= 0 && !m.HasDataCount {
		return &Error{Section: "code", Func: -1, Offset: d.dataIdx, Msg: "data count section required: memory.init or data.drop without one"}
	}
	return nil
}

func (d *decoder) section(id byte, r *reader) {
	m := d.m
	switch id {
	case secCustom:
		off := r.offset()
		name := r.name()
		m.Customs = append(m.Customs, Custom{Name: name, Data: r.bytes(r.remaining()), Offset: off})
	case secType:
		n := r.count(3)
		m.Types = make([]FuncType, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			pos := r.pos
			if f := r.byte(); r.err == nil && f != 0x60 {
				r.failAt(pos, "malformed function type: form 0x%02x, want 0x60", f)
				return
			}
			var ft FuncType
			ft.Params = d.valTypes(r)
			ft.Results = d.valTypes(r)
			m.Types = append(m.Types, ft)
		}
	case secImport:
		n := r.count(4)
		m.Imports = make([]Import, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			im := Import{Offset: r.offset()}
			im.Module = r.name()
			im.Name = r.name()
			pos := r.pos
			im.Kind = ExternKind(r.byte())
			switch im.Kind {
			case ExternFunc:
				im.Type = r.u32()
				m.NumImportedFuncs++
			case ExternTable:
				im.Table = r.tableType()
				m.NumImportedTables++
			case ExternMemory:
				im.Memory = r.limits()
				m.NumImportedMems++
			case ExternGlobal:
				im.Global = r.globalType()
				m.NumImportedGlobals++
			default:
				if r.err == nil {
					r.failAt(pos, "malformed import kind 0x%02x", byte(im.Kind))
				}
			}
			m.Imports = append(m.Imports, im)
		}
	case secFunction:
		n := r.count(1)
		d.hasFunc, d.nFuncs = true, n
		m.Funcs = make([]uint32, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			m.Funcs = append(m.Funcs, r.u32())
		}
	case secTable:
		n := r.count(3)
		m.Tables = make([]TableType, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			m.Tables = append(m.Tables, r.tableType())
		}
	case secMemory:
		n := r.count(2)
		m.Mems = make([]Limits, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			m.Mems = append(m.Mems, r.limits())
		}
	case secGlobal:
		n := r.count(3)
		m.Globals = make([]Global, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			var g Global
			g.Type = r.globalType()
			g.Init = d.constExpr(r)
			m.Globals = append(m.Globals, g)
		}
	case secExport:
		n := r.count(3)
		m.Exports = make([]Export, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			e := Export{Offset: r.offset()}
			e.Name = r.name()
			pos := r.pos
			e.Kind = ExternKind(r.byte())
			if r.err == nil && e.Kind > ExternGlobal {
				r.failAt(pos, "malformed export kind 0x%02x", byte(e.Kind))
			}
			e.Index = r.u32()
			m.Exports = append(m.Exports, e)
		}
	case secStart:
		m.Start = r.u32()
		m.HasStart = true
	case secElement:
		n := r.count(3)
		m.Elems = make([]Elem, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			m.Elems = append(m.Elems, d.elem(r))
		}
	case secCode:
		pos := r.pos
		n := r.count(2)
		if r.err != nil {
			return
		}
		if n != d.nFuncs {
			r.failAt(pos, "function and code section have inconsistent lengths: %d functions, %d bodies", d.nFuncs, n)
			return
		}
		m.Codes = make([]Code, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			m.Codes = append(m.Codes, d.code(r, m.NumImportedFuncs+i))
		}
	case secData:
		minSize := 3
		if d.feat.Has(FeatureBulkMemory) {
			minSize = 2 // a passive segment: its flags and an empty vector
		}
		n := r.count(minSize)
		m.Datas = make([]Data, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			dt := Data{Pos: r.offset()}
			pos := r.pos
			flags := r.u32()
			if !d.feat.Has(FeatureBulkMemory) {
				dt.Memory = flags
				flags = 0
			}
			switch flags {
			case 0:
				dt.Offset = d.constExpr(r)
			case 1:
				dt.Mode = SegmentPassive
			case 2:
				dt.Memory = r.u32()
				dt.Offset = d.constExpr(r)
			default:
				if r.err == nil {
					r.failAt(pos, "malformed data segment flags %d", flags)
				}
			}
			k := r.count(1)
			dt.Bytes = r.bytes(k)
			m.Datas = append(m.Datas, dt)
		}
	case secDataCnt:
		m.DataCount = r.u32()
		m.HasDataCount = true
	}
}

// elem decodes an element segment: in WebAssembly 1.0 a table index,
// an offset and function indices; in 2.0 flags (bit 0: passive or
// declarative, bit 1: an explicit table index or declarative, bit 2:
// expressions instead of function indices) and what they say.
func (d *decoder) elem(r *reader) Elem {
	e := Elem{Pos: r.offset(), Type: FuncRef}
	pos := r.pos
	flags := r.u32()
	if !d.feat.Has(FeatureBulkMemory) && !d.feat.Has(FeatureReferenceTypes) {
		e.Table = flags
		flags = 0
	}
	if r.err == nil && flags > 7 {
		r.failAt(pos, "malformed element segment flags %d", flags)
		return e
	}
	switch {
	case flags&1 == 0:
		if flags&2 != 0 {
			e.Table = r.u32()
		}
		e.Offset = d.constExpr(r)
	case flags&2 != 0:
		e.Mode = SegmentDeclarative
	default:
		e.Mode = SegmentPassive
	}
	exprs := flags&4 != 0
	if flags&3 != 0 {
		// An element kind (0x00: funcref) or a reference type.
		kpos := r.pos
		if exprs {
			e.Type = r.refType()
		} else if k := r.byte(); r.err == nil && k != 0 {
			r.failAt(kpos, "malformed element kind 0x%02x", k)
		}
	}
	k := r.count(1)
	if exprs {
		e.Exprs = make([]ConstExpr, 0, k)
		for j := 0; j < k && r.err == nil; j++ {
			e.Exprs = append(e.Exprs, d.constExpr(r))
		}
		return e
	}
	e.Funcs = make([]uint32, 0, k)
	for j := 0; j < k && r.err == nil; j++ {
		e.Funcs = append(e.Funcs, r.u32())
	}
	return e
}

func (d *decoder) valTypes(r *reader) []ValType {
	n := r.count(1)
	ts := make([]ValType, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		ts = append(ts, r.valType())
	}
	return ts
}

// code decodes one entry of the code section, function fn.
func (d *decoder) code(r *reader, fn int) Code {
	size := r.u32()
	if r.err != nil {
		return Code{}
	}
	if int64(size) > int64(r.remaining()) {
		r.fail("%s: function body of %d bytes, %d remain", msgLengthOOB, size, r.remaining())
		return Code{}
	}
	body := &reader{buf: r.buf[r.pos : r.pos+int(size)], base: r.offset(), section: r.section, fn: fn, eofMsg: msgUnexpectedEndS, feat: d.feat}
	r.pos += int(size)
	var c Code
	n := body.count(2)
	c.Locals = make([]LocalRun, 0, n)
	for i := 0; i < n && body.err == nil; i++ {
		pos := body.pos
		run := LocalRun{Count: body.u32(), Type: body.valType()}
		c.NumLocals += uint64(run.Count)
		if c.NumLocals > 1<<32-1 {
			body.failAt(pos, "too many locals: %d", c.NumLocals)
		}
		c.Locals = append(c.Locals, run)
	}
	if body.err != nil {
		r.err = body.err
		return Code{}
	}
	c.Body = body.buf[body.pos:]
	c.Offset = body.offset()
	if err := d.scan(c.Body, c.Offset, r.section, fn); err != nil {
		r.err = err
		return Code{}
	}
	return c
}

// constExpr reads an expression up to and including its final end.
func (d *decoder) constExpr(r *reader) ConstExpr {
	if r.err != nil {
		return ConstExpr{}
	}
	start := r.pos
	rest := r.buf[start:]
	n, err := d.scanLen(rest, r.offset(), r.section)
	if err != nil {
		r.err = err
		return ConstExpr{}
	}
	r.pos += n
	return ConstExpr{Code: rest[:n], Offset: r.base + start}
}

// scan checks the block structure of a function body, which must end
// with the end of its outermost block at its last byte.
func (d *decoder) scan(code []byte, offset int, section string, fn int) error {
	n, err := d.scanExpr(code, offset, section, fn)
	if err != nil {
		return err
	}
	if n != len(code) {
		return &Error{Section: section, Func: fn, Offset: offset + n, Msg: fmt.Sprintf("%s: %d bytes after the function's final end", msgSectionSize, len(code)-n)}
	}
	return nil
}

// scanLen returns the length of the expression at the start of code.
func (d *decoder) scanLen(code []byte, offset int, section string) (int, error) {
	return d.scanExpr(code, offset, section, -1)
}

// scanExpr reads instructions from the start of code up to the end that
// closes the expression and returns how many bytes they take.
func (d *decoder) scanExpr(code []byte, offset int, section string, fn int) (int, error) {
	const (
		kBlock = iota
		kIf
		kElse
	)
	cr := &d.cr
	cr.Reset(code, offset, section, fn)
	cr.r.feat = d.feat
	d.stack = d.stack[:0]
	var in Instr
	for {
		if cr.Done() {
			return 0, &Error{Section: section, Func: fn, Offset: cr.Offset(), Msg: msgUnexpectedEndS + ": END opcode expected"}
		}
		if err := cr.Next(&in); err != nil {
			return 0, err
		}
		switch in.Op {
		case OpBlock, OpLoop:
			d.stack = append(d.stack, kBlock)
		case OpIf:
			d.stack = append(d.stack, kIf)
		case OpElse:
			if len(d.stack) == 0 || d.stack[len(d.stack)-1] != kIf {
				return 0, &Error{Section: section, Func: fn, Offset: in.Offset, Msg: "else without a matching if"}
			}
			d.stack[len(d.stack)-1] = kElse
		case OpEnd:
			if len(d.stack) == 0 {
				return cr.r.pos, nil
			}
			d.stack = d.stack[:len(d.stack)-1]
		case OpMemoryInit, OpDataDrop:
			if d.dataIdx < 0 {
				d.dataIdx = in.Offset
			}
		}
	}
}
