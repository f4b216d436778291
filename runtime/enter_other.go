//go:build !(amd64 && linux)

package runtime

func jitCall(ctx *ExecCtx, fn uintptr) {
	panic("kiln/runtime: compiled code is not supported on this platform")
}

func jitResume(ctx *ExecCtx) { panic("kiln/runtime: compiled code is not supported on this platform") }

// Supported reports whether this platform can run compiled code.
func Supported() bool { return false }
