package interp

import (
	"unsafe"

	"github.com/kiln-jit/kiln/bytecode"
)

// Tables is the state of an instance's tables when they may change
// (bytecode.Module.DynamicTables): every table's entries, packed in one
// slice of words that compiled code reads through the execution
// context. The slice starts with a header of two words per table, its
// first entry's index in the slice and its size, followed by the
// entries of table 0, table 1, ... Each entry is a reference value: a
// function reference (bytecode.FuncRef) or bytecode.NullRef in a table of
// function references, an opaque value in one of external references.
// table.grow may move the entries; Words returns the current slice.
//
// A Tables belongs to one instance; its machine and its compiled code
// share it (Machine.Tables).
type Tables struct {
	words   []uint64
	maxes   []uint64
	extern  []bool
	funcIDs []uint32
}

// maxTableEntries is the largest size table.grow lets a table reach
// without a maximum.
const maxTableEntries = bytecode.MaxTableSize

// NewTables returns the tables of a new instance of the verified module
// m, with their initial sizes and the active element segments applied,
// or nil when the module's tables do not change
// (bytecode.Module.DynamicTables is false).
func NewTables(m *bytecode.Module) *Tables {
	if !m.DynamicTables() {
		return nil
	}
	return newTables(m)
}

// newTables returns the tables of a new instance of m, whose tables
// change.
func newTables(m *bytecode.Module) *Tables {
	funcIDs, _ := m.SignatureIDs()
	n := m.NumTables()
	t := &Tables{maxes: make([]uint64, n), extern: make([]bool, n), funcIDs: funcIDs}
	sizes := make([]uint64, n)
	for i := range n {
		tb := m.TableAt(uint32(i))
		sizes[i], t.extern[i] = uint64(tb.Min), tb.Extern
		t.maxes[i] = maxTableEntries
		if tb.HasMax {
			t.maxes[i] = min(uint64(tb.Max), maxTableEntries)
		}
	}
	t.layout(sizes, -1, 0, 0)
	for _, e := range m.Elems {
		if e.Mode != bytecode.ElemActive {
			continue
		}
		dst := t.entries(int(e.Table))[e.Offset:]
		for k, f := range e.Funcs {
			dst[k] = t.ref(f)
		}
	}
	return t
}

// ref returns the reference value of element f of a segment.
func (t *Tables) ref(f uint32) uint64 {
	if f == bytecode.NullFunc {
		return bytecode.NullRef
	}
	return bytecode.FuncRef(t.funcIDs[f], f)
}

// layout makes a new slice for tables of the given sizes, copying the
// current entries and setting the n entries added to table grown (-1:
// none) to v.
func (t *Tables) layout(sizes []uint64, grown int, old uint64, v uint64) {
	h := 2 * uint64(len(sizes))
	total := h
	for _, s := range sizes {
		total += s
	}
	words := make([]uint64, total)
	at := h
	for i, s := range sizes {
		words[2*i], words[2*i+1] = at, s
		dst := words[at : at+s]
		if t.words != nil {
			copy(dst, t.entries(i))
		} else {
			fillRefs(dst, bytecode.NullRef)
		}
		if i == grown {
			fillRefs(dst[old:], v)
		}
		at += s
	}
	t.words = words
}

func fillRefs(b []uint64, v uint64) {
	for i := range b {
		b[i] = v
	}
}

// Words returns the packed tables (header and entries), which a table.grow
// replaces.
func (t *Tables) Words() []uint64 { return t.words }

// entries returns the entries of table i.
func (t *Tables) entries(i int) []uint64 {
	base, size := t.words[2*i], t.words[2*i+1]
	return t.words[base : base+size : base+size]
}

// Size returns the size of table i.
func (t *Tables) Size(i int) uint64 { return t.words[2*i+1] }

// valid reports whether v may be stored in table i: any value in a table
// of external references, a function reference or null in one of
// function references.
func (t *Tables) valid(i int, v uint64) bool {
	if t.extern[i] || v == bytecode.NullRef {
		return true
	}
	f := uint32(v)
	return int(f) < len(t.funcIDs) && v>>32 == uint64(t.funcIDs[f])
}

// Get runs table.get: entry idx of table i.
func (t *Tables) Get(i int, idx uint64) (uint64, bytecode.TrapKind) {
	e := t.entries(i)
	if idx >= uint64(len(e)) {
		return 0, bytecode.TrapTableOutOfBounds
	}
	return e[idx], bytecode.TrapNone
}

// Set runs table.set: entry idx of table i becomes v.
func (t *Tables) Set(i int, idx, v uint64) bytecode.TrapKind {
	e := t.entries(i)
	switch {
	case idx >= uint64(len(e)):
		return bytecode.TrapTableOutOfBounds
	case !t.valid(i, v):
		return bytecode.TrapInvalidReference
	}
	e[idx] = v
	return bytecode.TrapNone
}

