// Package gostack measures how much of the running goroutine's stack is in
// use, so that kiln can bound the Go stack its nested calls take (a host
// function's call back into an instance, crossings between compiled and
// interpreted code, on-stack replacement) and trap cleanly long before Go's
// own limit, whose overflow is a fatal error no deferred function survives.
//
// On amd64 and arm64, Used reads the bounds of the goroutine's stack from
// the runtime's goroutine descriptor: the stack's first two words, lo and
// hi, have led that structure since Go 1.4, and TestUsedGrows checks that
// they still do on every build. The distance from hi to the stack pointer
// does not change when the runtime moves a growing stack, so readings
// taken before and after a move compare. Elsewhere Used is not available
// (Supported reports false) and callers charge each nesting level an
// estimate instead.
package gostack

// Ceiling is the most Go stack kiln lets a goroutine use, its own frames
// and everything below them included, before a nested call traps:
// a quarter of Go's default maximum goroutine stack (1 GB on 64-bit
// platforms; stacks grow by doubling, so a goroutine using more than half
// of it cannot grow again), which leaves the host function running at
// the deepest level room for its own frames.
const Ceiling = 256 << 20

// LevelEstimate is what callers charge a nesting level on platforms where
// Used is not available: more than a level of kiln's own frames costs on
// the platforms where it is measured (see the jit package's
// documentation), with room for a host function's frames.
const LevelEstimate = 16 << 10

// Used returns the bytes of the running goroutine's stack in use: from
// the stack's high end down to the caller's stack pointer. It returns 0
// where Supported is false.
func Used() uintptr { return used() }

// Supported reports whether Used measures the stack on this platform.
func Supported() bool { return supported }
