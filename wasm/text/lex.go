package text

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error is a malformed text module: where the problem was found (1-based
// line and column, in bytes) and what it is, in the words of the
// specification's tests where they have some ("unknown operator",
// "constant out of range").
type Error struct {
	Line, Col int
	Msg       string
}

// Error formats the error as "line:col: message".
func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

type tokKind uint8

const (
	tEOF tokKind = iota
	tLParen
	tRParen
	tAtom   // a keyword, a number or a reserved token
	tID     // $name, text holds the name with its $
	tString // text holds the decoded bytes
)

type token struct {
	kind      tokKind
	text      string
	line, col int
	off       int // byte offset in the source
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tLParen:
		return `"("`
	case tRParen:
		return `")"`
	case tString:
		return "string"
	}
	s := t.text
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// isIDChar reports whether c may appear in a keyword, a number or an id.
func isIDChar(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	}
	return strings.IndexByte("!#$%&'*+-./:<=>?@\\^_`|~", c) >= 0
}

type lexer struct {
	src       []byte
	pos       int
	line, col int // of src[pos]
	toks      []token
}

func (l *lexer) errorf(line, col int, format string, args ...any) error {
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.pos < len(l.src); i++ {
		if l.src[l.pos] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.pos++
	}
}

// lex splits src into tokens, ending with a tEOF token.
func lex(src []byte) ([]token, error) {
	l := &lexer{src: src, line: 1, col: 1}
	for {
		if err := l.skipSpace(); err != nil {
			return nil, err
		}
		if l.pos >= len(l.src) {
			l.toks = append(l.toks, token{kind: tEOF, line: l.line, col: l.col, off: l.pos})
			return l.toks, nil
		}
		line, col, off := l.line, l.col, l.pos
		c := l.src[l.pos]
		switch {
		case c == '(':
			l.toks = append(l.toks, token{kind: tLParen, line: line, col: col, off: off})
			l.advance(1)
			continue
		case c == ')':
			l.toks = append(l.toks, token{kind: tRParen, line: line, col: col, off: off})
			l.advance(1)
			continue
		case c == '"':
			s, err := l.str()
			if err != nil {
				return nil, err
			}
			l.toks = append(l.toks, token{kind: tString, text: s, line: line, col: col, off: off})
		case isIDChar(c):
			start := l.pos
			for l.pos < len(l.src) && isIDChar(l.src[l.pos]) {
				l.advance(1)
			}
			text := string(l.src[start:l.pos])
			kind := tAtom
			if text[0] == '$' {
				if len(text) == 1 {
					return nil, l.errorf(line, col, "empty identifier")
				}
				kind = tID
			}
			l.toks = append(l.toks, token{kind: kind, text: text, line: line, col: col, off: off})
		default:
			return nil, l.errorf(line, col, "unexpected character %q", rune(c))
		}
		// A keyword, id or string ends at white space, a parenthesis or a
		// comment.
		if l.pos < len(l.src) {
			switch l.src[l.pos] {
			case ' ', '\t', '\n', '\r', '(', ')', ';':
			default:
				return nil, l.errorf(l.line, l.col, "unexpected character %q after token", rune(l.src[l.pos]))
			}
		}
	}
}

// skipSpace skips white space, line comments and block comments.
func (l *lexer) skipSpace() error {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.advance(1)
		case c == ';' && l.pos+1 < len(l.src) && l.src[l.pos+1] == ';':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.advance(1)
			}
		case c == '(' && l.pos+1 < len(l.src) && l.src[l.pos+1] == ';':
			line, col := l.line, l.col
			l.advance(2)
			depth := 1
			for depth > 0 {
				switch {
				case l.pos >= len(l.src):
					return l.errorf(line, col, "unclosed block comment")
				case l.src[l.pos] == '(' && l.pos+1 < len(l.src) && l.src[l.pos+1] == ';':
					depth++
					l.advance(2)
				case l.src[l.pos] == ';' && l.pos+1 < len(l.src) && l.src[l.pos+1] == ')':
					depth--
					l.advance(2)
				default:
					l.advance(1)
				}
			}
		case c == ';':
			return l.errorf(l.line, l.col, "unexpected character ';'")
		default:
			return nil
		}
	}
	return nil
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// str reads a string literal and returns its bytes.
func (l *lexer) str() (string, error) {
	line, col := l.line, l.col
	l.advance(1)
	var b []byte
	for {
		if l.pos >= len(l.src) {
			return "", l.errorf(line, col, "unclosed string")
		}
		c := l.src[l.pos]
		switch {
		case c == '"':
			l.advance(1)
			return string(b), nil
		case c < 0x20 || c == 0x7f:
			return "", l.errorf(l.line, l.col, "illegal control character %#02x in string", c)
		case c != '\\':
			if c < utf8.RuneSelf {
				b = append(b, c)
				l.advance(1)
				continue
			}
			r, n := utf8.DecodeRune(l.src[l.pos:])
			if r == utf8.RuneError && n <= 1 {
				return "", l.errorf(l.line, l.col, "invalid UTF-8 encoding in string")
			}
			b = append(b, l.src[l.pos:l.pos+n]...)
			l.advance(n)
			continue
		}
		eline, ecol := l.line, l.col
		l.advance(1)
		if l.pos >= len(l.src) {
			return "", l.errorf(line, col, "unclosed string")
		}
		e := l.src[l.pos]
		switch e {
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case '"', '\'', '\\':
			b = append(b, e)
		case 'u':
			// \u{hex}: a Unicode scalar value.
			if l.pos+1 >= len(l.src) || l.src[l.pos+1] != '{' {
				return "", l.errorf(eline, ecol, "illegal escape in string")
			}
			l.advance(2)
			var v uint64
			digits := 0
			for l.pos < len(l.src) && l.src[l.pos] != '}' {
				d := hexVal(l.src[l.pos])
				if d < 0 && l.src[l.pos] == '_' && digits > 0 && l.pos+1 < len(l.src) && hexVal(l.src[l.pos+1]) >= 0 {
					l.advance(1)
					continue
				}
				if d < 0 {
					return "", l.errorf(eline, ecol, "illegal escape in string")
				}
				if v = v*16 + uint64(d); v > 0x10ffff {
					return "", l.errorf(eline, ecol, "escaped code point out of range")
				}
				digits++
				l.advance(1)
			}
			if l.pos >= len(l.src) || digits == 0 || (v >= 0xd800 && v < 0xe000) {
				return "", l.errorf(eline, ecol, "illegal escape in string")
			}
			b = utf8.AppendRune(b, rune(v))
		default:
			if l.pos+1 < len(l.src) && hexVal(e) >= 0 && hexVal(l.src[l.pos+1]) >= 0 {
				b = append(b, byte(hexVal(e)<<4|hexVal(l.src[l.pos+1])))
				l.advance(1)
			} else {
				return "", l.errorf(eline, ecol, "illegal escape in string")
			}
		}
		l.advance(1)
	}
}
