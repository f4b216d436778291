package testprogs

import (
	"fmt"
	"math"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// specPerOp is how many WebAssembly specification assertions of each
// 32-bit op (and conversion) InstructionCases includes; TestSpec-style
// tests of each tier run all of them.
const specPerOp = 6

// F32 returns the bits of an f32 value (zero-extended).
func F32(v float32) uint64 { return uint64(math.Float32bits(v)) }

// cases32 returns the cases of the i32 and f32 instructions: a selection of
// the WebAssembly specification assertions for their arithmetic,
// comparisons and conversions, and hand-written cases for what those do
// not cover (constants, moves, select, loads and stores of every width,
// addresses and conditions in i32 registers).
func cases32() []Case {
	var l caseList
	for _, c := range SpecCases(specPerOp) {
		if op := c.Module.Funcs[0].Code[0].Op; op >= bc.OpI32Const {
			l = append(l, c)
		}
	}
	one := func(name string, m *bc.Module, args, want []uint64) {
		l = append(l, Case{Name: name, Module: m, Func: "f", Args: args, Want: want})
	}
	one("i32.const", instrModuleAs(bc.OpI32Const, false, -7, bc.I64, bc.I64), nil, []uint64{0xfffffff9})
	one("f32.const", instrModuleAs(bc.OpF32Const, false, 0x7fa00001, bc.I64, bc.I64), nil, []uint64{0x7fa00001})
	one("mov i32", instrModuleAs(bc.OpMov, false, 0, bc.I32, bc.I64), []uint64{0x80000000}, []uint64{0x80000000})
	one("mov f32 sNaN", instrModuleAs(bc.OpMov, false, 0, bc.F32, bc.I64), []uint64{0x7f800001}, []uint64{0x7f800001})
	for _, t := range []bc.Type{bc.I32, bc.F32} {
		for _, cond := range []bc.Type{bc.I32, bc.I64} {
			m := instrModuleAs(bc.OpSelect, false, 0, t, cond)
			one(fmt.Sprintf("select %s on %s true", t, cond), m, []uint64{1 << 31, 0x7fc00001, 5}, []uint64{0x7fc00001})
			one(fmt.Sprintf("select %s on %s false", t, cond), m, []uint64{0, 0x7fc00001, 5}, []uint64{5})
		}
	}
	for _, op := range []bc.Op{bc.OpI64Eq, bc.OpI32LtU, bc.OpF32Lt, bc.OpF64Gt} {
		// Comparisons writing an i32 destination.
		m := instrModuleAs(op, false, 0, bc.I64, bc.I32)
		a, b := uint64(1), uint64(2)
		switch op {
		case bc.OpF32Lt:
			a, b = F32(1), F32(2)
		case bc.OpF64Gt:
			a, b = F(1), F(2)
		}
		want := uint64(0)
		if op == bc.OpI32LtU || op == bc.OpF32Lt {
			want = 1
		}
		one(fmt.Sprintf("%s to i32", op), m, []uint64{a, b}, []uint64{want})
	}

	// memory.grow into an i32 register: the old size, or -1 as 0xFFFFFFFF.
	// Extended to i64 afterwards, so that stale upper bits would show.
	b := bc.NewModuleBuilder().Memory(1, 2)
	fb := b.Func("f", []bc.Type{bc.I32}, []bc.Type{bc.I64})
	old, wide := fb.NewReg(bc.I32), fb.NewReg(bc.I64)
	fb.MemoryGrow(old, 0)
	fb.Unary(bc.OpI64ExtendI32U, wide, old)
	fb.Return(wide)
	b.Export("f", fb)
	grow, err := b.Build()
	if err != nil {
		panic(fmt.Sprintf("testprogs: memory.grow module: %v", err))
	}
	one("memory.grow i32 fails", grow, []uint64{5}, []uint64{math.MaxUint32})
	one("memory.grow i32 grows", grow, []uint64{1}, []uint64{1})

	// Loads and stores, with the address in an i64 and in an i32 register.
	for _, addrType := range []bc.Type{bc.I64, bc.I32} {
		load := func(op bc.Op, addr uint64, off int64, want uint64) {
			l = append(l, Case{
				Name:   fmt.Sprintf("%s [%s %#x%+d]", op, addrType, addr, off),
				Module: instrModuleAs(op, false, off, bc.I64, addrType),
				Func:   "f", Args: []uint64{addr}, Want: []uint64{want},
			})
		}
		loadTrap := func(op bc.Op, addr uint64, off int64) {
			l = append(l, Case{
				Name:   fmt.Sprintf("%s [%s %#x%+d] traps", op, addrType, addr, off),
				Module: instrModuleAs(op, false, off, bc.I64, addrType),
				Func:   "f", Args: []uint64{addr}, Trap: bc.TrapOutOfBounds,
			})
		}
		load(bc.OpI32Load8S, 0, 0, 0xffffff81)
		load(bc.OpI32Load8U, 0, 0, 0x81)
		load(bc.OpI32Load16S, 1, 0, 0xffff8382)
		load(bc.OpI32Load16U, 0, 1, 0x8382)
		load(bc.OpI32Load, 3, 0, 0x87868584)
		load(bc.OpF32Load, 4, 0, 0x88878685)
		load(bc.OpI32Load, pageEnd-4, 0, 0xf8f7f6f5)
		load(bc.OpI64Load, 5, 0, 0x8d8c8b8a89888786)
		loadTrap(bc.OpI32Load, pageEnd-3, 0)
		loadTrap(bc.OpF32Load, pageEnd, -3)
		loadTrap(bc.OpI32Load8U, pageEnd, 0)
		if addrType == bc.I32 {
			// An i32 address is unsigned: 0xffffffff is 4 GiB - 1, not -1.
			loadTrap(bc.OpI32Load8U, 0xffffffff, 1)
			loadTrap(bc.OpI32Load16U, 0xfffffffe, 0)
		}

		store := func(op bc.Op, addr uint64, off int64, val uint64, at uint32, want []byte) {
			l = append(l, Case{
				Name:   fmt.Sprintf("%s [%s %#x%+d] = %#x", op, addrType, addr, off, val),
				Module: instrModuleAs(op, false, off, bc.I64, addrType),
				Func:   "f", Args: []uint64{addr, val}, Want: []uint64{},
				Memory: map[uint32][]byte{at: want},
			})
		}
		store(bc.OpI32Store8, 20, 0, 0x1ff, 19, []byte{0, 0xff, 0})
		store(bc.OpI32Store16, 21, 0, 0xabcdef, 20, []byte{0, 0xef, 0xcd, 0})
		store(bc.OpI32Store, 3, 0, 0x11223344, 2, []byte{0x83, 0x44, 0x33, 0x22, 0x11, 0x88})
		store(bc.OpF32Store, 33, -2, F32(1.0), 30, []byte{0, 0, 0, 0x80, 0x3f, 0})
		store(bc.OpF32Store, 40, 0, 0x7f800001, 40, []byte{0x01, 0, 0x80, 0x7f}) // a signalling NaN is stored as is
		for _, op := range []bc.Op{bc.OpI32Store8, bc.OpI32Store16, bc.OpI32Store, bc.OpF32Store} {
			size := op.Info().Size
			l = append(l, Case{
				Name:   fmt.Sprintf("%s [%s] overhanging the end traps", op, addrType),
				Module: instrModuleAs(op, false, 1, bc.I64, addrType),
				Func:   "f", Args: []uint64{uint64(pageEnd - size), math.MaxUint32},
				Trap:   bc.TrapOutOfBounds,
				Memory: map[uint32][]byte{pageEnd - 8: memTail},
			})
		}
	}
	return l
}
