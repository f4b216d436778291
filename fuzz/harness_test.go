package fuzz

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
)

// harnessModule calls a host, stores to memory and traps when its argument
// is 7.
const harnessModule = `
memory 1 1
host mix (i64 i64) -> (i64)
func main (i64) -> (i64)
  regs i64
  call_host mix (r0, r0) -> (r1)
  i64.store [r0+16], r1
  br.eq r0, 7, L6
  i64.add r1, r1, 1
  ret r1
L6:
  trap 3
end
export "main" main
`

var harnessCalls = []Call{{Func: "main", Args: []uint64{8}}, {Func: "main", Args: []uint64{7}}}

func assembleHarnessModule(t *testing.T) *bytecode.Module {
	t.Helper()
	m, err := bytecode.Assemble([]byte(harnessModule))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckAgreesOnAHandWrittenModule runs every configuration on a small
// module and checks the reference outcomes the Result reports.
func TestCheckAgreesOnAHandWrittenModule(t *testing.T) {
	m := assembleHarnessModule(t)
	before := bytecode.Disassemble(m)
	res, err := Check(m, harnessCalls, Options{Hosts: StandardHosts()})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, bytecode.Disassemble(m)) {
		t.Error("Check modified the module")
	}
	if len(res.Ran)+len(res.Skipped) != len(Configurations()) {
		t.Errorf("ran %v, skipped %v; want every one of %v", res.Ran, res.Skipped, Configurations())
	}
	if len(res.Outcomes) != 2 {
		t.Fatalf("%d outcomes", len(res.Outcomes))
	}
	first, second := res.Outcomes[0], res.Outcomes[1]
	eight, golden := uint64(8), uint64(0x9E3779B97F4A7C15)
	mix := eight*golden + bits.RotateLeft64(eight, 17)
	if first.Err != nil || first.Results[0] != mix+1 {
		t.Errorf("first call: %v %v, want %d", first.Results, first.Err, mix+1)
	}
	if len(first.HostCalls) != 1 || first.HostCalls[0].Name != "mix" || first.HostCalls[0].Results[0] != mix {
		t.Errorf("first call's host calls: %+v", first.HostCalls)
	}
	var trap *bytecode.Trap
	if !errors.As(second.Err, &trap) || trap.Kind != bytecode.TrapExplicit || trap.Offset != 5 || trap.Code != 3 {
		t.Errorf("second call: %v, want explicit trap 3 at 5", second.Err)
	}
	if second.FuelLeft != DefaultFuel {
		t.Errorf("fuel left %d, want %d", second.FuelLeft, DefaultFuel)
	}
}

// brokenConfig is the reference interpreter with one thing changed.
func brokenConfig(name string, change func(*instance) *instance) config {
	return config{name: name, start: func(h *harness) (*instance, error) {
		inst, err := startInterp(h)
		if err != nil {
			return nil, err
		}
		return change(inst), nil
	}}
}

// wrapCall replaces an instance's call by one that post-processes results
// and errors.
func wrapCall(inst *instance, after func(res []uint64, err error) ([]uint64, error)) *instance {
	call := inst.call
	inst.call = func(ctx context.Context, name string, fn int, args []uint64) ([]uint64, error) {
		return after(call(ctx, name, fn, args))
	}
	return inst
}

// TestCheckFindsEveryKindOfDifference plugs deliberately broken
// configurations into the harness and requires each difference to be
// reported as a Mismatch naming the configuration, the call and what
// differs.
func TestCheckFindsEveryKindOfDifference(t *testing.T) {
	broken := []struct {
		cfg  config
		call int
		want string
	}{
		{brokenConfig("wrong-result", func(inst *instance) *instance {
			return wrapCall(inst, func(res []uint64, err error) ([]uint64, error) {
				if err == nil {
					res[0]++
				}
				return res, err
			})
		}), 0, "result 0 is"},
		{brokenConfig("trap-offset", func(inst *instance) *instance {
			return wrapCall(inst, func(res []uint64, err error) ([]uint64, error) {
				var trap *bytecode.Trap
				if errors.As(err, &trap) {
					moved := *trap
					moved.Offset++
					return res, &moved
				}
				return res, err
			})
		}), 1, "trap"},
		{brokenConfig("lost-trap", func(inst *instance) *instance {
			return wrapCall(inst, func(res []uint64, err error) ([]uint64, error) {
				if err != nil {
					return []uint64{0}, nil
				}
				return res, err
			})
		}), 1, "outcome"},
		{brokenConfig("memory", func(inst *instance) *instance {
			return wrapCall(inst, func(res []uint64, err error) ([]uint64, error) {
				inst.memory()[100] ^= 1
				return res, err
			})
		}), 0, "memory differs first at offset 100"},
		{brokenConfig("extra-host-call", func(inst *instance) *instance {
			return wrapCall(inst, func(res []uint64, err error) ([]uint64, error) {
				inst.env.log = append(inst.env.log, HostEvent{Name: "mix", Args: []uint64{1, 2}, Results: []uint64{3}})
				return res, err
			})
		}), 0, "extra host call"},
		{brokenConfig("host-arguments", func(inst *instance) *instance {
			return wrapCall(inst, func(res []uint64, err error) ([]uint64, error) {
				inst.env.log[len(inst.env.log)-1].Args[1]++
				return res, err
			})
		}), 0, "has arguments"},
		{brokenConfig("fuel", func(inst *instance) *instance {
			fuel := inst.fuelLeft
			inst.fuelLeft = func() int64 { return fuel() - 1 }
			return inst
		}), 0, "fuel left"},
		{config{name: "stage", start: func(h *harness) (*instance, error) {
			return nil, stageFailure("stage", "lowering failed: on purpose")
		}}, -1, "on purpose"},
	}
	saved := configs
	defer func() { configs = saved }()
	for _, b := range broken {
		configs = append(configs, b.cfg)
	}
	m := assembleHarnessModule(t)
	for _, b := range broken {
		_, err := Check(m, harnessCalls, Options{Hosts: StandardHosts(), Configs: []string{b.cfg.name}})
		var mm *Mismatch
		if !errors.As(err, &mm) {
			t.Errorf("%s: got %v, want a mismatch", b.cfg.name, err)
			continue
		}
		if mm.Config != b.cfg.name || mm.Call != b.call || !strings.Contains(mm.Detail, b.want) {
			t.Errorf("%s: mismatch %+v, want call %d and %q", b.cfg.name, mm, b.call, b.want)
		}
	}
}

