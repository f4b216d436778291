package kernels

import (
	w "github.com/kiln-jit/kiln/bench/wasm"
)

// fib(n) = n for n < 2, else fib(n-1) + fib(n-2).
func fib(m *w.Module) {
	f := newFunc(m, "fib", i64, i64)
	n := f.Param(0)
	f.Get(n)
	f.I64Const(2)
	f.Op(w.I64LtS)
	f.If()
	f.Get(n)
	f.Return()
	f.End()
	f.Get(n)
	f.I64Const(1)
	f.Op(w.I64Sub)
	f.Call(f.Index())
	f.Get(n)
	f.I64Const(2)
	f.Op(w.I64Sub)
	f.Call(f.Index())
	f.Op(w.I64Add)
}

// sieve(n) counts the primes below n in a byte array flags[0..n) at
// address 0.
func sieve(m *w.Module) {
	m.Memory(16, 16)
	f := newFunc(m, "sieve", i64, i64)
	n := f.Param(0)
	i, j, count := f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64)
	done := f.Block()
	f.brIfCmpConst(n, w.I64LeS, 2, done)

	// flags[i] = 1 for 0 <= i < n
	fill := f.Loop()
	f.addr(i)
	f.I64Const(1)
	f.Mem(w.I64Store8, 0)
	f.inc(i, 1)
	f.brIfCmp(i, w.I64LtS, n, fill)
	f.End()

	// for i = 2; i < n; i++: if flags[i], count it and cross out its multiples
	f.set(i, func() { f.I64Const(2) })
	scan := f.Loop()
	next := f.Block()
	f.addr(i)
	f.Mem(w.I64Load8U, 0)
	f.Op(w.I64Eqz)
	f.BrIf(next)
	f.inc(count, 1)
	f.set(j, func() { f.Get(i); f.Get(i); f.Op(w.I64Mul) })
	f.brIfCmp(j, w.I64GeS, n, next)
	cross := f.Loop()
	f.addr(j)
	f.I64Const(0)
	f.Mem(w.I64Store8, 0)
	f.set(j, func() { f.Get(j); f.Get(i); f.Op(w.I64Add) })
	f.brIfCmp(j, w.I64LtS, n, cross)
	f.End() // cross
	f.End() // next
	f.inc(i, 1)
	f.brIfCmp(i, w.I64LtS, n, scan)
	f.End() // scan
	f.End() // done
	f.Get(count)
}

