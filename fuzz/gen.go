package fuzz

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
)

// GenOptions bound the programs Generate builds. Zero fields take the
// defaults.
type GenOptions struct {
	// MaxFuncs is the most functions a module has (default 4).
	MaxFuncs int
	// MaxInstrs is the most instructions a function's generated statements
	// aim for (default 300); the register set-up and the final return come
	// on top.
	MaxInstrs int
}

func (o GenOptions) withDefaults() GenOptions {
	if o.MaxFuncs <= 0 {
		o.MaxFuncs = 4
	}
	if o.MaxInstrs <= 0 {
		o.MaxInstrs = 300
	}
	return o
}

// Program is a generated module, the values of its imported globals and
// the calls to make on one instance of it, in order.
type Program struct {
	Module *bytecode.Module
	Calls  []Call
	// GlobalImports holds the values the embedder supplies for the
	// module's imported globals, by import name, as Options.GlobalImports
	// takes them (nil when the module imports none).
	GlobalImports map[string]uint64
	// Repeated, for one program in four, is Calls made four to seven times
	// over, for the configurations whose code changes between calls
	// (RepeatConfigs: re-optimization once a profile drifts needs calls
	// after the drift); nil for the others. Checking every configuration
	// on it would make slow programs several times slower.
	Repeated []Call
}

// RepeatConfigs are the configurations a program's Repeated calls are
// meant for.
var RepeatConfigs = []string{"jit-auto-reopt"}

// Call is one call the harness makes: an exported function and its
// arguments (f64 arguments as their bits; i32 and f32 arguments in the low
// 32 bits, the f32 as its bits).
type Call struct {
	Func string
	Args []uint64
}

// Generate builds a valid program from data: every byte string gives one
// (decisions read past the end of data are 0). The program uses every
// kind of instruction on all four types (i64, f64, i32, f32), with
// structured control flow (if/else chains, counted loops nested up to
// three deep with breaks and continues, switches), irreducible loops (a
// cycle entered at several blocks), many values live at once (up to a few
// hundred registers), direct calls (recursion bounded by a depth
// parameter), host calls (the imports of StandardHosts: multiple results
// of every type, failures, memory access, re-entrant calls, cancellation),
// loads and stores of every width in and out of bounds, with addresses in
// i32 and i64 registers, memory growth, and every trap condition.
// Comparisons write i32 and i64 destinations, and conditions, switch
// indexes and memory.grow operands are i32 or i64 registers. A 32-bit
// argument of a call from Go, and a 32-bit result of some host calls,
// sometimes has garbage in its upper half, which every configuration must
// ignore (the value is its low 32 bits).
//
// About two programs in five also use the module-level features: one to
// eight globals of random types, mutable or constant, a quarter of them
// imported (their values are in
// Program.GlobalImports) and half of them exported, read and written by
// global.get and global.set (also read-modify-write); a table (of a few
// entries, sometimes none or dozens, some with a maximum or exported)
// whose element segments leave entries null, signatures for every
// function (some twice), near misses of them and random ones, and
// call_indirect with an i32 or i64 index, mostly of a function with its
// own signature, and in the unguarded trapping forms out of range (also
// in the upper 32 bits of an i64 index), through a null entry, with
// another signature or computed from data; and unreachable, as a trap
// that may run, a switch default and dead code. Their decisions come from
// the end of data, so the other programs are the same as without these
// features.
//
// Every program terminates: each loop runs on its own counter (an i64 or
// an i32), which no other code writes and which every iteration moves
// towards its bound; every function takes a depth as its first parameter,
// passes it unchanged to functions defined after it and passes it
// decremented (only while it is positive) to itself, to functions defined
// before it and through the table (call_indirect may reach any
// function). A call tree can still be exponentially large; the harness's
// fuel limit, which every tier charges at the same instructions, stops it.
//
// NaNs are frequent: constants and arguments include quiet and signalling
// NaNs of both widths with various signs and payloads, and they flow
// through arithmetic, min and max, square roots, rounding, promotion and
// demotion, sign operations, reinterpretations, stores and host calls.
// Every tier produces the same NaN bits (see internal/floatbits), so
// nothing is canonicalised: the harness compares them exactly.
func Generate(data []byte, opts GenOptions) (*Program, error) {
	g := &generator{src: &source{data: data}, fsrc: &source{data: data, backward: true},
		opts: opts.withDefaults(), mb: bytecode.NewModuleBuilder()}
	return g.generate()
}

type generator struct {
	// src makes the decisions of a program without globals, a table and
	// unreachable; fsrc, which reads the same bytes from the end, makes
	// every decision about those features (see declareFeatures).
	src  *source
	fsrc *source
	opts GenOptions
	mb   *bytecode.ModuleBuilder

	funcs    []*funcInfo
	hosts    []hostInfo
	memBytes int64
	// trapLevel (0..3) scales how often unguarded trapping forms appear.
	trapLevel int
	// rounding says whether floor/ceil/trunc/nearest may appear (they
	// need SSE4.1; without them a module also compiles for SSE2).
	rounding bool

	// The module-level features (see declareFeatures): the globals and
	// the values of the imported ones; whether the module has a table,
	// the function in each of its entries (-1: null) and Module.Types;
	// whether unreachable may appear.
	globals       []globalInfo
	globalImports map[string]uint64
	hasTable      bool
	table         []int32
	types         []bytecode.Signature
	unreachable   bool
	// With references (declareRefTables): the tables beyond table 0
	// (refTables[k] is table k+1, true for one of external references),
	// the element segments and the passive data segments.
	refTables []bool
	elemSegs  int
	dataSegs  []uint32
}

