//go:build !amd64 && !arm64

package gostack

const supported = false

func used() uintptr { return 0 }
