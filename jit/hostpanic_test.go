package jit

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/runtime"
)

// panicSrc is the module of the host panic tests.
const panicSrc = testprogs.HostPanicSource

// Offsets of the host calls in panicSrc.
const (
	pLeafOffset    = testprogs.HostPanicPLeaf
	nestBackOffset = testprogs.HostPanicNestBack
	nestLeafOffset = testprogs.HostPanicNestLeaf
)

// errPanicValue is an error value host functions panic with.
var errPanicValue = errors.New("panic value")

// panicPlease is the value the default leaf panics with.
const panicPlease = "leaf panicked"

// panicEnv holds the behaviour of panicSrc's host functions, which a test
// may change between calls.
type panicEnv struct {
	leaf, back, catch func(c *Caller, x int64) (int64, error)
}

// panicWith panics with v; stack traces of the panic start here.
//
//go:noinline
func panicWith(v any) { panic(v) }

// newPanicEnv returns the default behaviour: leaf(x) panics with
// panicPlease when x < 0 and returns 2x otherwise; back(x) returns
// nest(x), called through its Caller, or that call's error; catch(x)
// returns 2000 when nest(x) fails and 1000 when a panic reaches it.
func newPanicEnv() *panicEnv {
	return &panicEnv{
		leaf: func(_ *Caller, x int64) (int64, error) {
			if x < 0 {
				panicWith(panicPlease)
			}
			return 2 * x, nil
		},
		back: func(c *Caller, x int64) (int64, error) {
			r, err := c.Call("nest", I64(x))
			if err != nil {
				return 0, err
			}
			return int64(r[0]), nil
		},
		catch: func(c *Caller, x int64) (res int64, err error) {
			defer func() {
				if recover() != nil {
					res = 1000
				}
			}()
			if _, err := c.Call("nest", I64(x)); err != nil {
				return 2000, nil
			}
			return 0, nil
		},
	}
}

func (e *panicEnv) imports() Imports {
	host := func(f *func(c *Caller, x int64) (int64, error)) HostFunction {
		return RawHost(sigI64, sigI64, func(c *Caller, args, results []uint64) error {
			r, err := (*f)(c, int64(args[0]))
			results[0] = uint64(r)
			return err
		})
	}
	return Imports{"leaf": host(&e.leaf), "back": host(&e.back), "catch": host(&e.catch)}
}

