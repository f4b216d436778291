package main

import (
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

// SyntaxError reports an unbalanced bracket.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// node is one step of the parsed program. Runs of + - > < are merged, and
// the pointer moves inside a straight-line stretch are folded into offsets.
type node struct {
	kind   nodeKind
	offset int32 // cell relative to the pointer
	value  int   // add: delta mod 256; set: the value; move: the distance
	body   []node
	// mul holds, for a multiply loop, the offset and factor of every cell it
	// adds the loop counter to.
	mul []mulTerm
}

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
	nLoop
	nMulLoop
)

// parse turns BF source into nodes, rejecting unbalanced brackets. Every
// character other than the eight commands is a comment.
func parse(src []byte) ([]node, error) {
	type open struct {
		line, col int
		nodes     []node
	}
	var stack []open
	var cur []node
	line, col := 1, 0
	for _, c := range src {
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '+', '-':
			d := 1
			if c == '-' {
				d = 255
			}
			if n := len(cur); n > 0 && cur[n-1].kind == nAdd {
				cur[n-1].value = (cur[n-1].value + d) % 256
			} else {
				cur = append(cur, node{kind: nAdd, value: d})
			}
		case '>', '<':
			d := 1
			if c == '<' {
				d = -1
			}
			if n := len(cur); n > 0 && cur[n-1].kind == nMove {
				cur[n-1].value += d
			} else {
				cur = append(cur, node{kind: nMove, value: d})
			}
		case '.':
			cur = append(cur, node{kind: nOut})
		case ',':
			cur = append(cur, node{kind: nIn})
		case '[':
			stack = append(stack, open{line, col, cur})
			cur = nil
		case ']':
			if len(stack) == 0 {
				return nil, &SyntaxError{line, col, "unmatched ']'"}
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			loop := node{kind: nLoop, body: cur}
			cur = append(top.nodes, simplifyLoop(loop))
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, &SyntaxError{top.line, top.col, "unmatched '['"}
	}
	return foldOffsets(cur), nil
}

// simplifyLoop recognises [-] and [+] (set to zero) and multiply loops: a
// body of adds and moves that returns to its starting cell and decrements
// it by one each time, such as [->++>+<<].
func simplifyLoop(loop node) node {
	body := loop.body
	if len(body) == 1 && body[0].kind == nAdd && body[0].value%2 == 1 {
		// An odd step reaches zero from any value: the loop zeroes the cell.
		return node{kind: nSet, value: 0}
	}
	pos := 0
	delta := map[int]int{}
	var order []int
	for _, n := range body {
		switch n.kind {
		case nAdd:
			if _, ok := delta[pos]; !ok {
				order = append(order, pos)
			}
			delta[pos] = (delta[pos] + n.value) % 256
		case nMove:
			pos += n.value
		default:
			return loop
		}
	}
	if pos != 0 || delta[0] != 255 {
		return loop
	}
	out := node{kind: nMulLoop}
	for _, off := range order {
		if off != 0 && delta[off] != 0 {
			out.mul = append(out.mul, mulTerm{offset: int32(off), factor: delta[off]})
		}
	}
	return out
}

// foldOffsets removes moves inside straight-line stretches: each cell
// operation gets the pointer offset accumulated since the stretch began,
// and one move at the end of the stretch (before a loop, or at the end)
// updates the pointer.
func foldOffsets(nodes []node) []node {
	var out []node
	off := 0
	flush := func() {
		if off != 0 {
			out = append(out, node{kind: nMove, value: off})
			off = 0
		}
	}
	for _, n := range nodes {
		switch n.kind {
		case nMove:
			off += n.value
		case nLoop:
			flush()
			n.body = foldOffsets(n.body)
			out = append(out, n)
		case nMulLoop:
			flush()
			out = append(out, n)
		default:
			n.offset = int32(off)
			out = append(out, n)
		}
	}
	flush()
	return out
}

// translate compiles a BF program to a kiln module with one exported
// function "run" (no parameters, no results) and two host imports:
// putc(i64) writes a byte and getc() -> i64 reads one (-1 at end of input,
// which leaves the cell unchanged).
func translate(src []byte) (*bc.Module, error) {
	nodes, err := parse(src)
	if err != nil {
		return nil, err
	}
	b := bc.NewModuleBuilder().Memory(tapePages, tapePages)
	putc := b.Host("putc", []bc.Type{bc.I64}, nil)
	getc := b.Host("getc", nil, []bc.Type{bc.I64})
	f := b.Func("run", nil, nil)
	g := &gen{f: f, putc: putc, getc: getc,
		ptr: f.NewReg(bc.I64), cell: f.NewReg(bc.I64), tmp: f.NewReg(bc.I64), tmp2: f.NewReg(bc.I64)}
	g.emit(nodes)
	f.Return()
	b.Export("run", f)
	return b.Build()
}

type gen struct {
	f                    *bc.FuncBuilder
	putc, getc           uint32
	ptr, cell, tmp, tmp2 bc.Reg
}

func (g *gen) emit(nodes []node) {
	f := g.f
	for _, n := range nodes {
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
			body, end := f.NewLabel(), f.NewLabel()
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrEq, g.cell, 0, end)
			f.Bind(body)
			g.emit(n.body)
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrNe, g.cell, 0, body)
			f.Bind(end)
		case nMulLoop:
			// cell[off] += factor * cell[0] for each term; cell[0] = 0.
			end := f.NewLabel()
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrEq, g.cell, 0, end)
			for _, t := range n.mul {
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
}
