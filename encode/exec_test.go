package encode

import (
	"context"
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/internal/floatbits"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/runtime"
)

// The tests of this file run encoded code: each builds a small SSA
// function, allocates it with the baseline allocator, encodes, installs
// and calls it on a thread, and compares its results with the mir
// interpreter's (or with known values). The interpreter is the reference
// the back end is tested against, so these tests check that it describes
// the machine, NaN bits and flags included.

// execMemSize is the size of the linear memory of the executed code (the
// interpreter's one page).
const execMemSize = 1 << 16

// execHarness runs encoded functions: a thread whose context points at a
// Go byte slice as linear memory.
type execHarness struct {
	th   *runtime.Thread
	stub *runtime.Code
	mem  []byte
}

func newExecHarness(t *testing.T) *execHarness {
	t.Helper()
	if !runtime.Supported() {
		t.Skip("compiled code is not supported here")
	}
	b, err := ExitStub()
	if err != nil {
		t.Fatal(err)
	}
	stub, err := runtime.Install([]runtime.Part{{Bytes: b}})
	if err != nil {
		t.Fatal(err)
	}
	th, err := runtime.NewThread(1<<16, stub.Addr(0), 0)
	if err != nil {
		t.Fatal(err)
	}
	h := &execHarness{th: th, stub: stub, mem: make([]byte, execMemSize)}
	// Go does not move heap objects; h keeps the slice alive while code
	// may access it.
	th.Ctx.MemBase = uintptr(unsafe.Pointer(&h.mem[0]))
	th.Ctx.MemLen = execMemSize
	for i := range th.Ctx.MemBound {
		th.Ctx.MemBound[i] = mir.MemBound(mir.CtxMemBound1+mir.CtxField(i), execMemSize)
	}
	return h
}

// execFeature reports whether the CPU has an op's feature; encoded code
// must not run without it (LZCNT, for one, runs as BSR).
func execFeature(op mir.Op) bool {
	switch op.Info().Feature {
	case "lzcnt", "bmi1":
		return cpu.X86.HasBMI1 // as lower.FullTarget decides
	case "popcnt":
		return cpu.X86.HasPOPCNT
	case "sse4.1":
		return cpu.X86.HasSSE41
	}
	return true
}

// execCompiled is an installed function.
type execCompiled struct {
	f    *mir.Func
	code *runtime.Code
}

// install allocates, encodes and installs the SSA function f.
func (h *execHarness) install(t *testing.T, f *mir.Func) *execCompiled {
	t.Helper()
	if err := mir.Verify(f); err != nil {
		t.Fatalf("test function: %v", err)
	}
	af, err := alloc.Baseline(f)
	if err != nil {
		t.Fatal(err)
	}
	code, err := Func(af)
	if err != nil {
		t.Fatal(err)
	}
	relocs := make([]runtime.Reloc, len(code.Relocs))
	for i, r := range code.Relocs {
		relocs[i] = runtime.Reloc{Offset: r.Offset, Target: r.Target}
	}
	c, err := runtime.Install([]runtime.Part{{Bytes: code.Bytes, Relocs: relocs}})
	if err != nil {
		t.Fatal(err)
	}
	return &execCompiled{f: f, code: c}
}

// call runs c with args in their calling-convention registers and returns
// its results, which must be in registers too.
func (h *execHarness) call(t *testing.T, c *execCompiled, args ...uint64) []uint64 {
	t.Helper()
	ctx := h.th.Ctx
	ctx.JitSP = h.th.StackTop()
	for i, l := range mir.ArgLocations(c.f.Params, true) {
		h.setReg(t, l, args[i])
	}
	h.th.Enter(c.code.Addr(0))
	if ctx.ExitCode != ExitDone {
		t.Fatalf("%s exited with code %d", c.f.Name, ctx.ExitCode)
	}
	var res []uint64
	for _, l := range mir.ResultLocations(c.f.Params, c.f.Results, true) {
		res = append(res, h.reg(t, l))
	}
	return res
}

