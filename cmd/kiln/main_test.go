package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
		{[]string{"run", "testdata/fact.kasm"}, 2, "", "main (i64) -> (i64): takes 1 arguments, got 0"},
		{[]string{"run", "testdata/fact.kasm", "x"}, 2, "", `argument 1: "x" is not an i64`},
		{[]string{"run", "-func=hyp", "testdata/fact.kasm", "1", "y"}, 2, "", `argument 2: "y" is not an f64`},
		{[]string{"run", "-func=nope", "testdata/fact.kasm"}, 1, "", `exports no function "nope"`},
		{[]string{"run", "-tier=warp", "testdata/fact.kasm", "1"}, 2, "", "unknown tier"},
		{[]string{"run", "testdata/badhost.kasm"}, 1, "", `imports host function "launch"`},
		{[]string{"run", "testdata/broken.kasm"}, 1, "", "line 2: func main: instruction 0 (i64.add): destination register r0 out of range"},
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
	if status, _, errOut := kiln(t, "", "verify", "testdata/broken.kasm"); status != 1 || !strings.Contains(errOut, "broken.kasm: line 2") {
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
