package mir

import (
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
)

// RunTableFunc runs the table runtime function fn (RTTableGet ...
// RTElemDrop) with args on the instance's tables and segments, and
// returns its result (0 for one that has none) and the trap kind it
// traps with (TrapNone when it does not). It is what compiled code's
// CALLRT of one of them does.
func RunTableFunc(t *interp.Tables, s *interp.Segments, fn int32, args []uint64) (uint64, bytecode.TrapKind) {
	var r uint64
	var kind bytecode.TrapKind
	switch fn {
	case RTTableGet:
		r, kind = t.Get(int(args[0]), args[1])
	case RTTableSet:
		kind = t.Set(int(args[0]), args[1], args[2])
	case RTTableSize:
		r = t.Size(int(args[0]))
	case RTTableGrow:
		var old int64
		old, kind = t.Grow(int(args[0]), args[1], args[2])
		r = uint64(old)
	case RTTableFill:
		kind = t.Fill(int(args[0]), args[1], args[2], args[3])
	case RTTableCopy:
		kind = t.Copy(int(args[0]), int(args[1]), args[2], args[3], args[4])
	case RTTableInit:
		kind = t.Init(s, int(args[0]), int(args[1]), args[2], args[3], args[4])
	case RTElemDrop:
		s.DropElem(int(args[0]))
	}
	return r, kind
}
