package testprogs

// HostPanicSource is the module the host panic tests of the interpreter
// and of every tier run: host calls at known offsets (HostPanicPLeaf,
// HostPanicNestBack, HostPanicNestLeaf, and wrap's call_host catch at 2),
// re-entrant calls through nest and back, values live across a host call
// in wrap, a loop to spend fuel and a recursion to spend call depth.
const HostPanicSource = `
host leaf (i64) -> (i64)
host back (i64) -> (i64)
host catch (i64) -> (i64)

; p(x) = leaf(x + 1)
func p (i64) -> (i64)
  i64.add r0, r0, 1
  call_host leaf (r0) -> (r0)
  ret r0
end

; nest(n) calls back(n-1), which calls nest(n-1) through its Caller, down
; to nest(0), which calls leaf(-1).
func nest (i64) -> (i64)
  regs i64
  br.eq r0, 0, bottom
  i64.sub r1, r0, 1
  call_host back (r1) -> (r1)
  ret r1
bottom:
  i64.const r1, -1
  call_host leaf (r1) -> (r1)
  ret r1
end

; wrap(x) = 3x + (x + 7) + catch(x), with both terms live across the host
; call.
func wrap (i64) -> (i64)
  regs i64 i64 i64
  i64.mul r1, r0, 3
  i64.add r2, r0, 7
  call_host catch (r0) -> (r3)
  i64.add r1, r1, r2
  i64.add r1, r1, r3
  ret r1
end

; loop(n) = n, taking n backward branches.
func loop (i64) -> (i64)
  regs i64
again:
  br.ge_s r1, r0, out
  i64.add r1, r1, 1
  jump again
out:
  ret r1
end

; deep(n) = n, recursing n calls deep.
func deep (i64) -> (i64)
  regs i64
  br.eq r0, 0, base
  i64.sub r1, r0, 1
  call deep (r1) -> (r1)
  i64.add r1, r1, 1
  ret r1
base:
  ret r0
end

export "p" p
export "nest" nest
export "wrap" wrap
export "loop" loop
export "deep" deep
`

// Offsets of the host calls in HostPanicSource.
const (
	HostPanicPLeaf    = 1 // p's call_host leaf
	HostPanicNestBack = 2 // nest's call_host back
	HostPanicNestLeaf = 5 // nest's call_host leaf
)
