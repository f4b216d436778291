package fuzz

import (
	"errors"
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
)

// Shape describes a module as the back end sees it after lowering: what a
// corpus of generated (or an embedder's) programs exercises.
type Shape struct {
	Instructions int // bytecode instructions
	Loops        int // loops of the lowered functions' CFGs
	Irreducible  int // loops among them with more than one entry block
	MaxLoopDepth int
	// MaxLiveGPR and MaxLiveXMM are the most values of each register
	// class live at once at any point of any lowered function (x86-64
	// has 16 registers of each).
	MaxLiveGPR, MaxLiveXMM int
	// Unlowered counts the functions that use an instruction the
	// compiled tiers do not lower yet (see lower.Supports); they are left
	// out of the other measurements.
	Unlowered int
}

// MeasureShape lowers m's functions for every CPU feature and measures
// them.
func MeasureShape(m *bytecode.Module) (Shape, error) {
	var sh Shape
	for _, f := range m.Funcs {
		sh.Instructions += len(f.Code)
	}
	info := lower.NewModuleInfo(m)
	for i := range m.Funcs {
		f, err := lower.Func(m, i, lower.Options{Target: lower.FullTarget(), Module: info})
		if errors.Is(err, lower.ErrUnsupported) {
			sh.Unlowered++
			continue
		}
		if err != nil {
			return sh, fmt.Errorf("fuzz: measure: %w", err)
		}
		loops := mir.Analyze(f).Loops
		for i := range loops.Loops {
			l := &loops.Loops[i]
			sh.Loops++
			if l.Irreducible() {
				sh.Irreducible++
			}
			sh.MaxLoopDepth = max(sh.MaxLoopDepth, l.Depth)
		}
		g, x := maxLive(f)
		sh.MaxLiveGPR = max(sh.MaxLiveGPR, g)
		sh.MaxLiveXMM = max(sh.MaxLiveXMM, x)
	}
	return sh, nil
}

// maxLive returns the most virtual registers of each class live at once
// between two instructions of f (an SSA function).
func maxLive(f *mir.Func) (gpr, xmm int) {
	lv := mir.ComputeLiveness(f)
	live := mir.NewBitset(len(f.VRegs))
	count := func() {
		g, x := 0, 0
		for _, v := range live.Elems() {
			if f.VRegs[v] == mir.XMM {
				x++
			} else {
				g++
			}
		}
		gpr, xmm = max(gpr, g), max(xmm, x)
	}
	for bi, b := range f.Blocks {
		live.Copy(lv.LiveOut[bi])
		count()
		for i := len(b.Instrs) - 1; i >= 0; i-- {
			in := b.Instrs[i]
			for _, r := range in.Defs {
				if r.IsVirtual() {
					live.Remove(r.Index())
				}
			}
			if in.Op == mir.OpPhi {
				continue
			}
			for _, r := range in.Uses {
				if r.IsVirtual() {
					live.Add(r.Index())
				}
			}
			count()
		}
	}
	return gpr, xmm
}
