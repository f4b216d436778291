package dumphtml

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
)

// column is one column of the page, its body already rendered to markup.
type column struct {
	title string
	kind  string // the column's CSS class: bytecode, ir, cfg or asm
	notes []string
	body  []byte
}

// markup accumulates the markup of a column.
type markup struct{ b []byte }

// raw appends markup as it is.
func (m *markup) raw(s string) { m.b = append(m.b, s...) }

// text appends s as escaped text.
func (m *markup) text(s string) { m.b = appendEscaped(m.b, s) }

// name appends a clickable name: the span the page's script indexes by its
// data-n key (which may differ from the text shown, as AX is rax).
func (m *markup) name(display, key string) {
	m.raw(`<span class="n" data-n="`)
	m.text(key)
	m.raw(`">`)
	m.text(display)
	m.raw(`</span>`)
}

// words appends the text s, with each word (a run of letters, digits and
// underscores, or "@" and such a run) for which classify returns a key as
// a clickable name with that key.
func (m *markup) words(s string, classify func(word string) string) {
	start := 0 // the start of the text not yet written
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) && !(s[i] == '@' && i+1 < len(s) && isWordByte(s[i+1])) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if key := classify(s[i:j]); key != "" {
			m.text(s[start:i])
			m.name(s[i:j], key)
			start = j
		}
		i = j
	}
	m.text(s[start:])
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// appendEscaped appends s escaped for HTML and XML text and attribute
// values, as html.EscapeString escapes it (&, <, >, " and '). Bytes that are
// not valid UTF-8 and characters XML does not allow (control characters
// other than tab, newline and carriage return) become U+FFFD, so that the
// page stays well-formed whatever names the module holds.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '&':
				b = append(b, "&amp;"...)
			case c == '<':
				b = append(b, "&lt;"...)
			case c == '>':
				b = append(b, "&gt;"...)
			case c == '"':
				b = append(b, "&#34;"...)
			case c == '\'':
				b = append(b, "&#39;"...)
			case c < 0x20 && c != '\t' && c != '\n' && c != '\r':
				b = append(b, "\uFFFD"...)
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == 0xFFFE || r == 0xFFFF {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

// irName classifies a word of the machine IR's text form: registers (v3,
// rax, xmm2, s0, in1, out0), blocks (b4) and bytecode offsets (@12).
func irName(w string) string {
	switch {
	case w[0] == '@':
		if allDigits(w[1:]) {
			return w
		}
		return ""
	case w[0] == 'b' && allDigits(w[1:]):
		return w
	}
	if r, ok := mir.ParseReg(w); ok && r != mir.NoReg {
		return r.String()
	}
	return ""
}

// bytecodeName classifies a word of the bytecode's text form: registers
// (r3, keyed apart from the machine register r3 as bc:r3) and labels (L12,
// the offset @12).
func bytecodeName(w string) string {
	switch {
	case w[0] == 'r' && allDigits(w[1:]):
		return "bc:" + w
	case w[0] == 'L' && allDigits(w[1:]):
		return "@" + w[1:]
	}
	return ""
}

// asmRegs maps the Go assembler's register names to the machine IR's:
// every width of a general register is the 64-bit register.
var asmRegs = func() map[string]string {
	m := map[string]string{
		"AX": "rax", "CX": "rcx", "DX": "rdx", "BX": "rbx", "SP": "rsp", "BP": "rbp", "SI": "rsi", "DI": "rdi",
		"AL": "rax", "CL": "rcx", "DL": "rdx", "BL": "rbx", "AH": "rax", "CH": "rcx", "DH": "rdx", "BH": "rbx",
	}
	for i := 0; i < 16; i++ {
		if i >= 8 {
			m["R"+strconv.Itoa(i)] = "r" + strconv.Itoa(i)
		}
		m["X"+strconv.Itoa(i)] = "xmm" + strconv.Itoa(i)
	}
	return m
}()

// asmName classifies a word of an instruction in Go syntax: registers.
func asmName(w string) string { return asmRegs[w] }

// asmJumpName classifies a word of a jump: registers and the target
// offset (0x2f, keyed as the instruction at offset 2f, pc:2f).
func asmJumpName(w string) string {
	if len(w) > 2 && w[:2] == "0x" && isHex(w[2:]) {
		return "pc:" + w[2:]
	}
	return asmRegs[w]
}

// renderer renders columns; counts says whether the profile is measured,
// calls how many calls it saw.
type renderer struct {
	counts bool
	calls  float64
	pinned []mir.Reg // scratch for pins and locations

	// mark, markLoc and stamp serve seen: per virtual register, the
	// instruction (stamp) that last paired it with a location, and the
	// location.
	mark    []uint32
	markLoc []mir.Reg
	stamp   uint32
}

// freq appends a block's frequency and, with counts, its estimated count.
func (r *renderer) freq(m *markup, freq float64) {
	m.raw(` <span class="freq" title="`)
	m.text(formatExact(freq))
	m.raw(`">freq=`)
	m.text(formatFreq(freq))
	m.raw(`</span>`)
	if r.counts {
		m.raw(` <span class="count">n≈`)
		m.text(formatCount(r.calls * freq))
		m.raw(`</span>`)
	}
}

// edge appends a successor edge: its target, its probability and, with
// counts, its estimated count. kind, if not empty, says what the edge is.
func (r *renderer) edge(m *markup, display, key, kind string, prob, fromFreq float64) {
	m.raw(`<span class="edge">→ `)
	m.name(display, key)
	if kind != "" {
		m.raw(` <span class="kind">`)
		m.text(kind)
		m.raw(`</span>`)
	}
	m.raw(` <span class="prob" title="`)
	m.text(formatExact(prob))
	m.raw(`">p=`)
	m.text(formatFreq(prob))
	m.raw(`</span>`)
	if r.counts {
		m.raw(` <span class="count">n≈`)
		m.text(formatCount(r.calls * fromFreq * prob))
		m.raw(`</span>`)
	}
	m.raw(`</span>`)
}

// isBlockHeader reports whether a line of the IR's text form starts a
// block ("b12: ...").
func isBlockHeader(ln string) bool {
	i := 1
	for i < len(ln) && '0' <= ln[i] && ln[i] <= '9' {
		i++
	}
	return len(ln) > 2 && ln[0] == 'b' && i > 1 && i < len(ln) && ln[i] == ':'
}

// irColumn renders f in the machine IR's text form (mir.Format), one
// block at a time: the block header with its frequency, the instructions
// (with the pins of their registers when f has pins) and the successor
// edges with their probabilities.
func (r *renderer) irColumn(title string, notes []string, f *mir.Func, locs *locations) *column {
	c := &column{title: title, kind: "ir", notes: notes}
	var m markup
	lines := strings.Split(strings.TrimSuffix(mir.Format(f), "\n"), "\n")
	var starts []int
	for i, ln := range lines {
		if isBlockHeader(ln) {
			starts = append(starts, i)
		}
	}
	ok := len(starts) == len(f.Blocks)
	for i, b := range f.Blocks {
		if b == nil || b.ID != i {
			ok = false
		}
	}
	if !ok {
		// IR the text form cannot represent: show the text as it is.
		for i, ln := range lines {
			m.raw(`<div class="l">`)
			if i == 0 {
				m.text(ln)
			} else {
				m.words(ln, irName)
			}
			m.raw("</div>\n")
		}
		c.body = m.b
		return c
	}
	tail := len(lines)
	if lines[tail-1] == "end" {
		tail--
	}
	hdrEnd := tail
	if len(starts) > 0 {
		hdrEnd = starts[0]
	}
	m.raw(`<div class="fh">`)
	for i, ln := range lines[:hdrEnd] {
		m.raw(`<div class="l">`)
		if i == 0 {
			m.text(ln) // the name may look like a register
		} else {
			m.words(ln, irName)
		}
		m.raw("</div>\n")
	}
	m.raw("</div>\n")
	if locs != nil && !locs.fits(f) {
		locs = nil
	}
	for i, b := range f.Blocks {
		end := tail
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		r.irBlock(&m, f, b, lines[starts[i]+1:end], locs)
	}
	c.body = m.b
	return c
}

// irBlock renders block b, whose instruction lines (and standalone
// successor line) are body.
func (r *renderer) irBlock(m *markup, f *mir.Func, b *mir.Block, body []string, locs *locations) {
	bn := "b" + strconv.Itoa(b.ID)
	m.raw(`<div class="block" data-block="`)
	m.text(bn)
	m.raw(`"><div class="bh">`)
	m.name(bn, bn)
	m.raw(":")
	if len(b.Preds) > 0 {
		m.raw(` <span class="preds">preds `)
		for k, p := range b.Preds {
			if k > 0 {
				m.raw(", ")
			}
			pn := "b" + strconv.Itoa(p)
			m.name(pn, pn)
		}
		m.raw(`</span>`)
	}
	r.freq(m, b.Freq)
	m.raw("</div>\n")
	nin := len(b.Instrs)
	// Each instruction is one line; a block whose successors are not on
	// its terminator has one more line for them.
	aligned := len(body) == nin || len(body) == nin+1 && strings.HasPrefix(strings.TrimSpace(body[nin]), "->")
	hasSuccs := len(b.Succs) > 0 || len(b.SuccProb) > 0
	for k, ln := range body {
		if aligned && k == nin {
			continue // the successor line: the edges below show it
		}
		if aligned && hasSuccs && k == nin-1 {
			ln = stripSuccs(ln)
		}
		m.raw(`<div class="l">`)
		m.words(ln, irName)
		if aligned && f.Pins != nil && b.Instrs[k] != nil {
			r.pins(m, f, b.Instrs[k])
		}
		if aligned && locs != nil && b.Instrs[k] != nil {
			r.locations(m, locs, b.ID, k, b.Instrs[k])
		}
		m.raw("</div>\n")
	}
	if len(b.Succs) > 0 {
		m.raw(`<div class="edges">`)
		for k, s := range b.Succs {
			if k > 0 {
				m.raw(" ")
			}
			p := 0.0
			if k < len(b.SuccProb) {
				p = b.SuccProb[k]
			}
			sn := "b" + strconv.Itoa(s)
			r.edge(m, sn, sn, "", p, b.Freq)
		}
		m.raw("</div>\n")
	}
	m.raw("</div>\n")
}

// stripSuccs removes the successor list (" -> b3 0.5, b4 0.5") from the
// text of a terminator, keeping its position ("@12").
func stripSuccs(ln string) string {
	i := strings.Index(ln, " -> ")
	if i < 0 {
		return ln
	}
	if at := strings.LastIndex(ln[i:], " @"); at >= 0 {
		return ln[:i] + ln[i+at:]
	}
	return ln[:i]
}

// seen reports whether virtual register v was already paired with loc
// for the current instruction (since the last newInstr), and records the
// pair. It keeps the last location per register, so it takes constant
// time, which keeps an instruction with many operands linear.
func (r *renderer) seen(v, loc mir.Reg) bool {
	i := v.Index()
	for i >= len(r.mark) {
		r.mark = append(r.mark, 0)
		r.markLoc = append(r.markLoc, mir.NoReg)
	}
	if r.mark[i] == r.stamp && r.markLoc[i] == loc {
		return true
	}
	r.mark[i], r.markLoc[i] = r.stamp, loc
	return false
}

// newInstr starts a new instruction for seen.
func (r *renderer) newInstr() {
	r.stamp++
	if r.stamp == 0 { // wrapped around: forget everything
		clear(r.mark)
		r.stamp = 1
	}
	r.pinned = r.pinned[:0]
}

// pins appends the pins of the virtual registers instruction in uses or
// defines, as {v0=rdi, v3=rax}.
func (r *renderer) pins(m *markup, f *mir.Func, in *mir.Instr) {
	r.newInstr()
	for _, ops := range [2][]mir.Reg{in.Defs, in.Uses} {
		for _, v := range ops {
			if v.IsVirtual() && f.Pin(v) != mir.NoReg && !r.seen(v, mir.NoReg) {
				r.pinned = append(r.pinned, v)
			}
		}
	}
	if len(r.pinned) == 0 {
		return
	}
	m.raw(` <span class="pin">{`)
	for k, v := range r.pinned {
		if k > 0 {
			m.raw(", ")
		}
		vn, pn := v.String(), f.Pin(v).String()
		m.name(vn, vn)
		m.raw("=")
		m.name(pn, pn)
	}
	m.raw(`}</span>`)
}

// locations relates an allocated function to its input: in is the
// function before allocation and origins says which of its instructions
// each allocated instruction was made from.
type locations struct {
	in      *mir.Func
	origins *alloc.Origins
}

// fits reports whether the origins cover allocated function f.
func (l *locations) fits(f *mir.Func) bool {
	o := l.origins
	if o == nil || len(o.Block) != len(f.Blocks) || len(o.Instr) != len(f.Blocks) {
		return false
	}
	for b, blk := range f.Blocks {
		if len(o.Instr[b]) != len(blk.Instrs) || o.Block[b] >= len(l.in.Blocks) {
			return false
		}
	}
	return true
}

// locations appends where allocated instruction k of block b (a) keeps
// the registers of the instruction it was made from, as {v1→rbx,
// v2→s0}, or marks it inserted by the allocator.
func (r *renderer) locations(m *markup, l *locations, b, k int, a *mir.Instr) {
	ib, ik := l.origins.Block[b], l.origins.Instr[b][k]
	if ib < 0 || ik < 0 {
		m.raw(` <span class="loc">(inserted)</span>`)
		return
	}
	if int(ik) >= len(l.in.Blocks[ib].Instrs) {
		return
	}
	in := l.in.Blocks[ib].Instrs[ik]
	if in == nil || in.Op != a.Op || len(in.Defs) != len(a.Defs) || len(in.Uses) != len(a.Uses) {
		return
	}
	r.newInstr() // r.pinned holds pairs: virtual register, location
	for _, ops := range [2][2][]mir.Reg{{in.Defs, a.Defs}, {in.Uses, a.Uses}} {
		for i, v := range ops[0] {
			if loc := ops[1][i]; v.IsVirtual() && loc != v && !r.seen(v, loc) {
				r.pinned = append(r.pinned, v, loc)
			}
		}
	}
	if len(r.pinned) == 0 {
		return
	}
	m.raw(` <span class="loc">{`)
	for j := 0; j < len(r.pinned); j += 2 {
		if j > 0 {
			m.raw(", ")
		}
		vn, ln := r.pinned[j].String(), r.pinned[j+1].String()
		m.name(vn, vn)
		m.raw("→")
		m.name(ln, ln)
	}
	m.raw(`}</span>`)
}

// funcText returns the lines of function fn in the bytecode's text form
// (bytecode.Disassemble), from its "func" line to its "end" line
// exclusive, or nil if they cannot be found.
func funcText(m *bytecode.Module, fn int) []string {
	// The module without its data, whose text can be large and is not
	// shown.
	mm := *m
	mm.Data, mm.Elems, mm.Exports = nil, nil, nil
	k := 0 // functions printed before fn
	for _, f := range m.Funcs[:fn] {
		if f != nil {
			k++
		}
	}
	text := string(bytecode.Disassemble(&mm))
	start := -1
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			j = len(text) - i
		}
		ln := text[i : i+j]
		if start < 0 && strings.HasPrefix(ln, "func ") {
			if k == 0 {
				start = i
			}
			k--
		} else if start >= 0 && ln == "end" {
			return strings.Split(text[start:i-1], "\n")
		}
		i += j + 1
	}
	return nil
}