func (h *execHarness) setReg(t *testing.T, r mir.Reg, v uint64) {
	switch {
	case r >= mir.RAX && r <= mir.R15:
		h.th.Ctx.Regs[r-mir.RAX] = v
	case r >= mir.X0 && r <= mir.X15:
		h.th.Ctx.XRegs[r-mir.X0] = v
	default:
		t.Fatalf("argument in %s", r)
	}
}

func (h *execHarness) reg(t *testing.T, r mir.Reg) uint64 {
	switch {
	case r >= mir.RAX && r <= mir.R15:
		return h.th.Ctx.Regs[r-mir.RAX]
	case r >= mir.X0 && r <= mir.X15:
		return h.th.Ctx.XRegs[r-mir.X0]
	}
	t.Fatalf("result in %s", r)
	return 0
}

// execRef runs a function in the mir interpreter, with a memory of
// execMemSize bytes.
type execRef struct {
	f *mir.Func
	m *mir.Machine
}

func newExecRef(t *testing.T, f *mir.Func) *execRef {
	t.Helper()
	m, err := mir.NewMachine([]*mir.Func{f}, interp.Config{}, nil, interp.NewMemory(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Memory.Bytes) != execMemSize {
		t.Fatalf("interpreter memory of %d bytes", len(m.Memory.Bytes))
	}
	return &execRef{f: f, m: m}
}

func (r *execRef) call(t *testing.T, args ...uint64) []uint64 {
	t.Helper()
	res := make([]uint64, len(r.f.Results))
	if err := r.m.Call(context.Background(), 0, args, res); err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	return res
}

// execOpFunc returns an SSA function that runs one instruction of op on
// its arguments (its value uses, in order) and returns its first ndefs
// defs. A memory operand addresses [memory base + 3*scale + imm].
func execOpFunc(op mir.Op, imm int64, scale uint8, aux int32, ndefs int) (f *mir.Func, memOff int) {
	info := op.Info()
	f = mir.NewFunc(op.String(), 0, nil, nil)
	b := f.NewBlock()
	var setup []*mir.Instr
	in := &mir.Instr{Op: op, Imm: imm, Scale: scale, Aux: aux, Pos: -1}
	for _, s := range info.Uses {
		r := f.NewVReg(s.Class)
		switch s.Role {
		case mir.RoleMemBase:
			setup = append(setup, &mir.Instr{Op: mir.OpCtxLoad, Defs: []mir.Reg{r}, Aux: int32(mir.CtxMemBase), Pos: -1})
		case mir.RoleMemIndex:
			setup = append(setup, &mir.Instr{Op: mir.OpMOVQconst, Defs: []mir.Reg{r}, Imm: 3, Pos: -1})
			memOff = 3*int(scale) + int(imm)
		default:
			f.Params = append(f.Params, s.Class)
			b.Append(&mir.Instr{Op: mir.OpArg, Defs: []mir.Reg{r}, Aux: int32(len(f.Params) - 1), Pos: -1})
		}
		in.Uses = append(in.Uses, r)
	}
	for _, s := range info.Defs {
		in.Defs = append(in.Defs, f.NewVReg(s.Class))
	}
	for i := range ndefs {
		f.Results = append(f.Results, info.Defs[i].Class)
	}
	for _, x := range setup {
		b.Append(x)
	}
	b.Append(in)
	b.Append(&mir.Instr{Op: mir.OpRET, Uses: in.Defs[:ndefs], Pos: -1})
	return f, memOff
}

// execCondsFunc returns an SSA function that runs the flag producer op on
// its arguments and returns a mask with bit c set when condition c holds
// afterwards (all eighteen conditions, or only E and NE for the producers
// that define only ZF).
func execCondsFunc(op mir.Op, imm int64, onlyZF bool) *mir.Func {
	info := op.Info()
	f := mir.NewFunc(op.String()+".conds", 0, nil, []mir.Class{mir.GPR})
	b := f.NewBlock()
	in := &mir.Instr{Op: op, Imm: imm, Pos: -1}
	for _, s := range info.Uses {
		r := f.NewVReg(s.Class)
		f.Params = append(f.Params, s.Class)
		b.Append(&mir.Instr{Op: mir.OpArg, Defs: []mir.Reg{r}, Aux: int32(len(f.Params) - 1), Pos: -1})
		in.Uses = append(in.Uses, r)
	}
	for _, s := range info.Defs {
		in.Defs = append(in.Defs, f.NewVReg(s.Class))
	}
	b.Append(in)
	conds := []mir.Cond{mir.CondE, mir.CondNE}
	if !onlyZF {
		conds = conds[:0]
		for c := mir.CondO; c <= mir.CondFNE; c++ {
			conds = append(conds, c)
		}
	}
	var bits []mir.Reg
	for _, c := range conds {
		r := f.NewVReg(mir.GPR)
		b.Append(&mir.Instr{Op: mir.OpSETCC, Defs: []mir.Reg{r}, Cond: c, Pos: -1})
		bits = append(bits, r)
	}
	acc := f.NewVReg(mir.GPR)
	b.Append(&mir.Instr{Op: mir.OpMOVQconst, Defs: []mir.Reg{acc}, Pos: -1})
	for i, r := range bits {
		sh, or := f.NewVReg(mir.GPR), f.NewVReg(mir.GPR)
		b.Append(&mir.Instr{Op: mir.OpSHLQconst, Defs: []mir.Reg{sh}, Uses: []mir.Reg{r}, Imm: int64(conds[i]), Pos: -1})
		b.Append(&mir.Instr{Op: mir.OpORQ, Defs: []mir.Reg{or}, Uses: []mir.Reg{acc, sh}, Pos: -1})
		acc = or
	}
	b.Append(&mir.Instr{Op: mir.OpRET, Uses: []mir.Reg{acc}, Pos: -1})
	return f
}

// execInts returns interesting and random integers; their upper halves
// test that the 32-bit ops ignore them.
func execInts(r *rand.Rand, n int) []uint64 {
	out := []uint64{0, 1, 2, 31, 32, 33, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x7fffffff, 0x80000000, 0xffffffff,
		0x1_00000000, 0xffffffff_00000001, 0x80000000_80000000, 0x7fffffffffffffff, 0x8000000000000000,
		math.MaxUint64, 1<<63 + 1, 1<<24 + 1, 1<<53 + 1, 0xffffff7fffffffff}
	for len(out) < n {
		v := r.Uint64()
		switch r.IntN(4) {
		case 0:
			v >>= r.IntN(64)
		case 1:
			v = uint64(int64(v) >> r.IntN(64))
		}
		out = append(out, v)
	}
	return out
}

// execF64s returns interesting and random f64 bit patterns, NaNs with
// payloads among them.
func execF64s(r *rand.Rand, n int) []uint64 {
	out := []uint64{0x7FF8000000000001, 0x7FF0000000000002, 0xFFF8000000000123, 0xFFF4000000000003,
		0x7FF0000020000001, 0xFFFFFFFFFFFFFFFF}
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, math.Inf(1), math.Inf(-1),
		1e300, -1e300, 9.2233720368547758e18, 1.8446744073709552e19, 2147483647.5, -2147483648.5, 2147483648,
		-2147483649, 3.4028235677973366e38, 3.402823669209385e38, 1e-45, 7e-46, 1.401298464324817e-45, 4503599627370496.5} {
		out = append(out, math.Float64bits(v))
	}
	for len(out) < n {
		switch r.IntN(3) {
		case 0:
			out = append(out, r.Uint64())
		case 1:
			out = append(out, math.Float64bits((r.Float64()-0.5)*math.Pow(2, float64(r.IntN(140)-20))))
		default:
			out = append(out, math.Float64bits(float64(r.IntN(2000)-1000)/4))
		}
	}
	return out
}

