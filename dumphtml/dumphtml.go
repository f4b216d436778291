// Package dumphtml writes the way one function takes through kiln's
// compiler as a single self-contained HTML page, in the manner of the Go
// compiler's GOSSAFUNC ssa.html.
//
// The page shows side-by-side columns: the function's bytecode (grouped
// into its profile blocks, each instruction with its offset), the SSA
// machine IR after SSA construction and after each cleanup pass lowering
// runs (lower.Options.OnPass), the control-flow graph of the lowered SSA
// drawn as SVG, the machine IR out of SSA form (with the pins the
// optimizing tier's out-of-SSA translation chose), the IR after register
// allocation (the baseline's, or the optimizing tier's integrated
// scheduling and assignment) with the locations each instruction gives
// the virtual registers it was made from, and the machine code with the
// bytecode offsets it comes from.
//
// Every register, value, slot, block and bytecode-offset name in every
// column is clickable: a click highlights each occurrence of the same name
// in all columns, in one of several colours, and a second click clears it.
// Physical registers are the same name in the IR and in the machine code
// (rax and AX), and a bytecode offset is the same name in the bytecode
// (its offset and labels), in the IR (@5) and in the machine code
// ("; bytecode 5"). Clicking a column's title collapses or expands it.
//
// Each block header shows the block's frequency (expected executions per
// call) and each successor edge its probability. With a measured profile
// (Options.Profile from interpreter counters) they also show estimated
// counts: the calls the counters saw times the frequency (and the
// probability). In the graph an edge's stroke width grows in proportion to
// its frequency, the block's frequency times the edge's probability.
//
// The page carries its CSS and script inline and loads nothing. It is
// well-formed XML as well as HTML, so it can be checked with encoding/xml.
// On load its script checks itself (it highlights two names in two
// colours, clears them and collapses and expands a column) and marks the
// root element data-selftest="ok"; errors it meets are listed on the page
// and mark the root data-jserror.
//
// Writing a page takes time and memory linear in the size of the module
// (lowering reads the whole module's facts) and of the function's IR.
package dumphtml

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/encode"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
	"github.com/kiln-jit/kiln/sched"
)

// Tier selects the compiler pipeline a page shows.
type Tier uint8

// The tiers.
const (
	// Baseline is the baseline tier: out of SSA by copy coalescing without
	// renaming constraints (alloc.BaselineOutOfSSA), stack-slot allocation
	// (alloc.BaselineNonSSA).
	Baseline Tier = iota
	// Optimizing is the optimizing tier: out of SSA with the renaming
	// constraints resolved into pins (alloc.Destruct), integrated
	// scheduling and register assignment (sched.Allocate).
	Optimizing
)

