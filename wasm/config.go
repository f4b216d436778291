package wasm

import (
	"io"
	"slices"

	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/translate"
	"github.com/kiln-jit/kiln/wasm/wasi"
)

// RuntimeConfig configures a Runtime. The zero value runs modules in
// jit.TierAuto, without fuel or memory limits beyond the modules' own,
// and without WASI.
type RuntimeConfig struct {
	// Engine configures the jit.Engine every module of the runtime runs
	// on: the tier, the fuel each call from Go may take (Fuel), the cap on
	// every memory in pages (MaxMemoryPages), call depth and stack limits,
	// and the limits on the modules it loads.
	Engine jit.Options
	// Translate bounds what CompileModule accepts (the locals of one
	// function).
	Translate translate.Options
	// WASI provides WASI preview 1 (the module "wasi_snapshot_preview1")
	// to every module the runtime instantiates that imports it. Each
	// instance gets a system of its own, described by its ModuleConfig:
	// arguments, environment, standard streams and directories.
	WASI bool
}

// ModuleConfig configures one instantiation: the name other modules
// import the instance by, the start functions run when it is made and
// what a WASI program sees. It is a value: each With method returns a
// changed copy, so one config can be the base of several.
//
// The zero value (or NewModuleConfig) gives an anonymous instance, runs
// "_start" when the module exports it, and shows a WASI program no
// arguments, no environment, empty standard input, discarded output and
// no directories.
type ModuleConfig struct {
	name      string
	args      []string
	env       []string
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
	preopens  []wasi.Preopen
	start     []string
	startSet  bool
	clock     wasi.Clock
	randomSrc io.Reader
}

// NewModuleConfig returns the default configuration (the zero value).
func NewModuleConfig() ModuleConfig { return ModuleConfig{} }

// WithName names the instance: other modules of the runtime that import
// from a module of that name import its exports. An empty name (the
// default) keeps the instance anonymous.
func (c ModuleConfig) WithName(name string) ModuleConfig {
	c.name = name
	return c
}

// WithArgs sets a WASI program's arguments (args_get), the program's name
// first by convention.
func (c ModuleConfig) WithArgs(args ...string) ModuleConfig {
	c.args = slices.Clone(args)
	return c
}

// WithEnv adds the variable key=value to a WASI program's environment
// (environ_get), after those added before. Nothing of the host's
// environment is passed unless added.
func (c ModuleConfig) WithEnv(key, value string) ModuleConfig {
	c.env = append(slices.Clip(c.env), key+"="+value)
	return c
}

// WithStdin sets a WASI program's standard input (nil: empty).
func (c ModuleConfig) WithStdin(r io.Reader) ModuleConfig {
	c.stdin = r
	return c
}

// WithStdout sets a WASI program's standard output (nil: discarded).
func (c ModuleConfig) WithStdout(w io.Writer) ModuleConfig {
	c.stdout = w
	return c
}

// WithStderr sets a WASI program's standard error (nil: discarded).
func (c ModuleConfig) WithStderr(w io.Writer) ModuleConfig {
	c.stderr = w
	return c
}

// WithDirMount lets a WASI program use the host directory hostDir under
// the path guestPath (such as "/" or "/data"), as a preopened directory
// it cannot leave. Mounts become descriptors 3, 4, ... in the order
// they are added.
func (c ModuleConfig) WithDirMount(hostDir, guestPath string) ModuleConfig {
	c.preopens = append(slices.Clip(c.preopens), wasi.Preopen{HostDir: hostDir, GuestPath: guestPath})
	return c
}

// WithReadOnlyDirMount is WithDirMount for a directory the program may
// read but not change (every change fails with EROFS).
func (c ModuleConfig) WithReadOnlyDirMount(hostDir, guestPath string) ModuleConfig {
	c.preopens = append(slices.Clip(c.preopens), wasi.Preopen{HostDir: hostDir, GuestPath: guestPath, ReadOnly: true})
	return c
}

// WithStartFunctions sets the exported functions instantiation calls, in
// order, after the module's own start function; an export the module
// does not have is skipped. The default is "_start", a WASI command's
// entry point; call it with no names to run none.
func (c ModuleConfig) WithStartFunctions(names ...string) ModuleConfig {
	c.start = slices.Clone(names)
	c.startSet = true
	return c
}

// WithClock sets the clock a WASI program reads and sleeps on (nil: the
// host's).
func (c ModuleConfig) WithClock(clock wasi.Clock) ModuleConfig {
	c.clock = clock
	return c
}

// WithRandSource sets the source of a WASI program's random_get (nil:
// crypto/rand).
func (c ModuleConfig) WithRandSource(r io.Reader) ModuleConfig {
	c.randomSrc = r
	return c
}

// startFunctions returns the start functions to run.
func (c ModuleConfig) startFunctions() []string {
	if !c.startSet {
		return []string{"_start"}
	}
	return c.start
}

// wasiConfig returns what the instance's WASI system shows.
func (c ModuleConfig) wasiConfig() wasi.Config {
	return wasi.Config{
		Args: c.args, Env: c.env,
		Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr,
		Preopens: c.preopens, Clock: c.clock, Random: c.randomSrc,
	}
}