// execF32s returns interesting and random f32 bit patterns in the low
// halves of words with random upper halves.
func execF32s(r *rand.Rand, n int) []uint64 {
	var out []uint64
	for _, v := range []uint32{0x7FC00001, 0x7F800002, 0xFFC00123, 0xFFA00003, 0xFFFFFFFF, 0, 0x80000000, 0x7F800000,
		0xFF800000, 0x7F7FFFFF, 0x00000001, 0x80000001, 0x00800000} {
		out = append(out, uint64(v))
	}
	for _, v := range []float32{1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3, 1 << 24, 16777217, 8388608.5, 2147483648, -2147483648} {
		out = append(out, uint64(math.Float32bits(v)))
	}
	for len(out) < n {
		switch r.IntN(3) {
		case 0:
			out = append(out, uint64(r.Uint32()))
		case 1:
			out = append(out, uint64(math.Float32bits(float32((r.Float64()-0.5)*math.Pow(2, float64(r.IntN(70)-20))))))
		default:
			out = append(out, uint64(math.Float32bits(float32(r.IntN(2000)-1000)/4)))
		}
	}
	for i := range out {
		out[i] |= r.Uint64() << 32
	}
	return out
}

// execF32Results lists the ops whose result is an f32: only its low 32
// bits are defined in compiled code.
var execF32Results = map[mir.Op]bool{
	mir.OpMOVSSconst: true, mir.OpMOVSSload: true, mir.OpADDSS: true, mir.OpSUBSS: true, mir.OpMULSS: true,
	mir.OpDIVSS: true, mir.OpSQRTSS: true, mir.OpMINSS: true, mir.OpMAXSS: true, mir.OpROUNDSS: true,
	mir.OpMOVL2X: true, mir.OpCVTSD2SS: true, mir.OpCVTSL2SS: true, mir.OpCVTSQ2SS: true, mir.OpCVTUQ2SS: true,
}

