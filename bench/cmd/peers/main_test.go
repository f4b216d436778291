package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out, errOut strings.Builder
	status := run([]string{"-n=1", "-small", "-sample=1ms", "-min-run=0", "-programs=triangle,kernel/fib",
		"-configs=kiln-interp,wazero-interp,native", "-bf-dir=" + t.TempDir()}, &out, &errOut)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"bf/triangle", "kernel/fib", "kiln-interp", "wazero-interp", "native", "x-wazero"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if strings.Contains(out.String(), "sieve") || strings.Contains(out.String(), "gcc ") {
		t.Error("the output has a program or configuration that was not asked for")
	}
}

// TestRunC runs the C programs at their small arguments and checks both
// tables.
func TestRunC(t *testing.T) {
	var out, errOut strings.Builder
	status := run([]string{"-n=1", "-small", "-sample=1ms", "-min-run=0", "-compile-n=1", "-programs=c/*",
		"-configs=kiln-interp,kiln-optimizing,wazero-compiler,wazero-interp,gcc", "-bf-dir=" + t.TempDir()}, &out, &errOut)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"c/nbody", "c/fannkuchredux", "c/spectralnorm", "c/geomean", "x-wazero-interp",
		"compile time of the C programs' modules", "ns/byte"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if strings.Contains(out.String(), "kernel/") || strings.Contains(out.String(), "bf/") {
		t.Error("the output has a program that was not asked for")
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"-n=0"}, {"-compile-n=0"}, {"extra"}, {"-programs=nosuch"}, {"-configs=nosuch"}} {
		var out, errOut strings.Builder
		if status := run(append(args, "-bf-dir="+t.TempDir()), &out, &errOut); status != 2 {
			t.Errorf("%v: status %d, want 2", args, status)
		}
	}
}
