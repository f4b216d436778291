package wasi

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// Config is what a WASI program sees of the world.
type Config struct {
	// Args are the program's arguments, the program's name first by
	// convention (args_get).
	Args []string
	// Env is the program's environment, each entry "KEY=VALUE"
	// (environ_get). It starts empty: nothing of the host's environment
	// is passed unless it is listed here.
	Env []string
	// Stdin, Stdout and Stderr are descriptors 0, 1 and 2. A nil Stdin
	// reads as empty; output to a nil Stdout or Stderr is discarded.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Preopens are the directories the program may use, as descriptors
	// 3, 4, ... in this order.
	Preopens []Preopen
	// Clock gives the time (clock_time_get) and sleeps (poll_oneoff);
	// nil is the host's clock.
	Clock Clock
	// Random is the source of random_get; nil is crypto/rand.Reader.
	Random io.Reader
}

// Preopen maps a host directory to a path the program opens files
// under. The program can reach nothing outside the directory: not by
// absolute paths, "..", or symbolic links (which it may follow only
// while they stay inside).
type Preopen struct {
	// HostDir is the directory on the host.
	HostDir string
	// GuestPath is the name the program knows it by, such as "/" or
	// "/data" (fd_prestat_dir_name).
	GuestPath string
	// ReadOnly refuses every change under the directory with EROFS:
	// opening a file for writing, creating, truncating, removing,
	// renaming, linking and setting sizes or times.
	ReadOnly bool
}

// Clock is the time a program sees. Tests fix it with a Clock of their
// own; HostClock is the real one.
type Clock interface {
	// Now is the wall-clock time (CLOCK_REALTIME).
	Now() time.Time
	// Nanotime is the monotonic time in nanoseconds from an arbitrary
	// origin (CLOCK_MONOTONIC); it never decreases.
	Nanotime() int64
	// Sleep waits for d, or until ctx is done, when it returns ctx's
	// error (poll_oneoff's clock subscriptions).
	Sleep(ctx context.Context, d time.Duration) error
}

// HostClock is the host's clock, its monotonic time counted from when it
// was made.
type HostClock struct{ start time.Time }

// NewHostClock returns the host's clock.
func NewHostClock() *HostClock { return &HostClock{start: time.Now()} }

// Now returns time.Now().
func (h *HostClock) Now() time.Time { return time.Now() }

// Nanotime returns the nanoseconds since the clock was made, by the
// monotonic reading of package time.
func (h *HostClock) Nanotime() int64 { return int64(time.Since(h.start)) }

// Sleep waits for d or ctx, whichever comes first.
func (h *HostClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ExitError is how a program's proc_exit ends the call that runs it: the
// call's error wraps it (errors.As finds it), carrying the exit status.
// RunStart and Run turn it back into a status.
type ExitError struct {
	// Code is the status proc_exit was given.
	Code uint32
}

// Error returns "exit status N".
func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// System is the state of one WASI program: its descriptors, arguments,
// environment and clock. It serves one instance, whose calls into it
// come one at a time; Close releases its host files.
type System struct {
	args, env []string
	clock     Clock
	random    io.Reader
	fds       []*file // by descriptor; nil for a closed one
}

// New makes the system cfg describes, opening its preopened directories.
func New(cfg Config) (*System, error) {
	s := &System{args: cfg.Args, env: cfg.Env, clock: cfg.Clock, random: cfg.Random}
	for _, a := range cfg.Args {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, fmt.Errorf("wasi: argument %q contains a NUL byte", a)
		}
	}
	for _, e := range cfg.Env {
		if strings.IndexByte(e, 0) >= 0 || !strings.Contains(e, "=") {
			return nil, fmt.Errorf("wasi: environment entry %q is not KEY=VALUE without NUL bytes", e)
		}
	}
	if s.clock == nil {
		s.clock = NewHostClock()
	}
	if s.random == nil {
		s.random = rand.Reader
	}
	stdin, stdout, stderr := cfg.Stdin, cfg.Stdout, cfg.Stderr
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	s.fds = []*file{
		{kind: kindStream, r: stdin, base: rightsStdin},
		{kind: kindStream, w: stdout, base: rightsStdout},
		{kind: kindStream, w: stderr, base: rightsStdout},
	}
	for _, p := range cfg.Preopens {
		root, err := os.OpenRoot(p.HostDir)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("wasi: preopening %s: %w", p.HostDir, err)
		}
		name := p.GuestPath
		if name == "" {
			name = "/"
		} else if name != "/" {
			name = path.Clean(name)
		}
		s.fds = append(s.fds, &file{
			kind: kindDir, root: root, preopen: name, readOnly: p.ReadOnly,
			base: rightsDir, inheriting: rightsDir | rightsFile,
		})
	}
	return s, nil
}

