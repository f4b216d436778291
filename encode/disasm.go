package encode

import (
	"fmt"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// Disassemble prints a function's machine code, one instruction per line
// (offset, bytes, Go syntax), with a comment line each time the bytecode
// offset the code comes from changes. base is the address the code is (or
// will be) loaded at, used to print branch targets as absolute addresses;
// pass 0 for offsets. The constant pool and jump tables after the code
// are printed as data words.
func Disassemble(c *Code, base uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "; func %s #%d, frame %d bytes, %d bytes of code\n", c.Name, c.Func, c.FrameSize, c.CodeSize)
	pos := int32(-2)
	for off := 0; off < c.CodeSize; {
		if p := c.PosAt(off); p != pos {
			pos = p
			if p >= 0 {
				fmt.Fprintf(&b, "; bytecode %d\n", p)
			}
		}
		inst, err := x86asm.Decode(c.Bytes[off:c.CodeSize], 64)
		if err != nil {
			fmt.Fprintf(&b, "%6x  % x  (bad: %v)\n", off, c.Bytes[off], err)
			off++
			continue
		}
		fmt.Fprintf(&b, "%6x  %-30s %s\n", off, fmt.Sprintf("% x", c.Bytes[off:off+inst.Len]),
			x86asm.GoSyntax(inst, base+uint64(off), nil))
		off += inst.Len
	}
	for off := (c.CodeSize + 15) &^ 15; off+8 <= len(c.Bytes); off += 8 {
		fmt.Fprintf(&b, "%6x  data % x\n", off, c.Bytes[off:off+8])
	}
	return b.String()
}
