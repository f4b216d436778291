package main

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
)

// nested returns '+', depth opening brackets, '-' and depth closing
// brackets: a program that clears its first cell in the innermost loop and
// leaves every loop after one iteration.
func nested(depth int) []byte {
	return []byte("+" + strings.Repeat("[", depth) + "-" + strings.Repeat("]", depth))
}

// nestedInstrs is the length of the bytecode nested(depth) translates to:
// the add, depth-1 loops of four instructions (a test at the top and at the
// bottom), the innermost loop as a set of two, and the return.
func nestedInstrs(depth int) int { return 3 + 4*(depth-1) + 2 + 1 }

// TestDeepNestingTranslates translates a program nested a million loops
// deep, which overflowed the goroutine stack while the translator recursed
// once per nesting level.
func TestDeepNestingTranslates(t *testing.T) {
	if testing.Short() {
		t.Skip("translating a million nested loops takes seconds and about 2 GB")
	}
	const depth = 1_000_000
	m, err := translate(nested(depth))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(m.Funcs[0].Code), nestedInstrs(depth); got != want {
		t.Fatalf("%d instructions, want %d", got, want)
	}
}

// The nesting depths at which the deep program is loaded and run: the
// interpreter loads it in time linear in its size; the compiled tiers'
// loop analyses are slower on such nests, so they run a shallower one.
const (
	interpDepth   = 100_000
	compiledDepth = 10_000
)