// TestCompiledOpsMatchInterpreter runs each 32-bit and f32 op, and the f64
// arithmetic whose NaN results the interpreter defines, as compiled code
// and in the mir interpreter on the same operands and compares every
// result bit: 64 bits for GPR results (the 32-bit ops must zero the upper
// half) and for f64 results, the low 32 bits for f32 results. Operands of
// 32-bit ops and f32 operands carry garbage in their upper halves.
func TestCompiledOpsMatchInterpreter(t *testing.T) {
	h := newExecHarness(t)
	r := rand.New(rand.NewPCG(21, 22))
	const (
		ints = iota
		f64s
		f32s
	)
	type opCase struct {
		op    mir.Op
		imm   int64
		scale uint8
		aux   int32
		ndefs int
		kind  int // operands
	}
	cases := []opCase{
		{op: mir.OpADDL}, {op: mir.OpSUBL}, {op: mir.OpANDL}, {op: mir.OpORL}, {op: mir.OpXORL}, {op: mir.OpIMULL},
		{op: mir.OpADDLconst, imm: -7}, {op: mir.OpSUBLconst, imm: math.MinInt32}, {op: mir.OpANDLconst, imm: -256},
		{op: mir.OpORLconst, imm: 0x40000001}, {op: mir.OpXORLconst, imm: -1},
		{op: mir.OpNEGL}, {op: mir.OpNOTL},
		{op: mir.OpSHLL}, {op: mir.OpSHRL}, {op: mir.OpSARL}, {op: mir.OpROLL}, {op: mir.OpRORL},
		{op: mir.OpSHLLconst, imm: 31}, {op: mir.OpSHRLconst, imm: 1}, {op: mir.OpSARLconst, imm: 17},
		{op: mir.OpROLLconst, imm: 0}, {op: mir.OpRORLconst, imm: 5},
		{op: mir.OpIMUL3Lconst, imm: -3}, {op: mir.OpLEAL, imm: -1000}, {op: mir.OpLEALidx, imm: 24, scale: 8},
		{op: mir.OpIDIVL, ndefs: 2}, {op: mir.OpDIVL, ndefs: 2},
		{op: mir.OpLZCNTL}, {op: mir.OpTZCNTL}, {op: mir.OpPOPCNTL}, {op: mir.OpBSRL}, {op: mir.OpBSFL},
		{op: mir.OpMOVBLSX}, {op: mir.OpMOVWLSX},
		{op: mir.OpMOVBLSXload, imm: 5, scale: 4}, {op: mir.OpMOVWLSXload, imm: -1, scale: 8},
		{op: mir.OpMOVSSconst, imm: 0x7F800002}, {op: mir.OpMOVSSconst, imm: 0}, {op: mir.OpMOVSSconst, imm: 0xFFFFFFFF},
		{op: mir.OpMOVSSload, imm: 2, scale: 2, kind: f32s},
		{op: mir.OpADDSS, kind: f32s}, {op: mir.OpSUBSS, kind: f32s}, {op: mir.OpMULSS, kind: f32s},
		{op: mir.OpDIVSS, kind: f32s}, {op: mir.OpSQRTSS, kind: f32s},
		{op: mir.OpMINSS, kind: f32s}, {op: mir.OpMAXSS, kind: f32s},
		{op: mir.OpROUNDSS, aux: mir.RoundNearest, kind: f32s}, {op: mir.OpROUNDSS, aux: mir.RoundFloor, kind: f32s},
		{op: mir.OpROUNDSS, aux: mir.RoundCeil, kind: f32s}, {op: mir.OpROUNDSS, aux: mir.RoundTrunc, kind: f32s},
		{op: mir.OpMOVL2X}, {op: mir.OpMOVX2L, kind: f32s},
		{op: mir.OpCVTSS2SD, kind: f32s}, {op: mir.OpCVTSD2SS, kind: f64s}, {op: mir.OpCVTSL2SS}, {op: mir.OpCVTSQ2SS},
		{op: mir.OpCVTUQ2SS}, {op: mir.OpCVTSL2SD}, {op: mir.OpCVTTSD2SL, kind: f64s},

		{op: mir.OpADDSD, kind: f64s}, {op: mir.OpSUBSD, kind: f64s}, {op: mir.OpMULSD, kind: f64s},
		{op: mir.OpDIVSD, kind: f64s}, {op: mir.OpADDSDload, imm: 8, scale: 1, kind: f64s},
		{op: mir.OpSUBSDload, imm: 8, scale: 2, kind: f64s}, {op: mir.OpMULSDload, imm: 8, scale: 4, kind: f64s},
		{op: mir.OpDIVSDload, imm: 8, scale: 8, kind: f64s}, {op: mir.OpSQRTSD, kind: f64s},
		{op: mir.OpMINSD, kind: f64s}, {op: mir.OpMAXSD, kind: f64s},
		{op: mir.OpROUNDSD, aux: mir.RoundNearest, kind: f64s}, {op: mir.OpROUNDSD, aux: mir.RoundFloor, kind: f64s},
		{op: mir.OpROUNDSD, aux: mir.RoundCeil, kind: f64s}, {op: mir.OpROUNDSD, aux: mir.RoundTrunc, kind: f64s},
		{op: mir.OpCVTUQ2SD},
	}
	for _, c := range cases {
		t.Run(c.op.String(), func(t *testing.T) {
			if !execFeature(c.op) {
				t.Skipf("the CPU lacks %s", c.op.Info().Feature)
			}
			f, memOff := execOpFunc(c.op, c.imm, c.scale, c.aux, max(c.ndefs, 1))
			code, ref := h.install(t, f), newExecRef(t, f)
			var ops []uint64
			switch c.kind {
			case f64s:
				ops = execF64s(r, 40)
			case f32s:
				ops = execF32s(r, 40)
			default:
				ops = execInts(r, 40)
			}
			n := 0
			for i, a := range ops {
				for j := 0; j < len(ops); j += 1 + i%2 {
					b := ops[j]
					x, y := a, b // the value operands and memory's value
					switch c.op {
					case mir.OpIDIVL:
						if uint32(b) == 0 || (int32(a) == math.MinInt32 && int32(b) == -1) {
							continue // #DE; lowering excludes these
						}
					case mir.OpDIVL:
						if uint32(b) == 0 {
							continue
						}
					case mir.OpBSRL, mir.OpBSFL:
						if uint32(a) == 0 {
							continue // undefined result
						}
					}
					args := []uint64{x, y}[:len(f.Params)]
					hasMem := c.op.Info().HasMem && c.op != mir.OpLEALidx
					if hasMem {
						binary.LittleEndian.PutUint64(ref.m.Memory.Bytes[memOff:], b)
						binary.LittleEndian.PutUint64(h.mem[memOff:], b)
						if len(f.Params) == 0 {
							args = nil
						}
					}
					want := ref.call(t, args...)
					got := h.call(t, code, args...)
					for k := range want {
						w, g := want[k], got[k]
						if execF32Results[c.op] {
							if w>>32 != 0 {
								t.Fatalf("%s(%#x, %#x): the interpreter's f32 result %#x has upper bits", c.op, a, b, w)
							}
							g = uint64(uint32(g))
						}
						if g != w {
							t.Fatalf("%s(%#x, %#x) def %d: compiled %#x, interpreter %#x", c.op, a, b, k, g, w)
						}
					}
					n++
					if len(f.Params) == 0 && !hasMem {
						break // a constant: one run is enough
					}
				}
				if len(f.Params) == 0 && !c.op.Info().HasMem {
					break
				}
			}
			if n == 0 {
				t.Fatal("no operands tested")
			}
		})
	}
}