// matmul(n) multiplies two n x n f64 matrices (A at 0, B at 8n^2, C at
// 16n^2, row-major) that it fills itself, and returns the sum of C.
func matmul(m *w.Module) {
	m.Memory(8, 8)
	f := newFunc(m, "matmul", i64, f64)
	n := f.Param(0)
	i, j, bBase, cBase, addr := f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64)
	pa, pb, stride, end := f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64)
	sum := f.NewLocal(w.F64)
	// offset pushes (i*n + j)*8, the offset of element [i][j].
	offset := func() {
		f.Get(i)
		f.Get(n)
		f.Op(w.I64Mul)
		f.Get(j)
		f.Op(w.I64Add)
		f.I64Const(8)
		f.Op(w.I64Mul)
	}

	empty := f.Block()
	f.brIfCmpConst(n, w.I64LeS, 0, empty)
	f.set(stride, func() { f.Get(n); f.I64Const(8); f.Op(w.I64Mul) })
	f.set(bBase, func() { f.Get(stride); f.Get(n); f.Op(w.I64Mul) })
	f.set(cBase, func() { f.Get(bBase); f.Get(bBase); f.Op(w.I64Add) })

	// Fill A and B.
	fillRow := f.Loop()
	f.set(j, func() { f.I64Const(0) })
	fillCol := f.Loop()
	f.set(addr, offset)
	f.addr(addr) // A[i][j] = ((i + 2j) mod 7) - 3
	f.Get(j)
	f.I64Const(2)
	f.Op(w.I64Mul)
	f.Get(i)
	f.Op(w.I64Add)
	f.I64Const(7)
	f.Op(w.I64RemS)
	f.Op(w.F64ConvertI64S)
	f.F64Const(3)
	f.Op(w.F64Sub)
	f.Mem(w.F64Store, 0)
	f.Get(addr) // B[i][j] = ((3i + j) mod 5) * 0.5
	f.Get(bBase)
	f.Op(w.I64Add, w.I32WrapI64)
	f.Get(i)
	f.I64Const(3)
	f.Op(w.I64Mul)
	f.Get(j)
	f.Op(w.I64Add)
	f.I64Const(5)
	f.Op(w.I64RemS)
	f.Op(w.F64ConvertI64S)
	f.F64Const(0.5)
	f.Op(w.F64Mul)
	f.Mem(w.F64Store, 0)
	f.inc(j, 1)
	f.brIfCmp(j, w.I64LtS, n, fillCol)
	f.End()
	f.inc(i, 1)
	f.brIfCmp(i, w.I64LtS, n, fillRow)
	f.End()

	// C[i][j] = sum over k of A[i][k] * B[k][j]
	f.set(i, func() { f.I64Const(0) })
	mulRow := f.Loop()
	f.set(j, func() { f.I64Const(0) })
	mulCol := f.Loop()
	f.set(pa, func() { f.Get(i); f.Get(stride); f.Op(w.I64Mul) })
	f.set(end, func() { f.Get(pa); f.Get(stride); f.Op(w.I64Add) })
	f.set(pb, func() { f.Get(j); f.I64Const(8); f.Op(w.I64Mul); f.Get(bBase); f.Op(w.I64Add) })
	f.set(sum, func() { f.F64Const(0) })
	dot := f.Loop()
	f.Get(sum)
	f.addr(pa)
	f.Mem(w.F64Load, 0)
	f.addr(pb)
	f.Mem(w.F64Load, 0)
	f.Op(w.F64Mul, w.F64Add)
	f.Set(sum)
	f.inc(pa, 8)
	f.set(pb, func() { f.Get(pb); f.Get(stride); f.Op(w.I64Add) })
	f.brIfCmp(pa, w.I64LtU, end, dot)
	f.End()
	f.set(addr, func() { offset(); f.Get(cBase); f.Op(w.I64Add) })
	f.addr(addr)
	f.Get(sum)
	f.Mem(w.F64Store, 0)
	f.inc(j, 1)
	f.brIfCmp(j, w.I64LtS, n, mulCol)
	f.End()
	f.inc(i, 1)
	f.brIfCmp(i, w.I64LtS, n, mulRow)
	f.End()

	// Checksum: the sum of C in memory order.
	f.set(sum, func() { f.F64Const(0) })
	f.set(pa, func() { f.Get(cBase) })
	f.set(end, func() { f.Get(cBase); f.Get(bBase); f.Op(w.I64Add) })
	checksum := f.Loop()
	f.Get(sum)
	f.addr(pa)
	f.Mem(w.F64Load, 0)
	f.Op(w.F64Add)
	f.Set(sum)
	f.inc(pa, 8)
	f.brIfCmp(pa, w.I64LtU, end, checksum)
	f.End()
	f.Get(sum)
	f.Return()
	f.End() // empty
	f.F64Const(0)
}

// mandel(size, maxiter) iterates z = z^2 + c over a size x size grid and
// returns the total iteration count and the sum of the final |z|^2.
func mandel(m *w.Module) {
	f := newFunc(m, "mandel", i64s(2), []w.ValType{w.I64, w.F64})
	size, maxiter := f.Param(0), f.Param(1)
	x, y, it, total := f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64)
	scale, cr, ci, zr, zi := f.NewLocal(w.F64), f.NewLocal(w.F64), f.NewLocal(w.F64), f.NewLocal(w.F64), f.NewLocal(w.F64)
	zr2, zi2, t, check := f.NewLocal(w.F64), f.NewLocal(w.F64), f.NewLocal(w.F64), f.NewLocal(w.F64)
	square := func(l w.Local) { f.Get(l); f.Get(l); f.Op(w.F64Mul) }

	finish := f.Block()
	f.brIfCmpConst(size, w.I64LeS, 0, finish)
	f.set(scale, func() { f.F64Const(2.5); f.Get(size); f.Op(w.F64ConvertI64S, w.F64Div) })
	row := f.Loop()
	f.set(ci, func() {
		f.Get(y)
		f.Op(w.F64ConvertI64S)
		f.Get(scale)
		f.Op(w.F64Mul)
		f.F64Const(1.25)
		f.Op(w.F64Sub)
	})
	f.set(x, func() { f.I64Const(0) })
	column := f.Loop()
	f.set(cr, func() {
		f.Get(x)
		f.Op(w.F64ConvertI64S)
		f.Get(scale)
		f.Op(w.F64Mul)
		f.F64Const(2)
		f.Op(w.F64Sub)
	})
	f.set(zr, func() { f.F64Const(0) })
	f.set(zi, func() { f.F64Const(0) })
	f.set(it, func() { f.I64Const(0) })
	pixelDone := f.Block()
	iterate := f.Loop()
	f.brIfCmp(it, w.I64GeS, maxiter, pixelDone) // out of iterations
	f.set(zr2, func() { square(zr) })
	f.set(zi2, func() { square(zi) })
	f.Get(zr2)
	f.Get(zi2)
	f.Op(w.F64Add)
	f.F64Const(4)
	f.Op(w.F64Gt)
	f.BrIf(pixelDone) // |z|^2 > 4: escaped
	f.set(t, func() { f.Get(zr); f.Get(zi); f.Op(w.F64Mul) })
	f.set(zi, func() { f.Get(t); f.Get(t); f.Op(w.F64Add); f.Get(ci); f.Op(w.F64Add) })
	f.set(zr, func() { f.Get(zr2); f.Get(zi2); f.Op(w.F64Sub); f.Get(cr); f.Op(w.F64Add) })
	f.inc(it, 1)
	f.Br(iterate)
	f.End() // iterate
	f.End() // pixelDone
	f.set(total, func() { f.Get(total); f.Get(it); f.Op(w.I64Add) })
	f.set(check, func() { f.Get(check); square(zr); square(zi); f.Op(w.F64Add, w.F64Add) })
	f.inc(x, 1)
	f.brIfCmp(x, w.I64LtS, size, column)
	f.End() // column
	f.inc(y, 1)
	f.brIfCmp(y, w.I64LtS, size, row)
	f.End() // row
	f.End() // finish
	f.Get(total)
	f.Get(check)
}

