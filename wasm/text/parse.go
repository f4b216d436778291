// Package text reads the text format of WebAssembly 1.0 (MVP) modules
// (chapter 6 of the specification) and encodes them in the binary format
// that package binary decodes.
//
// It implements the whole MVP text format: tokens (keywords, $ids,
// strings with their escapes, line and nested block comments, integers
// and floats in every form the specification allows), every module field
// (type, import, func, table, memory, global, export, start, elem, data)
// with their abbreviations (inline imports and exports, inline element
// and data segments, type uses with inline parameters and results),
// symbolic and numeric indices in every index space, plain and folded
// instructions, and a module given by its fields alone, without the
// enclosing (module ...). A (module binary ...) form is read as the bytes
// its strings spell.
//
// Of WebAssembly 2.0 it reads the sign-extension operators, the
// non-trapping conversions, multi-value block types ((type x), (param
// ...) and several results, encoded as a type index) and functions,
// typed select ((result t)), call_indirect with a table index,
// memory.copy, memory.fill, ref.func, ref.null and ref.is_null, the
// reference types as value and table element types, and element segments
// in every form (active with (table x), passive, declare; function
// indices or element expressions) and passive data segments. The other
// instructions of bulk memory and reference types, and SIMD's, are
// rejected with an *Error whose message starts with "unsupported:" and
// names the instruction and its feature.
//
// Malformed text is rejected with an *Error that gives the line and
// column and uses the specification's words for the problem where its
// tests have some: "unknown operator", "unexpected token", "constant out
// of range", "alignment", "mismatching label", "inline function type".
// Checking that the module is valid (types, index ranges) is left to
// validation (package validate). Parsing never panics and takes time
// about linear in the input.
package text

import (
	"fmt"
	"unicode/utf8"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// maxDepth bounds the nesting of parentheses and blocks.
const maxDepth = 10000

// Parse parses a module in the text format and decodes the binary module
// it denotes.
func Parse(src []byte) (*binary.Module, error) {
	b, err := ToBinary(src)
	if err != nil {
		return nil, err
	}
	m, err := binary.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("text: the encoded module does not decode: %w", err)
	}
	return m, nil
}

// ToBinary parses a module in the text format and returns its encoding in
// the binary format: sections in their order, empty ones left out,
// integers in their shortest LEB128 form, consecutive locals of one type
// in one entry, and no custom sections.
func ToBinary(src []byte) (b []byte, err error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			b, err = nil, e
		}
	}()
	p.matchParens()
	return p.module(), nil
}

// section accumulates the entries of one section.
type section struct {
	n uint32
	b []byte
}

func (s *section) add(entry []byte) {
	s.n++
	s.b = append(s.b, entry...)
}

// space is an index space: the names of its entries and their count.
type space struct {
	what  string
	names map[string]uint32
	n     uint32
}

func (s *space) define(p *parser, t token, id string) {
	if id != "" {
		if s.names == nil {
			s.names = map[string]uint32{}
		}
		if _, dup := s.names[id]; dup {
			p.failAt(t, "duplicate %s %s", s.what, id)
		}
		s.names[id] = s.n
	}
	s.n++
}

type parser struct {
	toks  []token
	pos   int
	match []int // index of the closing parenthesis of each opening one

	types     []binary.FuncType
	typeNames map[string]uint32
	funcs     space
	tables    space
	mems      space
	globals   space

	// Counters of the entries of each space met so far by the second
	// pass.
	nFunc, nTable, nMem, nGlobal uint32

	importSec, funcSec, tableSec, memSec, globalSec, exportSec section
	elemSec, codeSec, dataSec                                  section
	start                                                      []byte
}

