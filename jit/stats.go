package jit

import "github.com/kiln-jit/kiln/profilecounters"

// FuncStats reports what an instance has recorded about one function.
type FuncStats struct {
	Name  string
	Index int
	// Tier is the tier the function currently runs in: the instance's,
	// or TierInterp for a function that stays interpreted while the rest
	// of the module is compiled (Options.Interpreted; at a TierAuto
	// tier-up, a function that has not run yet or failed to compile).
	Tier Tier
	// CompileError is why the function's last compile failed, leaving it
	// interpreted (a TierAuto tier-up or re-optimization), or nil.
	CompileError error
	// Calls counts the calls of the function.
	Calls uint64
	// Instructions estimates the bytecode instructions executed in the
	// function: each block's entries times its length.
	Instructions uint64
	// Edges lists every control-flow edge with its traversal count.
	Edges []EdgeStats
}

// EdgeStats is one control-flow edge of a function and how often it was
// taken.
type EdgeStats struct {
	// From is the bytecode offset of the instruction the edge leaves, To
	// the offset it enters.
	From, To int
	Kind     profilecounters.EdgeKind
	Case     int // the switch table index, for case edges
	Count    uint64
}

// Stats returns per-function statistics in function index order. Call it
// when no call is running on the instance on another goroutine (from the
// calling goroutine, or from a host function, is fine). Calls, edge counts
// and instruction counts are the interpreter's plus those of compiled code
// that counts (a TierAuto instance's, or with Options.CountEdges); code
// compiled without counting adds nothing. Compiled code adds a loop that
// branches to itself (a self-loop) to its counts when the loop is left,
// so counts read from a host function the loop calls miss the loop's
// current visit.
func (i *Instance) Stats() []FuncStats {
	prog := i.module.prog
	out := make([]FuncStats, len(prog.Module.Funcs))
	for fi, f := range prog.Module.Funcs {
		layout := prog.Layouts[fi]
		counters := i.allCounters(fi)
		counts := layout.EdgeCounts(counters)
		s := FuncStats{
			Name: f.Name, Index: fi, Tier: i.tier,
			CompileError: i.compileError(fi),
			Calls:        counters[profilecounters.EntryCounter],
			Instructions: layout.ExecutedInstructions(counters),
		}
		if i.compiled != nil && i.compiled.cm.isStub(fi) {
			s.Tier = TierInterp
		}
		for e, ed := range layout.Edges {
			s.Edges = append(s.Edges, EdgeStats{
				From: int(layout.Blocks[ed.From].End) - 1, To: int(layout.Blocks[ed.To].Start),
				Kind: ed.Kind, Case: int(ed.Case), Count: counts[e],
			})
		}
		out[fi] = s
	}
	return out
}

// Profile returns the profile (edge probabilities and block frequencies)
// of the named function as the optimizer would see it now.
func (i *Instance) Profile(name string) (*profilecounters.Profile, error) {
	f, err := i.Func(name)
	if err != nil {
		return nil, err
	}
	return i.module.prog.Layouts[f.index].Profile(i.allCounters(f.index)), nil
}

// compileError returns why the instance's compiled code left function fn
// interpreted because it did not compile, or nil.
func (i *Instance) compileError(fn int) error {
	if i.compiled == nil || i.compiled.cm.failed == nil {
		return nil
	}
	return i.compiled.cm.failed[fn]
}
