// Package interrupttest checks that a command-line program stops when it
// is interrupted: the tests of kiln's commands share it.
package interrupttest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Run starts cmd, waits until ready has seen its first output (ready
// reads cmd's standard output; by then the program must have its signal
// handler in place and be running), sends it SIGINT, closes its standard
// input and waits up to a minute for it to end. It returns the exit status
// and what the program wrote to standard error; it fails t when the
// program does not start, is not ready, does not stop in time or does not
// exit with a status.
func Run(t testing.TB, cmd *exec.Cmd, ready func(stdout io.Reader) error) (status int, stderr string) {
	t.Helper()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if err := ready(stdout); err != nil {
		t.Fatalf("%s: not ready: %v", cmd.Path, err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	stdin.Close() // a program waiting for input sees its end, then notices the interrupt
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not stop within a minute of SIGINT", cmd.Path)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("%s ended with %v, stderr %q; want an exit status", cmd.Path, err, errOut.String())
	}
	return exit.ExitCode(), errOut.String()
}
