package encode

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/twitchyliquid64/golang-asm/asm/arch"
	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
	"github.com/twitchyliquid64/golang-asm/objabi"

	"github.com/kiln-jit/kiln/mir"
)

// golang-asm is Go's own assembler back end. kiln drives its lower layers
// directly (not its Builder) so that:
//   - an instruction it cannot encode is an error (its DiagFunc records the
//     message; the Builder prints it and silently drops the instruction);
//   - its Go 1.15 jump padding is on (IsAsm false: the code is not
//     hand-written assembly): NOPs keep every jump, call and return
//     (with the compare, test or arithmetic fused with a conditional
//     jump) from crossing or ending on a 32-byte boundary, counted from
//     the start of the code (see CodeAlign). On Intel cores of the
//     Skylake family with the microcode for the JCC erratum (SKX102),
//     such a jump keeps its 32-byte window out of the decoded-instruction
//     cache: without the padding, hot loops of the kernels ran up to 17%
//     slower, depending on where their jumps happened to fall;
//   - one obj.Link context is reused for many functions (a Builder costs
//     ~80 µs and ~127 KB to create), with a pool of contexts because a
//     context is not safe for concurrent use;
//   - the first initialisation of its global instruction tables, which is
//     racy, happens once under a sync.Once.

type assembler struct {
	arch        *arch.Arch
	ctxt        *obj.Link
	errs        []string
	first, last *obj.Prog
	// progs holds the instructions of the list being built, in blocks
	// of progBlock; used counts those handed out. The blocks are reused
	// by the next list (reset), so a function encoded in chunks needs
	// instruction memory for one chunk only.
	progs [][]obj.Prog
	used  int
	// formCache holds the instruction forms this assembler used last (see
	// forms.go); spans the instructions of the list being laid out, and
	// code and relocs the result of assemble (span.go).
	formCache *[formCacheSize]formCacheEntry
	spans     []spanInst
	code      []byte
	relocs    []obj.Reloc
}

// progBlock is the number of instructions allocated at a time, and
// maxPooledProgBlocks the number of blocks an idle assembler keeps.
const (
	progBlock           = 512
	maxPooledProgBlocks = 64
)

var (
	warmOnce   sync.Once
	warmArch   *arch.Arch
	assemblers = sync.Pool{New: func() any { return newAssembler() }}
)

func newAssembler() *assembler {
	warmOnce.Do(func() { warmArch = arch.Set("amd64") })
	a := &assembler{arch: warmArch}
	a.ctxt = obj.Linknew(warmArch.LinkArch)
	a.ctxt.Headtype = objabi.Hlinux
	a.ctxt.IsAsm = false // pad jumps (see above)
	a.ctxt.DiagFunc = func(format string, args ...interface{}) {
		a.errs = append(a.errs, fmt.Sprintf(format, args...))
	}
	initMu.Lock()
	warmArch.Init(a.ctxt)
	initMu.Unlock()
	return a
}

// initMu serialises the architecture's per-context initialisation, which
// touches shared tables on first use.
var initMu sync.Mutex

func getAssembler() *assembler {
	a := assemblers.Get().(*assembler)
	a.errs = a.errs[:0]
	a.reset()
	return a
}

func putAssembler(a *assembler) {
	a.reset()
	if len(a.progs) > maxPooledProgBlocks {
		clear(a.progs[maxPooledProgBlocks:])
		a.progs = a.progs[:maxPooledProgBlocks]
	}
	assemblers.Put(a)
}

// reset empties the instruction list; the instructions handed out so far
// must no longer be used.
func (a *assembler) reset() {
	a.first, a.last = nil, nil
	a.used = 0
}

// newProg returns a zeroed instruction of the current list.
func (a *assembler) newProg() *obj.Prog {
	b, i := a.used/progBlock, a.used%progBlock
	if b == len(a.progs) {
		a.progs = append(a.progs, make([]obj.Prog, progBlock))
	}
	a.used++
	p := &a.progs[b][i]
	*p = obj.Prog{Ctxt: a.ctxt}
	return p
}

