package jit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/gostack"
	"github.com/kiln-jit/kiln/interp"
	kilnrt "github.com/kiln-jit/kiln/runtime"
)

// Every way calls nest, to its limit. Each source exports "deep", which
// recurses until a limit stops it, and "ok", which returns its argument
// plus one, to show that the instance works after the trap.

// nestCallsSrc recurses in bytecode calls alone.
const nestCallsSrc = `
func deep (i64) -> (i64)
  i64.add r0, r0, 1
  call deep (r0) -> (r0)
  ret r0
end
func ok (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end
export "deep" deep
export "ok" ok
`

// nestHostSrc recurses through a host function that calls back into the
// instance (Caller.Call).
const nestHostSrc = `
host h (i64) -> (i64)
func deep (i64) -> (i64)
  call_host h (r0) -> (r0)
  ret r0
end
func ok (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end
export "deep" deep
export "ok" ok
`

// nestCrossSrc recurses between deep and the function other, which the
// crossing cases keep in the interpreter (Options.Interpreted): every call
// crosses between compiled and interpreted code.
const nestCrossSrc = `
func deep (i64) -> (i64)
  i64.add r0, r0, 1
  call other (r0) -> (r0)
  ret r0
end
func other (i64) -> (i64)
  call deep (r0) -> (r0)
  ret r0
end
func ok (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end
export "deep" deep
export "ok" ok
`

// nestOSRSrc makes a TierAuto instance move a running frame into compiled
// code by on-stack replacement and recurse from there: deep loops (its
// loop gets the instance hot while the first call runs) and then calls
// other, which has not run when the tier-up compiles and so stays in the
// interpreter; other calls deep, now compiled: the recursion crosses
// between the moved frame's compiled code and the interpreter at every
// level.
const nestOSRSrc = `
func deep (i64) -> (i64)
  regs i64
loop:
  i64.add r1, r1, 1
  br.lt_s r1, 40, loop
  call other (r0) -> (r0)
  ret r0
end
func other (i64) -> (i64)
  call deep (r0) -> (r0)
  ret r0
end
func ok (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end
export "deep" deep
export "ok" ok
`

// nestPath is one way of nesting.
type nestPath struct {
	name  string
	src   string
	tiers []Tier
	// opts adjusts the options (the crossing and on-stack-replacement
	// paths keep other interpreted or compile mid-call).
	opts func(*Options)
	// host is the module's host import, if any.
	host bool
}

// nestPaths lists the ways of nesting, each on the tiers it exists on.
func nestPaths() []nestPath {
	all := []Tier{TierInterp, TierAuto}
	compiled := []Tier{TierAuto}
	if kilnrt.Supported() {
		all = append(all, TierBaseline, TierOptimizing)
		compiled = append(compiled, TierBaseline, TierOptimizing)
	}
	keepOther := func(o *Options) { o.Interpreted = func(name string) bool { return name == "other" } }
	paths := []nestPath{
		{name: "calls", src: nestCallsSrc, tiers: all},
		{name: "host", src: nestHostSrc, tiers: all, host: true},
	}
	if kilnrt.Supported() {
		paths = append(paths,
			nestPath{name: "crossings", src: nestCrossSrc, tiers: compiled, opts: keepOther},
			nestPath{name: "osr", src: nestOSRSrc, tiers: []Tier{TierAuto}, opts: func(o *Options) {
				o.SynchronousTierUp = true
				o.TierUpBackEdges = 200
				o.OSRInterval = 16
			}})
	}
	return paths
}

// nestLimits are the limit sets the nesting cases run under.
var nestLimits = []struct {
	name string
	opts Options
}{
	{"default", Options{}},
	{"largest", Options{MaxCallDepth: math.MaxInt, MaxStackBytes: MaxStackBytesLimit, MaxGoStackBytes: interp.MaxGoStackLimit}},
}

