package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/internal/interrupttest"
)

// TestMain runs the command itself instead of the tests when
// KILN_TEST_MAIN is set, so that a test can start it as a process of its
// own and interrupt it.
func TestMain(m *testing.M) {
	if os.Getenv("KILN_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

func kiln(t *testing.T, stdin string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = run(args, strings.NewReader(stdin), &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestRun(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		status  int
		out     string
		errPart string
	}{
		{[]string{"run", "testdata/fact.kasm", "5"}, 0, "5\n20\n60\n120\n120\n", ""},
		{[]string{"run", "-func=hyp", "testdata/fact.kasm", "3", "4"}, 0, "5\n", ""},
		{[]string{"run", "-func=boom", "testdata/fact.kasm", "0"}, 1, "", "trap: integer divide by zero in boom at instruction 0"},
		{[]string{"run", "-tier=baseline", "testdata/fact.kasm", "5"}, 0, "5\n20\n60\n120\n120\n", ""},
		{[]string{"run", "-tier=baseline", "-func=hyp", "testdata/fact.kasm", "3", "4"}, 0, "5\n", ""},
		{[]string{"run", "-tier=baseline", "-func=boom", "testdata/fact.kasm", "0"}, 1, "", "trap: integer divide by zero in boom at instruction 0"},
		{[]string{"run", "-tier=optimizing", "testdata/fact.kasm", "5"}, 0, "5\n20\n60\n120\n120\n", ""},
		{[]string{"run", "-tier=optimizing", "-func=boom", "testdata/fact.kasm", "0"}, 1, "", "trap: integer divide by zero in boom at instruction 0"},
		{[]string{"run", "-stats", "testdata/fact.kasm", "3"}, 0, "3\n6\n6\n", "func main: tier interp, 1 calls"},
		{[]string{"run", "-stats", "-tier=optimizing", "testdata/fact.kasm", "3"}, 0, "3\n6\n6\n", "compile: tier optimizing, 3 functions,"},
		{[]string{"run", "-stats", "-tier=optimizing", "testdata/fact.kasm", "3"}, 0, "3\n6\n6\n", "func main: tier optimizing, 1 calls"},
		{[]string{"run", "-stats", "-tier=optimizing", "-interpreted=main,boom", "testdata/fact.kasm", "3"}, 0, "3\n6\n6\n", "func main: tier interp, 1 calls"},
		{[]string{"run", "-stats", "-tier=baseline", "-interpreted=boom", "testdata/fact.kasm", "3"}, 0, "3\n6\n6\n", "compile: tier baseline, 2 functions (1 left interpreted),"},
		{[]string{"run", "testdata/fact.kasm"}, 2, "", "main (i64) -> (i64): takes 1 arguments, got 0"},
		{[]string{"run", "testdata/fact.kasm", "x"}, 2, "", `argument 1: "x" is not an i64`},
		{[]string{"run", "-func=hyp", "testdata/fact.kasm", "1", "y"}, 2, "", `argument 2: "y" is not an f64`},
		{[]string{"run", "-func=nope", "testdata/fact.kasm"}, 1, "", `exports no function "nope" (exports: "main" (i64) -> (i64), "hyp" (f64 f64) -> (f64), "boom" (i64) -> (i64))`},
		{[]string{"run", "-tier=warp", "testdata/fact.kasm", "1"}, 2, "", "unknown tier"},
		{[]string{"run", "testdata/badhost.kasm"}, 1, "", `imports host function "launch"`},
		{[]string{"run", "testdata/broken.kasm"}, 1, "", "kiln: testdata/broken.kasm:2: func main: instruction 0 (i64.add): destination register r0 out of range"},
		{[]string{"run", "testdata/missing.kasm"}, 1, "", "no such file"},
		{[]string{"run"}, 2, "", "usage"},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{nil, 2, "", "usage"},
	} {
		status, out, errOut := kiln(t, "", tt.args...)
		if status != tt.status || out != tt.out || !strings.Contains(errOut, tt.errPart) {
			t.Errorf("kiln %q = %d, stdout %q, stderr %q", tt.args, status, out, errOut)
		}
	}
}

func TestAsmDisasmVerify(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fact.kbc")
	if status, _, errOut := kiln(t, "", "asm", "-o", bin, "testdata/fact.kasm"); status != 0 {
		t.Fatalf("asm: %d %s", status, errOut)
	}
	data, err := os.ReadFile(bin)
	if err != nil || !bytes.HasPrefix(data, []byte("\x00kln")) {
		t.Fatalf("asm output %q, %v", data, err)
	}
	// The binary runs like the text.
	if status, out, errOut := kiln(t, "", "run", bin, "4"); status != 0 || out != "4\n12\n24\n24\n" {
		t.Fatalf("run of binary: %d %q %q", status, out, errOut)
	}
	status, text, errOut := kiln(t, "", "disasm", bin)
	if status != 0 || !strings.Contains(text, "func main (i64) -> (i64)") {
		t.Fatalf("disasm: %d %q %q", status, text, errOut)
	}
	// Disassembly reassembles to the same binary.
	kasm := filepath.Join(dir, "round.kasm")
	if err := os.WriteFile(kasm, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, again, _ := kiln(t, "", "asm", kasm)
	if again != string(data) {
		t.Fatal("asm(disasm(x)) differs from x")
	}
	if status, out, _ := kiln(t, "", "verify", "testdata/fact.kasm", bin); status != 0 || strings.Count(out, ": ok (3 functions, 14 instructions)") != 2 {
		t.Fatalf("verify: %d %q", status, out)
	}
	if status, _, errOut := kiln(t, "", "verify", "testdata/broken.kasm"); status != 1 || !strings.Contains(errOut, "testdata/broken.kasm:2: func main:") {
		t.Fatalf("verify of a broken file: %d %q", status, errOut)
	}
	corrupt := filepath.Join(dir, "corrupt.kbc")
	if err := os.WriteFile(corrupt, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if status, _, errOut := kiln(t, "", "disasm", corrupt); status != 1 || !strings.Contains(errOut, "decode: byte") {
		t.Fatalf("disasm of a truncated file: %d %q", status, errOut)
	}
}

func TestDump(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"dump", "-stage=bytecode", "testdata/fact.kasm"}, []string{"func main (i64) -> (i64)", "call_host print_i64"}},
		{[]string{"dump", "-stage=ssa", "-func=main", "testdata/fact.kasm"}, []string{"func main #0 (gpr) -> (gpr) ssa", "Phi", "CALLHOST #0"}},
		{[]string{"dump", "-stage=alloc", "-func=hyp", "testdata/fact.kasm"}, []string{"func hyp #1 (xmm xmm) -> (xmm) allocated", "Spill", "SQRTSD"}},
		{[]string{"dump", "-stage=asm", "-func=hyp", "testdata/fact.kasm"}, []string{"; func hyp #1", "; bytecode 3", "SQRTSD", "RET"}},
		{[]string{"dump", "-stage=nonssa", "-func=main", "testdata/fact.kasm"}, []string{"func main #0 (gpr) -> (gpr) nonssa", "CALLHOST #0"}},
		{[]string{"dump", "-stage=nonssa", "-naive", "-func=main", "testdata/fact.kasm"}, []string{"func main #0 (gpr) -> (gpr) nonssa", "ParCopy"}},
		{[]string{"dump", "-stage=nonssa", "-tier=optimizing", "-func=main", "testdata/fact.kasm"}, []string{"func main #0 (gpr) -> (gpr) nonssa", "pins "}},
		{[]string{"dump", "-stage=sched", "-func=hyp", "testdata/fact.kasm"}, []string{"func hyp #1 (xmm xmm) -> (xmm) allocated", "SQRTSD", "; in regions:", "; on edges:"}},
		{[]string{"dump", "-stage=asm", "-tier=optimizing", "-func=hyp", "testdata/fact.kasm"}, []string{"; func hyp #1", "SQRTSD", "RET"}},
	} {
		status, out, errOut := kiln(t, "", tt.args...)
		if status != 0 {
			t.Fatalf("kiln %q: %d %s", tt.args, status, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("kiln %q output lacks %q:\n%s", tt.args, w, out)
			}
		}
	}
	for _, args := range [][]string{
		{"dump", "-stage=nope", "testdata/fact.kasm"},
		{"dump", "-stage=alloc", "-tier=optimizing", "testdata/fact.kasm"},
		{"dump", "-tier=fast", "testdata/fact.kasm"},
		{"dump", "-func=nope", "testdata/fact.kasm"},
		{"dump"},
	} {
		if status, _, _ := kiln(t, "", args...); status == 0 {
			t.Errorf("kiln %q succeeded", args)
		}
	}
}

// TestRunLimits runs modules that trap or exceed a limit under the safety
// flags of kiln run, in every tier.
func TestRunLimits(t *testing.T) {
	const mod = "testdata/limits.kasm"
	for _, tier := range []string{"interp", "baseline", "optimizing"} {
		for _, tt := range []struct {
			name    string
			args    []string
			status  int
			out     string
			errPart string
		}{
			{"fuel runs out", []string{"-fuel=1000", "-func=count", mod, "1000000"}, 1, "",
				"kiln: trap: fuel exhausted in count at instruction 2 (-fuel=1000)\n"},
			{"fuel suffices", []string{"-fuel=1000", "-func=count", mod, "10"}, 0, "10\n", ""},
			{"timeout", []string{"-timeout=100ms", "-func=spin", mod}, 1, "",
				"kiln: trap: interrupted in spin at instruction 0: context deadline exceeded (-timeout=100ms)\n"},
			{"timeout not reached", []string{"-timeout=1m", "-func=count", mod, "1000"}, 0, "1000\n", ""},
			{"call depth exceeded", []string{"-max-call-depth=100", "-func=depth", mod, "1000"}, 1, "",
				"kiln: trap: stack overflow in depth at instruction 2 (-max-call-depth=100)\n"},
			{"call depth within the limit", []string{"-max-call-depth=100", "-func=depth", mod, "50"}, 0, "50\n", ""},
			{"memory.grow over the cap", []string{"-max-memory-pages=4", "-func=grow", mod, "10"}, 0, "-1\n", ""},
			{"memory.grow up to the cap", []string{"-max-memory-pages=4", "-func=grow", mod, "3"}, 0, "1\n", ""},
			{"memory.grow without a cap", []string{"-func=grow", mod, "10"}, 0, "1\n", ""},
			{"too many instructions", []string{"-max-function-instrs=4", "-func=grow", mod, "1"}, 1, "",
				"kiln: testdata/limits.kasm: jit: load: function depth has at least 5 instructions and switch table entries; Options.MaxFunctionInstrs allows 4 (-max-function-instrs=4)\n"},
			{"instructions within the limit", []string{"-max-function-instrs=6", "-func=grow", mod, "1"}, 0, "1\n", ""},
			{"too many functions", []string{"-max-functions=2", "-func=grow", mod, "1"}, 1, "", "Options.MaxFunctions allows 2 (-max-functions=2)\n"},
			{"too many registers", []string{"-max-registers=1", "-func=grow", mod, "1"}, 1, "", "function count has at least 2 registers; Options.MaxRegisters allows 1 (-max-registers=1)\n"},
			{"file too large", []string{"-max-module-bytes=100", "-func=grow", mod, "1"}, 1, "", "Options.MaxModuleBytes allows 100 (-max-module-bytes=100)\n"},
			{"negative fuel", []string{"-fuel=-1", "-func=grow", mod, "1"}, 2, "", "kiln: -fuel must not be negative\n"},
			{"negative timeout", []string{"-timeout=-1s", "-func=grow", mod, "1"}, 2, "", "kiln: -timeout must not be negative\n"},
			{"memory cap beyond the format", []string{"-max-memory-pages=70000", "-func=grow", mod, "1"}, 2, "", "-max-memory-pages 70000 exceeds 65536"},
			{"bad duration", []string{"-timeout=soon", "-func=grow", mod, "1"}, 2, "", `invalid value "soon" for flag -timeout`},
		} {
			t.Run(tier+"/"+tt.name, func(t *testing.T) {
				args := append([]string{"run", "-tier=" + tier}, tt.args...)
				status, out, errOut := kiln(t, "", args...)
				if status != tt.status || out != tt.out || !strings.Contains(errOut, tt.errPart) {
					t.Errorf("kiln %q = %d, stdout %q, stderr %q; want %d, %q, %q", args, status, out, errOut, tt.status, tt.out, tt.errPart)
				}
				if tt.status == 1 && strings.Count(errOut, "\n") != 1 {
					t.Errorf("kiln %q: stderr is not one line: %q", args, errOut)
				}
			})
		}
	}
}

// TestRunGlobals gives imported globals their values with -global, in
// every tier.
func TestRunGlobals(t *testing.T) {
	const mod = "testdata/globals.kasm"
	for _, tier := range []string{"interp", "baseline", "optimizing"} {
		for _, tt := range []struct {
			name    string
			args    []string
			status  int
			out     string
			errPart string
		}{
			{"both given", []string{"-global", "base=5", "-global", "scale=1.25", mod, "1"}, 0, "12\n2.5\n", ""},
			{"one missing", []string{"-global", "base=5", mod, "1"}, 1, "", `missing import "scale"`},
			{"unknown global", []string{"-global", "base=5", "-global", "scale=1", "-global", "bias=2", mod, "1"}, 2, "",
				`-global bias=2: the module imports no global "bias"`},
			{"not NAME=VALUE", []string{"-global", "base", mod, "1"}, 2, "", `-global "base": want NAME=VALUE`},
			{"value of the wrong type", []string{"-global", "base=1.5", "-global", "scale=1", mod, "1"}, 2, "", "-global base=1.5: "},
		} {
			t.Run(tier+"/"+tt.name, func(t *testing.T) {
				args := append([]string{"run", "-tier=" + tier}, tt.args...)
				status, out, errOut := kiln(t, "", args...)
				if status != tt.status || out != tt.out || !strings.Contains(errOut, tt.errPart) {
					t.Errorf("kiln %q = %d, stdout %q, stderr %q; want %d, %q, %q", args, status, out, errOut, tt.status, tt.out, tt.errPart)
				}
			})
		}
	}
}

// TestRunCompileLimit checks that a module over -max-compile-bytes runs in
// the interpreter, saying why.
func TestRunCompileLimit(t *testing.T) {
	status, out, errOut := kiln(t, "", "run", "-tier=optimizing", "-max-compile-bytes=1000", "-func=count", "testdata/limits.kasm", "7")
	if status != 0 || out != "7\n" || !strings.Contains(errOut, "kiln: running in the interp tier: ") ||
		!strings.Contains(errOut, "(-max-compile-bytes=1000)") {
		t.Errorf("kiln run -max-compile-bytes=1000 = %d, stdout %q, stderr %q", status, out, errOut)
	}
}

// TestRunCancelled runs the command under a cancelled context, as an
// interrupt leaves it: loading stops, and so does a running call.
func TestRunCancelled(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		cancel  time.Duration // after this long; 0: before the command starts
		errPart string
	}{
		{"while loading", []string{"run", "-func=count", "testdata/limits.kasm", "1"}, 0, "kiln: interrupted: testdata/limits.kasm: loading interrupted: context canceled\n"},
		{"before compiling", []string{"run", "-tier=optimizing", "-func=count", "testdata/limits.kasm", "1"}, 0, "kiln: interrupted: testdata/limits.kasm: loading interrupted: context canceled\n"},
		{"while running", []string{"run", "-func=spin", "testdata/limits.kasm"}, 50 * time.Millisecond, "kiln: interrupted: trap: interrupted in spin at instruction 0: context canceled"},
		{"while running compiled code", []string{"run", "-tier=baseline", "-func=spin", "testdata/limits.kasm"}, 50 * time.Millisecond, "kiln: interrupted: trap: interrupted in spin"},
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
			if status != exitInterrupted || !strings.Contains(errOut.String(), tt.errPart) || !strings.HasSuffix(errOut.String(), "context canceled\n") {
				t.Errorf("kiln %q = %d, stderr %q; want %d, %q", tt.args, status, errOut.String(), exitInterrupted, tt.errPart)
			}
		})
	}
}

