package bench

import (
	"errors"
	"io/fs"
	"math"
	"regexp"
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

// TestC runs every C program at its small argument in every configuration
// (kiln's tiers through the WebAssembly front end, wazero's compiler and
// interpreter, the gcc -O2 build) and checks its result bit for bit.
func TestC(t *testing.T) {
	progs, err := CPrograms(true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range progs {
		names = append(names, p.Name)
	}
	if want := []string{"nbody", "fannkuchredux", "spectralnorm", "interp", "lz77", "sort"}; !slices.Equal(names, want) {
		t.Errorf("C programs %v, want %v", names, want)
	}
	if !slices.Equal(CNames(), names) {
		t.Errorf("CNames() = %v, want %v", CNames(), names)
	}
	cs, notes := machineConfigs()
	if !slices.ContainsFunc(cs, func(c *Config) bool { return c.Name == GCC }) {
		t.Logf("no native column: %q", notes)
	}
	runAll(t, progs, nil)
}

// TestCWant checks the C programs' expected results at their benchmark
// arguments against their gcc -O2 builds (a second each), and at their
// small arguments against the results kiln's WebAssembly front end was
// checked against (wasm/testdata/README.md).
func TestCWant(t *testing.T) {
	small, err := CPrograms(true)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		f64 float64
		i64 int64
	}{
		{f64: -0.16908760523460614},
		{i64: 979252543504},
		{f64: 1.2742199912349306},
	} {
		p := small[i]
		if got := p.Want[0]; p.F64 && got != math.Float64bits(want.f64) || !p.F64 && got != uint64(want.i64) {
			t.Errorf("%s(%d): expected result %#x, want %v%v", p.Name, p.Args[0], got, want.f64, want.i64)
		}
	}
	cs, _ := machineConfigs()
	i := slices.IndexFunc(cs, func(c *Config) bool { return c.Name == GCC })
	if i < 0 {
		t.Skip("gcc is not on PATH")
	}
	progs, err := CPrograms(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			r, err := cs[i].Prepare(p)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			d, err := r.Run(1)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s(%d) in %v", p.Name, p.Args[0], d)
		})
	}
}

// TestCCompile measures the compile times of the C programs' modules and
// prints them as a table.
func TestCCompile(t *testing.T) {
	cs, _ := machineConfigs()
	progs, err := CPrograms(true)
	if err != nil {
		t.Fatal(err)
	}
	results, err := MeasureCompile(progs, cs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(progs) {
		t.Fatalf("%d results for %d programs", len(results), len(progs))
	}
	for _, r := range results {
		for _, name := range []string{KilnInterp, WazeroInterp} {
			if _, ok := r.Total(name); !ok {
				t.Errorf("%s has no compile time in %s", r.Program, name)
			}
		}
		if f := r.Front[KilnInterp]; f <= 0 {
			t.Errorf("%s has no front end time in %s", r.Program, KilnInterp)
		}
		for _, name := range []string{Native, GCC} {
			if _, ok := r.Total(name); ok {
				t.Errorf("%s has a compile time in %s", r.Program, name)
			}
		}
	}
	var b strings.Builder
	if err := WriteCompileTable(&b, results, cs); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	for _, want := range []string{"c/nbody", "c/spectralnorm", "ns/byte", KilnInterp, WazeroInterp} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

// TestWriteTable checks the ratio columns and the geometric means on made
// up results.
func TestWriteTable(t *testing.T) {
	configs := []*Config{{Name: KilnInterp}, {Name: KilnOptimizing}, {Name: Wazero}, {Name: WazeroInterp}, {Name: GCC}, {Name: Native}}
	c1 := &Program{Kind: KindC, Name: "one"}
	c2 := &Program{Kind: KindC, Name: "two"}
	k := &Program{Kind: KindKernel, Name: "k"}
	ms := time.Millisecond
	// The kernel between the C programs: their geometric means follow the
	// last of them.
	results := []Result{
		{Program: c1, PerRun: map[string]time.Duration{KilnInterp: 40 * ms, KilnOptimizing: 2 * ms, Wazero: 4 * ms, WazeroInterp: 100 * ms, GCC: 1 * ms}},
		{Program: k, PerRun: map[string]time.Duration{KilnInterp: 30 * ms, Native: 3 * ms, GCC: 1 * ms}},
		{Program: c2, PerRun: map[string]time.Duration{KilnInterp: 10 * ms, KilnOptimizing: 8 * ms, Wazero: 4 * ms, WazeroInterp: 40 * ms, GCC: 2 * ms}},
	}
	var b strings.Builder
	if err := WriteTable(&b, results, configs); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	for _, c := range []struct{ prefix, want string }{
		{"c/one  kiln-interp", "40.0 ms  40.0  10.0  0.400"},
		{"c/two  kiln-optimizing", "8.00 ms  4.00  2.00  0.200"},
		{"c/geomean  kiln-interp", "14.1  5.00  0.316"},
		{"c/geomean  kiln-optimizing", "2.83  1.00  0.0632"},
		{"c/geomean  gcc", "1.00  0.354  0.0224"},
		{"kernel/k  kiln-interp", "30.0 ms  10.0  -  -"},
		{"kernel/k  gcc", "1.00 ms  0.333  -  -"},
	} {
		if !hasRow(b.String(), c.prefix, c.want) {
			t.Errorf("no row %q with %q", c.prefix, c.want)
		}
	}
	if strings.Contains(b.String(), "kernel/geomean") {
		t.Error("a geometric mean of a single kernel")
	}
	if n := strings.Count(b.String(), "c/geomean"); n != 1 {
		t.Errorf("%d geometric mean blocks of the C programs, want 1", n)
	}
	if i, j := strings.Index(b.String(), "c/two"), strings.Index(b.String(), "c/geomean"); i < 0 || j < i {
		t.Error("the geometric means of the C programs do not follow the last of them")
	}
}

// columns separates a table's columns.
var columns = regexp.MustCompile(` {2,}`)

// hasRow reports whether table has a row that, with its program's name
// (from the row that names it) and the spaces between columns collapsed to
// two, starts with prefix and then holds want.
func hasRow(table, prefix, want string) bool {
	program := ""
	for _, line := range strings.Split(table, "\n") {
		fields := columns.Split(strings.TrimSpace(line), -1)
		if fields[0] == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") {
			program, fields = fields[0], fields[1:]
		}
		row := strings.Join(append([]string{program}, fields...), "  ")
		if rest, ok := strings.CutPrefix(row, prefix); ok && strings.Contains(rest, want) {
			return true
		}
	}
	return false
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
	cprogs, err := CPrograms(true)
	if err != nil {
		t.Fatal(err)
	}
	nbody := cprogs[0]
	nbody.Want = []uint64{nbody.Want[0] ^ 1}
	for _, p := range []*Program{&bad, fib, nbody} {
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
