package text

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// errRange is a number that is well formed but out of the range of its
// type; errSyntax is a token that is not a number of the expected form.
var (
	errRange  = errors.New("constant out of range")
	errSyntax = errors.New("malformed number")
)

// digits checks that s is a non-empty run of digits of the base (10 or
// 16), with underscores only between two digits, and returns it without
// the underscores.
func digits(s string, hex bool) (string, bool) {
	if s == "" {
		return "", false
	}
	isDigit := func(c byte) bool {
		if hex {
			return hexVal(c) >= 0
		}
		return c >= '0' && c <= '9'
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			if i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1]) {
				return "", false
			}
			continue
		}
		if !isDigit(c) {
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// parseNat parses an unsigned integer (decimal or 0x hexadecimal), which
// must be below 2^64.
func parseNat(s string) (uint64, error) {
	hex := false
	if rest, ok := strings.CutPrefix(s, "0x"); ok {
		s, hex = rest, true
	}
	d, ok := digits(s, hex)
	if !ok {
		return 0, errSyntax
	}
	base := 10
	if hex {
		base = 16
	}
	v, err := strconv.ParseUint(d, base, 64)
	if err != nil {
		return 0, errRange
	}
	return v, nil
}

// parseU32 parses an unsigned 32-bit integer (an index, a limit, an
// offset or an alignment).
func parseU32(s string) (uint32, error) {
	v, err := parseNat(s)
	if err != nil {
		return 0, err
	}
	if v > math.MaxUint32 {
		return 0, errRange
	}
	return uint32(v), nil
}

// parseInt parses an integer literal of an iN type (N is 32 or 64): an
// unsigned one below 2^N or a signed one in [-2^(N-1), 2^(N-1)). It
// returns the value's N bits.
func parseInt(s string, bits uint) (uint64, error) {
	sign := byte(0)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[0], s[1:]
	}
	v, err := parseNat(s)
	if err != nil {
		return 0, err
	}
	half := uint64(1) << (bits - 1)
	switch sign {
	case 0:
		if bits < 64 && v >= 1<<bits {
			return 0, errRange
		}
		return v, nil
	case '+':
		if v >= half {
			return 0, errRange
		}
		return v, nil
	}
	if v > half {
		return 0, errRange
	}
	r := -v
	if bits < 64 {
		r &= 1<<bits - 1
	}
	return r, nil
}

// parseFloat parses a float literal of type fN (N is 32 or 64) and
// returns its bits: decimal and hexadecimal numbers (hexadecimal ones
// with an optional binary exponent p), inf, nan and nan:0x payloads, each
// with an optional sign.
func parseFloat(s string, bits int) (uint64, error) {
	var signBit, expMask, mantBits uint64
	if bits == 32 {
		signBit, expMask, mantBits = 1<<31, 0xff<<23, 23
	} else {
		signBit, expMask, mantBits = 1<<63, 0x7ff<<52, 52
	}
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	var mag uint64
	switch {
	case s == "inf":
		mag = expMask
	case s == "nan":
		mag = expMask | 1<<(mantBits-1)
	case strings.HasPrefix(s, "nan:0x"):
		d, ok := digits(s[len("nan:0x"):], true)
		if !ok {
			return 0, errSyntax
		}
		p, err := strconv.ParseUint(d, 16, 64)
		if err != nil || p == 0 || p >= 1<<mantBits {
			return 0, errRange
		}
		mag = expMask | p
	default:
		g, ok := goFloat(s)
		if !ok {
			return 0, errSyntax
		}
		f, err := strconv.ParseFloat(g, bits)
		if err != nil {
			var ne *strconv.NumError
			if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) && math.IsInf(f, 0) {
				return 0, errRange
			}
			if !errors.As(err, &ne) || !errors.Is(ne.Err, strconv.ErrRange) {
				return 0, errSyntax
			}
		}
		if bits == 32 {
			mag = uint64(math.Float32bits(float32(f)))
		} else {
			mag = math.Float64bits(f)
		}
	}
	if neg {
		mag |= signBit
	}
	return mag, nil
}

// goFloat checks the syntax of an unsigned decimal or hexadecimal float
// literal of the text format and rewrites it for strconv.ParseFloat.
func goFloat(s string) (string, bool) {
	hex := false
	if rest, ok := strings.CutPrefix(s, "0x"); ok {
		s, hex = rest, true
	}
	expChars := "eE"
	if hex {
		expChars = "pP"
	}
	mant, exp, hasExp := s, "", false
	if i := strings.IndexAny(s, expChars); i >= 0 {
		mant, exp, hasExp = s[:i], s[i+1:], true
	}
	intPart, frac, hasFrac := strings.Cut(mant, ".")
	ip, ok := digits(intPart, hex)
	if !ok {
		return "", false
	}
	fp := ""
	if hasFrac && frac != "" {
		if fp, ok = digits(frac, hex); !ok {
			return "", false
		}
	}
	var b strings.Builder
	if hex {
		b.WriteString("0x")
	}
	b.WriteString(ip)
	if fp != "" {
		b.WriteByte('.')
		b.WriteString(fp)
	}
	if hasExp {
		esign := ""
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			esign, exp = exp[:1], exp[1:]
		}
		ed, ok := digits(exp, false)
		if !ok {
			return "", false
		}
		// Keep the exponent's value within what ParseFloat reads
		// exactly: beyond it, every mantissa overflows or underflows.
		ed = strings.TrimLeft(ed, "0")
		if ed == "" {
			ed = "0"
		}
		if len(ed) > 6 {
			ed = "999999"
		}
		if hex {
			b.WriteByte('p')
		} else {
			b.WriteByte('e')
		}
		b.WriteString(esign + ed)
	} else if hex {
		b.WriteString("p0")
	}
	return b.String(), true
}
