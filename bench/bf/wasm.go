package bf

import (
	"github.com/kiln-jit/kiln/bench/wasm"
)

// Wasm translates ops to a WebAssembly 1.0 module: one memory page for the
// tape, imports env.putc (i32) -> () and env.getc () -> (i32), and the
// exported function run () -> ().
func Wasm(ops []Op) ([]byte, error) {
	m := wasm.NewModule()
	putc := m.ImportFunc("env", "putc", []wasm.ValType{wasm.I32}, nil)
	getc := m.ImportFunc("env", "getc", nil, []wasm.ValType{wasm.I32})
	m.Memory(1, 1)
	f := m.Func(nil, nil)
	g := wasmGen{f: f, putc: putc, getc: getc, ptr: f.NewLocal(wasm.I32), cell: f.NewLocal(wasm.I32)}
	g.emit(ops)
	m.Export("run", f)
	return m.Encode()
}

type wasmGen struct {
	f          *wasm.Func
	putc, getc uint32
	ptr, cell  wasm.Local
}

// load pushes the cell under the pointer.
func (g *wasmGen) load() {
	g.f.Get(g.ptr)
	g.f.Mem(wasm.I32Load8U, 0)
}

func (g *wasmGen) emit(ops []Op) {
	f := g.f
	for _, op := range ops {
		switch op.Kind {
		case Add:
			f.Get(g.ptr)
			g.load()
			f.I32Const(int32(op.N))
			f.Op(wasm.I32Add)
			f.Mem(wasm.I32Store8, 0)
		case Move:
			f.Get(g.ptr)
			f.I32Const(int32(op.N))
			f.Op(wasm.I32Add)
			f.Set(g.ptr)
		case Out:
			g.load()
			f.Call(g.putc)
		case In:
			f.Call(g.getc)
			f.Tee(g.cell)
			f.I32Const(0)
			f.Op(wasm.I32GeS)
			f.If()
			f.Get(g.ptr)
			f.Get(g.cell)
			f.Mem(wasm.I32Store8, 0)
			f.End()
		case Loop:
			end := f.Block()
			g.load()
			f.Op(wasm.I32Eqz)
			f.BrIf(end)
			body := f.Loop()
			g.emit(op.Body)
			g.load()
			f.BrIf(body)
			f.End()
			f.End()
		}
	}
}
