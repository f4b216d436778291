package lower

import (
	"errors"
	"testing"

	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/mir"
)

// TestLoweredCodeVerifies lowers every test module for the full and the
// baseline target and runs the verifier on the result.
func TestLoweredCodeVerifies(t *testing.T) {
	cases := testprogs.AllCases()
	seen := map[any]bool{}
	for _, target := range []Target{FullTarget(), {}} {
		for _, c := range cases {
			if seen[[2]any{c.Module, target}] {
				continue
			}
			seen[[2]any{c.Module, target}] = true
			funcs, err := Module(c.Module, target)
			if errors.Is(err, ErrUnsupported) && !target.SSE41 {
				continue // rounding needs SSE4.1
			}
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if err := mir.VerifyModule(funcs, HostSigs(c.Module)); err != nil {
				t.Fatalf("%s (target %+v): %v", c.Name, target, err)
			}
		}
	}
}