// switchloop(length, reps, seed) generates a program of a tiny
// accumulator machine (opcodes at 0, arguments at 32768) and interprets it
// reps times, dispatching with a br_table.
func switchloop(m *w.Module) {
	m.Memory(1, 1)
	f := newFunc(m, "switchloop", i64s(3), i64)
	length, reps, seed := f.Param(0), f.Param(1), f.Param(2)
	pc, rep, s, op, arg, acc, x, tmp := f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64),
		f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64)
	binop := func(dst, a w.Local, op w.Opcode, b w.Local) { f.set(dst, func() { f.Get(a); f.Get(b); f.Op(op) }) }

	f.set(acc, func() { f.Get(seed) })
	finish := f.Block()
	f.brIfCmpConst(length, w.I64LeS, 0, finish)
	f.brIfCmpConst(reps, w.I64LeS, 0, finish)

	// Generate the program.
	f.set(s, func() { f.Get(seed) })
	generate := f.Loop()
	f.set(s, func() {
		f.Get(s)
		f.I64Const(6364136223846793005)
		f.Op(w.I64Mul)
		f.I64Const(1442695040888963407)
		f.Op(w.I64Add)
	})
	f.addr(pc)
	f.Get(s)
	f.I64Const(32)
	f.Op(w.I64ShrU)
	f.I64Const(12)
	f.Op(w.I64RemU)
	f.Mem(w.I64Store8, 0)
	f.addr(pc)
	f.Get(s)
	f.I64Const(24)
	f.Op(w.I64ShrU)
	f.I64Const(0xff)
	f.Op(w.I64And)
	f.Mem(w.I64Store8, 32768)
	f.inc(pc, 1)
	f.brIfCmp(pc, w.I64LtS, length, generate)
	f.End()

	// Run it reps times.
	run := f.Loop()
	f.set(pc, func() { f.I64Const(0) })
	dispatch := f.Loop()
	f.set(op, func() { f.addr(pc); f.Mem(w.I64Load8U, 0) })
	f.set(arg, func() { f.addr(pc); f.Mem(w.I64Load8U, 32768) })
	next := f.Block()
	// One block per case, the first case innermost: the code of a case
	// follows the end of its block.
	cases := make([]w.Label, 11) // ten opcodes, then the default
	for k := len(cases) - 1; k >= 0; k-- {
		cases[k] = f.Block()
	}
	f.Get(op)
	f.Op(w.I32WrapI64)
	f.BrTable(cases[:10], cases[10])
	f.End() // 0 add
	binop(acc, acc, w.I64Add, arg)
	f.Br(next)
	f.End() // 1 sub
	binop(acc, acc, w.I64Sub, arg)
	f.Br(next)
	f.End() // 2 mul
	f.set(tmp, func() { f.Get(arg); f.I64Const(1); f.Op(w.I64Or) })
	binop(acc, acc, w.I64Mul, tmp)
	f.Br(next)
	f.End() // 3 shr
	f.set(tmp, func() { f.Get(arg); f.I64Const(31); f.Op(w.I64And) })
	binop(tmp, acc, w.I64ShrU, tmp)
	binop(acc, acc, w.I64Xor, tmp)
	f.Br(next)
	f.End() // 4 rotl
	binop(acc, acc, w.I64Rotl, arg)
	f.Br(next)
	f.End() // 5 stash
	binop(x, x, w.I64Add, acc)
	f.Br(next)
	f.End() // 6 swap
	f.set(tmp, func() { f.Get(acc) })
	f.set(acc, func() { f.Get(x) })
	f.set(x, func() { f.Get(tmp) })
	f.Br(next)
	f.End() // 7 mask
	f.set(acc, func() { f.Get(acc); f.Op(w.I32WrapI64, w.I64ExtendI32U) })
	f.Br(next)
	f.End() // 8 odd
	f.set(tmp, func() { f.Get(acc); f.I64Const(1); f.Op(w.I64And) })
	f.brIfCmpConst(tmp, w.I64Eq, 0, next)
	f.set(acc, func() { f.Get(acc); f.I64Const(3); f.Op(w.I64Mul); f.I64Const(1); f.Op(w.I64Add) })
	f.Br(next)
	f.End() // 9 mix
	binop(x, x, w.I64Xor, arg)
	binop(acc, acc, w.I64Add, x)
	f.Br(next)
	f.End() // default
	f.set(acc, func() { f.Get(acc); f.I64Const(-1); f.Op(w.I64Xor); f.Get(arg); f.Op(w.I64Add) })
	f.End() // next
	f.inc(pc, 1)
	f.brIfCmp(pc, w.I64LtS, length, dispatch)
	f.End() // dispatch
	f.inc(rep, 1)
	f.brIfCmp(rep, w.I64LtS, reps, run)
	f.End() // run
	f.End() // finish
	f.Get(acc)
	f.Get(x)
	f.Op(w.I64Xor)
}