type funcInfo struct {
	fb  *bytecode.FuncBuilder
	sig bytecode.Signature
}

type hostInfo struct {
	index uint32
	imp   bytecode.HostImport
}

// numTypes bounds the value types, which index per-type tables.
const numTypes = int(bytecode.F32) + 1

// valueTypes lists the value types.
var valueTypes = []bytecode.Type{bytecode.I64, bytecode.F64, bytecode.I32, bytecode.F32}

// Interesting values of every type: boundaries of every operation. The
// float values are bit patterns, so that NaN payloads stay exact.
var (
	i64Values = []int64{0, 1, -1, 2, 3, 5, 7, 8, 15, 16, 31, 32, 63, 64, 65, 100, 127, 128, 255, 256,
		1000, 4095, 4096, 65535, 65536, math.MaxInt32, math.MinInt32, 1<<32 - 1, 1 << 32, 1 << 53,
		math.MaxInt64, math.MinInt64, math.MinInt64 + 1, -2, -8, -64, -4096, -65536,
		0x5555555555555555, -0x123456789abcdef, 1<<24 + 1, 1<<31 + 1, -1 << 31, -1<<31 - 1,
		1<<63 - 1<<10, 0x80000000}
	i32Values = []int32{0, 1, -1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 127, 128, 255, 256, 4095, 4096,
		65535, 65536, math.MaxInt32, math.MinInt32, math.MinInt32 + 1, math.MaxInt32 - 1, 1<<24 + 1,
		1 << 24, -(1<<24 + 1), -2, -8, -4096, -65536, 0x55555555, -0x789abcdf, 0x7FFFFF80}
	f64Values = []uint64{
		f64b(0), f64b(math.Copysign(0, -1)), f64b(1), f64b(-1), f64b(0.5), f64b(-0.5), f64b(1.5),
		f64b(2.5), f64b(-2.5), f64b(3.75), f64b(0.1), f64b(1e300), f64b(-1e300), f64b(5e-324),
		f64b(-1e-310), f64b(math.Inf(1)), f64b(math.Inf(-1)), f64b(9223372036854775807),
		f64b(-9223372036854775808), f64b(9223372036854774784), f64b(-9223372036854777856),
		f64b(18446744073709551616), f64b(18446744073709549568), f64b(4294967296.5), f64b(1 << 53),
		f64b(-0.9999999999999999), f64b(0.9999999999999999),
		// Conversions to the 32-bit types.
		f64b(2147483648), f64b(2147483647), f64b(2147483647.5), f64b(-2147483648),
		f64b(-2147483648.5), f64b(-2147483649), f64b(4294967296), f64b(4294967295),
		f64b(4294967295.5), f64b(16777217), f64b(math.MaxFloat32), f64b(3.4028235677973366e38),
		f64b(1e-45), f64b(1.401298464324817e-45), f64b(7e-46), f64b(math.SmallestNonzeroFloat32 / 2),
		// NaNs: quiet and signalling, both signs, with payloads (some of
		// them in the high bits that survive demotion).
		0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0000000000001,
		0x7FF4000000000000, 0xFFFC000000000000, 0x7FF8DEADBEEF0001, 0x7FFFFFFFFFFFFFFF,
		0xFFF7FFFFFFFFFFFF, 0x7FF00000E0000000}
	f32Values = []uint32{
		f32b(0), f32b(float32(math.Copysign(0, -1))), f32b(1), f32b(-1), f32b(0.5), f32b(-0.5),
		f32b(1.5), f32b(2.5), f32b(-2.5), f32b(0.1), f32b(16777216), f32b(16777218), f32b(2147483648),
		f32b(-2147483648), f32b(2147483520), f32b(-2147483904), f32b(4294967296), f32b(4294967040),
		f32b(9223372036854775808), f32b(-9223372036854775808), f32b(9223371487098961920),
		f32b(18446744073709551616), f32b(18446742974197923840), f32b(math.MaxFloat32),
		f32b(-math.MaxFloat32), f32b(1e38), f32b(-0.99999994), f32b(0.99999994),
		0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, // denormals and the smallest normal
		f32b(float32(math.Inf(1))), f32b(float32(math.Inf(-1))),
		// NaNs: quiet and signalling, both signs, with payloads.
		0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FA00000, 0xFFE00000, 0x7FC12345,
		0x7FFFFFFF, 0xFFBFFFFF}
	depthValues = []uint64{0, 1, 2, 3, 4, 6, 100}
)

func f64b(v float64) uint64 { return math.Float64bits(v) }
func f32b(v float32) uint32 { return math.Float32bits(v) }

