package encode

import (
	"encoding/binary"
	"errors"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
)

// The layout of an instruction list, as golang-asm's span6 does it, with
// the instructions other than branches encoded once from their forms'
// templates (forms.go), into the code of the last pass, rather than
// matched and encoded again on every pass:
//
//   - Branches start short (2 bytes); a backward branch is short when its
//     displacement fits in a byte, a forward one becomes long (5 bytes for
//     JMP, 6 for a conditional jump) for good once a pass finds it too far,
//     and the list is laid out again.
//   - Jump padding (the JCC erratum; see asm.go and CodeAlign): before a
//     jump, call or return, or a compare, test or arithmetic instruction
//     that fuses with the conditional jump after it (Intel's macro-fusion
//     rules, as golang-asm's fusedJump), NOPs fill up to the next 32-byte
//     boundary when the jump (or the fused pair) would otherwise cross or
//     end on it. The test uses the sizes of the previous pass (zero in the
//     first one), and a pass in which such an instruction's size changed is
//     followed by another, as golang-asm does; so the layout, NOPs included,
//     is golang-asm's byte for byte.

// spanInst is an instruction of the list being laid out.
type spanInst struct {
	p *obj.Prog
	// f is the instruction's form (nil for branches and labels), size
	// the length of its code.
	f    *form
	size int32
	// isize is its size in the last pass, pc its offset.
	isize, pc int32
	// jump: a jump, call or return (golang-asm's isJump); fuse: the index
	// of the conditional jump it fuses with, or -1.
	jump bool
	fuse int32
	// Branches: cc is the condition code (-1 for JMP, -2 not a branch);
	// target the index of the target (-1 when it is not in the list);
	// back a branch to itself or an earlier instruction; short whether a
	// forward branch still is short; rel and forwd link the forward
	// branches to an instruction within a pass.
	cc          int8
	back, short bool
	target      int32
	rel, forwd  int32
}

// jccOf maps conditional jumps to their condition codes.
var jccOf = func() map[obj.As]int8 {
	m := map[obj.As]int8{}
	for cc, as := range jcc {
		m[as] = int8(cc)
	}
	return m
}()

// maxSpanPasses is golang-asm's limit on the layout passes.
const maxSpanPasses = 20

// errNotCovered reports a list the forms do not cover: golang-asm
// assembles it.
var errNotCovered = errors.New("not covered by the instruction forms")

// assembleForms lays out and encodes the list as golang-asm would, with
// the instructions' forms. It returns errNotCovered when an instruction
// has no template (golang-asm cannot encode its form, or the form does
// not fit the template model), or is a branch or prefix whose layout
// rules are not modelled here.
func (a *assembler) assembleForms() ([]byte, []obj.Reloc, error) {
	if cap(a.spans) < a.used {
		a.spans = make([]spanInst, 0, a.used) // a.used bounds the list's length
	}
	insts := a.spans[:0]
	for p := a.first; p != nil; p = p.Link {
		in := spanInst{p: p, fuse: -1, cc: -2, target: -1, rel: -1, forwd: -1}
		p.Pc = int64(len(insts)) // its index, until the layout is done
		switch {
		case p.To.Type == obj.TYPE_BRANCH:
			if p.To.Sym != nil || p.From.Type != obj.TYPE_NONE || len(p.RestArgs) != 0 {
				return nil, nil, errNotCovered
			}
			if p.As == obj.AJMP {
				in.cc = -1
			} else if cc, ok := jccOf[p.As]; ok {
				in.cc = cc
			} else {
				return nil, nil, errNotCovered
			}
			in.jump, in.short = true, true
		case p.As == obj.ANOP:
			if p.From.Type != obj.TYPE_NONE || p.To.Type != obj.TYPE_NONE {
				return nil, nil, errNotCovered
			}
			// A label: no code.
		case p.As == x86.ALOCK || p.As == x86.AXACQUIRE || p.As == x86.AXRELEASE:
			return nil, nil, errNotCovered // prefixes of fused jumps
		default:
			k, ok := formKeyOf(p)
			if !ok {
				return nil, nil, errNotCovered
			}
			f := a.lookupForm(k)
			if f == nil || f.bad {
				return nil, nil, errNotCovered
			}
			in.f, in.size = f, int32(f.n)
			in.jump = p.As == obj.AJMP || p.As == obj.ACALL || p.As == obj.ARET || p.As == obj.ADUFFCOPY || p.As == obj.ADUFFZERO
		}
		insts = append(insts, in)
	}
	a.spans = insts
	// Branch targets, and the compares and arithmetic that fuse with the
	// conditional jump after them.
	for i := range insts {
		in := &insts[i]
		if in.cc != -2 {
			t := in.p.To.Target()
			if t == nil {
				t = in.p // golang-asm makes a branch without a target a branch to itself
			}
			if k := t.Pc; k >= 0 && k < int64(len(insts)) && insts[k].p == t {
				in.target = int32(k)
				in.back = int(k) <= i
			}
		}
		in.fuse = fusedWith(insts, i)
	}
	// The passes.
	const pad = 32
	for pass := 0; ; pass++ {
		if pass == maxSpanPasses {
			return nil, nil, errors.New("the branch layout does not converge")
		}
		again := false
		c := int32(0)
		for i := range insts {
			in := &insts[i]
			switch {
			case in.fuse >= 0:
				if c&(pad-1)+in.isize+insts[in.fuse].isize >= pad {
					c += pad - c&(pad-1)
				}
			case in.jump:
				if c&(pad-1)+in.isize >= pad {
					c += pad - c&(pad-1)
				}
			}
			in.pc = c
			for q := in.rel; q >= 0; q = insts[q].forwd {
				b := &insts[q]
				if b.short && c-(b.pc+b.isize) > 127 {
					again = true
					b.short = false
				}
			}
			in.rel = -1
			m := in.size
			if in.cc != -2 {
				long := int32(5)
				if in.cc >= 0 {
					long = 6
				}
				switch {
				case in.back:
					m = 2
					if insts[in.target].pc-(c+2) < -128 {
						m = long
					}
				case in.short:
					m = 2
				default:
					m = long
				}
				if !in.back && in.target >= 0 {
					in.forwd = insts[in.target].rel
					insts[in.target].rel = int32(i)
				}
			}
			if in.isize != m {
				in.isize = m
				if in.fuse >= 0 || in.jump {
					again = true
				}
			}
			c += m
		}
		if !again {
			break
		}
	}
	// The code.
	code := a.code[:0]
	relocs := a.relocs[:0]
	for i := range insts {
		in := &insts[i]
		if gap := int(in.pc) - len(code); gap > 0 {
			code = appendNops(code, gap)
		}
		in.p.Pc = int64(in.pc)
		if in.f != nil {
			in.f.instantiate(in.p, &code, &relocs, int64(in.pc))
			continue
		}
		if in.cc == -2 {
			continue // a label
		}
		var disp int32
		if in.target >= 0 {
			disp = insts[in.target].pc - (in.pc + in.isize)
		}
		switch {
		case in.isize == 2 && in.cc < 0:
			code = append(code, 0xeb, byte(disp))
		case in.isize == 2:
			code = append(code, 0x70+byte(in.cc), byte(disp))
		case in.cc < 0:
			code = binary.LittleEndian.AppendUint32(append(code, 0xe9), uint32(disp))
		default:
			code = binary.LittleEndian.AppendUint32(append(code, 0x0f, 0x80+byte(in.cc)), uint32(disp))
		}
	}
	a.code, a.relocs = code, relocs
	return code, relocs, nil
}

