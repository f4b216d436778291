package jit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
)

// The module of the examples: fib, and a main that reports each Fibonacci
// number below its argument to the host function "emit".
const exampleSource = `
host emit (i64) -> ()

func fib (i64) -> (i64)
  regs i64 i64
  br.lt_s r0, 2, small
  i64.sub r1, r0, 1
  call fib (r1) -> (r1)
  i64.sub r2, r0, 2
  call fib (r2) -> (r2)
  i64.add r0, r1, r2
small:
  ret r0
end

func main (i64) -> (i64)
  regs i64 i64
loop:
  br.ge_s r1, r0, done
  call fib (r1) -> (r2)
  call_host emit (r2)
  i64.add r1, r1, 1
  jump loop
done:
  ret r1
end

export "fib" fib
export "main" main
`

// Example embeds kiln: an engine with limits for code the embedder did not
// write, a module loaded under a deadline, a host function, a call and its
// results.
func Example() {
	engine, err := jit.NewEngine(jit.Options{
		Tier:              jit.TierInterp, // or TierBaseline, TierOptimizing on linux/amd64
		Fuel:              1_000_000,      // backward branches and calls per call from Go
		MaxFunctionInstrs: 100_000,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mod, err := engine.LoadTextContext(ctx, []byte(exampleSource))
	if err != nil {
		log.Fatal(err)
	}
	var emitted []int64
	inst, err := mod.Instantiate(jit.Imports{
		"emit": jit.MustHost(func(v int64) { emitted = append(emitted, v) }),
	})
	if err != nil {
		log.Fatal(err)
	}
	results, err := inst.Call(ctx, "main", jit.I64(10))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(emitted)
	fmt.Println("main returned", int64(results[0]))

	// A trap is an error naming its kind, function and bytecode offset.
	_, err = inst.Call(ctx, "fib", jit.I64(40))
	var trap *bytecode.Trap
	if errors.As(err, &trap) {
		fmt.Println(trap.Kind, "in", trap.FuncName)
	}
	// Output:
	// [0 1 1 2 3 5 8 13 21 34]
	// main returned 10
	// fuel exhausted in fib
}