func (g *generator) generate() (*Program, error) {
	s := g.src
	minPages := []uint32{1, 1, 1, 1, 2, 1, 1, 2, 0, 1}[s.intn(10)]
	maxPages := minPages + uint32(s.intn(3))
	g.mb.Memory(minPages, maxPages)
	g.memBytes = int64(minPages) * bytecode.PageSize
	if minPages > 0 {
		for i := s.intn(3); i > 0; i-- {
			b := make([]byte, 1+s.intn(32))
			for k := range b {
				b[k] = s.byte()
			}
			g.mb.Data(uint32(s.intn(4096-len(b))), b)
		}
	}
	g.trapLevel = s.pick([]int{6, 4, 2, 1})
	g.rounding = s.chance(1, 2)

	nfuncs := 1 + s.intn(g.opts.MaxFuncs)
	for i := 0; i < nfuncs; i++ {
		var fsig bytecode.Signature
		name := fmt.Sprintf("f%d", i)
		switch {
		case i == 0:
			name = "main"
			fsig = sig(append(types(bytecode.I64), g.randTypes(4)...), g.randTypes(3))
		case i == nfuncs-1:
			name = reentryExport
			fsig = sig(types(bytecode.I64, bytecode.I64), types(bytecode.I64))
		default:
			fsig = sig(append(types(bytecode.I64), g.randTypes(4)...), g.randTypes(3))
		}
		if i < nfuncs-1 {
			fsig.Params = append(fsig.Params, g.stackParams()...)
		}
		g.funcs = append(g.funcs, &funcInfo{fb: g.mb.Func(name, fsig.Params, fsig.Results), sig: fsig})
	}
	for _, imp := range standardImports {
		if imp.Name == hostReenter && nfuncs < 2 {
			continue
		}
		idx := g.mb.Host(imp.Name, imp.Sig.Params, imp.Sig.Results)
		g.hosts = append(g.hosts, hostInfo{index: idx, imp: imp})
	}
	// The calls come from the first bytes, before the bodies use up the
	// rest.
	var calls []Call
	for n := 1 + s.intn(3); n > 0; n-- {
		fi := 0
		if nfuncs > 1 && s.chance(1, 5) {
			fi = nfuncs - 1
		}
		args := []uint64{depthValues[s.intn(len(depthValues))]}
		for _, t := range g.funcs[fi].sig.Params[1:] {
			args = append(args, g.argValue(t))
		}
		name := "main"
		if fi > 0 {
			name = reentryExport
		}
		calls = append(calls, Call{Func: name, Args: args})
	}
	g.declareFeatures()
	for i := range g.funcs {
		g.genFunc(i)
	}
	g.mb.Export("main", g.funcs[0].fb)
	if nfuncs > 1 {
		g.mb.Export(reentryExport, g.funcs[nfuncs-1].fb)
	}
	m, err := g.mb.Build()
	if err != nil {
		return nil, fmt.Errorf("fuzz: generated an invalid module: %w", err)
	}
	p := &Program{Module: m, Calls: calls, GlobalImports: g.globalImports, Repeated: repeatCalls(g.src.data, calls)}
	return p, nil
}

// randType returns a value type: i64 most often, then i32, f64 and f32.
func (g *generator) randType() bytecode.Type {
	return []bytecode.Type{bytecode.I64, bytecode.I32, bytecode.F64, bytecode.F32}[g.src.pick([]int{4, 3, 2, 2})]
}

// stackParams returns, for one function in six, extra parameters of one
// register class, enough that some of the function's arguments are passed
// on the stack. The decision comes from the feature source, so the
// functions that get none are generated as before.
func (g *generator) stackParams() []bytecode.Type {
	s := g.fsrc
	if !s.chance(1, 6) {
		return nil
	}
	ts := []bytecode.Type{bytecode.I64, bytecode.I32}
	n := 5 + s.intn(5)
	if s.chance(1, 2) {
		ts = []bytecode.Type{bytecode.F64, bytecode.F32}
		n += 2
	}
	out := make([]bytecode.Type, n)
	for i := range out {
		out[i] = ts[s.intn(2)]
	}
	return out
}

func (g *generator) randTypes(max int) []bytecode.Type {
	ts := make([]bytecode.Type, g.src.intn(max+1))
	for i := range ts {
		ts[i] = g.randType()
	}
	return ts
}

// argValue returns an argument of type t for a call from Go. A 32-bit
// argument sometimes has garbage in its upper half, which every
// configuration must ignore.
func (g *generator) argValue(t bytecode.Type) uint64 {
	s := g.src
	switch t {
	case bytecode.F64:
		if s.chance(1, 4) {
			return s.u64()
		}
		return f64Values[s.intn(len(f64Values))]
	case bytecode.I32, bytecode.F32:
		var v uint64
		switch {
		case s.chance(1, 4):
			v = uint64(uint32(s.u64()))
		case t == bytecode.F32:
			v = uint64(f32Values[s.intn(len(f32Values))])
		case s.chance(1, 2):
			v = uint64(uint32(i32Values[s.intn(len(i32Values))]))
		default:
			v = uint64(s.intn(64))
		}
		if s.chance(1, 8) {
			v |= s.u64() << 32
		}
		return v
	}
	switch s.intn(4) {
	case 0:
		return uint64(i64Values[s.intn(len(i64Values))])
	case 1:
		return s.u64()
	default:
		return uint64(s.intn(64))
	}
}

// funcGen generates the body of one function.
type funcGen struct {
	g   *generator
	s   *source
	idx int
	fb  *bytecode.FuncBuilder
	sig bytecode.Signature

	// pool[t] are the registers of type t that statements may write (and
	// read).
	pool [numTypes][]bytecode.Reg
	// ro[t] are further registers of type t that statements may only
	// read: the depth parameter, the counters of the enclosing loops,
	// values kept live across a statement.
	ro [numTypes][]bytecode.Reg
	// depthTmp holds the decremented depth for backward calls; tmp[t] are
	// scratch registers of guards and addresses, never read by other
	// statements.
	depthTmp bytecode.Reg
	tmp      [numTypes][2]bytecode.Reg
	limit    int // the instruction count the statements aim for
	loops    []loopLabels
	nest     int
}

type loopLabels struct{ exit, latch bytecode.Label }

