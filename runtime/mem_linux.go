//go:build linux

package runtime

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func pageSize() int { return unix.Getpagesize() }

// mapRW maps n bytes (a multiple of the page size) read-write.
func mapRW(n int) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("kiln/runtime: mmap of %d bytes: %w", n, err)
	}
	return b, nil
}

// seal makes a mapping read-execute (and no longer writable).
func seal(b []byte) error {
	if err := unix.Mprotect(b, unix.PROT_READ|unix.PROT_EXEC); err != nil {
		return fmt.Errorf("kiln/runtime: mprotect read-execute: %w (the system may forbid executable memory)", err)
	}
	return nil
}

// guard makes a page range inaccessible.
func guard(b []byte) error {
	if err := unix.Mprotect(b, unix.PROT_NONE); err != nil {
		return fmt.Errorf("kiln/runtime: mprotect guard page: %w", err)
	}
	return nil
}

func unmap(b []byte) { _ = unix.Munmap(b) }
