package bytecode

import (
	"errors"
	"strings"
	"testing"
)

// limitsSrc has three functions; sw has 6 instructions and a switch table
// of 4 entries (size 10) and 3 registers.
const limitsSrc = `
func a () -> ()
  ret
end
func b () -> ()
  ret
end
func sw (i64) -> (i64)
  regs i64 i64
  switch r0, [c0, c1, c2, c3], c3
c0:
  ret r0
c1:
  ret r1
c2:
  ret r2
c3:
  i64.const r0, 1
  ret r0
end
`

// TestLimits assembles and decodes limitsSrc under each limit just below
// what it needs, which must fail with a *LimitError naming the limit, the
// function and the count, and at it, which must succeed.
func TestLimits(t *testing.T) {
	m, err := Assemble([]byte(limitsSrc))
	if err != nil {
		t.Fatal(err)
	}
	if got := FuncSize(m.Funcs[2]); got != 10 {
		t.Fatalf("FuncSize(sw) = %d, want 10", got)
	}
	bin, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		limit     string
		over, fit Limits
		fn        string
		value     int64 // in the binary form, which declares its counts
	}{
		{"Funcs", Limits{Funcs: 2}, Limits{Funcs: 3}, "", 3},
		{"FuncSize", Limits{FuncSize: 9}, Limits{FuncSize: 10}, "sw", 10},
		{"Regs", Limits{Regs: 2}, Limits{Regs: 3}, "sw", 3},
	}
	for _, tc := range tests {
		for _, form := range []string{"text", "binary"} {
			t.Run(tc.limit+"/"+form, func(t *testing.T) {
				load := func(lim Limits) (*Module, error) {
					if form == "text" {
						return AssembleLimits([]byte(limitsSrc), lim)
					}
					return DecodeLimits(bin, lim)
				}
				_, err := load(tc.over)
				var le *LimitError
				if !errors.As(err, &le) || le.Limit != tc.limit || le.Func != tc.fn || le.Max <= 0 || le.Value <= le.Max {
					t.Fatalf("over the limit: err = %v (%+v), want a *LimitError for %s of func %q", err, le, tc.limit, tc.fn)
				}
				if form == "binary" && le.Value != tc.value {
					t.Errorf("the binary form declares %d, the error says %d", tc.value, le.Value)
				}
				if !strings.Contains(err.Error(), "limit") {
					t.Errorf("error %q does not say it is a limit", err)
				}
				if _, err := load(tc.fit); err != nil {
					t.Fatalf("at the limit: %v", err)
				}
			})
		}
	}
}

// TestLimitsStopEarly checks that a text module over the function limit
// is refused at the first function over it: a syntax error after that
// line is not reached.
func TestLimitsStopEarly(t *testing.T) {
	src := limitsSrc + "this line does not parse\n"
	_, err := AssembleLimits([]byte(src), Limits{Funcs: 1})
	var le *LimitError
	var se *SyntaxError
	if !errors.As(err, &le) || !errors.As(err, &se) || se.Line != 5 {
		t.Fatalf("err = %v, want the limit error at line 5 (func b)", err)
	}
}
