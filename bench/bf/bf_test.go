package bf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	add := func(n int) Op { return Op{Kind: Add, N: n} }
	move := func(n int) Op { return Op{Kind: Move, N: n} }
	loop := func(body ...Op) Op { return Op{Kind: Loop, Body: body} }
	for _, c := range []struct {
		src  string
		want []Op
	}{
		{"+++--", []Op{add(1)}},
		{"+-", nil},
		{"---", []Op{add(253)}},
		{"+ a\n+", []Op{add(2)}},
		{">><<<", []Op{move(-1)}},
		{"><", nil},
		{"+>+", []Op{add(1), move(1), add(1)}},
		{".,", []Op{{Kind: Out}, {Kind: In}}},
		// Clear and multiply loops stay loops.
		{"[-]", []Op{loop(add(255))}},
		{"[->++<]", []Op{loop(add(255), move(1), add(2), move(-1))}},
		{"[[]]", []Op{loop(loop())}},
		{"+[-]+", []Op{add(1), loop(add(255)), add(1)}},
	} {
		got, err := Parse([]byte(c.src))
		if err != nil || (len(got) > 0 || len(c.want) > 0) && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.src, got, err, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		src       string
		line, col int
	}{
		{"]", 1, 1},
		{"+\n+]", 2, 2},
		{"[", 1, 1},
		{"[]\n [[]", 2, 2},
	} {
		_, err := Parse([]byte(c.src))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != c.line || se.Col != c.col {
			t.Errorf("Parse(%q): error %v, want a syntax error at %d:%d", c.src, err, c.line, c.col)
		}
	}
}

func TestCount(t *testing.T) {
	ops, err := Parse([]byte("+[->[.]<]"))
	if err != nil {
		t.Fatal(err)
	}
	if n := Count(ops); n != 7 {
		t.Errorf("Count = %d, want 7", n)
	}
}

// TestTranslations checks the shape of each translation of one program;
// the bench package's tests run them.
func TestTranslations(t *testing.T) {
	ops, err := Parse([]byte("+[->+<],."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Kiln(ops); err != nil {
		t.Errorf("Kiln: %v", err)
	}
	bin, err := Wasm(ops)
	if err != nil || !strings.HasPrefix(string(bin), "\x00asm\x01\x00\x00\x00") {
		t.Errorf("Wasm: %x, %v", bin, err)
	}
	c := string(C(ops))
	for _, want := range []string{
		"*p += 1;\n\twhile (*p) {\n\t\t*p += 255;\n\t\tp += 1;\n\t\t*p += 1;\n\t\tp += -1;\n\t}\n",
		"{ int c = in_byte(); if (c >= 0) *p = (unsigned char)c; }\n\tout_byte(*p);\n",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("C translation lacks %q:\n%s", want, c)
		}
	}
}
