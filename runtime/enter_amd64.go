//go:build amd64 && linux

package runtime

// jitCall and jitResume are the trampolines (enter_amd64.s).
//
//go:noescape
func jitCall(ctx *ExecCtx, fn uintptr)

//go:noescape
func jitResume(ctx *ExecCtx)

// Supported reports whether this platform can run compiled code.
func Supported() bool { return true }
