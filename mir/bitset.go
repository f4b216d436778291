package mir

import "math/bits"

// Bitset is a fixed-size set of small non-negative integers (virtual
// register numbers, in liveness sets).
type Bitset []uint64

// NewBitset returns an empty set able to hold 0..n-1.
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

// Has reports whether i is in the set.
func (s Bitset) Has(i int) bool { return i>>6 < len(s) && s[i>>6]&(1<<(uint(i)&63)) != 0 }

// Add adds i.
func (s Bitset) Add(i int) { s[i>>6] |= 1 << (uint(i) & 63) }

// Remove removes i.
func (s Bitset) Remove(i int) { s[i>>6] &^= 1 << (uint(i) & 63) }

// Copy sets s to o (same size).
func (s Bitset) Copy(o Bitset) { copy(s, o) }

// Union adds every element of o and reports whether s changed.
func (s Bitset) Union(o Bitset) bool {
	changed := false
	for i, w := range o {
		if n := s[i] | w; n != s[i] {
			s[i] = n
			changed = true
		}
	}
	return changed
}

// Equal reports whether s and o hold the same elements.
func (s Bitset) Equal(o Bitset) bool {
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// Clear removes every element.
func (s Bitset) Clear() { clear(s) }

// Len returns the number of elements.
func (s Bitset) Len() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// Elems lists the elements in increasing order.
func (s Bitset) Elems() []int {
	var out []int
	for i, w := range s {
		for ; w != 0; w &= w - 1 {
			out = append(out, i*64+bits.TrailingZeros64(w))
		}
	}
	return out
}
