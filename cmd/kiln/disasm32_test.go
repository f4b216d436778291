package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/testprogs"
	"github.com/kiln-jit/kiln/lower"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden disassembly files")

// wide64 matches the Go-syntax mnemonics of 64-bit integer arithmetic.
var wide64 = regexp.MustCompile(`^(ADD|SUB|IMUL|IMUL3|AND|OR|XOR|SHL|SHR|SAR|ROL|ROR|NEG|NOT|CMP|TEST|LEA)Q$`)

// TestI32KernelsDisassembly compiles the i32 kernels with the optimizing
// tier for the full x86-64 target and compares the machine code with the
// golden disassembly in testdata/*.asm.golden (go test -update rewrites
// them). Besides the golden text it checks what the golden files are for:
// the code of every i32 arithmetic, comparison and branch instruction uses
// the 32-bit forms of the x86 instructions, never a 64-bit op plus a mask.
func TestI32KernelsDisassembly(t *testing.T) {
	for _, k := range testprogs.Kernels() {
		if k.Name != "sieve32" && k.Name != "hash32" {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			m := k.Module
			fn := m.ExportedFunc(k.Func)
			text, err := dumpFunc(m, fn, "asm", false, true, lower.FullTarget())
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", k.Name+".asm.golden")
			if *updateGolden {
				if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal([]byte(text), want) {
				t.Errorf("disassembly of %s differs from %s:\n%s", k.Name, golden, text)
			}
			checked := checkI32Forms(t, m.Funcs[fn], text)
			if checked < 10 {
				t.Errorf("only %d i32 instructions checked", checked)
			}
		})
	}
}

// checkI32Forms checks the machine instructions under each "; bytecode N"
// comment of text whose bytecode instruction computes or compares i32
// values, and returns how many such bytecode instructions it saw.
func checkI32Forms(t *testing.T, f *bytecode.Function, text string) int {
	t.Helper()
	pos, checked := -1, 0
	for _, line := range strings.Split(text, "\n") {
		if n, ok := strings.CutPrefix(line, "; bytecode "); ok {
			pos, _ = strconv.Atoi(n)
			in := f.Code[pos]
			info := in.Op.Info()
			if !(info.A == bytecode.I32 && (info.Dst == bytecode.I32 || info.Format == bytecode.FormatCmpBranch)) {
				pos = -1
			} else {
				checked++
			}
			continue
		}
		if pos < 0 || strings.HasPrefix(line, ";") || strings.Contains(line, "(R15)") {
			// Not i32 code, or the poll at a backward branch (a counter
			// in the execution context, R15).
			continue
		}
		fields := strings.Fields(line)
		// offset, bytes..., mnemonic, operands: the mnemonic is the first
		// field that is not a hex byte after the offset.
		for _, fld := range fields[1:] {
			if len(fld) == 2 && isHex(fld) {
				continue
			}
			if wide64.MatchString(fld) {
				t.Errorf("bytecode %d (%s): 64-bit instruction: %s", pos, f.Code[pos].Op, line)
			}
			break
		}
	}
	return checked
}

func isHex(s string) bool {
	_, err := strconv.ParseUint(s, 16, 8)
	return err == nil
}
