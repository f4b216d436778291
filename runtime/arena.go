package runtime

import (
	"encoding/binary"
	"fmt"
	goruntime "runtime"
	"unsafe"
)

// Part is one function's code to install: its bytes, and relocations that
// ask for the absolute address of a byte of the part (Target) to be stored
// at Offset.
type Part struct {
	Bytes  []byte
	Relocs []Reloc
}

// Reloc is an absolute-address relocation within a part.
type Reloc struct {
	Offset, Target int
}

// Code is installed machine code: one sealed read-execute mapping holding
// several parts, each aligned to PartAlign bytes. The mapping is unmapped
// by a cleanup when the Code becomes unreachable; whoever may still run
// the code must keep the Code reachable.
type Code struct {
	mem   []byte
	addrs []uintptr
}

// PartAlign is the alignment of every installed part, a multiple of
// encode.CodeAlign: the encoder keeps jumps from crossing 32-byte
// boundaries counted from the start of a function's code.
const PartAlign = 32

// Install copies the parts into new executable memory.
func Install(parts []Part) (*Code, error) {
	total := 0
	offs := make([]int, len(parts))
	for i, p := range parts {
		total = (total + PartAlign - 1) &^ (PartAlign - 1)
		offs[i] = total
		total += len(p.Bytes)
	}
	if total == 0 {
		total = 1
	}
	ps := pageSize()
	size := (total + ps - 1) / ps * ps
	mem, err := mapRW(size)
	if err != nil {
		return nil, err
	}
	for i := range mem {
		mem[i] = 0xcc // int3 between and after parts
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	c := &Code{mem: mem, addrs: make([]uintptr, len(parts))}
	for i, p := range parts {
		copy(mem[offs[i]:], p.Bytes)
		c.addrs[i] = base + uintptr(offs[i])
		for _, r := range p.Relocs {
			if r.Offset < 0 || r.Offset+8 > len(p.Bytes) || r.Target < 0 || r.Target > len(p.Bytes) {
				unmap(mem)
				return nil, fmt.Errorf("kiln/runtime: relocation %+v outside part %d of %d bytes", r, i, len(p.Bytes))
			}
			binary.LittleEndian.PutUint64(mem[offs[i]+r.Offset:], uint64(c.addrs[i]+uintptr(r.Target)))
		}
	}
	if err := seal(mem); err != nil {
		unmap(mem)
		return nil, err
	}
	goruntime.AddCleanup(c, unmap, mem)
	return c, nil
}

// Addr returns the address of part i.
func (c *Code) Addr(i int) uintptr { return c.addrs[i] }

// bytes returns n bytes of installed code starting at part i (read-only).
func (c *Code) bytes(i, n int) []byte {
	off := c.addrs[i] - uintptr(unsafe.Pointer(&c.mem[0]))
	return c.mem[off : off+uintptr(n)]
}

// CopyBytes returns a copy of the n installed bytes at the start of part
// i, relocations applied: the code as it runs (for profilers' records).
func (c *Code) CopyBytes(i, n int) []byte {
	return append([]byte(nil), c.bytes(i, n)...)
}

// Contains reports whether pc lies in the code.
func (c *Code) Contains(pc uintptr) bool {
	base := uintptr(unsafe.Pointer(&c.mem[0]))
	return pc >= base && pc < base+uintptr(len(c.mem))
}