func (g *generator) genFunc(idx int) {
	fi := g.funcs[idx]
	fg := &funcGen{g: g, s: g.src, idx: idx, fb: fi.fb, sig: fi.sig}
	s := fg.s
	fg.ro[bytecode.I64] = append(fg.ro[bytecode.I64], 0) // the depth
	for i, t := range fi.sig.Params {
		if i > 0 {
			fg.pool[t] = append(fg.pool[t], bytecode.Reg(i))
		}
	}
	var want [numTypes]int
	want[bytecode.I64], want[bytecode.F64] = 4+s.intn(12), 2+s.intn(6)
	want[bytecode.I32], want[bytecode.F32] = 2+s.intn(8), 2+s.intn(5)
	if s.chance(1, 3) { // a large register file: many values live at once
		want[bytecode.I64], want[bytecode.F64] = 24+s.intn(100), 8+s.intn(40)
		want[bytecode.I32], want[bytecode.F32] = 16+s.intn(64), 8+s.intn(32)
	}
	for _, t := range valueTypes {
		for len(fg.pool[t]) < want[t] {
			fg.pool[t] = append(fg.pool[t], fg.fb.NewReg(t))
		}
	}
	fg.depthTmp = fg.fb.NewReg(bytecode.I64)
	for _, t := range valueTypes {
		for i := range fg.tmp[t] {
			fg.tmp[t][i] = fg.fb.NewReg(t)
		}
	}
	// Registers start at zero; give some of them interesting values.
	for _, t := range valueTypes {
		for _, r := range fg.pool[t] {
			if s.chance(1, 2) {
				fg.constant(t, r)
			}
		}
	}
	fg.limit = fg.fb.Len() + 10 + s.intn(g.opts.MaxInstrs)
	for fg.room() > 0 && !s.exhausted() {
		fg.stmt()
	}
	fg.ret()
}

func (fg *funcGen) room() int { return fg.limit - fg.fb.Len() }

// Register choice.

// w returns a register of type t that a statement may write.
func (fg *funcGen) w(t bytecode.Type) bytecode.Reg { return fg.pool[t][fg.s.intn(len(fg.pool[t]))] }

// read returns a register of type t that a statement may read.
func (fg *funcGen) read(t bytecode.Type) bytecode.Reg {
	if ro := fg.ro[t]; len(ro) > 0 && fg.s.chance(1, 4) {
		return ro[fg.s.intn(len(ro))]
	}
	return fg.w(t)
}

func (fg *funcGen) ri() bytecode.Reg { return fg.read(bytecode.I64) }
func (fg *funcGen) rf() bytecode.Reg { return fg.read(bytecode.F64) }

// intType returns I64 or I32, for an operand that takes either.
func (fg *funcGen) intType() bytecode.Type {
	if fg.s.chance(1, 2) {
		return bytecode.I32
	}
	return bytecode.I64
}

// floatType returns F64 or F32.
func (fg *funcGen) floatType() bytecode.Type {
	if fg.s.chance(1, 2) {
		return bytecode.F32
	}
	return bytecode.F64
}

// dsts returns distinct writable registers of the given types.
func (fg *funcGen) dsts(ts []bytecode.Type) []bytecode.Reg {
	out := make([]bytecode.Reg, 0, len(ts))
	used := map[bytecode.Reg]bool{}
	for _, t := range ts {
		pool := fg.pool[t]
		start := fg.s.intn(len(pool))
		r := pool[start]
		for k := 1; used[r] && k < len(pool); k++ {
			r = pool[(start+k)%len(pool)]
		}
		if used[r] {
			r = fg.fb.NewReg(t)
			fg.pool[t] = append(fg.pool[t], r)
		}
		used[r] = true
		out = append(out, r)
	}
	return out
}

func (fg *funcGen) i64Imm() int64 {
	switch fg.s.intn(4) {
	case 0:
		return int64(fg.s.u64())
	case 1:
		return int64(fg.s.intn(32)) - 8
	default:
		return i64Values[fg.s.intn(len(i64Values))]
	}
}

func (fg *funcGen) i32Imm() int64 {
	switch fg.s.intn(4) {
	case 0:
		return int64(int32(fg.s.u64()))
	case 1:
		return int64(fg.s.intn(40)) - 8
	default:
		return int64(i32Values[fg.s.intn(len(i32Values))])
	}
}

// imm returns an immediate operand for an integer operation of type t.
func (fg *funcGen) imm(t bytecode.Type) int64 {
	if t == bytecode.I32 {
		return fg.i32Imm()
	}
	return fg.i64Imm()
}

// f64Imm returns the bits of an f64 constant.
func (fg *funcGen) f64Imm() uint64 {
	switch fg.s.intn(8) {
	case 0:
		return fg.s.u64()
	case 1: // a NaN with a random sign and payload, quiet or signalling
		v := fg.s.u64() | 0x7FF0000000000000
		if v&(1<<52-1) == 0 {
			v |= 1
		}
		return v
	}
	return f64Values[fg.s.intn(len(f64Values))]
}

// f32Imm returns the bits of an f32 constant.
func (fg *funcGen) f32Imm() uint32 {
	switch fg.s.intn(8) {
	case 0:
		return uint32(fg.s.u64())
	case 1:
		v := uint32(fg.s.u64()) | 0x7F800000
		if v&(1<<23-1) == 0 {
			v |= 1
		}
		return v
	}
	return f32Values[fg.s.intn(len(f32Values))]
}

