package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/interrupttest"
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
	err := execute(ctx, []byte(src), config{tier: tier}, strings.NewReader(in), &out, &errOut)
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
		err := execute(context.Background(), []byte(tt.src), config{}, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
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
	spin := filepath.Join(dir, "spin.bf")
	if err := os.WriteFile(spin, []byte("+[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(dir, "count.bf")
	if err := os.WriteFile(count, []byte("+++[.-]"), 0o644); err != nil {
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
		{[]string{"-tier=baseline", "-stats", prog}, "a", 0, "b", "compile: tier baseline, 1 functions,"},
		{[]string{bad}, "", 1, "", "bad.bf: 1:2: unmatched '['"},
		{[]string{filepath.Join(dir, "missing.bf")}, "", 1, "", "no such file"},
		{[]string{"-tier=warp", prog}, "", 2, "", "unknown tier"},
		{nil, "", 2, "", "usage"},
		{[]string{"-fuel=100", spin}, "", 1, "", "spin.bf: trap: fuel exhausted in run at instruction 6 (-fuel=100)\n"},
		{[]string{"-fuel=100", "-tier=optimizing", spin}, "", 1, "", "spin.bf: trap: fuel exhausted in run at instruction 6 (-fuel=100)\n"},
		{[]string{"-fuel=100", count}, "", 0, "\x03\x02\x01", ""},
		{[]string{"-fuel=1", count}, "", 1, "\x03\x02", "count.bf: trap: fuel exhausted in run at instruction "},
		{[]string{"-timeout=100ms", spin}, "", 1, "", "spin.bf: trap: interrupted in run at instruction 6: context deadline exceeded (-timeout=100ms)\n"},
		{[]string{"-timeout=100ms", "-tier=baseline", spin}, "", 1, "", "context deadline exceeded (-timeout=100ms)\n"},
		{[]string{"-timeout=1m", prog}, "a", 0, "b", ""},
		{[]string{"-fuel=-1", prog}, "", 2, "", "must not be negative"},
		{[]string{"-timeout=-1s", prog}, "", 2, "", "must not be negative"},
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
	p := sharedDir()
	if p == "" {
		t.Skip("the acceptance programs (../shared/programs/bf) are absent")
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

// TestCancelled runs the program under a cancelled context, as an interrupt
// leaves it: translation stops, and so does a running program.
func TestCancelled(t *testing.T) {
	dir := t.TempDir()
	spin := filepath.Join(dir, "spin.bf")
	if err := os.WriteFile(spin, []byte("+[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		args    []string
		cancel  time.Duration // after this long; 0: before the program starts
		errPart string
	}{
		{"while translating", []string{spin}, 0, "brainfuck: interrupted: " + spin + ": translation interrupted: context canceled\n"},
		{"while running", []string{spin}, 50 * time.Millisecond, "brainfuck: interrupted: " + spin + ": trap: interrupted in run at instruction 6: context canceled\n"},
		{"while running compiled code", []string{"-tier=baseline", spin}, 50 * time.Millisecond, ": trap: interrupted in run at instruction 6: context canceled\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel == 0 {
				cancel()
			} else {
				time.AfterFunc(tt.cancel, cancel)
			}
			var out, errOut bytes.Buffer
			status := runContext(ctx, tt.args, strings.NewReader(""), &out, &errOut)
			if status != exitInterrupted || !strings.HasSuffix(errOut.String(), tt.errPart) {
				t.Errorf("brainfuck %q = %d, stderr %q; want %d, %q", tt.args, status, errOut.String(), exitInterrupted, tt.errPart)
			}
		})
	}
}

// TestMain runs the program itself instead of the tests when
// BRAINFUCK_TEST_MAIN is set, so that a test can start it as a process of
// its own and interrupt it.
func TestMain(m *testing.M) {
	if os.Getenv("BRAINFUCK_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestInterrupt starts the program as a process of its own, interrupts it
// with SIGINT while it runs an endless loop, and checks that it stops with
// status 130 and says why.
func TestInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	prog := filepath.Join(t.TempDir(), "prompt.bf")
	// Write a byte, read one (which flushes the output first), then loop
	// forever.
	if err := os.WriteFile(prog, []byte("+.,+[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tier := range []string{"interp", "optimizing"} {
		t.Run(tier, func(t *testing.T) { interrupt(t, "-tier="+tier, prog) })
	}
}

func interrupt(t *testing.T, tierFlag, prog string) {
	cmd := exec.Command(os.Args[0], tierFlag, prog)
	cmd.Env = append(os.Environ(), "BRAINFUCK_TEST_MAIN=1")
	// The first byte arrives once the program runs, with the signal
	// handler in place; once its input ends, the loop runs until it
	// notices the interrupt.
	status, stderr := interrupttest.Run(t, cmd, func(stdout io.Reader) error {
		first := make([]byte, 1)
		_, err := io.ReadFull(stdout, first)
		if err == nil && first[0] != 1 {
			err = fmt.Errorf("first byte %v", first)
		}
		return err
	})
	if status != exitInterrupted {
		t.Fatalf("the program ended with status %d, stderr %q; want exit status %d", status, stderr, exitInterrupted)
	}
	if want := "brainfuck: interrupted: " + prog + ": trap: interrupted in run"; !strings.HasPrefix(stderr, want) {
		t.Fatalf("stderr %q, want it to start with %q", stderr, want)
	}
}