// bytecodeColumn renders function fn's bytecode, each instruction with
// its offset, grouped into the blocks of the profile's layout with their
// frequencies and successor edges.
func (r *renderer) bytecodeColumn(m *bytecode.Module, fn int, prof *profilecounters.Profile) *column {
	c := &column{title: "bytecode", kind: "bytecode", notes: []string{"offset and instruction, in the blocks the profile counts (B0, B1, ...)"}}
	var mk markup
	bf := m.Funcs[fn]
	lines := funcText(m, fn)
	// Sort the lines out: the header, then per instruction its label and
	// its text.
	all := lines
	var hdr []string
	label := make([]string, len(bf.Code))
	code := make([]string, 0, len(bf.Code))
	ok := len(lines) > 0
	if ok {
		hdr = lines[:1]
		lines = lines[1:]
		if len(lines) > 0 && len(bf.Regs) > len(bf.Sig.Params) && strings.HasPrefix(lines[0], "  regs") {
			hdr = append(hdr, lines[0])
			lines = lines[1:]
		}
	}
	for _, ln := range lines {
		switch {
		case strings.HasPrefix(ln, "  ") && len(code) < len(bf.Code):
			code = append(code, strings.TrimPrefix(ln, "  "))
		case strings.HasSuffix(ln, ":") && len(code) < len(bf.Code) && label[len(code)] == "":
			label[len(code)] = ln
		default:
			ok = false
		}
	}
	if !ok || len(code) != len(bf.Code) {
		for _, ln := range all {
			mk.raw(`<div class="l">`)
			mk.words(ln, bytecodeName)
			mk.raw("</div>\n")
		}
		c.body = mk.b
		return c
	}
	mk.raw(`<div class="fh">`)
	for _, ln := range hdr {
		mk.raw(`<div class="l">`)
		mk.text(ln)
		mk.raw("</div>\n")
	}
	mk.raw("</div>\n")
	width := len(strconv.Itoa(max(len(bf.Code)-1, 0)))
	instr := func(pc int) {
		if label[pc] != "" {
			mk.raw(`<div class="l lbl">`)
			mk.words(label[pc], bytecodeName)
			mk.raw("</div>\n")
		}
		off := strconv.Itoa(pc)
		mk.raw(`<div class="l">`)
		mk.raw(strings.Repeat(" ", width-len(off)))
		mk.name(off, "@"+off)
		mk.raw("  ")
		mk.words(code[pc], bytecodeName)
		mk.raw("</div>\n")
	}
	l := prof.Layout
	// The blocks partition the code in order.
	end := 0
	for b := range l.Blocks {
		if int(l.Blocks[b].Start) != end || int(l.Blocks[b].End) <= end {
			end = -1
			break
		}
		end = int(l.Blocks[b].End)
	}
	if end != len(code) {
		for pc := range code {
			instr(pc)
		}
		c.body = mk.b
		return c
	}
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		bn := "B" + strconv.Itoa(b)
		mk.raw(`<div class="block" data-block="`)
		mk.text(bn)
		mk.raw(`"><div class="bh">`)
		mk.name(bn, "bc:"+bn)
		mk.raw(`: <span class="range">[`)
		mk.text(strconv.Itoa(int(blk.Start)) + ", " + strconv.Itoa(int(blk.End)))
		mk.raw(`)</span>`)
		r.freq(&mk, prof.BlockFreq[b])
		mk.raw("</div>\n")
		for pc := int(blk.Start); pc < int(blk.End); pc++ {
			instr(pc)
		}
		if blk.NumEdges > 0 {
			mk.raw(`<div class="edges">`)
			for e := blk.FirstEdge; e < blk.FirstEdge+blk.NumEdges; e++ {
				if e > blk.FirstEdge {
					mk.raw(" ")
				}
				to := "B" + strconv.Itoa(int(l.Edges[e].To))
				r.edge(&mk, to, "bc:"+to, l.Edges[e].Kind.String(), prof.EdgeProb[e], prof.BlockFreq[b])
			}
			mk.raw("</div>\n")
		}
		mk.raw("</div>\n")
	}
	c.body = mk.b
	return c
}

