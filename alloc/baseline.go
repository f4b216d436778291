package alloc

import (
	"fmt"
	"slices"

	"github.com/kiln-jit/kiln/mir"
)

// Baseline allocates registers for an SSA function the naive way: it takes
// the function out of SSA (NaiveDestruct), gives every virtual register its
// own stack slot, and rewrites every instruction to load its operands into
// registers just before it and store its results right after. Operands get
// the registers the op table asks for (fixed registers, tied two-address
// operands, early clobbers); the rest come from the caller-saved registers,
// so no value is ever live in a register between instructions and calls
// need no saving. Parallel copies become sequences of moves.
//
// It is the fast tier's allocator and the reference the optimizing
// allocator is measured against. f itself is not modified.
func Baseline(f *mir.Func) (*mir.Func, error) {
	if err := mir.Verify(f); err != nil {
		return nil, fmt.Errorf("alloc: baseline: input: %w", err)
	}
	g, err := BaselineOutOfSSA(f, true, false)
	if err != nil {
		return nil, err
	}
	return BaselineNonSSA(g)
}

// BaselineOutOfSSA takes SSA function f out of SSA form for the baseline
// allocator and returns the result; f is not modified unless inPlace is
// set (then f is reused for the result and must not be used as SSA form
// afterwards). With naive it
// instantiates φs naively (NaiveDestruct); otherwise it runs Destruct's
// copy coalescer without renaming constraints: the baseline meets
// fixed-register and two-address operands in scratch registers around each
// instruction, where a constraint copy would be a memory round trip.
func BaselineOutOfSSA(f *mir.Func, naive, inPlace bool) (*mir.Func, error) {
	if naive {
		g := f
		if !inPlace {
			g = f.Clone()
		}
		return g, NaiveDestruct(g)
	}
	d, err := Destruct(f, DestructOptions{NoConstraints: true, InPlace: inPlace})
	if err != nil {
		return nil, err
	}
	return d.Func, nil
}

// BaselineNonSSA allocates a function already out of SSA form (for
// example by Destruct) in place with the baseline strategy, and returns it.
func BaselineNonSSA(g *mir.Func) (*mir.Func, error) {
	g, _, err := baselineNonSSA(g, false)
	return g, err
}

// BaselineNonSSAWithOrigins is BaselineNonSSA that also says where each
// allocated instruction came from, for CheckAllocation. Like
// BaselineNonSSA it allocates g in place, so a caller that wants to check
// the allocation passes a clone and keeps g. Every allocated block holds
// the input block of the same number; the loads and stores around an
// instruction are inserted (origin -1), and the moves a ParCopy becomes
// carry the ParCopy's index.
func BaselineNonSSAWithOrigins(g *mir.Func) (*mir.Func, *Origins, error) {
	return baselineNonSSA(g, true)
}

// baselineNonSSA is BaselineNonSSA, with the origins when withOrigins is
// set (nil otherwise).
func baselineNonSSA(g *mir.Func, withOrigins bool) (*mir.Func, *Origins, error) {
	if g.Form != mir.FormNonSSA {
		return nil, nil, fmt.Errorf("alloc: baseline of %s needs non-SSA form, not %s", g.Name, g.Form)
	}
	// Virtual register v lives in stack slot v.
	g.Slots = make([]mir.SlotInfo, len(g.VRegs))
	for i, c := range g.VRegs {
		g.Slots[i] = mir.SlotInfo{Class: c}
	}
	b := &baseline{f: g}
	var o *Origins
	if withOrigins {
		o = &Origins{Block: make([]int, len(g.Blocks)), Instr: make([][]int32, len(g.Blocks))}
	}
	// Each block is rewritten into reused buffers, then copied out at its
	// size.
	var out []*mir.Instr
	var orig []int32
	for _, blk := range g.Blocks {
		out, orig = out[:0], orig[:0]
		for k, in := range blk.Instrs {
			start := len(out)
			var at int
			var err error
			out, at, err = b.rewrite(out, in)
			if err != nil {
				return nil, nil, fmt.Errorf("alloc: baseline %s b%d: %w", g.Name, blk.ID, err)
			}
			for j := start; o != nil && j < len(out); j++ {
				switch {
				case j == at || in.Op == mir.OpParCopy:
					orig = append(orig, int32(k))
				default:
					orig = append(orig, -1)
				}
			}
		}
		blk.Instrs = slices.Clone(out)
		if o != nil {
			o.Block[blk.ID] = blk.ID
			o.Instr[blk.ID] = slices.Clone(orig)
		}
	}
	g.Form = mir.FormAllocated
	g.Pins = nil // the pins are honoured: every operand is in its required register
	return g, o, nil
}

