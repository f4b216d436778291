package wasi

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// checkPath checks a path the program gives relative to a directory
// descriptor before the host sees it: not empty, no NUL byte, not
// absolute and not climbing out of the directory by "..". os.Root then
// resolves it component by component and refuses, in the same way, a
// symbolic link that leads outside.
func checkPath(p string) Errno {
	switch {
	case p == "":
		return ErrnoNoent
	case strings.IndexByte(p, 0) >= 0:
		return ErrnoInval
	case p[0] == '/':
		return ErrnoNotcapable
	}
	depth := 0
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
		case "..":
			if depth == 0 {
				return ErrnoNotcapable
			}
			depth--
		default:
			depth++
		}
	}
	return ErrnoSuccess
}

// dirPath returns the directory descriptor fd, which must have right,
// and the path of path_len bytes at p in guest memory, checked.
func (s *System) dirPath(c *call, fd, right, p, n uint64) (*file, string, Errno) {
	f, e := s.get(fd)
	if e != ErrnoSuccess {
		return nil, "", e
	}
	if f.kind != kindDir {
		return nil, "", ErrnoNotdir
	}
	if f.base&right == 0 {
		return nil, "", ErrnoNotcapable
	}
	name, ok := c.mem.str(p, uint64(uint32(n)))
	if !ok {
		return nil, "", ErrnoFault
	}
	if e := checkPath(name); e != ErrnoSuccess {
		return nil, "", e
	}
	return f, name, ErrnoSuccess
}

// changeDirPath is dirPath for a function that changes what is under the
// directory, which a read-only preopen refuses.
func (s *System) changeDirPath(c *call, fd, right, p, n uint64) (*file, string, Errno) {
	f, name, e := s.dirPath(c, fd, right, p, n)
	if e == ErrnoSuccess && f.readOnly {
		return nil, "", ErrnoRofs
	}
	return f, name, e
}

// isSymlink reports whether name is a symbolic link.
func isSymlink(root *os.Root, name string) bool {
	fi, err := root.Lstat(name)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// path_open(fd, dirflags, path, path_len, oflags, fs_rights_base,
// fs_rights_inheriting, fdflags, fd_ptr) opens a file or a directory
// under a directory descriptor. The rights asked for must be among the
// directory's inheriting rights (else ENOTCAPABLE); the new descriptor
// gets those of them that apply to what was opened. Append mode is kept
// by the System, not the host file (fd_write seeks to the end), so that
// fd_pwrite can still write at an offset.
func (s *System) pathOpen(c *call, a []uint64) Errno {
	dir, name, e := s.dirPath(c, a[0], rightPathOpen, a[2], a[3])
	if e != ErrnoSuccess {
		return e
	}
	oflags, base, inh, fdflags := uint32(a[4]), a[5], a[6], uint32(a[7])
	follow := uint32(a[1])&lookupSymlinkFollow != 0
	if _, ok := c.mem.bytes(a[8], 4); !ok {
		return ErrnoFault
	}
	switch {
	case oflags&^0xf != 0, fdflags&^0x1f != 0, uint32(a[1])&^lookupSymlinkFollow != 0:
		return ErrnoInval
	case oflags&oflagCreat != 0 && dir.base&rightPathCreateFile == 0,
		base&^dir.inheriting != 0, inh&^dir.inheriting != 0:
		return ErrnoNotcapable
	case oflags&oflagDirectory != 0 && oflags&(oflagCreat|oflagTrunc) != 0:
		return ErrnoInval
	}
	write := base&(rightFdWrite|rightFdAllocate|rightFdFilestatSetSize) != 0 || oflags&oflagTrunc != 0 ||
		fdflags&fdflagAppend != 0
	read := base&(rightFdRead|rightFdReaddir) != 0
	if !follow && isSymlink(dir.root, name) {
		if oflags&(oflagCreat|oflagExcl) == oflagCreat|oflagExcl {
			return ErrnoExist
		}
		return ErrnoLoop
	}
	if dir.readOnly {
		if write {
			return ErrnoRofs
		}
		if oflags&oflagCreat != 0 {
			_, err := dir.root.Lstat(name)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return ErrnoRofs
			case err != nil:
				return errno(err)
			case oflags&oflagExcl != 0:
				return ErrnoExist
			}
			oflags &^= oflagCreat | oflagExcl
		}
	}
	nf := &file{readOnly: dir.readOnly, fdflags: uint16(fdflags), inheriting: inh}
	if oflags&oflagDirectory != 0 {
		if write {
			return ErrnoIsdir
		}
		r, err := dir.root.OpenRoot(name)
		if err != nil {
			return errno(err)
		}
		nf.kind, nf.root, nf.base = kindDir, r, base&rightsDir
	} else {
		flag := os.O_RDONLY
		switch {
		case read && write:
			flag = os.O_RDWR
		case write:
			flag = os.O_WRONLY
		}
		if oflags&oflagCreat != 0 {
			flag |= os.O_CREATE
		}
		if oflags&oflagExcl != 0 {
			flag |= os.O_EXCL
		}
		if oflags&oflagTrunc != 0 {
			flag |= os.O_TRUNC
		}
		if fdflags&(fdflagDsync|fdflagRsync|fdflagSync) != 0 {
			flag |= os.O_SYNC
		}
		hf, err := dir.root.OpenFile(name, flag, 0o666)
		if err != nil {
			return errno(err)
		}
		fi, err := hf.Stat()
		if err != nil {
			hf.Close()
			return errno(err)
		}
		if fi.IsDir() {
			// A directory opened without O_DIRECTORY: its descriptor
			// needs a root of its own to resolve paths in.
			hf.Close()
			r, err := dir.root.OpenRoot(name)
			if err != nil {
				return errno(err)
			}
			nf.kind, nf.root, nf.base = kindDir, r, base&rightsDir
		} else {
			nf.kind, nf.f, nf.ftype, nf.base = kindFile, hf, filetypeOf(fi.Mode()), base&rightsFile
		}
	}
	fd, e := s.add(nf)
	if e != ErrnoSuccess {
		nf.close()
		return e
	}
	c.mem.putU32(a[8], fd)
	return ErrnoSuccess
}

