package lower

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// Target lists the optional x86-64 features generated code may use. The
// zero Target is baseline x86-64 (SSE2): bit counts use BSR/BSF and a
// software popcount, and the rounding instructions are unavailable (a
// function that needs them stays in the interpreter).
type Target struct {
	POPCNT bool // POPCNT
	LZCNT  bool // LZCNT (ABM)
	BMI1   bool // TZCNT
	SSE41  bool // ROUNDSD
}

// HostTarget returns the features of the machine kiln runs on (the zero
// Target on other architectures).
func HostTarget() Target {
	if runtime.GOARCH != "amd64" {
		return Target{}
	}
	return Target{
		POPCNT: cpu.X86.HasPOPCNT,
		LZCNT:  cpu.X86.HasBMI1 && hasABM(),
		BMI1:   cpu.X86.HasBMI1,
		SSE41:  cpu.X86.HasSSE41,
	}
}

// hasABM reports LZCNT support. x/sys/cpu does not expose ABM/LZCNT
// directly; every x86-64 processor with BMI1 also has LZCNT (Intel Haswell
// and AMD Piledriver onwards), which is the test kiln uses.
func hasABM() bool { return cpu.X86.HasBMI1 }

// FullTarget enables every feature; tests use it to cover all forms.
func FullTarget() Target { return Target{POPCNT: true, LZCNT: true, BMI1: true, SSE41: true} }