// constant emits a constant of type t into r.
func (fg *funcGen) constant(t bytecode.Type, r bytecode.Reg) {
	switch t {
	case bytecode.I64:
		fg.fb.I64Const(r, fg.i64Imm())
	case bytecode.I32:
		fg.constI32(r, fg.i32Imm())
	case bytecode.F64:
		fg.constF64(r, fg.f64Imm())
	default:
		fg.constF32(r, fg.f32Imm())
	}
}

func (fg *funcGen) constI32(r bytecode.Reg, v int64) {
	fg.fb.Emit(bytecode.Instr{Op: bytecode.OpI32Const, Dst: r, Imm: int64(int32(v))})
}

func (fg *funcGen) constF64(r bytecode.Reg, bits uint64) {
	fg.fb.Emit(bytecode.Instr{Op: bytecode.OpF64Const, Dst: r, Imm: int64(bits)})
}

func (fg *funcGen) constF32(r bytecode.Reg, bits uint32) {
	fg.fb.Emit(bytecode.Instr{Op: bytecode.OpF32Const, Dst: r, Imm: int64(bits)})
}

// constInt emits the integer constant v into r, of type t (truncated to
// 32 bits for an i32).
func (fg *funcGen) constInt(t bytecode.Type, r bytecode.Reg, v int64) {
	if t == bytecode.I32 {
		fg.constI32(r, v)
	} else {
		fg.fb.I64Const(r, v)
	}
}

// constFloat emits the float constant v into r, of type t (rounded to
// binary32 for an f32).
func (fg *funcGen) constFloat(t bytecode.Type, r bytecode.Reg, v float64) {
	if t == bytecode.F32 {
		fg.constF32(r, f32b(float32(v)))
	} else {
		fg.constF64(r, f64b(v))
	}
}

// raw reports whether to use an unguarded trapping form this time.
func (fg *funcGen) raw() bool { return fg.s.intn(16) < 1+3*fg.g.trapLevel }

// Statements.

const (
	kSimple = iota
	kIf
	kIfChain
	kLoop
	kSwitch
	kIrreducible
	kCall
	kHost
	kReturn
	kTrap
	kPressure
	kJumpOut
	numKinds
)

func (fg *funcGen) stmt() {
	fg.feature()
	var w [numKinds]int
	nestable := fg.nest < 5 && fg.room() > 8
	w[kSimple] = 30
	if nestable {
		w[kIf], w[kIfChain], w[kSwitch] = 6, 3, 2
		if len(fg.loops) < 3 {
			w[kLoop], w[kIrreducible] = 6, 2
		}
		if fg.nest < 2 {
			w[kPressure] = 2
		}
	}
	w[kCall], w[kHost] = 3, 3
	w[kReturn], w[kTrap] = 1, 2
	if len(fg.loops) > 0 {
		w[kJumpOut] = 3
	}
	switch fg.s.pick(w[:]) {
	case kSimple:
		fg.simple()
	case kIf:
		fg.ifStmt()
	case kIfChain:
		fg.ifChain()
	case kLoop:
		fg.loop()
	case kSwitch:
		fg.switchStmt()
	case kIrreducible:
		fg.irreducible()
	case kCall:
		fg.call()
	case kHost:
		fg.hostCall()
	case kReturn:
		skip := fg.fb.NewLabel()
		fg.condBranch(skip)
		fg.ret()
		if fg.g.unreachable && fg.g.fsrc.chance(1, 4) {
			fg.fb.Unreachable() // dead code
			fg.limit++
		}
		fg.fb.Bind(skip)
	case kTrap:
		fg.trap()
	case kPressure:
		fg.pressure()
	case kJumpOut:
		l := fg.loops[len(fg.loops)-1-fg.s.intn(len(fg.loops))]
		if fg.s.chance(1, 2) {
			fg.condBranch(l.exit)
		} else {
			fg.condBranch(l.latch)
		}
	}
}

// block emits up to n statements while there is room.
func (fg *funcGen) block(n int) {
	fg.nest++
	for i := 0; i < n && fg.room() > 0; i++ {
		fg.stmt()
	}
	fg.nest--
}

func (fg *funcGen) ret() {
	regs := make([]bytecode.Reg, len(fg.sig.Results))
	for i, t := range fg.sig.Results {
		regs[i] = fg.read(t)
	}
	fg.fb.Return(regs...)
}

// condBranch emits a data-dependent branch to l.
func (fg *funcGen) condBranch(l bytecode.Label) {
	s, fb := fg.s, fg.fb
	switch s.intn(9) {
	case 0:
		fb.BrIf(fg.read(fg.intType()), l)
	case 1:
		fb.BrCmp(brOps[s.intn(len(brOps))], fg.ri(), fg.ri(), l)
	case 2:
		fb.BrCmpImm(brOps[s.intn(len(brOps))], fg.ri(), fg.i64Imm(), l)
	case 3:
		fb.BrCmp(brI32Ops[s.intn(len(brI32Ops))], fg.read(bytecode.I32), fg.read(bytecode.I32), l)
	case 4:
		fb.BrCmpImm(brI32Ops[s.intn(len(brI32Ops))], fg.read(bytecode.I32), fg.i32Imm(), l)
	case 5, 6: // a float comparison into an i32 or i64, then br_if
		t := fg.floatType()
		ops := fcmpOps
		if t == bytecode.F32 {
			ops = f32CmpOps
		}
		c := fg.w(fg.intType())
		fb.Binary(ops[s.intn(len(ops))], c, fg.read(t), fg.read(t))
		fb.BrIf(c, l)
	case 7: // an integer comparison into a register, then br_if
		c := fg.w(fg.intType())
		fg.compareInt(c)
		fb.BrIf(c, l)
	default: // eqz
		t := fg.intType()
		c := fg.w(fg.intType())
		fb.Unary(eqzOp[t], c, fg.read(t))
		fb.BrIf(c, l)
	}
}