// path_create_directory(fd, path, path_len)
func (s *System) pathCreateDirectory(c *call, a []uint64) Errno {
	dir, name, e := s.changeDirPath(c, a[0], rightPathCreateDirectory, a[1], a[2])
	if e != ErrnoSuccess {
		return e
	}
	return errno(dir.root.Mkdir(name, 0o777))
}

// path_filestat_get(fd, flags, path, path_len, buf_ptr)
func (s *System) pathFilestatGet(c *call, a []uint64) Errno {
	dir, name, e := s.dirPath(c, a[0], rightPathFilestatGet, a[2], a[3])
	if e != ErrnoSuccess {
		return e
	}
	if _, ok := c.mem.bytes(a[4], sizeFilestat); !ok {
		return ErrnoFault
	}
	var fi fs.FileInfo
	var err error
	if uint32(a[1])&lookupSymlinkFollow != 0 {
		fi, err = dir.root.Stat(name)
	} else {
		fi, err = dir.root.Lstat(name)
	}
	if err != nil {
		return errno(err)
	}
	return putFilestat(c.mem, a[4], fi)
}

// path_filestat_set_times(fd, flags, path, path_len, atim, mtim,
// fst_flags). Without symlink_follow, the times of a symbolic link itself
// cannot be set (ENOTSUP): os.Root sets times only through links.
func (s *System) pathFilestatSetTimes(c *call, a []uint64) Errno {
	dir, name, e := s.changeDirPath(c, a[0], rightPathFilestatSetTimes, a[2], a[3])
	if e != ErrnoSuccess {
		return e
	}
	atime, mtime, e := s.fileTimes(a[4], a[5], uint32(a[6]))
	if e != ErrnoSuccess {
		return e
	}
	if uint32(a[1])&lookupSymlinkFollow == 0 && isSymlink(dir.root, name) {
		return ErrnoNotsup
	}
	return errno(dir.root.Chtimes(name, atime, mtime))
}

