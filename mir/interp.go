package mir

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
)

// The mir interpreter (Machine) runs machine IR in any form with exactly
// the semantics of package interp, so that every back-end stage can be
// tested by running its output and comparing it with the reference
// interpreter.
//
// Model. Values are uint64: f64 values as their bits, i32 values
// zero-extended (every L op reads the low 32 bits of its operands and
// writes a zero-extended result, as x86-64 does), f32 values as their bits
// in the low 32 bits of an XMM cell. The machine leaves bits 32..63 of an
// XMM register holding an f32 undefined and no op reads them; the
// interpreter defines them as zero in every f32 result (MOVSSconst,
// MOVSSload, the SS arithmetic, CVTSD2SS, ...), so every f32 it computes
// has its upper half zero. Float results have the bits
// x86's SSE instructions produce, NaNs included (package floatbits). Each
// frame has one window of cells: the 32 physical registers, the virtual
// registers, the stack slots, the outgoing and incoming stack-argument
// areas and the arguments of the call. Every cell is either defined or
// undefined; a frame starts with every cell undefined (except the
// arguments, and in allocated form their calling-convention locations).
// Pure moves (φ, ParCopy, Copy, Spill, Reload, Xchg, MOVQ2X, MOVX2Q,
// MOVL2X and MOVX2L (which keep the low 32 bits), Arg, the selected
// operand of CMOVQCC and the arguments and results of calls between kiln
// functions) copy definedness along with the value, as real machine code
// copies garbage without harm; every other read of an undefined cell, and
// every value that leaves the machine (host-call arguments, results
// returned to Go, stored values, addresses, divisors, branch conditions),
// is a Fault.
//
// Calls emulate kiln's calling convention: after a CALL, CALLHOST or CALLRT
// the caller's CallerSaved registers are undefined except those receiving
// results, and its callee-saved registers keep their values (the callee
// runs in its own window). The callee's incoming stack-argument area is a
// copy of the caller's outgoing area, copied back when the callee returns.
// In allocated and pinned code, any other instruction with a Clobbers set
// leaves those registers, but the ones it defines, undefined.
//
// Pinned non-SSA code (FormNonSSA with Func.Pins set) runs a pinned
// virtual register in the cell of its physical register: virtual registers
// pinned to one register share that cell, so one overwrites the other, and
// clobbers and calls make them undefined exactly as they do the physical
// register in allocated code. As in allocated form, the arguments are also
// in their calling-convention locations on entry. Unpinned virtual
// registers keep cells of their own.

// InterpMemBase is the address the interpreter reports as the base of
// linear memory (OpCtxLoad #CtxMemBase). Loads and stores subtract it from
// their effective address to find the byte they access.
const InterpMemBase uint64 = 0x7f0000000000

// Fault reports something the interpreted code did that real machine code
// would do wrong, or that shows the IR was miscompiled: reading an
// undefined register or flags, accessing memory outside linear memory,
// dividing by zero, a jump-table index out of range, malformed operands.
// Block and Instr locate the instruction (Instr may equal the block's
// length for a block without terminator; both are -1 when the fault is
// about the function as a whole).
type Fault struct {
	Func         string
	Block, Instr int
	Op           Op
	Msg          string
}

// Error formats the fault, e.g. "mir: fault in fib b3[2] (MOVQload):
// address 0x7f0000010000 outside memory".
func (e *Fault) Error() string {
	switch {
	case e.Block < 0:
		return fmt.Sprintf("mir: fault in %s: %s", e.Func, e.Msg)
	case e.Instr < 0:
		return fmt.Sprintf("mir: fault in %s b%d: %s", e.Func, e.Block, e.Msg)
	}
	return fmt.Sprintf("mir: fault in %s b%d[%d] (%s): %s", e.Func, e.Block, e.Instr, e.Op, e.Msg)
}