// compareInt emits an i64 or i32 comparison (of two registers or of a
// register and an immediate) into dst.
func (fg *funcGen) compareInt(dst bytecode.Reg) {
	s, fb := fg.s, fg.fb
	t := fg.intType()
	ops := i64CmpOps
	if t == bytecode.I32 {
		ops = i32CmpOps
	}
	op := ops[s.intn(len(ops))]
	if s.chance(1, 3) {
		fb.BinaryImm(op, dst, fg.read(t), fg.imm(t))
	} else {
		fb.Binary(op, dst, fg.read(t), fg.read(t))
	}
}

func (fg *funcGen) ifStmt() {
	end := fg.fb.NewLabel()
	fg.condBranch(end)
	fg.block(1 + fg.s.intn(4))
	fg.fb.Bind(end)
}

func (fg *funcGen) ifChain() {
	end := fg.fb.NewLabel()
	for arms := 2 + fg.s.intn(3); arms > 0; arms-- {
		next := fg.fb.NewLabel()
		if arms > 1 {
			fg.condBranch(next)
		}
		fg.block(1 + fg.s.intn(3))
		if arms > 1 {
			fg.fb.Jump(end)
		}
		fg.fb.Bind(next)
	}
	fg.fb.Bind(end)
}

// intOps are the opcodes of one integer type that loops, switches and
// guards use.
type intOps struct {
	add, sub, and, shl        bytecode.Op
	brEq, brLtS, brLeS, brGtS bytecode.Op
	minInt                    int64 // the most negative value
}

var intOpsOf = map[bytecode.Type]*intOps{
	bytecode.I64: {add: bytecode.OpI64Add, sub: bytecode.OpI64Sub, and: bytecode.OpI64And, shl: bytecode.OpI64Shl,
		brEq: bytecode.OpBrEq, brLtS: bytecode.OpBrLtS, brLeS: bytecode.OpBrLeS, brGtS: bytecode.OpBrGtS,
		minInt: math.MinInt64},
	bytecode.I32: {add: bytecode.OpI32Add, sub: bytecode.OpI32Sub, and: bytecode.OpI32And, shl: bytecode.OpI32Shl,
		brEq: bytecode.OpBrI32Eq, brLtS: bytecode.OpBrI32LtS, brLeS: bytecode.OpBrI32LeS, brGtS: bytecode.OpBrI32GtS,
		minInt: math.MinInt32},
}

// tripCount emits the initialisation of a loop counter of type t.
func (fg *funcGen) tripCount(t bytecode.Type, c bytecode.Reg) {
	s, ops := fg.s, intOpsOf[t]
	switch s.pick([]int{6, 6, 1, 1}) {
	case 0:
		fg.constInt(t, c, int64(s.intn(6)))
	case 1:
		fg.fb.BinaryImm(ops.and, c, fg.read(t), []int64{1, 3, 7}[s.intn(3)])
	case 2: // long enough to reach the poll interval
		fg.fb.BinaryImm(ops.and, c, fg.read(t), 2047)
	default: // any value: negative, or far beyond the fuel
		fg.fb.Mov(c, fg.read(t))
	}
}

// counterType returns the type of a new loop counter.
func (fg *funcGen) counterType() bytecode.Type {
	if fg.s.chance(1, 3) {
		return bytecode.I32
	}
	return bytecode.I64
}

// loop emits a counted loop: a do-while or a while loop, counting down or
// up, with its counter readable in the body.
func (fg *funcGen) loop() {
	s, fb := fg.s, fg.fb
	t := fg.counterType()
	ops := intOpsOf[t]
	c := fb.NewReg(t)
	fg.tripCount(t, c)
	head, latch, exit := fb.NewLabel(), fb.NewLabel(), fb.NewLabel()
	fg.loops = append(fg.loops, loopLabels{exit: exit, latch: latch})
	fg.ro[t] = append(fg.ro[t], c)
	switch s.intn(3) {
	case 0: // do { body } while (--c > 0)
		fb.Bind(head)
		fg.block(1 + s.intn(4))
		fb.Bind(latch)
		fb.BinaryImm(ops.sub, c, c, 1)
		fb.BrCmpImm(ops.brGtS, c, 0, head)
	case 1: // while (c > 0) { body; c-- }
		fb.Bind(head)
		fb.BrCmpImm(ops.brLeS, c, 0, exit)
		fg.block(1 + s.intn(4))
		fb.Bind(latch)
		fb.BinaryImm(ops.sub, c, c, 1)
		fb.Jump(head)
	default: // for (i = 0; i < n; i++) { body }, n in a register of its own
		n := fb.NewReg(t)
		fb.Mov(n, c)
		fg.constInt(t, c, 0)
		fg.ro[t] = append(fg.ro[t], n)
		fb.Jump(latch)
		fb.Bind(head)
		fg.block(1 + s.intn(4))
		fb.BinaryImm(ops.add, c, c, 1)
		fb.Bind(latch)
		fb.BrCmp(ops.brLtS, c, n, head)
		fg.ro[t] = fg.ro[t][:len(fg.ro[t])-1]
	}
	fb.Bind(exit)
	fg.ro[t] = fg.ro[t][:len(fg.ro[t])-1]
	fg.loops = fg.loops[:len(fg.loops)-1]
}

