package main

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
)

// Small programs of our own.
var programs = []struct {
	name, src, in, out string
}{
	{"hello", "++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]>>.>---.+++++++..+++.>>.<-.<.+++.------.--------.>>+.>++.", "", "Hello World!\n"},
	{"cat a line", ",----------[++++++++++.,----------]", "kiln\nrest", "kiln"},
	{"EOF leaves the cell unchanged", "+++++++++[>+++++++<-]>,.", "", "?"},
	{"wrapping", "-.+.", "", "\xff\x00"},
	{"clear loops", "+++++[-]++[+]+++[---].", "", "\x00"},
	{"multiply loop", "+++++[->+++>++<<]>.>.<<.", "", "\x0f\x0a\x00"},
	{"comments are ignored", "this is a comment + with + three + pluses .", "", "\x03"},
	{"reverse a line", ">,----------[++++++++++>,----------]<[.<]", "abc\n", "cba"},
}

func TestPrograms(t *testing.T) {
	for _, tier := range []jit.Tier{jit.TierInterp, jit.TierBaseline, jit.TierOptimizing} {
		for _, p := range programs {
			t.Run(tier.String()+"/"+p.name, func(t *testing.T) { runProgram(t, tier, p.src, p.in, p.out) })
		}
	}
}

func runProgram(t *testing.T, tier jit.Tier, src, in, want string) {
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := execute(ctx, []byte(src), tier, strings.NewReader(in), &out, &errOut, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Fatalf("output %q, want %q", out.String(), want)
	}
}

func TestErrors(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"+[\n+[-]", "1:2: unmatched '['"},
		{"+]", "1:2: unmatched ']'"},
		{"[[]]\n\n  ]", "3:3: unmatched ']'"},
		{"<+", "the tape pointer moved outside the 262144-cell tape (bytecode offset 0)"},
	} {
		err := execute(context.Background(), []byte(tt.src), jit.TierInterp, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, false)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: error %v, want %q", tt.src, err, tt.want)
		}
	}
	var se *SyntaxError
	if _, err := translate([]byte("]")); !errors.As(err, &se) {
		t.Errorf("translate error is %T, want *SyntaxError", err)
	}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.bf")
	if err := os.WriteFile(prog, []byte(",+."), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.bf")
	if err := os.WriteFile(bad, []byte("[["), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args    []string
		in      string
		status  int
		out     string
		errPart string
	}{
		{[]string{prog}, "a", 0, "b", ""},
		{[]string{"-tier=interp", "-stats", prog}, "a", 0, "b", "run: tier interp, 1 calls"},
		{[]string{bad}, "", 1, "", "bad.bf: 1:2: unmatched '['"},
		{[]string{filepath.Join(dir, "missing.bf")}, "", 1, "", "no such file"},
		{[]string{"-tier=warp", prog}, "", 2, "", "unknown tier"},
		{nil, "", 2, "", "usage"},
	} {
		var out, errOut bytes.Buffer
		status := run(tt.args, strings.NewReader(tt.in), &out, &errOut)
		if status != tt.status || out.String() != tt.out || !strings.Contains(errOut.String(), tt.errPart) {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q", tt.args, status, out.String(), errOut.String())
		}
	}
}

// reference is a plain BF interpreter with a step limit. It reports false
// when the limit is reached or the pointer leaves the tape.
func reference(src, in []byte, maxSteps int) ([]byte, bool) {
	tape := make([]byte, tapeCells)
	match := map[int]int{}
	var stack []int
	for i, c := range src {
		switch c {
		case '[':
			stack = append(stack, i)
		case ']':
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			match[i], match[j] = j, i
		}
	}
	var out []byte
	ptr := 0
	for pc, steps := 0, 0; pc < len(src); pc, steps = pc+1, steps+1 {
		if steps > maxSteps || ptr < 0 || ptr >= len(tape) {
			return nil, false
		}
		switch src[pc] {
		case '+':
			tape[ptr]++
		case '-':
			tape[ptr]--
		case '>':
			ptr++
		case '<':
			ptr--
		case '.':
			out = append(out, tape[ptr])
		case ',':
			if len(in) > 0 {
				tape[ptr], in = in[0], in[1:]
			}
		case '[':
			if tape[ptr] == 0 {
				pc = match[pc]
			}
		case ']':
			if tape[ptr] != 0 {
				pc = match[pc]
			}
		}
	}
	return out, true
}

