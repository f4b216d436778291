package encode

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
)

// Instruction forms: golang-asm finds the encoding of an instruction by
// matching its operands' classes against its tables (ytab matching in
// doasm), once per assembly pass. The encoder asks it once per form
// instead: a form is an opcode with the shape of each operand (register,
// constant, memory; the register's class, the constant's or
// displacement's size class, the index's class and scale). Its template
// is the bytes golang-asm emits for canonical operands, with the bit
// positions each register bit lands in and the byte ranges the constant
// and the displacement take. An instruction of the form is its template
// with its own registers and values patched in.
//
// The classes are chosen so that golang-asm encodes every member alike
// but for those fields: AX and CX have short forms of their own; SP, BP,
// SI and DI need a REX prefix as byte registers; R8 to R15 need REX.B or
// REX.R; SP and R12 as a base need a SIB byte, BP and R13 a displacement
// even when it is zero. Filling a template checks that: each register
// bit must flip exactly one bit of the code, each value must land as its
// little-endian bytes in one place, and the instruction with every field
// changed at once must come out as predicted; a form that fails is
// assembled by golang-asm itself (the whole list, see assemble).

// Operand kinds of a form.
const (
	kindNone = iota
	kindReg
	kindConst
	kindMem
	kindSym // RIP-relative to a symbol (the pool and jump tables)
)

// operandForm is the shape of an operand.
type operandForm struct {
	kind  uint8
	reg   uint8 // register class (kindReg) or base class (kindMem), 0 for none
	index uint8 // index class (kindMem), 0 for none
	scale uint8
	size  uint8 // constant class (kindConst) or displacement class (kindMem)
}

// formKey identifies a form: the opcode and its three operands.
type formKey struct {
	as             obj.As
	from, to, rest operandForm
	nrest          uint8
}

// A register class is the registers r with r&mask == val, of one register
// file (GPR or XMM, by golang-asm number).
type regClass struct{ mask, val uint8 }

var (
	// directClasses are the classes of register operands.
	directClasses = []regClass{{0xf, 0}, {0xf, 1}, {0xe, 2}, {0xc, 4}, {0x8, 8}}
	// memClasses are the classes of base and index registers.
	memClasses = []regClass{{0xc, 0}, {0xf, 4}, {0xf, 5}, {0xe, 6}, {0xc, 8}, {0xf, 12}, {0xf, 13}, {0xe, 14}}
)

// Register files in class numbers: a class number is 1 + file*16 + the
// class's index.
const (
	fileGPR = 0
	fileXMM = 1
)

// regNum returns a golang-asm register's file and number, ok false for
// the registers forms do not cover.
func regNum(r int16) (file, num uint8, ok bool) {
	switch {
	case r >= x86.REG_AX && r <= x86.REG_R15:
		return fileGPR, uint8(r - x86.REG_AX), true
	case r >= x86.REG_X0 && r <= x86.REG_X15:
		return fileXMM, uint8(r - x86.REG_X0), true
	}
	return 0, 0, false
}

// classIndex maps register numbers to the index of their class in
// directClasses and memClasses.
var classIndex = func() (ix [2][16]uint8) {
	for k, classes := range [2][]regClass{directClasses, memClasses} {
		for num := range uint8(16) {
			for i, c := range classes {
				if num&c.mask == c.val {
					ix[k][num] = uint8(i)
					break
				}
			}
		}
	}
	return ix
}()

// classOf returns the class number of register r in directClasses (mem
// false) or memClasses, 0 if forms do not cover it.
func classOf(r int16, mem bool) uint8 {
	file, num, ok := regNum(r)
	if !ok {
		return 0
	}
	k := 0
	if mem {
		k = 1
	}
	return 1 + file*16 + classIndex[k][num]
}

// classReg returns the canonical (first) register of a class number and
// the bits its members vary in.
func classReg(class uint8, classes []regClass) (reg int16, vary uint8) {
	c := classes[(class-1)%16]
	base := int16(x86.REG_AX)
	if (class-1)/16 == fileXMM {
		base = x86.REG_X0
	}
	return base + int16(c.val), ^c.mask & 0xf
}

// Constant classes are golang-asm's (oclass): 0, 1, 2..3, 4..127,
// 128..255, -128..-1, other int32, other uint32, the rest.
const (
	constI0 = iota
	constI1
	constU2
	constU7
	constU8
	constI8
	constS32
	constI32
	constI64
)

