package interp

import (
	"context"
	"errors"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// framesSrc recurses n levels in down(n, k) and then calls the host
// function back(k), which may call down again: the frame records of such
// a call fill several chunks (frameChunk), nested calls start and end
// inside chunks and at their ends.
const framesSrc = `
host back (i64) -> (i64)
func down (i64 i64) -> (i64)
  regs i64
  br.eq r0, 0, bottom
  i64.sub r2, r0, 1
  call down (r2, r1) -> (r2)
  i64.add r2, r2, 1
  ret r2
bottom:
  call_host back (r1) -> (r2)
  ret r2
end
export "down" down
`

// overflowResult is what back returns when its nested call overflows.
const overflowResult = 1 << 40

// TestFrameChunks runs recursions through several chunks of frame records
// with host functions calling back at every nesting level, traps in
// nested calls and panics unwinding through them, and checks each
// result against a model and the machine's state after each call.
func TestFrameChunks(t *testing.T) {
	const limit = 1 << 20
	tests := []struct {
		name string
		// levels[k] is the recursion depth of the nested call back(k)
		// makes (levels[0] is the outermost call's); back(0) returns 0.
		levels []int
		// panicAt, when positive, makes back(panicAt) panic and
		// back(panicAt+1) recover it and return recovered.
		panicAt int
	}{
		{"one chunk", []int{100, 5, 1000}, 0},
		{"across chunks", []int{70_000, 3, frameChunk, 1, 140_000}, 0},
		{"at chunk ends", []int{frameChunk - 1, 1, frameChunk - 2, 2, frameChunk}, 0},
		{"full chunks below nested calls", []int{frameChunk, 10, 2*frameChunk - 10, 4, frameChunk}, 0},
		{"overflow nested", []int{70_000, 10, limit, 200_000}, 0},
		{"overflow outermost", []int{limit + 5}, 0},
		{"panic unwinds chunks", []int{frameChunk + 7, 90_000, 3, 150_000, 12}, 2},
	}
	const recovered = 5
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := bc.Assemble([]byte(framesSrc))
			if err != nil {
				t.Fatal(err)
			}
			down := m.ExportedFunc("down")
			var mach *Machine
			back := func(ctx context.Context, args, results []uint64) error {
				k := int(args[0])
				if k == 0 {
					results[0] = 0
					return nil
				}
				if k == tc.panicAt {
					panic("back panicked")
				}
				if tc.panicAt > 0 && k == tc.panicAt+1 {
					defer func() {
						if recover() != nil {
							results[0] = recovered
						}
					}()
				}
				res := make([]uint64, 1)
				err := mach.Call(ctx, down, []uint64{uint64(tc.levels[len(tc.levels)-k]), uint64(k - 1)}, res)
				var trap *bc.Trap
				switch {
				case errors.As(err, &trap) && trap.Kind == bc.TrapStackOverflow:
					results[0] = overflowResult
				case err != nil:
					return err
				default:
					results[0] = res[0]
				}
				return nil
			}
			mach = newMachine(t, m, Config{MaxCallDepth: limit, MaxStackSlots: 1 << 24}, back)
			// The model: the i-th call, down(levels[i], k) with k =
			// len(levels)-1-i, returns levels[i] + back(k); it needs
			// levels[i]+1 more call depth, and overflows beyond the
			// limit.
			var model func(i, depth int) (uint64, bool)
			model = func(i, depth int) (uint64, bool) {
				n, k := tc.levels[i], len(tc.levels)-1-i
				switch {
				case depth+n+1 > limit:
					return 0, false
				case k == 0:
					return uint64(n), true
				case tc.panicAt > 0 && k == tc.panicAt+1:
					return uint64(n) + recovered, true
				}
				inner, ok := model(i+1, depth+n+1)
				if !ok {
					inner = overflowResult
				}
				return uint64(n) + inner, true
			}
			want, ok := model(0, 0)
			for run := range 2 {
				res := make([]uint64, 1)
				err := mach.Call(context.Background(), down, []uint64{uint64(tc.levels[0]), uint64(len(tc.levels) - 1)}, res)
				var trap *bc.Trap
				switch {
				case !ok && (!errors.As(err, &trap) || trap.Kind != bc.TrapStackOverflow):
					t.Fatalf("run %d: err = %v, want a stack overflow", run, err)
				case ok && err != nil:
					t.Fatalf("run %d: %v", run, err)
				case ok && res[0] != want:
					t.Fatalf("run %d: down = %d, want %d", run, res[0], want)
				}
				checkMachineIdle(t, mach)
			}
		})
	}
}
