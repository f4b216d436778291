package bytecode

import "fmt"

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
}

// PackCode packs code. The packed form keeps every field the binary form
// keeps, which is every field of a valid instruction (Verify's rules): code
// that passed Verify unpacks to code equal to it.
func PackCode(code []Instr) PackedCode {
	var data []byte
	for i := range code {
		data = binAppendInstr(data, &code[i])
	}
	// The append above may leave up to twice the room needed.
	return PackedCode{data: append([]byte(nil), data...), n: len(code)}
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
	code := make([]Instr, p.n)
	d := &binDecoder{b: p.data, fn: -1, instr: -1}
	for i := range code {
		d.instr = i
		if err := d.instruction(&code[i]); err != nil {
			return nil, fmt.Errorf("bytecode: unpack: %w", err)
		}
	}
	if d.remaining() != 0 {
		return nil, fmt.Errorf("bytecode: unpack: %d bytes after %d instructions", d.remaining(), p.n)
	}
	return code, nil
}
