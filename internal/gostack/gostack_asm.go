//go:build amd64 || arm64

package gostack

const supported = true

// used is implemented in assembly.
//
//go:noescape
func used() uintptr
