package bytecode

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file implements the text form of kiln bytecode (see "Text form" in the
// package documentation): Assemble parses it and Disassemble prints it.
//
// The grammar, one item per line, with ';' starting a comment:
//
//	memory MIN MAX [import "QUOTED"] [export "QUOTED"]
//	data OFFSET "QUOTED"
//	host NAME (TYPES) -> (TYPES)
//	type NAME (TYPES) -> (TYPES)
//	global NAME TYPE [mut] = LITERAL [export "QUOTED"]
//	global NAME TYPE [mut] import "QUOTED" [export "QUOTED"]
//	table MIN [MAX] [import "QUOTED"] [export "QUOTED"]
//	elem OFFSET NAME ...
//	func NAME (TYPES) -> (TYPES)
//	  regs TYPE ...
//	LABEL:
//	  MNEMONIC OPERANDS
//	end
//	export "QUOTED" NAME
//
// Types, globals and functions each have their own namespace: call_indirect
// names a type, global.get and global.set a global, call and elem
// functions. Module.Types has no names: Disassemble calls type i "t<i>".
// The LITERAL of a global is written as the operand of the TYPE.const
// instruction. A table with no entries, no maximum, no import and no
// export is no table at all (see Module.HasTable).
//
// Unexported identifiers of this file start with "asm" (the assembler) or
// "text" (shared helpers and the disassembler).

// SyntaxError is the error Assemble returns. It locates the problem by source
// line and function.
//
// When the verifier rejects the assembled module, the SyntaxError wraps the
// *VerifyError in Err, so errors.As finds it. An error about one instruction
// carries the line of that instruction, and an error about a function as a
// whole the line of its func header. Module-level verifier errors have no
// line (Line is 0).
type SyntaxError struct {
	// Line is the 1-based line of the source the error refers to, or 0 when
	// the error concerns the module as a whole.
	Line int
	// Func is the name of the function the line belongs to, or "" when the
	// error is outside a function.
	Func string
	// Msg describes the problem.
	Msg string
	// Err is the underlying error, if any: a *VerifyError when the verifier
	// rejected the module.
	Err error
}

// Error formats the error like
//
//	line 12: func fib: unknown label "L9"
//
// leaving out "line N: " when Line is 0 and "func NAME: " when Func is empty.
func (e *SyntaxError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteString(": ")
	}
	if e.Func != "" {
		b.WriteString("func ")
		b.WriteString(e.Func)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error (a *VerifyError when the verifier
// rejected the module), or nil.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Assemble parses the text form of a module, verifies it with Verify and
// returns it.
//
// Every error is a *SyntaxError that names the source line and function of
// the problem; when the verifier rejects the module the *SyntaxError wraps
// the *VerifyError (see SyntaxError). Assemble reports the first problem it
// finds: syntax is checked line by line, labels when a function's "end" is
// reached, and the names of functions, host imports, types, globals and
// exports after the whole input has been read, so all of them may be used
// before they are declared. Assemble never panics, whatever its input.
func Assemble(src []byte) (*Module, error) { return AssembleLimits(src, Limits{}) }

// AssembleLimits is Assemble under limits: a module over one of them is
// refused with a *SyntaxError wrapping a *LimitError at the line where it
// crosses the limit, without reading further.
func AssembleLimits(src []byte, lim Limits) (*Module, error) {
	p := &asmParser{
		lim:        lim,
		hostIdx:    map[string]int{},
		funcIdx:    map[string]int{},
		typeIdx:    map[string]int{},
		globalIdx:  map[string]int{},
		exportLine: map[string]int{},
	}
	if err := p.run(src); err != nil {
		return nil, err
	}
	m := &Module{Memory: p.mem, Data: p.data, Hosts: p.hosts, Types: p.sigs, Globals: p.globals, Table: p.table, MoreTables: p.moreTables}
	for _, e := range p.elems {
		m.Elems = append(m.Elems, e.seg)
	}
	m.Funcs = make([]*Function, len(p.funcs))
	for i, f := range p.funcs {
		m.Funcs[i] = f.fn
	}
	for _, e := range p.exports {
		m.Exports = append(m.Exports, Export{Name: e.name, Func: uint32(e.fn)})
	}
	if err := Verify(m); err != nil {
		return nil, p.verifyError(err)
	}
	return m, nil
}

// Token kinds. Punctuation tokens use their own character as kind.
const (
	asmEOL    = 0   // past the last token of the line
	asmWord   = 'w' // a run of characters up to whitespace, punctuation, '"' or ';'
	asmString = 's' // a double-quoted string, text holding the quoted form
)

type asmToken struct {
	kind byte
	text string
}

// asmFunc is a function being assembled.
type asmFunc struct {
	fn       *Function
	line     int // line of the func header
	regsLine int // line of the regs line, or 0
	labels   map[string]asmLabel
	lines    []int // source line of each instruction
	refs     []asmLabelRef
	calls    []asmCallRef
	size     int // instructions and switch table entries (Limits.FuncSize)
}

type asmLabel struct {
	pc, line int
}

// asmLabelRef is a branch operand to resolve at the end of the function:
// slot -1 is the instruction's Target, slot i >= 0 its Table[i].
type asmLabelRef struct {
	pc, slot int
	name     string
}

// asmCallRef is a callee, type or global name to resolve once the whole
// input has been read.
type asmCallRef struct {
	pc   int
	name string
}

// asmElem is an element segment whose function names are resolved once
// every function has been read.
type asmElem struct {
	seg   ElemSegment
	names []string
	line  int
}

type asmExport struct {
	name   string
	fnName string
	fn     int
	line   int
}

type asmParser struct {
	lim  Limits     // the limits checked while parsing
	line int        // current line number (1-based)
	toks []asmToken // tokens of the current line
	pos  int        // next token
	op   Op         // instruction being parsed, or OpInvalid
	err  *SyntaxError

	mem        Memory
	memLine    int
	data       []DataSegment
	hosts      []HostImport
	hostLines  []int
	hostIdx    map[string]int
	funcs      []*asmFunc
	funcIdx    map[string]int
	sigs       []Signature
	typeIdx    map[string]int
	typeLines  []int
	globals    []Global
	globalIdx  map[string]int
	globalLine []int
	table      Table
	tableLine  int
	moreTables []Table
	elems      []asmElem
	exports    []asmExport
	exportLine map[string]int
	cur        *asmFunc // function whose body is being read, or nil
}

func (p *asmParser) run(src []byte) error {
	for start := 0; start < len(src); {
		line := src[start:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			start += i + 1
		} else {
			start = len(src)
		}
		p.line++
		p.lex(line)
		if p.err == nil {
			p.parseLine()
		}
		if p.err != nil {
			return p.err
		}
	}
	return p.finish()
}

// errAt returns a SyntaxError for the given line and function.
func (p *asmParser) errAt(line int, fn *asmFunc, format string, args ...any) *SyntaxError {
	e := &SyntaxError{Line: line, Msg: fmt.Sprintf(format, args...)}
	if fn != nil {
		e.Func = fn.fn.Name
	}
	return e
}

// fail records an error on the current line unless one is recorded already.
func (p *asmParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = p.errAt(p.line, p.cur, format, args...)
	}
}

// failLimit fails with err, a *LimitError, if it is not nil.
func (p *asmParser) failLimit(err error) {
	if err != nil && p.err == nil {
		p.err = p.errAt(p.line, p.cur, "%v", err)
		p.err.Err = err
	}
}

func asmIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

func asmIsWordEnd(c byte) bool {
	switch c {
	case ',', '(', ')', '[', ']', '"', ';':
		return true
	}
	return asmIsSpace(c)
}

// lex splits a line into tokens, dropping the comment.
func (p *asmParser) lex(line []byte) {
	p.toks, p.pos, p.op = p.toks[:0], 0, OpInvalid
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case asmIsSpace(c):
			i++
		case c == ';':
			return
		case c == ',' || c == '(' || c == ')' || c == '[' || c == ']':
			p.toks = append(p.toks, asmToken{kind: c})
			i++
		case c == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				p.fail("unterminated string")
				return
			}
			p.toks = append(p.toks, asmToken{kind: asmString, text: string(line[i : j+1])})
			i = j + 1
		default:
			j := i + 1
			for j < len(line) && !asmIsWordEnd(line[j]) {
				j++
			}
			p.toks = append(p.toks, asmToken{kind: asmWord, text: string(line[i:j])})
			i = j
		}
	}
}

