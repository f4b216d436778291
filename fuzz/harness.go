package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// HostFunc implements one host import in every configuration the harness
// runs. It must be a deterministic function of its arguments and of the
// instance's memory (it runs once per configuration); c.Results has the
// length of the import's results. Values are passed as the interpreter
// passes them (interp.HostFunc): an i32 or f32 argument has its upper 32
// bits zero, and the upper 32 bits of an i32 or f32 result are ignored.
type HostFunc func(c *HostCall) error

// HostCall is one call of a host function.
type HostCall struct {
	// Name is the host import's name; Args its arguments (f64 as bits).
	// Neither slice may be kept after the call returns.
	Name string
	Args []uint64
	// Results receives the results.
	Results []uint64

	ctx    context.Context
	memory func() []byte
	call   func(ctx context.Context, name string, args []uint64) ([]uint64, error)
	cancel context.CancelFunc
}

// Memory returns the instance's linear memory; writes to it are seen by the
// program. It is valid until the memory grows.
func (c *HostCall) Memory() []byte { return c.memory() }

// Context returns the context of the running call.
func (c *HostCall) Context() context.Context { return c.ctx }

// Call calls an exported function of the instance (a re-entrant call that
// shares the outer call's fuel and depth limits).
func (c *HostCall) Call(name string, args ...uint64) ([]uint64, error) {
	return c.call(c.ctx, name, args)
}

// CancelCall cancels the context of the outermost call, as an embedder's
// host function might when a deadline passes: the call stops with an
// Interrupted trap at its next poll.
func (c *HostCall) CancelCall() { c.cancel() }

// Options configure Check. The zero value checks every configuration with
// the default limits.
type Options struct {
	// Hosts implements the module's host imports, by name.
	Hosts map[string]HostFunc
	// NewHosts, when set, is used instead of Hosts: it is called once for
	// each configuration, so that host functions with state (an input
	// stream, an output buffer) start afresh in each.
	NewHosts func() map[string]HostFunc
	// Fuel is the backward branches and calls each call may make (default
	// 20000; negative: unlimited, for programs known to terminate).
	Fuel int64
	// MaxCallDepth limits nested calls (default 64).
	MaxCallDepth int
	// MaxMemoryPages caps the memory below the module's maximum (0: no
	// extra cap).
	MaxMemoryPages uint32
	// Configs names the configurations to compare with the reference
	// (see Configurations); nil means all of them.
	Configs []string
	// Timeout bounds each call in each configuration (default 30 s); a
	// configuration that does not finish in time is reported as a mismatch.
	Timeout time.Duration
	// GlobalImports supplies the value of each imported global of the
	// module, by import name, to every configuration: f64 values as their
	// bits, i32 and f32 values zero-extended. Every imported global needs
	// one (Program.GlobalImports has them for a generated program).
	GlobalImports map[string]uint64
}

// Default limits of Check.
const (
	DefaultFuel         = 20000
	DefaultMaxCallDepth = 64
	DefaultTimeout      = 30 * time.Second
)

