//go:build !linux

package runtime

import "errors"

var errNoMem = errors.New("kiln/runtime: executable memory is not supported on this platform")

func pageSize() int               { return 4096 }
func mapRW(n int) ([]byte, error) { return nil, errNoMem }
func seal(b []byte) error         { return errNoMem }
func guard(b []byte) error        { return errNoMem }
func unmap(b []byte)              {}
