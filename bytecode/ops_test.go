package bytecode

import "testing"

// TestCondNegateSwapped checks Negate and Swapped against Holds on values
// around the signed and unsigned boundaries.
func TestCondNegateSwapped(t *testing.T) {
	vals := []int64{-1 << 63, -2, -1, 0, 1, 2, 1<<63 - 1}
	for c := CondEq; c <= CondGeU; c++ {
		for _, a := range vals {
			for _, b := range vals {
				if c.Negate().Holds(a, b) == c.Holds(a, b) {
					t.Errorf("%s.Negate() = %s: both hold or neither for (%d, %d)", c, c.Negate(), a, b)
				}
				if c.Swapped().Holds(b, a) != c.Holds(a, b) {
					t.Errorf("%s.Swapped() = %s: differs on (%d, %d)", c, c.Swapped(), a, b)
				}
			}
		}
	}
}
