package binary

// The encoding primitives of the binary format, for the packages that
// write modules (the text-format parser, the test builders).

// AppendU32 appends the unsigned LEB128 encoding of v to b.
func AppendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendS64 appends the signed LEB128 encoding of v to b (also the
// encoding of i32 values, sign-extended).
func AppendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendName appends a name: its length in bytes, then its bytes.
func AppendName(b []byte, s string) []byte {
	return append(AppendU32(b, uint32(len(s))), s...)
}
