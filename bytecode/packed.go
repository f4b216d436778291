package bytecode

import (
	"fmt"
	"slices"
)

// PackedCode is a function's code kept in the instruction encoding of the
// binary form (see Encode): a few bytes per instruction where []Instr
// takes more than a hundred. A program that keeps code it seldom reads
// (a JIT engine keeps every function's bytecode to compile it later, while
// the interpreter runs its own form) packs it and unpacks a function when
// it needs its instructions. The zero PackedCode is empty code. A
// PackedCode is immutable and may be shared.
type PackedCode struct {
	data []byte
	n    int
	// marks holds the offset in data of every packMark-th instruction,
	// so that UnpackRange starts decoding near where it is asked to.
	marks []uint32
}

// packMark is the distance in instructions between two marks.
const packMark = 32

// PackCode packs code. The packed form keeps every field the binary form
// keeps, which is every field of a valid instruction (Verify's rules): code
// that passed Verify unpacks to code equal to it.
func PackCode(code []Instr) PackedCode {
	var data []byte
	marks := make([]uint32, 0, (len(code)+packMark-1)/packMark)
	for i := range code {
		if i%packMark == 0 {
			marks = append(marks, uint32(len(data)))
		}
		data = binAppendInstr(data, &code[i])
	}
	// The append above may leave up to twice the room needed.
	return PackedCode{data: append([]byte(nil), data...), n: len(code), marks: marks}
}

// Len returns the number of instructions.
func (p PackedCode) Len() int { return p.n }

// Bytes returns the size of the packed form in bytes.
func (p PackedCode) Bytes() int { return len(p.data) }

// Unpack returns the instructions, in a new slice that shares no memory
// with p. It fails only if p was not made by PackCode.
func (p PackedCode) Unpack() ([]Instr, error) {
	if p.n == 0 {
		return nil, nil
	}
	code, end, err := p.unpackRange(nil, 0, p.n)
	if err != nil {
		return nil, err
	}
	if rest := len(p.data) - end; rest != 0 {
		return nil, fmt.Errorf("bytecode: unpack: %d bytes after %d instructions", rest, p.n)
	}
	return code, nil
}

// UnpackRange appends instructions start to end-1 to dst (reusing its
// storage from len(dst) on, so that a caller unpacking a function a piece
// at a time allocates little) and returns the extended slice. The
// instructions' Table, Args and Results are new slices. It fails if the
// range is not within the code or p was not made by PackCode.
func (p PackedCode) UnpackRange(dst []Instr, start, end int) ([]Instr, error) {
	dst, _, err := p.unpackRange(dst, start, end)
	return dst, err
}

// unpackRange is UnpackRange; it also returns the offset in p.data after
// the last instruction decoded.
func (p PackedCode) unpackRange(dst []Instr, start, end int) ([]Instr, int, error) {
	if start < 0 || end > p.n || start > end {
		return dst, 0, fmt.Errorf("bytecode: unpack: instructions %d to %d of %d", start, end, p.n)
	}
	if start == end {
		return dst, 0, nil
	}
	m := start / packMark
	if m >= len(p.marks) {
		return dst, 0, fmt.Errorf("bytecode: unpack: no mark for instruction %d", start)
	}
	d := &binDecoder{b: p.data, pos: int(p.marks[m]), fn: -1, instr: -1}
	var skip Instr
	for i := m * packMark; i < start; i++ {
		d.instr = i
		if err := d.instruction(&skip); err != nil {
			return dst, 0, fmt.Errorf("bytecode: unpack: %w", err)
		}
		skip = Instr{}
	}
	first := len(dst)
	dst = slices.Grow(dst, end-start)[:first+end-start]
	for i := start; i < end; i++ {
		d.instr = i
		in := &dst[first+i-start]
		*in = Instr{}
		if err := d.instruction(in); err != nil {
			return dst[:first], 0, fmt.Errorf("bytecode: unpack: %w", err)
		}
	}
	return dst, d.pos, nil
}
