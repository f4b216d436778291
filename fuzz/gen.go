package fuzz

import (
	"fmt"
	"math"

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

// Program is a generated module and the calls to make on one instance of
// it, in order.
type Program struct {
	Module *bytecode.Module
	Calls  []Call
}

// Call is one call the harness makes: an exported function and its
// arguments (f64 arguments as their bits).
type Call struct {
	Func string
	Args []uint64
}

// Generate builds a valid program from data: every byte string gives one
// (decisions read past the end of data are 0). The program uses every
// kind of instruction, with structured control flow (if/else chains,
// counted loops nested up to three deep with breaks and continues,
// switches), irreducible loops (a cycle entered at several blocks), many
// values live at once (up to a few hundred registers), direct calls
// (recursion bounded by a depth parameter), host calls (the imports of
// StandardHosts: multiple results, failures, memory access, re-entrant
// calls, cancellation), loads and stores in and out of bounds, memory
// growth, and every trap condition.
//
// Every program terminates: each loop runs on its own counter, which no
// other code writes and which every iteration decrements; every function
// takes a depth as its first parameter, passes it unchanged to functions
// defined after it and passes it decremented (only while it is positive)
// to itself and to functions defined before it. A call tree can still be
// exponentially large; the harness's fuel limit, which every tier charges
// at the same instructions, stops it.
//
// NaN payloads may differ between tiers (the bytecode semantics allow it),
// so a generated program canonicalises an f64 before its bits become
// observable: before i64.reinterpret_f64, f64.store and the sign operand of
// f64.copysign.
func Generate(data []byte, opts GenOptions) (*Program, error) {
	g := &generator{src: &source{data: data}, opts: opts.withDefaults(), mb: bytecode.NewModuleBuilder()}
	return g.generate()
}

type generator struct {
	src  *source
	opts GenOptions
	mb   *bytecode.ModuleBuilder

	funcs    []*funcInfo
	hosts    []hostInfo
	memBytes int64
	// trapLevel (0..3) scales how often unguarded trapping forms appear.
	trapLevel int
	// rounding says whether f64 floor/ceil/trunc/nearest may appear
	// (they need SSE4.1; without them a module also compiles for SSE2).
	rounding bool
}

type funcInfo struct {
	fb  *bytecode.FuncBuilder
	sig bytecode.Signature
}

type hostInfo struct {
	index uint32
	imp   bytecode.HostImport
}

// interesting i64 and f64 values: boundaries of every operation.
var (
	i64Values = []int64{0, 1, -1, 2, 3, 5, 7, 8, 15, 16, 31, 32, 63, 64, 65, 100, 127, 128, 255, 256,
		1000, 4095, 4096, 65535, 65536, math.MaxInt32, math.MinInt32, 1<<32 - 1, 1 << 32, 1 << 53,
		math.MaxInt64, math.MinInt64, math.MinInt64 + 1, -2, -8, -64, -4096, -65536,
		0x5555555555555555, -0x123456789abcdef}
	f64Values = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3.75, 0.1, 1e300,
		-1e300, 5e-324, -1e-310, math.Inf(1), math.Inf(-1), math.NaN(), 9223372036854775807,
		-9223372036854775808, 9223372036854774784, -9223372036854777856, 18446744073709551616,
		18446744073709549568, 4294967296.5, 1 << 53, -0.9999999999999999, 0.9999999999999999}
	depthValues = []uint64{0, 1, 2, 3, 4, 6, 100}
)

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
	p := &Program{Module: m, Calls: calls}
	return p, nil
}

func (g *generator) randTypes(max int) []bytecode.Type {
	ts := make([]bytecode.Type, g.src.intn(max+1))
	for i := range ts {
		ts[i] = bytecode.I64
		if g.src.chance(1, 3) {
			ts[i] = bytecode.F64
		}
	}
	return ts
}