// asmDescribe names a token for an error message.
func asmDescribe(t asmToken) string {
	switch t.kind {
	case asmEOL:
		return "end of line"
	case asmWord:
		return strconv.Quote(asmShorten(t.text))
	case asmString:
		return "string " + asmShorten(t.text)
	}
	return strconv.Quote(string(t.kind))
}

// asmShorten truncates long source text quoted in error messages.
func asmShorten(s string) string {
	const max = 48
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

func (p *asmParser) peek() asmToken {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return asmToken{}
}

func (p *asmParser) atEOL() bool { return p.pos >= len(p.toks) }

// unexpected records that the next token is not what was wanted.
func (p *asmParser) unexpected(want string) {
	t := p.peek()
	if t.kind == asmEOL && p.op != OpInvalid {
		p.fail("missing operand: %s takes %s", p.op, asmUsage(p.op))
		return
	}
	p.fail("expected %s, found %s", want, asmDescribe(t))
}

// punct consumes the punctuation token c.
func (p *asmParser) punct(c byte) {
	if p.err != nil {
		return
	}
	if p.peek().kind != c {
		p.unexpected(strconv.Quote(string(c)))
		return
	}
	p.pos++
}

// word consumes a word token and returns its text.
func (p *asmParser) word(want string) string {
	if p.err != nil {
		return ""
	}
	t := p.peek()
	if t.kind != asmWord {
		p.unexpected(want)
		return ""
	}
	p.pos++
	return t.text
}

// endLine checks that the line has no more tokens.
func (p *asmParser) endLine(after string) {
	if p.err == nil && !p.atEOL() {
		p.fail("unexpected %s after %s", asmDescribe(p.peek()), after)
	}
}

// name consumes an identifier naming a function or host import.
func (p *asmParser) name(what string) string {
	s := p.word(what)
	if p.err == nil && !IsIdentifier(s) {
		p.fail("invalid %s %q", what, asmShorten(s))
	}
	return s
}

// str consumes a quoted string and returns its value.
func (p *asmParser) str(what string) string {
	if p.err != nil {
		return ""
	}
	t := p.peek()
	if t.kind != asmString {
		p.unexpected(what)
		return ""
	}
	p.pos++
	s, err := strconv.Unquote(t.text)
	if err != nil {
		p.fail("malformed string %s", asmShorten(t.text))
	}
	return s
}

// uint32Num consumes an unsigned decimal or 0x hexadecimal 32-bit number.
func (p *asmParser) uint32Num(what string) uint32 {
	s := p.word(what)
	if p.err != nil {
		return 0
	}
	u, ok := textParseUint(s)
	if !ok {
		p.fail("invalid %s %q", what, asmShorten(s))
		return 0
	}
	if u > math.MaxUint32 {
		p.fail("%s %s does not fit in 32 bits", what, asmShorten(s))
		return 0
	}
	return uint32(u)
}

// types consumes a parenthesized, space-separated list of types.
func (p *asmParser) types() []Type {
	p.punct('(')
	var ts []Type
	for p.err == nil && p.peek().kind != ')' {
		if t := p.peek(); t.kind == asmWord && t.text == "->" {
			p.unexpected(`")"`)
			break
		}
		ts = append(ts, p.typ())
	}
	p.punct(')')
	return ts
}

func (p *asmParser) typ() Type {
	s := p.word("a type")
	switch s {
	case "i64":
		return I64
	case "f64":
		return F64
	case "i32":
		return I32
	case "f32":
		return F32
	}
	if p.err == nil {
		p.fail("unknown type %q (want i32, i64, f32 or f64)", asmShorten(s))
	}
	return 0
}

// signature consumes "(TYPES) -> (TYPES)".
func (p *asmParser) signature() Signature {
	var sig Signature
	sig.Params = p.types()
	p.arrow()
	sig.Results = p.types()
	return sig
}

func (p *asmParser) arrow() {
	if p.err == nil {
		if t := p.peek(); t.kind != asmWord || t.text != "->" {
			p.unexpected(`"->"`)
			return
		}
		p.pos++
	}
}

func (p *asmParser) parseLine() {
	if len(p.toks) == 0 {
		return
	}
	first := p.toks[0]
	if first.kind != asmWord {
		p.fail("unexpected %s at the start of a line", asmDescribe(first))
		return
	}
	p.pos = 1
	w := first.text
	if strings.HasSuffix(w, ":") {
		p.labelDef(w[:len(w)-1])
		return
	}
	switch w {
	case "memory", "data", "host", "func", "export", "type", "global", "table", "elem":
		if p.cur != nil {
			if w == "func" {
				p.fail(`missing "end" before the next func`)
			} else {
				p.fail(`%q is not allowed inside a function (missing "end"?)`, w)
			}
			return
		}
		switch w {
		case "memory":
			p.memory()
		case "data":
			p.dataSegment()
		case "host":
			p.host()
		case "func":
			p.funcHeader()
		case "export":
			p.export()
		case "type":
			p.typeDecl()
		case "global":
			p.global()
		case "table":
			p.tableDecl()
		case "elem":
			p.elem()
		}
	case "end":
		p.end()
	case "regs":
		p.regs()
	default:
		op, ok := OpByName(w)
		switch {
		case !ok && p.cur == nil:
			p.fail("unknown directive %q", asmShorten(w))
		case !ok:
			p.fail("unknown instruction %q", asmShorten(w))
		case p.cur == nil:
			p.fail("instruction %s outside a function", op)
		default:
			p.instr(op)
		}
	}
}

func (p *asmParser) memory() {
	if p.memLine != 0 {
		p.fail("duplicate memory declaration (the first is on line %d)", p.memLine)
		return
	}
	min := p.uint32Num("minimum page count")
	max := p.uint32Num("maximum page count")
	var imp, exp string
	if p.keyword("import") {
		imp = p.nonEmptyStr("import name")
	}
	if p.keyword("export") {
		exp = p.nonEmptyStr("export name")
	}
	p.endLine("the memory declaration")
	p.mem, p.memLine = Memory{MinPages: min, MaxPages: max, Import: imp, Export: exp}, p.line
}

func (p *asmParser) dataSegment() {
	var off uint32
	passive := p.keyword("passive")
	if !passive {
		off = p.uint32Num("data offset")
	}
	s := p.str("a quoted string")
	p.endLine("the data segment")
	p.data = append(p.data, DataSegment{Offset: off, Bytes: []byte(s), Passive: passive})
}

func (p *asmParser) host() {
	name := p.name("host import name")
	sig := p.signature()
	p.endLine("the host import's signature")
	if p.err != nil {
		return
	}
	if first, dup := p.hostIdx[name]; dup {
		p.fail("duplicate host import %q (the first is on line %d)", name, p.hostLines[first])
		return
	}
	p.hostIdx[name] = len(p.hosts)
	p.hosts = append(p.hosts, HostImport{Name: name, Sig: sig})
	p.hostLines = append(p.hostLines, p.line)
}

func (p *asmParser) typeDecl() {
	name := p.name("type name")
	sig := p.signature()
	p.endLine("the type's signature")
	if p.err != nil {
		return
	}
	if first, dup := p.typeIdx[name]; dup {
		p.fail("duplicate type %q (the first is on line %d)", name, p.typeLines[first])
		return
	}
	p.typeIdx[name] = len(p.sigs)
	p.sigs = append(p.sigs, sig)
	p.typeLines = append(p.typeLines, p.line)
}

// keyword consumes the word kw if it comes next and reports whether it did.
func (p *asmParser) keyword(kw string) bool {
	if t := p.peek(); p.err == nil && t.kind == asmWord && t.text == kw {
		p.pos++
		return true
	}
	return false
}

// nonEmptyStr consumes a quoted string that must not be empty.
func (p *asmParser) nonEmptyStr(what string) string {
	s := p.str("a quoted " + what)
	if p.err == nil && s == "" {
		p.fail("empty %s", what)
	}
	return s
}

// global parses "global NAME TYPE [mut] = LITERAL [export "QUOTED"]" or
// "global NAME TYPE [mut] import "QUOTED" [export "QUOTED"]".
func (p *asmParser) global() {
	g := Global{Name: p.name("global name")}
	g.Type = p.typ()
	g.Mutable = p.keyword("mut")
	switch {
	case p.keyword("="):
		switch g.Type {
		case I64:
			g.Init = uint64(p.integer())
		case I32:
			g.Init = uint64(uint32(p.integer32()))
		case F64:
			g.Init = uint64(p.float())
		case F32:
			g.Init = uint64(p.float32())
		}
	case p.keyword("import"):
		g.Import = p.nonEmptyStr("import name")
	default:
		p.unexpected(`"=" or "import"`)
	}
	if p.keyword("export") {
		g.Export = p.nonEmptyStr("export name")
	}
	p.endLine("the global")
	if p.err != nil {
		return
	}
	if first, dup := p.globalIdx[g.Name]; dup {
		p.fail("duplicate global %q (the first is on line %d)", g.Name, p.globalLine[first])
		return
	}
	p.globalIdx[g.Name] = len(p.globals)
	p.globals = append(p.globals, g)
	p.globalLine = append(p.globalLine, p.line)
}

// tableDecl parses "table MIN [MAX] [externref] [import "QUOTED"]
// [export "QUOTED"]"; the tables are numbered in the order of their
// lines.
func (p *asmParser) tableDecl() {
	var t Table
	t.Min = p.uint32Num("minimum table size")
	if tok := p.peek(); p.err == nil && tok.kind == asmWord && tok.text != "import" && tok.text != "export" && tok.text != "externref" {
		t.Max, t.HasMax = p.uint32Num("maximum table size"), true
	}
	t.Extern = p.keyword("externref")
	if p.keyword("import") {
		t.Import = p.nonEmptyStr("import name")
	}
	if p.keyword("export") {
		t.Export = p.nonEmptyStr("export name")
	}
	p.endLine("the table declaration")
	if p.tableLine != 0 {
		p.moreTables = append(p.moreTables, t)
		return
	}
	p.table, p.tableLine = t, p.line
}

// elem parses "elem [table N] OFFSET ENTRY ...", "elem passive ENTRY ..."
// and "elem declare ENTRY ...", where an ENTRY is a function name or null.
func (p *asmParser) elem() {
	e := asmElem{line: p.line}
	switch {
	case p.keyword("passive"):
		e.seg.Mode = ElemPassive
	case p.keyword("declare"):
		e.seg.Mode = ElemDeclarative
	default:
		if p.keyword("table") {
			e.seg.Table = p.uint32Num("table index")
		}
		e.seg.Offset = p.uint32Num("element segment offset")
	}
	for p.err == nil && !p.atEOL() {
		e.names = append(e.names, p.name("function name"))
	}
	if p.err == nil {
		p.elems = append(p.elems, e)
	}
}

func (p *asmParser) funcHeader() {
	name := p.name("function name")
	if p.err != nil {
		return
	}
	f := &asmFunc{fn: &Function{Name: name}, line: p.line, labels: map[string]asmLabel{}}
	p.cur = f // errors in the header name the function
	f.fn.Sig = p.signature()
	p.endLine("the function's signature")
	if p.err != nil {
		return
	}
	if first, dup := p.funcIdx[name]; dup {
		p.fail("duplicate function %q (the first is on line %d)", name, p.funcs[first].line)
		return
	}
	f.fn.Regs = append([]Type(nil), f.fn.Sig.Params...)
	p.failLimit(p.lim.overSoFar("Funcs", "", len(p.funcs)+1, p.lim.Funcs))
	p.failLimit(p.lim.overSoFar("Regs", name, len(f.fn.Regs), p.lim.Regs))
	p.funcIdx[name] = len(p.funcs)
	p.funcs = append(p.funcs, f)
}

func (p *asmParser) export() {
	name := p.str("a quoted export name")
	fn := p.name("function name")
	p.endLine("the exported function")
	if p.err != nil {
		return
	}
	if name == "" {
		p.fail("empty export name")
		return
	}
	if first, dup := p.exportLine[name]; dup {
		p.fail("duplicate export %q (the first is on line %d)", asmShorten(name), first)
		return
	}
	p.exportLine[name] = p.line
	p.exports = append(p.exports, asmExport{name: name, fnName: fn, line: p.line})
}

func (p *asmParser) regs() {
	f := p.cur
	switch {
	case f == nil:
		p.fail("regs outside a function")
		return
	case f.regsLine != 0:
		p.fail("duplicate regs line (the first is on line %d)", f.regsLine)
		return
	case len(f.fn.Code) > 0:
		p.fail("regs must come before the first instruction")
		return
	}
	f.regsLine = p.line
	for p.err == nil && !p.atEOL() {
		f.fn.Regs = append(f.fn.Regs, p.typ())
		p.failLimit(p.lim.overSoFar("Regs", f.fn.Name, len(f.fn.Regs), p.lim.Regs))
	}
}

func (p *asmParser) labelDef(name string) {
	f := p.cur
	switch {
	case f == nil:
		p.fail("label %q outside a function", asmShorten(name))
	case !IsIdentifier(name):
		p.fail("invalid label name %q", asmShorten(name))
	case len(p.toks) > 1:
		p.fail("label %s: must be on a line of its own", name)
	default:
		if l, dup := f.labels[name]; dup {
			p.fail("duplicate label %q (the first is on line %d)", name, l.line)
			return
		}
		f.labels[name] = asmLabel{pc: len(f.fn.Code), line: p.line}
	}
}

// end closes the current function and resolves its labels.
func (p *asmParser) end() {
	f := p.cur
	if f == nil {
		p.fail("end outside a function")
		return
	}
	p.endLine(`"end"`)
	if p.err != nil {
		return
	}
	for _, r := range f.refs {
		l, ok := f.labels[r.name]
		if !ok {
			p.err = p.errAt(f.lines[r.pc], f, "unknown label %q", r.name)
			return
		}
		if l.pc >= len(f.fn.Code) {
			p.err = p.errAt(f.lines[r.pc], f, "label %q (line %d) marks no instruction: it is at the end of the function", r.name, l.line)
			return
		}
		in := &f.fn.Code[r.pc]
		if r.slot < 0 {
			in.Target = uint32(l.pc)
		} else {
			in.Table[r.slot] = uint32(l.pc)
		}
	}
	f.refs, f.labels = nil, nil
	p.cur = nil
}

// finish checks the end of the input and resolves callee and export names.
func (p *asmParser) finish() error {
	if f := p.cur; f != nil {
		return p.errAt(f.line, f, `missing "end"`)
	}
	for _, f := range p.funcs {
		for _, c := range f.calls {
			in := &f.fn.Code[c.pc]
			idx, what := p.funcIdx, "function"
			switch in.Op {
			case OpCallHost:
				idx, what = p.hostIdx, "host import"
			case OpCallIndirect:
				idx, what = p.typeIdx, "type"
			case OpGlobalGet, OpGlobalSet:
				idx, what = p.globalIdx, "global"
			}
			i, ok := idx[c.name]
			if !ok {
				return p.errAt(f.lines[c.pc], f, "unknown %s %q", what, c.name)
			}
			in.Callee = uint32(i)
		}
		f.calls = nil
	}
	for i := range p.elems {
		e := &p.elems[i]
		for _, name := range e.names {
			if name == "null" {
				e.seg.Funcs = append(e.seg.Funcs, NullFunc)
				continue
			}
			fi, ok := p.funcIdx[name]
			if !ok {
				return p.errAt(e.line, nil, "element segment %d: unknown function %q", i, name)
			}
			e.seg.Funcs = append(e.seg.Funcs, uint32(fi))
		}
	}
	for i := range p.exports {
		e := &p.exports[i]
		fi, ok := p.funcIdx[e.fnName]
		if !ok {
			return p.errAt(e.line, nil, "export %q of unknown function %q", asmShorten(e.name), e.fnName)
		}
		e.fn = fi
	}
	return nil
}

// verifyError turns a verifier error into a SyntaxError with the source line
// of the instruction or function it concerns.
func (p *asmParser) verifyError(err error) error {
	var ve *VerifyError
	if !errors.As(err, &ve) {
		return &SyntaxError{Msg: err.Error(), Err: err}
	}
	if ve.Func < 0 || ve.Func >= len(p.funcs) {
		return &SyntaxError{Msg: ve.Msg, Err: err}
	}
	f := p.funcs[ve.Func]
	se := &SyntaxError{Line: f.line, Func: f.fn.Name, Msg: ve.Msg, Err: err}
	if ve.Offset >= 0 && ve.Offset < len(f.lines) {
		se.Line = f.lines[ve.Offset]
		se.Msg = fmt.Sprintf("instruction %d (%s): %s", ve.Offset, ve.Op, ve.Msg)
	}
	return se
}

// asmUsage describes the operands of op for error messages.
func asmUsage(op Op) string {
	info := op.Info()
	switch info.Format {
	case FormatConst:
		if op == OpF64Const {
			return "rD, FLOAT"
		}
		return "rD, INTEGER"
	case FormatUnary:
		return "rD, rA"
	case FormatBinary:
		if info.Imm {
			return "rD, rA, rB or rD, rA, INTEGER"
		}
		return "rD, rA, rB"
	case FormatSelect:
		return "rD, rA, rB, rC"
	case FormatMemoryBulk:
		return "rA, rB, rC"
	case FormatSegmentBulk:
		return "SEGMENT, rA, rB, rC"
	case FormatSegment:
		return "SEGMENT"
	case FormatRefFunc:
		return "rD, FUNCTION"
	case FormatTableGet:
		return "rD, TABLE, rA"
	case FormatTableSet:
		return "TABLE, rA, rB"
	case FormatTableSize:
		return "rD, TABLE"
	case FormatTableGrow:
		return "rD, TABLE, rA, rB"
	case FormatTableFill:
		return "TABLE, rA, rB, rC"
	case FormatTableBulk:
		if op == OpTableInit {
			return "SEGMENT, TABLE, rA, rB, rC"
		}
		return "TABLE, TABLE, rA, rB, rC"
	case FormatLoad:
		return "rD, [rA+OFFSET]"
	case FormatStore:
		return "[rA+OFFSET], rB"
	case FormatMemorySize:
		return "rD"
	case FormatJump:
		return "LABEL"
	case FormatBranch:
		return "rA, LABEL"
	case FormatCmpBranch:
		return "rA, rB, LABEL or rA, INTEGER, LABEL"
	case FormatSwitch:
		return "rA, [LABEL, ...], LABEL"
	case FormatCall:
		return "NAME (ARGS) -> (RESULTS)"
	case FormatReturn:
		return "rA, ... (or nothing)"
	case FormatTrap:
		return "INTEGER"
	case FormatGlobalGet:
		return "rD, GLOBAL"
	case FormatGlobalSet:
		return "GLOBAL, rA"
	case FormatCallIndirect:
		return "TYPE, [TABLE,] rA (ARGS) -> (RESULTS)"
	}
	return "no operands"
}

// instr parses the operands of op and appends the instruction.
func (p *asmParser) instr(op Op) {
	f := p.cur
	p.op = op
	info := op.Info()
	in := Instr{Op: op}
	var refs []asmLabelRef
	callee := ""
	// ref consumes a label for the Target (slot -1) or Table[slot].
	ref := func(slot int) {
		if name := p.labelRef(); p.err == nil {
			refs = append(refs, asmLabelRef{pc: len(f.fn.Code), slot: slot, name: name})
		}
	}
	switch info.Format {
	case FormatConst:
		in.Dst = p.reg()
		p.punct(',')
		switch op {
		case OpF64Const:
			in.Imm = p.float()
		case OpF32Const:
			in.Imm = p.float32()
		case OpI32Const:
			in.Imm = p.integer32()
		default:
			in.Imm = p.integer()
		}
	case FormatUnary:
		in.Dst = p.reg()
		p.punct(',')
		in.A = p.reg()
	case FormatBinary:
		in.Dst = p.reg()
		p.punct(',')
		in.A = p.reg()
		p.punct(',')
		in.B, in.Imm, in.UseImm = p.regOrImm(info.Imm)
	case FormatSegment:
		in.Callee = p.uint32Num("segment index")
	case FormatRefFunc:
		in.Dst = p.reg()
		p.punct(',')
		callee = p.name("function name")
	case FormatTableGet, FormatTableSize, FormatTableGrow:
		in.Dst = p.reg()
		p.punct(',')
		in.Callee = p.uint32Num("table index")
		if info.Format != FormatTableSize {
			p.punct(',')
			in.A = p.reg()
		}
		if info.Format == FormatTableGrow {
			p.punct(',')
			in.B = p.reg()
		}
	case FormatTableSet, FormatTableFill, FormatTableBulk:
		in.Callee = p.uint32Num("index")
		p.punct(',')
		if info.Format == FormatTableBulk {
			in.Imm = int64(p.uint32Num("table index"))
			p.punct(',')
		}
		in.A = p.reg()
		p.punct(',')
		in.B = p.reg()
		if info.Format != FormatTableSet {
			p.punct(',')
			in.C = p.reg()
		}
	case FormatSelect, FormatMemoryBulk, FormatSegmentBulk:
		switch info.Format {
		case FormatSelect:
			in.Dst = p.reg()
			p.punct(',')
		case FormatSegmentBulk:
			in.Callee = p.uint32Num("segment index")
			p.punct(',')
		}
		in.A = p.reg()
		p.punct(',')
		in.B = p.reg()
		p.punct(',')
		in.C = p.reg()
	case FormatLoad:
		in.Dst = p.reg()
		p.punct(',')
		in.A, in.Imm = p.memOperand()
	case FormatStore:
		in.A, in.Imm = p.memOperand()
		p.punct(',')
		in.B = p.reg()
	case FormatMemorySize:
		in.Dst = p.reg()
	case FormatJump:
		ref(-1)
	case FormatBranch:
		in.A = p.reg()
		p.punct(',')
		ref(-1)
	case FormatCmpBranch:
		in.A = p.reg()
		p.punct(',')
		in.B, in.Imm, in.UseImm = p.regOrImm(true)
		p.punct(',')
		ref(-1)
	case FormatSwitch:
		in.A = p.reg()
		p.punct(',')
		p.punct('[')
		for p.err == nil && p.peek().kind != ']' {
			if len(in.Table) > 0 {
				p.punct(',')
			}
			ref(len(in.Table))
			in.Table = append(in.Table, 0)
		}
		p.punct(']')
		p.punct(',')
		ref(-1)
	case FormatCall:
		what := "function name"
		if op == OpCallHost {
			what = "host import name"
		}
		callee = p.name(what)
		in.Args = p.regList()
		if t := p.peek(); p.err == nil && t.kind == asmWord && t.text == "->" {
			p.pos++
			in.Results = p.regList()
		}
	case FormatReturn:
		for p.err == nil && !p.atEOL() {
			if len(in.Args) > 0 {
				p.punct(',')
			}
			in.Args = append(in.Args, p.reg())
		}
	case FormatTrap:
		in.Imm = p.integer()
	case FormatGlobalGet:
		in.Dst = p.reg()
		p.punct(',')
		callee = p.name("global name")
	case FormatGlobalSet:
		callee = p.name("global name")
		p.punct(',')
		in.A = p.reg()
	case FormatCallIndirect:
		callee = p.name("type name")
		p.punct(',')
		if t := p.peek(); p.err == nil && t.kind == asmWord && t.text != "" && t.text[0] >= '0' && t.text[0] <= '9' {
			in.Imm = int64(p.uint32Num("table index"))
			p.punct(',')
		}
		in.A = p.reg()
		in.Args = p.regList()
		if t := p.peek(); p.err == nil && t.kind == asmWord && t.text == "->" {
			p.pos++
			in.Results = p.regList()
		}
	}
	if p.err == nil && !p.atEOL() {
		p.fail("too many operands: %s takes %s", op, asmUsage(op))
	}
	if p.err != nil {
		return
	}
	f.refs = append(f.refs, refs...)
	if callee != "" {
		f.calls = append(f.calls, asmCallRef{pc: len(f.fn.Code), name: callee})
	}
	f.size += 1 + len(in.Table)
	if p.failLimit(p.lim.overSoFar("FuncSize", f.fn.Name, f.size, p.lim.FuncSize)); p.err != nil {
		return
	}
	f.fn.Code = append(f.fn.Code, in)
	f.lines = append(f.lines, p.line)
}

// labelRef consumes a label reference.
func (p *asmParser) labelRef() string {
	s := p.word("a label")
	if p.err == nil && !IsIdentifier(s) {
		p.fail("invalid label name %q", asmShorten(s))
	}
	return s
}

// reg consumes a register operand.
func (p *asmParser) reg() Reg {
	if p.err != nil {
		return 0
	}
	t := p.peek()
	if t.kind != asmWord || !strings.HasPrefix(t.text, "r") {
		p.unexpected("a register")
		return 0
	}
	p.pos++
	return p.regText(t.text)
}

// regText parses "rN" (N decimal without leading zeros).
func (p *asmParser) regText(s string) Reg {
	d := strings.TrimPrefix(s, "r")
	if len(d) == len(s) || !textAllDigits(d) || len(d) > 1 && d[0] == '0' {
		p.fail("invalid register %q", asmShorten(s))
		return 0
	}
	n, err := strconv.ParseUint(d, 10, 32)
	if err != nil {
		p.fail("register %s does not fit in 32 bits", asmShorten(s))
		return 0
	}
	return Reg(n)
}

// regOrImm consumes a register or, if immOK, an integer immediate.
func (p *asmParser) regOrImm(immOK bool) (r Reg, imm int64, useImm bool) {
	if p.err != nil {
		return 0, 0, false
	}
	t := p.peek()
	if t.kind != asmWord && immOK {
		p.unexpected("a register or an integer")
		return 0, 0, false
	}
	if t.kind != asmWord || strings.HasPrefix(t.text, "r") {
		return p.reg(), 0, false
	}
	if !immOK {
		p.fail("%s takes no immediate operand", p.op)
		return 0, 0, false
	}
	return 0, p.integer(), true
}

// regList consumes "(r1, r2, ...)".
func (p *asmParser) regList() []Reg {
	p.punct('(')
	var rs []Reg
	for p.err == nil && p.peek().kind != ')' {
		if len(rs) > 0 {
			p.punct(',')
		}
		rs = append(rs, p.reg())
	}
	p.punct(')')
	return rs
}

// integer consumes a 64-bit integer immediate.
func (p *asmParser) integer() int64 {
	s := p.word("an integer")
	if p.err != nil {
		return 0
	}
	v, ok, inRange := textParseInt(s)
	switch {
	case !ok:
		p.fail("invalid integer %q", asmShorten(s))
	case !inRange:
		p.fail("integer %s out of range", asmShorten(s))
	}
	return v
}

// float consumes an f64 constant and returns its bits.
func (p *asmParser) float() int64 {
	s := p.word("a float")
	if p.err != nil {
		return 0
	}
	bits, msg := textParseFloat(s)
	if msg != "" {
		p.fail("%s", msg)
	}
	return int64(bits)
}

// float32 consumes an f32 literal and returns its bits: a decimal float
// rounded to the nearest f32, inf, -inf, nan, -nan or nan:0x followed by
// the 8 hexadecimal digits of a NaN's bits.
func (p *asmParser) float32() int64 {
	s := p.word("a float")
	if p.err != nil {
		return 0
	}
	bits, msg := textParseFloat32(s)
	if msg != "" {
		p.fail("%s", msg)
	}
	return int64(bits)
}

// integer32 consumes an i32 literal: an integer in the int32 or uint32
// range, returned as the int32 with the same bits.
func (p *asmParser) integer32() int64 {
	v := p.integer()
	if p.err == nil && (v < math.MinInt32 || v > math.MaxUint32) {
		p.fail("i32 constant %d out of range", v)
	}
	return int64(int32(uint32(v)))
}

// memOperand consumes "[rA]", "[rA+OFF]" or "[rA-OFF]"; spaces may surround
// the sign.
func (p *asmParser) memOperand() (Reg, int64) {
	p.punct('[')
	var parts []string
	for p.err == nil && p.peek().kind == asmWord {
		parts = append(parts, p.peek().text)
		p.pos++
	}
	if p.err == nil && len(parts) == 0 {
		p.unexpected("a register")
	}
	p.punct(']')
	if p.err != nil {
		return 0, 0
	}
	s := strings.Join(parts, "")
	bad := func() (Reg, int64) {
		p.fail("invalid memory operand %q (want [rA], [rA+OFFSET] or [rA-OFFSET])", asmShorten(strings.Join(parts, " ")))
		return 0, 0
	}
	// A sign may only appear between two words or inside one, never where
	// joining would glue the register to a number.
	for i := 1; i < len(parts); i++ {
		a, b := parts[i-1], parts[i]
		if !strings.HasSuffix(a, "+") && !strings.HasSuffix(a, "-") && b[0] != '+' && b[0] != '-' {
			return bad()
		}
	}
	k := strings.IndexAny(s, "+-")
	if k < 0 {
		if len(parts) != 1 {
			return bad()
		}
		return p.regText(s), 0
	}
	if k == 0 {
		return bad()
	}
	r := p.regText(s[:k])
	mag, ok := textParseUint(s[k+1:])
	if !ok {
		return bad()
	}
	if s[k] == '-' {
		if mag > -math.MinInt32 {
			p.fail("memory offset %s does not fit in 32 bits", asmShorten(s[k:]))
		}
		return r, -int64(mag)
	}
	if mag > math.MaxInt32 {
		p.fail("memory offset %s does not fit in 32 bits", asmShorten(s[k:]))
	}
	return r, int64(mag)
}

func textAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func textAllHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// textParseUint parses an unsigned decimal or 0x hexadecimal 64-bit number.
func textParseUint(s string) (uint64, bool) {
	base, digits := 10, s
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		base, digits = 16, h
	} else if h, ok := strings.CutPrefix(s, "0X"); ok {
		base, digits = 16, h
	}
	if base == 16 && !textAllHex(digits) || base == 10 && !textAllDigits(digits) {
		return 0, false
	}
	u, err := strconv.ParseUint(digits, base, 64)
	return u, err == nil
}

