// Package profilecounters numbers the control-flow edges of a bytecode
// function, stores the counters that the interpreter (and later compiled
// code) increment, and turns counts into the branch probabilities and block
// frequencies that steer kiln's optimizer. Without counts it gives a static
// estimate from loop structure and branch shape. Snapshots and Drift tell
// how far a function's behaviour has moved since it was compiled.
//
// # Counter layout
//
// A function's counters are one []uint64 of Layout.NumCounters() slots:
// slot EntryCounter counts calls of the function, slot EdgeCounter(e) counts
// traversals of edge e. The slice is allocated once per function and
// instance and never reallocated, so compiled code can increment it in
// place. Executors count the edges of jumps, conditional branches (taken and
// not taken) and switches; fall-through edges into a branch target are not
// counted at run time because they can be derived (Layout.EdgeCounts).
//
// # Probabilities
//
// Probabilities from counts use add-one smoothing (Burroughs, "Register
// allocation and spilling using the expected distance heuristic", §3.3.3):
// when any successor edge of a block has count zero, one is added to every
// successor edge of that block, so an edge never seen is unlikely but not
// impossible; a block never executed gets uniform probabilities. Block
// frequencies (executions per call) come from propagating probabilities
// around loops (internal/cfg.Frequencies).
package profilecounters

import (
	"slices"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/cfg"
)

// EdgeKind says how control moves along an edge.
type EdgeKind uint8

// The edge kinds.
const (
	EdgeFallthrough EdgeKind = iota // into a branch target from the instruction before it
	EdgeJump                        // an unconditional jump
	EdgeTaken                       // a conditional branch that branches
	EdgeNotTaken                    // a conditional branch that continues
	EdgeCase                        // a switch table entry
	EdgeDefault                     // a switch's default
)

var edgeKindNames = [...]string{"fallthrough", "jump", "taken", "not-taken", "case", "default"}

// String names the edge kind.
func (k EdgeKind) String() string {
	if int(k) < len(edgeKindNames) {
		return edgeKindNames[k]
	}
	return "edge-kind?"
}

// Edge is a control-flow edge between two blocks.
type Edge struct {
	From, To int32 // block indices
	Kind     EdgeKind
	Case     int32 // the switch table index, for EdgeCase
}

// Block is a basic block of a bytecode function: instructions Start..End-1,
// entered only at Start and left only after End-1.
type Block struct {
	Start, End int32
	// FirstEdge and NumEdges give the block's successor edges: edges
	// FirstEdge..FirstEdge+NumEdges-1. A conditional branch has
	// [taken, not-taken]; a switch has its cases in table order, then its
	// default; ret and trap have none. (Layout.Preds lists the edges
	// entering it.)
	FirstEdge, NumEdges int32
	// Last is the opcode of the block's last instruction.
	Last bytecode.Op
	// againstZero is set when the last instruction compares with the
	// immediate 0 (used by the static estimate).
	againstZero bool
}

// Layout is the control-flow graph of one bytecode function, with its
// blocks and numbered edges. It is immutable and may be shared.
//
// A layout lives as long as its program, so it keeps only the blocks and
// edges: the block graph and its loop nesting forest, which only the
// static estimate and frequency propagation need (when a function is
// compiled), are built for each use and dropped after it.
type Layout struct {
	Blocks  []Block
	Edges   []Edge
	blockAt []int32
	// The edges entering block b are preds[predStart[b]:predStart[b+1]].
	predStart, preds []int32
	// entryCannotEnd is set when no instruction of the entry block can end
	// a call (see cannotEndCall).
	entryCannotEnd bool
}

// EntryCounter is the counter slot that counts calls of the function.
const EntryCounter = 0

// EdgeCounter returns the counter slot of edge e.
func EdgeCounter(e int) int { return 1 + e }

