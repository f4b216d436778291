package binary

import (
	"fmt"
	"unicode/utf8"
)

// Error reports malformed input: what was wrong and where.
type Error struct {
	// Section names the section being decoded ("type", "code", ...), or is
	// empty for the module header.
	Section string
	// Func is the index (in the function index space) of the function
	// whose body was being decoded, or -1.
	Func int
	// Offset is the byte offset in the module where the problem was found.
	Offset int
	// Msg says what was wrong, in the words of the specification's tests
	// where they have some ("integer representation too long").
	Msg string
}

// Error formats the error as "malformed module: section code: func 3: at
// byte 0x1f: unexpected end".
func (e *Error) Error() string {
	return FormatError("malformed module", e.Section, e.Func, e.Offset, e.Msg)
}

// FormatError formats an error about a module as "<what>: section
// <section>: func <fn>: at byte 0x<offset>: <msg>", leaving out an empty
// section and a negative function index.
func FormatError(what, section string, fn, offset int, msg string) string {
	s := what
	if section != "" {
		s += ": section " + section
	}
	if fn >= 0 {
		s += fmt.Sprintf(": func %d", fn)
	}
	return s + fmt.Sprintf(": at byte 0x%x: %s", offset, msg)
}

// The specification's messages for malformed input.
const (
	msgUnexpectedEnd  = "unexpected end"
	msgTooLong        = "integer representation too long"
	msgTooLarge       = "integer too large"
	msgLengthOOB      = "length out of bounds"
	msgInvalidUTF8    = "invalid UTF-8 encoding"
	msgSectionSize    = "section size mismatch"
	msgUnexpectedEndS = "unexpected end of section or function"
)

// reader reads primitive values from a byte slice that starts at byte
// base of the module. Every method that fails leaves a *Error in r.err and
// returns zero values; callers check r.err at convenient points, and
// later reads fail at once.
type reader struct {
	buf     []byte
	pos     int
	base    int
	section string
	fn      int
	err     error
	// eofMsg is the message for reading past the end of buf.
	eofMsg string
	// feat are the features the input may use.
	feat Features
}

func (r *reader) offset() int { return r.base + r.pos }

func (r *reader) failAt(pos int, format string, args ...any) {
	if r.err == nil {
		r.err = &Error{Section: r.section, Func: r.fn, Offset: r.base + pos, Msg: fmt.Sprintf(format, args...)}
	}
}

func (r *reader) fail(format string, args ...any) { r.failAt(r.pos, format, args...) }

func (r *reader) remaining() int { return len(r.buf) - r.pos }