// constClass returns the class of constant v.
func constClass(v int64) uint8 {
	switch {
	case v == 0:
		return constI0
	case v == 1:
		return constI1
	case v >= 0 && v <= 3:
		return constU2
	case v >= 0 && v <= 127:
		return constU7
	case v >= 0 && v <= 255:
		return constU8
	case v >= -128 && v <= 127:
		return constI8
	case v == int64(int32(v)):
		return constS32
	case v>>32 == 0:
		return constI32
	}
	return constI64
}

// constSamples are three members of each constant class: the first is the
// template's, the second differs from it in every byte the class varies
// in (a positive and a negative member where the class has both), the
// third checks the template.
var constSamples = [...][3]int64{
	constI0:  {0, 0, 0},
	constI1:  {1, 1, 1},
	constU2:  {2, 3, 3},
	constU7:  {0x11, 0x22, 0x7f},
	constU8:  {0x91, 0xa2, 0xc3},
	constI8:  {-0x56, -0x67, -0x80},
	constS32: {0x11223344, -0x22334455, -0x3a4b5c6d},
	constI32: {0x91223344, 0xa2334455, 0xffffffff},
	constI64: {0x1122334455667788, -0x2233445566778899, 0x7edcba9876543210},
}

// Displacement classes: none (zero), 8 bits, 32 bits.
const (
	disp0 = iota
	disp8
	disp32
)

// dispClass returns the class of displacement v.
func dispClass(v int64) uint8 {
	switch {
	case v == 0:
		return disp0
	case v >= -128 && v <= 127:
		return disp8
	}
	return disp32
}

var dispSamples = [...][3]int64{
	disp0:  {0, 0, 0},
	disp8:  {0x11, -0x22, 0x7f},
	disp32: {0x11223344, -0x22334455, -0x80000000},
}

// symSamples are offsets into the symbol of a kindSym operand.
var symSamples = [3]int64{0, 0x1230, 0x45670}

// operandFormOf returns the form of operand a, ok false when forms do not
// cover it.
func operandFormOf(a *obj.Addr) (operandForm, bool) {
	if a.Class != 0 || a.Val != nil {
		return operandForm{}, false
	}
	switch a.Type {
	case obj.TYPE_NONE:
		if a.Reg != 0 || a.Index != 0 || a.Offset != 0 || a.Sym != nil || a.Name != 0 {
			return operandForm{}, false
		}
		return operandForm{kind: kindNone}, true
	case obj.TYPE_REG:
		c := classOf(a.Reg, false)
		if c == 0 || a.Index != 0 || a.Scale != 0 || a.Offset != 0 || a.Sym != nil || a.Name != 0 {
			return operandForm{}, false
		}
		return operandForm{kind: kindReg, reg: c}, true
	case obj.TYPE_CONST:
		if a.Reg != 0 || a.Index != 0 || a.Scale != 0 || a.Sym != nil || a.Name != 0 {
			return operandForm{}, false
		}
		return operandForm{kind: kindConst, size: constClass(a.Offset)}, true
	case obj.TYPE_MEM:
		switch a.Name {
		case obj.NAME_NONE:
			base := classOf(a.Reg, true)
			if base == 0 || base > 16 || a.Sym != nil || a.Offset != int64(int32(a.Offset)) {
				return operandForm{}, false
			}
			f := operandForm{kind: kindMem, reg: base, size: dispClass(a.Offset)}
			if a.Index != 0 {
				f.index = classOf(a.Index, true)
				if f.index == 0 || f.index > 16 || (a.Scale != 1 && a.Scale != 2 && a.Scale != 4 && a.Scale != 8) {
					return operandForm{}, false
				}
				f.scale = uint8(a.Scale)
			} else if a.Scale != 0 {
				return operandForm{}, false
			}
			return f, true
		case obj.NAME_EXTERN:
			if a.Sym == nil || a.Reg != 0 || a.Index != 0 || a.Scale != 0 || a.Offset != int64(int32(a.Offset)) {
				return operandForm{}, false
			}
			return operandForm{kind: kindSym}, true
		}
	}
	return operandForm{}, false
}

// formKeyOf returns the form of a non-branch instruction, ok false when
// forms do not cover it.
func formKeyOf(p *obj.Prog) (formKey, bool) {
	k := formKey{as: p.As}
	var ok bool
	if p.Reg != 0 || p.Scond != 0 || len(p.RestArgs) > 1 {
		return k, false
	}
	if k.from, ok = operandFormOf(&p.From); !ok {
		return k, false
	}
	if k.to, ok = operandFormOf(&p.To); !ok {
		return k, false
	}
	if len(p.RestArgs) == 1 {
		k.nrest = 1
		if k.rest, ok = operandFormOf(&p.RestArgs[0]); !ok {
			return k, false
		}
	}
	return k, true
}

