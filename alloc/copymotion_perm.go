package alloc

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/kiln-jit/kiln/mir"
)

// Perm is a permutation of the physical registers (Bouchez et al.,
// Definition 2): Perm[r] is the register the value of register r goes to.
// A register class is never mixed with another by the permutations this
// package builds, because the copies they expand stay within a class.
type Perm [mir.NumPhysRegs]uint8

// IdentityPerm returns the identity permutation.
func IdentityPerm() Perm {
	var p Perm
	for r := range p {
		p[r] = uint8(r)
	}
	return p
}

// Map returns the image of r: p[r] for a physical register, r itself for
// anything else (stack slots, virtual registers, NoReg).
func (p *Perm) Map(r mir.Reg) mir.Reg {
	if r.IsPhys() {
		return mir.Reg(p[r])
	}
	return r
}

// IsIdentity reports whether p fixes every register.
func (p *Perm) IsIdentity() bool {
	for r, x := range p {
		if int(x) != r {
			return false
		}
	}
	return true
}

// Support returns the registers p does not fix.
func (p *Perm) Support() mir.RegSet {
	var s mir.RegSet
	for r, x := range p {
		if int(x) != r {
			s |= 1 << r
		}
	}
	return s
}

// Inverse returns the inverse permutation.
func (p *Perm) Inverse() Perm {
	var q Perm
	for r, x := range p {
		q[x] = uint8(r)
	}
	return q
}

// Then returns the permutation that applies p first and q after it
// (q ∘ p): r goes to q[p[r]].
func (p *Perm) Then(q *Perm) Perm {
	var out Perm
	for r, x := range p {
		out[r] = q[x]
	}
	return out
}

// Project returns the projection of p on the registers of live (§3.1 of
// the paper): the reversible parallel copy that moves every register r of
// live to p[r], as moves in register order, self-moves included (they
// say that the register stays live).
func (p *Perm) Project(live mir.RegSet) []Move {
	var out []Move
	for _, r := range live.Regs() {
		out = append(out, Move{Dst: mir.Reg(p[r]), Src: r})
	}
	return out
}

// valid reports whether p is a bijection.
func (p *Perm) valid() bool {
	var seen mir.RegSet
	for _, x := range p {
		if int(x) >= mir.NumPhysRegs || seen&(1<<x) != 0 {
			return false
		}
		seen |= 1 << x
	}
	return true
}

// ErrNotReversible is wrapped by the errors CheckReversible returns: a
// register is the source of two moves (a duplication) or the destination
// of two, or a move is not a register-to-register move of one class.
var ErrNotReversible = errors.New("parallel copy is not reversible")

// CheckReversible checks that moves is a reversible register parallel
// copy (Bouchez et al., Definition 1): register-to-register moves within
// one class, every register the source of at most one move and the
// destination of at most one. Identical moves listed twice count once; a
// self-move marks its register as live, and counts as that register's
// move in both directions.
func CheckReversible(moves []Move) error {
	var srcs, dsts mir.RegSet
	var to, from [mir.NumPhysRegs]mir.Reg
	for _, m := range moves {
		if !m.Dst.IsPhys() || !m.Src.IsPhys() {
			return fmt.Errorf("alloc: %w: move %s <- %s is not between registers", ErrNotReversible, m.Dst, m.Src)
		}
		if m.Dst.Class() != m.Src.Class() {
			return fmt.Errorf("alloc: %w: move %s <- %s crosses register classes", ErrNotReversible, m.Dst, m.Src)
		}
		if srcs.Has(m.Src) {
			if to[m.Src] == m.Dst {
				continue
			}
			return fmt.Errorf("alloc: %w: %s is copied to both %s and %s", ErrNotReversible, m.Src, to[m.Src], m.Dst)
		}
		if dsts.Has(m.Dst) {
			return fmt.Errorf("alloc: %w: %s receives both %s and %s", ErrNotReversible, m.Dst, from[m.Dst], m.Src)
		}
		srcs, dsts = srcs.Add(m.Src), dsts.Add(m.Dst)
		to[m.Src], from[m.Dst] = m.Dst, m.Src
	}
	return nil
}

