package jit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"sync"

	"github.com/kiln-jit/kiln/encode"
)

// The jitdump file (Options.JITDump) is Linux perf's record of JIT code,
// documented in the Linux sources as
// tools/perf/Documentation/jitdump-specification.txt: a header, then for
// every installed function a debug-info record (machine code offset ->
// bytecode offset, as "file" kiln:TIER:NAME and "line" the offset plus
// one) and a code-load record with the code's bytes. perf record notices
// the file because the process maps it executable; perf inject --jit
// turns the records into ELF images that perf report and perf annotate
// read:
//
//	perf record -k mono -g ./program
//	perf inject --jit -i perf.data -o perf.jit.data
//	perf report -i perf.jit.data
//
// The timestamps are CLOCK_MONOTONIC, which -k mono makes perf use.

// jitdump record ids and constants of the format.
const (
	jitdumpMagic     = 0x4A695444
	jitdumpVersion   = 1
	jitdumpHeader    = 40
	jitdumpMachine   = 62 // EM_X86_64
	jitCodeLoad      = 0
	jitCodeDebugInfo = 2
)

// jitDump appends records to one jitdump file, shared by every engine of
// the process.
type jitDump struct {
	mu    sync.Mutex
	path  string
	f     *os.File
	err   error  // the first error opening the file, kept
	index uint64 // code_index of the next code-load record
}

var processJITDump = &jitDump{path: fmt.Sprintf("/tmp/jit-%d.dump", os.Getpid())}

// jitSymbol is one installed function for the jitdump file.
type jitSymbol struct {
	addr uintptr
	code []byte
	name string
	pos  []encode.PosEntry
}

// open creates the file, writes its header and maps it for perf.
func (d *jitDump) open() error {
	f, err := os.OpenFile(d.path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	var h bytes.Buffer
	for _, v := range []uint32{jitdumpMagic, jitdumpVersion, jitdumpHeader, jitdumpMachine, 0, uint32(os.Getpid())} {
		binary.Write(&h, binary.LittleEndian, v)
	}
	binary.Write(&h, binary.LittleEndian, monotonicNanos())
	binary.Write(&h, binary.LittleEndian, uint64(0)) // flags
	if _, err := f.Write(h.Bytes()); err != nil {
		f.Close()
		return err
	}
	// The mapping stays for the life of the process, as perf expects.
	if err := mapForPerf(f); err != nil {
		f.Close()
		return err
	}
	d.f = f
	return nil
}

// write appends a debug-info and a code-load record per symbol.
func (d *jitDump) write(syms []jitSymbol) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.f == nil && d.err == nil {
		d.err = d.open()
	}
	if d.err != nil {
		return fmt.Errorf("jit: jitdump: %w", d.err)
	}
	var b bytes.Buffer
	for _, s := range syms {
		appendDebugInfo(&b, s)
		appendCodeLoad(&b, s, d.index)
		d.index++
	}
	if _, err := d.f.Write(b.Bytes()); err != nil {
		return fmt.Errorf("jit: jitdump: %w", err)
	}
	return nil
}

// recordHeader appends a record header.
func recordHeader(b *bytes.Buffer, id uint32, size int) {
	binary.Write(b, binary.LittleEndian, id)
	binary.Write(b, binary.LittleEndian, uint32(size))
	binary.Write(b, binary.LittleEndian, monotonicNanos())
}

// appendDebugInfo appends the record mapping s's code to bytecode
// offsets: an entry per PosMap entry that has an offset.
func appendDebugInfo(b *bytes.Buffer, s jitSymbol) {
	var entries bytes.Buffer
	n := 0
	for _, e := range s.pos {
		if e.Pos < 0 || e.Offset >= len(s.code) {
			continue
		}
		binary.Write(&entries, binary.LittleEndian, uint64(s.addr)+uint64(e.Offset))
		binary.Write(&entries, binary.LittleEndian, uint32(e.Pos)+1) // lines count from 1
		binary.Write(&entries, binary.LittleEndian, uint32(0))       // discriminator
		entries.WriteString(s.name)
		entries.WriteByte(0)
		n++
	}
	recordHeader(b, jitCodeDebugInfo, 16+16+entries.Len())
	binary.Write(b, binary.LittleEndian, uint64(s.addr))
	binary.Write(b, binary.LittleEndian, uint64(n))
	b.Write(entries.Bytes())
}

// appendCodeLoad appends the record that announces s's code.
func appendCodeLoad(b *bytes.Buffer, s jitSymbol, index uint64) {
	recordHeader(b, jitCodeLoad, 16+8+8*4+len(s.name)+1+len(s.code))
	binary.Write(b, binary.LittleEndian, uint32(os.Getpid()))
	binary.Write(b, binary.LittleEndian, uint32(threadID()))
	binary.Write(b, binary.LittleEndian, uint64(s.addr)) // vma
	binary.Write(b, binary.LittleEndian, uint64(s.addr)) // code_addr
	binary.Write(b, binary.LittleEndian, uint64(len(s.code)))
	binary.Write(b, binary.LittleEndian, index)
	b.WriteString(s.name)
	b.WriteByte(0)
	b.Write(s.code)
}