// textParseInt parses a 64-bit immediate: a decimal integer in the int64
// range, or a 0x hexadecimal bit pattern of up to 64 bits; either may have a
// sign (a negated hexadecimal number must be at most 2^63). ok reports
// whether s is a number at all, inRange whether it fits.
func textParseInt(s string) (v int64, ok, inRange bool) {
	neg := false
	if rest, cut := strings.CutPrefix(s, "-"); cut {
		neg, s = true, rest
	} else if rest, cut := strings.CutPrefix(s, "+"); cut {
		s = rest
	}
	hex := strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")
	if hex && !textAllHex(s[2:]) || !hex && !textAllDigits(s) {
		return 0, false, false
	}
	u, good := textParseUint(s)
	switch {
	case !good:
		return 0, true, false // too many digits
	case neg && u > 1<<63:
		return 0, true, false
	case neg:
		return -int64(u), true, true
	case !hex && u > math.MaxInt64:
		return 0, true, false
	}
	return int64(u), true, true
}

const textCanonicalNaN = 0x7ff8000000000000

// textParseFloat parses an f64 constant: a decimal float, inf, -inf, nan,
// -nan, or nan:0xBITS. It returns the bits, or a message saying what is
// wrong.
func textParseFloat(s string) (uint64, string) {
	switch s {
	case "inf", "+inf":
		return math.Float64bits(math.Inf(1)), ""
	case "-inf":
		return math.Float64bits(math.Inf(-1)), ""
	case "nan", "+nan":
		return textCanonicalNaN, ""
	case "-nan":
		return textCanonicalNaN | 1<<63, ""
	}
	if rest, ok := strings.CutPrefix(s, "nan:"); ok {
		if !strings.HasPrefix(rest, "0x") && !strings.HasPrefix(rest, "0X") {
			return 0, fmt.Sprintf("invalid NaN %q (want nan:0x followed by 16 hexadecimal digits)", asmShorten(s))
		}
		bits, ok := textParseUint(rest)
		if !ok {
			return 0, fmt.Sprintf("invalid NaN %q (want nan:0x followed by 16 hexadecimal digits)", asmShorten(s))
		}
		if f := math.Float64frombits(bits); !math.IsNaN(f) {
			return 0, fmt.Sprintf("%s is not a NaN bit pattern", asmShorten(s))
		}
		return bits, ""
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
		default:
			return 0, fmt.Sprintf("invalid float %q", asmShorten(s))
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if !digit || err != nil && !math.IsInf(f, 0) {
		return 0, fmt.Sprintf("invalid float %q", asmShorten(s))
	}
	if err != nil {
		return 0, fmt.Sprintf("float %s out of range", asmShorten(s))
	}
	return math.Float64bits(f), ""
}

// textCanonicalNaN32 is the bits of the f32 written "nan".
const textCanonicalNaN32 = 0x7fc00000

// textParseFloat32 parses an f32 literal, returning its bits or a message.
func textParseFloat32(s string) (uint32, string) {
	switch s {
	case "nan", "+nan":
		return textCanonicalNaN32, ""
	case "-nan":
		return textCanonicalNaN32 | 1<<31, ""
	}
	if rest, ok := strings.CutPrefix(s, "nan:"); ok {
		bits, ok := textParseUint(rest)
		if !ok || !strings.HasPrefix(rest, "0x") && !strings.HasPrefix(rest, "0X") || bits > math.MaxUint32 {
			return 0, fmt.Sprintf("invalid NaN %q (want nan:0x followed by 8 hexadecimal digits)", asmShorten(s))
		}
		if f := math.Float32frombits(uint32(bits)); f == f {
			return 0, fmt.Sprintf("%s is not an f32 NaN bit pattern", asmShorten(s))
		}
		return uint32(bits), ""
	}
	// textParseFloat checks the literal's form and reads the infinities;
	// a finite literal is rounded to f32 directly (rounding through f64
	// first could round twice).
	bits, msg := textParseFloat(s)
	if msg != "" {
		return 0, msg
	}
	if f := math.Float64frombits(bits); math.IsInf(f, 0) {
		return math.Float32bits(float32(f)), ""
	}
	g, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return 0, fmt.Sprintf("f32 %s out of range", asmShorten(s))
	}
	return math.Float32bits(float32(g)), ""
}

