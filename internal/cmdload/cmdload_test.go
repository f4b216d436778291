package cmdload

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/jit"
)

// TestLoad checks that an interrupt stops a load that does not
// return, and that a load that returns is waited for.
func TestLoad(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	stuck := func(context.Context) (*jit.Module, error) {
		<-release
		return nil, errors.New("released")
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if _, err := Load(ctx, stuck); !errors.Is(err, context.Canceled) || err.Error() != "loading interrupted: context canceled" {
		t.Errorf("stuck load: error %v, want loading interrupted", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the stuck load was abandoned after %v", d)
	}
	want := errors.New("no such module")
	failing := func(context.Context) (*jit.Module, error) { return nil, want }
	if _, err := Load(context.Background(), failing); err != want {
		t.Errorf("failing load: error %v, want %v", err, want)
	}
}
