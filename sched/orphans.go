package sched

import (
	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// deleteOrphans deletes the definitions of rematerializable values (a
// constant, a context field) whose register nothing reads: every use of
// the value was served by a recomputation after the register was given
// to another value (thesis §3.5, "orphaned" definitions). A definition
// is an orphan when, on every path from it, its register is written or
// clobbered before it is read, or the function returns without reading
// it. Like the rest of placement it runs on the output, with the budget
// of deadRegs.
func (a *allocator) deleteOrphans(res *Result) {
	post, org, d := res.Func, res.Origins, a.d
	dead := newDeadRegs(post)
	drop := make(map[placeAt]bool)
	for b, blk := range post.Blocks {
		ob := org.Block[b]
		if ob < 0 {
			continue
		}
		for i, in := range blk.Instrs {
			oi := org.Instr[b][i]
			if oi < 0 || !alloc.IsRematOp(in.Op) || len(in.Defs) != 1 || !in.Defs[0].IsPhys() {
				continue
			}
			n := d.instrBase[ob] + oi
			if d.defStart[n+1]-d.defStart[n] != 1 {
				continue
			}
			if v := d.defVReg[d.defStart[n]]; v < 0 || !d.remat[v].ok {
				continue
			}
			if dead.after(int32(b), int32(i), in.Defs[0]) {
				drop[placeAt{int32(b), int32(i)}] = true
				a.stats.OrphansDeleted++
			}
		}
	}
	if len(drop) > 0 {
		rewriteBlocks(post, org, drop, nil, nil)
	}
}

// deadRegs answers whether a register is dead after an instruction of a
// function, searching forward along its control flow.
type deadRegs struct {
	f       *mir.Func
	touches *blockTouches
	stamp   []int32
	mark    int32
	stack   []int32
	// work is what is left of the function's budget of block visits; when
	// it runs out every register counts as live.
	work int
}

// maxDeadRegWork bounds the block visits of one function's deadRegs
// searches.
const maxDeadRegWork = 1 << 20

func newDeadRegs(f *mir.Func) *deadRegs {
	return &deadRegs{f: f, work: maxDeadRegWork}
}

// after reports whether register r is dead after instruction i of block
// b: every path from there writes it before reading it, or returns.
func (dr *deadRegs) after(b, i int32, r mir.Reg) bool {
	switch firstTouch(dr.f.Blocks[b].Instrs[i+1:], r) {
	case touchRead:
		return false
	case touchWrite:
		return true
	}
	if dr.touches == nil {
		dr.touches = newBlockTouches(dr.f)
		dr.stamp = make([]int32, len(dr.f.Blocks))
	}
	dr.mark++
	dr.stack = append(dr.stack[:0], b)
	for len(dr.stack) > 0 {
		p := dr.stack[len(dr.stack)-1]
		dr.stack = dr.stack[:len(dr.stack)-1]
		for _, s := range dr.f.Blocks[p].Succs {
			if dr.stamp[s] == dr.mark {
				continue
			}
			dr.stamp[s] = dr.mark
			if dr.work--; dr.work < 0 {
				return false
			}
			switch dr.touches.of(s, r) {
			case touchRead:
				return false
			case touchNone:
				dr.stack = append(dr.stack, int32(s))
			}
		}
	}
	return true
}
