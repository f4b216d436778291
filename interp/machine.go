package interp

import (
	"context"
	"errors"
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
)

// HostFunc is a host function as the interpreter calls it: it reads its
// arguments from args and writes its results to results (f64 values as
// their bits). ctx is the context of the call that is running. A non-nil
// error stops execution with a HostError trap wrapping it.
type HostFunc func(ctx context.Context, args, results []uint64) error

// Config holds the limits of a Machine.
type Config struct {
	// MaxCallDepth is the most frames that may be active at once, nested
	// host-to-bytecode calls included. Exceeding it traps StackOverflow.
	MaxCallDepth int
	// MaxStackSlots is the most register slots (8 bytes each) all active
	// frames may use together. Exceeding it traps StackOverflow.
	MaxStackSlots int
	// Fuel, when positive, is the number of backward branches and calls a
	// call from Go may execute; the next one traps FuelExhausted. Zero means
	// unlimited.
	Fuel int64
}

// Default limits.
const (
	DefaultMaxCallDepth  = 10000
	DefaultMaxStackSlots = 1 << 22 // 32 MiB of registers
)

// PollInterval is how many backward branches and calls run between two
// checks of the context (and charges of fuel).
const PollInterval = 1024

// Memory is an instance's linear memory. Bytes always holds exactly
// Pages()*PageSize bytes.
type Memory struct {
	Bytes []byte
	// MaxPages is the size Grow may reach: the module's maximum, lowered by
	// the embedder's limit.
	MaxPages uint32
}

// NewMemory returns a zeroed memory of minPages pages that may grow to
// maxPages.
func NewMemory(minPages, maxPages uint32) *Memory {
	return &Memory{Bytes: make([]byte, int(minPages)*bytecode.PageSize), MaxPages: maxPages}
}

// Pages returns the memory's size in pages.
func (m *Memory) Pages() uint64 { return uint64(len(m.Bytes)) / bytecode.PageSize }

// Grow adds delta zeroed pages and returns the previous size in pages, or -1
// (changing nothing) if the memory would exceed MaxPages. Growing may move
// Bytes.
func (m *Memory) Grow(delta uint64) int64 {
	old := m.Pages()
	if delta > uint64(m.MaxPages) || old+delta > uint64(m.MaxPages) {
		return -1
	}
	newLen := int((old + delta) * bytecode.PageSize)
	if newLen <= cap(m.Bytes) {
		// Bytes between len and cap were never written: they are zero.
		m.Bytes = m.Bytes[:newLen]
		return int64(old)
	}
	newCap := 2 * cap(m.Bytes)
	if max := int(m.MaxPages) * bytecode.PageSize; newCap > max {
		newCap = max
	}
	if newCap < newLen {
		newCap = newLen
	}
	b := make([]byte, newLen, newCap)
	copy(b, m.Bytes)
	m.Bytes = b
	return int64(old)
}

// frame records a caller while its callee runs.
type frame struct {
	fn   int32 // the caller's function index
	pc   int32 // offset of the call instruction in the caller
	base int32 // first register slot of the caller
}

// Machine runs a Program for one instance. It is not safe for concurrent
// use; host functions may call back into it on the same goroutine.
type Machine struct {
	prog   *Program
	Memory *Memory
	// Counters holds each function's edge counters (see package
	// profilecounters for the layout).
	Counters [][]uint64
	hosts    []HostFunc
	cfg      Config

	stack  []uint64
	frames []frame
	sp     int // first stack slot above the innermost frame during host calls
	active int // number of exec loops running (nested through host calls)

	poll Poller
}

