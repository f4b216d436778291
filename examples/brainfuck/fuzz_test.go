package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/fuzz"
)

// bfOps are the eight Brainfuck commands; an input byte b stands for
// bfOps[b%8].
const bfOps = "+-<>.,[]"

// bfFromBytes turns fuzzer bytes into a Brainfuck program with balanced
// brackets (from the bytes before the first 0xff) and its standard input
// (the bytes after it).
func bfFromBytes(data []byte) (src, input []byte) {
	prog := data
	if i := bytes.IndexByte(data, 0xff); i >= 0 {
		prog, input = data[:i], data[i+1:]
	}
	depth := 0
	for _, b := range prog {
		c := bfOps[b%8]
		switch c {
		case '[':
			depth++
		case ']':
			if depth == 0 {
				continue
			}
			depth--
		}
		src = append(src, c)
	}
	for ; depth > 0; depth-- {
		src = append(src, ']')
	}
	return src, input
}

// bfToBytes is the inverse of bfFromBytes for seeds.
func bfToBytes(src, input string) []byte {
	var out []byte
	for _, c := range []byte(src) {
		if i := strings.IndexByte(bfOps, c); i >= 0 {
			out = append(out, byte(i))
		}
	}
	return append(append(out, 0xff), input...)
}

// FuzzFrontEnd is how an embedder fuzzes its own front end against kiln:
// it compiles fuzzer-made Brainfuck programs with this example's
// translator and has the fuzz harness run each in every kiln tier and
// back-end stage, comparing output (the putc host calls), input consumed,
// the tape and traps with the reference interpreter.
func FuzzFrontEnd(f *testing.F) {
	for _, p := range programs {
		f.Add(bfToBytes(p.src, p.in))
	}
	f.Add(bfToBytes("<", ""))
	f.Add(bfToBytes("+[]", ""))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, input := bfFromBytes(data)
		m, err := translate(src)
		if err != nil {
			t.Fatalf("translate %q: %v", src, err)
		}
		opts := fuzz.Options{
			// getc reads a stream: each configuration gets a fresh one.
			NewHosts: func() map[string]fuzz.HostFunc {
				in := input
				return map[string]fuzz.HostFunc{
					"putc": func(c *fuzz.HostCall) error { return nil }, // the harness logs the byte
					"getc": func(c *fuzz.HostCall) error {
						if len(in) == 0 {
							c.Results[0] = ^uint64(0) // EOF
							return nil
						}
						c.Results[0], in = uint64(in[0]), in[1:]
						return nil
					},
				}
			},
			Fuel: 5000, // infinite loops end the same way everywhere
		}
		if _, err := fuzz.Check(m, []fuzz.Call{{Func: "run"}}, opts); err != nil {
			t.Fatalf("%v\nprogram: %s", err, src)
		}
	})
}

// TestFrontEndSeedsRoundTrip checks that the seeds encode their programs.
func TestFrontEndSeedsRoundTrip(t *testing.T) {
	for _, p := range programs {
		src, input := bfFromBytes(bfToBytes(p.src, p.in))
		var want []byte
		for _, c := range []byte(p.src) {
			if strings.IndexByte(bfOps, c) >= 0 {
				want = append(want, c)
			}
		}
		if string(src) != string(want) || string(input) != p.in {
			t.Errorf("%s: decoded %q with input %q", p.name, src, input)
		}
	}
}
