package interp

import (
	"context"
	"errors"
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/gostack"
)

// HostFunc is a host function as the interpreter calls it: it reads its
// arguments from args and writes its results to results (f64 values as
// their bits; i32 and f32 values, the f32 as its bits, in the low 32 bits:
// the arguments' upper halves are zero and the results' are ignored). ctx
// is the context of the call that is running. A non-nil error stops
// execution with a HostError trap wrapping it. A panic in a host function
// ends the call with a HostPanic trap when Config.RecoverHostPanic is set,
// and propagates out of Machine.Call otherwise; either way the machine
// restores its state (see Machine.Call).
type HostFunc func(ctx context.Context, args, results []uint64) error

// Config holds the limits of a Machine.
type Config struct {
	// MaxCallDepth is the most frames that may be active at once, nested
	// host-to-bytecode calls included. Exceeding it traps StackOverflow.
	// NewMachine lowers it to MaxStackSlots/2: a frame's record costs
	// about two slots, so the frames of a call never take more memory
	// than its registers may.
	MaxCallDepth int
	// MaxStackSlots is the most register slots (8 bytes each) all active
	// frames may use together. Exceeding it traps StackOverflow. It may
	// not exceed MaxStackSlotsLimit.
	MaxStackSlots int
	// MaxGoStack is the most bytes of Go stack a call's nested calls may
	// take beyond what the outermost call found in use: each call back
	// into the machine from a host function, and each call of a function
	// that runs outside the machine (SetExternal) or from outside it
	// (CallAt), nests on the goroutine's stack. A nested call that finds
	// more in use traps StackOverflow, as does one that finds the
	// goroutine's stack beyond MaxGoStackLimit whatever the budget. Zero
	// means DefaultMaxGoStack; it may not exceed MaxGoStackLimit.
	MaxGoStack int
	// Fuel, when positive, is the number of backward branches and calls a
	// call from Go may execute; the next one traps FuelExhausted. Zero means
	// unlimited.
	Fuel int64
	// RecoverHostPanic, when not nil, makes a panic in a host function end
	// the call that ran it (the innermost Call, when calls nest) with a
	// bytecode.TrapHostPanic trap at the call_host instruction, as if the
	// host function had returned an error. The trap's Cause is what
	// RecoverHostPanic returns for the host import's index and the value
	// recovered from the panic. It runs in the deferred function that
	// recovers the panic, so the panicking frames are still on the stack
	// (runtime.Callers sees them). It also runs, with a nil value, when a
	// host function calls runtime.Goexit, which goes on unwinding. When
	// RecoverHostPanic is nil, panics propagate out of Call.
	RecoverHostPanic func(host int, value any) error
}

// Default limits.
const (
	DefaultMaxCallDepth  = 10000
	DefaultMaxStackSlots = 1 << 22 // 32 MiB of registers
	// MaxStackSlotsLimit is the largest MaxStackSlots a machine takes:
	// 256 MiB of registers.
	MaxStackSlotsLimit = 1 << 25
	// DefaultMaxGoStack is the default Config.MaxGoStack: 64 MiB, some
	// 20,000 levels of host functions calling back into the machine.
	DefaultMaxGoStack = 64 << 20
	// MaxGoStackLimit is the largest MaxGoStack a machine takes, and the
	// most Go stack a goroutine may have in use, its caller's frames
	// included, for a nested call to start: a quarter of Go's default
	// maximum goroutine stack, so that Go's fatal stack overflow is out of
	// reach (see package internal/gostack).
	MaxGoStackLimit = gostack.Ceiling
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
	// globals holds the module's globals (see Globals); table is the
	// program's table until SetTable or SetTableEntry gives the machine
	// its own (ownTable).
	globals  []uint64
	table    []tableEntry
	ownTable bool
	// segs is the state of the instance's segments, tables that of its
	// tables when they change (nil otherwise).
	segs   *Segments
	tables *Tables

	stack []uint64
	// frames holds the records of the callers of the innermost frame:
	// the innermost chunk of them; frameChunks holds the full chunks
	// below it (framesBelow records), spareChunk an empty chunk kept for
	// reuse (see frameChunk).
	frames      []frame
	frameChunks [][]frame
	framesBelow int
	spareChunk  []frame
	sp          int // first stack slot above the innermost frame during host calls
	active      int // number of exec loops running (nested through host calls)
	// hostSite is the function index (high 32 bits) and offset (low 32
	// bits) of the call_host instruction whose host function is running,
	// in the innermost Call; -1 when none is.
	hostSite int64

	poll Poller
	// entries counts the calls that entered the machine from outside
	// (Call, CallAt): the calls its code makes are charged to the
	// poller's budget, these are not (see Entries).
	entries uint64

	// OSR, when set, is offered every frame that takes a backward branch
	// when the budget's slow path runs (so that it is offered regularly,
	// set the Poller's Periodic): fn is the frame's function, header the
	// instruction it is about to continue at, regs its registers, depth
	// what the frame's calls are checked against (a call is refused when
	// depth reaches Config.MaxCallDepth). When it returns true it has run
	// the rest of the frame's
	// call elsewhere (on-stack replacement) with the machine's context and
	// fuel (Poller), and written the call's results to results; the frame
	// returns them. An error is the call's.
	OSR        func(fn, header int, regs []uint64, depth int, results []uint64) (bool, error)
	osrResults []uint64

	// external marks the functions whose calls callOut runs (SetExternal);
	// extDepth is the depth of the frames outside the machine that the
	// innermost CallAt runs below.
	external []bool
	callOut  ExternalCall
	extDepth int
}