// NewMachine returns a machine for p with the given host functions (one per
// module host import, in order) and memory.
func NewMachine(p *Program, cfg Config, hosts []HostFunc, mem *Memory) (*Machine, error) {
	if len(hosts) != len(p.Module.Hosts) {
		return nil, fmt.Errorf("interp: %d host functions for %d host imports", len(hosts), len(p.Module.Hosts))
	}
	for i, h := range hosts {
		if h == nil {
			return nil, fmt.Errorf("interp: host function %d (%s) is nil", i, p.Module.Hosts[i].Name)
		}
	}
	if mem == nil {
		return nil, errors.New("interp: nil memory")
	}
	if cfg.MaxCallDepth <= 0 {
		cfg.MaxCallDepth = DefaultMaxCallDepth
	}
	if cfg.MaxStackSlots <= 0 {
		cfg.MaxStackSlots = DefaultMaxStackSlots
	}
	m := &Machine{prog: p, Memory: mem, hosts: hosts, cfg: cfg, Counters: make([][]uint64, len(p.funcs))}
	for i, l := range p.Layouts {
		m.Counters[i] = l.NewCounters()
	}
	return m, nil
}

// Program returns the program the machine runs.
func (m *Machine) Program() *Program { return m.prog }

// Call runs function fn with args and stores its results in results (whose
// length must match the function's signature). It returns a *bytecode.Trap
// when execution traps. Call may be used re-entrantly from a host function
// running on this machine; the nested call shares the limits and fuel of the
// outermost call and is polled against its own ctx.
func (m *Machine) Call(ctx context.Context, fn int, args, results []uint64) error {
	if fn < 0 || fn >= len(m.prog.funcs) {
		return fmt.Errorf("interp: function index %d out of range", fn)
	}
	f := m.prog.funcs[fn]
	if len(args) != f.nparams || len(results) != f.nres {
		return fmt.Errorf("interp: func %s takes %d arguments and returns %d results; got %d and %d",
			f.name, f.nparams, f.nres, len(args), len(results))
	}
	outermost := m.active == 0
	saved, kind, cause := m.poll.Enter(ctx, outermost, m.cfg.Fuel)
	var err error
	if kind != bytecode.TrapNone {
		err = &bytecode.Trap{Kind: kind, Func: uint32(fn), FuncName: f.name, Cause: cause}
	} else {
		err = m.run(fn, args, results)
	}
	m.poll.Leave(saved, outermost)
	return err
}

// FuelLeft returns the fuel the last (or running) outermost call has not
// spent, or -1 when it had no fuel limit.
func (m *Machine) FuelLeft() int64 { return m.poll.FuelLeft() }

// run sets up fn's frame above the stack pointer and executes it.
func (m *Machine) run(fn int, args, results []uint64) error {
	f := m.prog.funcs[fn]
	base := m.sp
	if len(m.frames)+m.active >= m.cfg.MaxCallDepth {
		return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: f.name}
	}
	if !m.ensureStack(base + f.nregs) {
		return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: f.name}
	}
	copy(m.stack[base:], args)
	clear(m.stack[base+len(args) : base+f.nregs])
	m.Counters[fn][0]++
	framesBase := len(m.frames)
	m.active++
	err := m.exec(fn, base, framesBase, results)
	m.active--
	m.frames = m.frames[:framesBase]
	m.sp = base
	return err
}

// ensureStack grows the register stack to more than n slots (one spare
// slot keeps the window pointer of an empty frame inside the allocation).
// It reports false when n would exceed MaxStackSlots.
func (m *Machine) ensureStack(n int) bool {
	if n < len(m.stack) {
		return true
	}
	if n > m.cfg.MaxStackSlots {
		return false
	}
	size := max(2*len(m.stack), n+1, 1024)
	size = min(size, m.cfg.MaxStackSlots+1)
	s := make([]uint64, size)
	copy(s, m.stack)
	m.stack = s
	return true
}

func (m *Machine) trap(kind bytecode.TrapKind, fn, pc int) *bytecode.Trap {
	return &bytecode.Trap{Kind: kind, Func: uint32(fn), FuncName: m.prog.funcs[fn].name, Offset: pc}
}
