//go:build unix

package dumphtml

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// browserNames are the commands tried for a headless Chromium.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// findBrowser returns the path of a Chromium on PATH, or "".
func findBrowser() string {
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runBrowser runs the browser with args and returns its standard output.
// The browser runs in a process group of its own, which is killed if it
// takes longer than a minute and a half.
func runBrowser(t *testing.T, browser string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, browser, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// rootTag returns the start tag of the html element of a dumped DOM.
func rootTag(dom string) string {
	i := strings.Index(dom, "<html")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(dom[i:], '>')
	if j < 0 {
		return ""
	}
	return dom[i : i+j+1]
}

// errorList returns the contents of the page's error list in a dumped DOM.
func errorList(dom string) string {
	const open = `<pre id="jserrors"`
	i := strings.Index(dom, open)
	if i < 0 {
		return "(no error list)"
	}
	rest := dom[i+len(open):]
	j := strings.IndexByte(rest, '>')
	k := strings.Index(rest, "</pre>")
	if j < 0 || k < j {
		return "(malformed error list)"
	}
	return rest[j+1 : k]
}

// TestBrowser loads pages in a headless Chromium, when one is installed,
// and checks that their script ran its self-check (a click on a name
// highlights every occurrence, a click on another name uses the second
// colour, a second click clears them, a click on a column title collapses
// it) without an error. A page whose script fails must be reported as
// failing, so that a passing test means something.
func TestBrowser(t *testing.T) {
	browser := findBrowser()
	if browser == "" {
		t.Skipf("no headless browser (%s) on PATH", strings.Join(browserNames, ", "))
	}
	if testing.Short() {
		t.Skip("starting a browser is slow")
	}
	t.Logf("browser: %s", strings.TrimSpace(runBrowser(t, browser, "--version")))
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		page   string // the name of a pageCase
		broken bool   // replace the script's last step with an error
	}{
		{"profiled loop", "product-profiled", false},
		{"profiled switch", "classify-profiled", false},
		{"switch on the baseline", "classify-baseline", false},
		{"floats", "norm-baseline", false},
		{"broken script", "product-optimizing", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			i := slices.IndexFunc(pageCases, func(c pageCase) bool { return c.name == tt.page })
			if i < 0 {
				t.Fatalf("no page case %q", tt.page)
			}
			page := string(writePage(t, pageCases[i]))
			if tt.broken {
				const last = `root.setAttribute("data-selftest", "ok");`
				if !strings.Contains(page, last) {
					t.Fatal("the page's script has no last step to break")
				}
				page = strings.Replace(page, last, `root.setAttribute("data-selftest", notDefined);`, 1)
			}
			path := filepath.Join(dir, tt.page+".html")
			if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := runBrowser(t, browser, "--dump-dom", "file://"+path)
			root := rootTag(dom)
			ok := strings.Contains(root, `data-selftest="ok"`)
			failed := strings.Contains(root, "data-jserror")
			errs := errorList(dom)
			if tt.broken {
				if ok || !failed || !strings.Contains(errs, "notDefined") {
					t.Errorf("a broken script went unnoticed: root %s, errors %q", root, errs)
				}
				return
			}
			if !ok || failed || errs != "" {
				t.Errorf("script failed: root %s, errors %q", root, errs)
			}
		})
	}
}
