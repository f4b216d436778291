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
