package lower

import (
	"strings"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/internal/testrun"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
)

// loopHeaders returns the starts of the blocks of f that a backward edge
// enters: where on-stack replacement continues frames.
func loopHeaders(f *bc.Function) []int {
	l := profilecounters.NewLayout(f)
	var out []int
	seen := map[int]bool{}
	for _, ed := range l.Edges {
		if ed.To <= ed.From && !seen[int(ed.To)] {
			seen[int(ed.To)] = true
			out = append(out, int(l.Blocks[ed.To].Start))
		}
	}
	return out
}

// TestOSREntries lowers every shared case with an on-stack-replacement
// entry at each loop header of every function and checks, in the mir
// interpreter (where the context never asks for an entry), that the
// entries change nothing: the case's expected results, traps and memory,
// and SSA form that verifies, entry blocks included.
func TestOSREntries(t *testing.T) {
	entries := 0
	for _, c := range testprogs.AllCases() {
		m := c.Module
		info := NewModuleInfo(m)
		funcs := make([]*mir.Func, len(m.Funcs))
		for i, f := range m.Funcs {
			headers := loopHeaders(f)
			entries += len(headers)
			mf, err := Func(m, i, Options{Target: FullTarget(), Module: info, OSRHeaders: headers})
			if err != nil {
				t.Fatalf("%s: lower %s with entries at %v: %v", c.Name, f.Name, headers, err)
			}
			funcs[i] = mf
		}
		if err := mir.VerifyModule(funcs, HostSigs(m)); err != nil {
			t.Fatalf("%s: verify: %v", c.Name, err)
		}
		got, err, mem := testrun.MIR(t, m, funcs, c.Func, c.Args)
		if err := c.Check(got, err, mem); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	if entries == 0 {
		t.Fatal("no case has a loop")
	}
	t.Logf("%d entries", entries)
}

// TestOSREntryErrors checks that an entry that is not the start of a
// reachable block is refused with an error naming it.
func TestOSREntryErrors(t *testing.T) {
	m, err := bc.Assemble([]byte(`func f (i64) -> (i64)
L:
  br.eq r0, 0, E
  i64.sub r0, r0, 1
  jump L
  i64.add r0, r0, 1
E:
  ret r0
end
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		headers []int
		want    string
	}{
		{[]int{2}, "entry at 2: not the start of a reachable block"}, // inside a block
		{[]int{3}, "entry at 3: not the start of a reachable block"}, // unreachable
		{[]int{-1}, "entry at -1: out of the function"},
		{[]int{5}, "entry at 5: out of the function"},
	} {
		_, err := Func(m, 0, Options{OSRHeaders: tc.headers})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("entries %v: error %v, want %q", tc.headers, err, tc.want)
		}
	}
	if _, err := Func(m, 0, Options{OSRHeaders: []int{0, 1, 4}}); err != nil {
		t.Errorf("entries at the loop header, its body and the exit: %v", err)
	}
}
