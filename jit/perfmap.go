package jit

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// Linux perf names code it cannot find in a binary by the map file
// /tmp/perf-PID.map: one line per symbol, "START SIZE NAME" with START
// and SIZE in hexadecimal. With Options.PerfMap every function a tier
// installs gets a line, named "kiln:TIER:FUNCTION" (the function's name
// in its module; code of a module loaded twice appears twice, at its two
// addresses). The file is only appended to, as perf expects: a line
// outlives the code it names when the module is collected, so profile
// runs that load and drop many modules can see an address named twice.

// perfMap appends symbol lines to one map file, shared by every engine of
// the process.
type perfMap struct {
	mu   sync.Mutex
	path string
	f    *os.File
	err  error // the first error opening the file, kept
}

var processPerfMap = &perfMap{path: fmt.Sprintf("/tmp/perf-%d.map", os.Getpid())}

// perfSymbol is one installed function.
type perfSymbol struct {
	addr uintptr
	size int
	name string
}

// write appends the symbols' lines; errors are returned, and opening the
// file is not retried after it failed.
func (p *perfMap) write(syms []perfSymbol) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil && p.err == nil {
		p.f, p.err = os.OpenFile(p.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	}
	if p.err != nil {
		return fmt.Errorf("jit: perf map: %w", p.err)
	}
	var b strings.Builder
	for _, s := range syms {
		fmt.Fprintf(&b, "%x %x %s\n", s.addr, s.size, s.name)
	}
	if _, err := p.f.WriteString(b.String()); err != nil {
		return fmt.Errorf("jit: perf map: %w", err)
	}
	return nil
}

// perfName is the symbol name of function name compiled by tier.
func perfName(tier Tier, name string) string {
	return "kiln:" + tier.String() + ":" + strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, name)
}
