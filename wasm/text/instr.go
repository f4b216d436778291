package text

import (
	"strings"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// opcodes maps instruction names to opcodes: every opcode of
// WebAssembly 2.0 but SIMD's by its name (select is the untyped one; a
// result type makes it typed), and the names of 1.0 before the 2019
// renaming (get_local, i32.trunc_s/f32, ...), which tools still accept.
var opcodes = func() map[string]binary.Opcode {
	m := map[string]binary.Opcode{}
	for _, prefix := range []binary.Opcode{0, binary.PrefixFC << 8} {
		for i := 0; i < 256; i++ {
			op := prefix + binary.Opcode(i)
			if op.Valid() && op != binary.OpElse && op != binary.OpEnd && op != binary.OpSelectT {
				m[op.String()] = op
			}
		}
	}
	old := map[string]string{
		"get_local": "local.get", "set_local": "local.set", "tee_local": "local.tee",
		"get_global": "global.get", "set_global": "global.set",
		"current_memory": "memory.size", "grow_memory": "memory.grow",
		"i32.wrap/i64": "i32.wrap_i64", "f32.demote/f64": "f32.demote_f64", "f64.promote/f32": "f64.promote_f32",
	}
	for _, t := range []string{"i32", "i64"} {
		for _, f := range []string{"f32", "f64"} {
			for _, s := range []string{"s", "u"} {
				old[t+".trunc_"+s+"/"+f] = t + ".trunc_" + f + "_" + s
				old[f+".convert_"+s+"/"+t] = f + ".convert_" + t + "_" + s
			}
		}
	}
	old["i64.extend_s/i32"] = "i64.extend_i32_s"
	old["i64.extend_u/i32"] = "i64.extend_i32_u"
	old["i32.reinterpret/f32"] = "i32.reinterpret_f32"
	old["i64.reinterpret/f64"] = "i64.reinterpret_f64"
	old["f32.reinterpret/i32"] = "f32.reinterpret_i32"
	old["f64.reinterpret/i64"] = "f64.reinterpret_i64"
	for o, n := range old {
		m[o] = m[n]
	}
	return m
}()

// reserved are the keywords of the text format that are not
// instructions: met where an instruction should be, they are an
// unexpected token rather than an unknown operator.
var reserved = map[string]bool{
	"module": true, "type": true, "func": true, "param": true, "result": true, "local": true,
	"import": true, "export": true, "table": true, "memory": true, "global": true, "start": true,
	"elem": true, "data": true, "offset": true, "mut": true, "funcref": true, "anyfunc": true,
	"then": true, "else": true, "end": true, "binary": true, "quote": true,
	"i32": true, "i64": true, "f32": true, "f64": true,
}

// simdPrefixes begin the names of the SIMD instructions, which the parser
// does not read.
var simdPrefixes = []string{"v128.", "i8x16.", "i16x8.", "i32x4.", "i64x2.", "f32x4.", "f64x2."}

// funcCtx is the state of parsing the instructions of one function or
// constant expression.
type funcCtx struct {
	p       *parser
	body    []byte
	locals  map[string]uint32
	nLocals uint32
	labels  []string // of the enclosing blocks, innermost last ("" for none)
	depth   int
}

func (c *funcCtx) addLocal(name string, idx uint32) {
	if name == "" {
		return
	}
	if _, dup := c.locals[name]; dup {
		c.p.fail("duplicate local %s", name)
	}
	c.locals[name] = idx
}

func (c *funcCtx) enter() {
	c.depth++
	if c.depth > maxDepth {
		c.p.fail("nesting deeper than %d", maxDepth)
	}
}

// instrs parses instructions up to a closing parenthesis or an "end" or
// "else" keyword, which it leaves for the caller.
func (c *funcCtx) instrs() {
	p := c.p
	for {
		t := p.peek()
		switch t.kind {
		case tRParen, tEOF:
			return
		case tLParen:
			c.folded()
		case tAtom:
			if t.text == "end" || t.text == "else" {
				return
			}
			c.plain()
		default:
			p.unexpected("an instruction")
		}
	}
}

// operator reads an instruction name and returns its opcode.
func (c *funcCtx) operator() binary.Opcode {
	p := c.p
	t := p.peek()
	if t.kind != tAtom {
		p.unexpected("an instruction")
	}
	if op, ok := opcodes[t.text]; ok {
		p.next()
		return op
	}
	if reserved[t.text] || t.text[0] >= '0' && t.text[0] <= '9' || t.text[0] == '+' || t.text[0] == '-' {
		p.unexpected("an instruction")
	}
	for _, prefix := range simdPrefixes {
		if strings.HasPrefix(t.text, prefix) {
			p.failAt(t, "unsupported: %s (%s)", t.text, binary.FeatureSIMD.Name())
		}
	}
	p.failAt(t, "unknown operator %s", t.describe())
	return 0
}

// blockType parses the type use after a block, loop or if and returns
// its encoding: 0x40 for none, the value type of a single result, or the
// index of a function type (multi-value).
func (c *funcCtx) blockType() []byte {
	p := c.p
	if !p.isField("result") && !p.isField("param") && !p.isField("type") {
		return []byte{byte(binary.BlockEmpty)}
	}
	if !p.isField("param") && !p.isField("type") {
		save := p.pos
		rs := p.results()
		if len(rs) <= 1 && !p.isField("param") && !p.isField("type") {
			if len(rs) == 0 {
				return []byte{byte(binary.BlockEmpty)}
			}
			return []byte{byte(rs[0])}
		}
		p.pos = save
	}
	idx, _ := p.typeUse(false)
	return binary.AppendS64(nil, int64(idx))
}

// blockStart parses the label and block type of a block, loop or if,
// emits the opcode and enters the block.
func (c *funcCtx) blockStart(op binary.Opcode) {
	_, label := c.p.optID()
	bt := c.blockType()
	c.body = append(append(c.body, byte(op)), bt...)
	c.labels = append(c.labels, label)
	c.enter()
}

func (c *funcCtx) blockEnd() {
	c.labels = c.labels[:len(c.labels)-1]
	c.depth--
}

// endLabel checks the optional label after end or else.
func (c *funcCtx) endLabel() {
	p := c.p
	t, id := p.optID()
	if id != "" && id != c.labels[len(c.labels)-1] {
		p.failAt(t, "mismatching label %s", id)
	}
}

// plain parses an instruction in plain (unfolded) form.
func (c *funcCtx) plain() {
	p := c.p
	op := c.operator()
	switch op {
	case binary.OpBlock, binary.OpLoop, binary.OpIf:
		c.blockStart(op)
		c.instrs()
		if op == binary.OpIf && p.isKeyword("else") {
			p.next()
			c.endLabel()
			c.elseBranch()
		}
		p.keyword("end")
		c.endLabel()
		c.body = append(c.body, byte(binary.OpEnd))
		c.blockEnd()
		return
	}
	c.body = c.immediates(op, binary.AppendOpcode(c.body, op))
}

// elseBranch parses the instructions of an else branch. An empty one is
// left out, as the binary format allows.
func (c *funcCtx) elseBranch() {
	mark := len(c.body)
	c.body = append(c.body, byte(binary.OpElse))
	c.instrs()
	if len(c.body) == mark+1 {
		c.body = c.body[:mark]
	}
}

// folded parses a folded instruction: "(" plain instr folded* ")" or a
// folded block, loop or if.
func (c *funcCtx) folded() {
	p := c.p
	p.lparen()
	c.enter()
	defer func() { c.depth-- }()
	op := c.operator()
	switch op {
	case binary.OpBlock, binary.OpLoop:
		c.blockStart(op)
		c.instrs()
		c.body = append(c.body, byte(binary.OpEnd))
		c.blockEnd()
	case binary.OpIf:
		_, label := p.optID()
		bt := c.blockType()
		for p.peek().kind == tLParen && !p.isField("then") {
			c.folded()
		}
		c.body = append(append(c.body, byte(op)), bt...)
		c.labels = append(c.labels, label)
		c.enter()
		p.openField("then")
		c.instrs()
		p.rparen()
		if p.isField("else") {
			p.next()
			p.next()
			c.elseBranch()
			p.rparen()
		}
		c.body = append(c.body, byte(binary.OpEnd))
		c.blockEnd()
	default:
		imm := c.immediates(op, binary.AppendOpcode(nil, op))
		for p.peek().kind == tLParen {
			c.folded()
		}
		c.body = append(c.body, imm...)
	}
	p.rparen()
}

// label reads a label reference and returns its depth.
func (c *funcCtx) label() uint32 {
	p := c.p
	t := p.peek()
	if t.kind == tID {
		for i := len(c.labels) - 1; i >= 0; i-- {
			if c.labels[i] == t.text {
				p.next()
				return uint32(len(c.labels) - 1 - i)
			}
		}
		p.failAt(t, "unknown label %s", t.text)
	}
	if _, isOp := opcodes[t.text]; t.kind == tAtom && !p.isNat() && !isOp {
		// Not a label, and not an instruction that could follow one.
		p.failAt(t, "unknown operator %s", t.describe())
	}
	return p.u32("a label")
}

// literal reads the literal of an iN.const or fN.const instruction with
// parse: a value out of range is "constant out of range", a token that is
// no literal an "unknown operator" (the spec's tests read it as the next
// instruction's name).
func (p *parser) literal(kind string, bits int, parse func(string) (uint64, error)) uint64 {
	t := p.peek()
	if t.kind != tAtom {
		want := "an integer"
		if kind == "f" {
			want = "a float"
		}
		p.unexpected(want)
	}
	v, err := parse(t.text)
	switch err {
	case errRange:
		p.failAt(t, "%s%d constant out of range: %s", kind, bits, t.text)
	case errSyntax:
		if t.text == "nan:canonical" || t.text == "nan:arithmetic" {
			// nan:canonical and nan:arithmetic are results of scripts'
			// assertions, not literals.
			p.failAt(t, "unexpected token %s: not an %s%d literal", t.describe(), kind, bits)
		}
		p.failAt(t, "unknown operator %s: not an %s%d literal", t.describe(), kind, bits)
	}
	p.next()
	return v
}

// immediates parses the immediates of op and appends their encoding to
// b.
func (c *funcCtx) immediates(op binary.Opcode, b []byte) []byte {
	p := c.p
	switch op {
	case binary.OpBr, binary.OpBrIf:
		return binary.AppendU32(b, c.label())
	case binary.OpBrTable:
		var ls []uint32
		for p.peek().kind == tID || p.isNat() {
			ls = append(ls, c.label())
		}
		if len(ls) == 0 {
			p.unexpected("a label")
		}
		b = binary.AppendU32(b, uint32(len(ls)-1))
		for _, l := range ls {
			b = binary.AppendU32(b, l)
		}
		return b
	case binary.OpCall:
		return binary.AppendU32(b, p.index(&p.funcs))
	case binary.OpCallIndirect:
		table := uint32(0)
		if p.isIndex() {
			table = p.index(&p.tables)
		}
		t, _ := p.typeUse(false)
		return binary.AppendU32(binary.AppendU32(b, t), table)
	case binary.OpSelect:
		if !p.isField("result") {
			return b
		}
		rs := p.results()
		b[len(b)-1] = byte(binary.OpSelectT)
		b = binary.AppendU32(b, uint32(len(rs)))
		for _, r := range rs {
			b = append(b, byte(r))
		}
		return b
	case binary.OpRefFunc:
		return binary.AppendU32(b, p.index(&p.funcs))
	case binary.OpRefNull:
		switch t := p.peek(); {
		case t.kind == tAtom && t.text == "func":
			p.next()
			return append(b, byte(binary.FuncRef))
		case t.kind == tAtom && t.text == "extern":
			p.next()
			return append(b, byte(binary.ExternRef))
		}
		p.unexpected("a heap type (func or extern)")
		return b
	case binary.OpMemoryFill:
		return append(b, 0)
	case binary.OpMemoryCopy:
		return append(b, 0, 0)
	case binary.OpLocalGet, binary.OpLocalSet, binary.OpLocalTee:
		t := p.peek()
		if t.kind == tID {
			i, ok := c.locals[t.text]
			if !ok {
				p.failAt(t, "unknown local %s", t.text)
			}
			p.next()
			return binary.AppendU32(b, i)
		}
		return binary.AppendU32(b, p.u32("a local index"))
	case binary.OpGlobalGet, binary.OpGlobalSet:
		return binary.AppendU32(b, p.index(&p.globals))
	case binary.OpMemorySize, binary.OpMemoryGrow:
		return append(b, 0)
	case binary.OpI32Const, binary.OpI64Const:
		if op == binary.OpI32Const {
			v := p.literal("i", 32, func(s string) (uint64, error) { return parseInt(s, 32) })
			return binary.AppendS64(b, int64(int32(uint32(v))))
		}
		return binary.AppendS64(b, int64(p.literal("i", 64, func(s string) (uint64, error) { return parseInt(s, 64) })))
	case binary.OpF32Const, binary.OpF64Const:
		bits := 32
		if op == binary.OpF64Const {
			bits = 64
		}
		v := p.literal("f", bits, func(s string) (uint64, error) { return parseFloat(s, bits) })
		for i := 0; i < bits/8; i++ {
			b = append(b, byte(v>>(8*i)))
		}
		return b
	}
	if _, _, natural, ok := op.Memory(); ok {
		return c.memArg(b, natural)
	}
	if f := op.Feature(); f&(binary.FeatureBulkMemory|binary.FeatureReferenceTypes) != 0 && op != binary.OpRefIsNull {
		// The instructions of these features whose immediates the parser
		// does not read.
		p.fail("unsupported: %s (%s)", op, f.Name())
	}
	return b
}

// memArg parses offset=N? align=N? and appends the alignment (log2) and
// the offset.
func (c *funcCtx) memArg(b []byte, natural uint32) []byte {
	p := c.p
	offset, align := uint32(0), natural
	if t := p.peek(); t.kind == tAtom && strings.HasPrefix(t.text, "offset=") {
		v, err := parseU32(t.text[len("offset="):])
		switch err {
		case errRange:
			p.failAt(t, "offset %s: i32 constant out of range", t.text[len("offset="):])
		case errSyntax:
			p.failAt(t, "unknown operator %s: malformed offset", t.describe())
		}
		offset = v
		p.next()
	}
	if t := p.peek(); t.kind == tAtom && strings.HasPrefix(t.text, "align=") {
		v, err := parseU32(t.text[len("align="):])
		switch {
		case err == errSyntax:
			p.failAt(t, "unknown operator %s: malformed alignment", t.describe())
		case err != nil || v == 0 || v&(v-1) != 0:
			p.failAt(t, "alignment %s must be a power of two", t.text[len("align="):])
		}
		align = 0
		for v > 1 {
			v >>= 1
			align++
		}
		p.next()
	}
	return binary.AppendU32(binary.AppendU32(b, align), offset)
}