// nestInstance loads path p on tier with the limits of base and returns an
// instance of it.
func nestInstance(t testing.TB, p nestPath, tier Tier, base Options) *Instance {
	t.Helper()
	opts := base
	opts.Tier = tier
	if p.opts != nil {
		p.opts(&opts)
	}
	mod, err := newEngine(t, opts).LoadText([]byte(p.src))
	if err != nil {
		t.Fatal(err)
	}
	imports := Imports{}
	if p.host {
		imports["h"] = MustHost(func(c *Caller, x int64) (int64, error) {
			r, err := c.Call("deep", uint64(x+1))
			if err != nil {
				return 0, err
			}
			return int64(r[0]), nil
		})
	}
	inst, err := mod.Instantiate(imports)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// runToLimit calls deep, which must end in a StackOverflow trap (the
// innermost trap of a chain of host errors), then checks that ok works.
func runToLimit(t testing.TB, inst *Instance) error {
	_, err := inst.Call(context.Background(), "deep", 0)
	var trap *bytecode.Trap
	for e := err; errors.As(e, &trap); e = trap.Cause {
		if trap.Kind == bytecode.TrapStackOverflow {
			break
		}
	}
	if trap == nil || trap.Kind != bytecode.TrapStackOverflow {
		return fmt.Errorf("deep: err = %v, want a stack overflow trap", err)
	}
	res, err := inst.Call(context.Background(), "ok", 41)
	if err != nil || res[0] != 42 {
		return fmt.Errorf("ok(41) after the trap = %v, %v; want 42", res, err)
	}
	return nil
}

// nestCaseEnv names the case a child process of TestNestingLimits runs.
const nestCaseEnv = "KILN_NESTING_CASE"

// TestNestingLimits runs every way of nesting (bytecode calls, host
// functions calling back, calls between compiled and interpreted code,
// recursion from a frame moved by on-stack replacement) on every tier to
// its limit, under the default limits and the largest the options accept,
// and requires a StackOverflow trap and an instance that works
// afterwards. Each case runs in a process of its own, so that a fatal
// error (Go's stack overflow, which no deferred function survives) fails
// the case instead of killing the tests, and so that the case's peak
// resident memory can be read; the log has a table of them. The largest
// limits are left out in short mode.
func TestNestingLimits(t *testing.T) {
	if name := os.Getenv(nestCaseEnv); name != "" {
		runNestCase(t, name)
		return
	}
	for _, p := range nestPaths() {
		for _, tier := range p.tiers {
			for _, lim := range nestLimits {
				name := fmt.Sprintf("%s/%s/%s", p.name, tier, lim.name)
				t.Run(name, func(t *testing.T) {
					if testing.Short() && lim.name == "largest" {
						t.Skip("the largest limits take a gigabyte and seconds")
					}
					t.Parallel()
					cmd := exec.Command(os.Args[0], "-test.run=^TestNestingLimits$", "-test.v")
					cmd.Env = append(os.Environ(), nestCaseEnv+"="+name)
					start := time.Now()
					out, err := cmd.CombinedOutput()
					elapsed := time.Since(start)
					if err != nil || !strings.Contains(string(out), "nesting case passed") {
						text := string(out)
						if len(text) > 4000 {
							text = text[:2000] + "\n...\n" + text[len(text)-2000:]
						}
						t.Fatalf("case process: %v\n%s", err, text)
					}
					t.Logf("%-26s %6.2f s, peak RSS %s", name, elapsed.Seconds(), peakRSS(cmd.ProcessState))
				})
			}
		}
	}
}

// runNestCase runs the case called name in this process.
func runNestCase(t *testing.T, name string) {
	for _, p := range nestPaths() {
		for _, tier := range p.tiers {
			for _, lim := range nestLimits {
				if name != fmt.Sprintf("%s/%s/%s", p.name, tier, lim.name) {
					continue
				}
				inst := nestInstance(t, p, tier, lim.opts)
				if err := runToLimit(t, inst); err != nil {
					t.Fatal(err)
				}
				if p.name == "osr" && inst.OSREntries() == 0 {
					t.Fatal("no frame moved by on-stack replacement")
				}
				// Once more: the instance's second call to the limit
				// (TierAuto's in compiled code) ends the same way.
				if err := runToLimit(t, inst); err != nil {
					t.Fatalf("second call: %v", err)
				}
				fmt.Println("nesting case passed")
				return
			}
		}
	}
	t.Fatalf("no nesting case %q", name)
}

// TestNestingTrapsInARow makes each way of nesting trap 10,000 times in a
// row on one instance (1,000 in short mode), at a small call depth limit
// and at a small Go stack limit, and checks after every trap that the
// instance computes ok's result, and at the end that the traps left no
// memory behind.
func TestNestingTrapsInARow(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	limits := []struct {
		name string
		opts Options
	}{
		{"depth", Options{MaxCallDepth: 100}},
		{"gostack", Options{MaxGoStackBytes: 256 << 10}},
	}
	for _, p := range nestPaths() {
		for _, tier := range p.tiers {
			for _, lim := range limits {
				if lim.name == "gostack" && p.name == "calls" {
					continue // bytecode calls do not nest on the Go stack
				}
				t.Run(fmt.Sprintf("%s/%s/%s", p.name, tier, lim.name), func(t *testing.T) {
					inst := nestInstance(t, p, tier, lim.opts)
					var before, after runtime.MemStats
					for i := range n {
						if i == n/10 {
							runtime.GC()
							runtime.ReadMemStats(&before)
						}
						if err := runToLimit(t, inst); err != nil {
							t.Fatalf("trap %d: %v", i, err)
						}
					}
					runtime.GC()
					runtime.ReadMemStats(&after)
					if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 8<<20 {
						t.Errorf("the heap grew by %d bytes over %d traps", grown, n-n/10)
					}
				})
			}
		}
	}
}

// nestCostSrc recurses to depth 1,200 through the host function probe,
// directly (deep) or through other, which the crossing cases keep in the
// interpreter, and probe records the Go stack in use at every level.
const nestCostSrc = `
host probe (i64) -> ()
host back (i64) -> (i64)
func deep (i64) -> (i64)
  call_host probe (r0) -> ()
  br.ge_s r0, 1200, done
  i64.add r0, r0, 1
  call_host back (r0) -> (r0)
done:
  ret r0
end
func cross (i64) -> (i64)
  call_host probe (r0) -> ()
  br.ge_s r0, 1200, done
  i64.add r0, r0, 1
  call other (r0) -> (r0)
done:
  ret r0
end
func other (i64) -> (i64)
  call cross (r0) -> (r0)
  ret r0
end
export "deep" deep
export "cross" cross
`

// maxLevelGoStack bounds the Go stack kiln's own frames take per level of
// nesting, as TestNestingStackCost measures it (in Go 1.26 on amd64: 1.8
// KiB for a host function's call back, 3 KiB for a level of cross, which
// crosses twice); Options.MaxGoStackBytes documents the figures.
const maxLevelGoStack = 4 << 10

// TestNestingStackCost measures the Go stack a level of nesting costs: a
// host function (one that calls back without reflection) calling back on
// every tier, and a call from compiled into interpreted code and back on
// the compiled tiers, from level 100 to level 1,100 of a recursion. It
// fails above maxLevelGoStack.
func TestNestingStackCost(t *testing.T) {
	if !gostack.Supported() {
		t.Skip("the Go stack is not measured on " + runtime.GOARCH)
	}
	if raceEnabled {
		t.Skip("the race detector's instrumentation makes Go frames several times larger")
	}
	tiers := []Tier{TierInterp}
	if kilnrt.Supported() {
		tiers = append(tiers, TierBaseline, TierOptimizing)
	}
	for _, tier := range tiers {
		for _, fn := range []string{"deep", "cross"} {
			if fn == "cross" && tier == TierInterp {
				continue
			}
			t.Run(tier.String()+"/"+fn, func(t *testing.T) {
				opts := Options{Tier: tier, Interpreted: func(name string) bool { return name == "other" }}
				mod, err := newEngine(t, opts).LoadText([]byte(nestCostSrc))
				if err != nil {
					t.Fatal(err)
				}
				used := make(map[int64]uintptr)
				imports := Imports{
					"probe": RawHost([]bytecode.Type{bytecode.I64}, nil, func(_ *Caller, args, _ []uint64) error {
						used[int64(args[0])] = gostack.Used()
						return nil
					}),
					"back": RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64}, func(c *Caller, args, results []uint64) error {
						r, err := c.Call("deep", args[0])
						if err == nil {
							results[0] = r[0]
						}
						return err
					}),
				}
				inst, err := mod.Instantiate(imports)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := inst.Call(context.Background(), fn, 0); err != nil {
					t.Fatal(err)
				}
				per := float64(used[1100]-used[100]) / 1000
				t.Logf("%s/%s: %.0f bytes of Go stack per level", tier, fn, per)
				if per <= 0 || per > maxLevelGoStack {
					t.Errorf("%.0f bytes of Go stack per level; at most %d expected", per, maxLevelGoStack)
				}
			})
		}
	}
}

