package bytecode

import (
	"bytes"
	"slices"
	"testing"
)

// TestApplyData checks that data segments land at their offsets, a later
// segment over an earlier one.
func TestApplyData(t *testing.T) {
	m := &Module{Data: []DataSegment{{Offset: 1, Bytes: []byte{1, 2, 3}}, {Offset: 2, Bytes: []byte{9}}}}
	mem := make([]byte, 6)
	m.ApplyData(mem)
	if want := []byte{0, 1, 9, 3, 0, 0}; !bytes.Equal(mem, want) {
		t.Errorf("memory %v, want %v", mem, want)
	}
}

// TestApplyElems checks that element segments fill their entries, a later
// segment over an earlier one, and that entries beyond the table are left
// out.
func TestApplyElems(t *testing.T) {
	m := &Module{Elems: []ElemSegment{{Offset: 0, Funcs: []uint32{4, 5}}, {Offset: 1, Funcs: []uint32{6, 7, 8}}}}
	tab := []int32{-1, -1, -1}
	m.ApplyElems(tab)
	if want := []int32{4, 6, 7}; !slices.Equal(tab, want) {
		t.Errorf("table %v, want %v", tab, want)
	}
}
