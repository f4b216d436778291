package fuzz_test

import (
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/fuzz"
)

// A front end's output (here written by hand) is checked in every tier and
// back-end stage against the reference interpreter, with a host function
// that logs what it is given.
func ExampleCheck() {
	m, err := bytecode.Assemble([]byte(`
host emit (i64) -> ()
func sum (i64) -> (i64)
  regs i64
  i64.const r1, 0
loop:
  br.le_s r0, 0, done
  i64.add r1, r1, r0
  call_host emit (r1) -> ()
  i64.sub r0, r0, 1
  jump loop
done:
  ret r1
end
export "sum" sum
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	hosts := map[string]fuzz.HostFunc{
		"emit": func(c *fuzz.HostCall) error { return nil }, // Check records every call
	}
	res, err := fuzz.Check(m, []fuzz.Call{{Func: "sum", Args: []uint64{4}}}, fuzz.Options{Hosts: hosts})
	if err != nil {
		fmt.Println(err) // a *fuzz.Mismatch names the configuration and what differs
		return
	}
	out := res.Outcomes[0]
	fmt.Println("result:", out.Results[0])
	for _, h := range out.HostCalls {
		fmt.Println(h.Name, h.Args[0])
	}
	// Output:
	// result: 10
	// emit 4
	// emit 7
	// emit 9
	// emit 10
}

// Generate makes a program from any bytes; the fuzz target feeds it the
// fuzzing engine's inputs.
func ExampleGenerate() {
	p, err := fuzz.Generate([]byte("any bytes at all"), fuzz.GenOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = fuzz.Check(p.Module, p.Calls, fuzz.Options{Hosts: fuzz.StandardHosts(), GlobalImports: p.GlobalImports})
	fmt.Println(err == nil, bytecode.Verify(p.Module) == nil)
	// Output: true true
}