// ExternalCall runs function fn outside the machine for a call the
// machine's code makes (see Machine.SetExternal): with args, writing
// results, as a frame at call depth depth (a call it makes is refused when
// depth reaches Config.MaxCallDepth), under the machine's running call's
// context and fuel (its Poller). Its error, a trap for instance, is the
// call's.
type ExternalCall func(fn int, args, results []uint64, depth int) error

// SetExternal makes the machine's calls of every function marked in funcs
// (indexed like the module's functions; call and call_indirect alike) run
// through call instead of the interpreter: a module some of whose
// functions run in compiled code. The machine does not count the entries
// of those functions. nil funcs makes every function interpreted again.
// It may be called between calls, or by a hook of a running call
// (Machine.OSR) on the machine's goroutine: the calls made after it take
// the new marks, frames already running finish where they are.
func (m *Machine) SetExternal(funcs []bool, call ExternalCall) error {
	if funcs == nil {
		m.external, m.callOut = nil, nil
		return nil
	}
	if len(funcs) != len(m.prog.funcs) {
		return fmt.Errorf("interp: %d external marks for %d functions", len(funcs), len(m.prog.funcs))
	}
	if call == nil {
		return errors.New("interp: external functions without a call")
	}
	m.external, m.callOut = funcs, call
	return nil
}

// CallAt runs function fn for code outside the machine (a compiled
// function's call of an interpreted one) as a frame at call depth depth,
// within the running call: under the Poller's current context and fuel,
// which it does not reset. Traps, host panics and the machine's state on
// the way out are as for Call.
func (m *Machine) CallAt(fn int, args, results []uint64, depth int) (err error) {
	if err := m.checkCall(fn, args, results); err != nil {
		return err
	}
	s := callState{active: m.active, frames: m.numFrames(), framesBelow: m.framesBelow, sp: m.sp, hostSite: m.hostSite, extDepth: m.extDepth, within: true}
	m.extDepth = depth - 1 - m.numFrames() - m.active
	m.hostSite = -1
	defer m.leave(&s, &err)
	if m.poll.GoStackOver(m.cfg.MaxGoStack, m.active) {
		return m.overflow(fn)
	}
	return m.run(fn, args, results)
}

// Entries returns how many calls have entered the machine from outside
// its code (Call, and CallAt). With the poller's Spent (each call the
// machine's code makes and each backward branch it takes charges a poll)
// it bounds how much any of the entry and edge counters can have grown
// since an earlier reading, without reading them.
func (m *Machine) Entries() uint64 { return m.entries }

// Poller returns the machine's poller, which code that continues one of
// its calls elsewhere (Machine.OSR) shares for the call's context and
// fuel.
func (m *Machine) Poller() *Poller { return &m.poll }

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
	if cfg.MaxStackSlots > MaxStackSlotsLimit {
		return nil, fmt.Errorf("interp: MaxStackSlots %d is over the limit of %d", cfg.MaxStackSlots, MaxStackSlotsLimit)
	}
	cfg.MaxCallDepth = min(cfg.MaxCallDepth, cfg.MaxStackSlots/2)
	if cfg.MaxGoStack <= 0 {
		cfg.MaxGoStack = DefaultMaxGoStack
	}
	if cfg.MaxGoStack > MaxGoStackLimit {
		return nil, fmt.Errorf("interp: MaxGoStack %d is over the limit of %d", cfg.MaxGoStack, MaxGoStackLimit)
	}
	m := &Machine{prog: p, Memory: mem, hosts: hosts, cfg: cfg, Counters: make([][]uint64, len(p.funcs)), hostSite: -1}
	for i, l := range p.Layouts {
		m.Counters[i] = l.NewCounters()
	}
	m.globals = make([]uint64, len(p.Module.Globals))
	for i, g := range p.Module.Globals {
		m.globals[i] = g.Init
	}
	m.table = p.table
	m.segs = NewSegments(p.Module)
	if p.dynamicTables {
		m.tables = newTables(p.Module)
	}
	return m, nil
}