// TestDeepNestingRuns translates, loads and runs deeply nested programs in
// every tier, checking that each leaves its first cell cleared.
func TestDeepNestingRuns(t *testing.T) {
	for _, tt := range []struct {
		tier  jit.Tier
		depth int
	}{
		{jit.TierInterp, interpDepth},
		{jit.TierBaseline, compiledDepth},
		{jit.TierOptimizing, compiledDepth},
	} {
		t.Run(tt.tier.String(), func(t *testing.T) {
			if testing.Short() && tt.tier != jit.TierInterp {
				t.Skip("compiling the deep nest takes seconds")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			m, err := translateContext(ctx, nested(tt.depth))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(m.Funcs[0].Code), nestedInstrs(tt.depth); got != want {
				t.Fatalf("%d instructions, want %d", got, want)
			}
			engine, err := jit.NewEngine(jit.Options{Tier: tt.tier})
			if err != nil {
				t.Fatal(err)
			}
			mod, err := engine.LoadContext(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if mod.Tier() != tt.tier && runtime.GOARCH == "amd64" && runtime.GOOS == "linux" {
				t.Fatalf("the module runs in the %s tier: %v", mod.Tier(), mod.CompileError())
			}
			inst, err := mod.Instantiate(jit.Imports{
				"putc": jit.MustHost(func(int64) {}),
				"getc": jit.MustHost(func() int64 { return -1 }),
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := inst.Call(ctx, "run"); err != nil {
				t.Fatal(err)
			}
			if c := inst.Memory()[0]; c != 0 {
				t.Fatalf("cell 0 is %d after the run, want 0", c)
			}
		})
	}
}

// TestTranslationLinear checks that translation allocates in proportion to
// the program, however deep its nesting: copying node lists once per level
// would make doubling the depth quadruple the bytes allocated.
func TestTranslationLinear(t *testing.T) {
	allocated := func(src []byte) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := translate(src); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, tt := range []struct {
		name    string
		program func(n int) []byte
	}{
		{"nested", nested},
		{"nested with bodies", func(n int) []byte {
			return []byte(strings.Repeat("+[>+.<", n) + strings.Repeat("->>]", n))
		}},
		{"flat", func(n int) []byte { return bytes.Repeat([]byte("+[->+>++<<]>[.<]>,"), n) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const n = 10_000
			small, large := allocated(tt.program(n)), allocated(tt.program(2*n))
			ratio := float64(large) / float64(small)
			t.Logf("%d bytes allocated for size %d, %d for size %d: ratio %.2f", small, n, large, 2*n, ratio)
			if ratio > 2.6 {
				t.Errorf("%d bytes allocated for size %d, %d for size %d: ratio %.2f, want about 2", small, n, large, 2*n, ratio)
			}
		})
	}
}

// TestTranslateCancelled checks that each stage of a long translation
// stops when its context is cancelled.
func TestTranslateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name, src, want string
	}{
		{"parsing", strings.Repeat("+>", checkInterval), "parsing interrupted: context canceled"},
		{"short program", "+[-]", "translation interrupted: context canceled"},
	} {
		_, err := translateContext(ctx, []byte(tt.src))
		if !errors.Is(err, context.Canceled) || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// Code generation checks too: cancel once parsing is done.
	p, err := parse(context.Background(), bytes.Repeat([]byte("+>"), checkInterval))
	if err != nil {
		t.Fatal(err)
	}
	b := bytecode.NewModuleBuilder()
	f := b.Func("run", nil, nil)
	g := &gen{f: f, ptr: f.NewReg(bytecode.I64), cell: f.NewReg(bytecode.I64), tmp: f.NewReg(bytecode.I64), tmp2: f.NewReg(bytecode.I64)}
	if err := g.emit(ctx, p); !errors.Is(err, context.Canceled) || err.Error() != "code generation interrupted: context canceled" {
		t.Errorf("emit: error %v", err)
	}
}

// translationText translates src with translate (or, with reference set,
// the recursive reference translator) and returns the module's text form
// or the error.
func translationText(src []byte, reference bool) string {
	var m *bytecode.Module
	var err error
	if reference {
		m, err = refTranslate(src)
	} else {
		m, err = translate(src)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return string(bytecode.Disassemble(m))
}

// randomSource returns a random Brainfuck source: commands, comments and
// newlines, loops nested up to maxDepth, clear and multiply loops, and, one
// time in eight, an unbalanced bracket.
func randomSource(r *rand.Rand, maxDepth int) []byte {
	var b []byte
	depth := 0
	for n := r.IntN(80); n > 0; n-- {
		switch k := r.IntN(24); {
		case k < 6:
			b = append(b, "+-"[r.IntN(2)])
		case k < 12:
			b = append(b, "><"[r.IntN(2)])
		case k < 13:
			b = append(b, '.')
		case k < 14:
			b = append(b, ',')
		case k < 15:
			b = append(b, " x\n"[r.IntN(3)])
		case k < 16:
			b = append(b, []string{"[-]", "[+]", "[->+<]", "[->>+++<<<+>]", "[-<++>>-<]", "[--]", "[]"}[r.IntN(7)]...)
		case k < 20:
			if depth < maxDepth {
				b = append(b, '[')
				depth++
			}
		default:
			if depth > 0 {
				b = append(b, ']')
				depth--
			}
		}
	}
	for ; depth > 0; depth-- {
		b = append(b, ']')
	}
	if r.IntN(8) == 0 {
		i := r.IntN(len(b) + 1)
		b = append(b[:i], append([]byte{"[]"[r.IntN(2)]}, b[i:]...)...)
	}
	return b
}

// TestMatchesRecursiveTranslator checks that the translator produces, for
// random programs and for the test programs, exactly the bytecode (or the
// error) of the recursive translator it replaced.
func TestMatchesRecursiveTranslator(t *testing.T) {
	var sources [][]byte
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		sources = append(sources, randomSource(r, 1+i%12))
	}
	for _, p := range programs {
		sources = append(sources, []byte(p.src))
	}
	sources = append(sources, nested(2000), []byte(strings.Repeat("[->+<", 500)+strings.Repeat("]", 500)))
	if dir := sharedDir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.bf"))
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sources = append(sources, src)
		}
	}
	for _, src := range sources {
		got, want := translationText(src, false), translationText(src, true)
		if got != want {
			t.Fatalf("program %q:\n%s", src, firstDifference([]byte(got), []byte(want)))
		}
	}
}

// sharedDir returns the directory of the acceptance programs next to the
// repository, or "" when it is absent.
func sharedDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
	p := filepath.Join(dir, "..", "shared", "programs", "bf")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