// twoPaths returns the directories and paths of path_link and
// path_rename. Both must be under the same descriptor (EXDEV otherwise):
// os.Root links and renames within one directory tree, and two
// descriptors are two trees even when one holds the other.
func (s *System) twoPaths(c *call, oldFd, oldRight, oldP, oldN, newFd, newRight, newP, newN uint64) (*os.Root, string, string, Errno) {
	od, oldName, e := s.changeDirPath(c, oldFd, oldRight, oldP, oldN)
	if e != ErrnoSuccess {
		return nil, "", "", e
	}
	nd, newName, e := s.changeDirPath(c, newFd, newRight, newP, newN)
	if e != ErrnoSuccess {
		return nil, "", "", e
	}
	if od != nd {
		return nil, "", "", ErrnoXdev
	}
	return od.root, oldName, newName, ErrnoSuccess
}

// path_link(old_fd, old_flags, old_path, old_path_len, new_fd, new_path,
// new_path_len). With symlink_follow, a link to what a symbolic link
// points at is not supported (ENOTSUP): os.Root links the symbolic link
// itself.
func (s *System) pathLink(c *call, a []uint64) Errno {
	root, oldName, newName, e := s.twoPaths(c, a[0], rightPathLinkSource, a[2], a[3], a[4], rightPathLinkTarget, a[5], a[6])
	if e != ErrnoSuccess {
		return e
	}
	if uint32(a[1])&lookupSymlinkFollow != 0 && isSymlink(root, oldName) {
		return ErrnoNotsup
	}
	return errno(root.Link(oldName, newName))
}

// path_rename(fd, old_path, old_path_len, new_fd, new_path, new_path_len)
func (s *System) pathRename(c *call, a []uint64) Errno {
	root, oldName, newName, e := s.twoPaths(c, a[0], rightPathRenameSource, a[1], a[2], a[3], rightPathRenameTarget, a[4], a[5])
	if e != ErrnoSuccess {
		return e
	}
	return errno(root.Rename(oldName, newName))
}

// path_readlink(fd, path, path_len, buf, buf_len, bufused_ptr) writes as
// much of the link's target as fits, without a NUL.
func (s *System) pathReadlink(c *call, a []uint64) Errno {
	dir, name, e := s.dirPath(c, a[0], rightPathReadlink, a[1], a[2])
	if e != ErrnoSuccess {
		return e
	}
	buf, ok := c.mem.bytes(a[3], uint64(uint32(a[4])))
	if _, ok2 := c.mem.bytes(a[5], 4); !ok || !ok2 {
		return ErrnoFault
	}
	target, err := dir.root.Readlink(name)
	if err != nil {
		return errno(err)
	}
	c.mem.putU32(a[5], uint32(copy(buf, target)))
	return ErrnoSuccess
}

// path_remove_directory(fd, path, path_len)
func (s *System) pathRemoveDirectory(c *call, a []uint64) Errno {
	return s.remove(c, a, rightPathRemoveDirectory, true)
}

// path_unlink_file(fd, path, path_len)
func (s *System) pathUnlinkFile(c *call, a []uint64) Errno {
	return s.remove(c, a, rightPathUnlinkFile, false)
}

// remove is path_remove_directory (dir) and path_unlink_file: what the
// path names must be a directory, or must not be (ENOTDIR, EISDIR).
func (s *System) remove(c *call, a []uint64, right uint64, dir bool) Errno {
	d, name, e := s.changeDirPath(c, a[0], right, a[1], a[2])
	if e != ErrnoSuccess {
		return e
	}
	fi, err := d.root.Lstat(name)
	switch {
	case err != nil:
		return errno(err)
	case dir && !fi.IsDir():
		return ErrnoNotdir
	case !dir && fi.IsDir():
		return ErrnoIsdir
	}
	return errno(d.root.Remove(name))
}

// path_symlink(old_path, old_path_len, fd, new_path, new_path_len). An
// absolute target is refused (ENOTCAPABLE): it could only name something
// outside the directory tree. A relative target may point anywhere, but
// following it out of the tree is refused when the link is used.
func (s *System) pathSymlink(c *call, a []uint64) Errno {
	target, ok := c.mem.str(a[0], uint64(uint32(a[1])))
	if !ok {
		return ErrnoFault
	}
	dir, name, e := s.changeDirPath(c, a[2], rightPathSymlink, a[3], a[4])
	if e != ErrnoSuccess {
		return e
	}
	switch {
	case target == "":
		return ErrnoNoent
	case strings.IndexByte(target, 0) >= 0:
		return ErrnoInval
	case target[0] == '/':
		return ErrnoNotcapable
	}
	return errno(dir.root.Symlink(target, name))
}