// regPatch is a register bit's place in a template: bit regBit of the
// register of operand op (its base or index when index is set) is bit
// mask of byte off.
type regPatch struct {
	off    uint8
	mask   uint8
	op     uint8 // 0 From, 1 To, 2 RestArgs[0]
	index  bool
	regBit uint8
	base   uint8 // the template's value of the register bit
}

// valuePatch is where an operand's constant or displacement goes: its
// low width bytes, little-endian, at offset off.
type valuePatch struct {
	off, width uint8
	op         uint8
}

// formReloc is a relocation of a template: at offset off of the
// instruction; for a kindSym operand op (sym set) the addend is the
// operand's offset plus add; otherwise it is the template's relocation
// as is (an indirect call's marker).
type formReloc struct {
	r   obj.Reloc
	sym bool
	op  uint8
}

// form is a filled template; bad when golang-asm's encodings of the form
// do not fit the template model (or it cannot encode the form).
type form struct {
	key formKey
	bad bool
	// The template and its patches, held in the form itself: code[:n],
	// regs[:nregs] and values[:nvalues].
	n, nregs, nvalues uint8
	code              [maxInstLen]byte
	regs              [maxRegPatches]regPatch
	values            [2]valuePatch
	relocs            []formReloc
}

// maxInstLen is the longest x86-64 instruction; maxRegPatches the most
// register bits a template patches (four registers of three varying bits).
const (
	maxInstLen    = 15
	maxRegPatches = 12
)

// packed returns k in 64 bits (0 when it does not fit: two memory
// operands): the opcode, and each operand's kind, register class and size
// class in 12 bits, the memory operand's index class and scale in 7.
func (k formKey) packed() uint64 {
	x := uint64(uint16(k.as))
	var index, scale uint64
	mems := 0
	for _, f := range [3]operandForm{k.from, k.to, k.rest} {
		x = x<<12 | uint64(f.kind)<<9 | uint64(f.reg)<<4 | uint64(f.size)
		if f.kind == kindMem || f.kind == kindSym {
			mems++
			if f.index != 0 {
				index, scale = uint64(f.index), uint64(bits.TrailingZeros8(f.scale))
			}
		}
	}
	if mems > 1 || k.nrest != 0 && k.rest.kind == kindNone {
		return 0
	}
	return x<<7 | index<<2 | scale
}

// formCacheSize is the number of entries of an assembler's cache of forms
// (direct-mapped, by packed key).
const formCacheSize = 1 << 12

// formCacheEntry is an entry of an assembler's cache of forms.
type formCacheEntry struct {
	key uint64
	f   *form
}

// The templates, shared by all encoders, by packed key: each assembler
// keeps the forms it used last in a cache of its own, and takes the ones
// it lacks from here.
var (
	formsMu sync.RWMutex
	forms   = map[uint64]*form{}
)

// lookupForm returns the template of form k, filling it if no encoder has
// used the form yet; nil when k does not pack.
func (a *assembler) lookupForm(k formKey) *form {
	key := k.packed()
	if key == 0 {
		return nil
	}
	if a.formCache == nil {
		a.formCache = new([formCacheSize]formCacheEntry)
	}
	e := &a.formCache[(key*0x9e3779b97f4a7c15)>>(64-12)]
	if e.key == key {
		return e.f
	}
	formsMu.RLock()
	f, ok := forms[key]
	formsMu.RUnlock()
	if !ok {
		f = a.fillForm(k)
		formsMu.Lock()
		if g, ok := forms[key]; ok {
			f = g
		} else {
			forms[key] = f
		}
		formsMu.Unlock()
	}
	e.key, e.f = key, f
	return f
}

// formSym is the symbol of kindSym operands in the instructions that fill
// templates.
var formSym = &obj.LSym{Name: "form"}

