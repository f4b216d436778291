package wasm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/text"
	"github.com/kiln-jit/kiln/wasm/translate"
	"github.com/kiln-jit/kiln/wasm/wasi"
)

// errClosed is the error of using what Close closed.
var errClosed = errors.New("closed")

// Runtime compiles and instantiates modules on one jit.Engine, and keeps
// what modules import from by name: host modules and named instances. It
// is safe for concurrent use. Close closes everything it made.
type Runtime struct {
	cfg    RuntimeConfig
	engine *jit.Engine

	mu       sync.Mutex
	closed   bool
	hosts    map[string]*HostModule
	named    map[string]*Module // nil while the instance is being made
	modules  map[*Module]struct{}
	compiled map[*CompiledModule]struct{}
}

// NewRuntime returns a runtime with the given configuration, or an error
// if the engine options are invalid or ctx is already done.
func NewRuntime(ctx context.Context, cfg RuntimeConfig) (*Runtime, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("wasm: new runtime: %w", err)
	}
	engine, err := jit.NewEngine(cfg.Engine)
	if err != nil {
		return nil, fmt.Errorf("wasm: new runtime: %w", err)
	}
	return &Runtime{
		cfg: cfg, engine: engine,
		hosts:    map[string]*HostModule{},
		named:    map[string]*Module{},
		modules:  map[*Module]struct{}{},
		compiled: map[*CompiledModule]struct{}{},
	}, nil
}

// Engine returns the jit.Engine the runtime's modules run on.
func (r *Runtime) Engine() *jit.Engine { return r.engine }

// IsBinary reports whether src is (or starts like) a module in the binary
// format: it starts with the magic bytes "\x00asm", or is a prefix of
// them. Anything else is taken for the text format.
func IsBinary(src []byte) bool {
	if len(src) < len(binary.Magic) {
		return len(src) > 0 && binary.Magic[:len(src)] == string(src)
	}
	return bytes.HasPrefix(src, []byte(binary.Magic))
}

// CompileModule decodes src, a module in the binary or the text format
// (see IsBinary), validates it and translates it to kiln bytecode, once
// for all the instances InstantiateModule makes of it.
func (r *Runtime) CompileModule(ctx context.Context, src []byte) (*CompiledModule, error) {
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("wasm: compile module: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("wasm: compile module: %w", err)
	}
	if len(src) == 0 {
		return nil, errors.New("wasm: compile module: empty input: a module starts with \"\\x00asm\" in the binary format or \"(module\" in the text format")
	}
	bin := src
	if !IsBinary(src) {
		var err error
		if bin, err = text.ToBinary(src); err != nil {
			return nil, fmt.Errorf("wasm: compile module: text format: %w", err)
		}
	}
	bm, err := binary.Decode(bin)
	if err != nil {
		return nil, fmt.Errorf("wasm: compile module: %w", err)
	}
	tm, err := translate.Translate(bm, r.cfg.Translate)
	if err != nil {
		return nil, fmt.Errorf("wasm: compile module: %w", err)
	}
	c := newCompiledModule(r, tm)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("wasm: compile module: runtime %w", errClosed)
	}
	r.compiled[c] = struct{}{}
	return c, nil
}

// Instantiate compiles src and instantiates it with the default
// ModuleConfig: an anonymous instance whose "_start", if it exports one,
// has run.
func (r *Runtime) Instantiate(ctx context.Context, src []byte) (*Module, error) {
	c, err := r.CompileModule(ctx, src)
	if err != nil {
		return nil, err
	}
	return r.InstantiateModule(ctx, c, NewModuleConfig())
}

// InstantiateModule makes an instance of c: it resolves c's imports
// (from the host modules and named instances of the runtime, and from
// WASI when RuntimeConfig.WASI is set), loads it into the engine, runs the
// module's start function and then the config's start functions
// ("_start" by default). A start function that ends in proc_exit with
// status 0 ends the start functions without an error; another status
// gives an error wrapping an *ExitError, and no instance. Cancelling ctx
// stops loading and the start functions.
func (r *Runtime) InstantiateModule(ctx context.Context, c *CompiledModule, cfg ModuleConfig) (*Module, error) {
	m, err := r.instantiate(ctx, c, cfg)
	if err != nil {
		return nil, fmt.Errorf("wasm: instantiate module%s: %w", quoteName(cfg.name), err)
	}
	return m, nil
}

func quoteName(name string) string {
	if name == "" {
		return ""
	}
	return " " + strconv.Quote(name)
}

func (r *Runtime) instantiate(ctx context.Context, c *CompiledModule, cfg ModuleConfig) (*Module, error) {
	if c == nil || c.rt != r {
		return nil, errors.New("the compiled module is not this runtime's")
	}
	if c.closed.Load() {
		return nil, fmt.Errorf("compiled module %w", errClosed)
	}
	if err := r.reserve(cfg.name); err != nil {
		return nil, err
	}
	m := &Module{rt: r, name: cfg.name, compiled: c}
	ok := false
	defer func() {
		if !ok {
			r.release(m)
		}
	}()
	if r.cfg.WASI && c.importsWASI {
		sys, err := wasi.New(cfg.wasiConfig())
		if err != nil {
			return nil, fmt.Errorf("WASI: %w", err)
		}
		m.sys = sys
	}
	inst, err := link.Instantiate(ctx, r.engine, c.module, r.resolver(m))
	if err != nil {
		return nil, r.explainLink(describe(c.module, err))
	}
	m.inst = inst
	for _, name := range cfg.startFunctions() {
		f := m.ExportedFunction(name)
		if f == nil {
			continue
		}
		if _, err := f.Call(ctx); err != nil {
			var exit *ExitError
			if errors.As(err, &exit) && exit.Code == 0 {
				break
			}
			return nil, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("runtime %w", errClosed)
	}
	if m.name != "" {
		r.named[m.name] = m
	}
	r.modules[m] = struct{}{}
	ok = true
	return m, nil
}

// reserve takes name for an instance being made.
func (r *Runtime) reserve(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("runtime %w", errClosed)
	}
	if name == "" {
		return nil
	}
	if _, ok := r.named[name]; ok {
		return fmt.Errorf("an instance named %q exists", name)
	}
	if _, ok := r.hosts[name]; ok {
		return fmt.Errorf("a host module named %q exists", name)
	}
	r.named[name] = nil
	return nil
}