// TestCompiledStoresMatchInterpreter checks MOVSSstore stores the low 32
// bits of its XMM operand and nothing else, as the interpreter does.
func TestCompiledStoresMatchInterpreter(t *testing.T) {
	h := newExecHarness(t)
	f, memOff := execOpFunc(mir.OpMOVSSstore, 12, 4, 0, 0)
	code, ref := h.install(t, f), newExecRef(t, f)
	mem := ref.m.Memory.Bytes
	r := rand.New(rand.NewPCG(23, 24))
	for _, v := range execF32s(r, 20) {
		for i := range 64 {
			mem[i], h.mem[i] = 0xaa, 0xaa
		}
		ref.call(t, v)
		h.call(t, code, v)
		if string(h.mem[:64]) != string(mem[:64]) {
			t.Fatalf("MOVSSstore %#x at %d: compiled % x\ninterpreter % x", v, memOff, h.mem[:64], mem[:64])
		}
		if got := binary.LittleEndian.Uint32(mem[memOff:]); got != uint32(v) {
			t.Fatalf("MOVSSstore %#x stored %#x", v, got)
		}
	}
}

// TestCompiledFlagsMatchInterpreter runs each 32-bit flag producer,
// UCOMISS and UCOMISD followed by SETCC of every condition, compiled and
// interpreted. All the SETCCs read the flags of the one producer, so an
// expansion of SETCC that wrote the flags would show.
func TestCompiledFlagsMatchInterpreter(t *testing.T) {
	h := newExecHarness(t)
	r := rand.New(rand.NewPCG(25, 26))
	ints, f64s, f32s := execInts(r, 24), execF64s(r, 24), execF32s(r, 24)
	for _, c := range []struct {
		op     mir.Op
		imm    int64
		onlyZF bool
	}{
		{op: mir.OpCMPL}, {op: mir.OpCMPLconst, imm: -1}, {op: mir.OpCMPLconst, imm: 0x7fffffff},
		{op: mir.OpTESTL}, {op: mir.OpTESTLconst, imm: 0x81},
		{op: mir.OpADDL}, {op: mir.OpSUBL}, {op: mir.OpANDL}, {op: mir.OpORL}, {op: mir.OpXORL}, {op: mir.OpNEGL},
		{op: mir.OpADDLconst, imm: -5}, {op: mir.OpSUBLconst, imm: math.MinInt32}, {op: mir.OpANDLconst, imm: -2},
		{op: mir.OpORLconst, imm: 0x40}, {op: mir.OpXORLconst, imm: -1},
		{op: mir.OpBSRL, onlyZF: true}, {op: mir.OpBSFL, onlyZF: true},
		{op: mir.OpUCOMISS}, {op: mir.OpUCOMISD},
	} {
		t.Run(c.op.String(), func(t *testing.T) {
			f := execCondsFunc(c.op, c.imm, c.onlyZF)
			code, ref := h.install(t, f), newExecRef(t, f)
			ops := ints
			switch c.op {
			case mir.OpUCOMISS:
				ops = f32s
			case mir.OpUCOMISD:
				ops = f64s
			}
			for _, a := range ops {
				for _, b := range ops {
					args := []uint64{a, b}[:len(f.Params)]
					want := ref.call(t, args...)
					got := h.call(t, code, args...)
					if got[0] != want[0] {
						t.Fatalf("%s(%#x, %#x): conditions compiled %#x, interpreter %#x", c.op, a, b, got[0], want[0])
					}
				}
			}
		})
	}
}

