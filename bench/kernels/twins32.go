package kernels

import (
	w "github.com/kiln-jit/kiln/bench/wasm"
)

// sieve32(n) counts the primes below n in a byte array flags[0..n) at
// address 0, in i32 arithmetic: the sieve twin with i32 counters and
// addresses, i*i and the multiples compared unsigned.
func sieve32(m *w.Module) {
	m.Memory(16, 16)
	f := newFunc(m, "sieve32", i32, i32)
	n := f.Param(0)
	i, j, count := f.NewLocal(w.I32), f.NewLocal(w.I32), f.NewLocal(w.I32)
	done := f.Block()
	f.brIfCmpConst32(n, w.I32LeS, 2, done)

	// flags[i] = 1 for 0 <= i < n
	fill := f.Loop()
	f.Get(i)
	f.I32Const(1)
	f.Mem(w.I32Store8, 0)
	f.inc32(i, 1)
	f.brIfCmp(i, w.I32LtS, n, fill)
	f.End()

	// for i = 2; i < n; i++: if flags[i], count it and cross out its multiples
	f.set(i, func() { f.I32Const(2) })
	scan := f.Loop()
	next := f.Block()
	f.Get(i)
	f.Mem(w.I32Load8U, 0)
	f.Op(w.I32Eqz)
	f.BrIf(next)
	f.inc32(count, 1)
	f.set(j, func() { f.Get(i); f.Get(i); f.Op(w.I32Mul) })
	f.brIfCmp(j, w.I32GeU, n, next)
	cross := f.Loop()
	f.Get(j)
	f.I32Const(0)
	f.Mem(w.I32Store8, 0)
	f.set(j, func() { f.Get(j); f.Get(i); f.Op(w.I32Add) })
	f.brIfCmp(j, w.I32LtU, n, cross)
	f.End() // cross
	f.End() // next
	f.inc32(i, 1)
	f.brIfCmp(i, w.I32LtS, n, scan)
	f.End() // scan
	f.End() // done
	f.Get(count)
}

// hash32(n, seed) fills n bytes at address 0 from a 32-bit linear
// congruential generator and returns their MurmurHash3 (x86_32): whole
// 4-byte blocks, then the n mod 4 tail bytes, then the finalizer. A
// negative n counts as 0.
func hash32(m *w.Module) {
	m.Memory(4, 4)
	f := newFunc(m, "hash32", i32s(2), i32)
	n, h := f.Param(0), f.Param(1) // the seed is the hash's initial value
	i, x, k, end, tail := f.NewLocal(w.I32), f.NewLocal(w.I32), f.NewLocal(w.I32), f.NewLocal(w.I32), f.NewLocal(w.I32)
	// mulConst does l *= c.
	mulConst := func(l w.Local, c int32) { f.set(l, func() { f.Get(l); f.I32Const(c); f.Op(w.I32Mul) }) }
	// rotl does l = l rotated left by r.
	rotl := func(l w.Local, r int32) { f.set(l, func() { f.Get(l); f.I32Const(r); f.Op(w.I32Rotl) }) }
	// xorInto does dst ^= src.
	xorInto := func(dst, src w.Local) { f.set(dst, func() { f.Get(dst); f.Get(src); f.Op(w.I32Xor) }) }
	// mixK scrambles the block k.
	mixK := func() {
		mulConst(k, -862048943) // 0xcc9e2d51
		rotl(k, 15)
		mulConst(k, 0x1b873593)
	}
	// xorShiftR does h ^= h >> by (unsigned).
	xorShiftR := func(by int32) {
		f.set(h, func() { f.Get(h); f.Get(h); f.I32Const(by); f.Op(w.I32ShrU, w.I32Xor) })
	}
	// xorByte does k ^= mem[i+offset] << shift.
	xorByte := func(offset uint32, shift int32) {
		f.set(k, func() {
			f.Get(k)
			f.Get(i)
			f.Mem(w.I32Load8U, offset)
			if shift != 0 {
				f.I32Const(shift)
				f.Op(w.I32Shl)
			}
			f.Op(w.I32Xor)
		})
	}

	start := f.Block()
	f.brIfCmpConst32(n, w.I32GeS, 0, start)
	f.set(n, func() { f.I32Const(0) })
	f.End() // start

	// Fill: x = x*1664525 + 1013904223; mem[i] = x >> 24.
	f.set(x, func() { f.Get(h); f.I32Const(0x5bd1e995); f.Op(w.I32Xor) })
	f.set(i, func() { f.I32Const(0) })
	blocks := f.Block()
	f.brIfCmpConst32(n, w.I32Eq, 0, blocks)
	fill := f.Loop()
	mulConst(x, 1664525)
	f.set(x, func() { f.Get(x); f.I32Const(1013904223); f.Op(w.I32Add) })
	f.Get(i)
	f.Get(x)
	f.I32Const(24)
	f.Op(w.I32ShrU)
	f.Mem(w.I32Store8, 0)
	f.inc32(i, 1)
	f.brIfCmp(i, w.I32LtU, n, fill)
	f.End() // fill
	f.End() // blocks

	// Body: every whole 4-byte block.
	f.set(end, func() { f.Get(n); f.I32Const(4); f.Op(w.I32DivU) })
	f.set(end, func() { f.Get(end); f.I32Const(2); f.Op(w.I32Shl) })
	f.set(i, func() { f.I32Const(0) })
	tailStart := f.Block()
	f.brIfCmp(i, w.I32GeU, end, tailStart)
	body := f.Loop()
	f.set(k, func() { f.Get(i); f.Mem(w.I32Load, 0) })
	mixK()
	xorInto(h, k)
	rotl(h, 13)
	mulConst(h, 5)
	f.set(h, func() { f.Get(h); f.I32Const(-430675100); f.Op(w.I32Add) }) // 0xe6546b64
	f.inc32(i, 4)
	f.brIfCmp(i, w.I32LtU, end, body)
	f.End() // body
	f.End() // tailStart

	// Tail: the last n mod 4 bytes, little-endian, mixed once.
	f.set(tail, func() { f.Get(n); f.I32Const(4); f.Op(w.I32RemU) })
	f.set(k, func() { f.I32Const(0) })
	final := f.Block()
	f.brIfCmpConst32(tail, w.I32Eq, 0, final)
	tail2 := f.Block()
	f.brIfCmpConst32(tail, w.I32LtU, 3, tail2)
	xorByte(2, 16)
	f.End() // tail2
	tail1 := f.Block()
	f.brIfCmpConst32(tail, w.I32LtU, 2, tail1)
	xorByte(1, 8)
	f.End() // tail1
	xorByte(0, 0)
	mixK()
	xorInto(h, k)
	f.End() // final

	// Finalizer: h ^= n, then fmix32(h).
	xorInto(h, n)
	xorShiftR(16)
	mulConst(h, -2048144789) // 0x85ebca6b
	xorShiftR(13)
	mulConst(h, -1028477387) // 0xc2b2ae35
	xorShiftR(16)
	f.Get(h)
}