func (p *parser) failAt(t token, format string, args ...any) {
	panic(&Error{Line: t.line, Col: t.col, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) fail(format string, args ...any) { p.failAt(p.peek(), format, args...) }

// unexpected fails on the next token.
func (p *parser) unexpected(want string) {
	t := p.peek()
	if want == "" {
		p.failAt(t, "unexpected token %s", t.describe())
	}
	p.failAt(t, "unexpected token %s, expected %s", t.describe(), want)
}

func (p *parser) peek() token { return p.toks[p.pos] }

// peekAt returns the token k places ahead (the last, EOF, beyond it).
func (p *parser) peekAt(k int) token {
	if p.pos+k >= len(p.toks) {
		return p.toks[len(p.toks)-1]
	}
	return p.toks[p.pos+k]
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

// isField reports whether the next tokens are "(" and the keyword kw.
func (p *parser) isField(kw string) bool {
	return p.peek().kind == tLParen && p.peekAt(1).kind == tAtom && p.peekAt(1).text == kw
}

func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tAtom && t.text == kw
}

func (p *parser) lparen() {
	if p.peek().kind != tLParen {
		p.unexpected(`"("`)
	}
	p.next()
}

func (p *parser) rparen() {
	if p.peek().kind != tRParen {
		p.unexpected(`")"`)
	}
	p.next()
}

func (p *parser) keyword(kw string) {
	if !p.isKeyword(kw) {
		p.unexpected(fmt.Sprintf("%q", kw))
	}
	p.next()
}

// openField consumes "(" kw.
func (p *parser) openField(kw string) {
	p.lparen()
	p.keyword(kw)
}

func (p *parser) optID() (token, string) {
	t := p.peek()
	if t.kind == tID {
		p.next()
		return t, t.text
	}
	return t, ""
}

func (p *parser) str() string {
	t := p.peek()
	if t.kind != tString {
		p.unexpected("a string")
	}
	p.next()
	return t.text
}

// name reads a string that must be valid UTF-8 (an import or export
// name).
func (p *parser) name() string {
	t := p.peek()
	s := p.str()
	if !utf8.ValidString(s) {
		p.failAt(t, "malformed UTF-8 encoding: invalid UTF-8 encoding in name")
	}
	return s
}

func (p *parser) u32(what string) uint32 {
	t := p.peek()
	if t.kind != tAtom {
		p.unexpected(what)
	}
	v, err := parseU32(t.text)
	if err == errRange {
		p.failAt(t, "%s %s: i32 constant out of range", what, t.text)
	}
	if err != nil {
		p.unexpected(what)
	}
	p.next()
	return v
}

func (p *parser) isNat() bool {
	t := p.peek()
	if t.kind != tAtom {
		return false
	}
	_, err := parseNat(t.text)
	return err != errSyntax
}

// matchParens pairs the parentheses, failing on unbalanced ones.
func (p *parser) matchParens() {
	p.match = make([]int, len(p.toks))
	var stack []int
	for i, t := range p.toks {
		switch t.kind {
		case tLParen:
			if len(stack) >= maxDepth {
				p.failAt(t, "nesting deeper than %d", maxDepth)
			}
			stack = append(stack, i)
		case tRParen:
			if len(stack) == 0 {
				p.failAt(t, "unexpected token \")\"")
			}
			p.match[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		p.failAt(p.toks[stack[len(stack)-1]], "unclosed \"(\"")
	}
}

// module parses a whole module, with or without (module ...) around its
// fields, and returns its binary encoding.
func (p *parser) module() []byte {
	wrapped := p.isField("module")
	if wrapped {
		p.next()
		p.next()
		p.optID()
		if p.isKeyword("binary") {
			p.next()
			var b []byte
			for p.peek().kind == tString {
				b = append(b, p.next().text...)
			}
			p.rparen()
			if p.peek().kind != tEOF {
				p.unexpected("end of input")
			}
			return b
		}
	}
	var fields []int
	for p.peek().kind == tLParen {
		fields = append(fields, p.pos)
		p.pos = p.match[p.pos] + 1
	}
	if wrapped {
		p.rparen()
	}
	if p.peek().kind != tEOF {
		p.unexpected(`"(" or end of input`)
	}
	end := p.pos
	p.declare(fields)
	for _, f := range fields {
		p.pos = f
		p.field()
		if p.pos != p.match[f]+1 {
			p.unexpected(`")"`)
		}
	}
	p.pos = end
	return p.encode()
}

// declare is the first pass over the fields: it reads the type
// definitions and names the entries of the other index spaces, so that
// the second pass can resolve references to entries defined later.
func (p *parser) declare(fields []int) {
	p.funcs.what, p.tables.what, p.mems.what, p.globals.what = "func", "table", "memory", "global"
	firstDef := "" // the kind of the first field that defines rather than imports
	for _, f := range fields {
		p.pos = f + 1
		kw := p.peek()
		if kw.kind != tAtom {
			p.unexpected("a module field")
		}
		p.next()
		var sp *space
		imported := false
		switch kw.text {
		case "type":
			p.pos = f
			p.typeField()
			continue
		case "import":
			p.str()
			p.str()
			p.lparen()
			k := p.next()
			if sp, _ = p.externSpace(k.text); sp == nil {
				p.failAt(k, "unexpected token %s, expected an import description", k.describe())
			}
			imported = true
		case "func", "table", "memory", "global":
			sp, _ = p.externSpace(kw.text)
		case "export", "start", "elem", "data":
			continue
		default:
			p.failAt(kw, "unexpected token %s, expected a module field", kw.describe())
		}
		idTok, id := p.optID()
		if !imported {
			for p.isField("export") {
				p.pos = p.match[p.pos] + 1
			}
			imported = p.isField("import")
		}
		if imported && firstDef != "" {
			p.failAt(kw, "unexpected token: import after %s (imports come before all definitions)", firstDef)
		}
		if !imported && firstDef == "" {
			firstDef = kw.text
			if firstDef == "func" {
				firstDef = "function"
			}
		}
		sp.define(p, idTok, id)
	}
}

// externSpace returns the index space and the kind of external value the
// keyword of an import or export description, or of a module field,
// names (func, table, memory, global); nil for any other word.
func (p *parser) externSpace(kw string) (*space, binary.ExternKind) {
	switch kw {
	case "func":
		return &p.funcs, binary.ExternFunc
	case "table":
		return &p.tables, binary.ExternTable
	case "memory":
		return &p.mems, binary.ExternMemory
	case "global":
		return &p.globals, binary.ExternGlobal
	}
	return nil, 0
}

// field parses one module field in the second pass.
func (p *parser) field() {
	f := p.pos
	kw := p.peekAt(1).text
	switch kw {
	case "type":
		p.pos = p.match[f] + 1 // read by declare
	case "import":
		p.importField()
	case "func":
		p.funcField()
	case "table":
		p.tableField()
	case "memory":
		p.memoryField()
	case "global":
		p.globalField()
	case "export":
		p.exportField()
	case "start":
		p.openField("start")
		if p.start != nil {
			p.fail("multiple start sections")
		}
		p.start = binary.AppendU32(nil, p.index(&p.funcs))
		p.rparen()
	case "elem":
		p.elemField()
	case "data":
		p.dataField()
	}
}

// valTypes are the value types by their names.
var valTypes = map[string]binary.ValType{
	"i32": binary.I32, "i64": binary.I64, "f32": binary.F32, "f64": binary.F64,
	"v128": binary.V128, "funcref": binary.FuncRef, "externref": binary.ExternRef,
}

func (p *parser) valType() binary.ValType {
	if t := p.peek(); t.kind == tAtom {
		if vt, ok := valTypes[t.text]; ok {
			p.next()
			return vt
		}
	}
	p.unexpected("a value type")
	return 0
}

// typeField parses (type $id? (func (param ...)* (result ...)*)).
func (p *parser) typeField() {
	p.openField("type")
	t, id := p.optID()
	p.openField("func")
	var ft binary.FuncType
	for p.isField("param") {
		p.next()
		p.next()
		if _, pid := p.optID(); pid != "" {
			ft.Params = append(ft.Params, p.valType())
		} else {
			for p.peek().kind != tRParen {
				ft.Params = append(ft.Params, p.valType())
			}
		}
		p.rparen()
	}
	ft.Results = p.results()
	p.rparen()
	p.rparen()
	if id != "" {
		if p.typeNames == nil {
			p.typeNames = map[string]uint32{}
		}
		if _, dup := p.typeNames[id]; dup {
			p.failAt(t, "duplicate type %s", id)
		}
		p.typeNames[id] = uint32(len(p.types))
	}
	p.types = append(p.types, ft)
}

// results parses (result t*)*.
func (p *parser) results() []binary.ValType {
	var rs []binary.ValType
	for p.isField("result") {
		p.next()
		p.next()
		for p.peek().kind != tRParen {
			rs = append(rs, p.valType())
		}
		p.rparen()
	}
	if len(rs) > 0 && p.isField("param") {
		p.failAt(p.peek(), "unexpected token: result before parameter")
	}
	return rs
}

// typeUse parses a type use: (type x)? (param ...)* (result ...)*. It
// returns the type index and, when named is set, the names of the
// parameters ("" for none); parameters may not be named otherwise.
func (p *parser) typeUse(named bool) (uint32, []string) {
	start := p.peek()
	var idx uint32
	explicit := false
	if p.isField("type") {
		p.next()
		p.next()
		t := p.peek()
		switch {
		case t.kind == tID:
			i, ok := p.typeNames[t.text]
			if !ok {
				p.failAt(t, "unknown type %s", t.text)
			}
			idx = i
			p.next()
		default:
			idx = p.u32("a type index")
			if int(idx) >= len(p.types) {
				p.failAt(t, "unknown type %d", idx)
			}
		}
		p.rparen()
		explicit = true
	}
	var ft binary.FuncType
	var names []string
	inline := false
	for p.isField("param") {
		inline = true
		p.next()
		p.next()
		if t, pid := p.optID(); pid != "" {
			if !named {
				p.failAt(t, "unexpected token %s: named parameter", t.describe())
			}
			ft.Params = append(ft.Params, p.valType())
			names = append(names, pid)
		} else {
			for p.peek().kind != tRParen {
				ft.Params = append(ft.Params, p.valType())
				names = append(names, "")
			}
		}
		p.rparen()
	}
	if p.isField("result") {
		inline = true
		ft.Results = p.results()
	}
	if p.isField("param") || p.isField("type") {
		if inline && len(ft.Results) > 0 && p.isField("param") {
			p.failAt(p.peek(), "unexpected token: result before parameter")
		}
		p.unexpected("")
	}
	if explicit {
		if inline && !ft.Equal(p.types[idx]) {
			p.failAt(start, "inline function type %s does not match type %d %s", ft, idx, p.types[idx])
		}
		if !inline {
			names = make([]string, len(p.types[idx].Params))
		}
		return idx, names
	}
	for i, t := range p.types {
		if t.Equal(ft) {
			return uint32(i), names
		}
	}
	p.types = append(p.types, ft)
	return uint32(len(p.types) - 1), names
}

// index reads a reference to an entry of sp: a $name or a number.
func (p *parser) index(sp *space) uint32 {
	t := p.peek()
	if t.kind == tID {
		i, ok := sp.names[t.text]
		if !ok {
			p.failAt(t, "unknown %s %s", sp.what, t.text)
		}
		p.next()
		return i
	}
	return p.u32("a " + sp.what + " index")
}

func (p *parser) isIndex() bool { return p.peek().kind == tID || p.isNat() }

// inlineExports parses (export "name")* for entry idx of kind.
func (p *parser) inlineExports(kind binary.ExternKind, idx uint32) {
	for p.isField("export") {
		p.next()
		p.next()
		n := p.name()
		p.rparen()
		p.addExport(n, kind, idx)
	}
}

func (p *parser) addExport(name string, kind binary.ExternKind, idx uint32) {
	e := binary.AppendName(nil, name)
	e = append(e, byte(kind))
	p.exportSec.add(binary.AppendU32(e, idx))
}

// inlineImport parses (import "module" "name") if it comes next and
// returns the start of the import entry.
func (p *parser) inlineImport() ([]byte, bool) {
	if !p.isField("import") {
		return nil, false
	}
	p.next()
	p.next()
	m := p.name()
	n := p.name()
	p.rparen()
	return binary.AppendName(binary.AppendName(nil, m), n), true
}

func (p *parser) limits() []byte {
	min := p.u32("a limit")
	if p.isNat() {
		max := p.u32("a limit")
		return binary.AppendU32(binary.AppendU32([]byte{1}, min), max)
	}
	return binary.AppendU32([]byte{0}, min)
}

// elemType reads the element type of a table and returns its encoding.
func (p *parser) elemType() byte {
	switch {
	case p.isKeyword("funcref") || p.isKeyword("anyfunc"):
		p.next()
		return binary.ElemFuncRef
	case p.isKeyword("externref"):
		p.next()
		return byte(binary.ExternRef)
	}
	p.unexpected(`"funcref"`)
	return 0
}

func (p *parser) tableType() []byte {
	l := p.limits()
	return append([]byte{p.elemType()}, l...)
}

func (p *parser) globalType() []byte {
	if p.isField("mut") {
		p.next()
		p.next()
		t := p.valType()
		p.rparen()
		return []byte{byte(t), 1}
	}
	return []byte{byte(p.valType()), 0}
}

func (p *parser) importField() {
	p.openField("import")
	e := binary.AppendName(nil, p.name())
	e = binary.AppendName(e, p.name())
	p.lparen()
	k := p.next()
	p.optID()
	switch k.text {
	case "func":
		idx, _ := p.typeUse(true)
		e = binary.AppendU32(append(e, byte(binary.ExternFunc)), idx)
		p.nFunc++
	case "table":
		e = append(append(e, byte(binary.ExternTable)), p.tableType()...)
		p.nTable++
	case "memory":
		e = append(append(e, byte(binary.ExternMemory)), p.limits()...)
		p.nMem++
	case "global":
		e = append(append(e, byte(binary.ExternGlobal)), p.globalType()...)
		p.nGlobal++
	}
	p.rparen()
	p.rparen()
	p.importSec.add(e)
}

func (p *parser) exportField() {
	p.openField("export")
	n := p.name()
	p.lparen()
	k := p.next()
	sp, kind := p.externSpace(k.text)
	if sp == nil {
		p.failAt(k, "unexpected token %s, expected an export description", k.describe())
	}
	idx := p.index(sp)
	p.rparen()
	p.rparen()
	p.addExport(n, kind, idx)
}

// fieldHead reads the start of a table, memory, global or func field: the
// keyword, an optional id and inline exports. It returns the field's index
// (counting it in *count) and, for an inline import, the start of the
// import entry (module and name) and true.
func (p *parser) fieldHead(keyword string, kind binary.ExternKind, count *uint32) (idx uint32, imp []byte, imported bool) {
	p.openField(keyword)
	p.optID()
	idx = *count
	*count++
	p.inlineExports(kind, idx)
	imp, imported = p.inlineImport()
	return idx, imp, imported
}

func (p *parser) tableField() {
	idx, imp, ok := p.fieldHead("table", binary.ExternTable, &p.nTable)
	if ok {
		p.importSec.add(append(append(imp, byte(binary.ExternTable)), p.tableType()...))
		p.rparen()
		return
	}
	if p.isKeyword("funcref") || p.isKeyword("anyfunc") {
		// (table funcref (elem x*)): a table just large enough, and an
		// element segment at offset 0.
		p.next()
		p.openField("elem")
		var funcs []byte
		n := uint32(0)
		for p.peek().kind != tRParen {
			funcs = binary.AppendU32(funcs, p.index(&p.funcs))
			n++
		}
		p.rparen()
		p.rparen()
		p.tableSec.add(binary.AppendU32(binary.AppendU32([]byte{binary.ElemFuncRef, 1}, n), n))
		p.elemSec.add(append(binary.AppendU32(atOffsetZero(idx), n), funcs...))
		return
	}
	p.tableSec.add(p.tableType())
	p.rparen()
}

// atOffsetZero starts the segment of an inline (elem ...) or (data ...):
// table or memory idx, offset i32.const 0.
func atOffsetZero(idx uint32) []byte {
	return append(binary.AppendU32(nil, idx), byte(binary.OpI32Const), 0, byte(binary.OpEnd))
}

func (p *parser) memoryField() {
	idx, imp, ok := p.fieldHead("memory", binary.ExternMemory, &p.nMem)
	if ok {
		p.importSec.add(append(append(imp, byte(binary.ExternMemory)), p.limits()...))
		p.rparen()
		return
	}
	if p.isField("data") {
		// (memory (data "...")): a memory just large enough, and a data
		// segment at offset 0.
		p.next()
		p.next()
		var data []byte
		for p.peek().kind != tRParen {
			data = append(data, p.str()...)
		}
		p.rparen()
		p.rparen()
		pages := uint32((uint64(len(data)) + 65535) / 65536)
		p.memSec.add(binary.AppendU32(binary.AppendU32([]byte{1}, pages), pages))
		p.dataSec.add(append(binary.AppendU32(atOffsetZero(idx), uint32(len(data))), data...))
		return
	}
	p.memSec.add(p.limits())
	p.rparen()
}

func (p *parser) globalField() {
	_, imp, ok := p.fieldHead("global", binary.ExternGlobal, &p.nGlobal)
	if ok {
		p.importSec.add(append(append(imp, byte(binary.ExternGlobal)), p.globalType()...))
		p.rparen()
		return
	}
	g := p.globalType()
	g = p.constExpr(g)
	p.rparen()
	p.globalSec.add(g)
}

// constExpr parses instructions up to the closing parenthesis and
// appends them, with the final end, to b.
func (p *parser) constExpr(b []byte) []byte {
	c := &funcCtx{p: p, body: b}
	c.instrs()
	return append(c.body, byte(binary.OpEnd))
}

// offset parses the offset of a segment: (offset instr*) or a single
// folded instruction.
func (p *parser) offset(b []byte) []byte {
	if p.isField("offset") {
		p.next()
		p.next()
		b = p.constExpr(b)
		p.rparen()
		return b
	}
	if p.peek().kind != tLParen {
		p.unexpected("an offset expression")
	}
	c := &funcCtx{p: p, body: b}
	c.folded()
	return append(c.body, byte(binary.OpEnd))
}

// elemField parses an element segment: active ((table x)? or, as in
// WebAssembly 1.0, a bare table index; an offset), passive or declare;
// then function indices (after an optional "func") or a reference type
// and element expressions ((item instr*) or one folded instruction).
// Active segments of function indices on table 0 keep the 1.0 encoding.
func (p *parser) elemField() {
	p.openField("elem")
	p.optID()
	mode := binary.SegmentActive
	table, explicit := uint32(0), false
	if p.isKeyword("declare") {
		p.next()
		mode = binary.SegmentDeclarative
	} else {
		table, explicit = p.segmentUse("table", &p.tables)
	}
	var offset []byte
	if mode == binary.SegmentActive {
		if p.peek().kind == tRParen || p.isKeyword("func") || p.isRefType() {
			mode = binary.SegmentPassive
			if explicit {
				p.unexpected("an offset expression")
			}
		} else {
			offset = p.offset(nil)
		}
	}
	var items []byte
	n := uint32(0)
	exprs, refType := false, binary.FuncRef
	if p.isRefType() {
		exprs, refType = true, p.valType()
		for p.peek().kind == tLParen {
			if p.isField("item") {
				p.next()
				p.next()
				items = p.constExpr(items)
				p.rparen()
			} else {
				c := &funcCtx{p: p, body: items}
				c.folded()
				items = append(c.body, byte(binary.OpEnd))
			}
			n++
		}
	} else {
		if p.isKeyword("func") {
			p.next()
		}
		for p.peek().kind != tRParen {
			items = binary.AppendU32(items, p.index(&p.funcs))
			n++
		}
	}
	p.rparen()
	// The flags: bit 0 passive or declarative, bit 1 an explicit table
	// (or declarative), bit 2 expressions.
	var flags uint32
	switch mode {
	case binary.SegmentPassive:
		flags = 1
	case binary.SegmentDeclarative:
		flags = 3
	default:
		if table != 0 || exprs && refType != binary.FuncRef {
			flags = 2
		}
	}
	if exprs {
		flags |= 4
	}
	e := binary.AppendU32(nil, flags)
	if flags&2 != 0 && mode == binary.SegmentActive {
		e = binary.AppendU32(e, table)
	}
	e = append(e, offset...)
	if flags&3 != 0 {
		if exprs {
			e = append(e, byte(refType))
		} else {
			e = append(e, 0) // elemkind funcref
		}
	}
	p.elemSec.add(append(binary.AppendU32(e, n), items...))
}

// segmentUse reads the table or memory of a segment, (table x) or
// (memory x), or a bare index as WebAssembly 1.0 writes it; explicit is
// false (and the index 0) when there is none.
func (p *parser) segmentUse(kw string, sp *space) (idx uint32, explicit bool) {
	switch {
	case p.isField(kw):
		p.next()
		p.next()
		idx = p.index(sp)
		p.rparen()
		return idx, true
	case p.isIndex():
		return p.index(sp), true
	}
	return 0, false
}

// isRefType reports whether the next token is a reference type.
func (p *parser) isRefType() bool { return p.isKeyword("funcref") || p.isKeyword("externref") }

// dataField parses a data segment: active ((memory x)? or a bare memory
// index, and an offset) or passive, then its strings.
func (p *parser) dataField() {
	p.openField("data")
	p.optID()
	mem, explicit := p.segmentUse("memory", &p.mems)
	var e []byte
	switch {
	case p.peek().kind == tLParen:
		if mem != 0 {
			e = binary.AppendU32([]byte{2}, mem)
		} else {
			e = []byte{0}
		}
		e = p.offset(e)
	case explicit:
		p.unexpected("an offset expression")
	default:
		e = []byte{1} // passive
	}
	var data []byte
	for p.peek().kind != tRParen {
		data = append(data, p.str()...)
	}
	p.rparen()
	p.dataSec.add(append(binary.AppendU32(e, uint32(len(data))), data...))
}

func (p *parser) funcField() {
	_, imp, ok := p.fieldHead("func", binary.ExternFunc, &p.nFunc)
	if ok {
		t, _ := p.typeUse(true)
		p.importSec.add(binary.AppendU32(append(imp, byte(binary.ExternFunc)), t))
		p.rparen()
		return
	}
	t, names := p.typeUse(true)
	p.funcSec.add(binary.AppendU32(nil, t))
	c := &funcCtx{p: p, locals: map[string]uint32{}}
	for i, n := range names {
		c.addLocal(n, uint32(i))
	}
	c.nLocals = uint32(len(names))
	// Locals, as runs of one type.
	var runs []binary.LocalRun
	addRun := func(t binary.ValType) {
		if len(runs) > 0 && runs[len(runs)-1].Type == t {
			runs[len(runs)-1].Count++
		} else {
			runs = append(runs, binary.LocalRun{Count: 1, Type: t})
		}
		c.nLocals++
	}
	for p.isField("local") {
		p.next()
		p.next()
		if tok, id := p.optID(); id != "" {
			c.addLocal(id, c.nLocals)
			_ = tok
			addRun(p.valType())
		} else {
			for p.peek().kind != tRParen {
				addRun(p.valType())
			}
		}
		p.rparen()
	}
	c.instrs()
	p.rparen()
	var code []byte
	code = binary.AppendU32(code, uint32(len(runs)))
	for _, r := range runs {
		code = append(binary.AppendU32(code, r.Count), byte(r.Type))
	}
	code = append(append(code, c.body...), byte(binary.OpEnd))
	p.codeSec.add(append(binary.AppendU32(nil, uint32(len(code))), code...))
}

// encode writes the module's sections.
func (p *parser) encode() []byte {
	b := []byte(binary.Magic)
	b = append(b, binary.Version, 0, 0, 0)
	var ts section
	for _, t := range p.types {
		e := []byte{0x60}
		e = binary.AppendU32(e, uint32(len(t.Params)))
		for _, v := range t.Params {
			e = append(e, byte(v))
		}
		e = binary.AppendU32(e, uint32(len(t.Results)))
		for _, v := range t.Results {
			e = append(e, byte(v))
		}
		ts.add(e)
	}
	put := func(id byte, s section) {
		if s.n == 0 {
			return
		}
		body := append(binary.AppendU32(nil, s.n), s.b...)
		b = append(binary.AppendU32(append(b, id), uint32(len(body))), body...)
	}
	put(1, ts)
	put(2, p.importSec)
	put(3, p.funcSec)
	put(4, p.tableSec)
	put(5, p.memSec)
	put(6, p.globalSec)
	put(7, p.exportSec)
	if p.start != nil {
		b = append(binary.AppendU32(append(b, 8), uint32(len(p.start))), p.start...)
	}
	put(9, p.elemSec)
	put(10, p.codeSec)
	put(11, p.dataSec)
	return b
}
