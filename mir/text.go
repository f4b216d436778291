package mir

// The text form of machine IR.
//
// Print writes functions as text and Parse reads them back: for every
// function Print accepts without error, Parse(Print(f)) is field for field
// equal to f (floats bit for bit), and Print(Parse(text)) == text for text
// Print wrote. The form is line oriented; a line is a sequence of tokens
// separated by spaces or tabs, and ";" starts a comment that runs to the
// end of the line (outside a quoted name). Blank and comment lines are
// ignored everywhere. The grammar, with NL a line end:
//
//	text      = { func } .
//	func      = header NL [ slots NL ] vregs NL [ pins NL ] [ undefined NL ]
//	            { block } "end" NL .
//	header    = "func" name "#" int "(" { class } ")" "->" "(" { class } ")" form .
//	slots     = "slots" { class } .                 classes of s0, s1, ...
//	vregs     = "vregs" count .                     len(Func.VRegs)
//	pins      = "pins" { vreg "=" reg } .           Func.Pins when not nil
//	undefined = "undefined" vreg ":" class { vreg ":" class } .
//	block     = "b" count ":" [ "preds=" bref { "," bref } ] "freq=" float NL
//	            { instr NL } [ succs NL ] .
//	instr     = [ def { "," def } "=" ] opname [ "." cond ] [ "#" int ]
//	            [ operand { "," operand } ] [ "*" count ] [ succs ] [ "@" int ] .
//	def       = reg [ ":" class ] .
//	operand   = reg | mem | "$" int .
//	mem       = "[" reg "+" reg "*" count [ ( "+" | "-" ) digits ] "]"
//	          | "[" reg [ ( "+" | "-" ) digits ] "]" .   (no index: scale 1)
//	succs     = "->" succ { "," succ } .
//	succ      = bref float | bref | float .
//	bref      = "b" count .
//	name      = ident | go-quoted-string | any token without space, "#", "(" .
//	class     = "gpr" | "xmm" | "none" .
//	form      = "ssa" | "nonssa" | "allocated" .
//	reg       = Reg.String() text (rax ... r15, xmm0 ... xmm15, v12, s4,
//	            out2, in2) | "noreg" .
//	cond      = Cond.String() text ("l", "ae", "feq", ...) .
//	int       = signed decimal; count = unsigned decimal without leading zeros .
//	float     = strconv.FormatFloat(x, 'g', -1, 64) text | "NaN(0x" hex ")" .
//
// Print writes the header line, "slots" only when the function has stack
// slots, "vregs" always, "pins" only when Func.Pins is not nil, then each
// block header followed by its instructions indented by two spaces, and
// "end". Functions are separated by a blank line. A name that is not an
// identifier [A-Za-z_][A-Za-z0-9_.]* is written as a Go-quoted string.
// NaNs other than math.NaN() are written with their bits,
// NaN(0x7ff0000000000001), so frequencies and probabilities round-trip
// exactly.
//
// Virtual register classes. A virtual register below the vregs count
// carries its class at every definition ("v3:gpr = ADDQ v1, v2"); uses
// carry none. Registers without any definition are listed, with their
// classes, on the "undefined" line, which Print writes only when there are
// such registers. Parse requires that every virtual register below the
// count gets a class exactly this way: all annotations of a register agree,
// a defined register is not listed as undefined, and a definition of a
// virtual register at or beyond the count (possible in broken IR) has no
// class.
//
// Pins. The "pins" line lists, in increasing order, every virtual register
// whose Func.Pins entry is not NoReg with the register it is pinned to
// ("pins v0=rdi v3=rax"); a bare "pins" stands for a Pins slice in which
// nothing is pinned. Without the line Pins is nil. Parse gives Pins one
// entry per virtual register and accepts the line in any form and any
// register (other than noreg) as a pin, leaving their meaning to Verify;
// each listed register must be a virtual register below the vregs count,
// listed once. Print reports a Pins slice whose length is not the number
// of virtual registers, which the line cannot represent.
//
// Instructions. The condition suffix is written for ops with
// OpInfo.HasCond and whenever Cond is nonzero; "#AUX" for the ops that use
// Aux (Arg, CALL, CALLHOST, CALLRT, TRAP, CtxLoad, Count, ROUNDSD,
// ROUNDSS) and whenever Aux is nonzero. For an op with OpInfo.HasMem whose
// instruction has its two address uses, those uses are written as one
// memory operand [BASE+INDEX*SCALE+DISP] holding Scale and, as the
// displacement, Imm (sign always written, omitted when 0); it stands where
// the base use is, which is the use with role RoleMemBase, or use 0 for an
// op whose address uses have no roles (LEAQidx, LEALidx). Otherwise Imm
// is the last operand, "$N", written always for ops with HasImm and
// whenever nonzero for the others, and a nonzero Scale is written as "*S"
// after the operands. "@POS" is written when Pos is not -1; Parse sets Pos
// to -1 when it is absent.
//
// Successors. A block's Succs and SuccProb are written on its last
// instruction when that is a terminator, and otherwise on a line of their
// own after the instructions ("-> b3 1"); nothing is written when both are
// empty. Item i carries Succs[i] and SuccProb[i], whichever exist, so
// lists of different lengths (broken IR) round-trip. Preds come only from
// the block header, in order; Parse never derives them from successors.
//
// Parse checks syntax and only the structure it needs: blocks numbered
// 0, 1, ... in order, every referenced block present, register syntax, op,
// class, form and condition names, numeric ranges (Aux and Pos int32,
// Scale 0-255), and the class annotations above. Operand layouts are
// checked as Print writes them: the memory operand is present exactly
// when the op has HasMem and enough uses and stands at its position, an op
// with HasImm has its immediate, an op with HasCond its condition, an op
// using Aux its "#AUX", and successors follow only a terminator or stand
// alone after a non-terminator. Everything else (operand counts, classes,
// CFG consistency) is left to Verify.

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ParseError is the error Parse returns for malformed text: the 1-based
// line number and a description.
type ParseError struct {
	Line int
	Msg  string
}

