package fuzz

import (
	"bytes"
	"context"
	"errors"
	"math/bits"
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
