package wasi

import (
	"io/fs"
	"syscall"
	"time"
	"unsafe"
)

// statOf reads the device, inode, link count and times of fi.
func statOf(fi fs.FileInfo) hostStat {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t := fi.ModTime().UnixNano()
		return hostStat{nlink: 1, atim: t, ctim: t}
	}
	return hostStat{
		dev: uint64(st.Dev), ino: uint64(st.Ino), nlink: uint64(st.Nlink),
		atim: st.Atim.Nano(), ctim: st.Ctim.Nano(),
	}
}

// utimeOmit is UTIME_OMIT of utimensat: leave this time as it is.
const utimeOmit = (1 << 30) - 2

// setFileTimes sets the times of an open file, a zero time leaving one
// as it is. Package os sets times only by name, which would let a
// renamed file's new occupant be changed, so this is utimensat on the
// descriptor itself (Linux's form with a null path).
func setFileTimes(f interface{ Fd() uintptr }, atime, mtime time.Time) error {
	var ts [2]syscall.Timespec
	for i, t := range [2]time.Time{atime, mtime} {
		if t.IsZero() {
			ts[i] = syscall.Timespec{Nsec: utimeOmit}
		} else {
			ts[i] = syscall.NsecToTimespec(t.UnixNano())
		}
	}
	_, _, e := syscall.Syscall6(syscall.SYS_UTIMENSAT, f.Fd(), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	if e != 0 {
		return &fs.PathError{Op: "utimensat", Path: "(descriptor)", Err: e}
	}
	return nil
}
