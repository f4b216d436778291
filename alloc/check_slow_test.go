package alloc

import (
	"fmt"

	"github.com/kiln-jit/kiln/mir"
)

// slowCheckDestructed is CheckDestructed as first written: brute-force
// instruction-level liveness and a symbolic simulation with a map per
// block, quadratic in time and memory on large functions. Tests compare
// CheckDestructed with it.
func slowCheckDestructed(f *mir.Func, d *Destructed) error {
	if err := slowCheckNoMergedInterference(f, d); err != nil {
		return err
	}
	return slowCheckValueFlow(f, d)
}

// pointLiveness computes, for every instruction of SSA function f, the set
// of values live just after it, by iterating the backward dataflow
// equations one instruction at a time until nothing changes. φ operands
// are read at the end of the corresponding predecessor; φ results are
// written at the top of their block.
func pointLiveness(f *mir.Func) [][]map[int]bool {
	after := make([][]map[int]bool, len(f.Blocks))
	for bi, b := range f.Blocks {
		after[bi] = make([]map[int]bool, len(b.Instrs))
		for k := range b.Instrs {
			after[bi][k] = map[int]bool{}
		}
	}
	liveIn := make([]map[int]bool, len(f.Blocks))
	for i := range liveIn {
		liveIn[i] = map[int]bool{}
	}
	for changed := true; changed; {
		changed = false
		for bi := len(f.Blocks) - 1; bi >= 0; bi-- {
			b := f.Blocks[bi]
			live := map[int]bool{}
			for k, s := range b.Succs {
				sb := f.Blocks[s]
				for v := range liveIn[s] {
					live[v] = true
				}
				// φ operands flowing along this edge.
				n := 0
				for _, p := range b.Succs[:k] {
					if p == s {
						n++
					}
				}
				for i, p := range sb.Preds {
					if p != b.ID {
						continue
					}
					if n > 0 {
						n--
						continue
					}
					for _, phi := range sb.Phis() {
						if u := phi.Uses[i]; u.IsVirtual() {
							live[u.Index()] = true
						}
					}
					break
				}
			}
			for k := len(b.Instrs) - 1; k >= 0; k-- {
				in := b.Instrs[k]
				for v := range live {
					if !after[bi][k][v] {
						after[bi][k][v] = true
						changed = true
					}
				}
				for _, d := range in.Defs {
					if d.IsVirtual() {
						delete(live, d.Index())
					}
				}
				if in.Op != mir.OpPhi {
					for _, u := range in.Uses {
						if u.IsVirtual() {
							live[u.Index()] = true
						}
					}
				}
			}
			for v := range live {
				if !liveIn[bi][v] {
					liveIn[bi][v] = true
					changed = true
				}
			}
		}
	}
	return after
}

// slowCheckNoMergedInterference is the first half of CheckDestructed as
// first written, with instruction-level liveness in maps: the reference
// the near-linear checker is tested against. It checks that no two values of f that Destruct
// gave the same unpinned register interfere: at every definition, no other
// value with the same name is live after it, nor read by the defining
// instruction when the def is written before its operands are read (tied
// or early-clobber defs); φs of one block have different names.
func slowCheckNoMergedInterference(f *mir.Func, d *Destructed) error {
	after := pointLiveness(f)
	name := func(v int) mir.Reg { return d.Names[v] }
	pinned := func(r mir.Reg) bool { return d.Func.Pin(r) != mir.NoReg }
	for bi, b := range f.Blocks {
		phis := b.Phis()
		for i, p := range phis {
			for _, q := range phis[:i] {
				if name(p.Defs[0].Index()) == name(q.Defs[0].Index()) && !pinned(name(p.Defs[0].Index())) {
					return fmt.Errorf("%s b%d: φs %s and %s share %s", f.Name, bi, p.Defs[0], q.Defs[0], name(p.Defs[0].Index()))
				}
			}
		}
		for k, in := range b.Instrs {
			for di, dr := range in.Defs {
				if !dr.IsVirtual() {
					continue
				}
				dv := dr.Index()
				n := name(dv)
				if pinned(n) {
					continue
				}
				live := after[bi][k]
				if in.Op == mir.OpPhi {
					live = after[bi][len(phis)-1] // all φs are defined together
				}
				for v := range live {
					if v != dv && name(v) == n {
						return fmt.Errorf("%s b%d[%d]: %s is defined into %s while %s, merged into it too, is live",
							f.Name, bi, k, dr, n, mir.VReg(v))
					}
				}
				for _, o := range in.Defs[:di] {
					if o.IsVirtual() && name(o.Index()) == n {
						return fmt.Errorf("%s b%d[%d]: two defs share %s", f.Name, bi, k, n)
					}
				}
				spec := f.DefSpec(in, di)
				if in.Op == mir.OpPhi || (!spec.EarlyClobber && spec.Tied < 0) {
					continue
				}
				for ui, u := range in.Uses {
					if !u.IsVirtual() || u.Index() == dv || name(u.Index()) != n {
						continue
					}
					if spec.EarlyClobber || (ui != int(spec.Tied) && u != in.Uses[spec.Tied]) {
						return fmt.Errorf("%s b%d[%d]: %s is written before operand %s, merged with it, is read",
							f.Name, bi, k, dr, u)
					}
				}
			}
		}
	}
	return nil
}

