package jit

import (
	"fmt"
	"sync"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/runtime"
)

// CompileStats reports what compiling a module cost, stage by stage.
type CompileStats struct {
	Tier         Tier
	Functions    int
	Instructions int // bytecode instructions compiled
	CodeBytes    int // machine code, constant pools and jump tables
	Lower        time.Duration
	Alloc        time.Duration
	Encode       time.Duration
	Install      time.Duration
}

// Total returns the whole compile time.
func (s CompileStats) Total() time.Duration { return s.Lower + s.Alloc + s.Encode + s.Install }

// compiledModule is a module's machine code, shared by its instances.
type compiledModule struct {
	code    *runtime.Code
	funcs   []*encode.Code
	entries []uintptr
	params  [][]mir.Class
	results [][]mir.Class
	// Calling-convention locations, computed once: each function's
	// arguments and results as its callee sees them (for calls from Go),
	// and each host import's as compiled code passes them.
	args, rets         [][]mir.Reg
	slots              []int
	hostArgs, hostRets [][]mir.Reg
	hosts              []mir.HostSig
	stats              CompileStats
}

var (
	exitStubOnce sync.Once
	exitStubCode *runtime.Code
	exitStubErr  error
)

// exitStub installs the shared exit stub once per process.
func exitStub() (uintptr, error) {
	exitStubOnce.Do(func() {
		var b []byte
		if b, exitStubErr = encode.ExitStub(); exitStubErr == nil {
			exitStubCode, exitStubErr = runtime.Install([]runtime.Part{{Bytes: b}})
		}
	})
	if exitStubErr != nil {
		return 0, exitStubErr
	}
	return exitStubCode.Addr(0), nil
}

// compileBaseline compiles every function of a prepared module with the
// baseline pipeline: lowering to SSA machine IR, out of SSA (alloc.Destruct,
// or naive φ instantiation when naive is set), one stack slot per remaining
// virtual register, encoding, installation.
func compileBaseline(prog *interp.Program, target lower.Target, naive bool) (*compiledModule, error) {
	if !runtime.Supported() {
		return nil, fmt.Errorf("jit: compiled tiers are not supported on this platform")
	}
	if _, err := exitStub(); err != nil {
		return nil, err
	}
	m := prog.Module
	cm := &compiledModule{hosts: lower.HostSigs(m), stats: CompileStats{Tier: TierBaseline, Functions: len(m.Funcs)}}
	parts := make([]runtime.Part, len(m.Funcs))
	for i, f := range m.Funcs {
		cm.stats.Instructions += len(f.Code)
		start := time.Now()
		mf, err := lower.Func(m, i, lower.Options{Target: target, Profile: prog.Layouts[i].Profile(nil)})
		if err != nil {
			return nil, err
		}
		lowered := time.Now()
		af, err := allocBaseline(mf, naive)
		if err != nil {
			return nil, err
		}
		allocated := time.Now()
		code, err := encode.Func(af)
		if err != nil {
			return nil, err
		}
		cm.stats.Lower += lowered.Sub(start)
		cm.stats.Alloc += allocated.Sub(lowered)
		cm.stats.Encode += time.Since(allocated)
		cm.funcs = append(cm.funcs, code)
		cm.params = append(cm.params, mf.Params)
		cm.results = append(cm.results, mf.Results)
		relocs := make([]runtime.Reloc, len(code.Relocs))
		for k, r := range code.Relocs {
			relocs[k] = runtime.Reloc{Offset: r.Offset, Target: r.Target}
		}
		parts[i] = runtime.Part{Bytes: code.Bytes, Relocs: relocs}
		cm.stats.CodeBytes += len(code.Bytes)
	}
	for i := range m.Funcs {
		cm.args = append(cm.args, mir.ArgLocations(cm.params[i], true))
		cm.rets = append(cm.rets, mir.ResultLocations(cm.params[i], cm.results[i], true))
		cm.slots = append(cm.slots, slotsOf(cm.params[i], cm.results[i]))
	}
	for _, h := range cm.hosts {
		cm.hostArgs = append(cm.hostArgs, mir.ArgLocations(h.Params, false))
		cm.hostRets = append(cm.hostRets, mir.ResultLocations(h.Params, h.Results, false))
	}
	start := time.Now()
	code, err := runtime.Install(parts)
	if err != nil {
		return nil, err
	}
	cm.stats.Install = time.Since(start)
	cm.code = code
	for i := range parts {
		cm.entries = append(cm.entries, code.Addr(i))
	}
	return cm, nil
}

// allocBaseline takes f out of SSA form and gives every remaining virtual
// register a stack slot.
func allocBaseline(f *mir.Func, naive bool) (*mir.Func, error) {
	if naive {
		return alloc.Baseline(f)
	}
	g, err := alloc.BaselineOutOfSSA(f, false)
	if err != nil {
		return nil, err
	}
	return alloc.BaselineNonSSA(g)
}

// trapAt builds the trap error of exit site (fn, site).
func (cm *compiledModule) trapAt(prog *interp.Program, kind bytecode.TrapKind, fn, site uint32) *bytecode.Trap {
	t := &bytecode.Trap{Kind: kind, Func: fn}
	if int(fn) < len(prog.Module.Funcs) {
		t.FuncName = prog.Module.Funcs[fn].Name
		if int(site) < len(cm.funcs[fn].Sites) {
			s := cm.funcs[fn].Sites[site]
			t.Offset = int(s.Pos)
			if kind == bytecode.TrapExplicit {
				t.Code = s.Code
			}
		}
	}
	return t
}
