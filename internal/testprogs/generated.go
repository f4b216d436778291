package testprogs

import (
	"math/rand/v2"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// GeneratedModule builds a module with one exported function "gen" of
// about n bytecode instructions for compile-time scaling measurements:
// runs of integer and float arithmetic, loads and stores over 32
// registers, cut into blocks by forward branches, with a counted loop
// around every few blocks and a call of a small helper now and then, so
// the back end sees joins, back edges, register pressure, memory
// dependences and calls throughout. The same n and seed give the same
// module.
func GeneratedModule(n int, seed uint64) *bc.Module {
	r := rand.New(rand.NewPCG(seed, 1))
	b := bc.NewModuleBuilder().Memory(1, 1)
	h := b.Func("mix", []bc.Type{bc.I64, bc.I64}, []bc.Type{bc.I64})
	h.Binary(bc.OpI64Xor, 0, 0, 1)
	h.Return(0)
	f := b.Func("gen", []bc.Type{bc.I64}, []bc.Type{bc.I64})
	var ints, floats []bc.Reg
	ints = append(ints, f.Param(0))
	for len(ints) < 24 {
		ints = append(ints, f.NewReg(bc.I64))
	}
	for len(floats) < 8 {
		floats = append(floats, f.NewReg(bc.F64))
	}
	ri := func() bc.Reg { return ints[r.IntN(len(ints))] }
	rf := func() bc.Reg { return floats[r.IntN(len(floats))] }
	intOps := []bc.Op{bc.OpI64Add, bc.OpI64Sub, bc.OpI64Mul, bc.OpI64And, bc.OpI64Or, bc.OpI64Xor, bc.OpI64Shl, bc.OpI64ShrU}
	floatOps := []bc.Op{bc.OpF64Add, bc.OpF64Sub, bc.OpF64Mul}
	counter := f.NewReg(bc.I64)
	for f.Len() < n {
		// A loop of a few blocks.
		f.I64Const(counter, 0)
		loop := f.NewLabel()
		f.Bind(loop)
		for blk := 0; blk < 4; blk++ {
			skip := f.NewLabel()
			for k := 0; k < 6; k++ {
				switch x := r.IntN(40); {
				case x < 20:
					if r.IntN(2) == 0 {
						f.Binary(intOps[r.IntN(len(intOps))], ri(), ri(), ri())
					} else {
						f.BinaryImm(intOps[r.IntN(len(intOps))], ri(), ri(), int64(r.IntN(100)))
					}
				case x < 28:
					f.Binary(floatOps[r.IntN(len(floatOps))], rf(), rf(), rf())
				case x < 32:
					f.Unary(bc.OpF64ConvertI64S, rf(), ri())
				case x < 35:
					a := ri()
					f.BinaryImm(bc.OpI64And, a, a, 0xff0)
					f.Load(bc.OpI64Load, ri(), a, 8)
				case x < 39:
					a := ri()
					f.BinaryImm(bc.OpI64And, a, a, 0xff0)
					f.Store(bc.OpI64Store, a, ri(), 0)
				default:
					f.Call(h.Index(), []bc.Reg{ri(), ri()}, []bc.Reg{ri()})
				}
			}
			f.BrCmp(bc.OpBrLtS, ri(), ri(), skip)
			f.BinaryImm(bc.OpI64Add, ri(), ri(), 1)
			f.Bind(skip)
		}
		f.BinaryImm(bc.OpI64Add, counter, counter, 1)
		f.BrCmpImm(bc.OpBrLtS, counter, 3, loop)
	}
	f.Return(ints[1])
	b.Export("gen", f)
	m, err := b.Build()
	if err != nil {
		panic(err)
	}
	return m
}
