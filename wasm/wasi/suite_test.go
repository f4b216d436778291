package wasi

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// suiteDir holds the C tests of the WASI test suite, built to .wasm (see
// its README.md), with their specifications and the tree they expect.
const suiteDir = "testdata/wasi-testsuite-c"

// suiteSpec is a test's specification in the suite's legacy form (the
// operation-based form is read too, for its run, wait and read
// operations).
type suiteSpec struct {
	suiteRun
	ExitCode uint32 `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`

	Operations []struct {
		suiteRun
		Type     string `json:"type"`
		ExitCode uint32 `json:"exit_code"`
		ID       string `json:"id"`
		Payload  string `json:"payload"`
	} `json:"operations"`
}

// suiteRun is how a test is run.
type suiteRun struct {
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
	Root string            `json:"root"`
}

// readSpec reads the specification of the test name, the default one
// when it has none.
func readSpec(t *testing.T, name string) suiteSpec {
	var spec suiteSpec
	b, err := os.ReadFile(filepath.Join(suiteDir, name+".json"))
	if os.IsNotExist(err) {
		return spec
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	for _, op := range spec.Operations {
		switch op.Type {
		case "run":
			spec.suiteRun = op.suiteRun
		case "wait":
			spec.ExitCode = op.ExitCode
		case "read":
			if op.ID == "stderr" {
				spec.Stderr = op.Payload
			} else {
				spec.Stdout = op.Payload
			}
		default:
			t.Skipf("%s.json: operation %q is not supported", name, op.Type)
		}
	}
	return spec
}

// copyTree copies the directory src into dst, leaving out the files
// the suite names *.cleanup (left by an earlier run).
func copyTree(t *testing.T, src, dst string) {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case strings.HasSuffix(p, ".cleanup"):
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSuite runs the C tests of the WASI test suite on every tier, each
// as its specification says: arguments, environment, its root directory
// (copied) preopened as "/", the exit status and output it expects.
func TestSuite(t *testing.T) {
	wasms, err := filepath.Glob(filepath.Join(suiteDir, "*.wasm"))
	if err != nil || len(wasms) == 0 {
		t.Fatalf("no tests in %s: %v", suiteDir, err)
	}
	for _, w := range wasms {
		name := strings.TrimSuffix(filepath.Base(w), ".wasm")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := readSpec(t, name)
			src, err := os.ReadFile(w)
			if err != nil {
				t.Fatal(err)
			}
			m := translateModule(t, src)
			for _, tier := range tiers {
				t.Run(tier.String(), func(t *testing.T) {
					cfg := Config{Args: append([]string{name + ".wasm"}, spec.Args...), Clock: newFixedClock()}
					for k, v := range spec.Env {
						cfg.Env = append(cfg.Env, k+"="+v)
					}
					slices.Sort(cfg.Env)
					if spec.Root != "" {
						dir := t.TempDir()
						copyTree(t, filepath.Join(suiteDir, spec.Root), dir)
						cfg.Preopens = []Preopen{{HostDir: dir, GuestPath: "/"}}
					}
					r := runProgram(t, m, tier, cfg)
					if r.err != nil || r.code != spec.ExitCode || r.stdout != spec.Stdout || r.stderr != spec.Stderr {
						t.Errorf("exit status %d, error %v, stdout %q, stderr %q; want status %d, stdout %q, stderr %q",
							r.code, r.err, r.stdout, r.stderr, spec.ExitCode, spec.Stdout, spec.Stderr)
					}
				})
			}
		})
	}
}