// panicConfigs returns the tier configurations the host panic tests run
// in: every configuration of tierConfigs this platform can run.
func panicConfigs() []tierConfig {
	var cfgs []tierConfig
	for _, cfg := range tierConfigs {
		if cfg.opts.Tier != TierInterp && !runtime.Supported() {
			continue
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs
}

// panicLimits are the options of most host panic tests: a fuel budget
// a 10-iteration loop fits in ten times, and a call depth a recursion
// can come close to within that budget.
var panicLimits = Options{Fuel: 100, MaxCallDepth: 64}

// newPanicInstance instantiates mod with a fresh panicEnv.
func newPanicInstance(t testing.TB, mod *Module) (*Instance, *panicEnv) {
	t.Helper()
	env := newPanicEnv()
	inst, err := mod.Instantiate(env.imports())
	if err != nil {
		t.Fatal(err)
	}
	return inst, env
}

// checkIdle checks the instance's call state between calls: nothing may be
// left over from an unwound call.
func checkIdle(t testing.TB, inst *Instance) {
	t.Helper()
	if inst.busy.Load() {
		t.Error("the instance is still busy")
	}
	if inst.callerDepth != 0 {
		t.Errorf("the Caller nesting depth is %d", inst.callerDepth)
	}
	if c := inst.compiled; c != nil {
		if c.active != 0 || c.hostTop != 0 || c.thread.Ctx.Depth != 0 {
			t.Errorf("compiled state: %d active entries, %d host words, depth %d", c.active, c.hostTop, c.thread.Ctx.Depth)
		}
	}
}

// maxDeep returns the largest n for which deep(n) succeeds on inst.
func maxDeep(t testing.TB, inst *Instance) int64 {
	t.Helper()
	for n := int64(panicLimits.MaxCallDepth); n > 0; n-- {
		if _, err := inst.Call(context.Background(), "deep", I64(n)); err == nil {
			return n
		}
	}
	t.Fatal("deep(1) fails")
	return 0
}

// probe calls a fixed set of functions, which together reach the fuel
// limit, the call depth limit, host calls, nested calls and host panics
// (recovered by the caller of Call under RepanicHostPanics), and
// describes what they did. An instance in a good state gives the same
// text as a fresh one.
func probe(inst *Instance, deepMax int64) string {
	var b strings.Builder
	for _, c := range []struct {
		name string
		arg  int64
	}{
		{"loop", 10}, {"loop", 100}, {"loop", 101}, {"deep", deepMax}, {"deep", deepMax + 1},
		{"p", 5}, {"p", -2}, {"nest", 0}, {"nest", 3}, {"wrap", 3}, {"loop", 10},
	} {
		fmt.Fprintf(&b, "%s(%d) = %s\n", c.name, c.arg, probeCall(inst, c.name, c.arg))
	}
	return b.String()
}

// probeCall calls name(arg) and describes its results, error or panic.
func probeCall(inst *Instance, name string, arg int64) (outcome string) {
	defer func() {
		if r := recover(); r != nil {
			outcome = fmt.Sprintf("panic: %v", r)
		}
	}()
	res, err := inst.Call(context.Background(), name, I64(arg))
	return fmt.Sprintf("%v, %v", res, err)
}

// checkTrap checks that err is a trap of kind in function fn at offset off.
func checkTrap(t testing.TB, what string, err error, kind bytecode.TrapKind, fn string, off int) *bytecode.Trap {
	t.Helper()
	var trap *bytecode.Trap
	if !errors.As(err, &trap) || trap.Kind != kind || trap.FuncName != fn || trap.Offset != off {
		t.Fatalf("%s: error %v, want a trap %q in %s at instruction %d", what, err, kind, fn, off)
	}
	return trap
}

// TestHostPanicAcceptance is the acceptance program: after a host function
// panics, 20 calls of a 10-iteration loop under a fuel budget of 100 all
// succeed (the fuel is reset for every call), for every kind of panic
// value.
func TestHostPanicAcceptance(t *testing.T) {
	var nilMap map[string]int
	values := []struct {
		name  string
		panic func()
		check func(t *testing.T, hp *HostPanicError, err error)
	}{
		{"string", func() { panicWith("boom") }, func(t *testing.T, hp *HostPanicError, _ error) {
			if hp.Value != "boom" {
				t.Errorf("panic value %#v, want \"boom\"", hp.Value)
			}
		}},
		{"error", func() { panicWith(fmt.Errorf("wrapped: %w", errPanicValue)) }, func(t *testing.T, _ *HostPanicError, err error) {
			if !errors.Is(err, errPanicValue) {
				t.Errorf("errors.Is does not reach the error the host panicked with: %v", err)
			}
		}},
		{"runtime-error", func() { nilMap["x"] = 1 }, func(t *testing.T, _ *HostPanicError, err error) {
			var re goruntime.Error
			if !errors.As(err, &re) {
				t.Errorf("errors.As does not reach the runtime.Error: %v", err)
			}
		}},
		{"nil", func() { panicWith(nil) }, func(t *testing.T, _ *HostPanicError, err error) {
			var pn *goruntime.PanicNilError
			if !errors.As(err, &pn) {
				t.Errorf("panic(nil) gives %v, want a *runtime.PanicNilError", err)
			}
		}},
	}
	for _, cfg := range panicConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			mod := loadTier(t, cfg.opts.Tier, cfg.with(panicLimits), panicSrc)
			for _, v := range values {
				t.Run(v.name, func(t *testing.T) {
					inst, env := newPanicInstance(t, mod)
					env.leaf = func(*Caller, int64) (int64, error) { v.panic(); return 0, nil }
					_, err := inst.Call(context.Background(), "p", I64(-2))
					trap := checkTrap(t, "p(-2)", err, bytecode.TrapHostPanic, "p", pLeafOffset)
					var hp *HostPanicError
					if !errors.As(err, &hp) || trap.Cause != hp || hp.Host != "leaf" {
						t.Fatalf("p(-2): cause %#v, want a *HostPanicError of leaf", trap.Cause)
					}
					v.check(t, hp, err)
					checkIdle(t, inst)
					for i := 0; i < 20; i++ {
						res, err := inst.Call(context.Background(), "loop", 10)
						if err != nil || res[0] != 10 {
							t.Fatalf("call %d of loop(10) after the panic = %v, %v", i+1, res, err)
						}
					}
				})
			}
		})
	}
}