// Error formats the error as `mir: line 12: unknown op "ADDX"`.
func (e *ParseError) Error() string {
	return "mir: line " + strconv.Itoa(e.Line) + ": " + e.Msg
}

// Print writes the text form of the functions to w, separated by blank
// lines. If a function holds something the text form cannot represent (a
// nil function, block or instruction, a block whose ID is not its index, a
// reference to a missing block, an unknown op, form, class or condition, a
// register value without a name), Print still writes its best rendering of
// everything and returns an error describing the first such problem, since
// that text would not parse back to the same function. Write errors are
// returned as well.
func Print(w io.Writer, fs ...*Func) error {
	var p txtPrinter
	var werr error
	for i, f := range fs {
		if i > 0 {
			p.buf = append(p.buf, '\n')
		}
		p.fn(f)
		if len(p.buf) >= 1<<16 || i == len(fs)-1 {
			if werr == nil {
				_, werr = w.Write(p.buf)
			}
			p.buf = p.buf[:0]
		}
	}
	if werr != nil {
		return werr
	}
	return p.err
}

// Format returns the text of one function. For a function Print reports
// an error for, it returns Print's best-effort rendering.
func Format(f *Func) string {
	var p txtPrinter
	p.fn(f)
	return string(p.buf)
}

// txtPrinter accumulates text and the first representation error.
type txtPrinter struct {
	buf  []byte
	err  error
	name string
}

func (p *txtPrinter) errorf(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("mir: print %s: %s", p.name, fmt.Sprintf(format, args...))
	}
}

// txtIsIdent reports whether a function name can be printed unquoted.
func txtIsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && (c == '.' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return true
}

// txtNaNBits is the bit pattern strconv.ParseFloat returns for "NaN".
var txtNaNBits = math.Float64bits(math.NaN())

// txtAppendFloat formats a frequency or probability so that txtParseFloat
// returns the same bits.
func txtAppendFloat(buf []byte, x float64) []byte {
	if b := math.Float64bits(x); x != x && b != txtNaNBits {
		buf = append(buf, "NaN(0x"...)
		buf = strconv.AppendUint(buf, b, 16)
		return append(buf, ')')
	}
	return strconv.AppendFloat(buf, x, 'g', -1, 64)
}

func (p *txtPrinter) class(c Class, what string) {
	if c > XMM {
		p.errorf("%s has unknown class %d", what, c)
	}
	p.buf = append(p.buf, c.String()...)
}

func (p *txtPrinter) classes(cs []Class, what string) {
	p.buf = append(p.buf, '(')
	for i, c := range cs {
		if i > 0 {
			p.buf = append(p.buf, ' ')
		}
		p.class(c, what)
	}
	p.buf = append(p.buf, ')')
}

// reg appends the name of r, reporting registers ParseReg cannot read
// back.
func (p *txtPrinter) reg(r Reg) {
	idx := uint64(r & indexMask)
	switch r & kindMask {
	case kindPhys:
		if r < NumPhysRegs {
			if r >= X0 {
				p.buf = append(p.buf, "xmm"...)
				p.buf = strconv.AppendUint(p.buf, uint64(r-X0), 10)
			} else {
				p.buf = append(p.buf, gprNames[r]...)
			}
			return
		}
	case kindVirt:
		if idx <= maxIndex {
			p.buf = append(p.buf, 'v')
			p.buf = strconv.AppendUint(p.buf, idx, 10)
			return
		}
	case kindSlot:
		if idx <= maxIndex {
			p.buf = append(p.buf, 's')
			p.buf = strconv.AppendUint(p.buf, idx, 10)
			return
		}
	case kindArg:
		if r == NoReg {
			p.buf = append(p.buf, "noreg"...)
			return
		}
		if idx = uint64(r & (argIncoming - 1)); idx <= maxIndex {
			if r.IsInArg() {
				p.buf = append(p.buf, "in"...)
			} else {
				p.buf = append(p.buf, "out"...)
			}
			p.buf = strconv.AppendUint(p.buf, idx, 10)
			return
		}
	}
	p.errorf("register %#x has no name", uint32(r))
	p.buf = append(p.buf, r.String()...)
}

func (p *txtPrinter) blockRef(id, nblocks int, what string) {
	if id < 0 || id >= nblocks {
		p.errorf("%s b%d does not exist", what, id)
	}
	p.buf = append(p.buf, 'b')
	p.buf = strconv.AppendInt(p.buf, int64(id), 10)
}

// txtUsesAux reports whether op reads Aux, so that "#AUX" is always
// printed for it.
func txtUsesAux(op Op) bool {
	switch op {
	case OpArg, OpCALL, OpCALLHOST, OpCALLRT, OpCALLIND, OpTRAP, OpTRAPCC, OpCtxLoad, OpCount, OpCountAdd, OpROUNDSD, OpROUNDSS,
		OpGLOBALloadQ, OpGLOBALloadL, OpGLOBALloadSD, OpGLOBALloadSS,
		OpGLOBALstoreQ, OpGLOBALstoreL, OpGLOBALstoreSD, OpGLOBALstoreSS:
		return true
	}
	return false
}