// NewLayout computes the blocks and edges of f. f must have passed
// bytecode.Verify.
func NewLayout(f *bytecode.Function) *Layout {
	n := len(f.Code)
	leader := make([]bool, n+1)
	leader[0] = true
	var targets []uint32
	for pc := range f.Code {
		in := &f.Code[pc]
		targets = in.Targets(targets[:0])
		for _, t := range targets {
			leader[t] = true
		}
		if len(targets) > 0 || !in.FallsThrough() {
			leader[pc+1] = true
		}
	}
	nb := 0
	for pc := range n {
		if leader[pc] {
			nb++
		}
	}
	l := &Layout{blockAt: make([]int32, n), Blocks: make([]Block, 0, nb)}
	for pc := 0; pc < n; {
		end := pc + 1
		for !leader[end] {
			end++
		}
		for i := pc; i < end; i++ {
			l.blockAt[i] = int32(len(l.Blocks))
		}
		l.Blocks = append(l.Blocks, Block{Start: int32(pc), End: int32(end)})
		pc = end
	}
	ne := 0
	for b := range l.Blocks {
		in := &f.Code[l.Blocks[b].End-1]
		switch {
		case in.Op == bytecode.OpSwitch:
			ne += len(in.Table) + 1
		case in.Op.Info().Branch:
			ne += 2
		case in.Op == bytecode.OpJump || in.FallsThrough():
			ne++
		}
	}
	l.Edges = make([]Edge, 0, ne)
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		blk.FirstEdge = int32(len(l.Edges))
		in := &f.Code[blk.End-1]
		blk.Last = in.Op
		blk.againstZero = in.UseImm && in.Imm == 0
		add := func(to int, kind EdgeKind, c int) {
			l.Edges = append(l.Edges, Edge{From: int32(b), To: int32(to), Kind: kind, Case: int32(c)})
		}
		switch {
		case in.Op == bytecode.OpJump:
			add(l.BlockAt(int(in.Target)), EdgeJump, 0)
		case in.Op == bytecode.OpSwitch:
			for i, t := range in.Table {
				add(l.BlockAt(int(t)), EdgeCase, i)
			}
			add(l.BlockAt(int(in.Target)), EdgeDefault, 0)
		case in.Op.Info().Branch:
			add(l.BlockAt(int(in.Target)), EdgeTaken, 0)
			add(b+1, EdgeNotTaken, 0)
		case in.FallsThrough():
			add(b+1, EdgeFallthrough, 0)
		}
		blk.NumEdges = int32(len(l.Edges)) - blk.FirstEdge
	}
	l.entryCannotEnd = len(l.Blocks) > 0
	for pc := 0; l.entryCannotEnd && pc < int(l.Blocks[0].End); pc++ {
		l.entryCannotEnd = cannotEndCall(f.Code[pc].Op)
	}
	// The predecessor lists share one array, in edge order.
	l.predStart = make([]int32, len(l.Blocks)+1)
	for _, ed := range l.Edges {
		l.predStart[ed.To+1]++
	}
	for b := range l.Blocks {
		l.predStart[b+1] += l.predStart[b]
	}
	l.preds = make([]int32, len(l.Edges))
	fill := slices.Clone(l.predStart[:len(l.Blocks)])
	for e, ed := range l.Edges {
		l.preds[fill[ed.To]] = int32(e)
		fill[ed.To]++
	}
	return l
}

// Preds returns the edges entering block b, in edge order. The slice is
// the layout's: it must not be changed.
func (l *Layout) Preds(b int) []int32 {
	return l.preds[l.predStart[b]:l.predStart[b+1]:l.predStart[b+1]]
}