// TestHostPanicStack checks what the trap says about the panic: its text,
// and a stack starting at the panicking function.
func TestHostPanicStack(t *testing.T) {
	for _, cfg := range panicConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			inst, _ := newPanicInstance(t, loadTier(t, cfg.opts.Tier, cfg.with(panicLimits), panicSrc))
			_, err := inst.Call(context.Background(), "p", I64(-2))
			want := `trap: host function panicked in p at instruction 1: panic in host function "leaf": ` + panicPlease
			if err == nil || err.Error() != want {
				t.Errorf("error text %q, want %q", err, want)
			}
			var hp *HostPanicError
			if !errors.As(err, &hp) {
				t.Fatalf("no *HostPanicError in %v", err)
			}
			stack := hp.Stack()
			first, _, _ := strings.Cut(stack, "\n")
			if first != "github.com/kiln-jit/kiln/jit.panicWith(...)" && first != "github.com/kiln-jit/kiln/jit.panicWith" {
				t.Errorf("the stack starts with %q, want panicWith:\n%s", first, stack)
			}
			if !strings.Contains(stack, "hostpanic_test.go:") || !strings.Contains(stack, "newPanicEnv") {
				t.Errorf("the stack does not show the host function:\n%s", stack)
			}
		})
	}
}

// TestHostPanicsInARow panics 10,000 times on one instance: afterwards it
// behaves exactly like a fresh instance, recursion close to the call
// depth limit included.
func TestHostPanicsInARow(t *testing.T) {
	const panics = 10_000
	for _, cfg := range panicConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			mod := loadTier(t, cfg.opts.Tier, cfg.with(panicLimits), panicSrc)
			fresh, _ := newPanicInstance(t, mod)
			deepMax := maxDeep(t, fresh)
			if deepMax < int64(panicLimits.MaxCallDepth)-2 {
				t.Fatalf("deep(%d) is the deepest recursion with MaxCallDepth %d", deepMax, panicLimits.MaxCallDepth)
			}
			want := probe(fresh, deepMax)
			inst, _ := newPanicInstance(t, mod)
			for i := 0; i < panics; i++ {
				_, err := inst.Call(context.Background(), "p", I64(-2))
				var trap *bytecode.Trap
				if !errors.As(err, &trap) || trap.Kind != bytecode.TrapHostPanic {
					t.Fatalf("panic %d: %v", i+1, err)
				}
			}
			checkIdle(t, inst)
			if got := probe(inst, deepMax); got != want {
				t.Fatalf("after %d panics:\n%s\na fresh instance:\n%s", panics, got, want)
			}
			checkIdle(t, inst)
		})
	}
}