// Registers the baseline may load operands into: caller-saved only, so
// that the function saves no callee-saved register.
var (
	baselineGPRs = []mir.Reg{mir.RAX, mir.RCX, mir.RDX, mir.RSI, mir.RDI, mir.R8, mir.R9, mir.R10}
	baselineXMMs = []mir.Reg{mir.X0, mir.X1, mir.X2, mir.X3, mir.X4, mir.X5, mir.X6, mir.X7,
		mir.X8, mir.X9, mir.X10, mir.X11, mir.X12, mir.X13, mir.X14}
)

type baseline struct {
	f *mir.Func
	// Operand locations and the defined values of the instruction being
	// rewritten, reused between instructions.
	useLoc, defLoc, defs []mir.Reg
}

// slotOf returns the stack slot of a virtual register.
func slotOf(r mir.Reg) mir.Reg { return mir.SlotReg(r.Index()) }

// move appends the instructions moving a value from src to dst (registers
// or memory, through a scratch register for memory to memory), attributed
// to bytecode offset pos.
func (b *baseline) move(out []*mir.Instr, dst, src mir.Reg, pos int32) ([]*mir.Instr, error) {
	return appendMove(b.f, out, Move{Dst: dst, Src: src}, pos)
}

// rewrite appends the allocated form of in to out and returns the index in
// out of the rewritten instruction itself (-1 for a parallel copy, which
// becomes moves).
func (b *baseline) rewrite(out []*mir.Instr, in *mir.Instr) ([]*mir.Instr, int, error) {
	f := b.f
	if in.Op == mir.OpParCopy {
		moves := make([]Move, len(in.Defs))
		for i := range in.Defs {
			moves[i] = Move{Dst: slotOf(in.Defs[i]), Src: slotOf(in.Uses[i])}
		}
		seq, err := Sequentialize(moves)
		if err != nil {
			return nil, -1, err
		}
		return append(out, seq...), -1, nil
	}
	// Choose a location for every operand. Fixed locations first, then tied
	// defs share their use's register, then the free registers in order.
	taken := mir.RegSet(0)
	b.useLoc = slices.Grow(b.useLoc[:0], len(in.Uses))[:len(in.Uses)]
	b.defLoc = slices.Grow(b.defLoc[:0], len(in.Defs))[:len(in.Defs)]
	useLoc, defLoc := b.useLoc, b.defLoc
	for i := range useLoc {
		useLoc[i] = mir.NoReg
	}
	for i := range defLoc {
		defLoc[i] = mir.NoReg
	}
	for i := range in.Uses {
		if s := f.UseSpec(in, i); s.Fixed != mir.NoReg {
			useLoc[i] = s.Fixed
			if s.Fixed.IsPhys() {
				taken = taken.Add(s.Fixed)
			}
		}
	}
	for i := range in.Defs {
		if s := f.DefSpec(in, i); s.Fixed != mir.NoReg {
			defLoc[i] = s.Fixed
			if s.Fixed.IsPhys() {
				taken = taken.Add(s.Fixed)
			}
		}
	}
	pick := func(c mir.Class) (mir.Reg, error) {
		pool := baselineGPRs
		if c == mir.XMM {
			pool = baselineXMMs
		}
		for _, r := range pool {
			if !taken.Has(r) {
				taken = taken.Add(r)
				return r, nil
			}
		}
		return mir.NoReg, fmt.Errorf("%s: out of %s registers", in.Op, c)
	}
	var err error
	for i, r := range in.Uses {
		if useLoc[i] == mir.NoReg && r != mir.NoReg { // NoReg: no index
			if useLoc[i], err = pick(f.RegClass(r)); err != nil {
				return nil, -1, err
			}
		}
	}
	for i, r := range in.Defs {
		s := f.DefSpec(in, i)
		switch {
		case s.Fixed != mir.NoReg:
		case s.Tied >= 0:
			defLoc[i] = useLoc[s.Tied]
		default:
			if defLoc[i], err = pick(f.RegClass(r)); err != nil {
				return nil, -1, err
			}
		}
	}
	// Load the uses, run the instruction, store the defs.
	for i, r := range in.Uses {
		if r.IsVirtual() {
			if out, err = b.move(out, useLoc[i], slotOf(r), in.Pos); err != nil {
				return nil, -1, err
			}
		}
	}
	// The instruction itself is rewritten in place (the function is
	// allocated in place): a copy would hold a second instruction per
	// instruction while the function is rewritten.
	b.defs = append(b.defs[:0], in.Defs...)
	defs := b.defs
	copy(in.Uses, useLoc)
	copy(in.Defs, defLoc)
	out = append(out, in)
	at := len(out) - 1
	for i, r := range defs {
		if r.IsVirtual() {
			if out, err = b.move(out, slotOf(r), defLoc[i], in.Pos); err != nil {
				return nil, -1, err
			}
		}
	}
	return out, at, nil
}