// add appends an instruction.
func (a *assembler) add(as obj.As) *obj.Prog {
	p := a.newProg()
	p.As = as
	if a.first == nil {
		a.first = p
	} else {
		a.last.Link = p
	}
	a.last = p
	return p
}

// label returns a new label: a zero-size instruction branches can target,
// appended when bind is called.
func (a *assembler) label() *obj.Prog {
	p := a.newProg()
	p.As = obj.ANOP
	return p
}

// bind places a label at the current end of the instruction list.
func (a *assembler) bind(l *obj.Prog) {
	if a.first == nil {
		a.first = l
	} else {
		a.last.Link = l
	}
	a.last = l
}

// assemble encodes the instruction list, returning the bytes and the
// relocations the assembler left (PC-relative references to our pool
// symbols), valid until the next assemble. The instructions' Pc fields
// hold their offsets until reset.
//
// The list is laid out and encoded from the instruction forms' templates
// (span.go, forms.go), to the byte what golang-asm's own assembly would
// give; a list with an instruction the forms do not cover goes through
// golang-asm. asmMode switches for tests.
func (a *assembler) assemble() ([]byte, []obj.Reloc, error) {
	if a.first == nil {
		return nil, nil, nil
	}
	switch asmMode(assembleMode.Load()) {
	case modeGolangAsm:
		return a.assembleGolang()
	case modeCompare:
		return a.assembleCompare()
	}
	code, relocs, err := a.assembleForms()
	if err == errNotCovered {
		uncovered.Add(1)
		return a.assembleGolang()
	}
	return code, relocs, err
}

// uncovered counts the lists the forms did not cover.
var uncovered atomic.Int64

// assembleGolang assembles the list with golang-asm's span6.
func (a *assembler) assembleGolang() ([]byte, []obj.Reloc, error) {
	s := &obj.LSym{Func: &obj.FuncInfo{Text: a.first}}
	a.arch.Assemble(a.ctxt, s, a.ctxt.NewProg)
	if len(a.errs) > 0 {
		return nil, nil, errors.New("golang-asm: " + a.errs[0])
	}
	return s.P, s.R, nil
}

// asmMode selects how assemble encodes a list.
type asmMode int32

const (
	// modeForms: from the forms' templates, golang-asm for the lists
	// they do not cover.
	modeForms asmMode = iota
	// modeGolangAsm: golang-asm for every list.
	modeGolangAsm
	// modeCompare: both, an error if they differ in a byte, a
	// relocation or an instruction's offset; golang-asm's result.
	modeCompare
)

// assembleMode is the asmMode of every assembly (tests set it).
var assembleMode atomic.Int32

// assembleCompare assembles the list from the forms and with golang-asm
// and checks that they agree.
func (a *assembler) assembleCompare() ([]byte, []obj.Reloc, error) {
	code, relocs, err := a.assembleForms()
	if err == errNotCovered {
		uncovered.Add(1)
		return a.assembleGolang()
	}
	if err != nil {
		return nil, nil, err
	}
	code, relocs = slices.Clone(code), slices.Clone(relocs)
	pcs := make([]int64, 0, len(a.spans))
	for p := a.first; p != nil; p = p.Link {
		pcs = append(pcs, p.Pc)
	}
	want, wantRelocs, err := a.assembleGolang()
	if err != nil {
		return nil, nil, fmt.Errorf("the forms encode what golang-asm does not: %w", err)
	}
	if !bytes.Equal(code, want) {
		at := 0
		for at < min(len(code), len(want)) && code[at] == want[at] {
			at++
		}
		return nil, nil, fmt.Errorf("the forms' code differs from golang-asm's at byte %#x of %d (golang-asm %d bytes)", at, len(code), len(want))
	}
	if !slices.Equal(relocs, wantRelocs) {
		return nil, nil, fmt.Errorf("the forms' relocations %v differ from golang-asm's %v", relocs, wantRelocs)
	}
	// golang-asm splices its padding NOPs into the list: skip them.
	i := 0
	for p := a.first; p != nil; p = p.Link {
		if i < len(a.spans) && a.spans[i].p == p {
			if p.Pc != pcs[i] {
				return nil, nil, fmt.Errorf("instruction %d (%v) at %#x from the forms, %#x from golang-asm", i, p, pcs[i], p.Pc)
			}
			i++
		}
	}
	if i != len(a.spans) {
		return nil, nil, fmt.Errorf("golang-asm's list has %d of the %d instructions", i, len(a.spans))
	}
	return want, wantRelocs, nil
}