// release forgets m (closed, or not made after all) and frees its name.
func (r *Runtime) release(m *Module) {
	if m.sys != nil {
		m.sys.Close()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.named[m.name]; ok && m.name != "" && (cur == m || cur == nil) {
		delete(r.named, m.name)
	}
	delete(r.modules, m)
}

// resolver finds the imports of m: WASI from m's own system, then the
// host modules and named instances of the runtime.
func (r *Runtime) resolver(m *Module) link.Resolver {
	var wasiImports link.Imports
	if m.sys != nil {
		wasiImports = m.sys.Imports(m.compiled.module)
	}
	return func(module, name string) (link.Extern, bool) {
		if module == wasi.ModuleName && wasiImports != nil {
			return wasiImports.Resolve(module, name)
		}
		r.mu.Lock()
		h, other := r.hosts[module], r.named[module]
		r.mu.Unlock()
		switch {
		case h != nil:
			x, ok := h.externs[name]
			return x, ok
		case other != nil:
			x, err := other.inst.Export(name)
			return x, err == nil
		}
		return nil, false
	}
}

// explainLink adds to an unknown import's error what the runtime has to
// import from.
func (r *Runtime) explainLink(err error) error {
	var le *link.Error
	if !errors.As(err, &le) || !strings.HasPrefix(le.Msg, "unknown import") {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.hosts[le.Module]; ok {
		return fmt.Errorf("%w (host module %q exports %s)", err, le.Module, r.hosts[le.Module].exportList())
	}
	if m := r.named[le.Module]; m != nil {
		return fmt.Errorf("%w (instance %q exports %s)", err, le.Module, m.compiled.ExportedFunctionList())
	}
	if le.Module == wasi.ModuleName && !r.cfg.WASI {
		return fmt.Errorf("%w (WASI is off: set RuntimeConfig.WASI)", err)
	}
	var names []string
	for n := range r.hosts {
		names = append(names, strconv.Quote(n))
	}
	for n, m := range r.named {
		if m != nil {
			names = append(names, strconv.Quote(n))
		}
	}
	if r.cfg.WASI {
		names = append(names, strconv.Quote(wasi.ModuleName))
	}
	sort.Strings(names)
	have := "nothing"
	if len(names) > 0 {
		have = strings.Join(names, ", ")
	}
	return fmt.Errorf("%w (no module %q to import from; the runtime has %s)", err, le.Module, have)
}

// check returns an error once the runtime is closed.
func (r *Runtime) check() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("runtime %w", errClosed)
	}
	return nil
}

// Module returns the instance named name, or nil.
func (r *Runtime) Module(name string) *Module {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.named[name]
}

// Close closes every instance, host module and compiled module the
// runtime made; using them or the runtime afterwards is an error.
// Closing again does nothing.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	modules := make([]*Module, 0, len(r.modules))
	for m := range r.modules {
		modules = append(modules, m)
	}
	hosts := make([]*HostModule, 0, len(r.hosts))
	for _, h := range r.hosts {
		hosts = append(hosts, h)
	}
	compiled := make([]*CompiledModule, 0, len(r.compiled))
	for c := range r.compiled {
		compiled = append(compiled, c)
	}
	r.mu.Unlock()
	var errs []error
	for _, m := range modules {
		errs = append(errs, m.Close(ctx))
	}
	for _, h := range hosts {
		errs = append(errs, h.Close(ctx))
	}
	for _, c := range compiled {
		errs = append(errs, c.Close(ctx))
	}
	if err := errors.Join(slices.DeleteFunc(errs, func(e error) bool { return e == nil })...); err != nil {
		return fmt.Errorf("wasm: close runtime: %w", err)
	}
	return nil
}

// ExitError is the error a WASI program's proc_exit ends its call with,
// carrying the exit status (Code); errors.As finds it in the errors of
// Function.Call and InstantiateModule.
type ExitError = wasi.ExitError

// trapError is a trap described in the specification's words and where
// in the module it happened; it wraps the error the trap came in.
type trapError struct {
	msg string
	err error
}

// Error returns the description.
func (e *trapError) Error() string { return e.msg }

// Unwrap returns the original error, which holds the *bytecode.Trap.
func (e *trapError) Unwrap() error { return e.err }

// describe rewords a trap behind err with the specification's message,
// the function and the byte offset in m of the instruction that trapped.
// A program's exit is left as it is.
func describe(m *translate.Module, err error) error {
	var exit *ExitError
	if errors.As(err, &exit) {
		return err
	}
	trap, ok := translate.TrapOf(err)
	if !ok {
		return err
	}
	msg := "trap: " + translate.TrapMessage(trap.Kind) + " in " + trap.FuncName
	if off, ok := m.SourceOffset(trap); ok {
		msg += fmt.Sprintf(" at byte 0x%x", off)
	}
	if trap.Cause != nil {
		msg += ": " + trap.Cause.Error()
	}
	return &trapError{msg: msg, err: err}
}
