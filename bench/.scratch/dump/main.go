package main

import (
	"os"

	"github.com/kiln-jit/kiln/bench/bf"
	"github.com/kiln-jit/kiln/bytecode"
)

func main() {
	src, _ := os.ReadFile(os.Args[1])
	ops, err := bf.Parse(src)
	if err != nil {
		panic(err)
	}
	m, err := bf.Kiln(ops)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(bytecode.Disassemble(m))
}
