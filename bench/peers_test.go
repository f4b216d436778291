package bench

import (
	"errors"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bench/bf"
)

// interpreters are the configurations too slow for the long programs in
// short mode.
var interpreters = []string{KilnInterp, WazeroInterp}

// longOwn are the bench module's own programs that run for seconds in the
// interpreters.
var longOwn = []string{"primes"}

// TestConfigs checks that the configurations every machine has are there,
// and the compiled ones on amd64.
func TestConfigs(t *testing.T) {
	cs, notes := machineConfigs()
	want := []string{KilnInterp, WazeroInterp, Native}
	if runtime.GOARCH == "amd64" {
		want = append(want, KilnBaseline, Wazero)
	}
	for _, n := range want {
		if !slices.ContainsFunc(cs, func(c *Config) bool { return c.Name == n }) {
			t.Errorf("configuration %s is missing (notes: %q)", n, notes)
		}
	}
	for _, n := range notes {
		t.Log(n)
	}
}

// runAll runs every program in every configuration twice (the second run
// checks that runs start afresh) and checks their output.
func runAll(t *testing.T, progs []*Program, long []string) {
	cs, _ := machineConfigs()
	for _, p := range progs {
		for _, c := range cs {
			t.Run(p.Name+"/"+c.Name, func(t *testing.T) {
				if testing.Short() && slices.Contains(long, p.Name) && slices.Contains(interpreters, c.Name) {
					t.Skip("a long program in an interpreter")
				}
				r, err := c.Prepare(p)
				var skip *SkipError
				if errors.As(err, &skip) {
					t.Skip(skip.Reason)
				}
				if err != nil {
					t.Fatal(err)
				}
				if r == nil {
					t.Skipf("%s runs no %s programs", c.Name, p.Kind)
				}
				defer r.Close()
				if _, err := r.Run(2); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestOwnBF runs the bench module's own Brainfuck programs in every
// configuration and checks their output.
func TestOwnBF(t *testing.T) {
	progs, err := OwnBF()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range progs {
		names = append(names, p.Name)
	}
	if want := []string{"hello", "primes", "reverse", "triangle"}; !slices.Equal(names, want) {
		t.Errorf("own programs %v, want %v", names, want)
	}
	runAll(t, progs, longOwn)
}

// TestSharedBF runs the shared Brainfuck programs (KILN_BF_DIR) in every
// configuration and checks their output. It is skipped in short mode and
// when the directory is absent.
func TestSharedBF(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	progs, notes, err := SharedBF(BFDir())
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no shared Brainfuck programs: %v (set KILN_BF_DIR)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		t.Log(n)
	}
	runAll(t, progs, nil)
}

// TestKernels runs every kernel at its small arguments in every
// configuration (kiln's tiers, wazero's engines through the twins, native
// Go) and checks its results bit for bit against its native Go twin's.
func TestKernels(t *testing.T) {
	progs := Kernels(true)
	var names []string
	for _, p := range progs {
		names = append(names, p.Name)
	}
	for _, name := range []string{"sieve32", "hash32", "mandel32"} {
		if !slices.Contains(names, name) {
			t.Errorf("kernel %s is not among the peer programs %v", name, names)
		}
	}
	runAll(t, progs, nil)
}

// TestEOF checks that every back end leaves the cell unchanged when , reads
// past the end of the input.
func TestEOF(t *testing.T) {
	for _, c := range []struct{ src, in, out string }{
		{"+++,.", "", "\x03"},
		{",.,.", "A", "AA"},
		{"+,.,.,.", "xy", "xyy"},
	} {
		ops, err := bf.Parse([]byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		p := &Program{Kind: KindBF, Name: "eof", Source: []byte(c.src), Input: []byte(c.in), Output: []byte(c.out), Ops: ops}
		runAll(t, []*Program{p}, nil)
	}
}

// TestMismatch checks that every configuration reports a wrong output or
// result instead of timing it.
func TestMismatch(t *testing.T) {
	cs, _ := machineConfigs()
	hello, err := OwnBF()
	if err != nil {
		t.Fatal(err)
	}
	bad := *hello[0]
	bad.Output = []byte("Hello, world!\n")
	fib := Kernels(true)[0]
	fib.Want = []uint64{fib.Want[0] + 1}
	for _, p := range []*Program{&bad, fib} {
		for _, c := range cs {
			r, err := c.Prepare(p)
			if err != nil || r == nil {
				continue
			}
			if _, err := r.Run(1); err == nil {
				t.Errorf("%s in %s: a wrong output went unnoticed", p, c.Name)
			}
			r.Close()
		}
	}
}

// TestMeasure runs the measuring loop and the table on a short program
// and a small kernel.
func TestMeasure(t *testing.T) {
	cs, _ := machineConfigs()
	own, err := OwnBF()
	if err != nil {
		t.Fatal(err)
	}
	var progs []*Program
	for _, p := range own {
		if p.Name == "triangle" {
			progs = append(progs, p)
		}
	}
	short, err := Measure(progs, cs, MeasureOptions{Reps: 2, Sample: time.Millisecond, MinRun: MinRun})
	if err != nil {
		t.Fatal(err)
	}
	if !short[0].Short {
		t.Errorf("triangle is not under the floor")
	}
	results, err := Measure(Kernels(true)[:2], cs, MeasureOptions{Reps: 2, Sample: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if _, ok := results[0].PerRun[c.Name]; !ok && c.Name != GCC {
			t.Errorf("fib has no time in %s", c.Name)
		}
	}
	results = append(results, short...)
	var b strings.Builder
	if err := WriteTable(&b, results, cs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Log("\n" + out)
	for _, want := range []string{"kernel/fib", "kernel/sieve", KilnInterp, "not timed", "bf/triangle"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

func TestFormat(t *testing.T) {
	for d, want := range map[time.Duration]string{
		999:                    "999 ns",
		1500:                   "1.50 µs",
		25 * time.Millisecond:  "25.0 ms",
		250 * time.Millisecond: "250 ms",
		3 * time.Second:        "3.00 s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	for x, want := range map[float64]string{0.0027384: "0.00274", 0.5: "0.500", 0: "0", 0.9772: "0.977", 1: "1.00", 12.07: "12.1", 584.9: "585"} {
		if got := FormatRatio(x); got != want {
			t.Errorf("FormatRatio(%v) = %q, want %q", x, got, want)
		}
	}
}