// Tables returns the machine's tables when the module's tables change
// (bytecode.Module.DynamicTables), which compiled code of the same
// instance shares, and nil otherwise.
func (m *Machine) Tables() *Tables { return m.tables }

// Segments returns the state of the machine's data segments, which
// compiled code of the same instance shares.
func (m *Machine) Segments() *Segments { return m.segs }

// Globals returns the machine's globals, one slot per global of the
// module, in order, holding its bits (f64 values as their bits; i32 and
// f32 values, the f32 as its bits, zero-extended). NewMachine sets each
// to its Init, so imported globals start at zero: the embedder stores
// their values here before the first call. The slice is the machine's
// storage: writes to it are what global.get reads next. It must not be
// written while a call runs on another goroutine, a 32-bit global's slot
// must hold a zero-extended value, and the slice must not be resized.
func (m *Machine) Globals() []uint64 { return m.globals }

// Program returns the program the machine runs.
func (m *Machine) Program() *Program { return m.prog }

// Call runs function fn with args and stores its results in results (whose
// length must match the function's signature). Values are passed as in a
// HostFunc: an i32 or f32 argument is the low 32 bits of its slot (Call
// ignores the upper half), and an i32 or f32 result comes back
// zero-extended. It returns a *bytecode.Trap when execution traps. Call
// may be used re-entrantly from a host function running on this machine;
// the nested call shares the limits and fuel of the outermost call and is
// polled against its own ctx.
//
// A panic in a host function becomes a HostPanic trap of the Call that
// ran the host function when Config.RecoverHostPanic is set. Otherwise
// the panic (like runtime.Goexit in a host function) unwinds out of Call,
// and out of every nested Call it passes through. Either way each Call
// restores on its way out what it changed (call depth, frames, register
// stack pointer, fuel and context), so the next call, or the suspended
// caller of a nested call when a host function recovers the panic, runs as
// if the unwound calls had returned. Memory and edge counters keep what the
// unwound calls did, as they do after a trap.
func (m *Machine) Call(ctx context.Context, fn int, args, results []uint64) (err error) {
	if err := m.checkCall(fn, args, results); err != nil {
		return err
	}
	f := m.prog.funcs[fn]
	s := callState{active: m.active, frames: m.numFrames(), framesBelow: m.framesBelow, sp: m.sp, hostSite: m.hostSite, extDepth: m.extDepth}
	s.outermost = m.active == 0
	var kind bytecode.TrapKind
	var cause error
	s.poll, kind, cause = m.poll.Enter(ctx, s.outermost, m.cfg.Fuel)
	m.hostSite = -1
	// One deferred function restores the machine whether the call returns
	// or a host function's panic unwinds it.
	defer m.leave(&s, &err)
	if kind != bytecode.TrapNone {
		return &bytecode.Trap{Kind: kind, Func: uint32(fn), FuncName: f.name, Cause: cause}
	}
	if m.poll.GoStackOver(m.cfg.MaxGoStack, m.active) {
		return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: f.name}
	}
	if m.external != nil && m.external[fn] {
		// A function that runs outside the machine (SetExternal), as a
		// call made by the innermost frame.
		return m.callOut(fn, args, results, m.depth()+1)
	}
	return m.run(fn, args, results)
}

// InHostCall reports whether the innermost code running on the machine is
// a host function its interpreted code called: a call back into the
// instance then belongs on the machine (Call), whose frames set its
// depth.
func (m *Machine) InHostCall() bool { return m.hostSite >= 0 }