// irreducible emits a loop entered at several of its blocks: segments S1..Sk
// and a latch that decrements the counter and goes back to S1; a branch or
// a switch before it enters at a later segment.
func (fg *funcGen) irreducible() {
	s, fb := fg.s, fg.fb
	ct := fg.counterType()
	c := fb.NewReg(ct)
	fg.tripCount(ct, c)
	segs := make([]bytecode.Label, 2+s.intn(3))
	for i := range segs {
		segs[i] = fb.NewLabel()
	}
	latch, exit := fb.NewLabel(), fb.NewLabel()
	if s.chance(1, 2) {
		fg.condBranch(segs[1+s.intn(len(segs)-1)])
	} else {
		it := fg.intType()
		t := fg.w(it)
		fb.BinaryImm(intOpsOf[it].and, t, fg.read(it), 7)
		table := make([]bytecode.Label, 1+s.intn(6))
		for i := range table {
			table[i] = segs[s.intn(len(segs))]
		}
		if s.chance(1, 4) {
			table[s.intn(len(table))] = exit
		}
		fb.Switch(t, table, segs[s.intn(len(segs))])
	}
	fg.loops = append(fg.loops, loopLabels{exit: exit, latch: latch})
	fg.ro[ct] = append(fg.ro[ct], c)
	for _, l := range segs {
		fb.Bind(l)
		fg.block(1 + s.intn(2))
	}
	fb.Bind(latch)
	fb.BinaryImm(intOpsOf[ct].sub, c, c, 1)
	fb.BrCmpImm(intOpsOf[ct].brGtS, c, 0, segs[0])
	fb.Bind(exit)
	fg.ro[ct] = fg.ro[ct][:len(fg.ro[ct])-1]
	fg.loops = fg.loops[:len(fg.loops)-1]
}

func (fg *funcGen) switchStmt() {
	s, fb := fg.s, fg.fb
	cases := make([]bytecode.Label, 2+s.intn(5))
	for i := range cases {
		cases[i] = fb.NewLabel()
	}
	def, end := fb.NewLabel(), fb.NewLabel()
	it := fg.intType()
	ops := intOpsOf[it]
	t := fg.w(it)
	switch s.intn(3) {
	case 0:
		fb.BinaryImm(ops.and, t, fg.read(it), 7)
	case 1:
		fb.BinaryImm(ops.sub, t, fg.read(it), int64(s.intn(4)))
	default:
		fb.Mov(t, fg.read(it))
	}
	table := make([]bytecode.Label, len(cases)+s.intn(4))
	for i := range table {
		table[i] = cases[s.intn(len(cases))]
	}
	fb.Switch(t, table, def)
	for _, l := range cases {
		fb.Bind(l)
		fg.block(1 + s.intn(2))
		if s.chance(3, 4) {
			fb.Jump(end)
		}
	}
	fb.Bind(def)
	if fg.g.unreachable && fg.g.fsrc.chance(1, 4) {
		fb.Unreachable() // a default the program does not expect to take
		fg.limit++
	}
	fg.block(1 + s.intn(2))
	fb.Bind(end)
}

// call emits a direct call. Functions defined later get the depth as it is;
// this function and earlier ones get it decremented, and only while it is
// positive.
func (fg *funcGen) call() {
	s, fb := fg.s, fg.fb
	callee := s.intn(len(fg.g.funcs))
	target := fg.g.funcs[callee]
	args := make([]bytecode.Reg, len(target.sig.Params))
	var skip bytecode.Label
	backward := callee <= fg.idx
	if backward {
		skip = fb.NewLabel()
		fb.BrCmpImm(bytecode.OpBrLeS, 0, 0, skip)
		fb.BinaryImm(bytecode.OpI64Sub, fg.depthTmp, 0, 1)
		args[0] = fg.depthTmp
	}
	for i, t := range target.sig.Params[1:] {
		args[i+1] = fg.read(t)
	}
	results := fg.dsts(target.sig.Results)
	fb.Call(target.fb.Index(), args, results)
	if backward {
		fb.Bind(skip)
	}
}

func (fg *funcGen) hostCall() {
	s, fb := fg.s, fg.fb
	h := fg.g.hosts[s.intn(len(fg.g.hosts))]
	if h.imp.Name == hostCancel {
		if !s.chance(1, 8) {
			h = fg.g.hosts[0] // cancellation ends the call: keep it rare
		} else {
			fb.CallHost(h.index, nil, nil)
			// Loop past the next check of the context.
			c := fb.NewReg(bytecode.I64)
			fb.I64Const(c, int64(interpPollInterval+100+s.intn(1000)))
			head := fb.NewLabel()
			fb.Bind(head)
			fb.BinaryImm(bytecode.OpI64Sub, c, c, 1)
			fb.BrCmpImm(bytecode.OpBrGtS, c, 0, head)
			return
		}
	}
	args := make([]bytecode.Reg, len(h.imp.Sig.Params))
	for i, t := range h.imp.Sig.Params {
		args[i] = fg.read(t)
	}
	if h.imp.Name == hostReenter {
		args[0] = 0 // the depth bounds the re-entry
	}
	fb.CallHost(h.index, args, fg.dsts(h.imp.Sig.Results))
}

