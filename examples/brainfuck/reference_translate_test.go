package main

// The translator as it was before its stages became iterative: parse built
// a tree of loop bodies, and foldOffsets and emit recursed into them. It is
// kept as the reference the iterative translator must match instruction for
// instruction (TestMatchesRecursiveTranslator).

import (
	bc "github.com/kiln-jit/kiln/bytecode"
)

// refNode is one step of the parsed program. Runs of + - > < are merged, and
// the pointer moves inside a straight-line stretch are folded into offsets.
type refNode struct {
	kind   refNodeKind
	offset int32 // cell relative to the pointer
	value  int   // add: delta mod 256; set: the value; move: the distance
	body   []refNode
	// mul holds, for a multiply loop, the offset and factor of every cell it
	// adds the loop counter to.
	mul []refMulTerm
}

type refMulTerm struct {
	offset int32
	factor int
}

type refNodeKind uint8

const (
	rAdd refNodeKind = iota
	rSet
	rMove
	rOut
	rIn
	rLoop
	rMulLoop
)

// refParse turns BF source into nodes, rejecting unbalanced brackets. Every
// character other than the eight commands is a comment.
func refParse(src []byte) ([]refNode, error) {
	type open struct {
		line, col int
		nodes     []refNode
	}
	var stack []open
	var cur []refNode
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
			if n := len(cur); n > 0 && cur[n-1].kind == rAdd {
				cur[n-1].value = (cur[n-1].value + d) % 256
			} else {
				cur = append(cur, refNode{kind: rAdd, value: d})
			}
		case '>', '<':
			d := 1
			if c == '<' {
				d = -1
			}
			if n := len(cur); n > 0 && cur[n-1].kind == rMove {
				cur[n-1].value += d
			} else {
				cur = append(cur, refNode{kind: rMove, value: d})
			}
		case '.':
			cur = append(cur, refNode{kind: rOut})
		case ',':
			cur = append(cur, refNode{kind: rIn})
		case '[':
			stack = append(stack, open{line, col, cur})
			cur = nil
		case ']':
			if len(stack) == 0 {
				return nil, &SyntaxError{line, col, "unmatched ']'"}
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			loop := refNode{kind: rLoop, body: cur}
			cur = append(top.nodes, refSimplifyLoop(loop))
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, &SyntaxError{top.line, top.col, "unmatched '['"}
	}
	return refFoldOffsets(cur), nil
}

// refSimplifyLoop recognises [-] and [+] (set to zero) and multiply loops: a
// body of adds and moves that returns to its starting cell and decrements
// it by one each time, such as [->++>+<<].
func refSimplifyLoop(loop refNode) refNode {
	body := loop.body
	if len(body) == 1 && body[0].kind == rAdd && body[0].value%2 == 1 {
		// An odd step reaches zero from any value: the loop zeroes the cell.
		return refNode{kind: rSet, value: 0}
	}
	pos := 0
	delta := map[int]int{}
	var order []int
	for _, n := range body {
		switch n.kind {
		case rAdd:
			if _, ok := delta[pos]; !ok {
				order = append(order, pos)
			}
			delta[pos] = (delta[pos] + n.value) % 256
		case rMove:
			pos += n.value
		default:
			return loop
		}
	}
	if pos != 0 || delta[0] != 255 {
		return loop
	}
	out := refNode{kind: rMulLoop}
	for _, off := range order {
		if off != 0 && delta[off] != 0 {
			out.mul = append(out.mul, refMulTerm{offset: int32(off), factor: delta[off]})
		}
	}
	return out
}

// refFoldOffsets removes moves inside straight-line stretches: each cell
// operation gets the pointer offset accumulated since the stretch began,
// and one move at the end of the stretch (before a loop, or at the end)
// updates the pointer.
func refFoldOffsets(nodes []refNode) []refNode {
	var out []refNode
	off := 0
	flush := func() {
		if off != 0 {
			out = append(out, refNode{kind: rMove, value: off})
			off = 0
		}
	}
	for _, n := range nodes {
		switch n.kind {
		case rMove:
			off += n.value
		case rLoop:
			flush()
			n.body = refFoldOffsets(n.body)
			out = append(out, n)
		case rMulLoop:
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

// refTranslate compiles a BF program to a kiln module with one exported
// function "run" (no parameters, no results) and two host imports:
// putc(i64) writes a byte and getc() -> i64 reads one (-1 at end of input,
// which leaves the cell unchanged).
func refTranslate(src []byte) (*bc.Module, error) {
	nodes, err := refParse(src)
	if err != nil {
		return nil, err
	}
	b := bc.NewModuleBuilder().Memory(tapePages, tapePages)
	putc := b.Host("putc", []bc.Type{bc.I64}, nil)
	getc := b.Host("getc", nil, []bc.Type{bc.I64})
	f := b.Func("run", nil, nil)
	g := &refGen{f: f, putc: putc, getc: getc,
		ptr: f.NewReg(bc.I64), cell: f.NewReg(bc.I64), tmp: f.NewReg(bc.I64), tmp2: f.NewReg(bc.I64)}
	g.emit(nodes)
	f.Return()
	b.Export("run", f)
	return b.Build()
}

type refGen struct {
	f                    *bc.FuncBuilder
	putc, getc           uint32
	ptr, cell, tmp, tmp2 bc.Reg
}

func (g *refGen) emit(nodes []refNode) {
	f := g.f
	for _, n := range nodes {
		switch n.kind {
		case rAdd:
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, n.offset)
			f.BinaryImm(bc.OpI64Add, g.cell, g.cell, int64(n.value))
			f.Store(bc.OpI64Store8, g.ptr, g.cell, n.offset)
		case rSet:
			f.I64Const(g.cell, int64(n.value))
			f.Store(bc.OpI64Store8, g.ptr, g.cell, n.offset)
		case rMove:
			f.BinaryImm(bc.OpI64Add, g.ptr, g.ptr, int64(n.value))
		case rOut:
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, n.offset)
			f.CallHost(g.putc, []bc.Reg{g.cell}, nil)
		case rIn:
			skip := f.NewLabel()
			f.CallHost(g.getc, nil, []bc.Reg{g.cell})
			f.BrCmpImm(bc.OpBrLtS, g.cell, 0, skip)
			f.Store(bc.OpI64Store8, g.ptr, g.cell, n.offset)
			f.Bind(skip)
		case rLoop:
			// Test at the top once, then at the bottom of each iteration.
			body, end := f.NewLabel(), f.NewLabel()
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrEq, g.cell, 0, end)
			f.Bind(body)
			g.emit(n.body)
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrNe, g.cell, 0, body)
			f.Bind(end)
		case rMulLoop:
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