// cannotEndCall reports whether an instruction of op never ends the call
// that runs it: it cannot trap, call, exit to Go or poll (for fuel or
// cancellation). Branches qualify: a backward one polls, but on its edge,
// after its block. Loads and stores (bounds), memory.grow (an exit to
// Go), calls, returns, traps and ops added after this list are taken to
// end calls.
func cannotEndCall(op bytecode.Op) bool {
	switch op {
	case bytecode.OpI64DivS, bytecode.OpI64DivU, bytecode.OpI64RemS, bytecode.OpI64RemU,
		bytecode.OpI32DivS, bytecode.OpI32DivU, bytecode.OpI32RemS, bytecode.OpI32RemU,
		bytecode.OpI64TruncF64S, bytecode.OpI64TruncF64U, bytecode.OpI32TruncF32S, bytecode.OpI32TruncF32U,
		bytecode.OpI32TruncF64S, bytecode.OpI32TruncF64U, bytecode.OpI64TruncF32S, bytecode.OpI64TruncF32U:
		return false // division by zero, overflow, NaN
	case bytecode.OpMemorySize, bytecode.OpGlobalGet, bytecode.OpGlobalSet, bytecode.OpJump, bytecode.OpBrIf,
		bytecode.OpBrEq, bytecode.OpBrNe, bytecode.OpBrLtS, bytecode.OpBrLtU, bytecode.OpBrLeS, bytecode.OpBrLeU,
		bytecode.OpBrGtS, bytecode.OpBrGtU, bytecode.OpBrGeS, bytecode.OpBrGeU, bytecode.OpSwitch:
		return true
	}
	// The opcodes are numbered in groups that later versions only append
	// to: from the constants to the reinterpretations, the i64 and f64
	// computations; from the i32 constant to the f32 reinterpretation,
	// those of the 32-bit types with their compare-and-branch ops.
	return op >= bytecode.OpI64Const && op <= bytecode.OpF64ReinterpretI64 ||
		op >= bytecode.OpI32Const && op <= bytecode.OpF32ReinterpretI32
}

// BlockAt returns the index of the block containing instruction pc.
func (l *Layout) BlockAt(pc int) int { return int(l.blockAt[pc]) }

// NumCounters returns the number of counter slots the function needs.
func (l *Layout) NumCounters() int { return 1 + len(l.Edges) }

// Graph returns the block graph: node i is block i and edge (b, k) is edge
// Blocks[b].FirstEdge+k. Each call builds it anew.
func (l *Layout) Graph() *cfg.Graph {
	succTo := make([]int, len(l.Edges))
	for e, ed := range l.Edges {
		succTo[e] = int(ed.To)
	}
	succs := make([][]int, len(l.Blocks))
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		succs[b] = succTo[blk.FirstEdge : blk.FirstEdge+blk.NumEdges : blk.FirstEdge+blk.NumEdges]
	}
	return cfg.New(0, succs)
}

// Loops returns the loop nesting forest of the block graph (built anew on
// each call).
func (l *Layout) Loops() *cfg.LoopForest { return cfg.Loops(l.Graph()) }

// shape is the block graph with its loop nesting forest.
type shape struct {
	graph *cfg.Graph
	loops *cfg.LoopForest
}

func (l *Layout) shape() shape {
	g := l.Graph()
	return shape{g, cfg.Loops(g)}
}

// NewCounters allocates zeroed counter storage for the function.
func (l *Layout) NewCounters() []uint64 { return make([]uint64, l.NumCounters()) }

// EdgeCounts returns the traversal count of every edge, reading the counted
// edges from counters and deriving the fall-through edges: a fall-through
// edge is its block's only exit, so it carries every entry into the block.
func (l *Layout) EdgeCounts(counters []uint64) []uint64 {
	counts := make([]uint64, len(l.Edges))
	for e := range l.Edges {
		counts[e] = counters[EdgeCounter(e)]
	}
	// A fall-through edge leaves block b for b+1, so visiting blocks in
	// order sees every fall-through edge into b before b is needed.
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		if blk.NumEdges != 1 || l.Edges[blk.FirstEdge].Kind != EdgeFallthrough {
			continue
		}
		counts[blk.FirstEdge] = l.blockCount(b, counters, counts)
	}
	return counts
}

func (l *Layout) blockCount(b int, counters, edgeCounts []uint64) uint64 {
	var c uint64
	if b == 0 {
		c = counters[EntryCounter]
	}
	for _, e := range l.Preds(b) {
		c += edgeCounts[e]
	}
	return c
}

// BlockCounts returns how many times each block was entered.
func (l *Layout) BlockCounts(counters []uint64) []uint64 {
	edges := l.EdgeCounts(counters)
	counts := make([]uint64, len(l.Blocks))
	for b := range l.Blocks {
		counts[b] = l.blockCount(b, counters, edges)
	}
	return counts
}

// ExecutedInstructions returns the number of instructions executed
// according to the counters (each block's entries times its length).
func (l *Layout) ExecutedInstructions(counters []uint64) uint64 {
	var total uint64
	for b, c := range l.BlockCounts(counters) {
		total += c * uint64(l.Blocks[b].End-l.Blocks[b].Start)
	}
	return total
}