// Machine interprets a set of mir functions (one per bytecode function of a
// module, funcs[i].Index == i) against host functions and a linear memory,
// with the limits, fuel and polling of interp.Machine. It is not safe for
// concurrent use; host functions may call back into it on the same
// goroutine. The functions must not change while the machine uses them.
type Machine struct {
	funcs    []*Func
	resolved []*irFunc
	// Memory is the linear memory the code accesses.
	Memory *interp.Memory
	// Counters holds each function's counters, incremented by OpCount
	// (Counters[fn][Aux]). NewMachine sizes Counters[fn] to the largest
	// Aux of fn's OpCount instructions plus one; callers may replace the
	// slices before running. A Count beyond its slice is a Fault.
	Counters [][]uint64
	// Globals holds the module's globals, one uint64 each as
	// interp.Machine.Globals holds them; GLOBALload and GLOBALstore
	// access Globals[Aux]. Callers set it before running (an access
	// beyond it is a Fault).
	Globals []uint64
	// Table holds the entries of the module's table packed as TableEntry
	// packs them; TABLEload reads Table[index]. Callers set it before
	// running (an index beyond it is a Fault).
	Table []uint64
	// Segments is the state of the instance's data segments, which the
	// runtime functions RTMemoryInit and RTDataDrop use; a CALLRT of
	// either is a Fault while it is nil.
	Segments *interp.Segments
	// Tables is the state of the instance's tables when they change
	// (bytecode.Module.DynamicTables), which the table runtime functions
	// use; they keep Table equal to Tables.Words().
	Tables *interp.Tables
	// CountExecutions makes the machine count how often it executes each
	// instruction (see Executions). Set it before the first call.
	CountExecutions bool
	hosts           []interp.HostFunc
	cfg             interp.Config

	cells  []irCell  // the windows of all active frames
	frames []irFrame // suspended callers of the running exec loops
	sp     int       // first free cell during host calls
	vals   []uint64  // host-call argument and result buffers
	valTop int       // first free entry of vals
	tmp    []irCell  // scratch for parallel moves
	active int       // exec loops running (nested through host calls)

	poll interp.Poller
}

// irCell is one location of a frame: a value and whether it is defined.
type irCell struct {
	v  uint64
	ok bool
}

// irFrame records a caller while its callee runs.
type irFrame struct {
	fn   int32 // the caller's function index
	ip   int32 // index of the CALL in the caller's code
	base int32 // first cell of the caller's window
}

// NewMachine returns a machine running funcs (funcs[i].Index must be i)
// with the given host functions (indexed by CALLHOST's Aux) and memory.
// Zero limits in cfg take interp's defaults. Functions are prepared for
// execution on their first call.
func NewMachine(funcs []*Func, cfg interp.Config, hosts []interp.HostFunc, mem *interp.Memory) (*Machine, error) {
	for i, f := range funcs {
		if f == nil {
			return nil, fmt.Errorf("mir: function %d is nil", i)
		}
		if f.Index != i {
			return nil, fmt.Errorf("mir: function %s has index %d at position %d", f.Name, f.Index, i)
		}
	}
	for i, h := range hosts {
		if h == nil {
			return nil, fmt.Errorf("mir: host function %d is nil", i)
		}
	}
	if mem == nil {
		return nil, errors.New("mir: nil memory")
	}
	if cfg.MaxCallDepth <= 0 {
		cfg.MaxCallDepth = interp.DefaultMaxCallDepth
	}
	if cfg.MaxStackSlots <= 0 {
		cfg.MaxStackSlots = interp.DefaultMaxStackSlots
	}
	m := &Machine{
		funcs:    funcs,
		resolved: make([]*irFunc, len(funcs)),
		Memory:   mem,
		Counters: make([][]uint64, len(funcs)),
		hosts:    hosts,
		cfg:      cfg,
	}
	for i, f := range funcs {
		n := -1
		for _, b := range f.Blocks {
			if b == nil {
				continue
			}
			for _, in := range b.Instrs {
				if in != nil && (in.Op == OpCount || in.Op == OpCountAdd) && int(in.Aux) > n && in.Aux < irMaxCounters {
					n = int(in.Aux)
				}
			}
		}
		if n >= 0 {
			m.Counters[i] = make([]uint64, n+1)
		}
	}
	return m, nil
}