// crc32(n, seed) fills n bytes at address 0 with xorshift64 output and
// returns their bitwise CRC-32 and a word hash.
func crc32(m *w.Module) {
	m.Memory(2, 2)
	f := newFunc(m, "crc32", i64s(2), i64s(2))
	n, seed := f.Param(0), f.Param(1)
	x, i, crc, mask, bit, hash, word := f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64),
		f.NewLocal(w.I64), f.NewLocal(w.I64), f.NewLocal(w.I64)
	const golden = -0x61c8864680b583eb // 0x9e3779b97f4a7c15 as an int64
	// xorShift does x ^= x shift by.
	xorShift := func(shift w.Opcode, by int64) {
		f.set(x, func() { f.Get(x); f.Get(x); f.I64Const(by); f.Op(shift, w.I64Xor) })
	}

	f.set(crc, func() { f.I64Const(0xffffffff) })
	empty := f.Block()
	f.brIfCmpConst(n, w.I64LeS, 0, empty)

	// Fill memory with xorshift64 output.
	f.set(x, func() {
		f.I64Const(golden)
		f.Get(seed)
		f.Get(seed)
		f.Op(w.I64Eqz, w.Select)
	})
	fill := f.Loop()
	xorShift(w.I64Shl, 13)
	xorShift(w.I64ShrU, 7)
	xorShift(w.I64Shl, 17)
	f.addr(i)
	f.Get(x)
	f.Mem(w.I64Store, 0)
	f.inc(i, 8)
	f.brIfCmp(i, w.I64LtS, n, fill)
	f.End()

	// CRC-32, one bit at a time.
	f.set(i, func() { f.I64Const(0) })
	crcByte := f.Loop()
	f.set(crc, func() { f.Get(crc); f.addr(i); f.Mem(w.I64Load8U, 0); f.Op(w.I64Xor) })
	f.set(bit, func() { f.I64Const(8) })
	crcBit := f.Loop()
	f.set(mask, func() {
		f.I64Const(0) // all ones when the low bit is set
		f.Get(crc)
		f.I64Const(1)
		f.Op(w.I64And, w.I64Sub)
		f.I64Const(0xedb88320)
		f.Op(w.I64And)
	})
	f.set(crc, func() { f.Get(crc); f.I64Const(1); f.Op(w.I64ShrU); f.Get(mask); f.Op(w.I64Xor) })
	f.inc(bit, -1)
	f.brIfCmpConst(bit, w.I64Ne, 0, crcBit)
	f.End()
	f.inc(i, 1)
	f.brIfCmp(i, w.I64LtS, n, crcByte)
	f.End()

	// Word hash over the whole 8-byte words.
	f.set(i, func() { f.I64Const(0) })
	done := f.Block()
	hashTest := f.Loop()
	f.Get(i)
	f.I64Const(8)
	f.Op(w.I64Add)
	f.Get(n)
	f.Op(w.I64GtS)
	f.BrIf(done)
	f.set(word, func() { f.addr(i); f.Mem(w.I64Load, 0) })
	f.set(hash, func() {
		f.Get(hash)
		f.Get(word)
		f.Op(w.I64Xor)
		f.I64Const(27)
		f.Op(w.I64Rotl)
		f.I64Const(golden)
		f.Op(w.I64Mul)
		f.Get(word)
		f.Op(w.I64Popcnt, w.I64Add)
	})
	f.inc(i, 8)
	f.Br(hashTest)
	f.End() // hashTest
	f.End() // done
	f.Get(crc)
	f.I64Const(0xffffffff)
	f.Op(w.I64Xor)
	f.Get(hash)
	f.Return()
	f.End() // empty
	f.I64Const(0)
	f.I64Const(0)
}
