package link

import (
	"fmt"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/translate"
)

// Memory is a linear memory instances share: the exported memory of an
// instance, or one the host makes with NewMemory.
type Memory struct {
	limits binary.Limits // as declared: the size it started with, its maximum
	mem    jit.MemoryImport
}

func (*Memory) kind() binary.ExternKind { return binary.ExternMemory }

// NewMemory returns a zeroed memory of the given limits (in pages) for
// modules to import.
func NewMemory(l binary.Limits) (*Memory, error) {
	mem, err := jit.NewMemory(l.Min, maxPages(l))
	if err != nil {
		return nil, err
	}
	return &Memory{limits: l, mem: mem}, nil
}

// Pages returns the memory's current size in pages.
func (m *Memory) Pages() uint64 { return m.mem.Pages() }

func maxPages(l binary.Limits) uint32 {
	if l.HasMax {
		return l.Max
	}
	return bytecode.MaxPages
}

// Table is a table of function references instances share: the exported
// table of an instance, or one the host makes with NewTable. Each
// instance that uses it sees it through a view, its kiln table (see
// translate.TableLinkage); changing an entry changes every view.
type Table struct {
	limits  binary.Limits
	entries []*tableRef
	users   []*Instance
	// unshared is set for the export of a table whose contents change,
	// which its instance keeps to itself: importing it is unsupported.
	unshared bool
}

// tableRef is the function in a table entry: how to call it from any
// instance, and the instance (if any) that has it as a kiln function of
// its own, with that function's name.
type tableRef struct {
	fn    *Func
	owner *Instance
	name  string
}

func (*Table) kind() binary.ExternKind { return binary.ExternTable }

// NewTable returns a table of l.Min null entries for modules to import.
func NewTable(l binary.Limits) (*Table, error) {
	if l.Min > bytecode.MaxTableSize {
		return nil, fmt.Errorf("link: a table of %d entries; kiln allows %d", l.Min, bytecode.MaxTableSize)
	}
	return &Table{limits: l, entries: make([]*tableRef, l.Min)}, nil
}

// Size returns the number of entries.
func (t *Table) Size() uint32 { return uint32(len(t.entries)) }

// viewName is the kiln function instance u's view holds for entry r.
func (t *Table) viewName(u *Instance, r *tableRef) string {
	if r == nil {
		return ""
	}
	if r.owner == u {
		return r.name
	}
	tl := u.Module.Table
	for _, s := range tl.Stubs {
		if s.Type.Equal(r.fn.Type) {
			return s.Func
		}
	}
	return tl.Mismatch
}

// view returns the contents of u's view of the table.
func (t *Table) view(u *Instance) jit.TableImport {
	names := make([]string, len(t.entries))
	for k, r := range t.entries {
		names[k] = t.viewName(u, r)
	}
	return jit.TableFuncs(names...)
}

// set puts r into entry k and into every view.
func (t *Table) set(k uint32, r *tableRef) error {
	if uint64(k) >= uint64(len(t.entries)) {
		return fmt.Errorf("link: table entry %d out of range (the table has %d)", k, len(t.entries))
	}
	t.entries[k] = r
	for _, u := range t.users {
		if err := u.Kiln.SetTableEntry(k, t.viewName(u, r)); err != nil {
			return fmt.Errorf("link: changing a table another instance shares: %w", err)
		}
	}
	return nil
}

// call calls the function in entry k, for a stub of instance u.
func (t *Table) call(c *jit.Caller, k uint64, args, results []uint64) error {
	if k >= uint64(len(t.entries)) || t.entries[k] == nil {
		return fmt.Errorf("link: internal error: a table stub ran for entry %d, which holds no function of another instance", k)
	}
	return t.entries[k].fn.Fn(c, args, results)
}

// limitsMatch reports whether limits actual satisfy an import declaring
// want, as WebAssembly's import matching requires.
func limitsMatch(actual, want binary.Limits) bool {
	return actual.Min >= want.Min && (!want.HasMax || actual.HasMax && actual.Max <= want.Max)
}

// funcRef returns the table entry for function f of instance i.
func (i *Instance) funcRef(f uint32) (*tableRef, error) {
	m := i.Module
	if int(f) < len(i.funcs) && i.funcs[f] != nil {
		// An import: the function of the instance (or host) it came from.
		fn := i.funcs[f]
		if fn.owner != nil {
			return &tableRef{fn: fn, owner: fn.owner, name: fn.name}, nil
		}
		return &tableRef{fn: fn, owner: i, name: m.FuncNames[f]}, nil
	}
	key := m.Table.FuncKeys[f]
	kf, err := i.Kiln.Func(key)
	if err != nil {
		return nil, fmt.Errorf("link: function %d of the element segments: %w", f, err)
	}
	fn := &Func{Type: m.FuncTypes[f], owner: i, name: m.FuncNames[f], Fn: func(c *jit.Caller, args, results []uint64) error {
		return kf.CallInto(c.Context(), args, results)
	}}
	return &tableRef{fn: fn, owner: i, name: m.FuncNames[f]}, nil
}

// shareTable sets up instance i's share of a table once its kiln
// instance exists: it becomes a user of the imported table t, or of a new
// one for the table it defines and exports (whose entries are then the
// ones kiln applied, elems), and writes its element segments.
func (i *Instance) shareTable(t *Table, elems []bytecode.ElemSegment) error {
	// kiln applied the segments to the view of a table the instance
	// defines already; an imported table needs them in every view.
	imported := t != nil
	if !imported {
		t = &Table{limits: i.Module.TableLimits, entries: make([]*tableRef, i.Module.TableLimits.Min)}
	}
	t.users = append(t.users, i)
	i.table = t
	for _, e := range elems {
		for k, f := range e.Funcs {
			var r *tableRef
			if f != bytecode.NullFunc {
				var err error
				if r, err = i.funcRef(f); err != nil {
					return err
				}
			}
			slot := e.Offset + uint32(k)
			if !imported {
				t.entries[slot] = r
			} else if err := t.set(slot, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// stubHosts adds to imports the host functions of the table stubs of
// module m (see translate.TableLinkage), which call through instance i's
// table.
func stubHosts(imports jit.Imports, m *translate.Module, i *Instance) {
	if m.Table == nil {
		return
	}
	for _, s := range m.Table.Stubs {
		sig := m.Bytecode().Hosts[m.Bytecode().HostIndex(s.Host)].Sig
		imports[s.Host] = jit.RawHost(sig.Params, sig.Results, func(c *jit.Caller, args, results []uint64) error {
			return i.table.call(c, args[0], args[1:], results)
		})
	}
}
