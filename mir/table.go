package mir

import (
	"math"

	"github.com/kiln-jit/kiln/bytecode"
)

// NullTableEntry is the packed table entry of a null table element (see
// TableEntry). Its signature half is all ones, which no canonical
// signature id reaches, so a signature check fails on it.
const NullTableEntry uint64 = math.MaxUint64

// TableEntry packs a table element for compiled code, which reads it with
// one TABLEload: the canonical signature id of the function in the upper
// 32 bits and its index in the lower 32.
func TableEntry(sigID uint32, fn uint32) uint64 { return uint64(sigID)<<32 | uint64(fn) }

// TableEntries returns the packed entries (TableEntry) of the table of
// the verified module m as every instance starts with it, null
// (NullTableEntry) where no element segment puts a function: one per
// entry of the table, or for a very large table, up to the last entry an
// element segment initialises. Compiled code treats an index from
// len(entries) up to the table's size as a null entry and one beyond the
// size as undefined.
func TableEntries(m *bytecode.Module) []uint64 { return PackTable(m, m.TableFuncs()) }

// PackTable returns the packed entries of the table of the verified module
// m when it holds the functions funcs lists (-1: null; the entries beyond
// are null), as TableEntries does for the module's own element segments.
// It serves an imported table, whose contents the embedder supplies.
func PackTable(m *bytecode.Module, funcs []int32) []uint64 {
	n := TableLength(m)
	if n == 0 {
		return nil
	}
	funcIDs, _ := m.SignatureIDs()
	out := make([]uint64, n)
	for i := range out {
		if i >= len(funcs) || funcs[i] < 0 {
			out[i] = NullTableEntry
		} else {
			out[i] = TableEntry(funcIDs[funcs[i]], uint32(funcs[i]))
		}
	}
	return out
}

// MaxPaddedTable is the largest table TableEntries gives all its entries,
// null ones included, so that compiled code checks an index with one
// compare.
const MaxPaddedTable = 1 << 16

// TableLength returns the number of packed entries of m's table: all of
// them for a table of up to MaxPaddedTable entries or an imported or
// exported one (whose contents compiled code cannot know: the embedder may
// change them), else those up to the last one the element segments
// initialise.
func TableLength(m *bytecode.Module) uint64 {
	if m.Table.Min <= MaxPaddedTable || m.Table.Import != "" || m.Table.Export != "" {
		return uint64(m.Table.Min)
	}
	return m.InitialisedTableLen()
}
