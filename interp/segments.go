package interp

import "github.com/kiln-jit/kiln/bytecode"

// Segments is the state of an instance's data segments that memory.init
// and data.drop use: which segments the instance has dropped. A machine
// starts with its active segments dropped (they have been copied into
// memory) and its passive ones kept. Compiled code of the same instance
// shares the machine's Segments (Machine.Segments), so that every tier
// sees one state.
type Segments struct {
	data        []bytecode.DataSegment
	dataDropped []bool
	elems       []bytecode.ElemSegment
	elemDropped []bool
}

// NewSegments returns the segment state of a new instance of m: its
// data and element segments, of which only the passive ones are not
// dropped.
func NewSegments(m *bytecode.Module) *Segments {
	s := &Segments{data: m.Data, dataDropped: make([]bool, len(m.Data)), elems: m.Elems, elemDropped: make([]bool, len(m.Elems))}
	for i, d := range m.Data {
		s.dataDropped[i] = !d.Passive
	}
	for i, e := range m.Elems {
		s.elemDropped[i] = e.Mode != bytecode.ElemPassive
	}
	return s
}

// DropElem runs elem.drop of element segment seg.
func (s *Segments) DropElem(seg int) { s.elemDropped[seg] = true }

// MemoryInit runs memory.init of data segment seg on the memory bytes
// mem: it copies n bytes from offset src of the segment (of no bytes
// once dropped) to address dst. It reports false, writing nothing, when
// either range is out of bounds.
func (s *Segments) MemoryInit(mem []byte, seg int, dst, src, n uint64) bool {
	var b []byte
	if !s.dataDropped[seg] {
		b = s.data[seg].Bytes
	}
	if !rangeInBounds(b, src, n) || !rangeInBounds(mem, dst, n) {
		return false
	}
	copy(mem[dst:dst+n], b[src:src+n])
	return true
}

// DropData runs data.drop of data segment seg.
func (s *Segments) DropData(seg int) { s.dataDropped[seg] = true }

// DataDropped reports whether data segment seg is dropped.
func (s *Segments) DataDropped(seg int) bool { return s.dataDropped[seg] }