// fusedWith returns the index of the conditional jump instruction i fuses
// with, as golang-asm's fusedJump decides it, or -1.
func fusedWith(insts []spanInst, i int) int32 {
	p := insts[i].p
	cmp := p.As == x86.ACMPB || p.As == x86.ACMPL || p.As == x86.ACMPQ || p.As == x86.ACMPW
	cmpAddSub := p.As == x86.AADDB || p.As == x86.AADDL || p.As == x86.AADDW || p.As == x86.AADDQ ||
		p.As == x86.ASUBB || p.As == x86.ASUBL || p.As == x86.ASUBW || p.As == x86.ASUBQ || cmp
	testAnd := p.As == x86.ATESTB || p.As == x86.ATESTL || p.As == x86.ATESTQ || p.As == x86.ATESTW ||
		p.As == x86.AANDB || p.As == x86.AANDL || p.As == x86.AANDQ || p.As == x86.AANDW
	incDec := p.As == x86.AINCB || p.As == x86.AINCL || p.As == x86.AINCQ || p.As == x86.AINCW ||
		p.As == x86.ADECB || p.As == x86.ADECL || p.As == x86.ADECQ || p.As == x86.ADECW
	if !cmpAddSub && !testAnd && !incDec {
		return -1
	}
	if !incDec {
		one, two := p.To.Type, p.From.Type
		if cmp {
			one, two = p.From.Type, p.To.Type
		}
		switch one {
		case obj.TYPE_REG:
			if two != obj.TYPE_REG && two != obj.TYPE_CONST && two != obj.TYPE_MEM {
				return -1
			}
		case obj.TYPE_MEM:
			if two != obj.TYPE_REG {
				return -1
			}
		default:
			return -1
		}
	}
	// The next instruction but labels must be a conditional jump (to a
	// label: golang-asm makes one without a target a jump to itself).
	j := i + 1
	for j < len(insts) && insts[j].p.As == obj.ANOP {
		j++
	}
	if j == len(insts) || insts[j].cc < 0 {
		return -1
	}
	if testAnd {
		return int32(j)
	}
	as := jcc[insts[j].cc]
	if as == x86.AJOC || as == x86.AJOS || as == x86.AJMI || as == x86.AJPL || as == x86.AJPS || as == x86.AJPC {
		return -1
	}
	if cmpAddSub {
		return int32(j)
	}
	if as == x86.AJCS || as == x86.AJCC || as == x86.AJHI || as == x86.AJLS {
		return -1
	}
	return int32(j)
}

// nops are golang-asm's NOPs of 1 to 9 bytes (fillnop).
var nops = [9][]byte{
	{0x90},
	{0x66, 0x90},
	{0x0f, 0x1f, 0x00},
	{0x0f, 0x1f, 0x40, 0x00},
	{0x0f, 0x1f, 0x44, 0x00, 0x00},
	{0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
	{0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
	{0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
	{0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
}

// appendNops appends n bytes of NOPs as golang-asm's fillnop does.
func appendNops(code []byte, n int) []byte {
	for n > 0 {
		m := min(n, len(nops))
		code = append(code, nops[m-1]...)
		n -= m
	}
	return code
}
