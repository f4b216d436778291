// Package wasi runs WASI programs on kiln: it implements WASI preview 1,
// the functions a module imports from "wasi_snapshot_preview1", over the
// host's files, clock and random source, in a sandbox of preopened
// directories.
//
// A Config says what the program sees: its arguments and environment
// (nothing of the host's unless listed), standard input, output and
// error, the preopened directories (each a host directory under a guest
// path, optionally read-only), a Clock and a random source (both fixed by
// tests). New makes the System for one program; System.Imports gives
// link.Instantiate the preview-1 functions the module imports, with the
// types preview 1 gives them; RunStart calls the command's _start and
// returns its exit status. Run does all of it:
//
//	m, _ := translate.Translate(decoded, translate.Options{})
//	code, err := wasi.Run(ctx, engine, m, wasi.Config{
//		Args:     []string{"prog", "input.txt"},
//		Stdout:   os.Stdout,
//		Preopens: []wasi.Preopen{{HostDir: "data", GuestPath: "/"}},
//	})
//
// proc_exit never exits the host process: it ends the guest's call with
// an *ExitError carrying the status, which RunStart and Run turn back
// into the status (err is then nil).
//
// # Errors
//
// Every function returns a WASI errno, never panics, and checks every
// pointer and length the program passes against its memory (EFAULT when
// they do not lie inside it). Host errors are mapped to the matching
// errno (package os's and the system's errors; EIO for others). A
// descriptor's rights are kept: a function needing a right the descriptor
// lacks fails with ENOTCAPABLE, except reading from a descriptor without
// fd_read or writing to one without fd_write, which fail with EBADF as
// POSIX's read and write do.
//
// # The sandbox
//
// A path is resolved relative to a directory descriptor and never leaves
// it: an absolute path and a path whose ".." climb above the directory
// are refused with ENOTCAPABLE before the host sees them, and the rest is
// resolved component by component by os.Root, which refuses (ENOTCAPABLE
// too) a symbolic link that leads outside, absolute links included. Each
// directory descriptor, preopened or opened by path_open, is an os.Root
// of its own, so a directory opened under a preopen is a sandbox of its
// own as well. path_symlink refuses absolute targets. Under a read-only
// preopen, every change fails with EROFS: path_open for writing, creating
// or truncating, path_create_directory, path_link, path_rename,
// path_remove_directory, path_unlink_file, path_symlink, setting times
// and sizes, and append mode.
//
// # What is not supported
//
// Every preview-1 function is provided (Functions lists them); these
// parts of them are not supported, with the reasons:
//
//   - clock_res_get and clock_time_get of the CPU-time clocks
//     (process_cputime_id, thread_cputime_id): ENOTSUP. An instance runs
//     on goroutines of the embedding process, which has no clock of one
//     instance's CPU time.
//   - proc_raise: ENOSYS. An instance has no signals or handlers; a
//     program that wants to end calls proc_exit.
//   - Sockets: preview 1 cannot open one (it has no sock_open) and a
//     System preopens none, so sock_accept, sock_recv, sock_send and
//     sock_shutdown fail with EBADF for a descriptor that is not open and
//     ENOTSOCK for every other.
//   - fd_fdstat_set_flags cannot change dsync, rsync or sync (ENOTSUP):
//     package os cannot change them on an open file. path_open takes them
//     (as O_SYNC).
//   - path_link and path_rename between two different directory
//     descriptors: EXDEV. os.Root links and renames within one tree.
//     (The C library passes the same preopen for paths under it.)
//   - path_link with symlink_follow of a symbolic link, and
//     path_filestat_set_times without symlink_follow of one: ENOTSUP.
//     os.Root links a link itself and sets times only through links.
//   - fd_advise takes no action (advice is a hint); fd_allocate extends
//     the file as ftruncate does, package os having no posix_fallocate.
//   - poll_oneoff waits only for clocks: read and write subscriptions on
//     standard streams and files are ready at once.
//   - Device and inode numbers, link counts, access and change times come
//     from the host on Linux; elsewhere they are 0, 1 and the modification
//     time, and fd_filestat_set_times of an open file fails with ENOSYS.
//
// # Running programs
//
// `kiln wasm run` runs a WASI command from the command line; package wasm
// gives each instance a System of its own (RuntimeConfig.WASI, with the
// arguments, environment, streams and directories of its ModuleConfig).
// Below those, an embedder calls Run (or New, System.Imports and
// RunStart) with package link.
package wasi
