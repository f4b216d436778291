package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// testdata is the front end's test data, which holds the example
// modules too.
var testdata = filepath.Join("..", "..", "wasm", "testdata")

var tierNames = []string{"interp", "baseline", "optimizing"}

func runCommand(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runContext(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestPrograms runs the Benchmarks Game programs at small sizes on every
// tier and checks that the results are the native program's.
func TestPrograms(t *testing.T) {
	tests := []struct {
		file, n, want string
	}{
		{"nbody.wasm", "1000", "-0.16908760523460614\n"},
		{"fannkuchredux.wasm", "7", "979252543504\n"},
		{"spectralnorm.wasm", "100", "1.2742199912349306\n"},
	}
	for _, tc := range tests {
		for _, tier := range tierNames {
			t.Run(tc.file+"/"+tier, func(t *testing.T) {
				code, out, errOut := runCommand("-tier="+tier, filepath.Join(testdata, tc.file), tc.n)
				if code != exitOK || out != tc.want {
					t.Errorf("exit %d, output %q, errors %q; want %q", code, out, errOut, tc.want)
				}
			})
		}
	}
}

// printModule writes a module in the text format that imports
// env.print_i32 and calls it from its start function and from an export,
// and returns its path.
func printModule(t *testing.T) string {
	const src = `(module
  (import "env" "print_i32" (func $print (param i32)))
  (func $start (call $print (i32.const -7)))
  (func (export "show") (param i32) (call $print (local.get 0)))
  (start $start))`
	path := filepath.Join(t.TempDir(), "print.wat")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCommand(t *testing.T) {
	ops := filepath.Join(testdata, "ops.wasm")
	bad := filepath.Join(t.TempDir(), "bad.wasm")
	if err := os.WriteFile(bad, []byte("\x00asm\x01\x00\x00\x00\x01\x05"), 0o644); err != nil {
		t.Fatal(err)
	}
	badText := filepath.Join(t.TempDir(), "bad.wat")
	if err := os.WriteFile(badText, []byte("(func (i32.nope))"), 0o644); err != nil {
		t.Fatal(err)
	}
	print := printModule(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string // a regular expression the standard error must match
	}{
		{"i32", []string{"-invoke=add", ops, "2", "40"}, exitOK, "42\n", "^$"},
		{"negative i32", []string{"-invoke=sub_imm", ops, "3"}, exitOK, "-2\n", "^$"},
		{"unsigned i32 argument", []string{"-invoke=convert_u", ops, "4294967295"}, exitOK, "4.294967295e+09\n", "^$"},
		{"hexadecimal argument", []string{"-invoke=add", ops, "0x10", "-1"}, exitOK, "15\n", "^$"},
		{"i64", []string{"-invoke=fac", ops, "20"}, exitOK, "2432902008176640000\n", "^$"},
		{"negative i64", []string{"-invoke=extend_s", ops, "-5"}, exitOK, "-5\n", "^$"},
		{"f64", []string{"-invoke=fmix", ops, "2", "-9"}, exitOK, "-15\n", "^$"},
		{"f32", []string{"-invoke=demote", ops, "0.1"}, exitOK, "0.1\n", "^$"},
		{"nan", []string{"-invoke=nearest", ops, "nan"}, exitOK, "NaN\n", "^$"},
		{"no results", []string{"-invoke=unreachable", ops}, exitError, "", `trap: unreachable in f\d+_unreachable at byte 0x[0-9a-f]+\n$`},
		{"trap", []string{"-tier=optimizing", "-invoke=div_s", ops, "1", "0"}, exitError, "", `ops.wasm: trap: integer divide by zero in f\d+_div_s at byte 0x[0-9a-f]+\n$`},
		{"out of bounds", []string{"-tier=baseline", "-invoke=load_big_offset", ops, "0"}, exitError, "", `trap: out of bounds memory access`},
		{"stack exhausted", []string{"-invoke=recurse", ops, "0"}, exitError, "", `trap: call stack exhausted`},
		{"fuel", []string{"-fuel=100", "-invoke=sum_to", ops, "1000"}, exitError, "", `trap: fuel exhausted`},
		{"imports and start", []string{print, "5"}, exitOK, "-7\n5\n", "^$"},
		{"only export", []string{filepath.Join(testdata, "fannkuchredux.wasm"), "5"}, exitOK, "47244640263\n", "^$"},
		{"memory cap", []string{"-max-memory-pages=1", "-invoke=grow", ops, "1"}, exitOK, "-1\n", "^$"},
		{"memory cap below the minimum", []string{"-max-memory-pages=1", filepath.Join(testdata, "nbody.wasm"), "1"}, exitError, "", `the module needs \d+ memory pages; the engine allows 1`},
		{"several exports", []string{ops, "1"}, exitUsage, "", `the module exports several functions; choose one with -invoke`},
		{"unknown export", []string{"-invoke=nope", ops}, exitUsage, "", `no exported function "nope"`},
		{"argument count", []string{"-invoke=add", ops, "1"}, exitUsage, "", `add takes 2 arguments \[i32 i32\] -> \[i32\], got 1`},
		{"bad argument", []string{"-invoke=add", ops, "1", "x"}, exitUsage, "", `argument 2: "x" is not an i32`},
		{"i32 out of range", []string{"-invoke=add", ops, "1", "4294967296"}, exitUsage, "", `argument 2: "4294967296" is not an i32`},
		{"bad tier", []string{"-tier=fast", ops}, exitUsage, "", `unknown tier`},
		{"no module", nil, exitUsage, "", `usage: wasm`},
		{"missing file", []string{"/nonexistent.wasm"}, exitError, "", `no such file`},
		{"malformed", []string{bad}, exitError, "", `bad.wasm: malformed module: section type: at byte 0xa: length out of bounds`},
		{"text format", []string{"-invoke=add", filepath.Join(testdata, "ops.wat"), "2", "40"}, exitOK, "42\n", "^$"},
		{"malformed text", []string{badText}, exitError, "", `bad.wat: text format: 1:8: unknown operator "i32.nope"\n$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCommand(tc.args...)
			if code != tc.code || out != tc.stdout {
				t.Errorf("exit %d, output %q; want %d, %q (errors %q)", code, out, tc.code, tc.stdout, errOut)
			}
			if !regexp.MustCompile(tc.stderr).MatchString(errOut) {
				t.Errorf("errors %q do not match %q", errOut, tc.stderr)
			}
		})
	}
}

// TestTiersAgree runs a few exports of ops.wasm on every tier through the
// command and compares the outputs.
func TestTiersAgree(t *testing.T) {
	ops := filepath.Join(testdata, "ops.wasm")
	for _, call := range [][]string{{"fib", "15"}, {"fmix", "1e300", "-1e-300"}, {"trunc_u64", "1e19"}, {"br_table_value", "2"}} {
		var outs []string
		for _, tier := range tierNames {
			_, out, errOut := runCommand(append([]string{"-tier=" + tier, "-invoke=" + call[0], ops}, call[1:]...)...)
			outs = append(outs, out+errOut)
		}
		if outs[0] != outs[1] || outs[0] != outs[2] {
			t.Errorf("%s: the tiers disagree: %q", strings.Join(call, " "), outs)
		}
	}
}
