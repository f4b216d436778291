package interp

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// panicModuleSrc has host calls at known offsets (testprogs.HostPanicPLeaf
// and friends).
const panicModuleSrc = testprogs.HostPanicSource

// leafPanic is what the leaf host function panics with.
const leafPanic = "leaf panicked"

// panicMachine returns a machine running panicModuleSrc under cfg: leaf(x)
// panics with leafPanic when x < 0 (calls runtime.Goexit instead while
// *goexit is set) and returns 2x otherwise; back(x) returns nest(x), called
// on the machine; catch(x) calls nest(x) and returns 1000 when a panic
// reaches it, 2000 when the call fails.
func panicMachine(t testing.TB, cfg Config, goexit *bool) *Machine {
	t.Helper()
	m, err := bc.Assemble([]byte(panicModuleSrc))
	if err != nil {
		t.Fatal(err)
	}
	var mach *Machine
	nest := func(ctx context.Context, x uint64) (uint64, error) {
		res := make([]uint64, 1)
		err := mach.Call(ctx, m.ExportedFunc("nest"), []uint64{x}, res)
		return res[0], err
	}
	leaf := func(_ context.Context, args, results []uint64) error {
		if int64(args[0]) < 0 {
			if goexit != nil && *goexit {
				runtime.Goexit()
			}
			panic(leafPanic)
		}
		results[0] = 2 * args[0]
		return nil
	}
	back := func(ctx context.Context, args, results []uint64) (err error) {
		results[0], err = nest(ctx, args[0])
		return err
	}
	catch := func(ctx context.Context, args, results []uint64) error {
		defer func() {
			if recover() != nil {
				results[0] = 1000
			}
		}()
		if _, err := nest(ctx, args[0]); err != nil {
			results[0] = 2000
		}
		return nil
	}
	mach = newMachine(t, m, cfg, leaf, back, catch)
	return mach
}

// checkMachineIdle checks that no state of an unwound call is left.
func checkMachineIdle(t testing.TB, m *Machine) {
	t.Helper()
	if m.active != 0 || m.numFrames() != 0 || m.sp != 0 || m.hostSite != -1 || m.poll.ctx != nil {
		t.Fatalf("machine not idle: %d active, %d frames, sp %d, host site %d, context %v",
			m.active, m.numFrames(), m.sp, m.hostSite, m.poll.ctx)
	}
}

// machineProbe describes the outcomes of calls that reach the fuel and
// depth limits, nested calls and a host function recovering a nested
// panic; a machine in a good state gives the same text as a fresh one.
func machineProbe(t testing.TB, m *Machine) string {
	t.Helper()
	var b strings.Builder
	for _, c := range []struct {
		name string
		arg  int64
	}{{"loop", 10}, {"loop", 100}, {"loop", 101}, {"deep", 63}, {"deep", 64}, {"p", 5}, {"wrap", 2}, {"loop", 10}} {
		res, err := call(t, m, context.Background(), c.name, uint64(c.arg))
		fmt.Fprintf(&b, "%s(%d) = %v, %v; fuel left %d\n", c.name, c.arg, res, err, m.FuelLeft())
	}
	return b.String()
}

// callPanicking calls name(arg), which must panic, and returns the value.
func callPanicking(t *testing.T, m *Machine, name string, arg int64) (v any) {
	t.Helper()
	defer func() { v = recover() }()
	res, err := call(t, m, context.Background(), name, uint64(arg))
	t.Fatalf("%s(%d) = %v, %v; want a panic", name, arg, res, err)
	return nil
}

var panicConfig = Config{Fuel: 100, MaxCallDepth: 64}

// TestHostPanicUnwindsAndRestores lets host panics propagate out of Call,
// directly and through nested calls: the machine is restored and behaves
// like a fresh one.
func TestHostPanicUnwindsAndRestores(t *testing.T) {
	want := machineProbe(t, panicMachine(t, panicConfig, nil))
	for _, c := range []struct {
		name string
		arg  int64
	}{{"p", -2}, {"nest", 0}, {"nest", 1}, {"nest", 5}} {
		t.Run(fmt.Sprintf("%s(%d)", c.name, c.arg), func(t *testing.T) {
			m := panicMachine(t, panicConfig, nil)
			for i := 0; i < 100; i++ {
				if v := callPanicking(t, m, c.name, c.arg); v != leafPanic {
					t.Fatalf("panic value %#v", v)
				}
				checkMachineIdle(t, m)
			}
			if got := machineProbe(t, m); got != want {
				t.Fatalf("after the panics:\n%s\na fresh machine:\n%s", got, want)
			}
		})
	}
}

