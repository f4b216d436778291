// Package crashlog keeps the text of a test process's crash: an
// unrecovered panic or a fatal runtime error (Go's stack overflow, a
// fault in machine code) that ends the process with exit status 2.
//
// go test -fuzz runs the fuzz target in worker processes and discards
// their standard error, so when a worker dies the coordinator reports
// only "fuzzing process hung or terminated unexpectedly: exit status 2"
// and an input that often passes when run alone. With Start in the test
// binary's TestMain, every process (coordinator and workers) also writes
// a crash to a file of its own (runtime/debug.SetCrashOutput), named by
// its parent's process ID and its own, in Dir; at the end of the run the
// coordinator prints what its workers wrote and says where the files are.
package crashlog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// DirEnv names the environment variable that overrides Dir.
const DirEnv = "KILN_CRASH_DIR"

// Dir returns the directory crash files go to: $KILN_CRASH_DIR, or
// kiln-crashes in the system's temporary directory.
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "kiln-crashes")
}

// fileName returns the name of the crash file of process pid, a child of
// process ppid.
func fileName(ppid, pid int) string { return fmt.Sprintf("crash-%d-%d.txt", ppid, pid) }

// Start makes the runtime copy a crash of this process to its file in
// Dir, and returns the function to call when the process is about to
// exit normally: it removes the file if nothing was written to it and
// prints to w (the coordinator's standard error, say) the crashes that
// this process's children recorded. A failure to set up the file is
// returned; the process then runs without it.
func Start(w io.Writer) (stop func(), err error) {
	dir := Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() {}, fmt.Errorf("crashlog: %w", err)
	}
	path := filepath.Join(dir, fileName(os.Getppid(), os.Getpid()))
	f, err := os.Create(path)
	if err != nil {
		return func() {}, fmt.Errorf("crashlog: %w", err)
	}
	if err := debug.SetCrashOutput(f, debug.CrashOptions{}); err != nil {
		f.Close()
		os.Remove(path)
		return func() {}, fmt.Errorf("crashlog: %w", err)
	}
	return func() {
		_ = debug.SetCrashOutput(nil, debug.CrashOptions{})
		if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
			os.Remove(path)
		}
		f.Close()
		reportChildren(w, dir, os.Getpid())
	}, nil
}

// reportChildren prints the crash files in dir of the children of
// process pid.
func reportChildren(w io.Writer, dir string, pid int) {
	matches, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("crash-%d-*.txt", pid)))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil || len(b) == 0 {
			os.Remove(m)
			continue
		}
		fmt.Fprintf(w, "crashlog: a child process crashed; its crash output (kept in %s):\n%s\n", m, strings.TrimRight(string(b), "\n"))
	}
}

// TestMain is a test package's TestMain that records a crash of the test
// process, a fuzzing worker's included (go test -fuzz discards a
// worker's standard error, and with it the text of a fatal error): it
// runs the tests between Start and its stop function, reporting to
// standard error, and exits with their status. m is the package's
// *testing.M.
func TestMain(m interface{ Run() int }) {
	stop, err := Start(os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}
