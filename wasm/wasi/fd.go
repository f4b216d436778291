package wasi

import (
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"time"
)

// fileKind is what a descriptor refers to.
type fileKind uint8

const (
	// kindStream is standard input, output or error: a reader or a
	// writer, with no position or metadata.
	kindStream fileKind = iota
	// kindFile is a file on the host (regular, or a device under a
	// preopened directory).
	kindFile
	// kindDir is a directory on the host, which paths are resolved in.
	kindDir
)

// maxFiles bounds the descriptors a program may have open (EMFILE).
const maxFiles = 1 << 16

// file is an open descriptor.
type file struct {
	kind fileKind
	r    io.Reader // kindStream: standard input
	w    io.Writer // kindStream: standard output and error
	f    *os.File  // kindFile
	// ftype is the WASI file type of a kindFile.
	ftype uint8
	// root is a kindDir's directory: every path under it is resolved in
	// it, component by component, never leaving it.
	root *os.Root
	// preopen is the guest path of a preopened directory, "" for others.
	preopen string
	// readOnly refuses changes (EROFS) under a read-only preopen.
	readOnly         bool
	base, inheriting uint64 // rights
	fdflags          uint16
	// dirents is the listing fd_readdir reads, taken at cookie 0.
	dirents []dirent
}

// hostStat is what a filestat needs beyond fs.FileInfo (statOf reads
// it).
type hostStat struct {
	dev, ino, nlink uint64
	atim, ctim      int64 // nanoseconds since the epoch
}

// dirent is one entry of a directory listing.
type dirent struct {
	name  string
	ino   uint64
	ftype uint8
}

// close releases the host file or directory.
func (f *file) close() error {
	switch f.kind {
	case kindFile:
		return f.f.Close()
	case kindDir:
		return f.root.Close()
	}
	return nil
}

// get returns the open descriptor fd.
func (s *System) get(fd uint64) (*file, Errno) {
	i := uint32(fd)
	if uint64(i) >= uint64(len(s.fds)) || s.fds[i] == nil {
		return nil, ErrnoBadf
	}
	return s.fds[i], ErrnoSuccess
}

// getRight returns the open descriptor fd if it has right.
func (s *System) getRight(fd, right uint64) (*file, Errno) {
	f, e := s.get(fd)
	if e != ErrnoSuccess {
		return nil, e
	}
	if f.base&right == 0 {
		return nil, ErrnoNotcapable
	}
	return f, ErrnoSuccess
}

// add gives f the lowest free descriptor.
func (s *System) add(f *file) (uint32, Errno) {
	for i, g := range s.fds {
		if g == nil {
			s.fds[i] = f
			return uint32(i), ErrnoSuccess
		}
	}
	if len(s.fds) >= maxFiles {
		return 0, ErrnoMfile
	}
	s.fds = append(s.fds, f)
	return uint32(len(s.fds) - 1), ErrnoSuccess
}

// capTotal drops the tail of bufs beyond what a u32 count can report
// (iovecs may overlap, so their total may exceed the memory).
func capTotal(bufs [][]byte) [][]byte {
	total := uint64(0)
	for i, b := range bufs {
		if total+uint64(len(b)) > math.MaxUint32 {
			return bufs[:i]
		}
		total += uint64(len(b))
	}
	return bufs
}

// readv fills bufs from r in order, stopping at the first short read so
// that a program reading a terminal or a pipe gets what is there.
func readv(r io.Reader, bufs [][]byte) (uint64, error) {
	n := uint64(0)
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		m, err := r.Read(b)
		n += uint64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil || m < len(b) {
			return n, err
		}
	}
	return n, nil
}