// txtMemPos returns the index of the base use of the memory operand of an
// op with HasMem: the use with role RoleMemBase, or 0 when no use has a
// role (LEAQidx and LEALidx, whose two uses are their address).
func txtMemPos(info *OpInfo) int {
	for i, s := range info.Uses {
		if s.Role == RoleMemBase {
			return i
		}
	}
	return 0
}

func (p *txtPrinter) fn(f *Func) {
	if f == nil {
		p.name = "<nil>"
		p.errorf("nil function")
		p.buf = append(p.buf, "; nil function\n"...)
		return
	}
	p.name = f.Name
	p.buf = append(p.buf, "func "...)
	if txtIsIdent(f.Name) {
		p.buf = append(p.buf, f.Name...)
	} else {
		p.buf = strconv.AppendQuote(p.buf, f.Name)
	}
	p.buf = append(p.buf, " #"...)
	p.buf = strconv.AppendInt(p.buf, int64(f.Index), 10)
	p.buf = append(p.buf, ' ')
	p.classes(f.Params, "a parameter")
	p.buf = append(p.buf, " -> "...)
	p.classes(f.Results, "a result")
	p.buf = append(p.buf, ' ')
	if f.Form > FormAllocated {
		p.errorf("unknown form %d", f.Form)
	}
	p.buf = append(p.buf, f.Form.String()...)
	p.buf = append(p.buf, '\n')

	if len(f.Slots) > 0 {
		p.buf = append(p.buf, "  slots"...)
		for _, s := range f.Slots {
			p.buf = append(p.buf, ' ')
			p.class(s.Class, "a stack slot")
		}
		p.buf = append(p.buf, '\n')
	}
	nv := len(f.VRegs)
	p.buf = append(p.buf, "  vregs "...)
	p.buf = strconv.AppendInt(p.buf, int64(nv), 10)
	p.buf = append(p.buf, '\n')
	if f.Pins != nil {
		p.pins(f)
	}
	defined := make([]bool, nv)
	for _, b := range f.Blocks {
		if b == nil {
			continue
		}
		for _, in := range b.Instrs {
			if in == nil {
				continue
			}
			for _, r := range in.Defs {
				if r.IsVirtual() && r.Index() < nv {
					defined[r.Index()] = true
				}
			}
		}
	}
	first := true
	for i, d := range defined {
		if d {
			continue
		}
		if first {
			p.buf = append(p.buf, "  undefined"...)
			first = false
		}
		p.buf = append(p.buf, " v"...)
		p.buf = strconv.AppendInt(p.buf, int64(i), 10)
		p.buf = append(p.buf, ':')
		p.class(f.VRegs[i], "a virtual register")
	}
	if !first {
		p.buf = append(p.buf, '\n')
	}

	for i, b := range f.Blocks {
		if b == nil {
			p.errorf("block %d is nil", i)
			p.buf = append(p.buf, "; nil block\n"...)
			continue
		}
		p.block(f, i, b)
	}
	p.buf = append(p.buf, "end\n"...)
}

// pins appends the "pins" line of f, whose Pins is not nil.
func (p *txtPrinter) pins(f *Func) {
	if len(f.Pins) != len(f.VRegs) {
		p.errorf("%d pins for %d virtual registers", len(f.Pins), len(f.VRegs))
	}
	p.buf = append(p.buf, "  pins"...)
	for i, r := range f.Pins {
		if r == NoReg {
			continue
		}
		p.buf = append(p.buf, " v"...)
		p.buf = strconv.AppendInt(p.buf, int64(i), 10)
		p.buf = append(p.buf, '=')
		p.reg(r)
	}
	p.buf = append(p.buf, '\n')
}

func (p *txtPrinter) block(f *Func, i int, b *Block) {
	if b.ID != i {
		p.errorf("block %d has ID %d", i, b.ID)
	}
	p.buf = append(p.buf, 'b')
	p.buf = strconv.AppendInt(p.buf, int64(b.ID), 10)
	p.buf = append(p.buf, ':')
	if len(b.Preds) > 0 {
		p.buf = append(p.buf, " preds="...)
		for k, pr := range b.Preds {
			if k > 0 {
				p.buf = append(p.buf, ',')
			}
			p.blockRef(pr, len(f.Blocks), "predecessor")
		}
	}
	p.buf = append(p.buf, " freq="...)
	p.buf = txtAppendFloat(p.buf, b.Freq)
	p.buf = append(p.buf, '\n')

	hasSuccs := len(b.Succs) > 0 || len(b.SuccProb) > 0
	for k, in := range b.Instrs {
		if in == nil {
			p.errorf("b%d: instruction %d is nil", i, k)
			p.buf = append(p.buf, "  ; nil instruction\n"...)
			continue
		}
		here := hasSuccs && k == len(b.Instrs)-1 && in.Op < numOps && in.Op.Info().Terminator
		p.instr(f, in, here, b)
		if here {
			hasSuccs = false
		}
	}
	if hasSuccs {
		p.buf = append(p.buf, ' ', ' ')
		p.succs(f, b)
		p.buf = append(p.buf, '\n')
	}
}

// succs appends "-> " and the successor list of b.
func (p *txtPrinter) succs(f *Func, b *Block) {
	p.buf = append(p.buf, "-> "...)
	n := max(len(b.Succs), len(b.SuccProb))
	for k := 0; k < n; k++ {
		if k > 0 {
			p.buf = append(p.buf, ", "...)
		}
		if k < len(b.Succs) {
			p.blockRef(b.Succs[k], len(f.Blocks), "successor")
			if k < len(b.SuccProb) {
				p.buf = append(p.buf, ' ')
			}
		}
		if k < len(b.SuccProb) {
			p.buf = txtAppendFloat(p.buf, b.SuccProb[k])
		}
	}
}

