package testprogs

import (
	"fmt"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// Shape names one pathological program shape: a module built to stress
// one dimension of the load and compile paths (nesting depth, block count,
// switch width, register count, function count, call depth, block length,
// irreducibility). Each is a valid module whose exported "main" takes one
// i64 and returns one i64 in a number of steps linear in its size, so every
// tier can load, compile and run it and the results can be compared.
type Shape struct {
	Name string
	// Doc says what the shape stresses.
	Doc string
	// Build returns the module with about n bytecode instructions in all.
	Build func(n int) *bc.Module
}

// Pathological lists the pathological shapes the scaling tests and
// benchmarks run at 1k, 10k and 100k instructions.
var Pathological = []Shape{
	{"deepnest", "loops nested n/3 deep, each header loading a cell and leaving on zero", DeepNest},
	{"chain", "a chain of n/4 forward diamonds, one value live across all of them", Chain},
	{"switch", "a switch with n/3 cases (at most bytecode.MaxSwitchTable per table)", HugeSwitch},
	{"switchloop", "a dispatch loop: a switch with n/5 cases, each updating two registers its own way and jumping back to the loop's header", SwitchLoop},
	{"switchcalls", "a switch with n/5 cases, each calling one of 16 functions with case-specific arguments before the join", SwitchCalls},
	{"switchfall", "a switch with n/3 cases, each case falling through into the next (as Duff's device)", SwitchFallthrough},
	{"registers", "n/2 registers all live at once, defined then summed", ManyRegisters},
	{"functions", "n/5 small functions, each called from main", ManyFunctions},
	{"callchain", "n/4 functions each calling the next: a call chain deeper than the call depth limit", CallChain},
	{"straight", "one block of n loads, stores and arithmetic on few registers", StraightLine},
	{"irreducible", "n/9 two-entry loops in sequence, each entered at either header", Irreducible},
	{"nestedirreducible", "two-entry loops nested n/7 deep", NestedIrreducible},
}

// mustBuild builds a module, panicking on a builder error: the generators
// only produce valid modules.
func mustBuild(b *bc.ModuleBuilder) *bc.Module {
	m, err := b.Build()
	if err != nil {
		panic(fmt.Sprintf("testprogs: pathological module: %v", err))
	}
	return m
}

var i64s = []bc.Type{bc.I64}

// DeepNest is the deep loop nest: d = n/3 loops, each header loads the
// cell at address 0 and leaves its loop when the cell is zero; the
// innermost body decrements the cell, so every loop runs its body once and
// then exits. main returns its argument plus the final cell (0).
func DeepNest(n int) *bc.Module {
	d := max(1, n/3)
	b := bc.NewModuleBuilder().Memory(1, 1)
	f := b.Func("main", i64s, i64s)
	x, addr, cell := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64)
	f.I64Const(addr, 0)
	f.I64Const(cell, 1)
	f.Store(bc.OpI64Store8, addr, cell, 0)
	heads, exits := make([]bc.Label, d), make([]bc.Label, d)
	for i := range d {
		heads[i], exits[i] = f.NewLabel(), f.NewLabel()
		f.Bind(heads[i])
		f.Load(bc.OpI64Load8U, cell, addr, 0)
		f.BrCmpImm(bc.OpBrEq, cell, 0, exits[i])
	}
	f.Load(bc.OpI64Load8U, cell, addr, 0)
	f.BinaryImm(bc.OpI64Sub, cell, cell, 1)
	f.Store(bc.OpI64Store8, addr, cell, 0)
	for i := d - 1; i >= 0; i-- {
		f.Jump(heads[i])
		f.Bind(exits[i])
	}
	f.Binary(bc.OpI64Add, x, x, cell)
	f.Return(x)
	b.Export("main", f)
	return mustBuild(b)
}

// Chain is a long chain of blocks: n/4 forward diamonds, each testing one
// bit of the argument and adding a constant when it is clear. The argument
// stays live from the first block to the last.
func Chain(n int) *bc.Module {
	k := max(1, n/4)
	b := bc.NewModuleBuilder()
	f := b.Func("main", i64s, i64s)
	x, t, acc := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64)
	for i := range k {
		skip := f.NewLabel()
		f.BinaryImm(bc.OpI64And, t, x, 1<<(i%63))
		f.BrCmpImm(bc.OpBrNe, t, 0, skip)
		f.BinaryImm(bc.OpI64Add, acc, acc, int64(i))
		f.Bind(skip)
	}
	f.Binary(bc.OpI64Add, acc, acc, x)
	f.Return(acc)
	b.Export("main", f)
	return mustBuild(b)
}

