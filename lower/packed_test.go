package lower

import (
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
)

// TestPackedCode checks Options.Packed: lowering a function of a module
// that keeps its code packed gives the function lowering the module with
// its code gives, for every function of the shared cases and kernels and
// a generated module, and without the module facts or the layout it is an
// error.
func TestPackedCode(t *testing.T) {
	mods := append(testprogs.CaseModules(), testprogs.GeneratedModule(3000, 1))
	n := 0
	for _, m := range mods {
		codeless := *m
		codeless.Funcs = make([]*bc.Function, len(m.Funcs))
		for i, f := range m.Funcs {
			g := *f
			g.Code = nil
			codeless.Funcs[i] = &g
		}
		info := NewModuleInfo(m).StandIn(&codeless)
		for i, f := range m.Funcs {
			want, err := Func(m, i, Options{Target: FullTarget()})
			if err != nil {
				t.Fatal(err)
			}
			p := bc.PackCode(f.Code)
			prof := profilecounters.NewLayout(f).Profile(nil)
			got, err := Func(&codeless, i, Options{Target: FullTarget(), Packed: &p, Module: info, Profile: prof})
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if w, g := mir.Format(want), mir.Format(got); w != g {
				t.Fatalf("%s lowered from packed code:\n%s\nwant:\n%s", f.Name, g, w)
			}
			n++
			if _, err := Func(&codeless, i, Options{Packed: &p, Profile: prof}); err == nil {
				t.Fatalf("%s: packed code without the module facts lowered", f.Name)
			}
			if _, err := Func(&codeless, i, Options{Packed: &p, Module: info}); err == nil {
				t.Fatalf("%s: packed code without a layout lowered", f.Name)
			}
		}
	}
	t.Logf("%d functions", n)
}