// execBinary installs a function computing op on two arguments.
func execBinary(t *testing.T, h *execHarness, op mir.Op) *execCompiled {
	f, _ := execOpFunc(op, 0, 0, 0, 1)
	return h.install(t, f)
}

// TestCompiledMinMaxSingle checks the MINSS and MAXSS sequences on NaNs
// (the first NaN operand quieted) and zeros of both signs against
// package floatbits and, for numbers, Go's min and max.
func TestCompiledMinMaxSingle(t *testing.T) {
	h := newExecHarness(t)
	minc, maxc := execBinary(t, h, mir.OpMINSS), execBinary(t, h, mir.OpMAXSS)
	const garbage = 0x5555555500000000
	vals := []uint32{0x7FC00001, 0x7F800002, 0xFFC00123, 0xFFA00003, 0, 0x80000000, 0x3F800000, 0xBF800000,
		0x7F800000, 0xFF800000, 0x00000001, 0x80000001}
	for _, a := range vals {
		for _, b := range vals {
			for _, c := range []struct {
				code *execCompiled
				ref  func(a, b uint32) uint32
				gof  func(x, y float32) float32
			}{
				{minc, floatbits.Min32, func(x, y float32) float32 { return min(x, y) }},
				{maxc, floatbits.Max32, func(x, y float32) float32 { return max(x, y) }},
			} {
				got := uint32(h.call(t, c.code, garbage|uint64(a), uint64(b))[0])
				if want := c.ref(a, b); got != want {
					t.Errorf("%s(%#x, %#x) = %#x, floatbits says %#x", c.code.f.Name, a, b, got, want)
				}
				x, y := math.Float32frombits(a), math.Float32frombits(b)
				if x == x && y == y {
					if want := math.Float32bits(c.gof(x, y)); got != want {
						t.Errorf("%s(%#x, %#x) = %#x, Go says %#x", c.code.f.Name, a, b, got, want)
					}
				} else if !floatbits.IsNaN32(got) || got&floatbits.QuietBit32 == 0 {
					t.Errorf("%s(%#x, %#x) = %#x, want a quiet NaN", c.code.f.Name, a, b, got)
				}
			}
		}
	}
}