// HugeSwitch is a switch over n/3 cases (split into several switch
// instructions when that exceeds bytecode.MaxSwitchTable), each case
// setting the result to its own constant.
func HugeSwitch(n int) *bc.Module {
	cases := max(1, n/3)
	b := bc.NewModuleBuilder()
	f := b.Func("main", i64s, i64s)
	x, idx, acc := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64)
	end := f.NewLabel()
	switchCases(f, x, idx, cases, func(c int) {
		f.I64Const(acc, int64(c)*7+1)
		f.Jump(end)
	})
	f.I64Const(acc, -1)
	f.Bind(end)
	f.Return(acc)
	b.Export("main", f)
	return mustBuild(b)
}

// switchCases emits a switch on x over cases cases, split into switch
// instructions of at most bytecode.MaxSwitchTable cases each (t holds x
// less the first case of each), and calls body at each case's label with
// its number; the code after the last table is the default. A body that
// does not jump falls through into the next case's label.
func switchCases(f *bc.FuncBuilder, x, t bc.Reg, cases int, body func(c int)) {
	for done := 0; done < cases; {
		width := min(cases-done, bc.MaxSwitchTable)
		labels := make([]bc.Label, width)
		for i := range labels {
			labels[i] = f.NewLabel()
		}
		next := f.NewLabel()
		f.BinaryImm(bc.OpI64Sub, t, x, int64(done))
		f.Switch(t, labels, next)
		for i, l := range labels {
			f.Bind(l)
			body(done + i)
		}
		f.Bind(next)
		done += width
	}
}

// SwitchLoop is a dispatch loop, as an interpreter's: the header counts
// down from 64, and a switch over n/5 cases (split as in HugeSwitch)
// selects a case by the counter and the argument; each case updates the
// accumulator and a second register with its own constants and jumps back
// to the header, so the header has a predecessor per case and both
// registers a φ argument per case.
func SwitchLoop(n int) *bc.Module {
	cases := max(1, n/5)
	b := bc.NewModuleBuilder()
	f := b.Func("main", i64s, i64s)
	x, idx, t, acc, y, i := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64), f.NewReg(bc.I64), f.NewReg(bc.I64), f.NewReg(bc.I64)
	head, exit := f.NewLabel(), f.NewLabel()
	f.I64Const(i, 64)
	f.Bind(head)
	f.BrCmpImm(bc.OpBrEq, i, 0, exit)
	f.BinaryImm(bc.OpI64Sub, i, i, 1)
	f.Binary(bc.OpI64Add, idx, x, i)
	f.Binary(bc.OpI64Xor, idx, idx, y)
	f.BinaryImm(bc.OpI64RemU, idx, idx, int64(cases))
	switchCases(f, idx, t, cases, func(c int) {
		f.BinaryImm(bc.OpI64Add, acc, acc, int64(c)*3+1)
		f.BinaryImm(bc.OpI64Xor, y, y, int64(c)&0xff)
		f.Jump(head)
	})
	f.Jump(head)
	f.Bind(exit)
	f.Binary(bc.OpI64Add, acc, acc, y)
	f.Return(acc)
	b.Export("main", f)
	return mustBuild(b)
}

// SwitchCalls is a switch over n/5 cases (split as in HugeSwitch), each
// calling one of 16 small functions with the argument and a case-specific
// constant and carrying the result to the join: many values in the
// registers of the calling convention, and a φ with an argument per case.
func SwitchCalls(n int) *bc.Module {
	cases := max(1, n/5)
	b := bc.NewModuleBuilder()
	two := []bc.Type{bc.I64, bc.I64}
	callees := make([]*bc.FuncBuilder, 16)
	for k := range callees {
		g := b.Func(fmt.Sprintf("f%d", k), two, i64s)
		callees[k] = g
		g.Binary(bc.OpI64Xor, g.Param(0), g.Param(0), g.Param(1))
		g.BinaryImm(bc.OpI64Add, g.Param(0), g.Param(0), int64(k))
		g.Return(g.Param(0))
	}
	f := b.Func("main", i64s, i64s)
	x, idx, acc, k := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64), f.NewReg(bc.I64)
	end := f.NewLabel()
	f.I64Const(acc, -1)
	switchCases(f, x, idx, cases, func(c int) {
		f.I64Const(k, int64(c)*5+2)
		f.Call(callees[c%len(callees)].Index(), []bc.Reg{x, k}, []bc.Reg{acc})
		f.Jump(end)
	})
	f.Bind(end)
	f.Return(acc)
	b.Export("main", f)
	return mustBuild(b)
}