// TestHostPanicInNestedCalls panics in a host function that a nested call
// runs (host function, guest, host function, ...), at several depths: the
// outermost call gets a trap that leads to the panic, and the instance
// works afterwards.
func TestHostPanicInNestedCalls(t *testing.T) {
	for _, cfg := range panicConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			mod := loadTier(t, cfg.opts.Tier, cfg.with(panicLimits), panicSrc)
			fresh, _ := newPanicInstance(t, mod)
			deepMax := maxDeep(t, fresh)
			want := probe(fresh, deepMax)
			for _, depth := range []int{0, 1, 2, 10, 40} {
				t.Run(fmt.Sprint("depth", depth), func(t *testing.T) {
					inst, _ := newPanicInstance(t, mod)
					_, err := inst.Call(context.Background(), "nest", I64(int64(depth)))
					var outer *bytecode.Trap
					if depth == 0 {
						outer = checkTrap(t, "nest", err, bytecode.TrapHostPanic, "nest", nestLeafOffset)
					} else {
						outer = checkTrap(t, "nest", err, bytecode.TrapHostError, "nest", nestBackOffset)
					}
					inner, d := outer.Innermost()
					if d != depth || inner.Kind != bytecode.TrapHostPanic || inner.FuncName != "nest" || inner.Offset != nestLeafOffset {
						t.Errorf("innermost trap %v at depth %d, want a host panic in nest at %d, depth %d", inner, d, nestLeafOffset, depth)
					}
					var hp *HostPanicError
					if !errors.As(err, &hp) || hp.Value != panicPlease {
						t.Errorf("no panic value in %v", err)
					}
					if depth > 1 && !strings.Contains(err.Error(), fmt.Sprintf("through %d nested calls: trap: host function panicked in nest at instruction %d", depth, nestLeafOffset)) {
						t.Errorf("error text %q", err)
					}
					checkIdle(t, inst)
					if got := probe(inst, deepMax); got != want {
						t.Fatalf("after the panic:\n%s\na fresh instance:\n%s", got, want)
					}
				})
			}
		})
	}
}

// TestRepanicHostPanics checks Options.RepanicHostPanics: the caller of
// Call gets the original panic value, directly and through nested calls;
// a host function may recover the panic of a call nested in it and carry
// on; either way the instance works afterwards.
func TestRepanicHostPanics(t *testing.T) {
	opts := panicLimits
	opts.RepanicHostPanics = true
	for _, cfg := range panicConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			mod := loadTier(t, cfg.opts.Tier, cfg.with(opts), panicSrc)
			fresh, _ := newPanicInstance(t, mod)
			deepMax := maxDeep(t, fresh)
			want := probe(fresh, deepMax)
			// Calls that panic: the value reaches the caller.
			for _, c := range []struct {
				name string
				arg  int64
			}{{"p", -2}, {"nest", 0}, {"nest", 1}, {"nest", 7}} {
				inst, _ := newPanicInstance(t, mod)
				got := func() (v any) {
					defer func() { v = recover() }()
					res, err := inst.Call(context.Background(), c.name, I64(c.arg))
					t.Errorf("%s(%d) returned %v, %v instead of panicking", c.name, c.arg, res, err)
					return nil
				}()
				if got != panicPlease {
					t.Errorf("%s(%d) panicked with %#v, want %q", c.name, c.arg, got, panicPlease)
				}
				checkIdle(t, inst)
				if got := probe(inst, deepMax); got != want {
					t.Fatalf("after %s(%d) panicked:\n%s\na fresh instance:\n%s", c.name, c.arg, got, want)
				}
			}
			// A host function recovers the panic of its nested call and
			// returns: the suspended guest code resumes with its values.
			inst, _ := newPanicInstance(t, mod)
			for _, x := range []int64{0, 1, 5} {
				res, err := inst.Call(context.Background(), "wrap", I64(x))
				if err != nil || int64(res[0]) != 4*x+7+1000 {
					t.Errorf("wrap(%d) = %v, %v; want %d", x, res, err, 4*x+7+1000)
				}
			}
			checkIdle(t, inst)
			if got := probe(inst, deepMax); got != want {
				t.Fatalf("after recovered nested panics:\n%s\na fresh instance:\n%s", got, want)
			}
		})
	}
}

// TestHostPanicTrapsAgreeAcrossTiers checks that every tier reports the
// same traps (kind, function, offset, and the same for the innermost trap
// of a nested call) for the same host panics.
func TestHostPanicTrapsAgreeAcrossTiers(t *testing.T) {
	calls := []struct {
		name string
		arg  int64
	}{{"p", -2}, {"nest", 0}, {"nest", 1}, {"nest", 3}, {"wrap", 2}, {"p", 4}}
	describe := func(err error) string {
		var trap *bytecode.Trap
		if !errors.As(err, &trap) {
			return fmt.Sprint(err)
		}
		inner, depth := trap.Innermost()
		return fmt.Sprintf("%v/%s/%d inner %v/%s/%d depth %d", trap.Kind, trap.FuncName, trap.Offset,
			inner.Kind, inner.FuncName, inner.Offset, depth)
	}
	var ref []string
	refName := ""
	for _, cfg := range panicConfigs() {
		inst, _ := newPanicInstance(t, loadTier(t, cfg.opts.Tier, cfg.with(panicLimits), panicSrc))
		var got []string
		for _, c := range calls {
			res, err := inst.Call(context.Background(), c.name, I64(c.arg))
			got = append(got, fmt.Sprintf("%s(%d): %v %s", c.name, c.arg, res, describe(err)))
		}
		if ref == nil {
			ref, refName = got, cfg.name
			continue
		}
		for i := range got {
			if got[i] != ref[i] {
				t.Errorf("%s: %s; %s: %s", cfg.name, got[i], refName, ref[i])
			}
		}
	}
	if len(ref) == 0 || !strings.Contains(ref[0], "host function panicked/p/1") {
		t.Errorf("reference outcomes %q", ref)
	}
}

