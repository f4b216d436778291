package bf

import (
	bc "github.com/kiln-jit/kiln/bytecode"
)

// Kiln translates ops to a kiln bytecode module: one memory page for the
// tape, host imports putc (i64) -> () and getc () -> (i64), and the
// exported function run () -> ().
func Kiln(ops []Op) (*bc.Module, error) {
	b := bc.NewModuleBuilder().Memory(1, 1)
	putc := b.Host("putc", []bc.Type{bc.I64}, nil)
	getc := b.Host("getc", nil, []bc.Type{bc.I64})
	f := b.Func("run", nil, nil)
	g := kilnGen{f: f, putc: putc, getc: getc, ptr: f.NewReg(bc.I64), cell: f.NewReg(bc.I64)}
	g.emit(ops)
	f.Return()
	b.Export("run", f)
	return b.Build()
}

type kilnGen struct {
	f          *bc.FuncBuilder
	putc, getc uint32
	ptr, cell  bc.Reg // the pointer (a cell's address) and a cell's value
}

func (g *kilnGen) emit(ops []Op) {
	f := g.f
	for _, op := range ops {
		switch op.Kind {
		case Add:
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BinaryImm(bc.OpI64Add, g.cell, g.cell, int64(op.N))
			f.Store(bc.OpI64Store8, g.ptr, g.cell, 0)
		case Move:
			f.BinaryImm(bc.OpI64Add, g.ptr, g.ptr, int64(op.N))
		case Out:
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.CallHost(g.putc, []bc.Reg{g.cell}, nil)
		case In:
			eof := f.NewLabel()
			f.CallHost(g.getc, nil, []bc.Reg{g.cell})
			f.BrCmpImm(bc.OpBrLtS, g.cell, 0, eof)
			f.Store(bc.OpI64Store8, g.ptr, g.cell, 0)
			f.Bind(eof)
		case Loop:
			body, end := f.NewLabel(), f.NewLabel()
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrEq, g.cell, 0, end)
			f.Bind(body)
			g.emit(op.Body)
			f.Load(bc.OpI64Load8U, g.cell, g.ptr, 0)
			f.BrCmpImm(bc.OpBrNe, g.cell, 0, body)
			f.Bind(end)
		}
	}
}
