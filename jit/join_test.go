package jit

import (
	"context"
	"sync"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	kilnrt "github.com/kiln-jit/kiln/runtime"
)

// joinSource's main runs two loops in one call: the first moves into
// compiled code by on-stack replacement while b and c have not run yet, so the tier-up leaves them interpreted; the second calls b
// directly and c through the table, from compiled code.
const joinSource = `
type unop (i64) -> (i64)
table 1
elem 0 c

func main (i64) -> (i64)
  regs i64 i64 i64 i64
loop1:
  br.eq r1, r0, mid
  i64.mul r3, r1, 3
  i64.add r2, r2, r3
  i64.add r1, r1, 1
  jump loop1
mid:
  i64.const r1, 0
loop2:
  br.eq r1, r0, done
  call b (r1) -> (r3)
  i64.add r2, r2, r3
  i64.const r4, 0
  call_indirect unop, r4 (r1) -> (r3)
  i64.add r2, r2, r3
  i64.add r1, r1, 1
  jump loop2
done:
  ret r2
end

func b (i64) -> (i64)
  i64.mul r0, r0, 5
  i64.add r0, r0, 1
  ret r0
end

func c (i64) -> (i64)
  i64.xor r0, r0, 7
  ret r0
end

export "main" main
`

func joinWant(n uint64) uint64 {
	var s uint64
	for i := uint64(0); i < n; i++ {
		s += 3*i + 5*i + 1 + i ^ 7
	}
	return s
}

// TestJoinInLongCall checks that functions a tier-up left interpreted,
// first called after it within the same call (which never returns to
// re-optimize), join the compiled code once hot: each is compiled on its
// own (a CompileJoin event), runs compiled from then on, called directly
// and through the table, and the results are those of the interpreter.
func TestJoinInLongCall(t *testing.T) {
	if !kilnrt.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	for _, sync_ := range []bool{true, false} {
		var mu sync.Mutex
		joined := 0
		inst := textInstance(t, Options{Tier: TierAuto, SynchronousTierUp: sync_, TierUpCalls: 50, TierUpBackEdges: 1000, OSRInterval: 16,
			CheckAllocations: true, OnCompile: func(e CompileEvent) {
				if e.Reason == CompileJoin {
					if e.Err != nil || e.Stats.Functions != 1 {
						t.Errorf("join: %v, %d functions", e.Err, e.Stats.Functions)
					}
					mu.Lock()
					joined++
					mu.Unlock()
				}
			}}, joinSource)
		ctx := context.Background()
		// In the background the tier-up and the joins may come late in
		// the call, or after it: its results are checked.
		n := uint64(200000)
		if !sync_ {
			n = 2000000
		}
		if got, err := inst.Call(ctx, "main", n); err != nil || got[0] != joinWant(n) {
			t.Fatalf("synchronous %v: main(%d) = %v, %v; want %d", sync_, n, got, err, joinWant(n))
		}
		if !sync_ {
			continue
		}
		if inst.OSREntries() == 0 {
			t.Fatal("no on-stack replacement: the test needs the first loop to move")
		}
		tiers := map[string]Tier{}
		for _, s := range inst.Stats() {
			tiers[s.Name] = s.Tier
		}
		for _, fn := range []string{"main", "b", "c"} {
			if tiers[fn] != TierOptimizing {
				t.Errorf("after the call: %s runs in %s, want every function compiled (tiers %v)", fn, tiers[fn], tiers)
			}
		}
		mu.Lock()
		if joined != 2 {
			t.Errorf("%d joins, want b's and c's", joined)
		}
		mu.Unlock()
		if got, err := inst.Call(ctx, "main", 1000); err != nil || got[0] != joinWant(1000) {
			t.Fatalf("main(1000) = %v, %v; want %d", got, err, joinWant(1000))
		}
	}
}

// textInstance loads the text module src with opts and instantiates it
// without imports.
func textInstance(t *testing.T, opts Options, src string) *Instance {
	t.Helper()
	m, err := bytecode.Assemble([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return phaseInstance(t, m, opts)
}

// TestOSRLoopWithCall checks that a loop calling a function in every
// iteration moves into compiled code by on-stack replacement: it polls
// twice per iteration (the call and the backward branch), which an even
// poll interval would always end at the call, where no frame is offered,
// but for the interval's jitter (interp.Poller.Slow).
func TestOSRLoopWithCall(t *testing.T) {
	if !kilnrt.Supported() {
		t.Skip("no compiled tiers on this platform")
	}
	src := `
func main (i64) -> (i64)
  regs i64 i64 i64
loop:
  br.eq r1, r0, done
  call triple (r1) -> (r3)
  i64.add r2, r2, r3
  i64.add r1, r1, 1
  jump loop
done:
  ret r2
end

func triple (i64) -> (i64)
  i64.mul r0, r0, 3
  ret r0
end

export "main" main
`
	for _, interval := range []int{16, 64, 1024} {
		inst := textInstance(t, Options{Tier: TierAuto, SynchronousTierUp: true, TierUpCalls: 50, TierUpBackEdges: 1000, OSRInterval: interval}, src)
		const n = 200000
		got, err := inst.Call(context.Background(), "main", n)
		if want := uint64(3 * n * (n - 1) / 2); err != nil || got[0] != want {
			t.Fatalf("interval %d: main(%d) = %v, %v; want %d", interval, n, got, err, want)
		}
		if inst.OSREntries() == 0 {
			t.Errorf("interval %d: the loop did not move into compiled code", interval)
		}
	}
}
