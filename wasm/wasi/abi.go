package wasi

import "fmt"

// ModuleName is the import module of WASI preview 1.
const ModuleName = "wasi_snapshot_preview1"

// Errno is a WASI error number, the result of every preview-1 function
// but proc_exit.
type Errno uint16

// The errnos of WASI preview 1, in the specification's order.
const (
	ErrnoSuccess Errno = iota
	Errno2big
	ErrnoAcces
	ErrnoAddrinuse
	ErrnoAddrnotavail
	ErrnoAfnosupport
	ErrnoAgain
	ErrnoAlready
	ErrnoBadf
	ErrnoBadmsg
	ErrnoBusy
	ErrnoCanceled
	ErrnoChild
	ErrnoConnaborted
	ErrnoConnrefused
	ErrnoConnreset
	ErrnoDeadlk
	ErrnoDestaddrreq
	ErrnoDom
	ErrnoDquot
	ErrnoExist
	ErrnoFault
	ErrnoFbig
	ErrnoHostunreach
	ErrnoIdrm
	ErrnoIlseq
	ErrnoInprogress
	ErrnoIntr
	ErrnoInval
	ErrnoIo
	ErrnoIsconn
	ErrnoIsdir
	ErrnoLoop
	ErrnoMfile
	ErrnoMlink
	ErrnoMsgsize
	ErrnoMultihop
	ErrnoNametoolong
	ErrnoNetdown
	ErrnoNetreset
	ErrnoNetunreach
	ErrnoNfile
	ErrnoNobufs
	ErrnoNodev
	ErrnoNoent
	ErrnoNoexec
	ErrnoNolck
	ErrnoNolink
	ErrnoNomem
	ErrnoNomsg
	ErrnoNoprotoopt
	ErrnoNospc
	ErrnoNosys
	ErrnoNotconn
	ErrnoNotdir
	ErrnoNotempty
	ErrnoNotrecoverable
	ErrnoNotsock
	ErrnoNotsup
	ErrnoNotty
	ErrnoNxio
	ErrnoOverflow
	ErrnoOwnerdead
	ErrnoPerm
	ErrnoPipe
	ErrnoProto
	ErrnoProtonosupport
	ErrnoPrototype
	ErrnoRange
	ErrnoRofs
	ErrnoSpipe
	ErrnoSrch
	ErrnoStale
	ErrnoTimedout
	ErrnoTxtbsy
	ErrnoXdev
	ErrnoNotcapable
)

var errnoNames = [...]string{
	"success", "2big", "acces", "addrinuse", "addrnotavail", "afnosupport", "again", "already",
	"badf", "badmsg", "busy", "canceled", "child", "connaborted", "connrefused", "connreset",
	"deadlk", "destaddrreq", "dom", "dquot", "exist", "fault", "fbig", "hostunreach", "idrm",
	"ilseq", "inprogress", "intr", "inval", "io", "isconn", "isdir", "loop", "mfile", "mlink",
	"msgsize", "multihop", "nametoolong", "netdown", "netreset", "netunreach", "nfile", "nobufs",
	"nodev", "noent", "noexec", "nolck", "nolink", "nomem", "nomsg", "noprotoopt", "nospc",
	"nosys", "notconn", "notdir", "notempty", "notrecoverable", "notsock", "notsup", "notty",
	"nxio", "overflow", "ownerdead", "perm", "pipe", "proto", "protonosupport", "prototype",
	"range", "rofs", "spipe", "srch", "stale", "timedout", "txtbsy", "xdev", "notcapable",
}

// String returns the errno's name in the specification, such as
// "noent", or "errno N" for a number it does not define.
func (e Errno) String() string {
	if int(e) < len(errnoNames) {
		return errnoNames[e]
	}
	return fmt.Sprintf("errno %d", uint16(e))
}

// File types (filetype).
const (
	filetypeUnknown         = 0
	filetypeBlockDevice     = 1
	filetypeCharacterDevice = 2
	filetypeDirectory       = 3
	filetypeRegularFile     = 4
	filetypeSocketDgram     = 5
	filetypeSocketStream    = 6
	filetypeSymbolicLink    = 7
)

// File descriptor flags (fdflags).
const (
	fdflagAppend   = 1 << 0
	fdflagDsync    = 1 << 1
	fdflagNonblock = 1 << 2
	fdflagRsync    = 1 << 3
	fdflagSync     = 1 << 4
)