// TestCheckRejectsUnusableInput covers the errors that are not mismatches.
func TestCheckRejectsUnusableInput(t *testing.T) {
	m := assembleHarnessModule(t)
	bad := m.Clone()
	bad.Funcs[0].Code = bad.Funcs[0].Code[:1]
	gm, err := bytecode.Assemble([]byte(globalsModule))
	if err != nil {
		t.Fatal(err)
	}
	gm32, err := bytecode.Assemble([]byte(`global g f32 import "env.g"`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		m     *bytecode.Module
		calls []Call
		opts  Options
		want  string
	}{
		{"nil module", nil, harnessCalls, Options{Hosts: StandardHosts()}, "nil module"},
		{"invalid module", bad, harnessCalls, Options{Hosts: StandardHosts()}, "verify"},
		{"missing host", m, harnessCalls, Options{}, `no host function for import "mix"`},
		{"unknown function", m, []Call{{Func: "nope"}}, Options{Hosts: StandardHosts()}, `no exported function "nope"`},
		{"argument count", m, []Call{{Func: "main"}}, Options{Hosts: StandardHosts()}, "takes 1 arguments, got 0"},
		{"unknown configuration", m, harnessCalls, Options{Hosts: StandardHosts(), Configs: []string{"x"}}, `unknown configuration "x"`},
		{"missing global import", gm, globalsCalls, Options{}, `no value for imported global base (import "env.base")`},
		{"wide global import", gm32, nil, Options{GlobalImports: map[string]uint64{"env.g": 1 << 32}}, "does not fit in 32 bits"},
	}
	for _, c := range cases {
		_, err := Check(c.m, c.calls, c.opts)
		var mm *Mismatch
		if err == nil || errors.As(err, &mm) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestConfigurationsAreDescribed checks the names and descriptions.
func TestConfigurationsAreDescribed(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range Configurations() {
		if seen[name] || DescribeConfiguration(name) == "" {
			t.Errorf("configuration %q is duplicated or undescribed", name)
		}
		seen[name] = true
	}
	if DescribeConfiguration("nope") != "" {
		t.Error("an unknown configuration has a description")
	}
}

// globalsModule has globals of every type (imported, exported, neither,
// constant), a table with a null entry and call_indirect: bump adds its
// argument to every mutable global, pick calls through the table and
// traps where the entry is null or beyond the table.
const globalsModule = `
type t0 (i64) -> (i64)
global base i64 mut import "env.base"
global hidden i32 mut = 7
global scale f64 mut = 0.5 export "scale"
global ratio f32 = 0.25 export "ratio"
global count i64 mut = 0 export "count"
table 3 export "table"
elem 1 twice

func bump (i64) -> (i64)
  regs i64 i32 f64
  global.get r1, base
  i64.add r1, r1, r0
  global.set base, r1
  global.get r2, hidden
  i32.add r2, r2, 1
  global.set hidden, r2
  f64.convert_i64_s r3, r0
  global.get r3, scale
  f64.add r3, r3, r3
  global.set scale, r3
  global.set count, r0
  ret r1
end

func pick (i64) -> (i64)
  regs i64
  call_indirect t0, r0 (r0) -> (r1)
  ret r1
end

func twice (i64) -> (i64)
  i64.add r0, r0, r0
  ret r0
end

export "bump" bump
export "pick" pick
`

var globalsCalls = []Call{
	{Func: "bump", Args: []uint64{3}}, {Func: "pick", Args: []uint64{1}},
	{Func: "bump", Args: []uint64{5}}, {Func: "pick", Args: []uint64{0}}, {Func: "pick", Args: []uint64{3}},
}

// TestCheckComparesGlobals runs a module with globals and a table in every
// configuration and checks the reference outcomes: the globals' values
// after each call (the imported one starting at the value supplied) and
// the traps of call_indirect.
func TestCheckComparesGlobals(t *testing.T) {
	m, err := bytecode.Assemble([]byte(globalsModule))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Hosts: StandardHosts(), GlobalImports: map[string]uint64{"env.base": 100}}
	res, err := Check(m, globalsCalls, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ran)+len(res.Skipped) != len(Configurations()) {
		t.Errorf("ran %v, skipped %v; want every one of %v", res.Ran, res.Skipped, Configurations())
	}
	t.Logf("ran %v; skipped %v", res.Ran, res.Skipped)
	f64 := func(v float64) uint64 { return math.Float64bits(v) }
	quarter := uint64(math.Float32bits(0.25))
	want := []struct {
		globals []uint64
		trap    bytecode.TrapKind
	}{
		{[]uint64{103, 8, f64(1), quarter, 3}, bytecode.TrapNone},
		{[]uint64{103, 8, f64(1), quarter, 3}, bytecode.TrapNone},
		{[]uint64{108, 9, f64(2), quarter, 5}, bytecode.TrapNone},
		{[]uint64{108, 9, f64(2), quarter, 5}, bytecode.TrapUninitializedElement},
		{[]uint64{108, 9, f64(2), quarter, 5}, bytecode.TrapUndefinedElement},
	}
	for i, w := range want {
		o := res.Outcomes[i]
		if !slices.Equal(o.Globals, w.globals) {
			t.Errorf("call %d: globals %#x, want %#x", i, o.Globals, w.globals)
		}
		var trap *bytecode.Trap
		switch {
		case w.trap == bytecode.TrapNone && o.Err != nil:
			t.Errorf("call %d: %v", i, o.Err)
		case w.trap != bytecode.TrapNone && (!errors.As(o.Err, &trap) || trap.Kind != w.trap):
			t.Errorf("call %d: %v, want %s", i, o.Err, w.trap)
		}
	}
	if r := res.Outcomes[1].Results; len(r) != 1 || r[0] != 2 {
		t.Errorf("pick(1) returned %v, want [2]", r)
	}
}

// TestCheckFindsGlobalDifferences plugs configurations with a wrong global
// into the harness: a difference in a global the configuration can read
// is a Mismatch naming the global; one in a global it cannot read (as the
// jit cannot read unexported ones) is not compared.
func TestCheckFindsGlobalDifferences(t *testing.T) {
	m, err := bytecode.Assemble([]byte(globalsModule))
	if err != nil {
		t.Fatal(err)
	}
	// change flips the low bit of global k after the second call.
	change := func(name string, k int, visible bool) config {
		return brokenConfig(name, func(inst *instance) *instance {
			globals, calls := inst.globals, 0
			inst.globals = func() ([]uint64, error) {
				v, err := globals()
				if calls++; calls >= 2 {
					v[k] ^= 1
				}
				return v, err
			}
			if !visible {
				inst.visible = make([]bool, len(m.Globals))
				for i := range inst.visible {
					inst.visible[i] = i != k
				}
			}
			return inst
		})
	}
	broken := []struct {
		cfg  config
		want string // "" for no mismatch
	}{
		{change("imported-global", 0, true), "global 0 (base) is 102 (0x66), want 103 (0x67)"},
		{change("hidden-global", 1, true), "global 1 (hidden) is 9 (0x9), want 8 (0x8)"},
		{change("f64-global", 2, true), "global 2 (scale) is"},
		{change("invisible-global", 1, false), ""},
		{brokenConfig("unreadable-globals", func(inst *instance) *instance {
			inst.globals = func() ([]uint64, error) { return nil, errors.New("on purpose") }
			return inst
		}), "reading the globals failed: on purpose"},
	}
	saved := configs
	defer func() { configs = saved }()
	for _, b := range broken {
		configs = append(configs, b.cfg)
	}
	opts := Options{Hosts: StandardHosts(), GlobalImports: map[string]uint64{"env.base": 100}}
	for _, b := range broken {
		opts.Configs = []string{b.cfg.name}
		_, err := Check(m, globalsCalls, opts)
		var mm *Mismatch
		switch {
		case b.want == "" && err != nil:
			t.Errorf("%s: %v, want no mismatch", b.cfg.name, err)
		case b.want != "" && (!errors.As(err, &mm) || !strings.Contains(mm.Detail, b.want)):
			t.Errorf("%s: got %v, want a mismatch containing %q", b.cfg.name, err, b.want)
		}
	}
}
