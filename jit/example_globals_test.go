package jit_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kiln-jit/kiln/jit"
)

// ExampleInstance_SetGlobal imports a global, exports another, and calls
// through a table: apply(i, x) runs table entry i on x, adding the
// imported step first, and counts its calls in an exported global.
func ExampleInstance_SetGlobal() {
	const src = `
type unop (i64) -> (i64)
global step i64 import "step"
global calls i64 mut = 0 export "calls"
table 2
elem 0 double square

func double (i64) -> (i64)
  i64.add r0, r0, r0
  ret r0
end

func square (i64) -> (i64)
  i64.mul r0, r0, r0
  ret r0
end

func apply (i64 i64) -> (i64)
  regs i64
  global.get r2, calls
  i64.add r2, r2, 1
  global.set calls, r2
  global.get r2, step
  i64.add r1, r1, r2
  call_indirect unop, r0 (r1) -> (r1)
  ret r1
end

export "apply" apply
`
	engine, err := jit.NewEngine(jit.Options{})
	if err != nil {
		log.Fatal(err)
	}
	mod, err := engine.LoadText([]byte(src))
	if err != nil {
		log.Fatal(err)
	}
	inst, err := mod.Instantiate(jit.Imports{"step": jit.GlobalI64(1)})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for _, entry := range []uint64{0, 1} {
		r, err := inst.Call(ctx, "apply", entry, jit.I64(4))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(int64(r[0]))
	}
	_, err = inst.Call(ctx, "apply", 2, jit.I64(4))
	fmt.Println(err)

	if err := inst.SetGlobal("calls", jit.I64(100)); err != nil {
		log.Fatal(err)
	}
	if _, err := inst.Call(ctx, "apply", 0, jit.I64(0)); err != nil {
		log.Fatal(err)
	}
	calls, _, err := inst.Global("calls")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("calls:", int64(calls))
	// Output:
	// 10
	// 25
	// trap: undefined element in apply at instruction 5
	// calls: 101
}
