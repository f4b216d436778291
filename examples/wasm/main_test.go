package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/wasm"
)

var helloWasm = filepath.Join("testdata", "hello.wasm")

// TestRun runs the example in the test process.
func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdout   string
		exitCode uint32 // of the WASI program
		errPart  string
	}{
		{"host function", nil, "log: 2\nadd(2, 40) = 42\n", 0, ""},
		{"WASI program", []string{helloWasm, "x"}, "hello from " + helloWasm + "\narg 1: x\n15 squared is 225\n", 0, ""},
		{"WASI exit status", []string{helloWasm, "x", "y"}, "hello from " + helloWasm + "\narg 1: x\narg 2: y\n15 squared is 225\n", 3, ""},
		{"missing file", []string{"testdata/none.wasm"}, "", 0, "no such file"},
		{"not a module", []string{"testdata/hello.c"}, "", 0, "testdata/hello.c: wasm: compile module: text format: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader(""), &out, &errOut)
			var exit *wasm.ExitError
			switch {
			case tt.errPart != "":
				if err == nil || !strings.Contains(err.Error(), tt.errPart) {
					t.Errorf("error %v, want one containing %q", err, tt.errPart)
				}
			case tt.exitCode != 0:
				if !errors.As(err, &exit) || exit.Code != tt.exitCode {
					t.Errorf("error %v, want exit status %d", err, tt.exitCode)
				}
			case err != nil:
				t.Errorf("error %v", err)
			}
			if out.String() != tt.stdout {
				t.Errorf("output %q, want %q", out.String(), tt.stdout)
			}
		})
	}
}

// TestBuild builds the example and runs the program.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	exe := filepath.Join(t.TempDir(), "wasm")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	if out, err := exec.Command(goTool, "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).CombinedOutput()
	if err != nil || string(out) != "log: 2\nadd(2, 40) = 42\n" {
		t.Errorf("the example: %v, output %q", err, out)
	}
	cmd := exec.Command(exe, helloWasm, "a", "b")
	out, err = cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.HasPrefix(string(out), "hello from ") {
		t.Errorf("the WASI program: %v, output %q; want exit status 3", err, out)
	}
}