// nestDepthSrc recurses to the depth its argument gives, by each way of
// nesting: bytecode calls (calls), a host function calling back (host),
// calls between deep and other, which the crossing case keeps in the
// interpreter (cross).
const nestDepthSrc = `
host h (i64) -> (i64)
func calls (i64) -> (i64)
  br.eq r0, 0, done
  i64.sub r0, r0, 1
  call calls (r0) -> (r0)
  i64.add r0, r0, 1
done:
  ret r0
end
func host (i64) -> (i64)
  br.eq r0, 0, done
  i64.sub r0, r0, 1
  call_host h (r0) -> (r0)
  i64.add r0, r0, 1
done:
  ret r0
end
func cross (i64) -> (i64)
  br.eq r0, 0, done
  i64.sub r0, r0, 1
  call other (r0) -> (r0)
  i64.add r0, r0, 1
done:
  ret r0
end
func other (i64) -> (i64)
  call cross (r0) -> (r0)
  ret r0
end
export "calls" calls
export "host" host
export "cross" cross
`

// TestNestingScaling nests 10,000 and 100,000 levels deep by bytecode
// calls, 5,000 and 50,000 by the ways of nesting that take Go stack (a
// host function's call back; cross: two crossings a level), a tenth of
// that in short mode, on every tier, once returning and once trapping
// at the depth limit, and fails when the memory a call allocates (bytes or
// objects, which the runtime counts steadily where wall time is not)
// grows more than 20 times from the smaller depth to the larger: a
// nesting level, and the trap's way out through every level, cost the
// same at any depth. Bytecode calls and crossings allocate nothing per
// level; a host function's call back allocates its results, and a trap
// passing through host functions wraps its error at each. It logs the
// cost per level.
func TestNestingScaling(t *testing.T) {
	if raceEnabled {
		// Its frames, several times larger, reach the default Go stack
		// budget before the deeper nest: the growth measured would be a
		// trap's.
		t.Skip("the race detector's instrumentation makes Go frames several times larger")
	}
	const maxGrowth = 20
	tiers := []Tier{TierInterp, TierAuto}
	if kilnrt.Supported() {
		tiers = append(tiers, TierBaseline, TierOptimizing)
	}
	for _, tier := range tiers {
		for _, fn := range []string{"calls", "host", "cross"} {
			if fn == "cross" && (tier == TierInterp || !kilnrt.Supported()) {
				continue
			}
			depths := [2]uint64{10_000, 100_000}
			if fn != "calls" {
				// Deep Go stacks are slow to grow and to scan.
				depths = [2]uint64{5_000, 50_000}
			}
			if testing.Short() {
				depths[0], depths[1] = depths[0]/10, depths[1]/10
			}
			for _, trap := range []bool{false, true} {
				name := tier.String() + "/" + fn
				if trap {
					name += "/trap"
				}
				t.Run(name, func(t *testing.T) {
					var cost [2]runtime.MemStats
					for k, n := range depths {
						cost[k] = nestCost(t, tier, fn, n, trap)
					}
					perLevel := func(k int) string {
						return fmt.Sprintf("%.1f B and %.2f objects per level at %d", float64(cost[k].TotalAlloc)/float64(depths[k]),
							float64(cost[k].Mallocs)/float64(depths[k]), depths[k])
					}
					t.Logf("%s: %s, %s", name, perLevel(0), perLevel(1))
					if g := float64(cost[1].TotalAlloc) / float64(max(cost[0].TotalAlloc, 1)); g > maxGrowth && cost[1].TotalAlloc > 1<<16 {
						t.Errorf("bytes allocated grow %.1f× from %d to %d levels (limit %d×)", g, depths[0], depths[1], maxGrowth)
					}
					if g := float64(cost[1].Mallocs) / float64(max(cost[0].Mallocs, 1)); g > maxGrowth && cost[1].Mallocs > 100 {
						t.Errorf("objects allocated grow %.1f× from %d to %d levels (limit %d×)", g, depths[0], depths[1], maxGrowth)
					}
				})
			}
		}
	}
}

