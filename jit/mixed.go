package jit

import "github.com/kiln-jit/kiln/bytecode"

// Mixed modules: functions in the interpreter and in compiled code.
//
// A function can stay in the interpreter while the rest of its module is
// compiled: Options.Interpreted names such functions; a TierAuto tier-up
// compiles only the functions that have run (the others join when they
// get hot, one at a time: join.go; or at a re-optimization) and leaves a function whose compile fails
// interpreted. Each function's tier is in Instance.Stats.
//
// The compiled module then has, for every interpreted function, a stub in
// its place: a compiled function of the same signature whose body is a
// call of a host import added after the module's own (one per function,
// stubImport) and a return. Compiled code calls the stub as it calls any
// function (directly or through the table); its exit to Go runs the
// function in the instance's interpreter (interp.Machine.CallAt) as a frame
// at the stub's call depth. The interpreter in turn runs its calls of
// compiled functions in the compiled code (interp.Machine.SetExternal,
// compiledInstance.callWithin), as a frame at the depth the callee would
// have had. Both sides share one poller (the running call's context and
// fuel), memory, globals and table, so results, traps (a trap is returned
// as it is, not wrapped as a host error), fuel, cancellation and the
// sequence of host calls are those of a module run in one tier. An
// outermost call of an interpreted function enters through its stub; a
// host function that interpreted code called and that calls back into
// the instance nests in the interpreter (interp.Machine.InHostCall), whose
// frames know the call depth. A crossing costs an exit to Go each way
// (BenchmarkMixedCalls: about 40 times a compiled call's cost, 4 times
// an interpreted call's).

// stubImportPrefix starts the names of the host imports through which a
// mixed module's compiled code runs interpreted functions.
const stubImportPrefix = "kiln.interpret."

// withStubImports returns a copy of m for compiling it as a mixed module:
// one more host import per function (stubImport) and its own function
// list, in which stubFunc replaces the interpreted functions.
func withStubImports(m *bytecode.Module) *bytecode.Module {
	c := *m
	c.Hosts = make([]bytecode.HostImport, 0, len(m.Hosts)+len(m.Funcs))
	c.Hosts = append(c.Hosts, m.Hosts...)
	for _, f := range m.Funcs {
		c.Hosts = append(c.Hosts, bytecode.HostImport{Name: stubImportPrefix + f.Name, Sig: f.Sig})
	}
	c.Funcs = append([]*bytecode.Function(nil), m.Funcs...)
	return &c
}

// stubImport returns the host import of m (from withStubImports, with
// hostCount imports of its own) that runs function fn.
func stubImport(hostCount, fn int) int { return hostCount + fn }

// stubFunc returns the stub of function fn of m (from withStubImports):
// the function's signature, a call of its stub import and a return.
func stubFunc(m *bytecode.Module, fn int) *bytecode.Function {
	f := m.Funcs[fn]
	hostCount := len(m.Hosts) - len(m.Funcs)
	np, nr := len(f.Sig.Params), len(f.Sig.Results)
	regs := make([]bytecode.Type, 0, np+nr)
	regs = append(regs, f.Sig.Params...)
	regs = append(regs, f.Sig.Results...)
	args := make([]bytecode.Reg, np)
	for i := range args {
		args[i] = bytecode.Reg(i)
	}
	results := make([]bytecode.Reg, nr)
	for i := range results {
		results[i] = bytecode.Reg(np + i)
	}
	return &bytecode.Function{
		Name: f.Name,
		Sig:  f.Sig,
		Regs: regs,
		Code: []bytecode.Instr{
			{Op: bytecode.OpCallHost, Callee: uint32(stubImport(hostCount, fn)), Args: args, Results: results},
			{Op: bytecode.OpReturn, Args: results},
		},
	}
}

// isStub reports whether function fn runs in the interpreter in cm's
// module.
func (cm *compiledModule) isStub(fn int) bool {
	return cm.stubs != nil && fn < len(cm.stubs) && cm.stubs[fn]
}

// compiledMask returns which of the first n functions cm compiled, or nil
// when it compiled them all.
func (cm *compiledModule) compiledMask(n int) []bool {
	if cm.stubs == nil {
		return nil
	}
	mask := make([]bool, n)
	all := true
	for fn := range mask {
		mask[fn] = !cm.stubs[fn]
		all = all && mask[fn]
	}
	if all {
		return nil
	}
	return mask
}

// attach makes ci, the instance's compiled code, and its interpreter call
// each other for the functions that run on the other side (nothing when
// ci compiled every function): one poller, interpreted functions through
// ci's stubs, compiled ones through the interpreter's external calls.
func (i *Instance) attach(ci *compiledInstance) error {
	mask := ci.cm.compiledMask(len(i.module.prog.Module.Funcs))
	if mask == nil {
		return i.machine.SetExternal(nil, nil)
	}
	ci.poll = i.machine.Poller()
	ci.interpret = i.machine.CallAt
	if i.auto != nil && ci.cm.stubs != nil {
		// The tier-up's own code: hot functions join it (join.go).
		ci.join = newJoiner(ci, mask)
		ci.interpret = func(fn int, args, results []uint64, depth int) error {
			if err := i.machine.CallAt(fn, args, results, depth); err != nil {
				return err
			}
			i.considerJoin(ci, fn)
			return nil
		}
	}
	return i.machine.SetExternal(mask, ci.callWithin)
}