// Grow runs table.grow: table i gets n more entries set to v, and the
// result is its old size, or -1 (changing nothing) when it would exceed
// its maximum.
func (t *Tables) Grow(i int, v, n uint64) (int64, bytecode.TrapKind) {
	old := t.Size(i)
	if n > t.maxes[i] || old+n > t.maxes[i] {
		return -1, bytecode.TrapNone
	}
	if !t.valid(i, v) {
		return 0, bytecode.TrapInvalidReference
	}
	if n == 0 {
		return int64(old), bytecode.TrapNone
	}
	sizes := make([]uint64, len(t.maxes))
	for k := range sizes {
		sizes[k] = t.Size(k)
	}
	sizes[i] += n
	t.layout(sizes, i, old, v)
	return int64(old), bytecode.TrapNone
}

// Fill runs table.fill: n entries of table i from idx on become v.
func (t *Tables) Fill(i int, idx, v, n uint64) bytecode.TrapKind {
	e := t.entries(i)
	switch {
	case !rangeIn(uint64(len(e)), idx, n):
		return bytecode.TrapTableOutOfBounds
	case !t.valid(i, v):
		return bytecode.TrapInvalidReference
	}
	fillRefs(e[idx:idx+n], v)
	return bytecode.TrapNone
}

// Copy runs table.copy: n entries from entry s of table src to entry d
// of table dst, as if through a temporary buffer.
func (t *Tables) Copy(dst, src int, d, s, n uint64) bytecode.TrapKind {
	de, se := t.entries(dst), t.entries(src)
	if !rangeIn(uint64(len(de)), d, n) || !rangeIn(uint64(len(se)), s, n) {
		return bytecode.TrapTableOutOfBounds
	}
	if t.extern[src] && !t.extern[dst] {
		for _, v := range se[s : s+n] {
			if !t.valid(dst, v) {
				return bytecode.TrapInvalidReference
			}
		}
	}
	copy(de[d:d+n], se[s:s+n])
	return bytecode.TrapNone
}

// Init runs table.init: n entries from element s of segment seg (of no
// elements once dropped) to entry d of table i.
func (t *Tables) Init(segs *Segments, i, seg int, d, s, n uint64) bytecode.TrapKind {
	var elems []uint32
	if !segs.elemDropped[seg] {
		elems = segs.elems[seg].Funcs
	}
	e := t.entries(i)
	if !rangeIn(uint64(len(e)), d, n) || !rangeIn(uint64(len(elems)), s, n) {
		return bytecode.TrapTableOutOfBounds
	}
	for k, f := range elems[s : s+n] {
		e[d+uint64(k)] = t.ref(f)
	}
	return bytecode.TrapNone
}

// Callee finds the function call_indirect of table i calls at index
// idx, for a signature of canonical id sig, or the trap.
func (t *Tables) Callee(i int, idx uint64, sig uint32) (int, bytecode.TrapKind) {
	e := t.entries(i)
	switch {
	case idx >= uint64(len(e)):
		return 0, bytecode.TrapUndefinedElement
	case e[idx] == bytecode.NullRef:
		return 0, bytecode.TrapUninitializedElement
	case e[idx]>>32 != uint64(sig):
		return 0, bytecode.TrapIndirectCallTypeMismatch
	}
	return int(uint32(e[idx])), bytecode.TrapNone
}

// rangeIn reports whether the n entries from i on lie in a table of
// size entries.
func rangeIn(size, i, n uint64) bool { return i <= size && size-i >= n }

// tableOp runs a table instruction other than call_indirect.
func (m *Machine) tableOp(in *inst, regs unsafe.Pointer) bytecode.TrapKind {
	t := m.tables
	var kind bytecode.TrapKind
	switch in.op {
	case iTableGet:
		*reg(regs, in.d), kind = t.Get(int(in.c), *reg(regs, in.a))
	case iTableSet:
		kind = t.Set(int(in.c), *reg(regs, in.a), *reg(regs, in.b))
	case iTableSize:
		*reg(regs, in.d) = t.Size(int(in.c))
	case iTableGrow:
		var old int64
		if old, kind = t.Grow(int(in.c), *reg(regs, in.a), *reg(regs, in.b)); kind == bytecode.TrapNone {
			*reg(regs, in.d) = uint64(old)
			if in.imm == 1 {
				*reg(regs, in.d) = uint64(uint32(old))
			}
		}
	case iTableFill:
		kind = t.Fill(int(in.imm), *reg(regs, in.a), *reg(regs, in.b), *reg(regs, in.c))
	case iTableCopy:
		kind = t.Copy(int(in.d), int(in.imm), *reg(regs, in.a), *reg(regs, in.b), *reg(regs, in.c))
	case iTableInit:
		kind = t.Init(m.segs, int(in.imm), int(in.d), *reg(regs, in.a), *reg(regs, in.b), *reg(regs, in.c))
	case iElemDrop:
		m.segs.DropElem(int(in.d))
	}
	return kind
}