// writev writes bufs to w in order.
func writev(w io.Writer, bufs [][]byte) (uint64, error) {
	n := uint64(0)
	for _, b := range bufs {
		m, err := w.Write(b)
		n += uint64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// ioResult stores n at ptr, or the errno of err when nothing was
// transferred (a transfer cut short reports what it did, as POSIX's
// read and write do).
func ioResult(c *call, ptr, n uint64, err error) Errno {
	if err != nil && n == 0 {
		return errno(err)
	}
	if !c.mem.putU32(ptr, uint32(n)) {
		return ErrnoFault
	}
	return ErrnoSuccess
}

// iovecs returns the buffers of the iovs_len iovecs at iovs, cut to what
// a count can report, after checking that the count's place at resultPtr
// is in memory too.
func (c *call) iovecs(iovs, n, resultPtr uint64) ([][]byte, Errno) {
	bufs, ok := c.mem.iovecs(iovs, uint64(uint32(n)))
	if _, ok2 := c.mem.bytes(resultPtr, 4); !ok || !ok2 {
		return nil, ErrnoFault
	}
	return capTotal(bufs), ErrnoSuccess
}

// fd_read(fd, iovs, iovs_len, nread_ptr)
func (s *System) fdRead(c *call, a []uint64) Errno {
	f, e := s.get(a[0])
	if e != ErrnoSuccess {
		return e
	}
	if f.kind == kindDir {
		return ErrnoIsdir
	}
	if f.base&rightFdRead == 0 {
		return ErrnoBadf // not open for reading, as POSIX says
	}
	bufs, e := c.iovecs(a[1], a[2], a[3])
	if e != ErrnoSuccess {
		return e
	}
	var n uint64
	var err error
	if f.kind == kindStream {
		n, err = readv(f.r, bufs)
	} else {
		n, err = readv(f.f, bufs)
	}
	return ioResult(c, a[3], n, err)
}

// fd_write(fd, iovs, iovs_len, nwritten_ptr)
func (s *System) fdWrite(c *call, a []uint64) Errno {
	f, e := s.get(a[0])
	if e != ErrnoSuccess {
		return e
	}
	if f.kind == kindDir || f.base&rightFdWrite == 0 {
		return ErrnoBadf // not open for writing
	}
	bufs, e := c.iovecs(a[1], a[2], a[3])
	if e != ErrnoSuccess {
		return e
	}
	if f.kind == kindStream {
		n, err := writev(f.w, bufs)
		return ioResult(c, a[3], n, err)
	}
	if f.fdflags&fdflagAppend != 0 {
		// Append mode is kept here rather than in the host file
		// (see pathOpen): each write goes to the end.
		if _, err := f.f.Seek(0, io.SeekEnd); err != nil {
			return errno(err)
		}
	}
	n, err := writev(f.f, bufs)
	return ioResult(c, a[3], n, err)
}

// positioned checks a descriptor for fd_pread and fd_pwrite: a file with
// the right, and an offset that is not negative.
func (s *System) positioned(fd, right, offset uint64) (*file, Errno) {
	f, e := s.get(fd)
	switch {
	case e != ErrnoSuccess:
		return nil, e
	case f.kind == kindStream:
		return nil, ErrnoSpipe
	case f.kind == kindDir:
		return nil, ErrnoIsdir
	case f.base&right == 0:
		return nil, ErrnoBadf
	case int64(offset) < 0:
		return nil, ErrnoInval
	}
	return f, ErrnoSuccess
}

// fd_pread(fd, iovs, iovs_len, offset, nread_ptr)
func (s *System) fdPread(c *call, a []uint64) Errno {
	return s.positionedIO(c, a, rightFdRead, func(f *os.File, b []byte, off int64) (int, error) {
		n, err := f.ReadAt(b, off)
		if err == io.EOF {
			err = nil
		}
		return n, err
	})
}

// fd_pwrite(fd, iovs, iovs_len, offset, nwritten_ptr) writes at offset
// even in append mode, as POSIX specifies, leaving the position alone.
func (s *System) fdPwrite(c *call, a []uint64) Errno {
	return s.positionedIO(c, a, rightFdWrite, (*os.File).WriteAt)
}

// positionedIO is fd_pread and fd_pwrite: op transfers each buffer at its
// offset, and a short transfer ends the call.
func (s *System) positionedIO(c *call, a []uint64, right uint64, op func(f *os.File, b []byte, off int64) (int, error)) Errno {
	f, e := s.positioned(a[0], right, a[3])
	if e != ErrnoSuccess {
		return e
	}
	bufs, e := c.iovecs(a[1], a[2], a[4])
	if e != ErrnoSuccess {
		return e
	}
	off := int64(a[3])
	n := uint64(0)
	for _, b := range bufs {
		m, err := op(f.f, b, off)
		n += uint64(m)
		off += int64(m)
		if err != nil || m < len(b) {
			return ioResult(c, a[4], n, err)
		}
	}
	return ioResult(c, a[4], n, nil)
}

// fd_seek(fd, offset, whence, newoffset_ptr)
func (s *System) fdSeek(c *call, a []uint64) Errno {
	f, e := s.get(a[0])
	if e != ErrnoSuccess {
		return e
	}
	if f.kind == kindStream {
		return ErrnoSpipe
	}
	right := uint64(rightFdSeek)
	if a[1] == 0 && uint32(a[2]) == whenceCur {
		right |= rightFdTell // telling where one is needs either
	}
	if f.base&right == 0 {
		return ErrnoNotcapable
	}
	var whence int
	switch uint32(a[2]) {
	case whenceSet:
		whence = io.SeekStart
	case whenceCur:
		whence = io.SeekCurrent
	case whenceEnd:
		whence = io.SeekEnd
	default:
		return ErrnoInval
	}
	if _, ok := c.mem.bytes(a[3], 8); !ok {
		return ErrnoFault
	}
	if f.kind != kindFile {
		return ErrnoBadf
	}
	pos, err := f.f.Seek(int64(a[1]), whence)
	if err != nil {
		return errno(err)
	}
	c.mem.putU64(a[3], uint64(pos))
	return ErrnoSuccess
}

// fd_tell(fd, offset_ptr) is fd_seek by 0 from the current position.
func (s *System) fdTell(c *call, a []uint64) Errno {
	return s.fdSeek(c, []uint64{a[0], 0, whenceCur, a[1]})
}

// fd_close(fd)
func (s *System) fdClose(_ *call, a []uint64) Errno {
	f, e := s.get(a[0])
	if e != ErrnoSuccess {
		return e
	}
	s.fds[uint32(a[0])] = nil
	return errno(f.close())
}

// fd_renumber(fd, to) moves fd to to, closing what to was; both must be
// open.
func (s *System) fdRenumber(_ *call, a []uint64) Errno {
	f, e := s.get(a[0])
	if e != ErrnoSuccess {
		return e
	}
	g, e := s.get(a[1])
	if e != ErrnoSuccess {
		return e
	}
	if f == g {
		return ErrnoSuccess
	}
	s.fds[uint32(a[1])] = f
	s.fds[uint32(a[0])] = nil
	return errno(g.close())
}

// sync is fd_sync and fd_datasync: Go has only fsync, which does both.
func (s *System) sync(a []uint64, right uint64) Errno {
	f, e := s.getRight(a[0], right)
	if e != ErrnoSuccess {
		return e
	}
	switch f.kind {
	case kindFile:
		return errno(f.f.Sync())
	case kindDir:
		d, err := f.root.Open(".")
		if err != nil {
			return errno(err)
		}
		defer d.Close()
		return errno(d.Sync())
	}
	return ErrnoInval
}

// fd_sync(fd)
func (s *System) fdSync(_ *call, a []uint64) Errno { return s.sync(a, rightFdSync) }

// fd_datasync(fd)
func (s *System) fdDatasync(_ *call, a []uint64) Errno { return s.sync(a, rightFdDatasync) }

// filetype returns the WASI file type of a descriptor.
func (f *file) filetype() uint8 {
	switch f.kind {
	case kindFile:
		return f.ftype
	case kindDir:
		return filetypeDirectory
	}
	return filetypeCharacterDevice
}

// fd_fdstat_get(fd, stat_ptr)
func (s *System) fdFdstatGet(c *call, a []uint64) Errno {
	f, e := s.get(a[0])
	if e != ErrnoSuccess {
		return e
	}
	b, ok := c.mem.zeroed(a[1], sizeFdstat)
	if !ok {
		return ErrnoFault
	}
	b[0] = f.filetype()
	b[2], b[3] = byte(f.fdflags), byte(f.fdflags>>8)
	memory(b).putU64(8, f.base)
	memory(b).putU64(16, f.inheriting)
	return ErrnoSuccess
}

// fd_fdstat_set_flags(fd, flags) changes append and nonblock. The
// synchronized-I/O flags (dsync, rsync, sync) cannot be changed on an
// open host file with package os, so asking for them is ENOTSUP; path_open
// takes them.
func (s *System) fdFdstatSetFlags(_ *call, a []uint64) Errno {
	f, e := s.getRight(a[0], rightFdFdstatSetFlags)
	if e != ErrnoSuccess {
		return e
	}
	flags := uint16(a[1])
	if uint64(flags) != uint64(uint32(a[1])) || flags&^0x1f != 0 {
		return ErrnoInval
	}
	sync := uint16(fdflagDsync | fdflagRsync | fdflagSync)
	if flags&sync != f.fdflags&sync {
		return ErrnoNotsup
	}
	if flags&fdflagAppend != 0 && f.readOnly {
		return ErrnoRofs
	}
	f.fdflags = flags
	return ErrnoSuccess
}

// fd_fdstat_set_rights(fd, fs_rights_base, fs_rights_inheriting) may only
// drop rights.
func (s *System) fdFdstatSetRights(_ *call, a []uint64) Errno {
	f, e := s.get(a[0])
	if e != ErrnoSuccess {
		return e
	}
	if a[1]&^f.base != 0 || a[2]&^f.inheriting != 0 {
		return ErrnoNotcapable
	}
	f.base, f.inheriting = a[1], a[2]
	return ErrnoSuccess
}

// putFilestat writes the filestat of fi at p.
func putFilestat(m memory, p uint64, fi fs.FileInfo) Errno {
	b, ok := m.zeroed(p, sizeFilestat)
	if !ok {
		return ErrnoFault
	}
	st := statOf(fi)
	b16 := memory(b)
	b16.putU64(0, st.dev)
	b16.putU64(8, st.ino)
	b[16] = filetypeOf(fi.Mode())
	b16.putU64(24, st.nlink)
	b16.putU64(32, uint64(fi.Size()))
	b16.putU64(40, uint64(st.atim))
	b16.putU64(48, uint64(fi.ModTime().UnixNano()))
	b16.putU64(56, uint64(st.ctim))
	return ErrnoSuccess
}

// filetypeOf returns the WASI file type of a host file mode.
func filetypeOf(m fs.FileMode) uint8 {
	switch {
	case m.IsDir():
		return filetypeDirectory
	case m.IsRegular():
		return filetypeRegularFile
	case m&fs.ModeSymlink != 0:
		return filetypeSymbolicLink
	case m&fs.ModeCharDevice != 0:
		return filetypeCharacterDevice
	case m&fs.ModeDevice != 0:
		return filetypeBlockDevice
	case m&fs.ModeSocket != 0:
		return filetypeSocketStream
	}
	return filetypeUnknown
}

// fd_filestat_get(fd, buf_ptr). A stream has no metadata but its type.
func (s *System) fdFilestatGet(c *call, a []uint64) Errno {
	f, e := s.getRight(a[0], rightFdFilestatGet)
	if e != ErrnoSuccess {
		return e
	}
	var fi fs.FileInfo
	var err error
	switch f.kind {
	case kindFile:
		fi, err = f.f.Stat()
	case kindDir:
		fi, err = f.root.Stat(".")
	default:
		b, ok := c.mem.zeroed(a[1], sizeFilestat)
		if !ok {
			return ErrnoFault
		}
		b[16] = filetypeCharacterDevice
		return ErrnoSuccess
	}
	if err != nil {
		return errno(err)
	}
	return putFilestat(c.mem, a[1], fi)
}

// regularFile checks a descriptor for the functions that change a file's
// size: a file, with the right, not under a read-only preopen.
func (s *System) regularFile(fd, right uint64) (*file, Errno) {
	f, e := s.getRight(fd, right)
	switch {
	case e != ErrnoSuccess:
		return nil, e
	case f.kind == kindStream:
		return nil, ErrnoSpipe
	case f.kind == kindDir:
		return nil, ErrnoIsdir
	case f.readOnly:
		return nil, ErrnoRofs
	}
	return f, ErrnoSuccess
}

// fd_filestat_set_size(fd, size)
func (s *System) fdFilestatSetSize(_ *call, a []uint64) Errno {
	f, e := s.regularFile(a[0], rightFdFilestatSetSize)
	if e != ErrnoSuccess {
		return e
	}
	if int64(a[1]) < 0 {
		return ErrnoInval
	}
	return errno(f.f.Truncate(int64(a[1])))
}

// fd_allocate(fd, offset, len) makes the file at least offset+len bytes
// long; package os has no posix_fallocate, so the space is allocated by
// extending the file, as ftruncate does.
func (s *System) fdAllocate(_ *call, a []uint64) Errno {
	f, e := s.regularFile(a[0], rightFdAllocate)
	if e != ErrnoSuccess {
		return e
	}
	off, n := int64(a[1]), int64(a[2])
	if off < 0 || n <= 0 {
		return ErrnoInval
	}
	if off > math.MaxInt64-n {
		return ErrnoFbig
	}
	fi, err := f.f.Stat()
	if err != nil {
		return errno(err)
	}
	if fi.Size() >= off+n {
		return ErrnoSuccess
	}
	return errno(f.f.Truncate(off + n))
}

// fd_advise(fd, offset, len, advice) checks its arguments and takes no
// action: advice is a hint, and package os has no posix_fadvise.
func (s *System) fdAdvise(_ *call, a []uint64) Errno {
	f, e := s.getRight(a[0], rightFdAdvise)
	switch {
	case e != ErrnoSuccess:
		return e
	case f.kind == kindStream:
		return ErrnoSpipe
	case f.kind == kindDir:
		return ErrnoBadf
	case uint32(a[3]) > adviceNoreuse, int64(a[1]) < 0, int64(a[2]) < 0:
		return ErrnoInval
	}
	return ErrnoSuccess
}

// fileTimes returns the times fd_filestat_set_times and
// path_filestat_set_times set, a zero time for one left as it is.
func (s *System) fileTimes(atim, mtim uint64, fst uint32) (atime, mtime time.Time, e Errno) {
	if fst&^0xf != 0 || fst&(fstAtim|fstAtimNow) == fstAtim|fstAtimNow || fst&(fstMtim|fstMtimNow) == fstMtim|fstMtimNow {
		return atime, mtime, ErrnoInval
	}
	now := s.clock.Now()
	switch {
	case fst&fstAtimNow != 0:
		atime = now
	case fst&fstAtim != 0:
		atime = time.Unix(0, int64(atim))
	}
	switch {
	case fst&fstMtimNow != 0:
		mtime = now
	case fst&fstMtim != 0:
		mtime = time.Unix(0, int64(mtim))
	}
	return atime, mtime, ErrnoSuccess
}

// fd_filestat_set_times(fd, atim, mtim, fst_flags)
func (s *System) fdFilestatSetTimes(_ *call, a []uint64) Errno {
	f, e := s.getRight(a[0], rightFdFilestatSetTimes)
	if e != ErrnoSuccess {
		return e
	}
	atime, mtime, e := s.fileTimes(a[1], a[2], uint32(a[3]))
	switch {
	case e != ErrnoSuccess:
		return e
	case f.readOnly:
		return ErrnoRofs
	case f.kind == kindDir:
		return errno(f.root.Chtimes(".", atime, mtime))
	case f.kind == kindFile:
		return errno(setFileTimes(f.f, atime, mtime))
	}
	return ErrnoBadf
}

// getPreopen returns the preopened directory fd.
func (s *System) getPreopen(fd uint64) (*file, Errno) {
	f, e := s.get(fd)
	if e == ErrnoSuccess && f.preopen == "" {
		return nil, ErrnoBadf
	}
	return f, e
}

// fd_prestat_get(fd, prestat_ptr): EBADF for a descriptor that is not a
// preopened directory ends the program's scan of its preopens.
func (s *System) fdPrestatGet(c *call, a []uint64) Errno {
	f, e := s.getPreopen(a[0])
	if e != ErrnoSuccess {
		return e
	}
	b, ok := c.mem.zeroed(a[1], sizePrestat)
	if !ok {
		return ErrnoFault
	}
	memory(b).putU32(4, uint32(len(f.preopen)))
	return ErrnoSuccess
}

// fd_prestat_dir_name(fd, path, path_len)
func (s *System) fdPrestatDirName(c *call, a []uint64) Errno {
	f, e := s.getPreopen(a[0])
	if e != ErrnoSuccess {
		return e
	}
	if uint64(uint32(a[2])) < uint64(len(f.preopen)) {
		return ErrnoNametoolong
	}
	b, ok := c.mem.bytes(a[1], uint64(len(f.preopen)))
	if !ok {
		return ErrnoFault
	}
	copy(b, f.preopen)
	return ErrnoSuccess
}

// list reads the directory's entries for fd_readdir: "." and "..", then
// the others by name.
func (f *file) list() error {
	d, err := f.root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return err
	}
	self, err := f.root.Stat(".")
	if err != nil {
		return err
	}
	// The parent may be outside what the program can reach; its inode
	// number is not given away.
	list := []dirent{{name: ".", ino: statOf(self).ino, ftype: filetypeDirectory}, {name: "..", ftype: filetypeDirectory}}
	for _, de := range entries {
		fi, err := f.root.Lstat(de.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since it was listed
		}
		if err != nil {
			return err
		}
		list = append(list, dirent{name: de.Name(), ino: statOf(fi).ino, ftype: filetypeOf(fi.Mode())})
	}
	slices.SortFunc(list[2:], func(x, y dirent) int {
		switch {
		case x.name < y.name:
			return -1
		case x.name > y.name:
			return 1
		}
		return 0
	})
	f.dirents = list
	return nil
}

// fd_readdir(fd, buf, buf_len, cookie, bufused_ptr) fills buf with
// entries from the cookie-th on; the cookie of the next is in each
// entry's d_next. The last entry is cut off when it does not fit, and
// bufused is then buf_len, telling the program to read on.
func (s *System) fdReaddir(c *call, a []uint64) Errno {
	f, e := s.getRight(a[0], rightFdReaddir)
	if e != ErrnoSuccess {
		return e
	}
	if f.kind != kindDir {
		return ErrnoNotdir
	}
	buf, ok := c.mem.bytes(a[1], uint64(uint32(a[2])))
	if _, ok2 := c.mem.bytes(a[4], 4); !ok || !ok2 {
		return ErrnoFault
	}
	cookie := a[3]
	if cookie == 0 || f.dirents == nil {
		if err := f.list(); err != nil {
			return errno(err)
		}
	}
	used := 0
	var ent [sizeDirent]byte
	for i := cookie; i < uint64(len(f.dirents)) && used < len(buf); i++ {
		d := f.dirents[i]
		clear(ent[:])
		memory(ent[:]).putU64(0, i+1)
		memory(ent[:]).putU64(8, d.ino)
		memory(ent[:]).putU32(16, uint32(len(d.name)))
		ent[20] = d.ftype
		used += copy(buf[used:], ent[:])
		used += copy(buf[used:], d.name)
	}
	c.mem.putU32(a[4], uint32(used))
	return ErrnoSuccess
}
