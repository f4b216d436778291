package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/wasm/text"
	"github.com/kiln-jit/kiln/wasm/wasi"
)

// signalWriter is an io.Writer, safe for concurrent use, that calls
// signal at the first write.
type signalWriter struct {
	once   sync.Once
	signal func()
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(w.signal)
	return len(p), nil
}

// TestRunWASITimeout runs a program that waits for a file on every
// engine, with a context that has a deadline and is cancelled once the
// program runs (at its first write): kiln's tiers and wazero's interpreter
// stop it with the context's error; wazero's compiler returns that error
// and leaves the run going, which ends when the file appears.
func TestRunWASITimeout(t *testing.T) {
	src, err := os.ReadFile("testdata/wasi/wait-for-stop.wat")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := text.ToBinary(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range testEngines() {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			done := make(chan struct{})
			p := &WASIProgram{Wasm: bin, Args: []string{"wait"},
				Stdout: &signalWriter{signal: func() { close(done) }}, Stderr: &signalWriter{signal: cancel},
				Dirs: []wasi.Preopen{{HostDir: dir, GuestPath: "."}}}
			res, err := RunWASI(ctx, engine, p)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want the context's", err)
			}
			if res.Total < res.Compile || res.Compile <= 0 {
				t.Errorf("compile %v, total %v", res.Compile, res.Total)
			}
			goesOn := strings.Contains(err.Error(), "the run goes on")
			if goesOn != (engine == Wazero) {
				t.Errorf("error %q: the run goes on only on wazero's compiler", err)
			}
			if err := os.WriteFile(filepath.Join(dir, "stop"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if goesOn {
				<-done // the run left going ends
			}
		})
	}
}
