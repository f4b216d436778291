package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// wasmTestdata holds the front end's test modules; helloWasm is a WASI
// command built from C (examples/wasm/testdata/README.md).
var (
	wasmTestdata = filepath.Join("..", "..", "wasm", "testdata")
	helloDir     = filepath.Join("..", "..", "examples", "wasm", "testdata")
	helloWasm    = filepath.Join(helloDir, "hello.wasm")
	helloRust    = filepath.Join(helloDir, "hello_rs.wasm")
)

// writeFile writes data to a file named name in a temporary directory
// and returns its path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWasmRunCommand runs the WASI command built from C: its output,
// arguments, environment, directories and exit status.
func TestWasmRunCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		status int
		stdout string
		stderr string // a regular expression
	}{
		{"hello", []string{helloWasm}, 0, "hello from " + helloWasm + "\n15 squared is 225\n", "^$"},
		{"arguments and exit status", []string{helloWasm, "a", "b c"}, 3,
			"hello from " + helloWasm + "\narg 1: a\narg 2: b c\n15 squared is 225\n", "^$"},
		{"environment", []string{"-env", "WHO=kiln", "-env=OTHER=1", helloWasm}, 0,
			"hello from " + helloWasm + "\nWHO=kiln\n15 squared is 225\n", "^$"},
		{"directory", []string{"-dir", helloDir + ":/data", "-env", "FILE=/data/greeting.txt", helloWasm}, 0,
			"hello from " + helloWasm + "\n/data/greeting.txt: a greeting\n15 squared is 225\n", "^$"},
		{"directory under its own name", []string{"-dir", helloDir, "-env", "FILE=" + helloDir + "/greeting.txt", helloWasm}, 0,
			"hello from " + helloWasm + "\n" + helloDir + "/greeting.txt: a greeting\n15 squared is 225\n", "^$"},
		{"no directory", []string{"-env", "FILE=/data/greeting.txt", helloWasm}, 1,
			"hello from " + helloWasm + "\n", "^/data/greeting.txt: Capabilities insufficient\n$"},
		{"Rust", []string{"-env", "WHO=kiln", helloRust, "x"}, 0,
			"hello from " + helloRust + " (Rust)\narg 1: x\nWHO=kiln\nthe squares of 1 to 10 add up to 385\n", "^$"},
		{"Rust exit status", []string{helloRust, "x", "y"}, 3,
			"hello from " + helloRust + " (Rust)\narg 1: x\narg 2: y\nthe squares of 1 to 10 add up to 385\n", "^$"},
		{"-invoke of a command", []string{"-invoke=nope", helloWasm}, 2, "", `no exported function "nope" \(exports: "memory"|"_start"\)`},
		{"bad -env", []string{"-env", "=x", helloWasm}, 2, "", `want KEY=VALUE`},
		{"bad -dir", []string{"-dir", ":/x", helloWasm}, 2, "", `want HOST or HOST:GUEST`},
		{"missing -dir", []string{"-dir", "/nonexistent-kiln-dir", helloWasm}, 1, "", `WASI: .*nonexistent-kiln-dir`},
	}
	for _, tier := range []string{"interp", "baseline", "optimizing", "auto"} {
		for _, tt := range tests {
			t.Run(tier+"/"+tt.name, func(t *testing.T) {
				status, out, errOut := kiln(t, "", append([]string{"wasm", "run", "-tier=" + tier}, tt.args...)...)
				if status != tt.status || out != tt.stdout || !regexp.MustCompile(tt.stderr).MatchString(errOut) {
					t.Errorf("status %d, stdout %q, stderr %q; want %d, %q, stderr matching %q", status, out, errOut, tt.status, tt.stdout, tt.stderr)
				}
			})
		}
	}
}