// argValue returns an argument of type t for a call from Go.
func (g *generator) argValue(t bytecode.Type) uint64 {
	s := g.src
	if t == bytecode.F64 {
		if s.chance(1, 4) {
			return s.u64()
		}
		return math.Float64bits(f64Values[s.intn(len(f64Values))])
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

	// poolI and poolF are the registers statements may write (and read).
	poolI, poolF []bytecode.Reg
	// readI and readF are further registers statements may only read: the
	// depth parameter, the counters of the enclosing loops, values kept
	// live across a statement.
	readI, readF []bytecode.Reg
	// depthTmp holds the decremented depth for backward calls; tmpI and
	// tmpF are scratch registers of guards and addresses, never read by
	// other statements.
	depthTmp bytecode.Reg
	tmpI     [2]bytecode.Reg
	tmpF     [2]bytecode.Reg
	limit    int // the instruction count the statements aim for
	loops    []loopLabels
	nest     int
}

type loopLabels struct{ exit, latch bytecode.Label }

func (g *generator) genFunc(idx int) {
	fi := g.funcs[idx]
	fg := &funcGen{g: g, s: g.src, idx: idx, fb: fi.fb, sig: fi.sig}
	s := fg.s
	fg.readI = append(fg.readI, 0) // the depth
	for i, t := range fi.sig.Params {
		if i == 0 {
			continue
		}
		if t == bytecode.I64 {
			fg.poolI = append(fg.poolI, bytecode.Reg(i))
		} else {
			fg.poolF = append(fg.poolF, bytecode.Reg(i))
		}
	}
	nI, nF := 4+s.intn(12), 2+s.intn(6)
	if s.chance(1, 3) { // a large register file: many values live at once
		nI, nF = 24+s.intn(100), 8+s.intn(40)
	}
	for len(fg.poolI) < nI {
		fg.poolI = append(fg.poolI, fg.fb.NewReg(bytecode.I64))
	}
	for len(fg.poolF) < nF {
		fg.poolF = append(fg.poolF, fg.fb.NewReg(bytecode.F64))
	}
	fg.depthTmp = fg.fb.NewReg(bytecode.I64)
	for i := range fg.tmpI {
		fg.tmpI[i] = fg.fb.NewReg(bytecode.I64)
		fg.tmpF[i] = fg.fb.NewReg(bytecode.F64)
	}
	// Registers start at zero; give some of them interesting values.
	for _, r := range fg.poolI {
		if s.chance(1, 2) {
			fg.fb.I64Const(r, fg.i64Imm())
		}
	}
	for _, r := range fg.poolF {
		if s.chance(1, 2) {
			fg.fb.F64Const(r, fg.f64Imm())
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

func (fg *funcGen) wi() bytecode.Reg { return fg.poolI[fg.s.intn(len(fg.poolI))] }
func (fg *funcGen) wf() bytecode.Reg { return fg.poolF[fg.s.intn(len(fg.poolF))] }

func (fg *funcGen) ri() bytecode.Reg {
	if len(fg.readI) > 0 && fg.s.chance(1, 4) {
		return fg.readI[fg.s.intn(len(fg.readI))]
	}
	return fg.wi()
}

func (fg *funcGen) rf() bytecode.Reg {
	if len(fg.readF) > 0 && fg.s.chance(1, 4) {
		return fg.readF[fg.s.intn(len(fg.readF))]
	}
	return fg.wf()
}

func (fg *funcGen) read(t bytecode.Type) bytecode.Reg {
	if t == bytecode.F64 {
		return fg.rf()
	}
	return fg.ri()
}

// dsts returns distinct writable registers of the given types.
func (fg *funcGen) dsts(ts []bytecode.Type) []bytecode.Reg {
	out := make([]bytecode.Reg, 0, len(ts))
	used := map[bytecode.Reg]bool{}
	for _, t := range ts {
		pool := fg.poolI
		if t == bytecode.F64 {
			pool = fg.poolF
		}
		start := fg.s.intn(len(pool))
		r := pool[start]
		for k := 1; used[r] && k < len(pool); k++ {
			r = pool[(start+k)%len(pool)]
		}
		if used[r] {
			r = fg.fb.NewReg(t)
			if t == bytecode.F64 {
				fg.poolF = append(fg.poolF, r)
			} else {
				fg.poolI = append(fg.poolI, r)
			}
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

func (fg *funcGen) f64Imm() float64 {
	if fg.s.chance(1, 6) {
		return math.Float64frombits(fg.s.u64())
	}
	return f64Values[fg.s.intn(len(f64Values))]
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
	var w [numKinds]int
	nestable := fg.nest < 5 && fg.room() > 8
	w[kSimple] = 30
	if nestable {
		w[kIf], w[kIfChain], w[kSwitch] = 6, 3, 2
		if len(fg.loops) < 3 {
			w[kLoop], w[kIrreducible] = 6, 2
		}
		if fg.nest < 2 {
			w[kPressure] = 1
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

var brOps = []bytecode.Op{bytecode.OpBrEq, bytecode.OpBrNe, bytecode.OpBrLtS, bytecode.OpBrLtU, bytecode.OpBrLeS,
	bytecode.OpBrLeU, bytecode.OpBrGtS, bytecode.OpBrGtU, bytecode.OpBrGeS, bytecode.OpBrGeU}

// condBranch emits a data-dependent branch to l.
func (fg *funcGen) condBranch(l bytecode.Label) {
	s := fg.s
	switch s.intn(4) {
	case 0:
		fg.fb.BrIf(fg.ri(), l)
	case 1:
		fg.fb.BrCmp(brOps[s.intn(len(brOps))], fg.ri(), fg.ri(), l)
	case 2:
		c := fg.wi()
		fg.fb.Binary(fcmpOps[s.intn(len(fcmpOps))], c, fg.rf(), fg.rf())
		fg.fb.BrIf(c, l)
	default:
		fg.fb.BrCmpImm(brOps[s.intn(len(brOps))], fg.ri(), fg.i64Imm(), l)
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

// tripCount emits the initialisation of a loop counter.
func (fg *funcGen) tripCount(c bytecode.Reg) {
	s := fg.s
	switch s.pick([]int{6, 6, 1, 1}) {
	case 0:
		fg.fb.I64Const(c, int64(s.intn(6)))
	case 1:
		fg.fb.BinaryImm(bytecode.OpI64And, c, fg.ri(), []int64{1, 3, 7}[s.intn(3)])
	case 2: // long enough to reach the poll interval
		fg.fb.BinaryImm(bytecode.OpI64And, c, fg.ri(), 2047)
	default: // any value: negative, or far beyond the fuel
		fg.fb.Mov(c, fg.ri())
	}
}

// loop emits a counted loop: a do-while or a while loop, counting down or
// up, with its counter readable in the body.
func (fg *funcGen) loop() {
	s, fb := fg.s, fg.fb
	c := fb.NewReg(bytecode.I64)
	fg.tripCount(c)
	head, latch, exit := fb.NewLabel(), fb.NewLabel(), fb.NewLabel()
	fg.loops = append(fg.loops, loopLabels{exit: exit, latch: latch})
	fg.readI = append(fg.readI, c)
	switch s.intn(3) {
	case 0: // do { body } while (--c > 0)
		fb.Bind(head)
		fg.block(1 + s.intn(4))
		fb.Bind(latch)
		fb.BinaryImm(bytecode.OpI64Sub, c, c, 1)
		fb.BrCmpImm(bytecode.OpBrGtS, c, 0, head)
	case 1: // while (c > 0) { body; c-- }
		fb.Bind(head)
		fb.BrCmpImm(bytecode.OpBrLeS, c, 0, exit)
		fg.block(1 + s.intn(4))
		fb.Bind(latch)
		fb.BinaryImm(bytecode.OpI64Sub, c, c, 1)
		fb.Jump(head)
	default: // for (i = 0; i < n; i++) { body }, n in a register of its own
		n := fb.NewReg(bytecode.I64)
		fb.Mov(n, c)
		fb.I64Const(c, 0)
		fg.readI = append(fg.readI, n)
		fb.Jump(latch)
		fb.Bind(head)
		fg.block(1 + s.intn(4))
		fb.BinaryImm(bytecode.OpI64Add, c, c, 1)
		fb.Bind(latch)
		fb.BrCmp(bytecode.OpBrLtS, c, n, head)
		fg.readI = fg.readI[:len(fg.readI)-1]
	}
	fb.Bind(exit)
	fg.readI = fg.readI[:len(fg.readI)-1]
	fg.loops = fg.loops[:len(fg.loops)-1]
}

// irreducible emits a loop entered at several of its blocks: segments S1..Sk
// and a latch that decrements the counter and goes back to S1; a branch or
// a switch before it enters at a later segment.
func (fg *funcGen) irreducible() {
	s, fb := fg.s, fg.fb
	c := fb.NewReg(bytecode.I64)
	fg.tripCount(c)
	segs := make([]bytecode.Label, 2+s.intn(3))
	for i := range segs {
		segs[i] = fb.NewLabel()
	}
	latch, exit := fb.NewLabel(), fb.NewLabel()
	if s.chance(1, 2) {
		fg.condBranch(segs[1+s.intn(len(segs)-1)])
	} else {
		t := fg.wi()
		fb.BinaryImm(bytecode.OpI64And, t, fg.ri(), 7)
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
	fg.readI = append(fg.readI, c)
	for _, l := range segs {
		fb.Bind(l)
		fg.block(1 + s.intn(2))
	}
	fb.Bind(latch)
	fb.BinaryImm(bytecode.OpI64Sub, c, c, 1)
	fb.BrCmpImm(bytecode.OpBrGtS, c, 0, segs[0])
	fb.Bind(exit)
	fg.readI = fg.readI[:len(fg.readI)-1]
	fg.loops = fg.loops[:len(fg.loops)-1]
}

func (fg *funcGen) switchStmt() {
	s, fb := fg.s, fg.fb
	cases := make([]bytecode.Label, 2+s.intn(5))
	for i := range cases {
		cases[i] = fb.NewLabel()
	}
	def, end := fb.NewLabel(), fb.NewLabel()
	t := fg.wi()
	switch s.intn(3) {
	case 0:
		fb.BinaryImm(bytecode.OpI64And, t, fg.ri(), 7)
	case 1:
		fb.BinaryImm(bytecode.OpI64Sub, t, fg.ri(), int64(s.intn(4)))
	default:
		fb.Mov(t, fg.ri())
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
	if fg.raw() {
		fg.condBranch(skip)
	} else {
		// Taken unless the register holds one particular large value.
		fg.fb.BrCmpImm(bytecode.OpBrNe, fg.ri(), int64(fg.s.u64()|1<<40), skip)
	}
	fg.fb.Trap(int64(fg.s.intn(1000)))
	fg.fb.Bind(skip)
}

// pressure defines many values, optionally runs one more statement (a loop,
// a call) while they are all live, and then folds them together.
func (fg *funcGen) pressure() {
	s, fb := fg.s, fg.fb
	n := 16 + s.intn(80)
	vals := make([]bytecode.Reg, n)
	isF64 := make([]bool, n)
	baseI, baseF := len(fg.readI), len(fg.readF)
	for i := range vals {
		if s.chance(1, 4) {
			v := fb.NewReg(bytecode.F64)
			fb.Binary([]bytecode.Op{bytecode.OpF64Add, bytecode.OpF64Mul}[s.intn(2)], v, fg.rf(), fg.rf())
			vals[i], isF64[i] = v, true
			fg.readF = append(fg.readF, v)
			continue
		}
		v := fb.NewReg(bytecode.I64)
		fb.BinaryImm([]bytecode.Op{bytecode.OpI64Add, bytecode.OpI64Xor, bytecode.OpI64Mul, bytecode.OpI64Sub}[s.intn(4)],
			v, fg.ri(), fg.i64Imm())
		vals[i] = v
		fg.readI = append(fg.readI, v)
	}
	if s.chance(1, 2) {
		fg.block(1)
	}
	accI, accF := fg.wi(), fg.wf()
	for i := n - 1; i >= 0; i-- {
		if isF64[i] {
			fb.Binary(bytecode.OpF64Add, accF, accF, vals[i])
		} else {
			fb.Binary([]bytecode.Op{bytecode.OpI64Add, bytecode.OpI64Xor, bytecode.OpI64Sub}[i%3], accI, accI, vals[i])
		}
	}
	fg.readI, fg.readF = fg.readI[:baseI], fg.readF[:baseF]
}

// canon returns a register holding x with any NaN replaced by the
// canonical NaN.
func (fg *funcGen) canon(x bytecode.Reg) bytecode.Reg {
	fb := fg.fb
	isNaN := fg.wi()
	fb.Binary(bytecode.OpF64Ne, isNaN, x, x)
	n := fg.wf()
	if n == x {
		n = fg.poolF[0]
		if n == x {
			n = fg.poolF[1]
		}
	}
	fb.Emit(bytecode.Instr{Op: bytecode.OpF64Const, Dst: n, Imm: canonicalNaN})
	y := fg.wf()
	fb.Select(y, isNaN, n, x)
	return y
}

// interpPollInterval is how many polls run between checks of the context.
const interpPollInterval = interp.PollInterval
