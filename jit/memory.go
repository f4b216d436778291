package jit

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
)

// Shared memories.
//
// A module whose memory is exported (bytecode.Memory.Export) lets its
// instances hand their memory to other instances: Instance.ExportedMemory
// returns it as a MemoryImport, which a module that imports its memory
// (bytecode.Memory.Import) takes in place of a memory of its own. Every
// instance that uses the memory sees the others' writes and growth; the
// code of such modules reads the memory's base and size again after every
// call out of it, since another instance may have grown it meanwhile.
//
// Growing moves the memory, so the instances of one memory must never run
// at the same time on different goroutines. A call on any of them holds
// the memory for its duration; a call on another of them from a host
// function of the first (an export of one instance imported by another)
// passes the host function's context (Caller.Context), which carries the
// hold, and goes ahead. Any other call while the memory is held fails
// with ErrMemoryBusy instead of racing.

// ErrMemoryBusy is returned by a call on an instance whose memory is
// shared with an instance running a call on another goroutine. A host
// function calls other instances of its memory with the Context of its
// *Caller.
var ErrMemoryBusy = errors.New("jit: the instance's memory is shared with an instance that is running a call on another goroutine (host functions pass their Caller's Context)")

// sharedMemory is a memory instances may share, and who holds it.
type sharedMemory struct {
	mem  *interp.Memory
	held atomic.Bool
}

// MemoryImport is a memory an embedder supplies to a module that imports
// its memory: the exported memory of another instance
// (Instance.ExportedMemory).
type MemoryImport struct {
	shared *sharedMemory
}

func (MemoryImport) importKind() string { return "memory" }

// NewMemory returns a zeroed memory of minPages pages that may grow to
// maxPages, which belongs to the embedder rather than to an instance: for
// modules that import their memory to share it.
func NewMemory(minPages, maxPages uint32) (MemoryImport, error) {
	if maxPages > bytecode.MaxPages || minPages > maxPages {
		return MemoryImport{}, fmt.Errorf("jit: a memory of %d pages that may grow to %d (at most %d)", minPages, maxPages, bytecode.MaxPages)
	}
	return MemoryImport{&sharedMemory{mem: interp.NewMemory(minPages, maxPages)}}, nil
}

// Pages returns the memory's current size in pages.
func (m MemoryImport) Pages() uint64 {
	if m.shared == nil {
		return 0
	}
	return m.shared.mem.Pages()
}

// MaxPages returns the size in pages the memory may grow to.
func (m MemoryImport) MaxPages() uint32 {
	if m.shared == nil {
		return 0
	}
	return m.shared.mem.MaxPages
}

// ExportedMemory returns the instance's memory for other instances to
// import. It fails when the module does not export its memory: only the
// code of a module that imports or exports its memory expects it to grow
// under it.
func (i *Instance) ExportedMemory() (MemoryImport, error) {
	if i.shared == nil || i.module.prog.Module.Memory.Export == "" {
		return MemoryImport{}, fmt.Errorf("jit: the module does not export its memory")
	}
	return MemoryImport{i.shared}, nil
}

// memoryFor returns the memory of a new instance of the module: a fresh
// one, or for a module that imports its memory, the one imports supplies,
// checked against what the module's code assumes of it. maxPages is the
// module's maximum, lowered by the engine's limit.
func memoryFor(bm bytecode.Memory, imports Imports, maxPages uint32) (*sharedMemory, error) {
	if bm.Import == "" {
		if bm.MinPages > maxPages {
			return nil, fmt.Errorf("the module needs %d memory pages; the engine allows %d", bm.MinPages, maxPages)
		}
		return &sharedMemory{mem: interp.NewMemory(bm.MinPages, maxPages)}, nil
	}
	v, ok := imports[bm.Import]
	if !ok {
		return nil, fmt.Errorf("missing import %q: the module imports its memory", bm.Import)
	}
	mi, ok := v.(MemoryImport)
	if !ok {
		return nil, fmt.Errorf("import %q is a %s; the module imports its memory", bm.Import, v.importKind())
	}
	if mi.shared == nil {
		return nil, fmt.Errorf("memory import %q is empty", bm.Import)
	}
	mem := mi.shared.mem
	if mem.Pages() < uint64(bm.MinPages) {
		return nil, fmt.Errorf("memory import %q has %d pages; the module needs at least %d", bm.Import, mem.Pages(), bm.MinPages)
	}
	if mem.MaxPages > maxPages {
		return nil, fmt.Errorf("memory import %q may grow to %d pages; the module allows at most %d", bm.Import, mem.MaxPages, maxPages)
	}
	return mi.shared, nil
}

// memoryHold is the context of a call that holds a shared memory: it
// carries the hold to the calls host functions make on other instances of
// the memory. An instance keeps one for its outermost call.
type memoryHold struct {
	context.Context
	shared *sharedMemory
}

// Value returns true for the memory the call holds and asks the parent
// context for any other key.
func (h *memoryHold) Value(key any) any {
	if s, ok := key.(*sharedMemory); ok && s == h.shared {
		return true
	}
	return h.Context.Value(key)
}

// holdMemory takes the instance's shared memory for a call with context
// ctx, unless a call further out on this goroutine holds it already (ctx
// says so). It returns the context to run the call with and whether the
// call must release the memory when it ends.
func (i *Instance) holdMemory(ctx context.Context) (context.Context, bool, error) {
	s := i.shared
	if s == nil {
		return ctx, false, nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Value(s) != nil {
		return ctx, false, nil
	}
	if !s.held.CompareAndSwap(false, true) {
		return nil, false, ErrMemoryBusy
	}
	i.hold.Context, i.hold.shared = ctx, s
	return &i.hold, true, nil
}

// releaseMemory ends the hold holdMemory took.
func (i *Instance) releaseMemory() {
	i.hold.Context = nil
	i.shared.held.Store(false)
}
