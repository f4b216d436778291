// Package runtime runs kiln's machine code inside a Go process, in pure Go
// plus assembly (no cgo).
//
//   - Code is installed into executable memory obtained with mmap: written
//     while read-write, then sealed read-execute (never writable and
//     executable at once), and unmapped by a cleanup once nothing refers
//     to it any more (a running call keeps it referenced).
//   - Each Thread owns an execution context (ExecCtx, the memory R15 points
//     to in compiled code), the edge counters of its instance's code, in
//     the words just below the context so that one instruction adds to a
//     counter, and a stack of its own, mmap'd with a guard page below it;
//     compiled code never runs on a goroutine stack, which is small and
//     moves.
//   - Enter calls compiled code through an ABI0 trampoline that saves the
//     goroutine's stack pointer, switches to the thread's stack, loads the
//     argument registers from the context and calls the entry point. When
//     the code returns, or exits through the shared exit stub (a trap, a
//     host or runtime call, a poll), the trampoline's Go caller sees the
//     exit code in the context. Resume continues suspended code where it
//     exited, with every register restored from the context.
//
// The package knows nothing of bytecode: package jit interprets exits
// (traps, host calls, fuel, cancellation) and drives Enter and Resume.
// Platforms other than linux/amd64 build, but Supported reports false and
// installing code fails.
package runtime
