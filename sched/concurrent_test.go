package sched

import (
	"sync"
	"testing"

	"github.com/kiln-jit/kiln/mir"
)

// TestConcurrentAllocate allocates the kernels and programs from several
// goroutines at once, with every spill heuristic and few registers (so
// that the victim oracles, spill placement and their storage kept between
// compiles are all used), and checks that every result is the one a lone
// compile produces: compiles share nothing but the pool of allocators.
func TestConcurrentAllocate(t *testing.T) {
	kernels, programs := testprogFuncs(t)
	funcs := append(kernels, programs...)
	var configs []Options
	for _, o := range VictimOracles {
		configs = append(configs, Options{Oracle: o, Regs: tightRegs}, Options{Oracle: o})
	}
	want := make([][]string, len(configs))
	for c, opts := range configs {
		for _, f := range funcs {
			r, err := Allocate(f, opts)
			if err != nil {
				t.Fatal(err)
			}
			want[c] = append(want[c], mir.Format(r.Func))
		}
	}
	const workers = 4
	var wg sync.WaitGroup
	errs := make(chan string, workers*len(configs)*len(funcs))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range configs {
				c := (i + w) % len(configs) // the workers interleave configurations
				for k, f := range funcs {
					r, err := Allocate(f, configs[c])
					if err != nil {
						errs <- err.Error()
						continue
					}
					if got := mir.Format(r.Func); got != want[c][k] {
						errs <- f.Name + ": a concurrent compile differs from a lone one"
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