// checkCall checks a call's function index and the lengths of its
// arguments and results.
func (m *Machine) checkCall(fn int, args, results []uint64) error {
	if fn < 0 || fn >= len(m.prog.funcs) {
		return fmt.Errorf("interp: function index %d out of range", fn)
	}
	f := m.prog.funcs[fn]
	if len(args) != f.nparams || len(results) != f.nres {
		return fmt.Errorf("interp: func %s takes %d arguments and returns %d results; got %d and %d",
			f.name, f.nparams, f.nres, len(args), len(results))
	}
	return nil
}

// callState is what Call saves for leave.
type callState struct {
	poll      PollState
	outermost bool
	active    int
	frames    int
	// framesBelow is m.framesBelow: the frames in full chunks.
	framesBelow int
	sp          int
	hostSite    int64
	extDepth    int
	// within is set for CallAt, which runs within the poller's running
	// call.
	within bool
}

// leave ends a Call: when the call is unwinding out of a host function it
// ran (a panic, or runtime.Goexit) and Config.RecoverHostPanic is set, it
// recovers the panic and makes *err the HostPanic trap; in every case it
// restores the state s saved.
func (m *Machine) leave(s *callState, err *error) {
	site := m.hostSite
	m.active = s.active
	m.truncateFrames(s.frames, s.framesBelow)
	m.sp = s.sp
	m.hostSite = s.hostSite
	m.extDepth = s.extDepth
	if !s.within {
		m.poll.Leave(s.poll, s.outermost)
	}
	if s.outermost && len(m.stack) > retainedStackSlots {
		// A deep call grew the register stack: give it back rather than
		// keep it for the instance's life.
		m.stack = nil
	}
	if site < 0 || m.cfg.RecoverHostPanic == nil {
		return
	}
	v := recover()
	fn, pc := int(site>>32), int(int32(site))
	t := m.trap(bytecode.TrapHostPanic, fn, pc)
	t.Cause = m.cfg.RecoverHostPanic(int(m.prog.funcs[fn].code[pc].a), v)
	*err = t
}

// FuelLeft returns the fuel the last (or running) outermost call has not
// spent, or -1 when it had no fuel limit.
func (m *Machine) FuelLeft() int64 { return m.poll.FuelLeft() }

// run sets up fn's frame above the stack pointer and executes it. Call
// undoes the setup.
func (m *Machine) run(fn int, args, results []uint64) error {
	f := m.prog.funcs[fn]
	base := m.sp
	if m.depth() >= m.cfg.MaxCallDepth || !m.ensureStack(base+f.nregs) {
		return m.overflow(fn)
	}
	copy(m.stack[base:], args)
	for _, i := range f.narrowParams {
		m.stack[base+i] = uint64(uint32(m.stack[base+i]))
	}
	clear(m.stack[base+len(args) : base+f.nregs])
	m.Counters[fn][0]++
	m.entries++
	m.active++
	return m.exec(fn, base, m.numFrames(), results)
}

// retainedStackSlots is the largest register stack a machine keeps
// between calls (8 MiB).
const retainedStackSlots = 1 << 20

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
	// Copy in pieces: a copy of hundreds of megabytes cannot be
	// preempted, and the garbage collector, waiting to scan this
	// goroutine's stack, would signal it over and over meanwhile.
	const piece = 1 << 16
	for i := 0; i < len(m.stack); i += piece {
		copy(s[i:], m.stack[i:min(i+piece, len(m.stack))])
	}
	m.stack = s
	return true
}

// frameChunk is the number of frame records in a chunk of the frame
// stack. The records of a deep recursion are kept in chunks, not in one
// slice that grows by copying: copying hundreds of megabytes at a time is
// slow, and cannot be preempted.
const frameChunk = 1 << 16

// depth returns the call depth of the innermost frame: the machine's
// frames, the exec loops running, and the frames outside the machine that
// the innermost CallAt runs below.
func (m *Machine) depth() int { return m.framesBelow + len(m.frames) + m.active + m.extDepth }

// pushChunk makes room for a frame record when the innermost chunk is
// full: a chunk smaller than frameChunk doubles, a full-sized one is
// filed below and the next begins.
func (m *Machine) pushChunk() {
	if c := cap(m.frames); c < frameChunk {
		f := make([]frame, len(m.frames), min(max(2*c, 64), frameChunk))
		copy(f, m.frames)
		m.frames = f
		return
	}
	m.frameChunks = append(m.frameChunks, m.frames)
	m.framesBelow += len(m.frames)
	next := m.spareChunk
	if next == nil {
		next = make([]frame, 0, frameChunk)
	}
	m.frames, m.spareChunk = next[:0], nil
}

