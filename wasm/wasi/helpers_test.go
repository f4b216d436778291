package wasi

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/text"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// tiers are the kiln tiers every program runs on.
var tiers = []jit.Tier{jit.TierInterp, jit.TierBaseline, jit.TierOptimizing, jit.TierAuto}

// fixedClock is a Clock that stands still but for what Sleep advances it
// by, so that a test sees the same times every run.
type fixedClock struct {
	wall time.Time
	mono int64
}

func newFixedClock() *fixedClock {
	return &fixedClock{wall: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), mono: 1000}
}

func (f *fixedClock) Now() time.Time  { return f.wall.Add(time.Duration(f.mono)) }
func (f *fixedClock) Nanotime() int64 { return f.mono }
func (f *fixedClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		f.mono += int64(d)
	}
	return ctx.Err()
}

// translateModule decodes and translates a module in the binary format,
// or in the text format when src does not start with the binary magic.
func translateModule(t testing.TB, src []byte) *translate.Module {
	t.Helper()
	if !bytes.HasPrefix(src, []byte(binary.Magic)) {
		b, err := text.ToBinary(src)
		if err != nil {
			t.Fatalf("text format: %v", err)
		}
		src = b
	}
	bm, err := binary.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := translate.Translate(bm, translate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// result is how a program ended.
type result struct {
	code           uint32
	err            error
	stdout, stderr string
}

// runProgram runs m's _start on tier with cfg, whose Stdout and Stderr
// it captures.
func runProgram(t testing.TB, m *translate.Module, tier jit.Tier, cfg Config) result {
	t.Helper()
	var out, errOut bytes.Buffer
	cfg.Stdout, cfg.Stderr = &out, &errOut
	engine, err := jit.NewEngine(jit.Options{Tier: tier})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inst, err := link.Instantiate(context.Background(), engine, m, s.Imports(m).Resolve)
	if err != nil {
		t.Fatalf("instantiating: %v", err)
	}
	if tier != jit.TierAuto && inst.Kiln.Tier() != tier {
		t.Fatalf("runs in tier %s, not %s: %v", inst.Kiln.Tier(), tier, inst.Kiln.Module().CompileError())
	}
	code, err := RunStart(context.Background(), inst)
	return result{code: code, err: err, stdout: out.String(), stderr: errOut.String()}
}
