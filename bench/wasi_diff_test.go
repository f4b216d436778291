package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/wasm/wasi"
)

// wasiSuiteDir holds the C tests of the WASI test suite, built to .wasm,
// with their specifications and the tree they expect (see its
// README.md), in the library module.
const wasiSuiteDir = "../wasm/wasi/testdata/wasi-testsuite-c"

// wasiTestRun is how a test of the suite is run: its arguments after the
// program's name, its environment and the directory preopened as "/"
// ("" for none), from its specification (the legacy form's fields or the
// operation form's run operation).
type wasiTestRun struct {
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
	Root string            `json:"root"`
}

func readWASITestRun(t *testing.T, name string) wasiTestRun {
	var spec struct {
		wasiTestRun
		Operations []struct {
			wasiTestRun
			Type string `json:"type"`
		} `json:"operations"`
	}
	b, err := os.ReadFile(filepath.Join(wasiSuiteDir, name+".json"))
	if os.IsNotExist(err) {
		return spec.wasiTestRun
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	for _, op := range spec.Operations {
		if op.Type == "run" {
			spec.wasiTestRun = op.wasiTestRun
		}
	}
	return spec.wasiTestRun
}

// wasiOutcome is what a run of a WASI program did: its status, whether
// an error (a trap) ended it, its output and the tree it left.
type wasiOutcome struct {
	code           uint32
	err            error
	stdout, stderr string
	// before and tree are the preopened tree before and after the run.
	before, tree map[string]treeEntry
}

// treeEntry is a file of a tree: its kind and permissions and its
// contents (a regular file's bytes, a symbolic link's target).
type treeEntry struct {
	kind    string
	perm    fs.FileMode
	content string
}

func (e treeEntry) String() string {
	return fmt.Sprintf("%s %v %q", e.kind, e.perm, excerptString(e.content, 0))
}

// readTree returns the files under dir by their paths relative to it.
func readTree(t *testing.T, dir string) map[string]treeEntry {
	tree := map[string]treeEntry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := treeEntry{perm: info.Mode().Perm()}
		switch {
		case info.IsDir():
			e.kind = "directory"
		case info.Mode()&fs.ModeSymlink != 0:
			e.kind = "symbolic link"
			if e.content, err = os.Readlink(p); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			e.kind = "file"
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.content = string(b)
		default:
			e.kind = info.Mode().Type().String()
		}
		tree[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// runWASITest runs the suite's test name (module bin) on engine in a
// fresh copy of its tree.
func runWASITest(t *testing.T, engine, name string, bin []byte, spec wasiTestRun) wasiOutcome {
	var stdout, stderr bytes.Buffer
	p := &WASIProgram{Wasm: bin, Args: append([]string{name + ".wasm"}, spec.Args...), Stdout: &stdout, Stderr: &stderr}
	for k, v := range spec.Env {
		p.Env = append(p.Env, k+"="+v)
	}
	slices.Sort(p.Env)
	dir := ""
	if spec.Root != "" {
		dir = t.TempDir()
		// Both engines get the same copy: os.CopyFS gives the files 0666
		// and the directories 0777, less the umask.
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(wasiSuiteDir, spec.Root))); err != nil {
			t.Fatal(err)
		}
		p.Dirs = []wasi.Preopen{{HostDir: dir, GuestPath: "/"}}
	}
	var before map[string]treeEntry
	if dir != "" {
		before = readTree(t, dir)
	}
	res, err := RunWASI(context.Background(), engine, p)
	o := wasiOutcome{code: res.ExitCode, err: err, stdout: stdout.String(), stderr: stderr.String(), before: before}
	if dir != "" {
		o.tree = readTree(t, dir)
	}
	return o
}

// diffOutcomes lists the differences of got from want, leaving out
// those of the disagreement d (nil for none). The permissions of a file or
// directory the program made are not compared: WASI preview 1 gives a
// program no say in them (path_open and path_create_directory take no
// mode), and the runtimes choose differently: kiln creates files with 0666
// and directories with 0777, less the umask (0644 and 0755 under the usual
// umask 022), wazero files with 0600.
func diffOutcomes(got, want wasiOutcome, d *wasiDisagreement) []string {
	var diffs []string
	if d != nil && d.status {
		// The status, error and stderr that wazero gets wrong are compared
		// with the test's expectation instead: success, no error, no
		// output on stderr.
		want.code, want.err, want.stderr = 0, nil, ""
	}
	if got.code != want.code {
		diffs = append(diffs, fmt.Sprintf("exit status %d, wazero %d", got.code, want.code))
	}
	if (got.err != nil) != (want.err != nil) {
		diffs = append(diffs, fmt.Sprintf("error %s, wazero %s", firstLine(got.err), firstLine(want.err)))
	}
	if got.stdout != want.stdout {
		diffs = append(diffs, fmt.Sprintf("stdout %q, wazero %q", got.stdout, want.stdout))
	}
	if got.stderr != want.stderr {
		diffs = append(diffs, fmt.Sprintf("stderr %q, wazero %q", got.stderr, want.stderr))
	}
	var names []string
	for n := range got.tree {
		names = append(names, n)
	}
	for n := range want.tree {
		if _, ok := got.tree[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		g, inGot := got.tree[n]
		w, inWant := want.tree[n]
		switch {
		case !inWant:
			diffs = append(diffs, fmt.Sprintf("%s: %v, not left by wazero", n, g))
		case !inGot:
			diffs = append(diffs, fmt.Sprintf("%s: missing, wazero left %v", n, w))
		default:
			if _, old := got.before[n]; !old {
				g.perm, w.perm = 0, 0
			}
			if d != nil && slices.Contains(d.contents, n) {
				g.content, w.content = "", ""
			}
			if g != w {
				diffs = append(diffs, fmt.Sprintf("%s: %v, wazero %v", n, got.tree[n], want.tree[n]))
			}
		}
	}
	return diffs
}

// wasiDisagreement is a test of the suite that wazero's WASI fails where
// kiln's passes, wazero disagreeing with the specification.
type wasiDisagreement struct {
	// reason says what wazero does and what the specification says.
	reason string
	// status says that wazero's exit status, error and stderr are wrong:
	// kiln's are compared with the test's expectation (success, silence)
	// instead.
	status bool
	// contents are the files whose contents wazero's error leaves
	// different (their names, kinds and permissions still compared).
	contents []string
}

// wasiDisagreements are the tests wazero 1.12's WASI fails, by name.
var wasiDisagreements = map[string]*wasiDisagreement{
	"pwrite-with-append": {
		reason: "wazero's fd_pwrite on a descriptor opened with O_APPEND fails (it calls Go's os.File.WriteAt, " +
			"which refuses files opened with O_APPEND), so the test's assertion that pwrite writes 3 bytes fails; " +
			"POSIX has pwrite write at the offset, Linux at the end, and the test accepts either (kiln writes at the offset)",
		status:   true,
		contents: []string{"pwrite.cleanup"},
	},
	"sock_shutdown-not_sock": {
		reason: "wazero's sock_shutdown of a descriptor that is open but not a socket (stdout) fails with EBADF; " +
			"the test, as POSIX's shutdown, wants ENOTSOCK (kiln's)",
		status: true,
	},
}

// TestWASIDiff runs the C tests of the WASI test suite on kiln's WASI
// (package wasm/wasi, on every tier; the interpreter and the optimizing
// tier under -short) and on wazero's (its compiler, with
// imports/wasi_snapshot_preview1), each run in a fresh copy of the tree
// its specification preopens as "/" with its arguments and environment,
// and compares the exit status, whether an error ended the run, standard
// output and error, and the tree left behind: every file's and
// directory's name, kind, permissions and contents (see diffOutcomes).
// The tests wazero fails (wasiDisagreements) are checked against their
// expectation where wazero errs and against wazero for the rest; each
// must still fail on wazero, so that an entry does not outlive the bug.
func TestWASIDiff(t *testing.T) {
	wasms, err := filepath.Glob(filepath.Join(wasiSuiteDir, "*.wasm"))
	if err != nil || len(wasms) == 0 {
		t.Fatalf("no tests in %s: %v", wasiSuiteDir, err)
	}
	tiers := []string{KilnInterp, KilnBaseline, KilnOptimizing, KilnAuto}
	if testing.Short() {
		tiers = []string{KilnInterp, KilnOptimizing}
	}
	for _, w := range wasms {
		name := strings.TrimSuffix(filepath.Base(w), ".wasm")
		t.Run(name, func(t *testing.T) {
			bin, err := os.ReadFile(w)
			if err != nil {
				t.Fatal(err)
			}
			spec := readWASITestRun(t, name)
			want := runWASITest(t, Wazero, name, bin, spec)
			wazeroFails := want.err != nil || want.code != 0
			d := wasiDisagreements[name]
			switch {
			case d != nil && !wazeroFails:
				t.Errorf("wazero passes the test, which wasiDisagreements says it fails: %s", d.reason)
			case d != nil:
				t.Logf("wazero fails the test (exit status %d, error %s, stderr %q): %s",
					want.code, firstLine(want.err), want.stderr, d.reason)
			case wazeroFails:
				t.Logf("wazero: exit status %d, error %s, stderr %q", want.code, firstLine(want.err), want.stderr)
			}
			var made []string
			for n := range want.tree {
				if _, old := want.before[n]; !old {
					made = append(made, n)
				}
			}
			if len(made) > 0 {
				slices.Sort(made)
				t.Logf("files the program made on wazero: %s", strings.Join(made, ", "))
			}
			for _, tier := range tiers {
				t.Run(tier, func(t *testing.T) {
					got := runWASITest(t, tier, name, bin, spec)
					if diffs := diffOutcomes(got, want, d); len(diffs) > 0 {
						t.Errorf("kiln and wazero differ:\n\t%s", strings.Join(diffs, "\n\t"))
					}
				})
			}
		})
	}
}

// firstLine returns the first line of err's message ("none" for nil):
// wazero's traps add a stack trace.
func firstLine(err error) string {
	if err == nil {
		return "none"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// TestDiffOutcomes checks the comparison of two runs' outcomes on
// made-up ones: what counts as a difference, and what a disagreement or a
// file the program made leaves out.
func TestDiffOutcomes(t *testing.T) {
	file := func(perm fs.FileMode, content string) treeEntry { return treeEntry{"file", perm, content} }
	before := map[string]treeEntry{"a": file(0o644, "x"), "d": {"directory", 0o755, ""}}
	base := wasiOutcome{stdout: "out", before: before,
		tree: map[string]treeEntry{"a": file(0o644, "x"), "d": {"directory", 0o755, ""}, "new": file(0o644, "n")}}
	tests := []struct {
		name   string
		change func(o *wasiOutcome)
		d      *wasiDisagreement
		want   []string
	}{
		{"same", func(*wasiOutcome) {}, nil, nil},
		{"status", func(o *wasiOutcome) { o.code = 3 }, nil, []string{"exit status 3, wazero 0"}},
		{"error", func(o *wasiOutcome) { o.err = fmt.Errorf("trap\nstack") }, nil, []string{"error trap, wazero none"}},
		{"stdout", func(o *wasiOutcome) { o.stdout = "other" }, nil, []string{`stdout "other", wazero "out"`}},
		{"stderr", func(o *wasiOutcome) { o.stderr = "e" }, nil, []string{`stderr "e", wazero ""`}},
		{"contents", func(o *wasiOutcome) { o.tree = withEntry(o.tree, "a", file(0o644, "y")) }, nil,
			[]string{`a: file -rw-r--r-- "y", wazero file -rw-r--r-- "x"`}},
		{"old file's permissions", func(o *wasiOutcome) { o.tree = withEntry(o.tree, "a", file(0o600, "x")) }, nil,
			[]string{`a: file -rw------- "x", wazero file -rw-r--r-- "x"`}},
		{"new file's permissions", func(o *wasiOutcome) { o.tree = withEntry(o.tree, "new", file(0o600, "n")) }, nil, nil},
		{"extra file", func(o *wasiOutcome) { o.tree = withEntry(o.tree, "b", file(0o644, "")) }, nil,
			[]string{`b: file -rw-r--r-- "", not left by wazero`}},
		{"missing file", func(o *wasiOutcome) { o.tree = withEntry(o.tree, "new", treeEntry{}) }, nil,
			[]string{`new: missing, wazero left file -rw-r--r-- "n"`}},
		{"disagreement's contents", func(o *wasiOutcome) { o.tree = withEntry(o.tree, "new", file(0o644, "m")) },
			&wasiDisagreement{contents: []string{"new"}}, nil},
		// With a disagreement on the status, kiln's must be success, as
		// the test expects, whatever wazero's.
		{"disagreement's status", func(o *wasiOutcome) { o.code = 1 }, &wasiDisagreement{status: true},
			[]string{"exit status 1, wazero 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := base
			tt.change(&got)
			want := base
			if tt.d != nil && tt.d.status {
				want.code, want.err, want.stderr = 134, fmt.Errorf("unreachable"), "Assertion failed"
			}
			if diffs := diffOutcomes(got, want, tt.d); !slices.Equal(diffs, tt.want) {
				t.Errorf("differences %q, want %q", diffs, tt.want)
			}
		})
	}
}

// withEntry returns a copy of tree with name's entry e (none when e is
// the zero entry).
func withEntry(tree map[string]treeEntry, name string, e treeEntry) map[string]treeEntry {
	out := maps.Clone(tree)
	if e == (treeEntry{}) {
		delete(out, name)
	} else {
		out[name] = e
	}
	return out
}
