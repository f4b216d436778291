package wasi

import (
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
)

// call is one call of a preview-1 function: the guest's memory and the
// error, if any, that ends the guest's call instead of returning an errno
// (proc_exit's ExitError, a poll_oneoff interrupted by the context).
type call struct {
	c   *jit.Caller
	mem memory
	err error
}

// hostFunc is one function of preview 1: its name, its parameter types
// (one letter each: i for i32, I for i64) and its code, which returns
// the errno, the function's only result (proc_exit has none).
type hostFunc struct {
	name      string
	params    string
	noResults bool
	fn        func(s *System, c *call, a []uint64) Errno
}

// funcType is the Wasm type of the function.
func (h *hostFunc) funcType() binary.FuncType {
	var t binary.FuncType
	for _, p := range h.params {
		if p == 'I' {
			t.Params = append(t.Params, binary.I64)
		} else {
			t.Params = append(t.Params, binary.I32)
		}
	}
	if !h.noResults {
		t.Results = []binary.ValType{binary.I32}
	}
	return t
}

// hostFuncList is every function of preview 1, with its signature in
// the specification's core-Wasm lowering.
var hostFuncList = []*hostFunc{
	{name: "args_get", params: "ii", fn: (*System).argsGet},
	{name: "args_sizes_get", params: "ii", fn: (*System).argsSizesGet},
	{name: "environ_get", params: "ii", fn: (*System).environGet},
	{name: "environ_sizes_get", params: "ii", fn: (*System).environSizesGet},
	{name: "clock_res_get", params: "ii", fn: (*System).clockResGet},
	{name: "clock_time_get", params: "iIi", fn: (*System).clockTimeGet},
	{name: "fd_advise", params: "iIIi", fn: (*System).fdAdvise},
	{name: "fd_allocate", params: "iII", fn: (*System).fdAllocate},
	{name: "fd_close", params: "i", fn: (*System).fdClose},
	{name: "fd_datasync", params: "i", fn: (*System).fdDatasync},
	{name: "fd_fdstat_get", params: "ii", fn: (*System).fdFdstatGet},
	{name: "fd_fdstat_set_flags", params: "ii", fn: (*System).fdFdstatSetFlags},
	{name: "fd_fdstat_set_rights", params: "iII", fn: (*System).fdFdstatSetRights},
	{name: "fd_filestat_get", params: "ii", fn: (*System).fdFilestatGet},
	{name: "fd_filestat_set_size", params: "iI", fn: (*System).fdFilestatSetSize},
	{name: "fd_filestat_set_times", params: "iIIi", fn: (*System).fdFilestatSetTimes},
	{name: "fd_pread", params: "iiiIi", fn: (*System).fdPread},
	{name: "fd_prestat_get", params: "ii", fn: (*System).fdPrestatGet},
	{name: "fd_prestat_dir_name", params: "iii", fn: (*System).fdPrestatDirName},
	{name: "fd_pwrite", params: "iiiIi", fn: (*System).fdPwrite},
	{name: "fd_read", params: "iiii", fn: (*System).fdRead},
	{name: "fd_readdir", params: "iiiIi", fn: (*System).fdReaddir},
	{name: "fd_renumber", params: "ii", fn: (*System).fdRenumber},
	{name: "fd_seek", params: "iIii", fn: (*System).fdSeek},
	{name: "fd_sync", params: "i", fn: (*System).fdSync},
	{name: "fd_tell", params: "ii", fn: (*System).fdTell},
	{name: "fd_write", params: "iiii", fn: (*System).fdWrite},
	{name: "path_create_directory", params: "iii", fn: (*System).pathCreateDirectory},
	{name: "path_filestat_get", params: "iiiii", fn: (*System).pathFilestatGet},
	{name: "path_filestat_set_times", params: "iiiiIIi", fn: (*System).pathFilestatSetTimes},
	{name: "path_link", params: "iiiiiii", fn: (*System).pathLink},
	{name: "path_open", params: "iiiiiIIii", fn: (*System).pathOpen},
	{name: "path_readlink", params: "iiiiii", fn: (*System).pathReadlink},
	{name: "path_remove_directory", params: "iii", fn: (*System).pathRemoveDirectory},
	{name: "path_rename", params: "iiiiii", fn: (*System).pathRename},
	{name: "path_symlink", params: "iiiii", fn: (*System).pathSymlink},
	{name: "path_unlink_file", params: "iii", fn: (*System).pathUnlinkFile},
	{name: "poll_oneoff", params: "iiii", fn: (*System).pollOneoff},
	{name: "proc_exit", params: "i", noResults: true, fn: (*System).procExit},
	{name: "proc_raise", params: "i", fn: (*System).procRaise},
	{name: "random_get", params: "ii", fn: (*System).randomGet},
	{name: "sched_yield", params: "", fn: (*System).schedYield},
	{name: "sock_accept", params: "iii", fn: (*System).sockAccept},
	{name: "sock_recv", params: "iiiiii", fn: (*System).sockRecv},
	{name: "sock_send", params: "iiiii", fn: (*System).sockSend},
	{name: "sock_shutdown", params: "ii", fn: (*System).sockShutdown},
}

// hostFuncs is hostFuncList by name.
var hostFuncs = func() map[string]*hostFunc {
	m := make(map[string]*hostFunc, len(hostFuncList))
	for _, h := range hostFuncList {
		m[h.name] = h
	}
	return m
}()