// mandel32(size, maxiter) is mandel in single precision with i32
// counters: it iterates z = z^2 + c in f32 over a size x size grid and
// returns the total iteration count and the f32 sum of the final |z|^2.
func mandel32(m *w.Module) {
	f := newFunc(m, "mandel32", i32s(2), []w.ValType{w.I32, w.F32})
	size, maxiter := f.Param(0), f.Param(1)
	x, y, it, total := f.NewLocal(w.I32), f.NewLocal(w.I32), f.NewLocal(w.I32), f.NewLocal(w.I32)
	scale, cr, ci, zr, zi := f.NewLocal(w.F32), f.NewLocal(w.F32), f.NewLocal(w.F32), f.NewLocal(w.F32), f.NewLocal(w.F32)
	zr2, zi2, t, check := f.NewLocal(w.F32), f.NewLocal(w.F32), f.NewLocal(w.F32), f.NewLocal(w.F32)
	square := func(l w.Local) { f.Get(l); f.Get(l); f.Op(w.F32Mul) }

	finish := f.Block()
	f.brIfCmpConst32(size, w.I32LeS, 0, finish)
	f.set(scale, func() { f.F32Const(2.5); f.Get(size); f.Op(w.F32ConvertI32S, w.F32Div) })
	row := f.Loop()
	f.set(ci, func() {
		f.Get(y)
		f.Op(w.F32ConvertI32S)
		f.Get(scale)
		f.Op(w.F32Mul)
		f.F32Const(1.25)
		f.Op(w.F32Sub)
	})
	f.set(x, func() { f.I32Const(0) })
	column := f.Loop()
	f.set(cr, func() {
		f.Get(x)
		f.Op(w.F32ConvertI32S)
		f.Get(scale)
		f.Op(w.F32Mul)
		f.F32Const(2)
		f.Op(w.F32Sub)
	})
	f.set(zr, func() { f.F32Const(0) })
	f.set(zi, func() { f.F32Const(0) })
	f.set(it, func() { f.I32Const(0) })
	pixelDone := f.Block()
	iterate := f.Loop()
	f.brIfCmp(it, w.I32GeS, maxiter, pixelDone) // out of iterations
	f.set(zr2, func() { square(zr) })
	f.set(zi2, func() { square(zi) })
	f.Get(zr2)
	f.Get(zi2)
	f.Op(w.F32Add)
	f.F32Const(4)
	f.Op(w.F32Gt)
	f.BrIf(pixelDone) // |z|^2 > 4: escaped
	f.set(t, func() { f.Get(zr); f.Get(zi); f.Op(w.F32Mul) })
	f.set(zi, func() { f.Get(t); f.Get(t); f.Op(w.F32Add); f.Get(ci); f.Op(w.F32Add) })
	f.set(zr, func() { f.Get(zr2); f.Get(zi2); f.Op(w.F32Sub); f.Get(cr); f.Op(w.F32Add) })
	f.inc32(it, 1)
	f.Br(iterate)
	f.End() // iterate
	f.End() // pixelDone
	f.set(total, func() { f.Get(total); f.Get(it); f.Op(w.I32Add) })
	f.set(check, func() { f.Get(check); square(zr); square(zi); f.Op(w.F32Add, w.F32Add) })
	f.inc32(x, 1)
	f.brIfCmp(x, w.I32LtS, size, column)
	f.End() // column
	f.inc32(y, 1)
	f.brIfCmp(y, w.I32LtS, size, row)
	f.End() // row
	f.End() // finish
	f.Get(total)
	f.Get(check)
}
