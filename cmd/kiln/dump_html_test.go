package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpHTML checks kiln dump -html: the page is written with a column
// for every stage of the tier's pipeline, with the profile of a run when
// arguments are given, and misuse is reported with the right status.
func TestDumpHTML(t *testing.T) {
	dir := t.TempDir()
	// A function without parameters, whose host calls the run discards.
	noParams := filepath.Join(dir, "noparams.kasm")
	err := os.WriteFile(noParams, []byte(`host putc (i64) -> ()
host getc () -> (i64)
func main () -> ()
  regs i64
again:
  call_host getc () -> (r0)
  br.lt_s r0, 0, out
  call_host putc (r0) -> ()
  jump again
out:
  ret
end
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	common := []string{`<div class="colhead" title="click to collapse or expand">bytecode</div>`,
		">lower: ssa</div>", ">lower: unreachable</div>", ">lower: deadcode</div>", ">cfg</div>", ">nonssa</div>", ">asm</div>", "<svg"}
	for _, tt := range []struct {
		name    string
		args    []string // after "dump"; OUT stands for the page's path
		status  int
		want    []string // in the page
		errPart string   // in standard error
	}{
		{"baseline with a profile", []string{"-html=OUT", "-func=main", "testdata/fact.kasm", "5"}, 0,
			append([]string{">alloc</div>", "profile: measured over 1 calls", "tier baseline", "n≈"}, common...), ""},
		{"optimizing with a profile", []string{"-html=OUT", "-tier=optimizing", "-func=main", "testdata/fact.kasm", "5"}, 0,
			append([]string{">sched</div>", "profile: measured over 1 calls", "tier optimizing", `<span class="pin">`}, common...), ""},
		{"static estimate", []string{"-html=OUT", "-tier=optimizing", "-func=hyp", "testdata/fact.kasm"}, 0,
			append([]string{">sched</div>", "profile: static estimate", "SQRTSD"}, common...), ""},
		{"naive baseline", []string{"-html=OUT", "-naive", "-func=main", "testdata/fact.kasm"}, 0,
			append([]string{"naive φ instantiation", "ParCopy"}, common...), ""},
		{"single function needs no -func", []string{"-html=OUT", "testdata/badhost.kasm"}, 0,
			append([]string{"kiln: func main"}, common...), ""},
		{"several functions need -func", []string{"-html=OUT", "testdata/fact.kasm"}, 2, nil, "-html needs -func"},
		{"-stage excludes -html", []string{"-html=OUT", "-stage=ssa", "-func=main", "testdata/fact.kasm"}, 2, nil, "exclude each other"},
		{"unknown tier", []string{"-html=OUT", "-tier=fast", "-func=main", "testdata/fact.kasm"}, 2, nil, "unknown tier"},
		{"bad argument", []string{"-html=OUT", "-func=main", "testdata/fact.kasm", "x"}, 2, nil, `argument 1: "x" is not an i64`},
		{"too many arguments", []string{"-html=OUT", "-func=main", "testdata/fact.kasm", "1", "2"}, 2, nil, "takes 1 arguments, got 2"},
		{"unknown function", []string{"-html=OUT", "-func=nope", "testdata/fact.kasm"}, 1, nil, `no function "nope"`},
		{"trap in the profiling run", []string{"-html=OUT", "-func=boom", "testdata/fact.kasm", "0"}, 1, nil, "profiling run of boom"},
		{"unknown host in the profiling run", []string{"-html=OUT", "-profile", "testdata/badhost.kasm"}, 1, nil, `imports host function "launch"`},
		{"arguments for a function without parameters", []string{"-html=OUT", "-func=main", "testdata/badhost.kasm", "1"}, 2, nil, "takes 0 arguments"},
		{"-profile without parameters", []string{"-html=OUT", "-profile", noParams}, 0,
			append([]string{"profile: measured over 1 calls", "n≈"}, common...), ""},
		{"no file", []string{"-html=OUT"}, 2, nil, "usage"},
		{"arguments need -html", []string{"-func=main", "testdata/fact.kasm", "5"}, 2, nil, "usage"},
		{"-profile needs -html", []string{"-profile", "-func=main", "testdata/fact.kasm"}, 2, nil, "-profile needs -html"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".html")
			args := []string{"dump"}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			status, stdout, stderr := kiln(t, "", args...)
			if status != tt.status || !strings.Contains(stderr, tt.errPart) {
				t.Fatalf("kiln %q: status %d, stderr %q; want %d and %q", args, status, stderr, tt.status, tt.errPart)
			}
			page, err := os.ReadFile(out)
			if tt.status != 0 {
				if err == nil {
					t.Errorf("kiln %q failed but wrote %s", args, out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, "wrote "+out) {
				t.Errorf("kiln %q: stdout %q does not name the page", args, stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(page), w) {
					t.Errorf("kiln %q: page lacks %q", args, w)
				}
			}
		})
	}
}
