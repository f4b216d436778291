package interp

import (
	"context"
	"math"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/gostack"
)

// Poller holds the fuel and cancellation state of one machine, for every
// tier alike, so that all of them charge fuel and notice cancellation at
// the same instructions: every backward branch and every call decrements
// Budget, and when it drops below zero the executor calls Slow, which
// checks the context, allots more fuel (PollInterval at a time) or reports
// the trap.
type Poller struct {
	// Budget is the number of polls left before Slow must run.
	Budget int64
	// Periodic keeps the budget finite even without fuel and without a
	// cancellable context, so that compiled code returns to Go (and lets
	// the Go scheduler and garbage collector in) regularly.
	Periodic bool
	// Interval is the polls between two runs of Slow when it only allots
	// (0: PollInterval): smaller means more frequent checks, for instance
	// to offer frames for on-stack replacement sooner (Machine.OSR).
	Interval int64
	fuel     int64 // fuel not yet moved into Budget; -1 when unlimited
	ctx      context.Context
	done     <-chan struct{}
	// goBase is the Go stack in use (gostack.Used) when the outermost
	// call entered.
	goBase uintptr
	// allotted is the budget handed out so far, less what was returned
	// unspent (see Spent); unlimited is set while Budget is a budget
	// without limit, which allotted leaves out.
	allotted  int64
	unlimited bool
	// jitter is the state of the generator that shortens each periodic
	// interval a little (see Slow).
	jitter uint32
}

// Spent returns the polls charged so far (backward branches and calls of
// every call the poller has run, on every tier), cumulatively, while the
// poller is Periodic or has fuel or a context to check: a budget without
// limit is not counted.
func (p *Poller) Spent() int64 {
	if p.unlimited {
		return p.allotted
	}
	return p.allotted - max(p.Budget, 0)
}

// PollState is what Enter saves for Leave.
type PollState struct {
	ctx  context.Context
	done <-chan struct{}
}

// Context returns the context of the running call.
func (p *Poller) Context() context.Context { return p.ctx }

// Enter starts a call under ctx. An outermost call starts with limit fuel
// (unlimited when limit <= 0); a nested one (from a host function) keeps
// the outer call's fuel. Enter reports an Interrupted trap kind when ctx is
// already done; the caller must still call Leave.
func (p *Poller) Enter(ctx context.Context, outermost bool, limit int64) (PollState, bytecode.TrapKind, error) {
	saved := PollState{p.ctx, p.done}
	if outermost {
		p.dropBudget()
		p.goBase = gostack.Used()
		p.fuel = -1
		if limit > 0 {
			p.fuel = limit
		}
	} else {
		p.returnBudget()
	}
	p.ctx, p.done = ctx, ctx.Done()
	p.settle()
	if p.done != nil {
		select {
		case <-p.done:
			return saved, bytecode.TrapInterrupted, ctx.Err()
		default:
		}
	}
	return saved, bytecode.TrapNone, nil
}

// GoStackOver reports whether a nested call of the running call, starting
// now, would take the goroutine's stack beyond limit bytes more than the
// outermost call found in use, or beyond MaxGoStackLimit. Where the stack
// cannot be measured (gostack.Supported), it charges each of the levels
// of nesting gostack.LevelEstimate instead.
func (p *Poller) GoStackOver(limit, levels int) bool {
	if !gostack.Supported() {
		return levels > limit/gostack.LevelEstimate
	}
	used := gostack.Used()
	return used > gostack.Ceiling || used > p.goBase+uintptr(limit)
}

// Leave ends a call started by Enter.
func (p *Poller) Leave(saved PollState, outermost bool) {
	if outermost {
		p.ctx, p.done = nil, nil
		return
	}
	p.returnBudget()
	p.ctx, p.done = saved.ctx, saved.done
	p.settle()
}

// settle gives an empty budget its unlimited value when nothing needs
// checking.
func (p *Poller) settle() {
	if p.Budget == 0 && p.done == nil && p.fuel < 0 && !p.Periodic {
		p.Budget, p.unlimited = math.MaxInt64, true
	}
}

// returnBudget moves unspent budget back into fuel, so that the next
// check allots fuel afresh (under a possibly different context).
func (p *Poller) returnBudget() {
	if p.fuel >= 0 && p.Budget > 0 {
		p.fuel += p.Budget
	}
	p.dropBudget()
}

// dropBudget empties the budget; what was unspent is not counted as spent.
func (p *Poller) dropBudget() {
	if p.Budget > 0 && !p.unlimited {
		p.allotted -= p.Budget
	}
	p.Budget, p.unlimited = 0, false
}

// Slow is the budget's slow path, run when Budget dropped below zero at a
// poll: it checks the context and allots fuel, then charges the poll. It
// returns a trap kind (with the context's error for Interrupted), or
// TrapNone to continue.
func (p *Poller) Slow() (bytecode.TrapKind, error) {
	p.Budget = 0
	if p.done != nil {
		select {
		case <-p.done:
			return bytecode.TrapInterrupted, p.ctx.Err()
		default:
		}
	}
	interval := p.Interval
	if interval <= 0 {
		interval = PollInterval
	}
	if p.Periodic {
		// The slow path runs at whichever poll empties the budget. A loop
		// that polls k times per iteration (its backward branch and its
		// calls) with k dividing the interval would meet it at the same
		// poll every time, and if that is a call, its frame would never
		// be offered for on-stack replacement (Machine.OSR is offered at
		// backward branches). Shortening each interval by a pseudo-random
		// few polls moves the slow path around the loop; fuel is charged
		// exactly as before.
		interval -= int64(p.nextJitter() % uint32(min(interval/4+1, 16)))
	}
	switch {
	case p.fuel < 0 && p.done == nil && !p.Periodic:
		p.Budget, p.unlimited = math.MaxInt64, true
		return bytecode.TrapNone, nil
	case p.fuel < 0:
		p.Budget = interval
	case p.fuel == 0:
		return bytecode.TrapFuelExhausted, nil
	default:
		take := interval
		if p.fuel < take {
			take = p.fuel
		}
		p.fuel -= take
		p.Budget = take
	}
	p.allotted += p.Budget
	p.unlimited = false
	p.Budget--
	return bytecode.TrapNone, nil
}

// nextJitter steps the poller's xorshift generator (seeded with a fixed
// value, so that runs are reproducible) and returns its state.
func (p *Poller) nextJitter() uint32 {
	x := p.jitter
	if x == 0 {
		x = 0x9e3779b9
	}
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	p.jitter = x
	return x
}

// FuelLeft returns the fuel the last (or running) outermost call has not
// spent, or -1 when it had no fuel limit.
func (p *Poller) FuelLeft() int64 {
	if p.fuel < 0 {
		return -1
	}
	return p.fuel + max(p.Budget, 0)
}
