package wasm

import (
	"fmt"
	"os"
	"testing"

	"github.com/kiln-jit/kiln/internal/crashlog"
)

// TestMain records a crash of this test process, a fuzzing worker's
// included, in a file (package internal/crashlog): go test -fuzz discards
// a worker's standard error, and with it the text of a fatal error.
func TestMain(m *testing.M) {
	stop, err := crashlog.Start(os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}