func (fg *funcGen) trap() {
	skip := fg.fb.NewLabel()
	switch {
	case fg.raw():
		fg.condBranch(skip)
	case fg.s.chance(1, 4):
		// Taken unless the register holds one particular value.
		fg.fb.BrCmpImm(bytecode.OpBrI32Ne, fg.read(bytecode.I32), int64(int32(fg.s.u64()|1<<20)), skip)
	default:
		fg.fb.BrCmpImm(bytecode.OpBrNe, fg.ri(), int64(fg.s.u64()|1<<40), skip)
	}
	code := int64(fg.s.intn(1000))
	if fg.g.unreachable && fg.g.fsrc.chance(1, 2) {
		fg.fb.Unreachable()
	} else {
		fg.fb.Trap(code)
	}
	fg.fb.Bind(skip)
}

// pressure defines many values, optionally runs one more statement (a loop,
// a call) while they are all live, and then folds them together.
func (fg *funcGen) pressure() {
	s, fb := fg.s, fg.fb
	n := 20 + s.intn(80)
	vals := make([]bytecode.Reg, n)
	typ := make([]bytecode.Type, n)
	var base [numTypes]int
	for _, t := range valueTypes {
		base[t] = len(fg.ro[t])
	}
	// Mostly integers (pressure on the general-purpose registers) or
	// mostly floats (on the XMM registers).
	weights := []int{8, 1, 4, 1}
	if s.chance(1, 3) {
		weights = []int{1, 5, 1, 4}
	}
	// Every value mixes in one that depends on the depth parameter, so
	// that none of them is a constant the compiler folds (registers no
	// statement writes are constant zeros).
	var seed [numTypes]bytecode.Reg
	seed[bytecode.I64] = fb.NewReg(bytecode.I64)
	fb.Binary(bytecode.OpI64Add, seed[bytecode.I64], fg.ri(), 0)
	for _, c := range []struct {
		t  bytecode.Type
		op bytecode.Op
	}{{bytecode.I32, bytecode.OpI32WrapI64}, {bytecode.F64, bytecode.OpF64ConvertI64S}, {bytecode.F32, bytecode.OpF32ConvertI64S}} {
		seed[c.t] = fb.NewReg(c.t)
		fb.Unary(c.op, seed[c.t], seed[bytecode.I64])
	}
	for i := range vals {
		t := []bytecode.Type{bytecode.I64, bytecode.F64, bytecode.I32, bytecode.F32}[s.pick(weights)]
		v := fb.NewReg(t)
		switch t {
		case bytecode.F64:
			fb.Binary([]bytecode.Op{bytecode.OpF64Add, bytecode.OpF64Mul}[s.intn(2)], v, fg.rf(), seed[t])
		case bytecode.F32:
			fb.Binary([]bytecode.Op{bytecode.OpF32Add, bytecode.OpF32Mul}[s.intn(2)], v, fg.read(bytecode.F32), seed[t])
		case bytecode.I32:
			fb.Binary([]bytecode.Op{bytecode.OpI32Add, bytecode.OpI32Xor, bytecode.OpI32Mul, bytecode.OpI32Sub}[s.intn(4)],
				v, fg.read(bytecode.I32), seed[t])
			fb.BinaryImm(bytecode.OpI32Add, v, v, fg.i32Imm())
		default:
			fb.Binary([]bytecode.Op{bytecode.OpI64Add, bytecode.OpI64Xor, bytecode.OpI64Mul, bytecode.OpI64Sub}[s.intn(4)],
				v, fg.ri(), seed[t])
			fb.BinaryImm(bytecode.OpI64Add, v, v, fg.i64Imm())
		}
		vals[i], typ[i] = v, t
		fg.ro[t] = append(fg.ro[t], v)
	}
	if s.chance(1, 2) {
		fg.block(1)
	}
	var acc [numTypes]bytecode.Reg
	for _, t := range valueTypes {
		acc[t] = fg.w(t)
	}
	for i := n - 1; i >= 0; i-- {
		t := typ[i]
		var op bytecode.Op
		switch t {
		case bytecode.F64:
			op = bytecode.OpF64Add
		case bytecode.F32:
			op = bytecode.OpF32Add
		case bytecode.I32:
			op = []bytecode.Op{bytecode.OpI32Add, bytecode.OpI32Xor, bytecode.OpI32Sub}[i%3]
		default:
			op = []bytecode.Op{bytecode.OpI64Add, bytecode.OpI64Xor, bytecode.OpI64Sub}[i%3]
		}
		fb.Binary(op, acc[t], acc[t], vals[i])
	}
	// The host sees the folded values, so that none of them is dead.
	for _, h := range fg.g.hosts {
		if h.imp.Name == hostFMix32 {
			fb.CallHost(h.index, []bytecode.Reg{acc[bytecode.F32], acc[bytecode.F64], acc[bytecode.I32], acc[bytecode.I64]},
				[]bytecode.Reg{acc[bytecode.F64], acc[bytecode.F32], acc[bytecode.I64], acc[bytecode.I32]})
		}
	}
	for _, t := range valueTypes {
		fg.ro[t] = fg.ro[t][:base[t]]
	}
}

// interpPollInterval is how many polls run between checks of the context.
const interpPollInterval = interp.PollInterval

// repeatCalls returns, for one input in four, the calls made four to seven
// times over (Program.Repeated); else nil. The choice hashes the input
// instead of drawing bytes from it, so that existing inputs keep their
// meaning.
func repeatCalls(data []byte, calls []Call) []Call {
	h := fnv.New64a()
	h.Write(data)
	x := h.Sum64()
	if x%4 != 0 {
		return nil
	}
	times := 4 + int(x>>8%4)
	out := make([]Call, 0, times*len(calls))
	for range times {
		for _, c := range calls {
			out = append(out, Call{Func: c.Func, Args: slices.Clone(c.Args)})
		}
	}
	return out
}
