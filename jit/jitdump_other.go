//go:build !linux

package jit

import (
	"errors"
	"os"
)

func monotonicNanos() uint64 { return 0 }

func threadID() int { return 0 }

func mapForPerf(*os.File) error {
	return errors.New("the jitdump file is for Linux perf")
}
