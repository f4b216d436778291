package lower

import (
	"math/rand/v2"
	"runtime/debug"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/mir"
)

// farReadModule returns a function that sets a register, runs through n
// forward diamonds that never touch it, and then returns it: reading the
// register at the end looks it up through every join.
func farReadModule(t testing.TB, n int) *bc.Module {
	b := bc.NewModuleBuilder()
	i64s := []bc.Type{bc.I64}
	f := b.Func("main", i64s, i64s)
	x, tmp, far := f.Param(0), f.NewReg(bc.I64), f.NewReg(bc.I64)
	f.I64Const(far, 7)
	for i := range n {
		skip := f.NewLabel()
		f.BinaryImm(bc.OpI64And, tmp, x, 1<<(i%63))
		f.BrCmpImm(bc.OpBrNe, tmp, 0, skip)
		f.BinaryImm(bc.OpI64Add, x, x, 1)
		f.Bind(skip)
	}
	f.Return(far)
	b.Export("main", f)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReadAcrossManyJoinsUsesLittleStack lowers a read that crosses
// 100,000 joins with the goroutine stack limited to 4 MB: the SSA
// construction keeps its pending lookups on an explicit stack, where a
// recursive lookup would need a frame or more per join.
func TestReadAcrossManyJoinsUsesLittleStack(t *testing.T) {
	if testing.Short() {
		t.Skip("large function")
	}
	m := farReadModule(t, 100_000)
	defer debug.SetMaxStack(debug.SetMaxStack(4 << 20))
	f, err := Func(m, 0, Options{Target: FullTarget()})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Blocks); got < 100_000 {
		t.Fatalf("%d blocks", got)
	}
}

// refPhis is a reference for removing trivial φs: the recursion of Braun
// et al. with one user entry per use, over φs numbered 0..n-1 and base
// values numbered from n on.
type refPhis struct {
	ops     [][]int
	users   [][]int
	alias   map[int]int
	removed []bool
	zero    int
}

func (r *refPhis) find(v int) int {
	for {
		a, ok := r.alias[v]
		if !ok {
			return v
		}
		v = a
	}
}

func (r *refPhis) isPhi(v int) bool { return v < len(r.ops) }

func (r *refPhis) tryRemoveTrivial(phi int) int {
	same := -1
	for _, op := range r.ops[phi] {
		op = r.find(op)
		if op == same || op == phi {
			continue
		}
		if same >= 0 {
			return phi
		}
		same = op
	}
	if same < 0 {
		same = r.zero
	}
	r.removed[phi] = true
	r.alias[phi] = same
	users := r.users[phi]
	r.users[phi] = nil
	if r.isPhi(same) {
		r.users[same] = append(r.users[same], users...)
	}
	for _, u := range users {
		if u = r.find(u); u != same && r.isPhi(u) && !r.removed[u] {
			r.tryRemoveTrivial(u)
		}
	}
	return same
}

// TestTryRemoveTrivialMatchesRecursion compares the SSA builder's removal
// of trivial φs (with runs of replaced users kept as counts) with the
// recursive one on random webs of φs, φ by φ: which are removed and what
// each stands for.
func TestTryRemoveTrivialMatchesRecursion(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for iter := 0; iter < 3000; iter++ {
		n := 1 + r.IntN(12)
		const nbase = 3
		l := &lowerer{f: mir.NewFunc("web", 0, nil, nil)}
		l.entryBlock = l.f.NewBlock()
		l.entryBlock.Append(&mir.Instr{Op: mir.OpJMP})
		s := &l.ssa
		s.init(l, 0)
		// Registers: the φs 0..n-1, then the base values, then zero.
		for range n + nbase {
			l.f.NewVReg(mir.GPR)
		}
		ref := &refPhis{ops: make([][]int, n), users: make([][]int, n), alias: map[int]int{}, removed: make([]bool, n),
			zero: l.zeroOf(mir.GPR).Index()}
		s.phi = make([]phiInfo, n+nbase+1)
		for v := range n {
			s.phi[v] = phiInfo{instr: &mir.Instr{Op: mir.OpPhi, Defs: []mir.Reg{mir.VReg(v)}}}
		}
		// Operands in a random order of creation, recording users as
		// readJoin and addOperands do.
		var order []int
		for v := range n {
			for k := 1 + r.IntN(3); k > 0; k-- {
				order = append(order, v)
			}
		}
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, v := range order {
			var op int
			switch r.IntN(4) {
			case 0:
				op = v
			case 1:
				op = n + r.IntN(nbase)
			default:
				op = r.IntN(n)
			}
			s.phi[v].instr.Uses = append(s.phi[v].instr.Uses, mir.VReg(op))
			ref.ops[v] = append(ref.ops[v], op)
			if op < n {
				s.phi[op].users = append(s.phi[op].users, userRef{reg: mir.VReg(v)})
				ref.users[op] = append(ref.users[op], v)
			}
		}
		// Try the φs in a random order, as sealing blocks does.
		for _, v := range r.Perm(n) {
			if s.phi[v].removed != ref.removed[v] {
				t.Fatalf("iteration %d: φ %d removed %v, want %v", iter, v, s.phi[v].removed, ref.removed[v])
			}
			if ref.removed[v] {
				continue
			}
			if got, want := s.tryRemoveTrivial(mir.VReg(v)).Index(), ref.tryRemoveTrivial(v); got != want {
				t.Fatalf("iteration %d: tryRemoveTrivial(%d) = %d, want %d", iter, v, got, want)
			}
		}
		for v := range n {
			if got, want := s.find(mir.VReg(v)).Index(), ref.find(v); got != want || s.phi[v].removed != ref.removed[v] {
				t.Fatalf("iteration %d: φ %d stands for %d (removed %v), want %d (%v)", iter, v, got, s.phi[v].removed, want, ref.removed[v])
			}
		}
	}
}