// nestCost calls fn of nestDepthSrc on tier with depth n, to its end or,
// with trap, into a depth limit of n levels, and returns what the call
// allocated (TotalAlloc and Mallocs) the third time: the first grows the
// stacks (and on TierAuto runs in the interpreter, the second in the
// compiled code, which grows its own).
func nestCost(t *testing.T, tier Tier, fn string, n uint64, trap bool) runtime.MemStats {
	t.Helper()
	// TierAuto compiles at the end of the first call (on the calling
	// goroutine, so that the compile's allocations are not counted).
	opts := Options{Tier: tier, MaxCallDepth: 1 << 20, MaxGoStackBytes: interp.MaxGoStackLimit, SynchronousTierUp: true,
		Interpreted: func(name string) bool { return name == "other" }}
	arg := n
	if trap {
		opts.MaxCallDepth, arg = int(n), 2*n
		if fn == "cross" {
			opts.MaxCallDepth = int(2 * n)
		}
	}
	mod, err := newEngine(t, opts).LoadText([]byte(nestDepthSrc))
	if err != nil {
		t.Fatal(err)
	}
	back := RawHost([]bytecode.Type{bytecode.I64}, []bytecode.Type{bytecode.I64}, func(c *Caller, args, results []uint64) error {
		r, err := c.Call("host", args[0])
		if err == nil {
			results[0] = r[0]
		}
		return err
	})
	inst, err := mod.Instantiate(Imports{"h": back})
	if err != nil {
		t.Fatal(err)
	}
	f, err := inst.Func(fn)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	res := []uint64{0}
	for range 3 {
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := f.CallInto(context.Background(), []uint64{arg}, res)
		runtime.ReadMemStats(&after)
		var tr *bytecode.Trap
		switch {
		case trap && (!errors.As(err, &tr) || innermostKind(tr) != bytecode.TrapStackOverflow):
			t.Fatalf("%s(%d) with a depth limit of %d: %v, want a stack overflow", fn, arg, opts.MaxCallDepth, err)
		case !trap && (err != nil || res[0] != n):
			t.Fatalf("%s(%d) = %d, %v", fn, n, res[0], err)
		}
	}
	after.TotalAlloc -= before.TotalAlloc
	after.Mallocs -= before.Mallocs
	return after
}

// innermostKind returns the kind of the innermost trap of a chain.
func innermostKind(t *bytecode.Trap) bytecode.TrapKind {
	in, _ := t.Innermost()
	return in.Kind
}