// Open flags (oflags).
const (
	oflagCreat     = 1 << 0
	oflagDirectory = 1 << 1
	oflagExcl      = 1 << 2
	oflagTrunc     = 1 << 3
)

// Lookup flags (lookupflags).
const lookupSymlinkFollow = 1 << 0

// Which times to set (fstflags).
const (
	fstAtim    = 1 << 0
	fstAtimNow = 1 << 1
	fstMtim    = 1 << 2
	fstMtimNow = 1 << 3
)

// Seek origins (whence).
const (
	whenceSet = 0
	whenceCur = 1
	whenceEnd = 2
)

// Clocks (clockid).
const (
	clockRealtime         = 0
	clockMonotonic        = 1
	clockProcessCputimeID = 2
	clockThreadCputimeID  = 3
)

// Event types (eventtype) of poll_oneoff.
const (
	eventClock   = 0
	eventFdRead  = 1
	eventFdWrite = 2
)

// Subscription clock flags (subclockflags).
const subclockAbstime = 1 << 0

// The largest advice (advice) fd_advise takes: noreuse.
const adviceNoreuse = 5

// Rights (rights), one bit per operation.
const (
	rightFdDatasync = 1 << iota
	rightFdRead
	rightFdSeek
	rightFdFdstatSetFlags
	rightFdSync
	rightFdTell
	rightFdWrite
	rightFdAdvise
	rightFdAllocate
	rightPathCreateDirectory
	rightPathCreateFile
	rightPathLinkSource
	rightPathLinkTarget
	rightPathOpen
	rightFdReaddir
	rightPathReadlink
	rightPathRenameSource
	rightPathRenameTarget
	rightPathFilestatGet
	rightPathFilestatSetSize
	rightPathFilestatSetTimes
	rightFdFilestatGet
	rightFdFilestatSetSize
	rightFdFilestatSetTimes
	rightPathSymlink
	rightPathRemoveDirectory
	rightPathUnlinkFile
	rightPollFdReadwrite
	rightSockShutdown
	rightSockAccept
)

// The rights that apply to each kind of descriptor: a descriptor of the
// kind never has others.
const (
	rightsFile = rightFdDatasync | rightFdRead | rightFdSeek | rightFdFdstatSetFlags |
		rightFdSync | rightFdTell | rightFdWrite | rightFdAdvise | rightFdAllocate |
		rightFdFilestatGet | rightFdFilestatSetSize | rightFdFilestatSetTimes | rightPollFdReadwrite
	rightsDir = rightFdFdstatSetFlags | rightFdSync | rightFdDatasync | rightFdAdvise |
		rightPathCreateDirectory | rightPathCreateFile | rightPathLinkSource |
		rightPathLinkTarget | rightPathOpen | rightFdReaddir | rightPathReadlink |
		rightPathRenameSource | rightPathRenameTarget | rightPathFilestatGet |
		rightPathFilestatSetSize | rightPathFilestatSetTimes | rightFdFilestatGet |
		rightFdFilestatSetTimes | rightPathSymlink | rightPathRemoveDirectory |
		rightPathUnlinkFile
	rightsStdin  = rightFdRead | rightFdFdstatSetFlags | rightFdFilestatGet | rightPollFdReadwrite
	rightsStdout = rightFdWrite | rightFdFdstatSetFlags | rightFdFilestatGet | rightPollFdReadwrite
)

// Sizes and field offsets of the structures the functions read and
// write in guest memory (little-endian, as wasm32 lays them out).
const (
	sizeIovec        = 8  // buf u32 @0, buf_len u32 @4
	sizeFdstat       = 24 // fs_filetype u8 @0, fs_flags u16 @2, rights_base u64 @8, rights_inheriting u64 @16
	sizeFilestat     = 64 // dev @0, ino @8, filetype u8 @16, nlink @24, size @32, atim @40, mtim @48, ctim @56
	sizePrestat      = 8  // tag u8 @0 (0: a directory), pr_name_len u32 @4
	sizeDirent       = 24 // d_next u64 @0, d_ino u64 @8, d_namlen u32 @16, d_type u8 @20
	sizeSubscription = 48 // userdata u64 @0, tag u8 @8, union @16
	sizeEvent        = 32 // userdata u64 @0, error u16 @8, type u8 @10, nbytes u64 @16, flags u16 @24
)