// TestHostGoexit has host functions call runtime.Goexit, directly and in
// nested calls, with and without RepanicHostPanics: the calling goroutine
// ends, and the instance works for the next caller.
func TestHostGoexit(t *testing.T) {
	for _, repanic := range []bool{false, true} {
		opts := panicLimits
		opts.RepanicHostPanics = repanic
		for _, cfg := range panicConfigs() {
			t.Run(fmt.Sprintf("%s/repanic=%v", cfg.name, repanic), func(t *testing.T) {
				mod := loadTier(t, cfg.opts.Tier, cfg.with(opts), panicSrc)
				fresh, _ := newPanicInstance(t, mod)
				deepMax := maxDeep(t, fresh)
				want := probe(fresh, deepMax)
				for _, c := range []struct {
					name string
					arg  int64
				}{{"p", -2}, {"nest", 0}, {"nest", 4}} {
					inst, env := newPanicInstance(t, mod)
					env.leaf = func(*Caller, int64) (int64, error) { goruntime.Goexit(); return 0, nil }
					returned := make(chan bool, 1)
					go func() {
						defer close(returned)
						_, _ = inst.Call(context.Background(), c.name, I64(c.arg))
						returned <- true
					}()
					if <-returned {
						t.Fatalf("%s(%d) returned although its host function called runtime.Goexit", c.name, c.arg)
					}
					checkIdle(t, inst)
					env.leaf = newPanicEnv().leaf
					if got := probe(inst, deepMax); got != want {
						t.Fatalf("after runtime.Goexit in %s(%d):\n%s\na fresh instance:\n%s", c.name, c.arg, got, want)
					}
				}
			})
		}
	}
}

