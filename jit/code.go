package jit

import (
	"context"
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
)

// A loaded module keeps its functions' bytecode packed
// (bytecode.PackedCode, a few bytes an instruction instead of more than a
// hundred): the interpreter runs its own form of the code, prepared at
// load, and the compiled tiers read the bytecode only while they lower a
// function, so the module the prepared program holds has functions
// without code, and lowering unpacks a function a block at a time
// (lower.Options.Packed). For a function of a million instructions that
// is the difference between about 5 MB and more than 100 MB kept for the
// module's lifetime, and while the compile's largest tables are live.

// moduleCode is the packed code of a loaded module's functions, with the
// module facts lowering needs, computed from the code at load.
type moduleCode struct {
	packed []bytecode.PackedCode // indexed like the module's functions
	info   *lower.ModuleInfo
}

// prepareWithoutCode verifies m and prepares it for the interpreter, and
// returns the program, whose module is a copy of m without the
// functions' code, and that code packed. m is only read.
func prepareWithoutCode(ctx context.Context, m *bytecode.Module) (*interp.Program, *moduleCode, error) {
	prog, err := interp.PrepareContext(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	code := &moduleCode{packed: make([]bytecode.PackedCode, len(m.Funcs))}
	info := lower.NewModuleInfo(m)
	for i, f := range m.Funcs {
		code.packed[i] = bytecode.PackCode(f.Code)
	}
	// The copy is made from a shallow copy whose functions have no code,
	// so that Clone copies everything else.
	shallow := *m
	shallow.Funcs = make([]*bytecode.Function, len(m.Funcs))
	for i, f := range m.Funcs {
		g := *f
		g.Code = nil
		shallow.Funcs[i] = &g
	}
	prog.Module = shallow.Clone()
	code.info = info.StandIn(prog.Module)
	return prog, code, nil
}

// packedOf returns the packed code of function i of m, or nil when m
// holds the function's code (a verified function has at least one
// instruction). A nil c stands for a module that holds all its code.
func (c *moduleCode) packedOf(m *bytecode.Module, i int) (*bytecode.PackedCode, error) {
	f := m.Funcs[i]
	if len(f.Code) > 0 {
		return nil, nil
	}
	if c == nil || i >= len(c.packed) {
		return nil, fmt.Errorf("jit: internal error: no code for function %s", f.Name)
	}
	return &c.packed[i], nil
}

// len returns the number of instructions of function i of m (see
// packedOf).
func (c *moduleCode) len(m *bytecode.Module, i int) int {
	if f := m.Funcs[i]; len(f.Code) > 0 || c == nil || i >= len(c.packed) {
		return len(f.Code)
	}
	return c.packed[i].Len()
}

// fullModule returns a copy of the loaded module with its functions'
// code.
func (m *Module) fullModule() (*bytecode.Module, error) {
	full := m.prog.Module.Clone()
	for i, f := range full.Funcs {
		p, err := m.code.packedOf(full, i)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue // the function holds its code
		}
		if f.Code, err = p.Unpack(); err != nil {
			return nil, fmt.Errorf("jit: function %s: %w", f.Name, err)
		}
	}
	return full, nil
}
