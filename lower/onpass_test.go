package lower

import (
	"slices"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/mir"
)

// TestOnPass checks that Options.OnPass sees the three steps in order,
// that the last one is the function Func returns, and that the hook does
// not change what lowering produces.
func TestOnPass(t *testing.T) {
	folded, err := bc.Assemble([]byte(`
func f (i64) -> (i64)
  regs i64
  i64.const r1, 0
  br_if r1, dead
  i64.add r1, r0, 1
  i64.mul r0, r0, r0
  ret r1
dead:
  i64.sub r1, r0, 7
  ret r1
end
`))
	if err != nil {
		t.Fatal(err)
	}
	type onPassCase struct {
		name string
		m    *bc.Module
		// shrinks is set when a later step must have fewer blocks
		// (the folded branch leaves an unreachable block).
		shrinks bool
	}
	tests := []onPassCase{{"folded", folded, true}}
	for _, k := range testprogs.Kernels()[:3] {
		tests = append(tests, onPassCase{k.Name, k.Module, false})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for fn := range tt.m.Funcs {
				plain, err := Func(tt.m, fn, Options{Target: FullTarget()})
				if err != nil {
					t.Fatal(err)
				}
				var passes []string
				var snaps []*mir.Func
				hooked, err := Func(tt.m, fn, Options{Target: FullTarget(), OnPass: func(pass string, f *mir.Func) {
					passes = append(passes, pass)
					snaps = append(snaps, f.Clone())
				}})
				if err != nil {
					t.Fatal(err)
				}
				if want := []string{"ssa", "unreachable", "deadcode"}; !slices.Equal(passes, want) {
					t.Fatalf("passes %q, want %q", passes, want)
				}
				if got, want := mir.Format(hooked), mir.Format(plain); got != want {
					t.Errorf("OnPass changed lowering:\n%s\nwant\n%s", got, want)
				}
				if got, want := mir.Format(snaps[2]), mir.Format(hooked); got != want {
					t.Errorf("deadcode step differs from the result:\n%s\nwant\n%s", got, want)
				}
				if tt.shrinks && len(snaps[0].Blocks) <= len(snaps[1].Blocks) {
					t.Errorf("ssa step has %d blocks, unreachable step %d: want fewer after", len(snaps[0].Blocks), len(snaps[1].Blocks))
				}
			}
		})
	}
}