func (o Options) withDefaults() Options {
	if o.Fuel == 0 {
		o.Fuel = DefaultFuel
	}
	if o.Fuel < 0 {
		o.Fuel = 0
	}
	if o.MaxCallDepth <= 0 {
		o.MaxCallDepth = DefaultMaxCallDepth
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// Outcome is what one call did in the reference interpreter.
type Outcome struct {
	Results []uint64
	// Err is nil, a *bytecode.Trap, or another error of the call.
	Err error
	// HostCalls lists the host calls the call made, nested ones included,
	// in the order they started.
	HostCalls []HostEvent
	// Memory is the instance's memory after the call.
	Memory []byte
	// FuelLeft is the fuel the call did not use (-1: not known).
	FuelLeft int64
	// Globals holds the values of the module's globals after the call, in
	// the order of Module.Globals (f64 values as their bits, i32 and f32
	// values zero-extended).
	Globals []uint64

	// globalsErr says why the globals could not be read.
	globalsErr string
}

// HostEvent records one host call.
type HostEvent struct {
	Name    string
	Args    []uint64
	Results []uint64
	Err     string // the host function's error, if any
}

// Result is what Check ran.
type Result struct {
	// Outcomes holds the reference interpreter's outcome of every call.
	Outcomes []Outcome
	// Ran lists the configurations that were compared with the reference.
	Ran []string
	// Skipped says why a configuration could not run here (another
	// platform, a missing CPU feature); such a configuration is no failure.
	Skipped map[string]string
	// Reoptimized counts, per configuration that did any, the times its
	// instance compiled the module again on a drifted profile.
	Reoptimized map[string]int
}

// Mismatch is the error Check returns when a configuration disagrees with
// the reference interpreter, or a back-end stage fails on a valid module.
type Mismatch struct {
	Config string
	// Call is the index of the call that differed, or -1 when the
	// configuration failed before running any.
	Call   int
	Func   string
	Args   []uint64
	Detail string
}

// Error describes the mismatch: the call, the configurations and what differs.
func (m *Mismatch) Error() string {
	if m.Call < 0 {
		return fmt.Sprintf("fuzz: %s: %s", m.Config, m.Detail)
	}
	args := make([]string, len(m.Args))
	for i, a := range m.Args {
		args[i] = fmt.Sprintf("%#x", a)
	}
	return fmt.Sprintf("fuzz: %s differs from the interpreter at call %d, %s(%s): %s",
		m.Config, m.Call, m.Func, strings.Join(args, ", "), m.Detail)
}

// Check runs calls on one instance of m in the reference interpreter and
// in every configuration (see Configurations), each on a fresh instance
// with the same limits (and the same values of imported globals), and
// compares after every call: results (bit for bit, NaN payloads and the
// upper halves of 32-bit values included), the error (trap kind,
// function, offset, code and cause), memory contents, the sequence of
// host calls with their arguments and results, the values of the globals
// (bit for bit; all of them in the machine configurations, the exported
// ones in the jit configurations, whose embedding API reads no others),
// and the fuel left where a configuration reports it.
//
// It returns a *Mismatch for the first difference; other errors mean the
// module or options are unusable (an invalid module, a missing host
// function, an unknown configuration). m is not modified.
func Check(m *bytecode.Module, calls []Call, opts Options) (*Result, error) {
	if m == nil {
		return nil, errors.New("fuzz: nil module")
	}
	m = m.Clone()
	if err := bytecode.Verify(m); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	opts = opts.withDefaults()
	h := &harness{m: m, calls: calls, opts: opts}
	hosts := h.hosts()
	for _, imp := range m.Hosts {
		if hosts[imp.Name] == nil {
			return nil, fmt.Errorf("fuzz: no host function for import %q", imp.Name)
		}
	}
	for _, g := range m.Globals {
		if g.Import == "" {
			continue
		}
		v, ok := opts.GlobalImports[g.Import]
		switch {
		case !ok:
			return nil, fmt.Errorf("fuzz: no value for imported global %s (import %q)", g.Name, g.Import)
		case g.Type.Is32() && v > math.MaxUint32:
			return nil, fmt.Errorf("fuzz: value %#x of imported global %s does not fit in 32 bits (the global is %s)", v, g.Name, g.Type)
		}
	}
	for i, c := range calls {
		fn := m.ExportedFunc(c.Func)
		if fn < 0 {
			return nil, fmt.Errorf("fuzz: call %d: no exported function %q", i, c.Func)
		}
		if len(c.Args) != len(m.Funcs[fn].Sig.Params) {
			return nil, fmt.Errorf("fuzz: call %d: %s takes %d arguments, got %d", i, c.Func,
				len(m.Funcs[fn].Sig.Params), len(c.Args))
		}
	}
	selected := configs
	if opts.Configs != nil {
		selected = nil
		for _, name := range opts.Configs {
			c := findConfig(name)
			if c == nil {
				return nil, fmt.Errorf("fuzz: unknown configuration %q (have %s)", name, strings.Join(Configurations(), ", "))
			}
			selected = append(selected, *c)
		}
	}
	ref, err := h.start(referenceConfig)
	if err != nil {
		return nil, err
	}
	res := &Result{Skipped: map[string]string{}, Reoptimized: map[string]int{}}
	for i := range calls {
		res.Outcomes = append(res.Outcomes, h.run(ref, i))
	}
	for _, c := range selected {
		r, err := h.start(c)
		var skip *skipError
		switch {
		case errors.As(err, &skip):
			res.Skipped[c.name] = skip.reason
			continue
		case err != nil:
			return res, err
		}
		res.Ran = append(res.Ran, c.name)
		for i := range calls {
			got := h.run(r, i)
			if detail := h.compare(i, res.Outcomes[i], got, r.visible); detail != "" {
				return res, &Mismatch{Config: c.name, Call: i, Func: calls[i].Func, Args: calls[i].Args, Detail: detail}
			}
		}
		if r.reoptimizations != nil {
			if n := r.reoptimizations(); n > 0 {
				res.Reoptimized[c.name] = n
			}
		}
	}
	return res, nil
}

// harness holds what every configuration of one Check shares.
type harness struct {
	m       *bytecode.Module
	calls   []Call
	opts    Options
	lowered map[lower.Target]loweredModule
}

// instance is one configuration's instance of the module.
type instance struct {
	// call runs exported function name (index fn).
	call     func(ctx context.Context, name string, fn int, args []uint64) ([]uint64, error)
	memory   func() []byte
	fuelLeft func() int64 // nil when the configuration does not report it
	env      *hostEnv
	// globals returns the values of the module's globals, one per global;
	// visible says which of them the configuration can read (nil: every
	// one; the others' values are not compared).
	globals func() ([]uint64, error)
	visible []bool
	// reoptimizations returns how many times the instance compiled its
	// module again on a drifted profile (nil: not a JIT configuration).
	reoptimizations func() int
}

// config is one way of running a module.
type config struct {
	name  string
	about string
	start func(h *harness) (*instance, error)
}

// skipError says that a configuration cannot run here.
type skipError struct{ reason string }

func (e *skipError) Error() string { return e.reason }

// stageFailure reports a back-end stage that failed on a valid module.
func stageFailure(config string, format string, args ...any) error {
	return &Mismatch{Config: config, Call: -1, Detail: fmt.Sprintf(format, args...)}
}

// hosts returns the host functions for one configuration.
func (h *harness) hosts() map[string]HostFunc {
	if h.opts.NewHosts != nil {
		return h.opts.NewHosts()
	}
	return h.opts.Hosts
}

func (h *harness) start(c config) (*instance, error) {
	inst, err := c.start(h)
	if err != nil {
		return nil, err
	}
	return inst, nil
}

// run makes call i on inst and records its outcome.
func (h *harness) run(inst *instance, i int) Outcome {
	c := h.calls[i]
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.Timeout)
	defer cancel()
	inst.env.cancel = cancel
	start := len(inst.env.log)
	results, err := inst.call(ctx, c.Func, h.m.ExportedFunc(c.Func), c.Args)
	out := Outcome{Results: results, Err: err, Memory: bytes.Clone(inst.memory()), FuelLeft: -1}
	out.HostCalls = slices.Clone(inst.env.log[start:])
	if inst.fuelLeft != nil {
		out.FuelLeft = inst.fuelLeft()
	}
	if inst.globals != nil {
		var err error
		if out.Globals, err = inst.globals(); err != nil {
			out.globalsErr = err.Error()
		}
	}
	return out
}

// initialGlobals returns the values of the module's globals when an
// instance starts: each one's Init, or the value Options.GlobalImports
// supplies for an imported one.
func (h *harness) initialGlobals() []uint64 {
	out := make([]uint64, len(h.m.Globals))
	for k, g := range h.m.Globals {
		out[k] = g.Init
		if g.Import != "" {
			out[k] = h.opts.GlobalImports[g.Import]
		}
	}
	return out
}

// compare returns what differs between the reference outcome of call i and
// another configuration's, or "". visible says which globals the
// configuration can read (nil: all of them).
func (h *harness) compare(i int, want, got Outcome, visible []bool) string {
	var fault *mir.Fault
	if errors.As(got.Err, &fault) {
		return "the machine-IR interpreter faulted: " + got.Err.Error()
	}
	if d := compareErrors(want.Err, got.Err); d != "" {
		return d
	}
	if want.Err == nil {
		types := h.m.Funcs[h.m.ExportedFunc(h.calls[i].Func)].Sig.Results
		if len(got.Results) != len(types) {
			return fmt.Sprintf("%d results, want %d", len(got.Results), len(types))
		}
		for k, t := range types {
			if want.Results[k] != got.Results[k] {
				return fmt.Sprintf("result %d is %s, want %s", k, formatValue(t, got.Results[k]), formatValue(t, want.Results[k]))
			}
		}
	}
	if d := h.compareHostCalls(want.HostCalls, got.HostCalls); d != "" {
		return d
	}
	if d := compareMemory(want.Memory, got.Memory); d != "" {
		return d
	}
	if d := h.compareGlobals(want, got, visible); d != "" {
		return d
	}
	if want.FuelLeft >= 0 && got.FuelLeft >= 0 && want.FuelLeft != got.FuelLeft {
		return fmt.Sprintf("%d fuel left, want %d", got.FuelLeft, want.FuelLeft)
	}
	return ""
}

func compareErrors(want, got error) string {
	var tw, tg *bytecode.Trap
	isW, isG := errors.As(want, &tw), errors.As(got, &tg)
	switch {
	case (want == nil) != (got == nil) || isW != isG:
		return fmt.Sprintf("outcome %q, want %q", errText(got), errText(want))
	case isW:
		if tw.Kind != tg.Kind || tw.Func != tg.Func || tw.Offset != tg.Offset || tw.Code != tg.Code ||
			errText(tw.Cause) != errText(tg.Cause) {
			return fmt.Sprintf("trap %q, want %q", tg.Error(), tw.Error())
		}
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

func (h *harness) compareHostCalls(want, got []HostEvent) string {
	for k := 0; k < len(want) || k < len(got); k++ {
		if k >= len(want) {
			return fmt.Sprintf("extra host call %d: %s", k, got[k].Name)
		}
		if k >= len(got) {
			return fmt.Sprintf("host call %d (%s) is missing", k, want[k].Name)
		}
		w, g := want[k], got[k]
		if w.Name != g.Name {
			return fmt.Sprintf("host call %d is %s, want %s", k, g.Name, w.Name)
		}
		sig := h.m.Hosts[h.m.HostIndex(w.Name)].Sig
		if !sameValues(w.Args, g.Args) {
			return fmt.Sprintf("host call %d (%s) has arguments %s, want %s", k, w.Name,
				formatValues(sig.Params, g.Args), formatValues(sig.Params, w.Args))
		}
		if w.Err != g.Err {
			return fmt.Sprintf("host call %d (%s) failed with %q, want %q", k, w.Name, g.Err, w.Err)
		}
		if w.Err == "" && !sameValues(w.Results, g.Results) {
			return fmt.Sprintf("host call %d (%s) returned %s, want %s", k, w.Name,
				formatValues(sig.Results, g.Results), formatValues(sig.Results, w.Results))
		}
	}
	return ""
}

// compareGlobals compares the values of the globals visible says the
// configuration can read (nil: all of them), bit for bit.
func (h *harness) compareGlobals(want, got Outcome, visible []bool) string {
	if got.globalsErr != "" {
		return "reading the globals failed: " + got.globalsErr
	}
	if len(got.Globals) != len(h.m.Globals) {
		return fmt.Sprintf("%d globals, want %d", len(got.Globals), len(h.m.Globals))
	}
	for k, g := range h.m.Globals {
		if visible != nil && !visible[k] {
			continue
		}
		if want.Globals[k] != got.Globals[k] {
			return fmt.Sprintf("global %d (%s) is %s, want %s", k, g.Name,
				formatValue(g.Type, got.Globals[k]), formatValue(g.Type, want.Globals[k]))
		}
	}
	return ""
}

func compareMemory(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	if len(want) != len(got) {
		return fmt.Sprintf("memory has %d bytes, want %d", len(got), len(want))
	}
	for k := range want {
		if want[k] != got[k] {
			return fmt.Sprintf("memory differs first at offset %d: %#02x, want %#02x", k, got[k], want[k])
		}
	}
	return ""
}

// sameValues compares two value lists bit for bit. NaNs are no exception:
// every tier produces the same NaN bits (see internal/floatbits).
func sameValues(a, b []uint64) bool { return slices.Equal(a, b) }

// formatValue writes v, a value of type t, as a number and in
// hexadecimal; the hexadecimal shows all 64 bits, so that garbage in the
// upper half of a 32-bit value is visible.
func formatValue(t bytecode.Type, v uint64) string {
	switch t {
	case bytecode.F64:
		return fmt.Sprintf("%v (%#x)", math.Float64frombits(v), v)
	case bytecode.F32:
		return fmt.Sprintf("%v (%#x)", math.Float32frombits(uint32(v)), v)
	case bytecode.I32:
		return fmt.Sprintf("%d (%#x)", int32(v), v)
	}
	return fmt.Sprintf("%d (%#x)", int64(v), v)
}

func formatValues(ts []bytecode.Type, vs []uint64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		t := bytecode.I64
		if i < len(ts) {
			t = ts[i]
		}
		parts[i] = formatValue(t, v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// hostEnv connects a configuration's host imports to the HostFuncs and
// records every host call.
type hostEnv struct {
	m      *bytecode.Module
	hosts  map[string]HostFunc
	log    []HostEvent
	cancel context.CancelFunc
}

// invoke runs host import imp with the given memory and nested-call
// access, and logs it.
func (e *hostEnv) invoke(ctx context.Context, imp int, args, results []uint64, memory func() []byte,
	call func(ctx context.Context, name string, args []uint64) ([]uint64, error)) error {
	name := e.m.Hosts[imp].Name
	k := len(e.log)
	e.log = append(e.log, HostEvent{Name: name, Args: slices.Clone(args)})
	c := &HostCall{Name: name, Args: args, Results: results, ctx: ctx, memory: memory, call: call, cancel: e.cancel}
	err := e.hosts[name](c)
	e.log[k].Results = slices.Clone(results)
	if err != nil {
		e.log[k].Err = err.Error()
	}
	return err
}

// machineHosts returns host functions for interp.Machine and mir.Machine,
// whose nested calls go through call.
func (e *hostEnv) machineHosts(memory func() []byte, call func(ctx context.Context, fn int, args, results []uint64) error) []interp.HostFunc {
	nested := func(ctx context.Context, name string, args []uint64) ([]uint64, error) {
		fn := e.m.ExportedFunc(name)
		if fn < 0 {
			return nil, fmt.Errorf("no exported function %q", name)
		}
		sig := e.m.Funcs[fn].Sig
		if len(args) != len(sig.Params) {
			return nil, fmt.Errorf("%s takes %d arguments, got %d", name, len(sig.Params), len(args))
		}
		results := make([]uint64, len(sig.Results))
		if err := call(ctx, fn, args, results); err != nil {
			return nil, err
		}
		return results, nil
	}
	hosts := make([]interp.HostFunc, len(e.m.Hosts))
	for i := range hosts {
		hosts[i] = func(ctx context.Context, args, results []uint64) error {
			return e.invoke(ctx, i, args, results, memory, nested)
		}
	}
	return hosts
}

// newMemory creates an instance's memory as jit.Module.Instantiate does.
func (h *harness) newMemory() (*interp.Memory, error) {
	maxPages := h.m.Memory.MaxPages
	if h.opts.MaxMemoryPages > 0 && maxPages > h.opts.MaxMemoryPages {
		maxPages = h.opts.MaxMemoryPages
	}
	if h.m.Memory.MinPages > maxPages {
		return nil, fmt.Errorf("fuzz: the module needs %d memory pages; the limit is %d", h.m.Memory.MinPages, maxPages)
	}
	mem := interp.NewMemory(h.m.Memory.MinPages, maxPages)
	h.m.ApplyData(mem.Bytes)
	return mem, nil
}

func (h *harness) machineConfig() interp.Config {
	return interp.Config{MaxCallDepth: h.opts.MaxCallDepth, Fuel: h.opts.Fuel}
}

// callFunc adapts a machine's Call to instance.call.
func (h *harness) callFunc(call func(ctx context.Context, fn int, args, results []uint64) error) func(context.Context, string, int, []uint64) ([]uint64, error) {
	return func(ctx context.Context, _ string, fn int, args []uint64) ([]uint64, error) {
		results := make([]uint64, len(h.m.Funcs[fn].Sig.Results))
		err := call(ctx, fn, args, results)
		return results, err
	}
}
