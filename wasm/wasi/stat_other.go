//go:build !linux

package wasi

import (
	"io/fs"
	"time"
)

// statOf gives, on this platform, no device or inode numbers (0) and the
// modification time for every time.
func statOf(fi fs.FileInfo) hostStat {
	t := fi.ModTime().UnixNano()
	return hostStat{nlink: 1, atim: t, ctim: t}
}

// setFileTimes is not supported on this platform: package os sets times
// only by name, which would reach a renamed file's new occupant.
func setFileTimes(interface{ Fd() uintptr }, time.Time, time.Time) error {
	return errNotSupported
}