// TestNestedErrorsStayShort sends errors up through 10,000 nested
// host-to-guest calls: the error text stays short and names the innermost
// trap and the depth, and errors.Is and errors.As still reach the
// innermost cause.
func TestNestedErrorsStayShort(t *testing.T) {
	const depth = 10_000
	errLeaf := errors.New("leaf failed")
	cases := []struct {
		name  string
		leaf  func(ctx context.CancelFunc) func(c *Caller, x int64) (int64, error)
		inner string // the innermost trap's text, without its cause
		check func(err error) bool
	}{
		{
			"host-error",
			func(context.CancelFunc) func(*Caller, int64) (int64, error) {
				return func(*Caller, int64) (int64, error) { return 0, errLeaf }
			},
			"trap: host function failed in nest at instruction 5: leaf failed",
			func(err error) bool { return errors.Is(err, errLeaf) },
		},
		{
			"host-panic",
			func(context.CancelFunc) func(*Caller, int64) (int64, error) {
				return func(*Caller, int64) (int64, error) { panicWith(errPanicValue); return 0, nil }
			},
			`trap: host function panicked in nest at instruction 5: panic in host function "leaf": panic value`,
			func(err error) bool {
				var hp *HostPanicError
				return errors.As(err, &hp) && hp.Value == errPanicValue && errors.Is(err, errPanicValue)
			},
		},
		{
			"cancelled",
			func(cancel context.CancelFunc) func(*Caller, int64) (int64, error) {
				return func(c *Caller, _ int64) (int64, error) {
					cancel()
					_, err := c.Call("loop", 5)
					return 0, err
				}
			},
			"trap: interrupted in loop at instruction 0: context canceled",
			func(err error) bool { return errors.Is(err, context.Canceled) },
		},
	}
	// The largest Go stack budget, so that the nest fits even with the
	// race detector's larger frames: the test is about the errors.
	opts := Options{MaxCallDepth: 2 * depth, MaxGoStackBytes: interp.MaxGoStackLimit}
	for _, cfg := range panicConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			mod := loadTier(t, cfg.opts.Tier, cfg.with(opts), panicSrc)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					inst, env := newPanicInstance(t, mod)
					env.leaf = c.leaf(cancel)
					_, err := inst.Call(ctx, "nest", depth)
					trap := checkTrap(t, "nest", err, bytecode.TrapHostError, "nest", nestBackOffset)
					msg := err.Error()
					if len(msg) > 1024 {
						t.Fatalf("the error text has %d bytes: %.300s...", len(msg), msg)
					}
					want := fmt.Sprintf("trap: host function failed in nest at instruction %d: through %d nested calls: %s",
						nestBackOffset, depth, c.inner)
					if c.name == "cancelled" {
						// The leaf's own call is one level deeper.
						want = fmt.Sprintf("trap: host function failed in nest at instruction %d: through %d nested calls: %s",
							nestBackOffset, depth+1, c.inner)
					}
					if msg != want {
						t.Errorf("error text\n%q, want\n%q", msg, want)
					}
					if !c.check(err) {
						t.Errorf("errors.Is/As do not reach the innermost cause of %v", err)
					}
					if _, d := trap.Innermost(); d < depth {
						t.Errorf("innermost trap at depth %d", d)
					}
					checkIdle(t, inst)
					if res, err := inst.Call(context.Background(), "loop", 10); err != nil || res[0] != 10 {
						t.Errorf("loop(10) afterwards = %v, %v", res, err)
					}
				})
			}
		})
	}
}

// TestTrapChainText checks bytecode.Trap's text and Innermost on chains
// built by hand: no cause, a plain cause, and nested traps directly and
// behind wrapping errors.
func TestTrapChainText(t *testing.T) {
	errLeaf := errors.New("leaf failed")
	leaf := &bytecode.Trap{Kind: bytecode.TrapHostError, FuncName: "g", Offset: 5, Cause: errLeaf}
	mid := &bytecode.Trap{Kind: bytecode.TrapHostError, FuncName: "f", Offset: 2, Cause: fmt.Errorf("callback: %w", leaf)}
	top := &bytecode.Trap{Kind: bytecode.TrapHostError, FuncName: "main", Offset: 7, Cause: mid}
	explicit := &bytecode.Trap{Kind: bytecode.TrapExplicit, FuncName: "e", Offset: 1, Code: 9}
	wrapsExplicit := &bytecode.Trap{Kind: bytecode.TrapHostError, FuncName: "h", Offset: 3, Cause: explicit}
	for _, c := range []struct {
		trap  *bytecode.Trap
		text  string
		inner *bytecode.Trap
		depth int
	}{
		{explicit, "trap: explicit trap 9 in e at instruction 1", explicit, 0},
		{leaf, "trap: host function failed in g at instruction 5: leaf failed", leaf, 0},
		{mid, "trap: host function failed in f at instruction 2: through 1 nested call: " +
			"trap: host function failed in g at instruction 5: leaf failed", leaf, 1},
		{top, "trap: host function failed in main at instruction 7: through 2 nested calls: " +
			"trap: host function failed in g at instruction 5: leaf failed", leaf, 2},
		{wrapsExplicit, "trap: host function failed in h at instruction 3: through 1 nested call: " +
			"trap: explicit trap 9 in e at instruction 1", explicit, 1},
	} {
		if got := c.trap.Error(); got != c.text {
			t.Errorf("text %q, want %q", got, c.text)
		}
		if inner, depth := c.trap.Innermost(); inner != c.inner || depth != c.depth {
			t.Errorf("%s: innermost %v at depth %d, want %v at %d", c.text, inner, depth, c.inner, c.depth)
		}
	}
	if !errors.Is(top, errLeaf) {
		t.Error("errors.Is does not reach the innermost cause")
	}
}