// sampleProg returns an instruction of form k with every operand's
// registers the canonical ones of their classes (with the bits of
// vary[op][0] set in the register and base, vary[op][1] in the index) and
// its values sample s of their classes.
func sampleProg(k formKey, s int, vary [3][2]uint8) obj.Prog {
	q := obj.Prog{As: k.as}
	if k.nrest > 0 {
		q.RestArgs = make([]obj.Addr, 1)
	}
	fs := [3]operandForm{k.from, k.to, k.rest}
	for op := range uint8(1 + 1 + k.nrest) {
		a := progOperand(&q, op)
		f := fs[op]
		v := vary[op]
		switch f.kind {
		case kindReg:
			r, _ := classReg(f.reg, directClasses)
			*a = obj.Addr{Type: obj.TYPE_REG, Reg: r + int16(v[0])}
		case kindConst:
			*a = obj.Addr{Type: obj.TYPE_CONST, Offset: constSamples[f.size][s]}
		case kindMem:
			r, _ := classReg(f.reg, memClasses)
			*a = obj.Addr{Type: obj.TYPE_MEM, Reg: r + int16(v[0]), Offset: dispSamples[f.size][s]}
			if f.index != 0 {
				r, _ := classReg(f.index, memClasses)
				a.Index, a.Scale = r+int16(v[1]), int16(f.scale)
			}
		case kindSym:
			*a = obj.Addr{Type: obj.TYPE_MEM, Name: obj.NAME_EXTERN, Sym: formSym, Offset: symSamples[s]}
		}
	}
	return q
}

// encodeAlone assembles one instruction by itself with golang-asm.
func (a *assembler) encodeAlone(q *obj.Prog) ([]byte, []obj.Reloc, bool) {
	errs := len(a.errs)
	q.Ctxt = a.ctxt
	s := &obj.LSym{Func: &obj.FuncInfo{Text: q}}
	a.arch.Assemble(a.ctxt, s, a.ctxt.NewProg)
	if len(a.errs) > errs {
		a.errs = a.errs[:errs]
		return nil, nil, false
	}
	return s.P, s.R, true
}

// fillForm derives the template of form k from golang-asm's encodings of
// instructions of the form.
func (a *assembler) fillForm(k formKey) *form {
	bad := &form{key: k, bad: true}
	var none [3][2]uint8
	q := sampleProg(k, 0, none)
	code, relocs, ok := a.encodeAlone(&q)
	if !ok || len(code) == 0 || len(code) > maxInstLen {
		return bad
	}
	f := &form{key: k, n: uint8(len(code))}
	copy(f.code[:], code)
	fs := [3]operandForm{k.from, k.to, k.rest}
	// Register bits.
	for op, of := range fs {
		if op == 2 && k.nrest == 0 {
			break
		}
		type regField struct {
			class   uint8
			classes []regClass
			index   bool
		}
		var fields []regField
		switch of.kind {
		case kindReg:
			fields = append(fields, regField{of.reg, directClasses, false})
		case kindMem:
			fields = append(fields, regField{of.reg, memClasses, false})
			if of.index != 0 {
				fields = append(fields, regField{of.index, memClasses, true})
			}
		}
		for _, fl := range fields {
			reg, vary := classReg(fl.class, fl.classes)
			_, base, _ := regNum(reg)
			for bit := uint8(0); bit < 4; bit++ {
				if vary&(1<<bit) == 0 {
					continue
				}
				var v [3][2]uint8
				if fl.index {
					v[op][1] = 1 << bit
				} else {
					v[op][0] = 1 << bit
				}
				q := sampleProg(k, 0, v)
				c, _, ok := a.encodeAlone(&q)
				if !ok || len(c) != len(code) {
					return bad
				}
				off, mask, ok := singleBitDiff(code, c)
				if !ok {
					return bad
				}
				if int(f.nregs) == maxRegPatches {
					return bad
				}
				f.regs[f.nregs] = regPatch{off: uint8(off), mask: mask, op: uint8(op), index: fl.index,
					regBit: bit, base: uint8(base>>bit) & 1}
				f.nregs++
			}
		}
	}
	// Values: sample 1 of every class differs from sample 0 in every byte
	// the class varies in.
	for op, of := range fs {
		if op == 2 && k.nrest == 0 {
			break
		}
		var samples *[3]int64
		switch of.kind {
		case kindConst:
			samples = &constSamples[of.size]
		case kindMem:
			samples = &dispSamples[of.size]
		default:
			continue
		}
		if samples[0] == samples[1] {
			continue // the class has one member
		}
		q := sampleProg(k, 0, none)
		ops := [3]*obj.Addr{&q.From, &q.To, nil}
		if k.nrest > 0 {
			ops[2] = &q.RestArgs[0]
		}
		ops[op].Offset = samples[1]
		c, _, ok := a.encodeAlone(&q)
		if !ok || len(c) != len(code) {
			return bad
		}
		lo, hi := -1, -1
		for i := range c {
			if c[i] != code[i] {
				if lo < 0 {
					lo = i
				}
				hi = i
			}
		}
		if lo < 0 {
			return bad
		}
		w := hi - lo + 1
		var le0, le1 [8]byte
		binary.LittleEndian.PutUint64(le0[:], uint64(samples[0]))
		binary.LittleEndian.PutUint64(le1[:], uint64(samples[1]))
		if w > 8 || !bytes.Equal(code[lo:hi+1], le0[:w]) || !bytes.Equal(c[lo:hi+1], le1[:w]) {
			return bad
		}
		if int(f.nvalues) == len(f.values) {
			return bad
		}
		f.values[f.nvalues] = valuePatch{off: uint8(lo), width: uint8(w), op: uint8(op)}
		f.nvalues++
	}
	// Relocations: a kindSym operand's, with its addend relative to the
	// operand's offset, and indirect calls' markers.
	for _, r := range relocs {
		fr := formReloc{r: r}
		if r.Sym != nil {
			if r.Sym != formSym {
				return bad
			}
			op := -1
			for i, of := range fs {
				if of.kind == kindSym && (i < 2 || k.nrest > 0) {
					op = i
				}
			}
			if op < 0 {
				return bad
			}
			fr.sym, fr.op = true, uint8(op)
			fr.r.Sym = nil
			fr.r.Add -= symSamples[0]
		}
		f.relocs = append(f.relocs, fr)
	}
	// Check: every register with all its varying bits set, the third
	// sample of every value.
	var all [3][2]uint8
	for op, of := range fs {
		switch of.kind {
		case kindReg:
			_, all[op][0] = classReg(of.reg, directClasses)
		case kindMem:
			_, all[op][0] = classReg(of.reg, memClasses)
			if of.index != 0 {
				_, all[op][1] = classReg(of.index, memClasses)
			}
		}
	}
	q = sampleProg(k, 2, all)
	var got []byte
	var gotRelocs []obj.Reloc
	f.instantiate(&q, &got, &gotRelocs, 0) // before golang-asm rewrites q's byte registers
	c, rs, ok := a.encodeAlone(&q)
	if !ok {
		return bad
	}
	if !bytes.Equal(got, c) || !slices.Equal(gotRelocs, rs) {
		return bad
	}
	return f
}