// irMaxCounters bounds the counter slices NewMachine allocates.
const irMaxCounters = 1 << 24

// Call runs function fn with args and stores its results in results, with
// the contract of interp.Machine.Call: f64 values as their bits; a
// *bytecode.Trap (Offset = the trapping instruction's Pos) when execution
// traps; a *Fault when the code misbehaves. Call may be used re-entrantly
// from a host function; the nested call shares the depth limit and fuel of
// the outermost call and is polled against its own ctx.
func (m *Machine) Call(ctx context.Context, fn int, args, results []uint64) error {
	if fn < 0 || fn >= len(m.funcs) {
		return fmt.Errorf("mir: function index %d out of range", fn)
	}
	f := m.funcs[fn]
	if len(args) != len(f.Params) || len(results) != len(f.Results) {
		return fmt.Errorf("mir: func %s takes %d arguments and returns %d results; got %d and %d",
			f.Name, len(f.Params), len(f.Results), len(args), len(results))
	}
	outermost := m.active == 0
	saved, kind, cause := m.poll.Enter(ctx, outermost, m.cfg.Fuel)
	var err error
	if kind != bytecode.TrapNone {
		err = &bytecode.Trap{Kind: kind, Func: uint32(fn), FuncName: f.Name, Cause: cause}
	} else {
		err = m.run(fn, args, results)
	}
	m.poll.Leave(saved, outermost)
	return err
}

// pollAt runs the budget's slow path for the Poll at ip of f.
func (m *Machine) pollAt(f *irFunc, ip int) error {
	kind, cause := m.poll.Slow()
	if kind == bytecode.TrapNone {
		return nil
	}
	t := m.trap(kind, f, ip)
	t.Cause = cause
	return t
}

// FuelLeft returns the fuel the last (or running) outermost call has not
// spent, or -1 when it had no fuel limit.
func (m *Machine) FuelLeft() int64 { return m.poll.FuelLeft() }

// run sets up fn's frame above the cells in use and executes it.
func (m *Machine) run(fn int, args, results []uint64) error {
	g := m.prepare(fn)
	base := m.sp
	if len(m.frames)+m.active >= m.cfg.MaxCallDepth {
		return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: g.name}
	}
	m.ensureCells(base + g.nCells)
	regs := m.cells[base : base+g.nCells]
	irEnter(regs)
	for k, a := range args {
		c := irCell{a, true}
		regs[g.argOff+k] = c
		if g.argLocs != nil {
			regs[g.argLocs[k]] = c
		}
	}
	framesBase := len(m.frames)
	m.active++
	err := m.exec(g, base, framesBase, results)
	m.active--
	m.frames = m.frames[:framesBase]
	m.sp = base
	return err
}

// irEnter initialises a new frame's window: everything undefined but the
// zero cell.
func irEnter(regs []irCell) {
	clear(regs)
	regs[0].ok = true
}

// ensureCells grows the cell stack to at least n cells.
func (m *Machine) ensureCells(n int) {
	if n <= len(m.cells) {
		return
	}
	c := make([]irCell, max(2*len(m.cells), n, 1024))
	copy(c, m.cells)
	m.cells = c
}

// prepare returns the resolved form of function fn, resolving it on first
// use.
func (m *Machine) prepare(fn int) *irFunc {
	if r := m.resolved[fn]; r != nil {
		return r
	}
	r := m.resolve(m.funcs[fn])
	if m.CountExecutions {
		r.execs = make([]uint64, len(r.code))
	}
	m.resolved[fn] = r
	return r
}

// Executions calls visit with every instruction of function fn that ran
// since the machine was made, its block and index, and how often it ran,
// when CountExecutions is set. Moves the machine performs on CFG edges
// (φ operands) are not instructions and are not reported.
func (m *Machine) Executions(fn int, visit func(block, index int, in *Instr, n uint64)) {
	if fn < 0 || fn >= len(m.resolved) || m.resolved[fn] == nil {
		return
	}
	r := m.resolved[fn]
	for ip, n := range r.execs {
		if l := r.loc[ip]; n != 0 && l.in != nil {
			visit(int(l.blk), int(l.idx), l.in, n)
		}
	}
}

