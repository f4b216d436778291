// Package mir is kiln's machine IR: the representation every back-end stage
// works on, from SSA construction through register allocation to encoding.
//
// A Func holds basic blocks of x86-64 machine instructions (Instr) over
// virtual registers, with φ instructions at block starts in SSA form and
// parallel copies after out-of-SSA translation. Blocks carry their expected
// execution frequency and their successor edges' probabilities.
//
// A function is in one of three forms (Form): SSA; non-SSA, where virtual
// registers may be defined several times; and allocated, where every
// operand is a physical register or a stack slot. Non-SSA code may carry
// pins (Func.Pins): once the out-of-SSA translation has resolved the
// operand constraints, every virtual register an operand fixes to a
// physical register (division in RAX and RDX, shift counts in RCX, the
// calling convention's registers) is pinned to it, tied operands are one
// virtual register, and the register allocator must keep each pinned
// virtual register in its register. Pins nil means the constraints are
// not resolved yet.
//
// The op table (Op.Info, Func.DefSpec, Func.UseSpec) is the single place
// that says what each machine op needs: operand classes, fixed registers
// (division in RAX/RDX, variable shifts in CL, the calling convention's
// argument and result registers), tied two-address operands, early
// clobbers, clobbered registers, flags read and written, memory access and
// latency. Every later stage reads constraints only from it.
//
// Around the IR the package provides a text form (Print, Parse), a
// verifier (Verify), the analyses several stages share (reverse postorder,
// dominators, loops, critical edges, liveness, the predecessor position of
// every edge), and an interpreter that runs a function in any form with
// the semantics of package interp, so each stage can be tested by running
// its output.
//
// Everything on the compile path costs time and memory near-linear in the
// size of the function (and of its liveness sets, kept sparse): tables
// such as PredPositions replace searches of predecessor lists, and
// iterative analyses revisit only what changed (PassWorklist).
package mir