func (p *txtPrinter) instr(f *Func, in *Instr, succsHere bool, b *Block) {
	info := in.Op.Info()
	p.buf = append(p.buf, ' ', ' ')
	if len(in.Defs) > 0 {
		for k, r := range in.Defs {
			if k > 0 {
				p.buf = append(p.buf, ", "...)
			}
			p.reg(r)
			if r.IsVirtual() && r.Index() < len(f.VRegs) {
				p.buf = append(p.buf, ':')
				p.class(f.VRegs[r.Index()], "a virtual register")
			}
		}
		p.buf = append(p.buf, " = "...)
	}
	if in.Op >= numOps {
		p.errorf("b%d: unknown op %d", b.ID, in.Op)
	}
	p.buf = append(p.buf, in.Op.String()...)
	if info.HasCond || in.Cond != 0 {
		if !in.Cond.Valid() {
			p.errorf("b%d: unknown condition %d", b.ID, in.Cond)
		}
		p.buf = append(p.buf, '.')
		p.buf = append(p.buf, in.Cond.String()...)
	}
	if in.Aux != 0 || txtUsesAux(in.Op) {
		p.buf = append(p.buf, " #"...)
		p.buf = strconv.AppendInt(p.buf, int64(in.Aux), 10)
	}
	memPos := -1
	if info.HasMem {
		memPos = txtMemPos(info)
		if len(in.Uses) < memPos+2 {
			memPos = -1
		}
	}
	n := 0
	sep := func() {
		if n == 0 {
			p.buf = append(p.buf, ' ')
		} else {
			p.buf = append(p.buf, ", "...)
		}
		n++
	}
	for k := 0; k < len(in.Uses); k++ {
		sep()
		if k != memPos {
			p.reg(in.Uses[k])
			continue
		}
		p.buf = append(p.buf, '[')
		p.reg(in.Uses[k])
		if k+1 < len(in.Uses) && (in.Uses[k+1] != NoReg || in.Scale != 1) {
			p.buf = append(p.buf, '+')
			p.reg(in.Uses[k+1])
			p.buf = append(p.buf, '*')
			p.buf = strconv.AppendUint(p.buf, uint64(in.Scale), 10)
		}
		if in.Imm > 0 {
			p.buf = append(p.buf, '+')
		}
		if in.Imm != 0 {
			p.buf = strconv.AppendInt(p.buf, in.Imm, 10)
		}
		p.buf = append(p.buf, ']')
		k++
	}
	if memPos < 0 {
		if info.HasImm || in.Imm != 0 {
			sep()
			p.buf = append(p.buf, '$')
			p.buf = strconv.AppendInt(p.buf, in.Imm, 10)
		}
		if in.Scale != 0 {
			p.buf = append(p.buf, " *"...)
			p.buf = strconv.AppendUint(p.buf, uint64(in.Scale), 10)
		}
	}
	if succsHere {
		p.buf = append(p.buf, ' ')
		p.succs(f, b)
	}
	if in.Pos != -1 {
		p.buf = append(p.buf, " @"...)
		p.buf = strconv.AppendInt(p.buf, int64(in.Pos), 10)
	}
	p.buf = append(p.buf, '\n')
}

