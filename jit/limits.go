package jit

import (
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
)

// LimitError reports a module that exceeds one of the engine's limits.
type LimitError struct {
	// Limit names the Options field, for example "MaxFunctionInstrs".
	Limit string
	// Func names the function over the limit ("" for module-wide limits).
	Func string
	// Value is what the module needs; Max is what the option allows.
	Value, Max int64
	// AtLeast says Value is a lower bound: the count at which reading
	// the module stopped, refused as soon as it crossed the limit.
	AtLeast bool
}

// Error says what is over which limit, for example "function f has
// 120000 instructions and switch table entries; Options.MaxFunctionInstrs
// allows 100000".
func (e *LimitError) Error() string {
	subject := "the module"
	if e.Func != "" {
		subject = "function " + e.Func
	}
	count := fmt.Sprint(e.Value)
	if e.AtLeast {
		count = "at least " + count
	}
	var what string
	switch e.Limit {
	case "MaxModuleBytes":
		what = fmt.Sprintf("is %d bytes long", e.Value)
	case "MaxFunctions":
		what = fmt.Sprintf("has %s functions", count)
	case "MaxFunctionInstrs":
		what = fmt.Sprintf("has %s instructions and switch table entries", count)
	case "MaxRegisters":
		what = fmt.Sprintf("has %s registers", count)
	case "MaxCompileBytes":
		what = fmt.Sprintf("needs an estimated %d bytes or more to compile", e.Value)
	default:
		what = fmt.Sprintf("needs %d", e.Value)
	}
	return fmt.Sprintf("%s %s; Options.%s allows %d", subject, what, e.Limit, e.Max)
}

// checkInputSize applies MaxModuleBytes to a text or binary module.
func (e *Engine) checkInputSize(n int) error {
	if max := e.opts.MaxModuleBytes; max > 0 && n > max {
		return &LimitError{Limit: "MaxModuleBytes", Value: int64(n), Max: int64(max)}
	}
	return nil
}

// checkLimits applies the module shape limits of the engine's options.
func (e *Engine) checkLimits(m *bytecode.Module) error {
	o := &e.opts
	if o.MaxFunctions > 0 && len(m.Funcs) > o.MaxFunctions {
		return &LimitError{Limit: "MaxFunctions", Value: int64(len(m.Funcs)), Max: int64(o.MaxFunctions)}
	}
	for _, f := range m.Funcs {
		if size := bytecode.FuncSize(f); o.MaxFunctionInstrs > 0 && size > o.MaxFunctionInstrs {
			return &LimitError{Limit: "MaxFunctionInstrs", Func: f.Name, Value: int64(size), Max: int64(o.MaxFunctionInstrs)}
		}
		if o.MaxRegisters > 0 && len(f.Regs) > o.MaxRegisters {
			return &LimitError{Limit: "MaxRegisters", Func: f.Name, Value: int64(len(f.Regs)), Max: int64(o.MaxRegisters)}
		}
	}
	return nil
}

// DefaultMaxCompileBytes is the default Options.MaxCompileBytes: 2 GiB,
// which compiles functions of up to about 500,000 instructions.
const DefaultMaxCompileBytes = 2 << 30

// Compile memory per bytecode instruction and per register: the peak
// resident memory of a process compiling the pathological shapes
// (internal/testprogs.Pathological) at 100k and 300k instructions, Go's
// garbage-collection headroom included, rounded up. The worst shape is the
// deep loop nest at about 3.7 KB per instruction on the optimizing tier
// (2.9 KB on the baseline).
const (
	compileBytesPerInstr = 4 << 10
	compileBytesPerReg   = 256
	compileBytesFixed    = 64 << 10
)

// EstimateCompileBytes estimates the memory compiling f with a compiled
// tier allocates, from its instruction and register counts alone (so it
// costs nothing). Options.MaxCompileBytes bounds it, and also bounds, once
// the function is in SSA form, the estimate plus 64 bytes per entry of its
// blocks' live sets, which can grow quadratically with its size.
func EstimateCompileBytes(f *bytecode.Function, tier Tier) int64 {
	return estimateCompileBytes(len(f.Code), len(f.Regs), tier)
}

// estimateCompileBytes is EstimateCompileBytes of a function of instrs
// instructions and regs registers.
func estimateCompileBytes(instrs, regs int, tier Tier) int64 {
	if tier == TierInterp {
		return 0
	}
	return compileBytesFixed + compileBytesPerInstr*int64(instrs) + compileBytesPerReg*int64(regs)
}