// asmColumn renders the machine code as encode.Disassemble prints it:
// offsets, bytes and instructions in Go syntax, with the bytecode offsets
// as comment lines.
func (r *renderer) asmColumn(text string) *column {
	c := &column{title: "asm", kind: "asm"}
	var m markup
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "; func ") {
		c.notes = append(c.notes, strings.TrimPrefix(lines[0], "; "))
		lines = lines[1:]
	}
	c.notes = append(c.notes, "offset, bytes, instruction (Go syntax); registers are named as in the IR")
	for _, ln := range lines {
		switch {
		case strings.HasPrefix(ln, "; bytecode ") && allDigits(ln[len("; bytecode "):]):
			pos := ln[len("; bytecode "):]
			m.raw(`<div class="l pos">; bytecode `)
			m.name(pos, "@"+pos)
			m.raw("</div>\n")
		case strings.HasPrefix(ln, ";") || len(ln) < 8:
			m.raw(`<div class="l">`)
			m.text(ln)
			m.raw("</div>\n")
		default:
			r.asmLine(&m, ln)
		}
	}
	c.body = m.b
	return c
}

// asmLine renders one line of machine code: "%6x  % x  instruction".
func (r *renderer) asmLine(m *markup, ln string) {
	m.raw(`<div class="l">`)
	off := strings.TrimLeft(ln[:6], " ")
	if !isHex(off) || ln[6:8] != "  " {
		m.words(ln, asmName)
		m.raw("</div>\n")
		return
	}
	m.text(ln[:6-len(off)])
	m.name(off, "pc:"+off)
	// The bytes: lower-case hex pairs separated by single spaces.
	i := 8
	for i+2 <= len(ln) && isHex(ln[i:i+2]) && (i+2 == len(ln) || ln[i+2] == ' ') {
		i += 3
	}
	bytes := strings.TrimRight(ln[8:min(i, len(ln))], " ")
	m.raw(`  <span class="bytes">`)
	m.text(bytes)
	m.raw(`</span>`)
	ins := ln[8+len(bytes):]
	classify := asmName
	if strings.HasPrefix(strings.TrimLeft(ins, " "), "J") {
		classify = asmJumpName
	}
	m.words(ins, classify)
	m.raw("</div>\n")
}