// textAppendFloat32 appends the canonical text of the f32 with the given
// bits.
func textAppendFloat32(b []byte, bits uint32) []byte {
	f := math.Float32frombits(bits)
	switch {
	case bits == textCanonicalNaN32:
		return append(b, "nan"...)
	case f != f:
		return fmt.Appendf(b, "nan:0x%08x", bits)
	case math.IsInf(float64(f), 1):
		return append(b, "inf"...)
	case math.IsInf(float64(f), -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, float64(f), 'g', -1, 32)
}

// textAppendFloat appends the canonical text of the f64 with the given bits.
func textAppendFloat(b []byte, bits uint64) []byte {
	f := math.Float64frombits(bits)
	switch {
	case bits == textCanonicalNaN:
		return append(b, "nan"...)
	case math.IsNaN(f):
		return fmt.Appendf(b, "nan:0x%016x", bits)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// Disassemble prints m in the canonical text form: the memory declaration
// (when the module has memory), data segments, host imports, types,
// globals, the table declaration (when the module has a table) and
// element segments, then each function, then the exports, with a blank
// line between those parts.
// Function bodies are indented by two spaces, and each instruction that a
// branch or switch of its function targets is preceded by a label line
// "L<offset>:".
//
// For a valid module m, Assemble(Disassemble(m)) returns a module equal to m
// (nil and empty slices aside), which disassembles to the same text.
// Disassemble prints invalid modules too, as far as it can, but their text
// need not assemble.
func Disassemble(m *Module) []byte {
	if m == nil {
		return nil
	}
	var b []byte
	if mem := m.Memory; mem != (Memory{}) {
		b = fmt.Appendf(b, "memory %d %d", mem.MinPages, mem.MaxPages)
		b = textAppendClause(b, "import", mem.Import)
		b = textAppendClause(b, "export", mem.Export)
		b = append(b, '\n')
	}
	for _, d := range m.Data {
		if d.Passive && d.Offset == 0 {
			b = append(b, "data passive "...)
		} else {
			b = fmt.Appendf(b, "data %d ", d.Offset)
		}
		b = strconv.AppendQuote(b, string(d.Bytes))
		b = append(b, '\n')
	}
	for _, h := range m.Hosts {
		b = fmt.Appendf(b, "host %s %s\n", h.Name, h.Sig)
	}
	for i, s := range m.Types {
		b = fmt.Appendf(b, "type t%d %s\n", i, s)
	}
	for i := range m.Globals {
		b = textAppendGlobal(b, &m.Globals[i])
	}
	for ti := range m.NumTables() {
		t := m.TableAt(uint32(ti))
		b = fmt.Appendf(b, "table %d", t.Min)
		if t.HasMax {
			b = fmt.Appendf(b, " %d", t.Max)
		}
		if t.Extern {
			b = append(b, " externref"...)
		}
		b = textAppendClause(b, "import", t.Import)
		b = textAppendClause(b, "export", t.Export)
		b = append(b, '\n')
	}
	for _, e := range m.Elems {
		switch {
		case e.Mode == ElemPassive && e.Offset == 0 && e.Table == 0:
			b = append(b, "elem passive"...)
		case e.Mode == ElemDeclarative && e.Offset == 0 && e.Table == 0:
			b = append(b, "elem declare"...)
		case e.Table != 0:
			b = fmt.Appendf(b, "elem table %d %d", e.Table, e.Offset)
		default:
			b = fmt.Appendf(b, "elem %d", e.Offset)
		}
		for _, f := range e.Funcs {
			b = append(b, ' ')
			if f == NullFunc {
				b = append(b, "null"...)
				continue
			}
			b = textAppendCallee(b, m, OpCall, f)
		}
		b = append(b, '\n')
	}
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		if len(b) > 0 {
			b = append(b, '\n')
		}
		b = textAppendFunc(b, m, f)
	}
	if len(m.Exports) > 0 && len(b) > 0 {
		b = append(b, '\n')
	}
	for _, e := range m.Exports {
		b = append(b, "export "...)
		b = strconv.AppendQuote(b, e.Name)
		b = append(b, ' ')
		b = textAppendCallee(b, m, OpCall, e.Func)
		b = append(b, '\n')
	}
	return b
}

// textAppendClause appends ` kw "QUOTED"` when s is not empty.
func textAppendClause(b []byte, kw, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, ' ')
	b = append(b, kw...)
	b = append(b, ' ')
	return strconv.AppendQuote(b, s)
}

// textAppendGlobal appends the line declaring g.
func textAppendGlobal(b []byte, g *Global) []byte {
	b = fmt.Appendf(b, "global %s %s", g.Name, g.Type)
	if g.Mutable {
		b = append(b, " mut"...)
	}
	if g.Import != "" {
		b = textAppendClause(b, "import", g.Import)
	} else {
		b = append(b, " = "...)
		switch g.Type {
		case F64:
			b = textAppendFloat(b, g.Init)
		case F32:
			b = textAppendFloat32(b, uint32(g.Init))
		case I32:
			b = strconv.AppendInt(b, int64(int32(uint32(g.Init))), 10)
		default:
			b = strconv.AppendInt(b, int64(g.Init), 10)
		}
	}
	b = textAppendClause(b, "export", g.Export)
	return append(b, '\n')
}

func textAppendFunc(b []byte, m *Module, f *Function) []byte {
	b = fmt.Appendf(b, "func %s %s\n", f.Name, f.Sig)
	if n := len(f.Sig.Params); len(f.Regs) > n {
		b = append(b, "  regs"...)
		for _, t := range f.Regs[n:] {
			b = append(b, ' ')
			b = append(b, t.String()...)
		}
		b = append(b, '\n')
	}
	isTarget := make([]bool, len(f.Code))
	var targets []uint32
	for i := range f.Code {
		targets = f.Code[i].Targets(targets[:0])
		for _, t := range targets {
			if int(t) < len(isTarget) {
				isTarget[t] = true
			}
		}
	}
	for i := range f.Code {
		if isTarget[i] {
			b = fmt.Appendf(b, "L%d:\n", i)
		}
		b = append(b, "  "...)
		b = textAppendInstr(b, m, &f.Code[i])
		b = append(b, '\n')
	}
	return append(b, "end\n"...)
}

func textAppendReg(b []byte, r Reg) []byte {
	b = append(b, 'r')
	return strconv.AppendUint(b, uint64(r), 10)
}

func textAppendLabel(b []byte, t uint32) []byte {
	b = append(b, 'L')
	return strconv.AppendUint(b, uint64(t), 10)
}

func textAppendMem(b []byte, a Reg, off int64) []byte {
	b = append(b, '[')
	b = textAppendReg(b, a)
	switch {
	case off > 0:
		b = append(b, '+')
		b = strconv.AppendInt(b, off, 10)
	case off < 0:
		b = append(b, '-')
		b = strconv.AppendUint(b, uint64(-off), 10)
	}
	return append(b, ']')
}

func textAppendRegList(b []byte, rs []Reg) []byte {
	b = append(b, '(')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = textAppendReg(b, r)
	}
	return append(b, ')')
}

