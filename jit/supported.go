package jit

import (
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/lower"
)

// checkSupported reports the first instruction of m whose op the compiled
// tiers do not lower (lower.Supports), such as global.get, global.set,
// call_indirect and unreachable. compileModule fails with its
// error before doing any work, so a module that uses such an op, even in
// code no branch reaches, runs in the interpreter on every tier, and
// Module.CompileError (or the error of Instance.Optimize) names the op.
func checkSupported(m *bytecode.Module) error {
	for _, f := range m.Funcs {
		for pc := range f.Code {
			if op := f.Code[pc].Op; !lower.Supports(op) {
				return fmt.Errorf("jit: compile %s: instruction %d: the compiled tiers do not support %s yet", f.Name, pc, op)
			}
		}
	}
	return nil
}
