package fuzz

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// regressDir holds the minimized reproducers of mismatches found so far.
var regressDir = filepath.Join("testdata", "regress")

// randomInputs returns n pseudo-random generator inputs of 0 to maxLen
// bytes.
func randomInputs(seed uint64, n, maxLen int) [][]byte {
	r := rand.New(rand.NewPCG(seed, 0x6b696c6e))
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, r.IntN(maxLen+1))
		for k := range b {
			b[k] = byte(r.Uint32())
		}
		out[i] = b
	}
	return out
}

// FuzzDifferential generates a program from the input and requires every
// configuration to agree with the reference interpreter. A mismatch is
// minimized and written to testdata/regress, where TestRegressions keeps
// running it.
func FuzzDifferential(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, 64))
	for _, in := range randomInputs(1, 24, 3000) {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkGenerated(t, data)
	})
}

// checkGenerated runs the program generated from data through Check.
func checkGenerated(t *testing.T, data []byte) *Result {
	t.Helper()
	p, err := Generate(data, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Hosts: StandardHosts(), GlobalImports: p.GlobalImports}
	res, err := Check(p.Module, p.Calls, opts)
	if err == nil && p.Repeated != nil {
		// The repeated calls, in the configurations they are for.
		p = &Program{Module: p.Module, Calls: p.Repeated, GlobalImports: p.GlobalImports}
		opts.Configs = RepeatConfigs
		_, err = Check(p.Module, p.Calls, opts)
	}
	var mm *Mismatch
	if errors.As(err, &mm) {
		q := MinimizeMismatch(p, opts, mm, 2*time.Minute)
		_, qerr := Check(q.Module, q.Calls, Options{Hosts: StandardHosts(), GlobalImports: q.GlobalImports, Configs: []string{mm.Config}})
		var qmm *Mismatch
		if !errors.As(qerr, &qmm) {
			qmm = mm
		}
		path, werr := WriteRegression(regressDir, q, qmm)
		if werr != nil {
			path = werr.Error()
		}
		t.Fatalf("%v\nminimized reproducer: %s\n%s", err, path, FormatProgram(q, qmm.Error()))
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRegressions runs every reproducer kept under testdata/regress.
func TestRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(regressDir, "*.kasm"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no regression programs found")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ParseProgram(src)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Check(p.Module, p.Calls, Options{Hosts: StandardHosts(), GlobalImports: p.GlobalImports}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