// textAppendCallee appends the name of the function (op call), host import
// (op call_host), type (op call_indirect) or global (global.get and
// global.set) with the given index, or "#index" if there is none.
func textAppendCallee(b []byte, m *Module, op Op, idx uint32) []byte {
	switch op {
	case OpCallHost:
		if int(idx) < len(m.Hosts) {
			return append(b, m.Hosts[idx].Name...)
		}
	case OpCallIndirect:
		if int(idx) < len(m.Types) {
			return fmt.Appendf(b, "t%d", idx)
		}
	case OpGlobalGet, OpGlobalSet:
		if int(idx) < len(m.Globals) {
			return append(b, m.Globals[idx].Name...)
		}
	default:
		if int(idx) < len(m.Funcs) && m.Funcs[idx] != nil {
			return append(b, m.Funcs[idx].Name...)
		}
	}
	return fmt.Appendf(b, "#%d", idx)
}

func textAppendInstr(b []byte, m *Module, in *Instr) []byte {
	b = append(b, in.Op.String()...)
	switch in.Op.Info().Format {
	case FormatConst:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
		b = append(b, ", "...)
		switch in.Op {
		case OpF64Const:
			b = textAppendFloat(b, uint64(in.Imm))
		case OpF32Const:
			b = textAppendFloat32(b, uint32(in.Imm))
		default:
			b = strconv.AppendInt(b, in.Imm, 10)
		}
	case FormatUnary:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
		b = append(b, ", "...)
		b = textAppendReg(b, in.A)
	case FormatBinary:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
		b = append(b, ", "...)
		b = textAppendReg(b, in.A)
		b = append(b, ", "...)
		b = textAppendRegOrImm(b, in)
	case FormatSelect:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
		for _, r := range [...]Reg{in.A, in.B, in.C} {
			b = append(b, ", "...)
			b = textAppendReg(b, r)
		}
	case FormatSegment:
		b = fmt.Appendf(b, " %d", in.Callee)
	case FormatRefFunc:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
		b = append(b, ", "...)
		b = textAppendCallee(b, m, OpCall, in.Callee)
	case FormatTableGet, FormatTableSize, FormatTableGrow:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
		b = fmt.Appendf(b, ", %d", in.Callee)
		if in.Op != OpTableSize {
			b = append(b, ", "...)
			b = textAppendReg(b, in.A)
		}
		if in.Op == OpTableGrow {
			b = append(b, ", "...)
			b = textAppendReg(b, in.B)
		}
	case FormatTableSet, FormatTableFill, FormatTableBulk:
		b = fmt.Appendf(b, " %d, ", in.Callee)
		if in.Op.Info().Format == FormatTableBulk {
			b = fmt.Appendf(b, "%d, ", in.Imm)
		}
		b = textAppendReg(b, in.A)
		b = append(b, ", "...)
		b = textAppendReg(b, in.B)
		if in.Op != OpTableSet {
			b = append(b, ", "...)
			b = textAppendReg(b, in.C)
		}
	case FormatMemoryBulk, FormatSegmentBulk:
		b = append(b, ' ')
		if in.Op.Info().Format == FormatSegmentBulk {
			b = fmt.Appendf(b, "%d, ", in.Callee)
		}
		b = textAppendReg(b, in.A)
		for _, r := range [...]Reg{in.B, in.C} {
			b = append(b, ", "...)
			b = textAppendReg(b, r)
		}
	case FormatLoad:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
		b = append(b, ", "...)
		b = textAppendMem(b, in.A, in.Imm)
	case FormatStore:
		b = append(b, ' ')
		b = textAppendMem(b, in.A, in.Imm)
		b = append(b, ", "...)
		b = textAppendReg(b, in.B)
	case FormatMemorySize:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
	case FormatJump:
		b = append(b, ' ')
		b = textAppendLabel(b, in.Target)
	case FormatBranch:
		b = append(b, ' ')
		b = textAppendReg(b, in.A)
		b = append(b, ", "...)
		b = textAppendLabel(b, in.Target)
	case FormatCmpBranch:
		b = append(b, ' ')
		b = textAppendReg(b, in.A)
		b = append(b, ", "...)
		b = textAppendRegOrImm(b, in)
		b = append(b, ", "...)
		b = textAppendLabel(b, in.Target)
	case FormatSwitch:
		b = append(b, ' ')
		b = textAppendReg(b, in.A)
		b = append(b, ", ["...)
		for i, t := range in.Table {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = textAppendLabel(b, t)
		}
		b = append(b, "], "...)
		b = textAppendLabel(b, in.Target)
	case FormatCall:
		b = append(b, ' ')
		b = textAppendCallee(b, m, in.Op, in.Callee)
		b = append(b, ' ')
		b = textAppendRegList(b, in.Args)
		b = append(b, " -> "...)
		b = textAppendRegList(b, in.Results)
	case FormatReturn:
		for i, r := range in.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, ' ')
			b = textAppendReg(b, r)
		}
	case FormatTrap:
		b = append(b, ' ')
		b = strconv.AppendInt(b, in.Imm, 10)
	case FormatGlobalGet:
		b = append(b, ' ')
		b = textAppendReg(b, in.Dst)
		b = append(b, ", "...)
		b = textAppendCallee(b, m, in.Op, in.Callee)
	case FormatGlobalSet:
		b = append(b, ' ')
		b = textAppendCallee(b, m, in.Op, in.Callee)
		b = append(b, ", "...)
		b = textAppendReg(b, in.A)
	case FormatCallIndirect:
		b = append(b, ' ')
		b = textAppendCallee(b, m, in.Op, in.Callee)
		b = append(b, ", "...)
		if in.Imm != 0 {
			b = fmt.Appendf(b, "%d, ", in.Imm)
		}
		b = textAppendReg(b, in.A)
		b = append(b, ' ')
		b = textAppendRegList(b, in.Args)
		b = append(b, " -> "...)
		b = textAppendRegList(b, in.Results)
	}
	return b
}

func textAppendRegOrImm(b []byte, in *Instr) []byte {
	if in.UseImm {
		return strconv.AppendInt(b, in.Imm, 10)
	}
	return textAppendReg(b, in.B)
}
