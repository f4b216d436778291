package wasi

import (
	"os"
	"path/filepath"
	"testing"
)

// sandboxTree makes, under a temporary directory, a tree with a
// directory to preopen ("sandbox"), a read-only one ("ro") and files
// outside both that the program must not reach, with symbolic links in
// the sandbox pointing inside and outside it. It returns the temporary
// directory.
func sandboxTree(t *testing.T) string {
	t.Helper()
	top := t.TempDir()
	for _, d := range []string{"outside", "sandbox/sub", "ro/sub"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"outside/secret.txt", "sandbox/file.txt", "sandbox/sub/inner.txt", "ro/file.txt"} {
		if err := os.WriteFile(filepath.Join(top, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"sandbox/link-out":     "../outside/secret.txt",
		"sandbox/link-abs":     filepath.Join(top, "outside", "secret.txt"),
		"sandbox/link-dir-out": "../outside",
		"sandbox/sub/link-up":  "../../outside/secret.txt",
		"sandbox/link-in":      "sub/inner.txt",
		"sandbox/sub/link-sib": "../file.txt",
		"sandbox/loop":         "loop",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(top, l)); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	return top
}

// Descriptors of the sandbox test: the sandbox and the read-only
// directory.
const (
	fdSandbox = 3
	fdRO      = 4
)

// TestSandbox has a program try to reach outside its preopened
// directories (by "..", absolute paths, symbolic links pointing out) and
// to change a read-only one, on every tier: each attempt fails with the
// errno it should, and nothing outside or under the read-only directory
// changes; what stays inside works.
func TestSandbox(t *testing.T) {
	const (
		follow  = lookupSymlinkFollow
		read    = rightFdRead | rightFdSeek
		write   = rightFdWrite
		creat   = oflagCreat
		dirFlag = oflagDirectory
	)
	open := func(fd, lookup uint64, path string, oflags, rights uint64) func(g *guest) Errno {
		return func(g *guest) Errno {
			e, _ := g.open(fd, lookup, path, oflags, rights, 0, 0)
			return e
		}
	}
	onePath := func(name string, fd uint64, path string) func(g *guest) Errno {
		return func(g *guest) Errno {
			p, n := g.str(path)
			return g.call(name, fd, p, n)
		}
	}
	stat := func(fd, lookup uint64, path string) func(g *guest) Errno {
		return func(g *guest) Errno {
			p, n := g.str(path)
			return g.call("path_filestat_get", fd, lookup, p, n, 128)
		}
	}
	rename := func(fd uint64, from, to string) func(g *guest) Errno {
		return func(g *guest) Errno {
			p, n := g.str(from)
			q, m := g.str(to)
			return g.call("path_rename", fd, p, n, fd, q, m)
		}
	}
	symlink := func(fd uint64, target, path string) func(g *guest) Errno {
		return func(g *guest) Errno {
			p, n := g.str(target)
			q, m := g.str(path)
			return g.call("path_symlink", p, n, fd, q, m)
		}
	}
	link := func(fd uint64, from, to string) func(g *guest) Errno {
		return func(g *guest) Errno {
			p, n := g.str(from)
			q, m := g.str(to)
			return g.call("path_link", fd, 0, p, n, fd, q, m)
		}
	}
	// inSub opens sandbox/sub (or ro/sub) as a directory and runs f on
	// its descriptor.
	inSub := func(fd uint64, f func(fd uint64) func(g *guest) Errno) func(g *guest) Errno {
		return func(g *guest) Errno {
			e, sub := g.open(fd, follow, "sub", dirFlag, rightsDir, rightsDir|rightsFile, 0)
			if e != ErrnoSuccess {
				g.t.Fatalf("opening sub: %v", e)
			}
			return f(sub)(g)
		}
	}
	setTimes := func(fd uint64, path string) func(g *guest) Errno {
		return func(g *guest) Errno {
			p, n := g.str(path)
			return g.call("path_filestat_set_times", fd, follow, p, n, 0, 0, fstAtimNow|fstMtimNow)
		}
	}
	tests := []struct {
		name string
		do   func(g *guest) Errno
		want Errno
	}{
		{"dotdot", open(fdSandbox, follow, "../outside/secret.txt", 0, read), ErrnoNotcapable},
		{"dotdot-deep", open(fdSandbox, follow, "sub/../../outside/secret.txt", 0, read), ErrnoNotcapable},
		{"dotdot-dir", open(fdSandbox, follow, "..", dirFlag, rightsDir), ErrnoNotcapable},
		{"absolute", open(fdSandbox, follow, "/etc/passwd", 0, read), ErrnoNotcapable},
		{"absolute-root", open(fdSandbox, follow, "/", dirFlag, rightsDir), ErrnoNotcapable},
		{"symlink-out", open(fdSandbox, follow, "link-out", 0, read), ErrnoNotcapable},
		{"symlink-absolute", open(fdSandbox, follow, "link-abs", 0, read), ErrnoNotcapable},
		{"symlink-dir-out", open(fdSandbox, follow, "link-dir-out/secret.txt", 0, read), ErrnoNotcapable},
		{"symlink-up-from-sub", open(fdSandbox, follow, "sub/link-up", 0, read), ErrnoNotcapable},
		{"symlink-out-create", open(fdSandbox, follow, "link-dir-out/new.txt", creat, write), ErrnoNotcapable},
		{"symlink-loop", open(fdSandbox, follow, "loop", 0, read), ErrnoLoop},
		{"stat-symlink-out", stat(fdSandbox, follow, "link-out"), ErrnoNotcapable},
		{"mkdir-dotdot", onePath("path_create_directory", fdSandbox, "../made"), ErrnoNotcapable},
		{"mkdir-through-symlink", onePath("path_create_directory", fdSandbox, "link-dir-out/made"), ErrnoNotcapable},
		{"unlink-dotdot", onePath("path_unlink_file", fdSandbox, "../outside/secret.txt"), ErrnoNotcapable},
		{"unlink-through-symlink", onePath("path_unlink_file", fdSandbox, "link-dir-out/secret.txt"), ErrnoNotcapable},
		{"rmdir-dotdot", onePath("path_remove_directory", fdSandbox, "../outside"), ErrnoNotcapable},
		{"rename-out", rename(fdSandbox, "file.txt", "../stolen.txt"), ErrnoNotcapable},
		{"rename-in-from-out", rename(fdSandbox, "link-dir-out/secret.txt", "got.txt"), ErrnoNotcapable},
		{"symlink-create-absolute", symlink(fdSandbox, "/etc/passwd", "evil"), ErrnoNotcapable},
		{"link-from-out", link(fdSandbox, "link-dir-out/secret.txt", "hard"), ErrnoNotcapable},
		{"set-times-out", setTimes(fdSandbox, "link-out"), ErrnoNotcapable},
		{"readlink-out", func(g *guest) Errno {
			p, n := g.str("../outside")
			return g.call("path_readlink", fdSandbox, p, n, 256, 64, 72)
		}, ErrnoNotcapable},
		{"sub-dotdot", inSub(fdSandbox, func(fd uint64) func(g *guest) Errno {
			return open(fd, follow, "../file.txt", 0, read)
		}), ErrnoNotcapable},
		{"sub-symlink-to-parent", inSub(fdSandbox, func(fd uint64) func(g *guest) Errno {
			return open(fd, follow, "link-sib", 0, read)
		}), ErrnoNotcapable},

		// What stays inside works.
		{"inside", open(fdSandbox, follow, "file.txt", 0, read), ErrnoSuccess},
		{"inside-dotdot", open(fdSandbox, follow, "sub/../file.txt", 0, read), ErrnoSuccess},
		{"symlink-in", open(fdSandbox, follow, "link-in", 0, read), ErrnoSuccess},
		{"symlink-in-nofollow", open(fdSandbox, 0, "link-in", 0, read), ErrnoLoop},
		{"sibling-symlink", open(fdSandbox, follow, "sub/link-sib", 0, read), ErrnoSuccess},
		{"stat-symlink-out-nofollow", stat(fdSandbox, 0, "link-out"), ErrnoSuccess},

		// The read-only directory refuses every change.
		{"ro-read", open(fdRO, follow, "file.txt", 0, read), ErrnoSuccess},
		{"ro-write", open(fdRO, follow, "file.txt", 0, write), ErrnoRofs},
		{"ro-create", open(fdRO, follow, "new.txt", creat, write), ErrnoRofs},
		{"ro-create-readonly", open(fdRO, follow, "new.txt", creat, read), ErrnoRofs},
		{"ro-truncate", open(fdRO, follow, "file.txt", oflagTrunc, read), ErrnoRofs},
		{"ro-append", func(g *guest) Errno {
			e, _ := g.open(fdRO, follow, "file.txt", 0, read, 0, fdflagAppend)
			return e
		}, ErrnoRofs},
		{"ro-mkdir", onePath("path_create_directory", fdRO, "made"), ErrnoRofs},
		{"ro-unlink", onePath("path_unlink_file", fdRO, "file.txt"), ErrnoRofs},
		{"ro-rmdir", onePath("path_remove_directory", fdRO, "sub"), ErrnoRofs},
		{"ro-rename", rename(fdRO, "file.txt", "moved.txt"), ErrnoRofs},
		{"ro-symlink", symlink(fdRO, "file.txt", "l"), ErrnoRofs},
		{"ro-link", link(fdRO, "file.txt", "hard"), ErrnoRofs},
		{"ro-set-times", setTimes(fdRO, "file.txt"), ErrnoRofs},
		{"ro-sub-mkdir", inSub(fdRO, func(fd uint64) func(g *guest) Errno {
			return onePath("path_create_directory", fd, "made")
		}), ErrnoRofs},
		{"ro-fd-set-size", func(g *guest) Errno {
			e, fd := g.open(fdRO, follow, "file.txt", 0, read|rightFdFilestatSetSize|rightFdFilestatSetTimes, 0, 0)
			if e != ErrnoRofs {
				g.t.Errorf("opening with fd_filestat_set_size: %v, want rofs", e)
				return g.call("fd_filestat_set_size", fd, 0)
			}
			e, fd = g.open(fdRO, follow, "file.txt", 0, read|rightFdFilestatSetTimes, 0, 0)
			if e != ErrnoSuccess {
				return e
			}
			return g.call("fd_filestat_set_times", fd, 0, 0, fstMtimNow)
		}, ErrnoRofs},
	}
	for _, tier := range tiers {
		t.Run(tier.String(), func(t *testing.T) {
			top := sandboxTree(t)
			g := newGuest(t, tier, Config{Preopens: []Preopen{
				{HostDir: filepath.Join(top, "sandbox"), GuestPath: "/"},
				{HostDir: filepath.Join(top, "ro"), GuestPath: "/ro", ReadOnly: true},
			}})
			for _, tc := range tests {
				if got := tc.do(g); got != tc.want {
					t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
				}
			}
			// Nothing outside or under the read-only directory changed.
			want := map[string]string{"outside/secret.txt": "outside/secret.txt", "ro/file.txt": "ro/file.txt"}
			for f, content := range want {
				if b, err := os.ReadFile(filepath.Join(top, f)); err != nil || string(b) != content {
					t.Errorf("%s: %q, %v; want %q", f, b, err, content)
				}
			}
			for _, f := range []string{"made", "stolen.txt", "outside/made", "outside/new.txt", "ro/new.txt", "ro/made", "ro/moved.txt", "ro/sub/made"} {
				if _, err := os.Lstat(filepath.Join(top, f)); err == nil {
					t.Errorf("%s was made", f)
				}
			}
		})
	}
}