// Registers of golang-asm, by mir encoding number.
var gprAddr = [16]int16{x86.REG_AX, x86.REG_CX, x86.REG_DX, x86.REG_BX, x86.REG_SP, x86.REG_BP, x86.REG_SI, x86.REG_DI,
	x86.REG_R8, x86.REG_R9, x86.REG_R10, x86.REG_R11, x86.REG_R12, x86.REG_R13, x86.REG_R14, x86.REG_R15}

var xmmAddr = [16]int16{x86.REG_X0, x86.REG_X1, x86.REG_X2, x86.REG_X3, x86.REG_X4, x86.REG_X5, x86.REG_X6, x86.REG_X7,
	x86.REG_X8, x86.REG_X9, x86.REG_X10, x86.REG_X11, x86.REG_X12, x86.REG_X13, x86.REG_X14, x86.REG_X15}

func asmReg(r mir.Reg) int16 {
	if r >= mir.X0 {
		return xmmAddr[r-mir.X0]
	}
	return gprAddr[r]
}

func regOp(r mir.Reg) obj.Addr { return obj.Addr{Type: obj.TYPE_REG, Reg: asmReg(r)} }

func constOp(v int64) obj.Addr { return obj.Addr{Type: obj.TYPE_CONST, Offset: v} }

func memOp(base mir.Reg, off int64) obj.Addr {
	return obj.Addr{Type: obj.TYPE_MEM, Reg: asmReg(base), Offset: off}
}

func memIdxOp(base, index mir.Reg, scale uint8, off int64) obj.Addr {
	if index == mir.NoReg {
		return memOp(base, off)
	}
	return obj.Addr{Type: obj.TYPE_MEM, Reg: asmReg(base), Index: asmReg(index), Scale: int16(scale), Offset: off}
}

func ctxOp(off int64) obj.Addr { return memOp(mir.CtxReg, off) }

// symOp references an offset in one of our pool symbols, RIP-relative.
func symOp(s *obj.LSym, off int64) obj.Addr {
	return obj.Addr{Type: obj.TYPE_MEM, Name: obj.NAME_EXTERN, Sym: s, Offset: off}
}

func branchTo(p *obj.Prog, target *obj.Prog) {
	p.To.Type = obj.TYPE_BRANCH
	p.To.SetTarget(target)
}

// Condition codes as golang-asm's jumps, SETcc and CMOVQcc.
var (
	jcc = [16]obj.As{x86.AJOS, x86.AJOC, x86.AJCS, x86.AJCC, x86.AJEQ, x86.AJNE, x86.AJLS, x86.AJHI,
		x86.AJMI, x86.AJPL, x86.AJPS, x86.AJPC, x86.AJLT, x86.AJGE, x86.AJLE, x86.AJGT}
	setcc = [16]obj.As{x86.ASETOS, x86.ASETOC, x86.ASETCS, x86.ASETCC, x86.ASETEQ, x86.ASETNE, x86.ASETLS, x86.ASETHI,
		x86.ASETMI, x86.ASETPL, x86.ASETPS, x86.ASETPC, x86.ASETLT, x86.ASETGE, x86.ASETLE, x86.ASETGT}
	cmovcc = [16]obj.As{x86.ACMOVQOS, x86.ACMOVQOC, x86.ACMOVQCS, x86.ACMOVQCC, x86.ACMOVQEQ, x86.ACMOVQNE, x86.ACMOVQLS, x86.ACMOVQHI,
		x86.ACMOVQMI, x86.ACMOVQPL, x86.ACMOVQPS, x86.ACMOVQPC, x86.ACMOVQLT, x86.ACMOVQGE, x86.ACMOVQLE, x86.ACMOVQGT}
)
