package bytecode

import "fmt"

// Limits bound the modules AssembleLimits and DecodeLimits accept, below
// the format's own limits (MaxFuncs, MaxCode, MaxRegs, MaxSwitchTable),
// for embedders that load modules they did not write. They are checked
// while the input is read, so that an input over a limit is refused as
// soon as it crosses it, before the rest is parsed or decoded. Zero
// leaves a limit off.
type Limits struct {
	// Funcs bounds the number of functions of the module.
	Funcs int
	// FuncSize bounds the size of one function: its instructions plus
	// the entries of its switch tables (FuncSize), which cost code as
	// instructions do.
	FuncSize int
	// Regs bounds the registers of one function, its parameters included.
	Regs int
}

// FuncSize returns the size of f as Limits.FuncSize counts it: its
// instructions plus the entries of its switch tables.
func FuncSize(f *Function) int {
	n := len(f.Code)
	for i := range f.Code {
		n += len(f.Code[i].Table)
	}
	return n
}

// LimitError says that a module exceeds one of the Limits.
type LimitError struct {
	// Limit names the field of Limits exceeded: "Funcs", "FuncSize" or
	// "Regs".
	Limit string
	// Func is the function that exceeds it, for the per-function limits.
	Func string
	// Value is the count that exceeds the limit: the module's or the
	// function's own where it was known (the binary form declares its
	// counts of functions and registers), else, with AtLeast set, the
	// count at which reading stopped, a lower bound of the real one.
	Value, Max int64
	// AtLeast says Value is where reading stopped, not the whole count.
	AtLeast bool
}

// Error describes the limit and the count over it.
func (e *LimitError) Error() string {
	what := map[string]string{"Funcs": "functions", "FuncSize": "instructions and switch table entries", "Regs": "registers"}[e.Limit]
	count := fmt.Sprint(e.Value)
	if e.AtLeast {
		count = "at least " + count
	}
	if e.Func != "" {
		return fmt.Sprintf("func %s has %s %s; the limit is %d", e.Func, count, what, e.Max)
	}
	return fmt.Sprintf("the module has %s %s; the limit is %d", count, what, e.Max)
}

// over returns the LimitError of the whole count value against limit max
// (0: no limit), or nil.
func (lim Limits) over(name, fn string, value, max int) error {
	if max > 0 && value > max {
		return &LimitError{Limit: name, Func: fn, Value: int64(value), Max: int64(max)}
	}
	return nil
}

// overSoFar is over for a count still being read: value is a lower bound.
func (lim Limits) overSoFar(name, fn string, value, max int) error {
	err := lim.over(name, fn, value, max)
	if err != nil {
		err.(*LimitError).AtLeast = true
	}
	return err
}
