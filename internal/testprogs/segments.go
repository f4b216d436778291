package testprogs

import (
	"fmt"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// segmentCases are the cases of memory.init and data.drop: a passive
// segment copied whole, in part and not at all; ranges beyond the
// segment or the memory, which trap before anything is written; a
// dropped segment, which is empty; and an active segment, dropped when
// the instance starts.
func segmentCases() []Case {
	const src = `memory 1 1
data 0 "\x81\x82\x83\x84"
data passive "abcdef"
data 16 "\xf1"
func f (i64 i32 i64 i64) -> ()
  br_if r3, Ldrop
  memory.init 1, r0, r1, r2
  ret
Ldrop:
  data.drop 1
  memory.init 1, r0, r1, r2
  ret
end
func active (i64 i64) -> ()
  memory.init 0, r0, r1, r1
  data.drop 0
  memory.init 0, r0, r1, r1
  ret
end
export "f" f
export "active" active
`
	m, err := bc.Assemble([]byte(src))
	if err != nil {
		panic(fmt.Sprintf("testprogs: segment cases: %v", err))
	}
	unchanged := map[uint32][]byte{0: {0x81, 0x82, 0x83, 0x84, 0}, 16: {0xf1, 0}}
	var l []Case
	init := func(dst, off, n uint64, drop bool, trap bc.TrapKind, mem map[uint32][]byte) {
		d := uint64(0)
		if drop {
			d = 1
		}
		l = append(l, Case{
			Name:   fmt.Sprintf("memory.init %#x, %#x, %#x (dropped %v)", dst, off, n, drop),
			Module: m, Func: "f", Args: []uint64{dst, off, n, d}, Want: []uint64{}, Trap: trap, Memory: mem,
			TrapOffset: map[bool]int{false: 1, true: 4}[drop],
		})
	}
	init(2, 0, 6, false, bc.TrapNone, map[uint32][]byte{0: {0x81, 0x82, 'a', 'b', 'c', 'd', 'e', 'f', 0}, 16: {0xf1}})
	init(20, 3, 2, false, bc.TrapNone, map[uint32][]byte{19: {0, 'd', 'e', 0}})
	init(pageEnd-2, 4, 2, false, bc.TrapNone, map[uint32][]byte{pageEnd - 3: {0, 'e', 'f'}})
	init(0, 6, 0, false, bc.TrapNone, unchanged)
	init(pageEnd, 0, 0, false, bc.TrapNone, unchanged)
	init(0, 5, 2, false, bc.TrapOutOfBounds, unchanged)
	init(0, 7, 0, false, bc.TrapOutOfBounds, unchanged)
	init(pageEnd-1, 0, 2, false, bc.TrapOutOfBounds, unchanged)
	init(pageEnd+1, 0, 0, false, bc.TrapOutOfBounds, unchanged)
	init(0, 0xffffffff, 2, false, bc.TrapOutOfBounds, unchanged)
	init(0, 0, 1<<63, false, bc.TrapOutOfBounds, unchanged)
	init(5, 0, 0, true, bc.TrapNone, unchanged)
	init(5, 0, 1, true, bc.TrapOutOfBounds, unchanged)
	for _, c := range []struct {
		dst, n uint64
		trap   bc.TrapKind
	}{{0, 0, bc.TrapNone}, {3, 0, bc.TrapNone}, {0, 1, bc.TrapOutOfBounds}} {
		l = append(l, Case{
			Name:   fmt.Sprintf("memory.init of an active segment %#x, %#x", c.dst, c.n),
			Module: m, Func: "active", Args: []uint64{c.dst, c.n}, Want: []uint64{}, Trap: c.trap, Memory: unchanged,
		})
	}
	return l
}

// tableCases are the cases of the table instructions on a module with
// two tables of function references and one of external references:
// table.get, table.set, table.size, table.grow (up to the maximum, and
// -1 beyond it), table.fill, table.copy (overlapping), table.init and
// elem.drop, ref.func, call_indirect through table 1, and the traps of
// ranges out of bounds, of null entries and of values that are not
// function references stored into a table of them.
func tableCases() []Case {
	const src = `type t0 (i64) -> (i64)
table 2 4
table 3
table 1 2 externref
elem 0 inc
elem table 1 1 dbl null
elem passive inc null dbl
elem declare dbl
func inc (i64) -> (i64)
  i64.add r0, r0, 1
  ret r0
end
func dbl (i64) -> (i64)
  i64.add r0, r0, r0
  ret r0
end
func get (i64 i64) -> (i64)
  switch r0, [L0, L1], L2
L0:
  table.get r1, 0, r1
  ret r1
L1:
  table.get r1, 1, r1
  ret r1
L2:
  table.get r1, 2, r1
  ret r1
end
func call1 (i64 i64) -> (i64)
  call_indirect t0, 1, r0 (r1) -> (r1)
  ret r1
end
func sizes () -> (i64 i64 i32)
  regs i64 i64 i32
  table.size r0, 0
  table.size r1, 1
  table.size r2, 2
  ret r0, r1, r2
end
func grow0 (i64) -> (i32 i64)
  regs i32 i64
  ref.func r2, dbl
  table.grow r1, 0, r2, r0
  table.size r2, 0
  ret r1, r2
end
func growx (i64 i64) -> (i64 i64)
  table.grow r1, 2, r1, r0
  table.get r0, 2, r0
  ret r1, r0
end
func set1 (i64 i64) -> (i64)
  regs i64
  ref.func r2, inc
  table.set 1, r0, r2
  call_indirect t0, 1, r0 (r1) -> (r2)
  ret r2
end
func setbad (i64 i64) -> ()
  table.set 0, r0, r1
  ret
end
func fill (i64 i64 i64) -> (i64)
  regs i64
  ref.func r3, dbl
  table.fill 1, r0, r3, r1
  call_indirect t0, 1, r2 (r2) -> (r3)
  ret r3
end
func copy (i64 i64 i64 i64) -> (i64)
  table.copy 1, 0, r0, r1, r2
  call_indirect t0, 1, r3 (r3) -> (r3)
  ret r3
end
func init (i64 i64 i64 i64) -> (i64)
  regs i64
  br_if r3, Ldrop
  table.init 2, 1, r0, r1, r2
  i64.const r4, 0
  table.get r4, 1, r4
  ret r4
Ldrop:
  elem.drop 2
  table.init 2, 1, r0, r1, r2
  ret r0
end
export "get" get
export "call1" call1
export "sizes" sizes
export "grow0" grow0
export "growx" growx
export "set1" set1
export "setbad" setbad
export "fill" fill
export "copy" copy
export "init" init
`
	m, err := bc.Assemble([]byte(src))
	if err != nil {
		panic(fmt.Sprintf("testprogs: table cases: %v", err))
	}
	ids, _ := m.SignatureIDs()
	ref := func(f string) uint64 { i := m.FuncIndex(f); return bc.FuncRef(ids[i], uint32(i)) }
	null := bc.NullRef
	var l []Case
	c := func(name, fn string, args, want []uint64, trap bc.TrapKind, off int) {
		l = append(l, Case{Name: "tables " + name, Module: m, Func: fn, Args: args, Want: want, Trap: trap, TrapOffset: off})
	}
	c("get 0 0", "get", []uint64{0, 0}, []uint64{ref("inc")}, 0, 0)
	c("get 0 1", "get", []uint64{0, 1}, []uint64{null}, 0, 0)
	c("get 1 1", "get", []uint64{1, 1}, []uint64{ref("dbl")}, 0, 0)
	c("get 1 2", "get", []uint64{1, 2}, []uint64{null}, 0, 0)
	c("get 2 0", "get", []uint64{2, 0}, []uint64{null}, 0, 0)
	c("get 0 2", "get", []uint64{0, 2}, nil, bc.TrapTableOutOfBounds, 1)
	c("get 1 3", "get", []uint64{1, 3}, nil, bc.TrapTableOutOfBounds, 3)
	c("get 2 1", "get", []uint64{2, 1}, nil, bc.TrapTableOutOfBounds, 5)
	c("call1 1", "call1", []uint64{1, 7}, []uint64{14}, 0, 0)
	c("call1 0", "call1", []uint64{0, 7}, nil, bc.TrapUninitializedElement, 0)
	c("call1 3", "call1", []uint64{3, 7}, nil, bc.TrapUndefinedElement, 0)
	c("sizes", "sizes", nil, []uint64{2, 3, 1}, 0, 0)
	c("grow0 2", "grow0", []uint64{2}, []uint64{2, 4}, 0, 0)
	c("grow0 0", "grow0", []uint64{0}, []uint64{2, 2}, 0, 0)
	c("grow0 3", "grow0", []uint64{3}, []uint64{0xffffffff, 2}, 0, 0)
	c("grow0 huge", "grow0", []uint64{1 << 40}, []uint64{0xffffffff, 2}, 0, 0)
	c("growx 1", "growx", []uint64{1, 42}, []uint64{1, 42}, 0, 0)
	c("growx 2", "growx", []uint64{2, 42}, []uint64{null, null}, bc.TrapTableOutOfBounds, 1)
	c("set1 0", "set1", []uint64{0, 5}, []uint64{6}, 0, 0)
	c("set1 3", "set1", []uint64{3, 5}, nil, bc.TrapTableOutOfBounds, 1)
	c("setbad", "setbad", []uint64{1, 1<<32 | 1}, nil, bc.TrapInvalidReference, 0)
	c("fill 0 3", "fill", []uint64{0, 3, 2}, []uint64{4}, 0, 0)
	c("fill 2 1", "fill", []uint64{2, 1, 0}, []uint64{0}, bc.TrapUninitializedElement, 2)
	c("fill 2 2", "fill", []uint64{2, 2, 0}, nil, bc.TrapTableOutOfBounds, 1)
	c("fill 3 0", "fill", []uint64{3, 0, 1}, []uint64{2}, 0, 0)
	c("copy", "copy", []uint64{2, 0, 1, 2}, []uint64{3}, 0, 0)
	c("copy over", "copy", []uint64{0, 1, 2, 0}, nil, bc.TrapTableOutOfBounds, 0)
	c("copy empty end", "copy", []uint64{3, 2, 0, 1}, []uint64{2}, 0, 0)
	c("init", "init", []uint64{0, 0, 3, 0}, []uint64{ref("inc")}, 0, 0)
	c("init 1", "init", []uint64{0, 1, 2, 0}, []uint64{null}, 0, 0)
	c("init over", "init", []uint64{1, 0, 3, 0}, nil, bc.TrapTableOutOfBounds, 1)
	c("init seg over", "init", []uint64{0, 2, 2, 0}, nil, bc.TrapTableOutOfBounds, 1)
	c("init dropped 0", "init", []uint64{3, 0, 0, 1}, []uint64{3}, 0, 0)
	c("init dropped 1", "init", []uint64{0, 0, 1, 1}, nil, bc.TrapTableOutOfBounds, 6)
	return l
}
