package main

import (
	"context"
	"fmt"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// Tape geometry: the tape is linear memory, one byte per cell, and the
// pointer starts at cell 0. Moving outside the tape traps (out of bounds),
// which the driver reports as a tape error.
const (
	tapePages = 4
	tapeCells = tapePages * bc.PageSize
)

// checkInterval is how many source bytes or nodes a stage handles between
// two looks at its context.
const checkInterval = 1 << 16

// SyntaxError reports an unbalanced bracket.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

// Error returns "line:column: message".
func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// program is a parsed Brainfuck program as one flat list of nodes: a loop
// is an nLoop node, the nodes of its body and an nEnd node, so no stage
// needs to recurse to reach a loop body, however deep the nesting. Runs of
// + - > < are merged, clear and multiply loops are single nodes, and after
// foldOffsets the pointer moves inside a straight-line stretch are folded
// into offsets.
type program struct {
	nodes []node
	// mul holds the terms of every multiply loop; each nMulLoop node
	// names its terms as mul[value:value+terms].
	mul []mulTerm
}

// node is one step of the parsed program.
type node struct {
	kind   nodeKind
	offset int32 // cell relative to the pointer
	// value is, for add, the delta mod 256; for set, the value; for move,
	// the distance; for a multiply loop, the index of its first term in
	// program.mul.
	value int
	// terms is, for a multiply loop, how many cells it adds the loop
	// counter to.
	terms int
}

// mulTerm is one cell a multiply loop adds to: cell[offset] += factor *
// cell[0] on every iteration.
type mulTerm struct {
	offset int32
	factor int
}

type nodeKind uint8

const (
	nAdd nodeKind = iota
	nSet
	nMove
	nOut
	nIn
	nLoop // the start of a loop; its body follows, up to the matching nEnd
	nEnd
	nMulLoop
)

// checkContext returns ctx's error, wrapped to say which stage stopped.
func checkContext(ctx context.Context, stage string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s interrupted: %w", stage, err)
	}
	return nil
}

// parse turns BF source into a program, rejecting unbalanced brackets.
// Every character other than the eight commands is a comment. Each loop is
// simplified when its closing bracket is read, and the offsets are folded
// at the end; both take time linear in the program, and the only stack is
// the explicit one of open brackets.
func parse(ctx context.Context, src []byte) (*program, error) {
	type open struct {
		line, col int
		at        int // index of the loop's nLoop node
	}
	var stack []open
	p := &program{}
	var s simplifier
	line, col := 1, 0
	for i, c := range src {
		if i%checkInterval == checkInterval-1 {
			if err := checkContext(ctx, "parsing"); err != nil {
				return nil, err
			}
		}
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '+', '-':
			d := 1
			if c == '-' {
				d = 255
			}
			if n := len(p.nodes); n > 0 && p.nodes[n-1].kind == nAdd {
				p.nodes[n-1].value = (p.nodes[n-1].value + d) % 256
			} else {
				p.nodes = append(p.nodes, node{kind: nAdd, value: d})
			}
		case '>', '<':
			d := 1
			if c == '<' {
				d = -1
			}
			if n := len(p.nodes); n > 0 && p.nodes[n-1].kind == nMove {
				p.nodes[n-1].value += d
			} else {
				p.nodes = append(p.nodes, node{kind: nMove, value: d})
			}
		case '.':
			p.nodes = append(p.nodes, node{kind: nOut})
		case ',':
			p.nodes = append(p.nodes, node{kind: nIn})
		case '[':
			stack = append(stack, open{line, col, len(p.nodes)})
			p.nodes = append(p.nodes, node{kind: nLoop})
		case ']':
			if len(stack) == 0 {
				return nil, &SyntaxError{line, col, "unmatched ']'"}
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n, ok := s.simplifyLoop(p, p.nodes[top.at+1:]); ok {
				p.nodes[top.at] = n
				p.nodes = p.nodes[:top.at+1]
			} else {
				p.nodes = append(p.nodes, node{kind: nEnd})
			}
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, &SyntaxError{top.line, top.col, "unmatched '['"}
	}
	p.foldOffsets()
	return p, nil
}

// simplifier holds the scratch space of simplifyLoop, reused from loop to
// loop.
type simplifier struct {
	delta map[int]int // cell offset -> net change mod 256
	order []int       // the offsets in delta, in the order first changed
}

// simplifyLoop recognises [-] and [+] (set to zero) and multiply loops: a
// body of adds and moves that returns to its starting cell and decrements
// it by one each time, such as [->++>+<<]. body is the loop's body, whose
// own loops are already closed (and simplified). It returns the node that
// replaces the whole loop, appending a multiply loop's terms to p.mul, or
// false when the loop stays a loop. It reads the body only up to its first
// node other than an add or a move, so each node is read by the innermost
// loop around it alone.
func (s *simplifier) simplifyLoop(p *program, body []node) (node, bool) {
	if len(body) == 1 && body[0].kind == nAdd && body[0].value%2 == 1 {
		// An odd step reaches zero from any value: the loop zeroes the cell.
		return node{kind: nSet, value: 0}, true
	}
	if s.delta == nil {
		s.delta = map[int]int{}
	}
	defer s.reset()
	pos := 0
	for _, n := range body {
		switch n.kind {
		case nAdd:
			d, ok := s.delta[pos]
			if !ok {
				s.order = append(s.order, pos)
			}
			s.delta[pos] = (d + n.value) % 256
		case nMove:
			pos += n.value
		default:
			return node{}, false
		}
	}
	if pos != 0 || s.delta[0] != 255 {
		return node{}, false
	}
	out := node{kind: nMulLoop, value: len(p.mul)}
	for _, off := range s.order {
		if off != 0 && s.delta[off] != 0 {
			p.mul = append(p.mul, mulTerm{offset: int32(off), factor: s.delta[off]})
			out.terms++
		}
	}
	return out, true
}

// reset empties the scratch space, in time proportional to what the last
// loop put in it.
func (s *simplifier) reset() {
	for _, off := range s.order {
		delete(s.delta, off)
	}
	s.order = s.order[:0]
}

// foldOffsets removes moves inside straight-line stretches: each cell
// operation gets the pointer offset accumulated since the stretch began,
// and one move at the end of the stretch (before a loop, at the end of a
// loop body, or at the end of the program) updates the pointer. A loop
// starts a stretch of its own for its body and ends its parent's, so one
// accumulator serves every nesting level. It rewrites p.nodes in place:
// a move it emits always takes the place of a move it removed.
func (p *program) foldOffsets() {
	out := p.nodes[:0]
	off := 0
	flush := func() {
		if off != 0 {
			out = append(out, node{kind: nMove, value: off})
			off = 0
		}
	}
	for _, n := range p.nodes {
		switch n.kind {
		case nMove:
			off += n.value
		case nLoop, nEnd, nMulLoop:
			flush()
			out = append(out, n)
		default:
			n.offset = int32(off)
			out = append(out, n)
		}
	}
	flush()
	p.nodes = out
}

// translate compiles a BF program to a kiln module with one exported
// function "run" (no parameters, no results) and two host imports:
// putc(i64) writes a byte and getc() -> i64 reads one (-1 at end of input,
// which leaves the cell unchanged).
func translate(src []byte) (*bc.Module, error) {
	return translateContext(context.Background(), src)
}

// translateContext is translate under a context: a cancelled context stops
// the translation with an error wrapping the context's. Translation takes
// time and memory linear in the length of src.
func translateContext(ctx context.Context, src []byte) (*bc.Module, error) {
	p, err := parse(ctx, src)
	if err != nil {
		return nil, err
	}
	b := bc.NewModuleBuilder().Memory(tapePages, tapePages)
	putc := b.Host("putc", []bc.Type{bc.I64}, nil)
	getc := b.Host("getc", nil, []bc.Type{bc.I64})
	f := b.Func("run", nil, nil)
	g := &gen{f: f, putc: putc, getc: getc,
		ptr: f.NewReg(bc.I64), cell: f.NewReg(bc.I64), tmp: f.NewReg(bc.I64), tmp2: f.NewReg(bc.I64)}
	if err := g.emit(ctx, p); err != nil {
		return nil, err
	}
	f.Return()
	b.Export("run", f)
	if err := checkContext(ctx, "translation"); err != nil {
		return nil, err
	}
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build the module: %w", err)
	}
	return m, nil
}