// Parse reads the text form of zero or more functions (see the grammar at
// the top of text.go). It checks syntax and the structure it needs, not
// the IR's semantics (see Verify), so that broken IR can be written by
// hand. Errors are *ParseError values. Parse never panics.
func Parse(src []byte) (fs []*Func, err error) {
	p := &txtParser{src: string(src)}
	defer func() {
		if r := recover(); r != nil {
			fs = nil
			if b, ok := r.(txtBail); ok {
				err = b.err
				return
			}
			err = &ParseError{Line: p.line, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	p.run()
	return p.funcs, nil
}

// ParseFunc reads the text of exactly one function.
func ParseFunc(src []byte) (*Func, error) {
	fs, err := Parse(src)
	if err != nil {
		return nil, err
	}
	if len(fs) != 1 {
		line := 1
		if len(fs) > 1 {
			line = txtFuncLine(src, 1)
		}
		return nil, &ParseError{Line: line, Msg: fmt.Sprintf("want exactly one function, found %d", len(fs))}
	}
	return fs[0], nil
}

// txtFuncLine returns the line of the k-th (0-based) function header.
func txtFuncLine(src []byte, k int) int {
	line := 0
	for rest := string(src); rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		line++
		if w, _ := txtCutSpace(txtTrim(txtStripComment(l))); w == "func" {
			if k == 0 {
				return line
			}
			k--
		}
	}
	return line
}

// txtBail carries a parse error out of the parser by panicking.
type txtBail struct{ err *ParseError }

// txtParser is the state of Parse.
type txtParser struct {
	src   string
	line  int
	funcs []*Func

	// The function being read.
	f          *Func
	fline      int
	vregsLine  int // 0 until the vregs line
	undefLine  int
	vline      []int32 // per vreg: line of its first class annotation, negated for "undefined"
	blk        *Block
	succsSet   bool
	refs       []txtRef
	nameForErr string
}

// txtRef is a block reference, checked when the function ends.
type txtRef struct {
	id   int
	line int
}

func (p *txtParser) fail(format string, args ...any) {
	panic(txtBail{&ParseError{Line: p.line, Msg: fmt.Sprintf(format, args...)}})
}

func txtIsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func txtTrim(s string) string {
	for s != "" && txtIsSpace(s[0]) {
		s = s[1:]
	}
	for s != "" && txtIsSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// txtCutSpace splits s at its first space: the leading token and the rest
// with leading spaces removed.
func txtCutSpace(s string) (tok, rest string) {
	for i := 0; i < len(s); i++ {
		if txtIsSpace(s[i]) {
			return s[:i], txtTrim(s[i+1:])
		}
	}
	return s, ""
}

// txtFields splits s at spaces and tabs.
func txtFields(s string) []string {
	var out []string
	for s = txtTrim(s); s != ""; {
		var tok string
		tok, s = txtCutSpace(s)
		out = append(out, tok)
	}
	return out
}

// txtStripComment removes a ";" comment, respecting quoted names.
func txtStripComment(s string) string {
	if strings.IndexByte(s, ';') < 0 {
		return s
	}
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == ';':
			return s[:i]
		}
	}
	return s
}

func (p *txtParser) run() {
	for rest := p.src; ; {
		line, tail, more := strings.Cut(rest, "\n")
		p.line++
		p.doLine(line)
		if !more {
			break
		}
		rest = tail
	}
	if p.f != nil {
		p.line = p.fline
		p.fail("missing \"end\" of func %s", p.nameForErr)
	}
}

func (p *txtParser) doLine(line string) {
	s := txtTrim(txtStripComment(line))
	if s == "" {
		return
	}
	w, rest := txtCutSpace(s)
	if p.f == nil {
		if w != "func" {
			p.fail("expected \"func\", found %q", w)
		}
		p.header(rest)
		return
	}
	switch {
	case w == "func":
		p.fail("missing \"end\" of func %s", p.nameForErr)
	case w == "end":
		if rest != "" {
			p.fail("unexpected %q after \"end\"", rest)
		}
		p.finish()
	case w == "slots":
		p.slots(rest)
	case w == "vregs":
		p.vregs(rest)
	case w == "pins":
		p.pins(rest)
	case w == "undefined":
		p.undefined(rest)
	case strings.HasPrefix(s, "->"):
		p.standaloneSuccs(s[2:])
	case len(w) >= 2 && w[0] == 'b' && '0' <= w[1] && w[1] <= '9':
		p.blockHeader(w, rest)
	default:
		p.instr(s)
	}
}

// header reads the rest of a "func" line.
func (p *txtParser) header(s string) {
	const want = "want \"func NAME #INDEX (CLASSES) -> (CLASSES) FORM\""
	if s == "" {
		p.fail("missing function name")
	}
	var name string
	if s[0] == '"' {
		end := -1
		for i := 1; i < len(s); i++ {
			if s[i] == '\\' {
				i++
			} else if s[i] == '"' {
				end = i + 1
				break
			}
		}
		if end < 0 {
			p.fail("unterminated function name %s", s)
		}
		var err error
		if name, err = strconv.Unquote(s[:end]); err != nil {
			p.fail("bad function name %s", s[:end])
		}
		s = s[end:]
	} else {
		end := strings.IndexAny(s, " \t\r#(")
		if end < 0 {
			end = len(s)
		}
		if end == 0 {
			p.fail("missing function name")
		}
		name, s = s[:end], s[end:]
	}
	if txtIsIdent(name) {
		p.nameForErr = name
	} else {
		p.nameForErr = strconv.Quote(name)
	}
	s = txtTrim(s)
	if !strings.HasPrefix(s, "#") {
		p.fail("missing \"#INDEX\" in func header; %s", want)
	}
	end := strings.IndexAny(s, " \t\r(")
	if end < 0 {
		end = len(s)
	}
	index := p.int(s[1:end], strconv.IntSize)
	s = txtTrim(s[end:])
	params, s := p.classList(s, want)
	if !strings.HasPrefix(s, "->") {
		p.fail("missing \"->\" in func header; %s", want)
	}
	results, s := p.classList(txtTrim(s[2:]), want)
	var form Form
	switch s {
	case "ssa":
		form = FormSSA
	case "nonssa":
		form = FormNonSSA
	case "allocated":
		form = FormAllocated
	case "":
		p.fail("missing form in func header; %s", want)
	default:
		p.fail("unknown form %q", s)
	}
	p.f = &Func{Name: name, Index: int(index), Params: params, Results: results, Form: form}
	p.fline = p.line
	p.vregsLine, p.undefLine = 0, 0
	p.vline = nil
	p.blk = nil
	p.succsSet = false
	p.refs = p.refs[:0]
}

// classList reads "(CLASS ...)" and returns the classes and the rest of s.
func (p *txtParser) classList(s, want string) ([]Class, string) {
	if !strings.HasPrefix(s, "(") {
		p.fail("missing class list in func header; %s", want)
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		p.fail("unterminated class list in func header")
	}
	var cs []Class
	for _, tok := range txtFields(s[1:end]) {
		cs = append(cs, p.class(tok))
	}
	return cs, txtTrim(s[end+1:])
}

func (p *txtParser) class(s string) Class {
	switch s {
	case "gpr":
		return GPR
	case "xmm":
		return XMM
	case "none":
		return ClassNone
	}
	p.fail("unknown class %q", s)
	return 0
}

func (p *txtParser) slots(s string) {
	switch {
	case p.vregsLine != 0:
		p.fail("slots line after the vregs line")
	case p.f.Slots != nil:
		p.fail("duplicate slots line")
	}
	p.f.Slots = []SlotInfo{}
	for _, tok := range txtFields(s) {
		p.f.Slots = append(p.f.Slots, SlotInfo{Class: p.class(tok)})
	}
}

func (p *txtParser) vregs(s string) {
	if p.vregsLine != 0 {
		p.fail("duplicate vregs line")
	}
	if s == "" {
		p.fail("missing count after \"vregs\"")
	}
	// Each virtual register needs a class annotation of at least six
	// bytes ("v0:gpr"), which bounds the count by the text's size.
	limit := uint64(len(p.src))/6 + 1
	n, ok, big := txtDecimal(s, limit)
	switch {
	case !ok:
		p.fail("bad number %q", s)
	case big:
		p.fail("vregs %s is more than the text can define", s)
	}
	p.vregsLine = p.line
	p.f.VRegs = make([]Class, n)
	p.vline = make([]int32, n)
}

// pins reads the rest of a "pins" line: "vN=REG" items.
func (p *txtParser) pins(s string) {
	switch {
	case p.vregsLine == 0:
		p.fail("pins line before the vregs line")
	case p.f.Pins != nil:
		p.fail("duplicate pins line")
	case p.undefLine != 0:
		p.fail("pins line after the undefined line")
	case p.f.Blocks != nil:
		p.fail("pins line after the first block")
	}
	pins := make([]Reg, len(p.f.VRegs))
	for i := range pins {
		pins[i] = NoReg
	}
	for _, tok := range txtFields(s) {
		name, pin, ok := strings.Cut(tok, "=")
		if !ok {
			p.fail("bad pin %q, want vN=REG", tok)
		}
		v, ok := txtReg(name)
		switch {
		case !ok:
			p.fail("bad register %q", name)
		case !v.IsVirtual():
			p.fail("pin of %s, which is not a virtual register", name)
		case v.Index() >= len(pins):
			p.fail("%s is beyond vregs %d", name, len(pins))
		case pins[v.Index()] != NoReg:
			p.fail("%s pinned twice", name)
		}
		r, ok := txtReg(pin)
		switch {
		case !ok:
			p.fail("bad register %q", pin)
		case r == NoReg:
			p.fail("%s pinned to noreg (leave unpinned registers out)", name)
		}
		pins[v.Index()] = r
	}
	p.f.Pins = pins
}

func (p *txtParser) undefined(s string) {
	switch {
	case p.vregsLine == 0:
		p.fail("undefined line before the vregs line")
	case p.undefLine != 0:
		p.fail("duplicate undefined line")
	case p.f.Blocks != nil:
		p.fail("undefined line after the first block")
	}
	p.undefLine = p.line
	toks := txtFields(s)
	if len(toks) == 0 {
		p.fail("empty undefined line")
	}
	for _, tok := range toks {
		name, cls, hasCls := strings.Cut(tok, ":")
		r, ok := txtReg(name)
		switch {
		case !ok:
			p.fail("bad register %q", name)
		case !r.IsVirtual():
			p.fail("%s listed as undefined is not a virtual register", name)
		case r.Index() >= len(p.f.VRegs):
			p.fail("%s is beyond vregs %d", name, len(p.f.VRegs))
		case !hasCls:
			p.fail("missing class on undefined %s", name)
		}
		p.annotate(r.Index(), p.class(cls), false)
	}
}

// annotate records the class of virtual register i given on the current
// line, by a definition or by the undefined line.
func (p *txtParser) annotate(i int, c Class, def bool) {
	l := p.vline[i]
	if def && l < 0 {
		p.fail("v%d is defined but listed as undefined on line %d", i, -l)
	}
	if l != 0 {
		if c != p.f.VRegs[i] {
			p.fail("class conflict on v%d: %s here, %s on line %d", i, c, p.f.VRegs[i], max(l, -l))
		}
		return
	}
	p.f.VRegs[i] = c
	if def {
		p.vline[i] = int32(p.line)
	} else {
		p.vline[i] = -int32(p.line)
	}
}

// txtDecimal parses an unsigned decimal without sign or leading zeros. ok
// is false for anything else; big reports a value above limit.
func txtDecimal(s string, limit uint64) (n uint64, ok, big bool) {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return 0, false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false, false
		}
		if d := uint64(c - '0'); !big && (n > limit/10 || n*10+d > limit) {
			big = true
		} else if !big {
			n = n*10 + d
		}
	}
	return n, true, big
}