// singleBitDiff returns the byte and bit where a and b (of one length)
// differ, ok false unless they differ in exactly one bit.
func singleBitDiff(a, b []byte) (off int, mask uint8, ok bool) {
	off = -1
	for i := range a {
		if d := a[i] ^ b[i]; d != 0 {
			if off >= 0 || d&(d-1) != 0 {
				return 0, 0, false
			}
			off, mask = i, d
		}
	}
	return off, mask, off >= 0
}

// instantiate appends the code of p, an instruction of form f at offset pc
// of the code, to *code and its relocations to *relocs.
func (f *form) instantiate(p *obj.Prog, code *[]byte, relocs *[]obj.Reloc, pc int64) {
	start := len(*code)
	*code = append(*code, f.code[:f.n]...)
	c := (*code)[start:]
	for i := range f.nregs {
		rp := &f.regs[i]
		a := progOperand(p, rp.op)
		r := a.Reg
		if rp.index {
			r = a.Index
		}
		_, num, _ := regNum(r)
		if (num>>rp.regBit)&1 != rp.base {
			c[rp.off] ^= rp.mask
		}
	}
	for i := range f.nvalues {
		vp := &f.values[i]
		v := uint64(progOperand(p, vp.op).Offset)
		for j := range int(vp.width) {
			c[int(vp.off)+j] = byte(v >> (8 * j))
		}
	}
	for i := range f.relocs {
		fr := &f.relocs[i]
		r := fr.r
		r.Off += int32(pc)
		if fr.sym {
			a := progOperand(p, fr.op)
			r.Sym = a.Sym
			r.Add += a.Offset
		}
		*relocs = append(*relocs, r)
	}
}

// progOperand returns operand op of p: 0 From, 1 To, 2 RestArgs[0].
func progOperand(p *obj.Prog, op uint8) *obj.Addr {
	switch op {
	case 0:
		return &p.From
	case 1:
		return &p.To
	}
	return &p.RestArgs[0]
}