// SwitchFallthrough is a switch over n/3 cases (split as in HugeSwitch)
// whose cases fall through into the next one, as in Duff's device: each
// case block is entered from the switch and from the case before it, so
// each has a φ for the accumulator, whose value from the switch is live
// into every case.
func SwitchFallthrough(n int) *bc.Module {
	cases := max(1, n/3)
	b := bc.NewModuleBuilder()
	f := b.Func("main", i64s, i64s)
	x, idx, acc := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64)
	f.BinaryImm(bc.OpI64Mul, acc, x, 3)
	switchCases(f, x, idx, cases, func(c int) {
		f.BinaryImm(bc.OpI64Add, acc, acc, int64(c)|1)
		f.BinaryImm(bc.OpI64Rotl, acc, acc, 1)
	})
	f.Return(acc)
	b.Export("main", f)
	return mustBuild(b)
}

// ManyRegisters defines n/2 registers from the argument and then sums them
// in reverse order, so all of them are live at once.
func ManyRegisters(n int) *bc.Module {
	k := max(1, n/2)
	b := bc.NewModuleBuilder()
	f := b.Func("main", i64s, i64s)
	x, acc := f.Param(0), f.NewReg(bc.I64)
	regs := make([]bc.Reg, k)
	for i := range regs {
		regs[i] = f.NewReg(bc.I64)
		f.BinaryImm(bc.OpI64Mul, regs[i], x, int64(i+1))
	}
	for i := k - 1; i >= 0; i-- {
		f.Binary(bc.OpI64Xor, acc, acc, regs[i])
	}
	f.Return(acc)
	b.Export("main", f)
	return mustBuild(b)
}

// ManyFunctions is n/5 functions of two instructions each, all called
// from main, which threads its accumulator through them. The module has a
// memory that may grow, so what a compiler learns about the module as a
// whole (can memory move?) must be learnt once, not once per function.
func ManyFunctions(n int) *bc.Module {
	k := max(1, n/5)
	b := bc.NewModuleBuilder().Memory(1, 2)
	callees := make([]*bc.FuncBuilder, k)
	for i := range callees {
		g := b.Func(fmt.Sprintf("f%d", i), i64s, i64s)
		g.BinaryImm(bc.OpI64Add, g.Param(0), g.Param(0), int64(i))
		g.Return(g.Param(0))
		callees[i] = g
	}
	f := b.Func("main", i64s, i64s)
	x := f.Param(0)
	for _, g := range callees {
		f.Call(g.Index(), []bc.Reg{x}, []bc.Reg{x})
	}
	f.Return(x)
	b.Export("main", f)
	return mustBuild(b)
}

// CallChain is n/4 functions, each calling the next with its argument plus
// one; the last returns. Deeper than the default call depth limit, a call
// of main traps with a stack overflow on every tier at 100k instructions.
func CallChain(n int) *bc.Module {
	k := max(1, n/4)
	b := bc.NewModuleBuilder()
	fs := make([]*bc.FuncBuilder, k)
	for i := range fs {
		name := fmt.Sprintf("f%d", i)
		if i == 0 {
			name = "main"
		}
		fs[i] = b.Func(name, i64s, i64s)
	}
	for i, g := range fs {
		x := g.Param(0)
		if i+1 < k {
			g.BinaryImm(bc.OpI64Add, x, x, 1)
			g.Call(fs[i+1].Index(), []bc.Reg{x}, []bc.Reg{x})
			g.BinaryImm(bc.OpI64Mul, x, x, 3)
		}
		g.Return(x)
	}
	b.Export("main", fs[0])
	return mustBuild(b)
}

