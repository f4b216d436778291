package readme

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeCommands returns the "go run" lines of README.md's sh blocks.
func readmeCommands(t *testing.T, readme []byte) []string {
	t.Helper()
	var cmds []string
	inSh := false
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
		case strings.HasPrefix(line, "```"):
			inSh = false
		case inSh && strings.HasPrefix(line, "go run "):
			if i := strings.Index(line, " #"); i >= 0 {
				line = strings.TrimSpace(line[:i])
			}
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// TestReadmeCommands runs every "go run" command of the README from the
// repository's root and fails on a non-zero exit. The peer benchmark
// commands (run inside bench/, a module of their own that needs network
// access for wazero) are skipped; so is everything under -short.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run several times")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(t, readme)
	if len(cmds) < 5 {
		t.Fatalf("found %d go run commands in README.md; the getting-started block alone has more", len(cmds))
	}
	ran := 0
	for _, c := range cmds {
		if strings.Contains(c, "./cmd/peers") {
			continue // bench/'s own module
		}
		ran++
		t.Run(c, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", c)
			cmd.Dir = root
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", c, err, out)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no README command ran")
	}
}