// String names the tier as kiln's -tier flag does.
func (t Tier) String() string {
	switch t {
	case Baseline:
		return "baseline"
	case Optimizing:
		return "optimizing"
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// ParseTier parses a tier name: "baseline" or "optimizing".
func ParseTier(s string) (Tier, error) {
	switch s {
	case "baseline":
		return Baseline, nil
	case "optimizing":
		return Optimizing, nil
	}
	return 0, fmt.Errorf("dumphtml: unknown tier %q (want baseline or optimizing)", s)
}

// Options configure a page.
type Options struct {
	// Tier is the pipeline shown; the zero value is Baseline.
	Tier Tier
	// Target lists the CPU features the code may use (lower.HostTarget
	// for the machine at hand; the zero Target is baseline x86-64).
	Target lower.Target
	// Profile, when not nil, is the function's profile, passed to lowering
	// in place of the static estimate. It must belong to the function: its
	// Layout is the function's (profilecounters.NewLayout, or
	// interp.Program.Layouts), as Layout.Profile returns it. A measured
	// profile (one made from counters) adds estimated counts to the page.
	Profile *profilecounters.Profile
	// NaiveOutOfSSA makes the Baseline pipeline take the function out of
	// SSA form by naive φ instantiation instead of coalescing (as
	// jit.Options.NaiveOutOfSSA and kiln dump -naive). The optimizing tier
	// ignores it.
	NaiveOutOfSSA bool
}

// Write writes the page for function fn of module m to w. The module is
// checked with bytecode.Verify first; an invalid module, a function index
// out of range, a profile of another function or a failure of a compiler
// stage is reported as an error (and nothing is written then), as is an
// error writing to w.
func Write(w io.Writer, m *bytecode.Module, fn int, opts Options) error {
	p, err := build(m, fn, opts)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	p.write(bw)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dumphtml: writing the page: %w", err)
	}
	return nil
}

// page is the model of a page: its heading and its columns, each rendered
// to markup already.
type page struct {
	title string
	info  []string
	cols  []*column
}

// build runs the pipeline and renders every stage.
func build(m *bytecode.Module, fn int, opts Options) (*page, error) {
	if m == nil {
		return nil, errors.New("dumphtml: nil module")
	}
	if fn < 0 || fn >= len(m.Funcs) {
		return nil, fmt.Errorf("dumphtml: function index %d out of range (the module has %d functions)", fn, len(m.Funcs))
	}
	if opts.Tier != Baseline && opts.Tier != Optimizing {
		return nil, fmt.Errorf("dumphtml: unknown tier %d", int(opts.Tier))
	}
	if err := bytecode.Verify(m); err != nil {
		return nil, fmt.Errorf("dumphtml: invalid module: %w", err)
	}
	bf := m.Funcs[fn]
	prof := opts.Profile
	if prof != nil {
		if err := checkProfile(prof, bf); err != nil {
			return nil, fmt.Errorf("dumphtml: func %s: %w", bf.Name, err)
		}
	} else {
		prof = profilecounters.NewLayout(bf).Profile(nil)
	}
	r := &renderer{}
	if prof.Measured {
		r.counts, r.calls = true, float64(prof.Calls)
	}
	p := &page{title: "kiln: func " + bf.Name}
	p.info = append(p.info,
		fmt.Sprintf("func %s #%d %s, %d bytecode instructions", bf.Name, fn, bf.Sig, len(bf.Code)),
		fmt.Sprintf("tier %s, target %s", opts.Tier, targetString(opts.Target)))
	if prof.Measured {
		p.info = append(p.info, fmt.Sprintf("profile: measured over %d calls; counts (n≈) are calls × frequency × probability", prof.Calls))
	} else {
		p.info = append(p.info, "profile: static estimate")
	}
	p.cols = append(p.cols, r.bytecodeColumn(m, fn, prof))

	f, err := lower.Func(m, fn, lower.Options{Profile: opts.Profile, Target: opts.Target, OnPass: func(pass string, f *mir.Func) {
		p.cols = append(p.cols, r.irColumn("lower: "+pass, passNotes[pass], f, nil))
	}})
	if err != nil {
		return nil, fmt.Errorf("dumphtml: %w", err)
	}
	p.cols = append(p.cols, r.cfgColumn(f))

	if opts.Tier == Optimizing {
		d, err := alloc.Destruct(f, alloc.DestructOptions{})
		if err != nil {
			return nil, fmt.Errorf("dumphtml: func %s: out of SSA: %w", bf.Name, err)
		}
		s := &d.Stats
		p.cols = append(p.cols, r.irColumn("nonssa", []string{
			"out of SSA (alloc.Destruct); {v=reg} after an instruction shows the pins of its registers",
			fmt.Sprintf("%d φ copies, %d constraint copies, %d repairs (weighted %.4g, %.4g)",
				s.PhiCopies, s.ConstraintCopies, s.Repairs, s.WeightedPhiCopies, s.WeightedConstraintCopies),
		}, d.Func, nil))
		res, err := sched.Allocate(d.Func, sched.Options{})
		if err != nil {
			return nil, fmt.Errorf("dumphtml: func %s: scheduling and allocation: %w", bf.Name, err)
		}
		f = res.Func
		p.cols = append(p.cols, r.irColumn("sched", schedNotes(&res.Stats), f, &locations{in: d.Func, origins: res.Origins}))
	} else {
		g, err := alloc.BaselineOutOfSSA(f, opts.NaiveOutOfSSA, false)
		if err != nil {
			return nil, fmt.Errorf("dumphtml: func %s: out of SSA: %w", bf.Name, err)
		}
		how := "out of SSA by copy coalescing (alloc.BaselineOutOfSSA)"
		if opts.NaiveOutOfSSA {
			how = "out of SSA by naive φ instantiation (alloc.NaiveDestruct)"
		}
		// The column is rendered, and g kept for the locations, before
		// the baseline allocates g in place.
		p.cols = append(p.cols, r.irColumn("nonssa", []string{how}, g, nil))
		in := g.Clone()
		var origins *alloc.Origins
		if f, origins, err = alloc.BaselineNonSSAWithOrigins(g); err != nil {
			return nil, fmt.Errorf("dumphtml: func %s: baseline allocation: %w", bf.Name, err)
		}
		p.cols = append(p.cols, r.irColumn("alloc", []string{
			"baseline allocation: virtual register vN lives in stack slot sN, loaded into scratch registers around each instruction",
			locNote,
		}, f, &locations{in: in, origins: origins}))
	}
	code, err := encode.Func(f)
	if err != nil {
		return nil, fmt.Errorf("dumphtml: func %s: encoding: %w", bf.Name, err)
	}
	p.cols = append(p.cols, r.asmColumn(encode.Disassemble(code, 0)))
	return p, nil
}

// locNote explains the locations shown in an allocated function.
const locNote = "{v→loc} after an instruction: where it keeps the virtual registers of the instruction it was made from; (inserted): added by the allocator"

// passNotes describes the steps lower.Options.OnPass reports.
var passNotes = map[string][]string{
	"ssa":         {"after SSA construction and instruction selection; unreachable blocks may remain"},
	"unreachable": {"after removing unreachable blocks (renumbered in reverse postorder) and trivial φs"},
	"deadcode":    {"after dead code elimination (virtual registers renumbered): the lowered function"},
}

// checkProfile reports whether prof can be the profile of bf, as lowering
// needs it.
func checkProfile(prof *profilecounters.Profile, bf *bytecode.Function) error {
	l := prof.Layout
	switch {
	case l == nil:
		return errors.New("profile has no layout")
	case len(l.Blocks) == 0 || int(l.Blocks[len(l.Blocks)-1].End) != len(bf.Code):
		return errors.New("profile is not the function's: its layout covers other code")
	case len(prof.EdgeProb) != len(l.Edges) || len(prof.BlockFreq) != len(l.Blocks):
		return fmt.Errorf("profile has %d edge probabilities and %d block frequencies for %d edges and %d blocks",
			len(prof.EdgeProb), len(prof.BlockFreq), len(l.Edges), len(l.Blocks))
	}
	return nil
}

// targetString lists the features of t.
func targetString(t lower.Target) string {
	var fs []string
	for _, f := range []struct {
		on   bool
		name string
	}{{t.POPCNT, "POPCNT"}, {t.LZCNT, "LZCNT"}, {t.BMI1, "BMI1"}, {t.SSE41, "SSE4.1"}} {
		if f.on {
			fs = append(fs, f.name)
		}
	}
	if len(fs) == 0 {
		return "baseline x86-64"
	}
	return "x86-64 with " + strings.Join(fs, ", ")
}

// schedNotes formats the statistics of sched.Allocate.
func schedNotes(s *sched.Stats) []string {
	return []string{
		"integrated scheduling and register assignment (sched.Allocate)",
		locNote,
		fmt.Sprintf("%d instructions in, %d regions, %d cycles (%.4g weighted)", s.Instrs, s.Regions, s.Cycles, s.WeightedCycles),
		fmt.Sprintf("in regions: %d spills, %d reloads, %d rematerializations, %d moves", s.Spills, s.Reloads, s.Remats, s.Moves),
		fmt.Sprintf("on edges: %d moves, %d loads, %d stores, %d rematerializations, %d split edges",
			s.EdgeMoves, s.EdgeLoads, s.EdgeStores, s.EdgeRemats, s.SplitEdges),
	}
}

// formatFreq formats a frequency or probability for display: four
// significant digits.
func formatFreq(x float64) string {
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// formatExact formats x exactly (shortest round-tripping form), for
// tooltips.
func formatExact(x float64) string {
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// formatCount formats an estimated count: a whole number, or in
// scientific notation when too large for one.
func formatCount(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return formatExact(x)
	}
	if x < 1e15 {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	return formatFreq(x)
}
