package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

func cmdDump(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("dump", stderr)
	stage := fs.String("stage", "asm", "bytecode, ssa, nonssa, alloc or asm")
	naive := fs.Bool("naive", false, "take functions out of SSA by naive φ instantiation instead of coalescing (as jit.Options.NaiveOutOfSSA)")
	only := fs.String("func", "", "dump only this function")
	if err := fs.Parse(args); err != nil {
		return flagError{err}
	}
	if fs.NArg() != 1 {
		return errUsage
	}
	m, err := load(fs.Arg(0))
	if err != nil {
		return err
	}
	switch *stage {
	case "bytecode", "ssa", "nonssa", "alloc", "asm":
	default:
		return flagError{fmt.Errorf("unknown stage %q (want bytecode, ssa, nonssa, alloc or asm)", *stage)}
	}
	if *stage == "bytecode" {
		_, err := stdout.Write(bytecode.Disassemble(m))
		return err
	}
	found := false
	for i, f := range m.Funcs {
		if *only != "" && f.Name != *only {
			continue
		}
		found = true
		text, err := dumpFunc(m, i, *stage, *naive)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, text)
	}
	if !found {
		return fmt.Errorf("%s has no function %q", fs.Arg(0), *only)
	}
	return nil
}

// dumpFunc runs function i through the baseline pipeline up to stage.
func dumpFunc(m *bytecode.Module, i int, stage string, naive bool) (string, error) {
	f, err := lower.Func(m, i, lower.Options{Target: lower.HostTarget()})
	if err != nil {
		return "", err
	}
	if stage == "ssa" {
		return printIR(f)
	}
	f, err = alloc.BaselineOutOfSSA(f, naive)
	if err != nil {
		return "", err
	}
	if stage == "nonssa" {
		return printIR(f)
	}
	a, err := alloc.BaselineNonSSA(f)
	if err != nil {
		return "", err
	}
	if stage == "alloc" {
		return printIR(a)
	}
	code, err := encode.Func(a)
	if err != nil {
		return "", err
	}
	return encode.Disassemble(code, 0), nil
}

func printIR(f *mir.Func) (string, error) {
	var b bytes.Buffer
	err := mir.Print(&b, f)
	return b.String(), err
}
