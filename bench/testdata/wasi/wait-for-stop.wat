;; A WASI command that writes "wait" to stderr, then waits, polling, until a
;; file named "stop" appears in its preopened directory (descriptor 3), then
;; writes "done" to stdout and returns: a run that goes on until the test
;; that runs it lets it end (TestRunWASITimeout).
(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; The path, the two messages and their iovecs (base, length); the
  ;; opened descriptor goes to 32, the byte counts written to 40.
  (data (i32.const 0) "stop")
  (data (i32.const 8) "done")
  (data (i32.const 12) "wait")
  (data (i32.const 16) "\08\00\00\00\04\00\00\00")
  (data (i32.const 24) "\0c\00\00\00\04\00\00\00")
  (func (export "_start")
    (drop (call $fd_write (i32.const 2) (i32.const 24) (i32.const 1) (i32.const 40)))
    (loop $wait
      ;; path_open(3, no lookup flags, "stop", no oflags, no rights, no
      ;; fdflags) fails until the file is there.
      (br_if $wait
        (call $path_open (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 4)
          (i32.const 0) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 32))))
    (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 40)))))