// slowCheckValueFlow is the second half of CheckDestructed as first
// written, with a map per block: it simulates Destruct's output symbolically: every location
// (an unpinned virtual register, or the physical register a pinned one
// lives in) holds the input value last copied or written into it, calls
// and other clobbers forget what their clobbered registers held, and
// blocks meet what their predecessors leave. Every operand of every
// instruction of the input must then be read from a location that holds
// exactly the input's operand, and every φ's location must hold, at the
// end of each predecessor, the φ's operand for that edge.
func slowCheckValueFlow(f *mir.Func, d *Destructed) error {
	g := d.Func
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == mir.OpCopy || in.Op == mir.OpParCopy {
				return fmt.Errorf("%s: the input already has copies", f.Name)
			}
		}
	}
	loc := func(r mir.Reg) mir.Reg {
		if p := g.Pin(r); p != mir.NoReg {
			return p
		}
		return r
	}
	const unknown = -1
	type state map[mir.Reg]int
	exit := make([]state, len(g.Blocks))
	visited := make([]bool, len(g.Blocks))
	entry := func(bi int) state {
		st := state{}
		b := g.Blocks[bi]
		first := true
		for _, p := range b.Preds {
			if !visited[p] {
				continue
			}
			if first {
				for k, v := range exit[p] {
					st[k] = v
				}
				first = false
				continue
			}
			for k, v := range st {
				if w, ok := exit[p][k]; !ok || w != v {
					st[k] = unknown
				}
			}
		}
		if bi < len(f.Blocks) {
			for _, phi := range f.Blocks[bi].Phis() {
				st[loc(d.Names[phi.Defs[0].Index()])] = phi.Defs[0].Index()
			}
		}
		return st
	}
	// run simulates output block bi from st; with check set it verifies
	// every read against the input.
	run := func(bi int, st state, check bool) error {
		b := g.Blocks[bi]
		var orig []*mir.Instr
		if bi < len(f.Blocks) {
			for _, in := range f.Blocks[bi].Instrs {
				if in.Op != mir.OpPhi {
					orig = append(orig, in)
				}
			}
		}
		next := 0
		for k, in := range b.Instrs {
			if in.Op == mir.OpCopy || in.Op == mir.OpParCopy {
				vals := make([]int, len(in.Uses))
				for i, u := range in.Uses {
					v, ok := st[loc(u)]
					if !ok {
						v = unknown
					}
					vals[i] = v
				}
				for i, dr := range in.Defs {
					st[loc(dr)] = vals[i]
				}
				continue
			}
			if bi >= len(f.Blocks) && in.Op == mir.OpJMP && k == len(b.Instrs)-1 {
				continue // the jump of a block that holds an edge's copies
			}
			if next >= len(orig) {
				return fmt.Errorf("%s b%d[%d]: %s has no counterpart in the input", g.Name, bi, k, in.Op)
			}
			src := orig[next]
			next++
			if src.Op != in.Op || src.Imm != in.Imm || src.Aux != in.Aux || src.Cond != in.Cond ||
				len(src.Uses) != len(in.Uses) || len(src.Defs) != len(in.Defs) {
				return fmt.Errorf("%s b%d[%d]: %s does not match the input's %s", g.Name, bi, k, in.Op, src.Op)
			}
			if check {
				for i, u := range src.Uses {
					if !u.IsVirtual() {
						if in.Uses[i] != u {
							return fmt.Errorf("%s b%d[%d] (%s): operand %d changed from %s to %s", g.Name, bi, k, in.Op, i, u, in.Uses[i])
						}
						continue
					}
					if v, ok := st[loc(in.Uses[i])]; !ok || v != u.Index() {
						return fmt.Errorf("%s b%d[%d] (%s): operand %d reads %s, which holds %s, not %s",
							g.Name, bi, k, in.Op, i, in.Uses[i], slowDescribe(v, ok), u)
					}
				}
			}
			for _, r := range in.Clobbers().Regs() {
				st[r] = unknown
			}
			for i, dr := range src.Defs {
				if dr.IsVirtual() {
					st[loc(in.Defs[i])] = dr.Index()
				}
			}
		}
		if next != len(orig) {
			return fmt.Errorf("%s b%d: %d input instructions missing from the output", g.Name, bi, len(orig)-next)
		}
		return nil
	}
	order := g.Graph().ReversePostorder()
	for changed := true; changed; {
		changed = false
		for _, bi := range order {
			st := entry(bi)
			if err := run(bi, st, false); err != nil {
				return err
			}
			if !visited[bi] || !slowSameState(exit[bi], st) {
				exit[bi], visited[bi] = st, true
				changed = true
			}
		}
	}
	for _, bi := range order {
		// φ operands, at the end of each predecessor.
		if bi < len(f.Blocks) {
			for i, p := range g.Blocks[bi].Preds {
				for _, phi := range f.Blocks[bi].Phis() {
					u := phi.Uses[i]
					if !u.IsVirtual() {
						continue
					}
					at := loc(d.Names[phi.Defs[0].Index()])
					if v, ok := exit[p][at]; !ok || v != u.Index() {
						return fmt.Errorf("%s: on the edge b%d->b%d, %s (the location of φ %s) holds %s, not %s",
							g.Name, p, bi, at, phi.Defs[0], slowDescribe(v, ok), u)
					}
				}
			}
		}
		if err := run(bi, entry(bi), true); err != nil {
			return err
		}
	}
	return nil
}

func slowSameState(a, b map[mir.Reg]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func slowDescribe(v int, ok bool) string {
	if !ok || v < 0 {
		return "nothing known"
	}
	return mir.VReg(v).String()
}
