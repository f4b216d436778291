// Package bf translates Brainfuck programs, one plain way, for the peer
// benchmarks: to kiln bytecode, to a WebAssembly module and to C.
//
// The translation folds runs of + and - into one add (mod 256) and runs of
// < and > into one move, and does nothing else: no pointer offsets, no
// clear or multiply loop recognition. Every back end then gets the same
// program, with the same structure:
//
//   - the tape is TapeSize byte cells, zero at the start, and the pointer
//     starts at cell 0; moving it outside the tape and touching a cell
//     traps in kiln and in WebAssembly (the C translation does not check);
//   - a cell update is a byte load, an add and a byte store;
//   - [ tests the cell once and skips the loop when it is zero; ] tests it
//     again and branches back while it is not zero;
//   - . and , are calls of the host functions putc(byte) and getc() -> byte
//     or -1 at the end of the input; at the end of the input , leaves the
//     cell unchanged.
//
// The kiln module and the WebAssembly module export a function "run" with
// no parameters and no results, and import putc and getc (from module "env"
// in WebAssembly): kiln's as putc(i64) and getc() -> i64, WebAssembly's as
// putc(i32) and getc() -> i32.
package bf

import (
	"fmt"
)

// TapeSize is the number of cells: one 64 KiB memory page.
const TapeSize = 65536

// Kind is the kind of an Op.
type Kind uint8

// The kinds of ops.
const (
	Add  Kind = iota // add N (1..255) to the cell, modulo 256
	Move             // move the pointer by N cells (not zero)
	Out              // write the cell
	In               // read into the cell
	Loop             // run Body while the cell is not zero
)

// Op is one step of a parsed program.
type Op struct {
	Kind Kind
	N    int  // Add: 1..255; Move: the distance, negative to the left
	Body []Op // Loop: the loop body
}

// SyntaxError reports an unbalanced bracket.
type SyntaxError struct {
	Line, Col int // 1-based
	Msg       string
}

// Error returns "line:col: message".
func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Parse turns a program into ops, merging each run of + - (ignoring the
// comment characters between them) into one Add and each run of < > into
// one Move, and dropping runs that add up to nothing. Characters other
// than the eight commands are comments. Unbalanced brackets are an error.
func Parse(src []byte) ([]Op, error) {
	type open struct {
		line, col int
		ops       []Op
	}
	var stack []open
	var cur []Op
	// run merges a step of kind k into the op at the end of cur.
	run := func(k Kind, d int) {
		if n := len(cur); n > 0 && cur[n-1].Kind == k {
			cur[n-1].N += d
		} else {
			cur = append(cur, Op{Kind: k, N: d})
		}
		if n := len(cur); k == Add {
			cur[n-1].N = (cur[n-1].N + 256) % 256
		}
		if n := len(cur); cur[n-1].N == 0 {
			cur = cur[:n-1]
		}
	}
	line, col := 1, 0
	for _, c := range src {
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '+':
			run(Add, 1)
		case '-':
			run(Add, -1)
		case '>':
			run(Move, 1)
		case '<':
			run(Move, -1)
		case '.':
			cur = append(cur, Op{Kind: Out})
		case ',':
			cur = append(cur, Op{Kind: In})
		case '[':
			stack = append(stack, open{line, col, cur})
			cur = nil
		case ']':
			if len(stack) == 0 {
				return nil, &SyntaxError{line, col, "unmatched ']'"}
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cur = append(top.ops, Op{Kind: Loop, Body: cur})
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, &SyntaxError{top.line, top.col, "unmatched '['"}
	}
	return cur, nil
}

// Count returns the number of ops in ops, loop bodies included.
func Count(ops []Op) int {
	n := len(ops)
	for _, op := range ops {
		n += Count(op.Body)
	}
	return n
}