// Close closes every descriptor the program left open.
func (s *System) Close() error {
	var errs []error
	for i, f := range s.fds {
		if f != nil {
			if err := f.close(); err != nil {
				errs = append(errs, err)
			}
			s.fds[i] = nil
		}
	}
	return errors.Join(errs...)
}

// Imports returns the functions of wasi_snapshot_preview1 that m
// imports, with their preview-1 types, for link.Instantiate (alone or
// with other imports: Imports(m).Resolve is a link.Resolver). An import
// of that module that preview 1 does not define is left out, so that
// link reports it as unknown; one of the wrong type link reports as
// incompatible.
func (s *System) Imports(m *translate.Module) link.Imports {
	fns := map[string]link.Extern{}
	for _, im := range m.Imports {
		if im.Module != ModuleName || im.Kind != binary.ExternFunc {
			continue
		}
		if h, ok := hostFuncs[im.Name]; ok {
			fns[im.Name] = s.linkFunc(h)
		}
	}
	return link.Imports{ModuleName: fns}
}

// linkFunc wraps a preview-1 function for link.
func (s *System) linkFunc(h *hostFunc) *link.Func {
	t := h.funcType()
	fn := h.fn
	return &link.Func{Type: t, Fn: func(c *jit.Caller, args, results []uint64) error {
		cl := call{c: c, mem: memory(c.Memory())}
		e := fn(s, &cl, args)
		if cl.err != nil {
			return cl.err
		}
		if len(results) > 0 {
			results[0] = uint64(e)
		}
		return nil
	}}
}

// Functions lists the names of the preview-1 functions, every one
// implemented (some by failing with ENOSYS or ENOTSUP: see the package
// documentation).
func Functions() []string {
	names := make([]string, 0, len(hostFuncs))
	for _, h := range hostFuncList {
		names = append(names, h.name)
	}
	return names
}

// RunStart runs a WASI command: it calls inst's exported _start and
// returns the program's exit status, 0 when _start returns and the
// status given to proc_exit otherwise. err is the trap or other error
// that ended the program otherwise.
func RunStart(ctx context.Context, inst *link.Instance) (exitCode uint32, err error) {
	_, err = inst.Call(ctx, "_start")
	return exitStatus(err)
}

// exitStatus turns the ExitError of proc_exit into a status.
func exitStatus(err error) (uint32, error) {
	var exit *ExitError
	if errors.As(err, &exit) {
		return exit.Code, nil
	}
	return 0, err
}

// Run instantiates m on engine with the WASI system cfg describes (and
// nothing else to import), runs its _start and returns the exit status,
// as RunStart does.
func Run(ctx context.Context, engine *jit.Engine, m *translate.Module, cfg Config) (exitCode uint32, err error) {
	s, err := New(cfg)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	inst, err := link.Instantiate(ctx, engine, m, s.Imports(m).Resolve)
	if err != nil {
		// proc_exit in a start function ends the program as well.
		return exitStatus(err)
	}
	return RunStart(ctx, inst)
}