// TestWasmRunInvoke calls exports of modules that are no WASI commands.
func TestWasmRunInvoke(t *testing.T) {
	ops := filepath.Join(wasmTestdata, "ops.wasm")
	bad := writeFile(t, "bad.wasm", "\x00asm\x01\x00\x00\x00\x01\x05")
	badText := writeFile(t, "bad.wat", "(module\n  (func (i32.nope)))")
	print := writeFile(t, "print.wat", `(module
  (import "env" "print_i32" (func $print (param i32)))
  (import "env" "print_f64" (func $printf (param f64)))
  (func $start (call $print (i32.const -7)))
  (func (export "show") (param i32) (call $print (local.get 0)) (call $printf (f64.const 0.5)))
  (start $start))`)
	importsMemory := writeFile(t, "mem.wat", `(module
  (import "env" "memory" (memory 1))
  (func (export "size") (result i32) (memory.size)))`)
	spin := writeFile(t, "spin.wat", `(module (func (export "spin") (loop $l (br $l))))`)
	tests := []struct {
		name   string
		args   []string
		status int
		stdout string
		stderr string // a regular expression
	}{
		{"i32", []string{"-invoke=add", ops, "2", "40"}, 0, "42\n", "^$"},
		{"negative i32", []string{"-invoke=sub_imm", ops, "3"}, 0, "-2\n", "^$"},
		{"unsigned i32 argument", []string{"-invoke=convert_u", ops, "4294967295"}, 0, "4.294967295e+09\n", "^$"},
		{"hexadecimal argument", []string{"-invoke=add", ops, "0x10", "-1"}, 0, "15\n", "^$"},
		{"i64", []string{"-invoke=fac", ops, "20"}, 0, "2432902008176640000\n", "^$"},
		{"negative i64", []string{"-invoke=extend_s", ops, "-5"}, 0, "-5\n", "^$"},
		{"f64", []string{"-invoke=fmix", ops, "2", "-9"}, 0, "-15\n", "^$"},
		{"f32", []string{"-invoke=demote", ops, "0.1"}, 0, "0.1\n", "^$"},
		{"nan", []string{"-invoke=nearest", ops, "nan"}, 0, "NaN\n", "^$"},
		{"no results", []string{"-invoke=unreachable", ops}, 1, "", `trap: unreachable in f\d+_unreachable at byte 0x[0-9a-f]+\n$`},
		{"trap", []string{"-tier=optimizing", "-invoke=div_s", ops, "1", "0"}, 1, "", `ops.wasm: wasm: call "div_s": trap: integer divide by zero in f\d+_div_s at byte 0x[0-9a-f]+\n$`},
		{"out of bounds", []string{"-tier=baseline", "-invoke=load_big_offset", ops, "0"}, 1, "", `trap: out of bounds memory access`},
		{"stack exhausted", []string{"-invoke=recurse", ops, "0"}, 1, "", `trap: call stack exhausted`},
		{"fuel", []string{"-fuel=100", "-invoke=sum_to", ops, "1000"}, 1, "", `trap: fuel exhausted .*\(-fuel=100\)`},
		{"timeout", []string{"-timeout=50ms", spin}, 1, "", `spin.wat: .*context deadline exceeded \(-timeout=50ms\)`},
		{"imports and start", []string{print, "5"}, 0, "-7\n5\n0.5\n", "^$"},
		{"imported memory", []string{importsMemory}, 0, "1\n", "^$"},
		{"only export", []string{filepath.Join(wasmTestdata, "fannkuchredux.wasm"), "5"}, 0, "47244640263\n", "^$"},
		{"memory cap", []string{"-max-memory-pages=1", "-invoke=grow", ops, "1"}, 0, "-1\n", "^$"},
		{"memory cap below the minimum", []string{"-max-memory-pages=1", filepath.Join(wasmTestdata, "nbody.wasm"), "1"}, 1, "", `the module needs \d+ memory pages; the engine allows 1`},
		{"several exports", []string{ops, "1"}, 2, "", `the module exports several functions and no _start; choose one with -invoke \(exports: "add", `},
		{"unknown export", []string{"-invoke=nope", ops}, 2, "", `no exported function "nope" \(exports: "add", `},
		{"argument count", []string{"-invoke=add", ops, "1"}, 2, "", `add \[i32 i32\] -> \[i32\]: takes 2 arguments, got 1`},
		{"bad argument", []string{"-invoke=add", ops, "1", "x"}, 2, "", `argument 2: "x" is not an i32`},
		{"i32 out of range", []string{"-invoke=add", ops, "1", "4294967296"}, 2, "", `argument 2: "4294967296" is not an i32`},
		{"bad tier", []string{"-tier=fast", ops}, 2, "", `unknown tier`},
		{"no module", nil, 2, "", `usage:`},
		{"missing file", []string{"/nonexistent.wasm"}, 1, "", `no such file`},
		{"malformed", []string{bad}, 1, "", `bad.wasm: wasm: compile module: malformed module: section type: at byte 0xa: length out of bounds`},
		{"empty", []string{writeFile(t, "empty.wasm", "")}, 1, "", `empty.wasm: wasm: compile module: empty input`},
		{"two bytes", []string{writeFile(t, "two.wasm", "\x00a")}, 1, "", `two.wasm: .*at byte 0x2: unexpected end\n$`},
		{"four bytes", []string{writeFile(t, "four.wasm", "\x00asm")}, 1, "", `four.wasm: .*at byte 0x4: unexpected end\n$`},
		{"text format", []string{"-invoke=add", filepath.Join(wasmTestdata, "ops.wat"), "2", "40"}, 0, "42\n", "^$"},
		{"malformed text", []string{badText}, 1, "", `bad.wat:2:10: unknown operator "i32.nope"\n$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out, errOut := kiln(t, "", append([]string{"wasm", "run"}, tt.args...)...)
			if status != tt.status || out != tt.stdout || !regexp.MustCompile(tt.stderr).MatchString(errOut) {
				t.Errorf("status %d, stdout %q, stderr %q; want %d, %q, stderr matching %q", status, out, errOut, tt.status, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestWasmTiersAgree runs a few exports of ops.wasm on every tier and
// compares the outputs.
func TestWasmTiersAgree(t *testing.T) {
	ops := filepath.Join(wasmTestdata, "ops.wasm")
	for _, call := range [][]string{{"fib", "15"}, {"fmix", "1e300", "-1e-300"}, {"trunc_u64", "1e19"}, {"br_table_value", "2"}} {
		var outs []string
		for _, tier := range []string{"interp", "baseline", "optimizing"} {
			_, out, errOut := kiln(t, "", append([]string{"wasm", "run", "-tier=" + tier, "-invoke=" + call[0], ops}, call[1:]...)...)
			outs = append(outs, out+errOut)
		}
		if outs[0] != outs[1] || outs[0] != outs[2] {
			t.Errorf("%s: the tiers disagree: %q", strings.Join(call, " "), outs)
		}
	}
}

// TestWasmCompile checks that kiln wasm compile prints every stage.
func TestWasmCompile(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		status int
		stdout []string // regular expressions, each matching a line in order
		stderr string
	}{
		{[]string{helloWasm}, 0, []string{
			`^` + regexp.QuoteMeta(helloWasm) + `: \d+ bytes, \d+ functions; \d+ instructions of kiln bytecode compiled to \d+ bytes of machine code \(optimizing\)$`,
			`^decode +\d+\.\d{3} ms +\d+\.\d ns/byte$`,
			`^validate +\d+\.\d{3} ms +\d+\.\d ns/byte$`,
			`^translate +\d+\.\d{3} ms +\d+\.\d ns/byte$`,
			`^compile +\d+\.\d{3} ms +\d+\.\d ns/byte$`,
			`^total +\d+\.\d{3} ms +\d+\.\d ns/byte$`,
			`^compile: tier optimizing, \d+ functions`,
		}, "^$"},
		{[]string{"-tier=baseline", filepath.Join(wasmTestdata, "ops.wat")}, 0, []string{
			`\(baseline\)$`, `^parse text `, `^decode `, `^validate `, `^translate `, `^compile `, `^total `, `^compile: tier baseline,`,
		}, "^$"},
		{[]string{"-tier=interp", helloWasm}, 2, nil, `-tier=interp compiles nothing`},
		{[]string{writeFile(t, "empty.wasm", "")}, 1, nil, `empty.wasm: empty file`},
		{[]string{writeFile(t, "bad.wat", "(module (func (i32.nope)))")}, 1, nil, `bad.wat:1:16: unknown operator`},
		{nil, 2, nil, "usage:"},
	} {
		status, out, errOut := kiln(t, "", append([]string{"wasm", "compile"}, tt.args...)...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		ok := status == tt.status && regexp.MustCompile(tt.stderr).MatchString(errOut)
		if tt.stdout == nil {
			ok = ok && out == ""
		} else {
			ok = ok && len(lines) == len(tt.stdout)
			for i := 0; ok && i < len(lines); i++ {
				ok = regexp.MustCompile(tt.stdout[i]).MatchString(lines[i])
			}
		}
		if !ok {
			t.Errorf("kiln wasm compile %q = %d, stdout %q, stderr %q", tt.args, status, out, errOut)
		}
	}
}

// TestHelp: -h of every command prints its help and exits 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{
		{"-h"}, {"help"}, {"run", "-h"}, {"dump", "-h"}, {"bench", "-h"}, {"asm", "-h"}, {"disasm", "-h"},
		{"verify", "-h"}, {"wasm", "-h"}, {"wasm", "run", "-h"}, {"wasm", "compile", "-help"},
	} {
		status, out, errOut := kiln(t, "", args...)
		if status != 0 || strings.Contains(errOut, "help requested") || !strings.Contains(out+errOut, "usage") {
			t.Errorf("kiln %q = %d, stdout %q, stderr %q", args, status, out, errOut)
		}
	}
	if status, _, errOut := kiln(t, "", "wasm", "frob"); status != 2 || !strings.Contains(errOut, `unknown command "frob"`) {
		t.Errorf("kiln wasm frob = %d, %q", status, errOut)
	}
}

// TestWasmInterrupt: Ctrl-C stops a running module, and kiln exits with
// status 130.
func TestWasmInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	spin := writeFile(t, "spin.wat", `(module
  (import "env" "print_i32" (func $print (param i32)))
  (func (export "spin") (call $print (i32.const 1)) (loop $l (br $l))))`)
	for _, tier := range []string{"interp", "optimizing"} {
		t.Run(tier, func(t *testing.T) {
			// spin prints 1 before its loop: by then the signal handler
			// is in place and the call is running.
			interruptKiln(t, "kiln: interrupted: "+spin+`: wasm: call "spin": trap: interrupted in `, "wasm", "run", "-tier="+tier, spin)
		})
	}
}

// TestErrorPositions: an error in a text module reads FILE:LINE: (and
// FILE:LINE:COL: for the WebAssembly text format) in every command, and
// a function that is not exported is reported with those that are.
func TestErrorPositions(t *testing.T) {
	const broken = "testdata/broken.kasm:2: func main: instruction 0 (i64.add): destination register r0 out of range"
	const exports = `(exports: "main" (i64) -> (i64), "hyp" (f64 f64) -> (f64), "boom" (i64) -> (i64))`
	badWat := writeFile(t, "bad.wat", "(module\n  (func\n    (i32.bogus)))")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "testdata/broken.kasm"}, "kiln: " + broken},
		{[]string{"verify", "testdata/broken.kasm"}, "kiln: " + broken},
		{[]string{"dump", "testdata/broken.kasm"}, "kiln: " + broken},
		{[]string{"bench", "-n=1", "testdata/broken.kasm"}, "kiln: " + broken},
		{[]string{"run", "-func=nope", "testdata/fact.kasm"}, `exports no function "nope" ` + exports},
		{[]string{"bench", "-n=1", "-func=nope", "testdata/fact.kasm", "1"}, `no exported function "nope" ` + exports},
		{[]string{"dump", "-func=nope", "testdata/fact.kasm"}, `has no function "nope" (functions: "main", "hyp", "boom")`},
		{[]string{"dump", "-html=" + filepath.Join(t.TempDir(), "x.html"), "-func=nope", "testdata/fact.kasm"}, `has no function "nope" (functions: "main", "hyp", "boom")`},
		{[]string{"wasm", "run", badWat}, "kiln: " + badWat + `:3:6: unknown operator "i32.bogus"`},
		{[]string{"wasm", "compile", badWat}, "kiln: " + badWat + `:3:6: unknown operator "i32.bogus"`},
	} {
		status, _, errOut := kiln(t, "", tt.args...)
		if status != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("kiln %q = %d, stderr %q; want %q", tt.args, status, errOut, tt.want)
		}
	}
}