// int parses a signed decimal of the given bit size.
func (p *txtParser) int(s string, bits int) int64 {
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			p.fail("number %q out of range", s)
		}
		p.fail("bad number %q", s)
	}
	return n
}

// float parses a frequency or probability.
func (p *txtParser) float(s string) float64 {
	if hex, ok := strings.CutPrefix(s, "NaN(0x"); ok {
		if hex, ok = strings.CutSuffix(hex, ")"); ok {
			b, err := strconv.ParseUint(hex, 16, 64)
			if x := math.Float64frombits(b); err == nil && x != x {
				return x
			}
		}
		p.fail("bad float %q", s)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.fail("bad float %q", s)
	}
	return x
}

// blockRef parses "bN" and records it for the check at the end.
func (p *txtParser) blockRef(s string) int {
	if !strings.HasPrefix(s, "b") {
		p.fail("bad block %q", s)
	}
	n, ok, big := txtDecimal(s[1:], math.MaxInt32)
	if !ok || big {
		p.fail("bad block %q", s)
	}
	p.refs = append(p.refs, txtRef{int(n), p.line})
	return int(n)
}

func (p *txtParser) blockHeader(w, rest string) {
	if p.vregsLine == 0 {
		p.fail("missing vregs line before the first block")
	}
	idTok, ok := strings.CutSuffix(w, ":")
	if !ok {
		p.fail("bad block header %q", w)
	}
	n, ok, big := txtDecimal(idTok[1:], math.MaxInt32)
	if !ok || big {
		p.fail("bad block %q", idTok)
	}
	if int(n) != len(p.f.Blocks) {
		p.fail("block %s out of order, want b%d", idTok, len(p.f.Blocks))
	}
	b := &Block{ID: int(n)}
	toks := txtFields(rest)
	i := 0
	if i < len(toks) && strings.HasPrefix(toks[i], "preds=") {
		list := toks[i][len("preds="):]
		if list == "" {
			p.fail("empty preds list")
		}
		for _, tok := range strings.Split(list, ",") {
			b.Preds = append(b.Preds, p.blockRef(tok))
		}
		i++
	}
	if i >= len(toks) || !strings.HasPrefix(toks[i], "freq=") {
		p.fail("missing \"freq=\" in block header")
	}
	b.Freq = p.float(toks[i][len("freq="):])
	if i++; i < len(toks) {
		p.fail("unexpected %q in block header", toks[i])
	}
	p.f.Blocks = append(p.f.Blocks, b)
	p.blk = b
	p.succsSet = false
}

