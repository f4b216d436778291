package fuzz

// source hands out the generator's decisions from a byte string. Every byte
// string is a valid source: once the bytes run out every decision is 0, and
// the generator makes 0 its simplest choice, so generation always ends and
// always yields a valid program. Small changes to the bytes (what a fuzzing
// engine's mutations do) change a few decisions, not the whole program.
//
// A backward source reads the bytes from the last one to the first.
type source struct {
	data     []byte
	pos      int
	backward bool
}

// exhausted reports whether every byte has been used.
func (s *source) exhausted() bool { return s.pos >= len(s.data) }

// byte returns the next byte, or 0 when the bytes have run out.
func (s *source) byte() byte {
	if s.pos >= len(s.data) {
		return 0
	}
	b := s.data[s.pos]
	if s.backward {
		b = s.data[len(s.data)-1-s.pos]
	}
	s.pos++
	return b
}

// intn returns a number in [0, n) (0 when n <= 1), using one byte for n up
// to 256 and two bytes above.
func (s *source) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(s.byte())
	if n > 256 {
		v = v<<8 | int(s.byte())
	}
	return v % n
}

// chance returns true with probability about num/den.
func (s *source) chance(num, den int) bool { return s.intn(den) < num }

// u64 returns the next eight bytes as a little-endian number.
func (s *source) u64() uint64 {
	var v uint64
	for i := 0; i < 8; i++ {
		v |= uint64(s.byte()) << (8 * i)
	}
	return v
}

// pick returns an index into weights with probability proportional to its
// weight; entries with weight 0 are never picked. When the bytes have run
// out it returns the first index with a positive weight.
func (s *source) pick(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	if total == 0 {
		return 0
	}
	v := s.intn(total)
	for i, w := range weights {
		if v < w {
			return i
		}
		v -= w
	}
	return len(weights) - 1
}
