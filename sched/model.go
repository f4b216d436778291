package sched

import (
	"fmt"

	"github.com/kiln-jit/kiln/mir"
)

// Unit is a class of functional units of the machine model.
type Unit uint8

// The functional-unit classes.
const (
	UnitALU    Unit = iota // integer arithmetic, moves, compares
	UnitLoad               // loads (address generation and load port)
	UnitStore              // stores
	UnitMul                // integer multiply and bit counts
	UnitDiv                // integer division
	UnitFP                 // scalar floating point
	UnitBranch             // branches, calls, returns, exits
	NumUnits
)

var unitNames = [NumUnits]string{"alu", "load", "store", "mul", "div", "fp", "branch"}

// String names the unit class.
func (u Unit) String() string {
	if u < NumUnits {
		return unitNames[u]
	}
	return fmt.Sprintf("unit(%d)", int(u))
}

// Model is the machine model the list schedulers work with: how many
// operations issue per cycle, how many functional units of each class
// there are, and each op's latency and unit. It is kept in one place so
// that the integrated pass and the comparison pipelines schedule for the
// same machine, and tests can describe the thesis's small machines.
type Model struct {
	Name string
	// IssueWidth is the number of operations issued per cycle.
	IssueWidth int
	// Units is the number of functional units of each class; an op issues
	// only in a cycle where a unit of its class is free. Every unit is
	// fully pipelined.
	Units [NumUnits]int
	// Latency is each op's latency in cycles: the cycles from its issue to
	// the issue of an op that reads its result.
	Latency [mir.NumOps]int32
	// UnitOf is each op's functional-unit class.
	UnitOf [mir.NumOps]Unit
}

// DefaultModel returns the model of a current out-of-order x86-64 core as
// far as a list scheduler can use one: four operations issue per cycle, on
// four integer ALUs, two load ports, one store port, one multiplier, one
// divider, two floating-point pipes and one branch unit; latencies are the
// op table's latency classes (mir.OpInfo.Latency).
func DefaultModel() *Model {
	m := &Model{
		Name:       "x86-64",
		IssueWidth: 4,
		Units:      [NumUnits]int{UnitALU: 4, UnitLoad: 2, UnitStore: 1, UnitMul: 1, UnitDiv: 1, UnitFP: 2, UnitBranch: 1},
	}
	for op := mir.Op(0); int(op) < mir.NumOps; op++ {
		info := op.Info()
		m.Latency[op] = int32(info.Latency)
		m.UnitOf[op] = defaultUnit(op, info)
	}
	return m
}

// defaultUnit derives an op's unit class from the op table.
func defaultUnit(op mir.Op, info *mir.OpInfo) Unit {
	switch {
	case info.Terminator || info.Call || op == mir.OpPoll:
		return UnitBranch
	case info.Stores || op == mir.OpSpill:
		return UnitStore
	case op == mir.OpIDIVQ || op == mir.OpDIVQ:
		return UnitDiv
	case info.Latency == mir.LatFPDiv || info.Latency == mir.LatSqrt:
		return UnitFP
	}
	for _, d := range info.Defs {
		if d.Class == mir.XMM {
			if info.Loads {
				return UnitLoad
			}
			return UnitFP
		}
	}
	switch {
	case info.Loads || op == mir.OpReload || op == mir.OpCtxLoad:
		return UnitLoad
	case op == mir.OpUCOMISD:
		return UnitFP
	case info.Latency == mir.LatMul:
		return UnitMul
	}
	return UnitALU
}

// lat returns the latency of in.
func (m *Model) lat(in *mir.Instr) int32 {
	if int(in.Op) < len(m.Latency) {
		return m.Latency[in.Op]
	}
	return 1
}

// unit returns the unit class of in.
func (m *Model) unit(in *mir.Instr) Unit {
	if int(in.Op) < len(m.UnitOf) {
		return m.UnitOf[in.Op]
	}
	return UnitALU
}

// validate checks that the model can schedule every op.
func (m *Model) validate() error {
	if m.IssueWidth < 1 {
		return fmt.Errorf("sched: model %q issues %d operations per cycle", m.Name, m.IssueWidth)
	}
	for op := mir.Op(1); int(op) < mir.NumOps; op++ {
		u := m.UnitOf[op]
		if u >= NumUnits || m.Units[u] < 1 {
			return fmt.Errorf("sched: model %q has no %s unit for %s", m.Name, u, op)
		}
		if m.Latency[op] < 0 {
			return fmt.Errorf("sched: model %q gives %s latency %d", m.Name, op, m.Latency[op])
		}
	}
	return nil
}

// cycleState tracks the units and issue slots used in the current cycle.
type cycleState struct {
	m      *Model
	cycle  int32
	issued int
	used   [NumUnits]int
}

// fits reports whether an op of unit class u can still issue this cycle.
func (c *cycleState) fits(u Unit) bool {
	return c.issued < c.m.IssueWidth && c.used[u] < c.m.Units[u]
}

// take issues an op of unit class u in the current cycle.
func (c *cycleState) take(u Unit) {
	c.issued++
	c.used[u]++
}

// advance moves to cycle t (later than the current one).
func (c *cycleState) advance(t int32) {
	c.cycle = t
	c.issued = 0
	c.used = [NumUnits]int{}
}