// succs reads a successor list (after "->") into the current block.
func (p *txtParser) succs(s string) {
	s = txtTrim(s)
	if s == "" {
		p.fail("empty successor list")
	}
	b := p.blk
	for _, item := range strings.Split(s, ",") {
		toks := txtFields(item)
		switch {
		case len(toks) == 0:
			p.fail("empty successor")
		case len(toks) > 2 || len(toks) == 2 && !strings.HasPrefix(toks[0], "b"):
			p.fail("bad successor %q", txtTrim(item))
		case strings.HasPrefix(toks[0], "b"):
			b.Succs = append(b.Succs, p.blockRef(toks[0]))
			if len(toks) == 2 {
				b.SuccProb = append(b.SuccProb, p.float(toks[1]))
			}
		default:
			b.SuccProb = append(b.SuccProb, p.float(toks[0]))
		}
	}
	p.succsSet = true
}

func (p *txtParser) standaloneSuccs(s string) {
	switch {
	case p.blk == nil:
		p.fail("successor list outside a block")
	case p.succsSet:
		p.fail("duplicate successor list")
	}
	if t := p.blk.Terminator(); t != nil && t.Op.Info().Terminator {
		p.fail("successors of %s belong on its line", t.Op)
	}
	p.succs(s)
}

// txtReg parses a register name, including "noreg".
func txtReg(s string) (Reg, bool) {
	if s == "noreg" {
		return NoReg, true
	}
	return ParseReg(s)
}

// useReg parses a register operand that is read.
func (p *txtParser) useReg(s string) Reg {
	r, ok := txtReg(s)
	if !ok {
		if name, _, found := strings.Cut(s, ":"); found {
			if _, ok := txtReg(name); ok {
				p.fail("class suffix on use %q", s)
			}
		}
		p.fail("bad register %q", s)
	}
	return r
}

// defReg parses a defined register with its optional class suffix.
func (p *txtParser) defReg(s string) Reg {
	name, cls, hasCls := strings.Cut(s, ":")
	r, ok := txtReg(name)
	if !ok {
		p.fail("bad register %q", name)
	}
	switch {
	case !r.IsVirtual():
		if hasCls {
			p.fail("class suffix on non-virtual register %q", s)
		}
	case r.Index() >= len(p.f.VRegs):
		if hasCls {
			p.fail("%s is beyond vregs %d and cannot have a class", name, len(p.f.VRegs))
		}
	case !hasCls:
		p.fail("missing class on definition of %s (want %s:gpr or %s:xmm)", name, name, name)
	default:
		p.annotate(r.Index(), p.class(cls), true)
	}
	return r
}

func (p *txtParser) instr(s string) {
	switch {
	case p.blk == nil:
		p.fail("instruction outside a block")
	case p.succsSet:
		p.fail("instruction after the block's successor list")
	}
	in := &Instr{Pos: -1}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		in.Pos = int32(p.int(txtTrim(s[i+1:]), 32))
		s = txtTrim(s[:i])
	}
	succs, hasSuccs := "", false
	if i := strings.Index(s, "->"); i >= 0 {
		succs, hasSuccs = s[i+2:], true
		s = txtTrim(s[:i])
	}
	hasDefs := false
	if i := strings.IndexByte(s, '='); i >= 0 {
		defs := txtTrim(s[:i])
		if defs == "" {
			p.fail("missing definitions before \"=\"")
		}
		for _, d := range strings.Split(defs, ",") {
			in.Defs = append(in.Defs, p.defReg(txtTrim(d)))
		}
		s, hasDefs = txtTrim(s[i+1:]), true
	}
	opTok, rest := txtCutSpace(s)
	if opTok == "" {
		p.fail("missing op")
	}
	name, cond, hasCond := strings.Cut(opTok, ".")
	op, ok := OpByName(name)
	if name == "Invalid" {
		op, ok = OpInvalid, true
	}
	if !ok {
		if !hasDefs {
			if r, _, _ := strings.Cut(name, ":"); r != "" {
				if _, isReg := txtReg(r); isReg {
					p.fail("missing \"=\" after definitions")
				}
			}
		}
		p.fail("unknown op %q", name)
	}
	in.Op = op
	info := op.Info()
	if hasCond {
		c, ok := CondByName(cond)
		if !ok {
			p.fail("unknown condition %q", cond)
		}
		in.Cond = c
	} else if info.HasCond {
		p.fail("%s needs a condition (%s.COND)", op, op)
	}
	if strings.HasPrefix(rest, "#") {
		var tok string
		tok, rest = txtCutSpace(rest)
		in.Aux = int32(p.int(tok[1:], 32))
	} else if txtUsesAux(op) {
		p.fail("%s needs an aux number (#N)", op)
	}
	p.operands(in, info, rest)
	if hasSuccs {
		if !info.Terminator {
			p.fail("successors after non-terminator %s", op)
		}
		p.succs(succs)
	}
	p.blk.Instrs = append(p.blk.Instrs, in)
}

