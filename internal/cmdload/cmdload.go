// Package cmdload holds what kiln's commands share to stop at once on
// Ctrl-C: a context that an interrupt cancels, and loading a module under
// it.
package cmdload

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/kiln-jit/kiln/jit"
)

// Load runs load on a goroutine of its own and returns what it returns,
// or the context's error as soon as ctx is done, whichever comes first.
// Loading checks its context between functions and compile stages, and
// one stage of a very large function can run for long; an abandoned load
// finishes in the background while the command exits. It suits a command
// about to exit, not a long-running process.
func Load(ctx context.Context, load func(context.Context) (*jit.Module, error)) (*jit.Module, error) {
	type loaded struct {
		mod *jit.Module
		err error
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("loading interrupted: %w", err)
	}
	done := make(chan loaded, 1)
	go func() {
		mod, err := load(ctx)
		done <- loaded{mod, err}
	}()
	select {
	case r := <-done:
		return r.mod, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("loading interrupted: %w", ctx.Err())
	}
}

// NotifyInterrupt returns a context that the first interrupt (Ctrl-C)
// cancels; from then on a second interrupt gets the default behaviour back
// and ends the process at once. stop releases the signal handler.
func NotifyInterrupt() (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