// TestHostRecoversNestedPanic has a host function recover the panic of a
// call nested in it: the suspended call resumes with its registers.
func TestHostRecoversNestedPanic(t *testing.T) {
	m := panicMachine(t, panicConfig, nil)
	for _, x := range []int64{0, 1, 4} {
		res, err := call(t, m, context.Background(), "wrap", uint64(x))
		if err != nil || int64(res[0]) != 4*x+7+1000 {
			t.Errorf("wrap(%d) = %v, %v; want %d", x, res, err, 4*x+7+1000)
		}
		checkMachineIdle(t, m)
	}
}

// TestRecoverHostPanic checks Config.RecoverHostPanic: a host panic ends
// the innermost call with a HostPanic trap at the call_host, whose cause
// is what the hook returned for the host import and value.
func TestRecoverHostPanic(t *testing.T) {
	cfg := panicConfig
	cfg.RecoverHostPanic = func(host int, v any) error { return fmt.Errorf("recovered %w", &hookError{host, v}) }
	want := machineProbe(t, panicMachine(t, cfg, nil))
	m := panicMachine(t, cfg, nil)
	minusTwo := int64(-2)
	for i := 0; i < 10_000; i++ {
		_, err := call(t, m, context.Background(), "p", uint64(minusTwo))
		var trap *bc.Trap
		var he *hookError
		if !errors.As(err, &trap) || trap.Kind != bc.TrapHostPanic || trap.FuncName != "p" || trap.Offset != testprogs.HostPanicPLeaf ||
			!errors.As(err, &he) || he.host != 0 || he.value != leafPanic {
			t.Fatalf("p(-2) = %v, want a host panic trap at p+1 from the hook", err)
		}
	}
	checkMachineIdle(t, m)
	for _, depth := range []int{1, 3} {
		_, err := call(t, m, context.Background(), "nest", uint64(depth))
		var trap *bc.Trap
		if !errors.As(err, &trap) || trap.Kind != bc.TrapHostError || trap.Offset != testprogs.HostPanicNestBack {
			t.Fatalf("nest(%d) = %v, want a host error at nest+2", depth, err)
		}
		if inner, d := trap.Innermost(); inner.Kind != bc.TrapHostPanic || inner.Offset != testprogs.HostPanicNestLeaf || d != depth {
			t.Fatalf("nest(%d): innermost trap %v at depth %d", depth, inner, d)
		}
		checkMachineIdle(t, m)
	}
	if got := machineProbe(t, m); got != want {
		t.Fatalf("after the panics:\n%s\na fresh machine:\n%s", got, want)
	}
}

// hookError is the cause TestRecoverHostPanic's hook gives.
type hookError struct {
	host  int
	value any
}

func (e *hookError) Error() string { return fmt.Sprintf("panic of host %d: %v", e.host, e.value) }

// TestHostGoexitRestores has the leaf host function call runtime.Goexit,
// directly and in nested calls, with and without RecoverHostPanic: the
// goroutine ends, and the machine is restored.
func TestHostGoexitRestores(t *testing.T) {
	for _, recoverPanics := range []bool{false, true} {
		cfg := panicConfig
		if recoverPanics {
			cfg.RecoverHostPanic = func(int, any) error { return errors.New("recovered") }
		}
		want := machineProbe(t, panicMachine(t, cfg, nil))
		for _, c := range []struct {
			name string
			arg  int64
		}{{"p", -2}, {"nest", 0}, {"nest", 3}} {
			goexit := true
			m := panicMachine(t, cfg, &goexit)
			returned := make(chan bool, 1)
			go func() {
				defer close(returned)
				res := make([]uint64, 1)
				_ = m.Call(context.Background(), m.Program().Module.ExportedFunc(c.name), []uint64{uint64(c.arg)}, res)
				returned <- true
			}()
			if <-returned {
				t.Fatalf("%s(%d) returned after runtime.Goexit", c.name, c.arg)
			}
			checkMachineIdle(t, m)
			goexit = false
			if got := machineProbe(t, m); got != want {
				t.Fatalf("recover=%v, %s(%d): after runtime.Goexit:\n%s\na fresh machine:\n%s", recoverPanics, c.name, c.arg, got, want)
			}
		}
	}
}