// trap returns a trap of the given kind at the instruction at ip of f.
func (m *Machine) trap(kind bytecode.TrapKind, f *irFunc, ip int) *bytecode.Trap {
	return &bytecode.Trap{Kind: kind, Func: uint32(f.index), FuncName: f.name, Offset: int(f.loc[ip].pos)}
}

// fault returns a Fault at the instruction at ip of f.
func (m *Machine) fault(f *irFunc, ip int, format string, args ...any) *Fault {
	l := &f.loc[ip]
	return &Fault{Func: f.name, Block: int(l.blk), Instr: int(l.idx), Op: l.op, Msg: fmt.Sprintf(format, args...)}
}

// faultUndef returns the Fault for an instruction at ip that read an
// undefined cell, naming the first undefined operand.
func (m *Machine) faultUndef(f *irFunc, ip int, regs []irCell) *Fault {
	l := &f.loc[ip]
	if l.in != nil {
		for i, r := range l.in.Uses {
			if c, ok := f.cellOf(r, true); ok && !regs[c].ok {
				return m.fault(f, ip, "use %d (%s) is undefined", i, f.regName(r))
			}
		}
	}
	return m.fault(f, ip, "reads an undefined value")
}

// faultFlags returns the Fault for a flag reader at ip whose flags are
// undefined; fw is the last flag writer of the frame or -1.
func (m *Machine) faultFlags(f *irFunc, ip int, fw int32, c Cond) *Fault {
	if fw < 0 {
		return m.fault(f, ip, "reads flags (condition %s) no instruction of the frame has set", c)
	}
	w := &f.loc[fw]
	return m.fault(f, ip, "reads flags (condition %s) left undefined by b%d[%d] (%s)", c, w.blk, w.idx, w.op)
}

// faultMem returns the Fault for an access of size bytes at offset off from
// the memory base.
func (m *Machine) faultMem(f *irFunc, ip int, off uint64, size int, memLen int) *Fault {
	return m.fault(f, ip, "address %#x (%d bytes) outside memory [%#x, %#x)",
		off+InterpMemBase, size, InterpMemBase, InterpMemBase+uint64(memLen))
}

// indirectCallee returns the function a CALLIND calls: the one whose index
// the call's index cell holds, which must exist and take and return the
// classes the call passes and receives (compiled code has checked its
// signature before the call), or a fault message.
func (m *Machine) indirectCallee(c *irCall, regs []irCell) (*irFunc, string) {
	v := regs[c.index]
	if !v.ok {
		return nil, "the callee index is undefined"
	}
	if v.v >= uint64(len(m.funcs)) {
		return nil, fmt.Sprintf("callee index %d out of range (%d functions)", v.v, len(m.funcs))
	}
	if c.checked == int32(v.v)+1 {
		return m.prepare(int(v.v)), ""
	}
	callee := m.funcs[v.v]
	if !classesFit(callee.Params, c.argClass) || !classesFit(callee.Results, c.resultClass) {
		return nil, fmt.Sprintf("callee %s takes %v and returns %v; the call passes %v and receives %v",
			callee.Name, callee.Params, callee.Results, c.argClass, c.resultClass)
	}
	if c.argLocs != nil || c.resultLocs != nil {
		args, results := ArgLocations(callee.Params, false), ResultLocations(callee.Params, callee.Results, false)
		if !slices.Equal(args, c.argLocs) || !slices.Equal(results, c.resultLocs) {
			return nil, fmt.Sprintf("callee %s takes its arguments in %v and returns its results in %v; the call passes %v and receives %v",
				callee.Name, args, results, c.argLocs, c.resultLocs)
		}
	}
	c.checked = int32(v.v) + 1
	return m.prepare(int(v.v)), ""
}

// classesFit reports whether the operand classes of a call fit a
// signature's: the same, but where an operand is a stack slot (ClassNone).
func classesFit(sig, operands []Class) bool {
	if len(sig) != len(operands) {
		return false
	}
	for i, c := range operands {
		if c != ClassNone && c != sig[i] {
			return false
		}
	}
	return true
}