// gen emits the bytecode of a program into the function "run".
type gen struct {
	f                    *bc.FuncBuilder
	putc, getc           uint32
	ptr, cell, tmp, tmp2 bc.Reg
}

// emit emits p's nodes in order. The labels of the loops around the
// current node are kept on an explicit stack.
func (g *gen) emit(ctx context.Context, p *program) error {
	type loopLabels struct{ body, end bc.Label }
	var open []loopLabels
	f := g.f
	for i, n := range p.nodes {
		if i%checkInterval == checkInterval-1 {
			if err := checkContext(ctx, "code generation"); err != nil {
				return err
			}
		}
		switch n.kind {
		case nAdd:
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, n.offset)
			f.BinaryImm(bc.OpI64Add, g.cell, g.cell, int64(n.value))
			f.Store(bc.OpI64Store8, g.ptr, g.cell, n.offset)
		case nSet:
			f.I64Const(g.cell, int64(n.value))
			f.Store(bc.OpI64Store8, g.ptr, g.cell, n.offset)
		case nMove:
			f.BinaryImm(bc.OpI64Add, g.ptr, g.ptr, int64(n.value))
		case nOut:
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, n.offset)
			f.CallHost(g.putc, []bc.Reg{g.cell}, nil)
		case nIn:
			skip := f.NewLabel()
			f.CallHost(g.getc, nil, []bc.Reg{g.cell})
			f.BrCmpImm(bc.OpBrLtS, g.cell, 0, skip)
			f.Store(bc.OpI64Store8, g.ptr, g.cell, n.offset)
			f.Bind(skip)
		case nLoop:
			// Test at the top once, then at the bottom of each iteration.
			l := loopLabels{f.NewLabel(), f.NewLabel()}
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrEq, g.cell, 0, l.end)
			f.Bind(l.body)
			open = append(open, l)
		case nEnd:
			l := open[len(open)-1]
			open = open[:len(open)-1]
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrNe, g.cell, 0, l.body)
			f.Bind(l.end)
		case nMulLoop:
			// cell[off] += factor * cell[0] for each term; cell[0] = 0.
			end := f.NewLabel()
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrEq, g.cell, 0, end)
			for _, t := range p.mul[n.value : n.value+n.terms] {
				f.BinaryImm(bc.OpI64Mul, g.tmp, g.cell, int64(t.factor))
				f.Load(bc.OpI64Load8U, g.tmp2, g.ptr, t.offset)
				f.Binary(bc.OpI64Add, g.tmp2, g.tmp2, g.tmp)
				f.Store(bc.OpI64Store8, g.ptr, g.tmp2, t.offset)
			}
			f.I64Const(g.cell, 0)
			f.Store(bc.OpI64Store8, g.ptr, g.cell, 0)
			f.Bind(end)
		}
	}
	return nil
}