// TestCompiledCVTUQ2SS checks the conversion of unsigned 64-bit integers
// to f32 at the rounding boundaries (ties to even, values that round up
// across a power of two, the halving path from 2^63 on) against Go's
// float32(uint64) and big.Float's rounding.
func TestCompiledCVTUQ2SS(t *testing.T) {
	h := newExecHarness(t)
	f, _ := execOpFunc(mir.OpCVTUQ2SS, 0, 0, 0, 1)
	code := h.install(t, f)
	vals := []uint64{0, 1, 1<<24 - 1, 1 << 24, 1<<24 + 1, 1<<24 + 2, 1<<24 + 3, 1<<25 + 2, 1<<25 + 6,
		1<<63 - 1, 1 << 63, 1<<63 + 1, 1<<63 + 1<<39, 1<<63 + 1<<39 + 1, 1<<63 + 3<<39, 1<<63 + 1<<40 - 1,
		1<<64 - 1, 1<<64 - 1<<39, 1<<64 - 1<<39 - 1, 1<<64 - 1<<40, 0xFFFFFF7FFFFFFFFF, 0xFFFFFF8000000000,
		0x8000008000000000, 0x8000008000000001, 0x8000018000000000, 0x7FFFFF8000000000, 0x7FFFFFC000000000}
	r := rand.New(rand.NewPCG(27, 28))
	for range 200 {
		vals = append(vals, r.Uint64()|1<<63, r.Uint64()>>r.IntN(64))
	}
	for _, v := range vals {
		got := uint32(h.call(t, code, v)[0])
		exact, _ := new(big.Float).SetUint64(v).Float32()
		if want := math.Float32bits(exact); got != want {
			t.Errorf("CVTUQ2SS(%#x) = %#x, want %#x (%g)", v, got, want, exact)
		}
		if want := math.Float32bits(float32(v)); got != want {
			t.Errorf("CVTUQ2SS(%#x) = %#x, Go's float32 gives %#x", v, got, want)
		}
	}
}
