package crashlog

import (
	"bytes"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// crashEnv makes the test binary, run as a child, crash on purpose.
const crashEnv = "KILN_CRASHLOG_TEST_CRASH"

// TestCrashRecorded runs this test binary as a child that records its
// crash with Start and then dies of a fatal error (a stack overflow,
// which no deferred function survives), and checks that the parent's
// stop function prints the child's crash text and keeps its file.
func TestCrashRecorded(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		if _, err := Start(os.Stderr); err != nil {
			t.Fatal(err)
		}
		debug.SetMaxStack(1 << 20)
		var recurse func(n int) int
		recurse = func(n int) int { return recurse(n+1) + 1 }
		recurse(0)
		return
	}
	dir := t.TempDir()
	t.Setenv(DirEnv, dir)
	var report bytes.Buffer
	stop, err := Start(&report)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashRecorded$")
	cmd.Env = append(os.Environ(), crashEnv+"=1")
	cmd.Stderr = new(bytes.Buffer) // discarded, as the fuzzing coordinator discards a worker's
	if err := cmd.Run(); err == nil {
		t.Fatal("the child did not crash")
	}
	stop()
	// The runtime writes the goroutines' stacks to the crash output (the
	// "fatal error" line goes to standard error only).
	if !strings.Contains(report.String(), "runtime.newstack") || !strings.Contains(report.String(), "TestCrashRecorded.func1") {
		t.Fatalf("the child's crash was not reported; got:\n%.2000s", report.String())
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("%d files left in the crash directory, want the child's one", len(left))
	}
}
