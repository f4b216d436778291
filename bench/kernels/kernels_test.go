package kernels

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
)

// engines are the wazero engines the twins are checked on.
func engines(t *testing.T) map[string]func() wazero.RuntimeConfig {
	e := map[string]func() wazero.RuntimeConfig{"interpreter": wazero.NewRuntimeConfigInterpreter}
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" {
		e["compiler"] = wazero.NewRuntimeConfigCompiler
	} else {
		t.Logf("wazero's compiler does not run on %s", runtime.GOARCH)
	}
	return e
}

// TestTwins checks that every kernel has a twin, that wazero validates it,
// that its signature is the kasm function's, and that it computes what the
// kernel's native Go twin computes on every small input of the kernel's
// cases (SmallArgs and the edge cases of testprogs.ProgramCases).
func TestTwins(t *testing.T) {
	ctx := context.Background()
	cases := testprogs.ProgramCases()
	var kernels []testprogs.Kernel
	var names, missing []string
	for _, k := range testprogs.Kernels() {
		if slices.Contains(WithoutTwin, k.Name) {
			missing = append(missing, k.Name)
			continue
		}
		kernels = append(kernels, k)
		names = append(names, k.Name)
	}
	slices.Sort(missing)
	if !slices.Equal(missing, WithoutTwin) {
		t.Errorf("kernels without a twin: %v; WithoutTwin says %v", missing, WithoutTwin)
	}
	slices.Sort(names)
	if got := Names(); !slices.Equal(got, names) {
		t.Errorf("Names() = %v; the kernels are %v", got, names)
	}
	for _, k := range kernels {
		bin, err := Wasm(k.Name)
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		sig := k.Module.Funcs[k.Module.ExportedFunc(k.Func)].Sig
		for engine, config := range engines(t) {
			t.Run(k.Name+"/"+engine, func(t *testing.T) {
				rt := wazero.NewRuntimeWithConfig(ctx, config())
				defer rt.Close(ctx)
				compiled, err := rt.CompileModule(ctx, bin)
				if err != nil {
					t.Fatal(err)
				}
				def := compiled.ExportedFunctions()[k.Func]
				if def == nil {
					t.Fatalf("no exported function %q", k.Func)
				}
				if !sameTypes(def.ParamTypes(), sig.Params) || !sameTypes(def.ResultTypes(), sig.Results) {
					t.Fatalf("signature %v -> %v; the kasm function's is %s", def.ParamTypes(), def.ResultTypes(), sig)
				}
				mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig())
				if err != nil {
					t.Fatal(err)
				}
				fn := mod.ExportedFunction(k.Func)
				check := func(name string, args, want []uint64) {
					got, err := fn.Call(ctx, args...)
					if err != nil || !slices.Equal(got, want) {
						t.Errorf("%s: got %#x, %v; want %#x", name, got, err, want)
					}
				}
				check("SmallArgs", k.SmallArgs, k.Native(k.SmallArgs))
				for _, c := range cases {
					if c.Module == k.Module && c.Func == k.Func {
						check(c.Name, c.Args, c.Want)
					}
				}
			})
		}
	}
}

// valueTypes maps kiln's value types to wazero's.
var valueTypes = map[bytecode.Type]api.ValueType{
	bytecode.I32: api.ValueTypeI32,
	bytecode.I64: api.ValueTypeI64,
	bytecode.F32: api.ValueTypeF32,
	bytecode.F64: api.ValueTypeF64,
}

// sameTypes reports whether the wazero types w are the kiln types k.
func sameTypes(w []api.ValueType, k []bytecode.Type) bool {
	if len(w) != len(k) {
		return false
	}
	for i := range w {
		if t, ok := valueTypes[k[i]]; !ok || t != w[i] {
			return false
		}
	}
	return true
}

func TestUnknownKernel(t *testing.T) {
	if _, err := Wasm("nosuchkernel"); err == nil {
		t.Error("Wasm of an unknown kernel succeeded")
	}
}