// popChunk makes the chunk below the innermost (empty) one innermost,
// keeping the empty one for the next push, so that a recursion going up
// and down across a chunk's end does not allocate each time.
func (m *Machine) popChunk() {
	last := len(m.frameChunks) - 1
	m.spareChunk = m.frames[:0]
	m.frames = m.frameChunks[last]
	m.frameChunks[last] = nil
	m.frameChunks = m.frameChunks[:last]
	m.framesBelow -= len(m.frames)
}

// numFrames returns the number of frame records.
func (m *Machine) numFrames() int { return m.framesBelow + len(m.frames) }

// truncateFrames drops the frame records beyond the first n, of which
// below were in full chunks when they were the only ones: the chunks are
// as they were then, as the exec loops running below rely on (see
// execState.stop).
func (m *Machine) truncateFrames(n, below int) {
	for m.framesBelow > below {
		m.popChunk()
	}
	m.frames = m.frames[:n-m.framesBelow]
}

// SetTable gives the machine// SetTable gives the machine its own table contents: entry i holds
// function funcs[i] (-1: null), entries from len(funcs) on are null. It is
// how an embedder supplies an imported table; funcs must not be longer
// than the table and must name functions of the program.
func (m *Machine) SetTable(funcs []int32) error {
	if uint64(len(funcs)) > m.prog.tableSize {
		return fmt.Errorf("interp: %d table entries for a table of %d", len(funcs), m.prog.tableSize)
	}
	for i, fn := range funcs {
		if fn < -1 || int(fn) >= len(m.prog.funcs) {
			return fmt.Errorf("interp: table entry %d: function %d out of range", i, fn)
		}
	}
	m.table, m.ownTable = m.prog.tableOf(funcs), true
	return nil
}

// SetTableEntry puts function fn (-1: null) into entry i of the machine's
// table, which becomes the machine's own on the first change. i must be
// below the table's size and fn name a function of the program.
func (m *Machine) SetTableEntry(i uint64, fn int32) error {
	if i >= m.prog.tableSize {
		return fmt.Errorf("interp: table entry %d is beyond the table of %d", i, m.prog.tableSize)
	}
	if fn < -1 || int(fn) >= len(m.prog.funcs) {
		return fmt.Errorf("interp: table entry %d: function %d out of range", i, fn)
	}
	if !m.ownTable || i >= uint64(len(m.table)) {
		t := make([]tableEntry, max(uint64(len(m.table)), i+1))
		copy(t, m.table)
		for k := len(m.table); k < len(t); k++ {
			t[k] = tableEntry{fn: -1, sig: nullSig}
		}
		m.table, m.ownTable = t, true
	}
	m.table[i] = tableEntry{fn: -1, sig: nullSig}
	if fn >= 0 {
		m.table[i] = tableEntry{fn: fn, sig: m.prog.funcIDs[fn]}
	}
	return nil
}

// TableFunc returns the function in entry i of the machine's table: its
// index, or -1 when the entry is null; ok is false when i is not below
// the table's size.
func (m *Machine) TableFunc(i uint64) (fn int, ok bool) {
	switch {
	case i >= m.prog.tableSize:
		return -1, false
	case i >= uint64(len(m.table)):
		return -1, true
	}
	return int(m.table[i].fn), true
}

// indirectTrap returns the trap of a call_indirect at (fn, pc) whose table
// index idx is beyond the initialised part of the table or whose entry's
// signature id differs from sig, the id the instruction expects.
func (m *Machine) indirectTrap(fn, pc int, idx uint64, sig uint32) *bytecode.Trap {
	kind := bytecode.TrapIndirectCallTypeMismatch
	switch {
	case idx >= m.prog.tableSize:
		kind = bytecode.TrapUndefinedElement
	case idx >= uint64(len(m.table)) || m.table[idx].fn < 0:
		kind = bytecode.TrapUninitializedElement
	}
	return m.trap(kind, fn, pc)
}

// overflow returns the StackOverflow trap of a call of fn that would
// exceed a limit as it starts.
func (m *Machine) overflow(fn int) *bytecode.Trap {
	return &bytecode.Trap{Kind: bytecode.TrapStackOverflow, Func: uint32(fn), FuncName: m.prog.funcs[fn].name}
}

func (m *Machine) trap(kind bytecode.TrapKind, fn, pc int) *bytecode.Trap {
	return &bytecode.Trap{Kind: kind, Func: uint32(fn), FuncName: m.prog.funcs[fn].name, Offset: pc}
}
