package fuzz

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-jit/kiln/bytecode"
)

// FormatProgram writes p in the text form of bytecode, preceded by comment
// lines: note (one comment line per line of it), one "; call NAME ARGS"
// line per call, with arguments in hexadecimal, and one "; global "IMPORT"
// VALUE" line per value of an imported global (the import name quoted as
// in Go, in sorted order). ParseProgram reads it back.
func FormatProgram(p *Program, note string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(note), "\n") {
		if line != "" {
			fmt.Fprintf(&b, "; %s\n", line)
		}
	}
	for _, c := range p.Calls {
		fmt.Fprintf(&b, "; call %s", c.Func)
		for _, a := range c.Args {
			fmt.Fprintf(&b, " %#x", a)
		}
		b.WriteByte('\n')
	}
	for _, name := range slices.Sorted(maps.Keys(p.GlobalImports)) {
		fmt.Fprintf(&b, "; global %s %#x\n", strconv.Quote(name), p.GlobalImports[name])
	}
	b.Write(bytecode.Disassemble(p.Module))
	return b.String()
}

// ParseProgram reads a program written by FormatProgram: the module from
// the bytecode text, the calls from its "; call" comment lines and the
// values of imported globals from its "; global" ones.
func ParseProgram(src []byte) (*Program, error) {
	m, err := bytecode.Assemble(src)
	if err != nil {
		return nil, err
	}
	p := &Program{Module: m}
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "; global "); ok {
			if err := parseGlobalImport(p, rest); err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			continue
		}
		rest, ok := strings.CutPrefix(line, "; call ")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("line %d: call without a function", i+1)
		}
		c := Call{Func: fields[0]}
		for _, f := range fields[1:] {
			v, err := strconv.ParseUint(f, 0, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: argument %q: %w", i+1, f, err)
			}
			c.Args = append(c.Args, v)
		}
		p.Calls = append(p.Calls, c)
	}
	if len(p.Calls) == 0 {
		return nil, fmt.Errorf("no \"; call\" lines")
	}
	return p, nil
}

// parseGlobalImport reads the rest of a "; global" line into
// p.GlobalImports.
func parseGlobalImport(p *Program, rest string) error {
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return fmt.Errorf("global import name: %w", err)
	}
	name, _ := strconv.Unquote(quoted)
	fields := strings.Fields(rest[len(quoted):])
	if len(fields) != 1 {
		return fmt.Errorf("global import %q: want one value", name)
	}
	v, err := strconv.ParseUint(fields[0], 0, 64)
	if err != nil {
		return fmt.Errorf("global import %q: %w", name, err)
	}
	if p.GlobalImports == nil {
		p.GlobalImports = map[string]uint64{}
	}
	p.GlobalImports[name] = v
	return nil
}

// WriteRegression writes p with FormatProgram to dir (created if needed),
// named after the mismatched configuration and a hash of the program, and
// returns the file's path. Regression tests run every such file.
func WriteRegression(dir string, p *Program, mm *Mismatch) (string, error) {
	note := mm.Error()
	text := FormatProgram(p, note)
	sum := sha256.Sum256([]byte(text))
	name := fmt.Sprintf("%s-%s.kasm", mm.Config, hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("fuzz: write regression: %w", err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("fuzz: write regression: %w", err)
	}
	return path, nil
}