// StraightLine is one block of n instructions: loads and stores at
// addresses derived from the argument and a few constant offsets, mixed
// with arithmetic on eight registers.
func StraightLine(n int) *bc.Module {
	b := bc.NewModuleBuilder().Memory(1, 1)
	f := b.Func("main", i64s, i64s)
	x, addr := f.Param(0), f.NewReg(bc.I64)
	regs := make([]bc.Reg, 8)
	for i := range regs {
		regs[i] = f.NewReg(bc.I64)
		f.BinaryImm(bc.OpI64Add, regs[i], x, int64(i))
	}
	f.BinaryImm(bc.OpI64And, addr, x, 0xff00)
	for i := 0; f.Len() < n; i++ {
		r, s := regs[i%8], regs[(i*5+3)%8]
		switch i % 4 {
		case 0:
			f.Store(bc.OpI64Store, addr, r, int32(8*(i%32)))
		case 1:
			f.Load(bc.OpI64Load, r, addr, int32(8*((i*7)%32)))
		case 2:
			f.Binary(bc.OpI64Add, r, r, s)
		case 3:
			f.Binary(bc.OpI64Xor, s, s, r)
		}
	}
	acc := regs[0]
	for _, r := range regs[1:] {
		f.Binary(bc.OpI64Add, acc, acc, r)
	}
	f.Return(acc)
	b.Export("main", f)
	return mustBuild(b)
}

// Irreducible is n/9 two-entry loops in sequence: each is entered at A or
// at B depending on a bit of the argument, and A and B branch to each other
// until a counter runs out.
func Irreducible(n int) *bc.Module {
	k := max(1, n/9)
	b := bc.NewModuleBuilder()
	f := b.Func("main", i64s, i64s)
	x, t, c, acc := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64), f.NewReg(bc.I64)
	for i := range k {
		a, bb, out := f.NewLabel(), f.NewLabel(), f.NewLabel()
		f.I64Const(c, 3)
		f.BinaryImm(bc.OpI64And, t, x, 1<<(i%63))
		f.BrCmpImm(bc.OpBrNe, t, 0, bb)
		f.Bind(a)
		f.BinaryImm(bc.OpI64Add, acc, acc, 1)
		f.BinaryImm(bc.OpI64Sub, c, c, 1)
		f.BrCmpImm(bc.OpBrEq, c, 0, out)
		f.Bind(bb)
		f.BinaryImm(bc.OpI64Add, acc, acc, 2)
		f.Jump(a)
		f.Bind(out)
	}
	f.Return(acc)
	b.Export("main", f)
	return mustBuild(b)
}

// NestedIrreducible nests two-entry loops n/7 deep, the irreducible twin
// of DeepNest: level i is entered at its header A or its header B by a bit
// of the argument; A loads the cell at address 0 and leaves the level when
// it is zero, else runs the next level; B jumps to A. The innermost body
// clears the cell, so every level runs its body once. The levels share
// their registers (as DeepNest's do): with a counter register per level,
// d counters would each be live across the O(d) blocks inside their level,
// and live sets of Θ(d²) entries are the size of the liveness itself, not
// a cost any allocator could avoid.
func NestedIrreducible(n int) *bc.Module {
	d := max(1, n/7)
	b := bc.NewModuleBuilder().Memory(1, 1)
	f := b.Func("main", i64s, i64s)
	x, t, addr, cell := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64), f.NewReg(bc.I64)
	f.I64Const(addr, 0)
	f.I64Const(cell, 1)
	f.Store(bc.OpI64Store8, addr, cell, 0)
	as, bs, outs := make([]bc.Label, d), make([]bc.Label, d), make([]bc.Label, d)
	for i := range d {
		as[i], bs[i], outs[i] = f.NewLabel(), f.NewLabel(), f.NewLabel()
		f.BinaryImm(bc.OpI64And, t, x, 1<<(i%63))
		f.BrCmpImm(bc.OpBrNe, t, 0, bs[i])
		f.Bind(as[i])
		f.Load(bc.OpI64Load8U, cell, addr, 0)
		f.BrCmpImm(bc.OpBrEq, cell, 0, outs[i])
	}
	f.I64Const(cell, 0)
	f.Store(bc.OpI64Store8, addr, cell, 0)
	for i := d - 1; i >= 0; i-- {
		f.Bind(bs[i])
		f.Jump(as[i])
		f.Bind(outs[i])
	}
	f.Binary(bc.OpI64Add, x, x, cell)
	f.Return(x)
	b.Export("main", f)
	return mustBuild(b)
}
