package wasm

import (
	"testing"

	"github.com/kiln-jit/kiln/internal/crashlog"
)

// TestMain records a crash of this test process, a fuzzing worker's
// included, in a file (crashlog.TestMain).
func TestMain(m *testing.M) { crashlog.TestMain(m) }