func randomProgram(r *rand.Rand, depth int) []byte {
	var b []byte
	for n := r.IntN(12); n > 0; n-- {
		switch k := r.IntN(10); {
		case k < 3:
			b = append(b, "+-"[r.IntN(2)])
		case k < 6:
			b = append(b, "><"[r.IntN(2)])
		case k < 7:
			b = append(b, '.')
		case k < 8:
			b = append(b, ',')
		case depth < 3:
			b = append(b, '[')
			if r.IntN(2) == 0 {
				b = append(b, '-')
			}
			b = append(b, randomProgram(r, depth+1)...)
			b = append(b, ']')
		}
	}
	return b
}

// TestAgainstReference runs random programs through the translator and
// through a plain interpreter and compares their output.
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	compared := 0
	for i := 0; i < 3000; i++ {
		src := append([]byte(">>>>"), randomProgram(r, 0)...)
		in := []byte{byte(r.IntN(256)), 3, 0, 200}
		want, ok := reference(src, in, 20000)
		if !ok {
			continue
		}
		compared++
		var out bytes.Buffer
		m, err := translate(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		engine, _ := jit.NewEngine(jit.Options{})
		mod, err := engine.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		input := bytes.NewReader(in)
		inst, err := mod.Instantiate(jit.Imports{
			"putc": jit.MustHost(func(c int64) { out.WriteByte(byte(c)) }),
			"getc": jit.MustHost(func() int64 {
				c, err := input.ReadByte()
				if err != nil {
					return -1
				}
				return int64(c)
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inst.Call(context.Background(), "run"); err != nil {
			var trap *bytecode.Trap
			if errors.As(err, &trap) && trap.Kind == bytecode.TrapOutOfBounds {
				continue // the reference stopped at the tape edge too, differently
			}
			t.Fatalf("%s: %v", src, err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("program %s input %v: output %v, want %v", src, in, out.Bytes(), want)
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d programs terminated; the generator needs tuning", compared)
	}
}

// sharedPrograms finds the acceptance programs next to the repository, if
// they are there (a user's clone has no ../shared).
func sharedPrograms(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Skip("repository root not found")
		}
	}
	p := filepath.Join(dir, "..", "shared", "programs", "bf")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is absent", p)
	}
	return p
}

func TestSharedPrograms(t *testing.T) {
	dir := sharedPrograms(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.bf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tier := range []string{"interp", "baseline", "optimizing"} {
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".bf")
			t.Run(tier+"/"+name, func(t *testing.T) { runShared(t, f, name, tier) })
		}
	}
}

func runShared(t *testing.T, f, name, tier string) {
	in, _ := os.ReadFile(f + ".in")
	var out, errOut bytes.Buffer
	status := run([]string{"-tier=" + tier, f}, bytes.NewReader(in), &out, &errOut)
	if strings.HasPrefix(name, "error_") {
		if status != 1 || !strings.Contains(errOut.String(), "unmatched") {
			t.Fatalf("status %d, stderr %q; want a bracket error", status, errOut.String())
		}
		return
	}
	if status != 0 {
		t.Fatalf("status %d, stderr %q", status, errOut.String())
	}
	want, err := os.ReadFile(f + ".out")
	if err != nil {
		t.Skipf("no expected output: %v", err) // fizzbuzz.bf ships without one
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("output differs from %s.out:\n%s", name, out.String())
	}
}