// Expand returns an expansion of the reversible parallel copy moves: a
// permutation of all registers whose projection on the copy's sources is
// the copy (Bouchez et al., Function Expand). The permutation starts as
// the copy; every chain of the copy (a register no move writes, followed
// through the moves to a register no move reads) is closed into a cycle
// by mapping its end to its head, and every register the copy does not
// name is fixed. The result is the identity on as many registers as
// possible. It returns an error wrapping ErrNotReversible when moves is
// not reversible (see CheckReversible).
func Expand(moves []Move) (Perm, error) {
	if err := CheckReversible(moves); err != nil {
		return Perm{}, err
	}
	const none = 0xff
	var fwd, back [mir.NumPhysRegs]uint8
	for r := range fwd {
		fwd[r], back[r] = none, none
	}
	for _, m := range moves {
		fwd[m.Src], back[m.Dst] = uint8(m.Dst), uint8(m.Src)
	}
	for r := range fwd {
		if back[r] != none {
			continue // inside a chain or a cycle
		}
		cur := r
		for fwd[cur] != none {
			cur = int(fwd[cur])
		}
		fwd[cur], back[r] = uint8(r), uint8(cur)
	}
	var p Perm
	copy(p[:], fwd[:])
	return p, nil
}

// ExpandIn returns the copy moves grown to the live set live (the
// paper's Expand_in): the projection of Expand(moves) on live together
// with the copy's sources. A register of live the copy does not read is
// kept in place when the copy does not write it either, and otherwise (it
// ends a chain) saved into the chain's head.
func ExpandIn(moves []Move, live mir.RegSet) ([]Move, error) {
	p, err := Expand(moves)
	if err != nil {
		return nil, err
	}
	for _, m := range moves {
		live = live.Add(m.Src)
	}
	return p.Project(live), nil
}

// CopyCost returns the paper's ‖pc‖ of a register parallel copy: the
// number of moves that are not self-moves plus the number of cycles, the
// moves a sequentialization with a free register needs. Duplicated
// sources are allowed (each extra destination costs a move).
func CopyCost(moves []Move) int {
	var src [mir.NumPhysRegs]int8
	for i := range src {
		src[i] = -1
	}
	n := 0
	for _, m := range moves {
		if m.Dst == m.Src || !m.Dst.IsPhys() || !m.Src.IsPhys() {
			continue
		}
		if src[m.Dst] < 0 {
			n++
		}
		src[m.Dst] = int8(m.Src)
	}
	if n == 0 {
		return 0
	}
	return n + countCycles(&src)
}

// countCycles counts the cycles of the graph in which every register r
// with src[r] >= 0 receives the value of src[r].
func countCycles(src *[mir.NumPhysRegs]int8) int {
	var state [mir.NumPhysRegs]uint8 // 0 new, 1 on the current walk, 2 done
	cycles := 0
	for r := range src {
		if state[r] != 0 || src[r] < 0 {
			continue
		}
		cur := r
		for cur >= 0 && state[cur] == 0 {
			state[cur] = 1
			cur = int(src[cur])
		}
		if cur >= 0 && state[cur] == 1 {
			cycles++
		}
		for cur = r; cur >= 0 && state[cur] == 1; cur = int(src[cur]) {
			state[cur] = 2
		}
	}
	return cycles
}

// permCopyCost returns the cost ‖pc‖ of the parallel copy that moves,
// for every register r of live, the value in a[r] to b[r]. With a the
// identity it is the cost of the projection of b on live; with b the
// identity, that of the copy undoing a into live.
func permCopyCost(a, b *Perm, live mir.RegSet) int {
	var src [mir.NumPhysRegs]int8
	for i := range src {
		src[i] = -1
	}
	n := 0
	for x := uint32(live); x != 0; x &= x - 1 {
		r := trailing(x)
		s, d := a[r], b[r]
		if s != d {
			src[d] = int8(s)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return n + countCycles(&src)
}

// trailing returns the index of the lowest set bit of x (x != 0).
func trailing(x uint32) int { return bits.TrailingZeros32(x) }
