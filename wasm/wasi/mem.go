package wasi

import "encoding/binary"

// memory is the guest's linear memory during one host call. Every access
// is bounds-checked: a pointer and length that do not lie inside it make
// the function fail with EFAULT. Offsets are uint64 so that a 32-bit
// pointer plus a 32-bit length cannot overflow.
type memory []byte

// bytes returns the n bytes at p, or false when they are not all in
// memory.
func (m memory) bytes(p, n uint64) ([]byte, bool) {
	if p > uint64(len(m)) || n > uint64(len(m))-p {
		return nil, false
	}
	return m[p : p+n : p+n], true
}

// zeroed returns the n bytes at p, cleared, for a structure to be written
// there.
func (m memory) zeroed(p, n uint64) ([]byte, bool) {
	b, ok := m.bytes(p, n)
	clear(b)
	return b, ok
}

// u16 reads the uint16 at p.
func (m memory) u16(p uint64) (uint16, bool) {
	b, ok := m.bytes(p, 2)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint16(b), true
}

// u32 reads the uint32 at p.
func (m memory) u32(p uint64) (uint32, bool) {
	b, ok := m.bytes(p, 4)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b), true
}

// u64 reads the uint64 at p.
func (m memory) u64(p uint64) (uint64, bool) {
	b, ok := m.bytes(p, 8)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b), true
}

// putU32 writes v at p.
func (m memory) putU32(p uint64, v uint32) bool {
	b, ok := m.bytes(p, 4)
	if ok {
		binary.LittleEndian.PutUint32(b, v)
	}
	return ok
}

// putU64 writes v at p.
func (m memory) putU64(p uint64, v uint64) bool {
	b, ok := m.bytes(p, 8)
	if ok {
		binary.LittleEndian.PutUint64(b, v)
	}
	return ok
}

// iovecs returns the buffers of the iovs_len iovecs (or ciovecs) at iovs,
// each checked to lie in memory.
func (m memory) iovecs(iovs, n uint64) ([][]byte, bool) {
	tab, ok := m.bytes(iovs, n*sizeIovec)
	if !ok {
		return nil, false
	}
	bufs := make([][]byte, n)
	for i := range bufs {
		e := tab[i*sizeIovec:]
		b, ok := m.bytes(uint64(binary.LittleEndian.Uint32(e)), uint64(binary.LittleEndian.Uint32(e[4:])))
		if !ok {
			return nil, false
		}
		bufs[i] = b
	}
	return bufs, true
}

// str reads the n-byte string at p.
func (m memory) str(p, n uint64) (string, bool) {
	b, ok := m.bytes(p, n)
	return string(b), ok
}