// TestInterrupt starts kiln as a process of its own, interrupts it with
// SIGINT while it runs a call that never returns, and checks that it stops
// with status 130 and says why.
func TestInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	for _, tier := range []string{"interp", "optimizing"} {
		t.Run(tier, func(t *testing.T) { interrupt(t, "-tier="+tier) })
	}
}

func interrupt(t *testing.T, tierFlag string) {
	// prompt prints 1 and flushes before it reads: by then the signal
	// handler is in place and the call is running. Once its input ends,
	// getc returns -1 and prompt spins until it notices the interrupt.
	interruptKiln(t, "kiln: interrupted: trap: interrupted in prompt", "run", tierFlag, "-func=prompt", "testdata/limits.kasm")
}

// interruptKiln runs kiln with args as a process of its own, interrupts
// it once it has printed the line "1", and checks that it exits with
// status 130 and a standard error that starts with want.
func interruptKiln(t *testing.T, want string, args ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KILN_TEST_MAIN=1")
	status, stderr := interrupttest.Run(t, cmd, func(stdout io.Reader) error {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err == nil && line != "1\n" {
			err = fmt.Errorf("first line %q", line)
		}
		return err
	})
	if status != exitInterrupted {
		t.Fatalf("kiln ended with status %d, stderr %q; want exit status %d", status, stderr, exitInterrupted)
	}
	if !strings.HasPrefix(stderr, want) {
		t.Fatalf("stderr %q, want it to start with %q", stderr, want)
	}
}