// operands reads the operand list of in, and a trailing "*S".
func (p *txtParser) operands(in *Instr, info *OpInfo, s string) {
	star := -1
	depth := 0
	for i := 0; i < len(s) && star < 0; i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '*':
			if depth <= 0 {
				star = i
			}
		}
	}
	scaleTok, hasScale := "", false
	if star >= 0 {
		scaleTok, hasScale = txtTrim(s[star+1:]), true
		s = txtTrim(s[:star])
	}
	memPos := -1
	if info.HasMem {
		memPos = txtMemPos(info)
	}
	sawMem, sawImm := false, false
	if s != "" {
		for _, item := range strings.Split(s, ",") {
			item = txtTrim(item)
			switch {
			case item == "":
				p.fail("empty operand")
			case sawImm:
				p.fail("immediate must be the last operand")
			case item[0] == '[':
				switch {
				case !info.HasMem:
					p.fail("%s has no memory operand", in.Op)
				case sawMem:
					p.fail("second memory operand")
				case len(in.Uses) != memPos:
					p.fail("memory operand must be operand %d of %s", memPos+1, in.Op)
				}
				p.mem(in, item)
				sawMem = true
			case item[0] == '$':
				if sawMem {
					p.fail("immediate besides a memory operand (its displacement is the immediate)")
				}
				tok := p.noJunk(item)
				in.Imm = p.int(tok[1:], 64)
				sawImm = true
			default:
				in.Uses = append(in.Uses, p.useReg(p.noJunk(item)))
			}
		}
	}
	if info.HasMem && !sawMem && len(in.Uses) >= memPos+2 {
		p.fail("%s needs a memory operand [BASE+INDEX*SCALE+DISP]", in.Op)
	}
	if info.HasImm && !sawMem && !sawImm {
		p.fail("%s needs an immediate ($N)", in.Op)
	}
	if hasScale {
		if sawMem {
			p.fail("scale outside the memory operand")
		}
		in.Scale = p.scale(scaleTok)
	}
}

// noJunk returns the single token of an operand item.
func (p *txtParser) noJunk(item string) string {
	tok, rest := txtCutSpace(item)
	if rest != "" {
		p.fail("unexpected %q after operand %q", rest, tok)
	}
	return tok
}

func (p *txtParser) scale(s string) uint8 {
	n, ok, big := txtDecimal(s, math.MaxUint8)
	switch {
	case !ok:
		p.fail("bad scale %q", s)
	case big:
		p.fail("scale %s out of range (0-255)", s)
	}
	return uint8(n)
}

// mem reads a memory operand "[BASE+INDEX*SCALE+DISP]" into in.
func (p *txtParser) mem(in *Instr, item string) {
	end := strings.IndexByte(item, ']')
	if end < 0 {
		p.fail("unterminated memory operand %q", item)
	}
	if rest := txtTrim(item[end+1:]); rest != "" {
		p.fail("unexpected %q after operand %q", rest, item[:end+1])
	}
	inner := item[1:end]
	plus := strings.IndexByte(inner, '+')
	star := strings.IndexByte(inner, '*')
	if star < 0 {
		// No index: [BASE], [BASE+DISP] or [BASE-DISP].
		k := strings.IndexAny(inner, "+-")
		if k < 0 {
			k = len(inner)
		}
		base := p.useReg(inner[:k])
		if k < len(inner) {
			in.Imm = p.int(inner[k:], 64)
		}
		in.Scale = 1
		in.Uses = append(in.Uses, base, NoReg)
		return
	}
	if plus < 0 || star < plus {
		p.fail("bad memory operand %q, want [BASE+INDEX*SCALE+DISP] or [BASE+DISP]", item[:end+1])
	}
	base := p.useReg(inner[:plus])
	index := p.useReg(inner[plus+1 : star])
	rest := inner[star+1:]
	k := strings.IndexAny(rest, "+-")
	if k < 0 {
		k = len(rest)
	}
	in.Scale = p.scale(rest[:k])
	if k < len(rest) {
		in.Imm = p.int(rest[k:], 64)
	}
	in.Uses = append(in.Uses, base, index)
}

// finish checks the function at its "end" line and stores it.
func (p *txtParser) finish() {
	f := p.f
	if p.vregsLine == 0 {
		p.fail("missing vregs line")
	}
	for _, r := range p.refs {
		if r.id >= len(f.Blocks) {
			p.line = r.line
			p.fail("reference to missing block b%d", r.id)
		}
	}
	for i, l := range p.vline {
		if l == 0 {
			p.line = p.vregsLine
			p.fail("v%d has no class: it is neither defined nor listed as undefined", i)
		}
	}
	p.funcs = append(p.funcs, f)
	p.f, p.blk, p.vline = nil, nil, nil
}