func (r *reader) eof() {
	msg := r.eofMsg
	if msg == "" {
		msg = msgUnexpectedEnd
	}
	r.fail("%s", msg)
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.buf) {
		r.eof()
		return 0
	}
	b := r.buf[r.pos]
	r.pos++
	return b
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.remaining() {
		r.eof()
		return nil
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

// u32 reads an unsigned LEB128 integer of at most 5 bytes whose unused
// bits are zero.
func (r *reader) u32() uint32 {
	if r.err != nil {
		return 0
	}
	start := r.pos
	var v uint32
	for i := 0; ; i++ {
		if r.pos >= len(r.buf) {
			r.eof()
			return 0
		}
		b := r.buf[r.pos]
		r.pos++
		if i == 4 {
			if b&0x80 != 0 {
				r.failAt(start, msgTooLong)
				return 0
			}
			if b&0x70 != 0 {
				r.failAt(start, msgTooLarge)
				return 0
			}
		}
		v |= uint32(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return v
		}
	}
}

// s32 reads a signed LEB128 integer of at most 5 bytes whose unused bits
// extend its sign.
func (r *reader) s32() int32 {
	v := r.signedBits(5, 32)
	return int32(v)
}

// s64 reads a signed LEB128 integer of at most 10 bytes whose unused bits
// extend its sign.
func (r *reader) s64() int64 { return r.signedBits(10, 64) }

// signedBits reads a signed LEB128 integer of the given width in at most
// maxBytes bytes.
func (r *reader) signedBits(maxBytes, bits int) int64 {
	if r.err != nil {
		return 0
	}
	start := r.pos
	var v int64
	var shift uint
	for i := 0; ; i++ {
		if r.pos >= len(r.buf) {
			r.eof()
			return 0
		}
		b := r.buf[r.pos]
		r.pos++
		if i == maxBytes-1 {
			if b&0x80 != 0 {
				r.failAt(start, msgTooLong)
				return 0
			}
			// The last byte holds bits-7*(maxBytes-1) payload bits; the
			// rest must copy the sign bit.
			used := uint(bits - 7*(maxBytes-1))
			rest := (b & 0x7f) >> (used - 1) // the sign bit and the unused bits
			if rest != 0 && rest != 0x7f>>(used-1) {
				r.failAt(start, msgTooLarge)
				return 0
			}
		}
		v |= int64(b&0x7f) << shift
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (r *reader) f32bits() uint32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func (r *reader) f64bits() uint64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// count reads a vector length and checks that the vector, whose elements
// take at least minSize bytes each, can fit in what remains, so that
// nothing is allocated for elements the input cannot hold.
func (r *reader) count(minSize int) int {
	start := r.pos
	n := r.u32()
	if r.err != nil {
		return 0
	}
	if uint64(n)*uint64(minSize) > uint64(r.remaining()) {
		r.failAt(start, "%s: %d elements cannot fit in the %d bytes that remain", msgLengthOOB, n, r.remaining())
		return 0
	}
	return int(n)
}

// name reads a length-prefixed UTF-8 string.
func (r *reader) name() string {
	start := r.pos
	n := r.u32()
	if r.err != nil {
		return ""
	}
	if uint64(n) > uint64(r.remaining()) {
		r.failAt(start, "%s: a name of %d bytes, %d remain", msgLengthOOB, n, r.remaining())
		return ""
	}
	b := r.bytes(int(n))
	if !utf8.Valid(b) {
		r.failAt(start, msgInvalidUTF8)
		return ""
	}
	return string(b)
}

func (r *reader) valType() ValType {
	pos := r.pos
	t := ValType(r.byte())
	if r.err == nil && !r.feat.valType(t) {
		r.failAt(pos, "invalid value type 0x%02x", byte(t))
	}
	return t
}

// refType reads a reference type (funcref or externref).
func (r *reader) refType() ValType {
	pos := r.pos
	t := ValType(r.byte())
	if r.err == nil && (!t.IsRef() || !r.feat.Has(FeatureReferenceTypes) && t != FuncRef) {
		r.failAt(pos, "malformed reference type 0x%02x", byte(t))
	}
	return t
}

// valType reports whether t is a value type with features f.
func (f Features) valType(t ValType) bool {
	switch {
	case t.Valid():
		return true
	case t.IsRef():
		return f.Has(FeatureReferenceTypes)
	case t == V128:
		return f.Has(FeatureSIMD)
	}
	return false
}

func (r *reader) limits() Limits {
	pos := r.pos
	flag := r.byte()
	var l Limits
	switch flag {
	case 0:
		l.Min = r.u32()
	case 1:
		l.Min = r.u32()
		l.Max = r.u32()
		l.HasMax = true
	default:
		if r.err == nil {
			r.failAt(pos, "%s: limits flag 0x%02x", msgTooLarge, flag)
		}
	}
	return l
}

func (r *reader) tableType() TableType {
	pos := r.pos
	elem := r.byte()
	if r.err == nil && elem != ElemFuncRef && !(r.feat.Has(FeatureReferenceTypes) && ValType(elem) == ExternRef) {
		r.failAt(pos, "malformed element type 0x%02x (want funcref, 0x70)", elem)
	}
	return TableType{Elem: elem, Limits: r.limits()}
}

func (r *reader) globalType() GlobalType {
	t := r.valType()
	pos := r.pos
	m := r.byte()
	if r.err == nil && m > 1 {
		r.failAt(pos, "invalid mutability 0x%02x", m)
	}
	return GlobalType{Type: t, Mutable: m == 1}
}