// TestBench runs kiln bench with a fixed number of calls and checks the
// table: a header and one row per tier with the stage columns, the call
// count and a ratio of 1 for the interpreter, the auto tier's row saying
// where its tier-up took it; and its usage errors.
func TestBench(t *testing.T) {
	status, out, errOut := kiln(t, "", "bench", "-n=3", "-func=hyp", "testdata/fact.kasm", "3", "4")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "per call") {
		t.Fatalf("table:\n%s", out)
	}
	for i, tier := range []string{"interp", "baseline", "optimizing", "auto"} {
		f := strings.Fields(lines[i+1])
		if tier == "auto" {
			// The auto tier's row ends with the tier its instance runs
			// in (four calls stay below the default tier-up threshold).
			if n := len(f); n < 2 || f[n-2] != "now" || f[n-1] != "interp" {
				t.Errorf("auto row %q: want it to end with the tier it reached", lines[i+1])
				continue
			}
			f = f[:len(f)-2]
		}
		// tier, load (value, unit), five stages, calls, per call (value, unit), ratio
		if len(f) < 10 || f[0] != tier || f[len(f)-4] != "3" {
			t.Errorf("%s row %q", tier, lines[i+1])
		}
		if tier == "interp" && f[len(f)-1] != "1.000" {
			t.Errorf("interp row %q: ratio is not 1", lines[i+1])
		}
		if tier != "interp" && strings.Count(lines[i+1], "ms") != 7 {
			t.Errorf("%s row %q: want load, five stages and the call in ms", tier, lines[i+1])
		}
	}
	for _, tt := range []struct {
		args    []string
		status  int
		errPart string
	}{
		{[]string{"bench", "-func=nope", "testdata/fact.kasm"}, 1, `no exported function "nope"`},
		{[]string{"bench", "-time=0s", "testdata/fact.kasm"}, 2, "-time must be positive"},
		{[]string{"bench"}, 2, "usage"},
	} {
		status, _, errOut := kiln(t, "", tt.args...)
		if status != tt.status || !strings.Contains(errOut, tt.errPart) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", tt.args, status, errOut, tt.status, tt.errPart)
		}
	}
}
