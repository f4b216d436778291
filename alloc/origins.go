package alloc

// Origins says where each instruction of an allocated function came from,
// so that CheckAllocation can match it with the function before allocation.
type Origins struct {
	// Block[b] is the block of the input function that allocated block b
	// holds, or -1 for a block the allocator added on an edge (it holds
	// only inserted instructions and a JMP).
	Block []int
	// Instr[b][i] is the index, in input block Block[b], of the instruction
	// allocated instruction i of block b was made from, or -1 for an
	// instruction the allocator inserted (a move, spill, reload, exchange or
	// rematerialization).
	Instr [][]int32
}
