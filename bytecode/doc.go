// Package bytecode defines kiln bytecode: the instruction set interpreters
// hand to kiln, its module model, a builder, a text form (assembler and
// disassembler), a compact binary form, and a verifier.
//
// This comment is the definition of the semantics. The reference interpreter
// (package interp) implements it, and every compiled tier must compute the
// same results, memory contents, host-call sequences and traps.
//
// # Model
//
// A Module has functions, host imports (functions the embedder supplies),
// one linear memory of bytes, data segments that initialise the memory,
// globals, signatures for indirect calls (Module.Types), tables of
// references with the element segments that initialise them, and
// exported names for functions. Globals, the memory and table 0 may be
// imported and exported under names of their own. This is the model of
// WebAssembly 2.0 without SIMD, with one memory.
//
// A Function has a signature (i64, f64, i32 and f32 parameters and
// results), a list of typed virtual registers and a sequence of
// instructions. Parameter i is register i. Every other register starts at
// zero (float registers at +0.0) when the function is entered. An instruction's bytecode offset is its index in
// the function's code; branch targets and trap reports use offsets.
//
// Control starts at offset 0 and continues with the next instruction unless a
// branch is taken. Control never falls off the end of a function: the last
// instruction is a jump, switch, ret, trap or unreachable (the verifier
// checks this).
// Unreachable instructions are allowed.
//
// # Values
//
// i64 values are 64-bit two's-complement integers; each operation decides
// whether it treats them as signed or unsigned. Arithmetic wraps. f64 values
// are IEEE-754 binary64 numbers with round-to-nearest-even. Every value,
// NaN payloads and the sign of zero included, is the same bits in every
// tier. A NaN result follows one deterministic rule, which WebAssembly's
// nan:canonical and nan:arithmetic requirements allow and x86-64's SSE
// instructions implement (package internal/floatbits has it in Go):
//
//   - an operation with a NaN operand returns its first NaN operand
//     quieted (quiet bit set; sign and payload kept);
//   - an invalid operation on non-NaN operands (0/0, ∞-∞, 0·∞, sqrt of a
//     negative number) returns the default NaN, 0xFFF8000000000000
//     (0xFFC00000 for f32): negative, quiet, zero payload;
//   - min and max of a NaN follow the first rule; floor, ceil, trunc,
//     nearest and sqrt quiet a NaN operand;
//   - f32.demote_f64 keeps the sign and the high 22 payload bits,
//     f64.promote_f32 the sign and the payload, both setting the quiet bit;
//   - neg, abs, copysign, moves, loads, stores and reinterpretations never
//     change a NaN, signalling or not.
//
// # Instructions
//
// Operands: Dst is the destination register; A, B and C are operand
// registers. For the i64 binary operations, the i64 comparisons and the fused
// compare-and-branch instructions, the B operand may be an immediate int64
// instead (Instr.UseImm).
//
// Constants and moves:
//
//	i64.const  Dst = Imm
//	f64.const  Dst = the f64 whose bits are Imm
//	mov        Dst = A (both registers have the same type)
//
// i64 arithmetic (all wrap modulo 2^64):
//
//	add, sub, mul
//	div_s   signed division rounding toward zero; traps DivideByZero when B is
//	        0 and IntegerOverflow when A is INT64_MIN and B is -1
//	div_u   unsigned division; traps DivideByZero when B is 0
//	rem_s   signed remainder with the sign of A; traps DivideByZero when B is
//	        0; INT64_MIN rem_s -1 is 0
//	rem_u   unsigned remainder; traps DivideByZero when B is 0
//	and, or, xor
//	shl, shr_s (arithmetic), shr_u (logical), rotl, rotr: the count is B mod 64
//	neg (0 - A), not (bitwise complement)
//	clz, ctz: leading and trailing zero bits; 64 for zero
//	popcnt: number of one bits
//	extend8_s, extend16_s, extend32_s: sign-extend the low 8, 16, 32 bits
//	extend32_u: zero-extend the low 32 bits
//
// i64 comparisons eq, ne, lt_s, lt_u, le_s, le_u, gt_s, gt_u, ge_s, ge_u set
// Dst to 1 when the condition holds and 0 otherwise (_s signed, _u unsigned).
//
//	select  Dst = B if A != 0, else C (B, C and Dst share one type)
//
// f64 arithmetic: add, sub, mul, div, sqrt, neg, abs, floor, ceil, trunc,
// nearest, min, max, copysign.
//
//	neg, abs, copysign change only the sign bit (also of NaNs)
//	nearest rounds to the nearest integer, ties to even
//	min, max: NaN if either operand is NaN; otherwise the smaller (larger)
//	operand, with -0 smaller than +0
//
// f64 comparisons eq, ne, lt, le, gt, ge set an i64 Dst to 1 or 0 by IEEE
// rules: every comparison with a NaN is false except ne, which is true.
//
// Conversions:
//
//	f64.convert_i64_s, f64.convert_i64_u: the nearest f64 (ties to even) to
//	    the signed (unsigned) value of A
//	i64.trunc_f64_s: A truncated toward zero; traps InvalidConversion when A
//	    is NaN and IntegerOverflow when the result is outside [-2^63, 2^63)
//	i64.trunc_f64_u: likewise for the unsigned range [0, 2^64), the result's
//	    bits stored in Dst
//	i64.trunc_sat_f64_s, i64.trunc_sat_f64_u: like the above but never trap:
//	    NaN gives 0 and out-of-range values give the nearest bound
//	i64.reinterpret_f64, f64.reinterpret_i64: copy the 64 bits unchanged
//
// Memory. The effective address of a load or store is (A + Imm) mod 2^64,
// where Imm is a signed 32-bit offset; the access is in bounds when the
// effective address plus the access size is at most the memory's size in
// bytes, and traps OutOfBounds otherwise (nothing is written by a trapping
// store). Accesses may be unaligned and are little-endian.
//
//	i64.load8_s, i64.load8_u, i64.load16_s, i64.load16_u, i64.load32_s,
//	i64.load32_u, i64.load: load and sign- or zero-extend
//	f64.load
//	i64.store8, i64.store16, i64.store32, i64.store: store the low bytes of B
//	f64.store
//	memory.size  Dst = the memory's size in 64 KiB pages
//	memory.grow  grow the memory by A pages (A unsigned); Dst = the old size
//	             in pages, or -1 (leaving memory unchanged) when the new size
//	             would exceed the module's maximum or the embedder's limit.
//	             New bytes are zero.
//	memory.copy  copy C bytes from address B to address A, as if through a
//	             temporary buffer (the ranges may overlap); A, B and C are
//	             unsigned, and the copy is in bounds when A + C and B + C
//	             (as exact sums) are at most the memory's size in bytes;
//	             otherwise it traps OutOfBounds before writing anything (a
//	             count of 0 at an address up to the size is in bounds)
//	memory.fill  set C bytes from address A on to the low byte of B; in
//	             bounds when A + C is at most the size, as memory.copy
//	memory.init  copy C bytes from offset B of data segment Callee to
//	             address A; in bounds when B + C is at most the
//	             segment's length (0 once dropped) and A + C at most
//	             the memory's size, otherwise it traps OutOfBounds
//	             before writing anything
//	data.drop    drop data segment Callee: from then on it has no bytes
//	             for this instance (dropping it again does nothing)
//
// A data segment is active (copied into memory at its Offset when an
// instance starts, and dropped right after) or passive (DataSegment.
// Passive: only memory.init copies it). Each instance keeps its own
// record of the segments it dropped.
//
// Control flow:
//
//	jump     go to Target
//	br_if    go to Target if A != 0, else continue
//	br.COND  (COND one of the i64 comparisons) go to Target if A COND B
//	switch   go to Table[A] if A (unsigned) < len(Table), else to Target
//	call     call function Callee with Args; its results go to Results
//	call_host  call host import Callee likewise
//	call_indirect  call the function in entry A (an i32 or i64,
//	         unsigned) of table Imm likewise; Callee is the index in
//	         Module.Types of the signature the function must have
//	ret      return the registers in Args
//	trap     stop with an Explicit trap carrying the code Imm
//	unreachable  stop with an Unreachable trap
//
// Argument registers are read before any result register is written, so a
// register may be both an argument and a result. A call's result registers
// are distinct. Calls nest to a depth the embedder limits; exceeding it traps
// StackOverflow at the call instruction.
//
// call_indirect (through table Imm, 0 unless written) traps
// UndefinedElement when A is not below the table's size, UninitializedElement when the entry is null, and
// IndirectCallTypeMismatch when the function's signature is not equal to
// Types[Callee] (the same parameter and result types; Module.SignatureIDs
// numbers signatures so that this is one comparison). Otherwise it is a
// call of that function, with call's depth and stack checks. The checks
// come in that order; each of them traps at the call_indirect.
//
// # Globals
//
// A global holds one value of its type; it starts an instance with its
// Init (or, when imported, with the value the embedder supplies) and each
// instance has its own. 32-bit globals hold their value zero-extended, as
// registers do.
//
//	global.get  Dst = global Callee (Dst has the global's type)
//	global.set  global Callee = A (A has the global's type; the global is
//	            mutable)
//
// # Tables and references
//
// A module has up to MaxTables tables: table 0 (Module.Table) and tables
// 1, 2, ... (Module.MoreTables). A table holds references, function
// references or (Table.Extern) the embedder's external references. A
// reference is an i64 value, so reference values live in i64 registers,
// globals, parameters and results:
//
//   - null, of either kind, is NullRef (all ones);
//   - a function reference is FuncRef(id, f): the canonical signature id
//     of function f (Module.SignatureIDs) in the upper 32 bits, f in the
//     lower 32, so that call_indirect checks an entry's signature with
//     one compare of its upper half, which never matches for null;
//   - an external reference is any value the embedder passes in other
//     than NullRef; kiln never looks into it.
//
// WebAssembly's ref.null is "i64.const rD, -1" and ref.is_null
// "i64.eq rD, rA, -1" in kiln bytecode. A function reference designates a
// function of its own module; references do not cross instances.
//
// When an instance starts, each table has Min entries, all null, and the
// active element segments (ElemSegment) are applied in order: segment e
// puts its functions (NullFunc: null) into entries e.Offset,
// e.Offset+1, ... of table e.Table; the verifier checks that they lie
// within the table. Active and declarative segments are then dropped,
// passive ones kept for table.init. Dropped segments have no elements.
//
//	ref.func    Dst = the reference of function Callee
//	table.get   Dst = entry A of table Callee
//	table.set   entry A of table Callee = B
//	table.size  Dst = the size of table Callee
//	table.grow  add B entries set to A to table Callee; Dst = the old size,
//	            or -1 (changing nothing) when the size would exceed the
//	            table's maximum (MaxTableSize without one)
//	table.fill  set C entries of table Callee from entry A on to B
//	table.copy  copy C entries from entry B of table Imm to entry A of
//	            table Callee, as if through a temporary buffer
//	table.init  copy C elements from element B of segment Callee to entry
//	            A of table Imm
//	elem.drop   drop element segment Callee
//
// Indices, counts and deltas are unsigned (i32 or i64). A range out of
// its table or segment traps TableOutOfBounds before anything is
// written (a count of 0 at an index up to the size is in bounds); table.get
// and table.set trap TableOutOfBounds for an index at or beyond the size.
// Storing into a table of function references a value that is neither
// null nor a reference of a function of the module with its signature's
// id traps InvalidReference (the Wasm front end never does), so that
// call_indirect only ever finds functions there. call_indirect through
// table Imm (a table of function references) traps as described under
// Instructions, against the table's current size.
//
// A module whose tables never change (Module.DynamicTables is false: one
// table of function references, active segments of it, no table
// instruction but call_indirect) has them in constant form: compiled
// code folds the size and checks a call_indirect with one compare of the
// index against the size and one compare of the entry's signature id
// (see package lower); such a table may be imported and exported. The
// tables of any other module live in one slice of words (package
// interp's Tables, shared by the interpreter and compiled code of an
// instance): a header of each table's first entry and size, then the
// entries; call_indirect reads the size from the header and stays
// compiled, the other table instructions are calls into the runtime.
// Such tables are not imported or exported.
//
// Compiled code keeps the globals in the instance (the execution context
// holds their address) and folds a constant global the module defines to
// its value.
//
// # The 32-bit types
//
// i32 is a 32-bit integer and f32 an IEEE-754 binary32 number, with the
// operations of WebAssembly 1.0. A register of a 32-bit type holds its 32
// bits zero-extended: wherever a 32-bit value is seen as 64 bits (the
// API's uint64 values, an i32 condition, switch index or address), its
// upper 32 bits are zero, and every operation producing an i32 or f32
// keeps them zero.
//
//	i32.const, f32.const  Imm is an int32 (i32; the text form also takes
//	    uint32 literals) or the f32's bits (0 <= Imm < 2^32)
//	i32 add, sub, mul, div_s, div_u, rem_s, rem_u, and, or, xor, shl,
//	    shr_s, shr_u, rotl, rotr, neg, not, clz, ctz, popcnt, extend8_s,
//	    extend16_s: as the i64 operations, modulo 2^32 (shift counts mod 32;
//	    div_s traps IntegerOverflow on INT32_MIN / -1); an immediate B is an
//	    int32
//	i32.eqz, i64.eqz  Dst = 1 if A == 0, else 0
//	i32 comparisons (eq ... ge_u) and br.i32.COND: as the i64 ones, on the
//	    32-bit values
//	f32 add, sub, mul, div, sqrt, min, max, neg, abs, copysign, floor, ceil,
//	    trunc, nearest and comparisons eq ... ge: as the f64 ones, in binary32
//	i32.wrap_i64 (the low 32 bits), i64.extend_i32_s, i64.extend_i32_u,
//	    f32.demote_f64 (nearest, ties to even), f64.promote_f32 (exact),
//	    f32.convert_i32_s/u, f32.convert_i64_s/u, f64.convert_i32_s/u
//	    (nearest, ties to even), i32.trunc_f32_s/u, i32.trunc_f64_s/u,
//	    i64.trunc_f32_s/u (trapping as i64.trunc_f64_s), the saturating
//	    i32.trunc_sat_f32_s/u, i32.trunc_sat_f64_s/u, i64.trunc_sat_f32_s/u,
//	    and i32.reinterpret_f32, f32.reinterpret_i32 (bit copies)
//	i32.load8_s, i32.load8_u, i32.load16_s, i32.load16_u, i32.load,
//	    f32.load, i32.store8, i32.store16, i32.store, f32.store
//
// Operands that only need an integer take either integer type, chosen by
// the register: the destination of every comparison (so i64.lt_s, f64.eq
// and i32.eq can produce an i32 as in WebAssembly, or an i64), the
// condition of br_if and select, the index of switch and call_indirect,
// the address of loads and stores, and memory.grow's delta and result and
// memory.size's result (an i32 memory.grow result of -1 is 0xFFFFFFFF).
//
// Compiled code holds an i32 in the low half of a general-purpose
// register whose upper half is zero (the 32-bit x86 instructions clear
// it), and an f32 in the low 32 bits of an XMM register whose other bits
// are never read; values are masked to 32 bits where they cross into Go.
//
// # Traps
//
// A trap ends the outermost call with a *Trap error naming the function and
// the offset of the instruction that trapped. Besides the traps above,
// execution can be stopped by cancellation of the caller's context
// (Interrupted), by running out of fuel (FuelExhausted) and by a host
// function's error (HostError). Cancellation and fuel are checked on backward
// branches and calls (call_indirect included, before its table checks), so
// a loop cannot run unchecked.
//
// # Text form
//
// The text form (Assemble, Disassemble) is line based; ';' starts a comment.
// Disassemble prints a canonical text that Assemble reads back into an equal
// module, and that disassembles to the same text.
//
//	memory 1 16                        ; initial and maximum pages
//	data 0 "hello\n"                   ; offset and a Go-quoted string
//	data passive "world"               ; a passive segment
//	host putc (i64) -> ()
//	type unop (i64) -> (i64)           ; a signature for call_indirect
//	global count i64 mut = 0 export "count"
//	global base i32 import "env.base"  ; imported: no initial value
//	table 2 2 export "table"           ; minimum and optional maximum
//	elem 0 fib fib                     ; table offset and function names
//	func fib (i64) -> (i64)
//	  regs i64 i64                     ; types of r1, r2 (after the parameters)
//	  br.lt_s r0, 2, L7
//	  i64.sub r1, r0, 1
//	  call fib (r1) -> (r1)
//	  i64.sub r2, r0, 2
//	  call fib (r2) -> (r2)
//	  i64.add r0, r1, r2
//	  ret r0
//	L7:
//	  ret r0
//	end
//	export "fib" fib
//
// Operands are written Dst first, then A, B, C. Immediates are decimal or 0x
// hexadecimal integers (hexadecimal may give any 64-bit pattern); f64.const
// takes a decimal float, inf, -inf, nan, or nan:0xBITS for a NaN with another
// bit pattern. Memory operands are written [rA+OFF], [rA-OFF] or [rA]. A
// switch is written "switch rA, [L1, L2], LDEFAULT"; calls "call NAME (ARGS)
// -> (RESULTS)" and "call_indirect TYPE, rA (ARGS) -> (RESULTS)"; globals
// "global.get rD, NAME" and "global.set NAME, rA"; returns "ret r1, r2";
// memory.init "memory.init SEG, rA, rB, rC" and data.drop "data.drop
// SEG", where SEG is the data segment's index.
// Labels are identifiers followed by a colon; Disassemble names them L
// followed by the offset they mark.
//
// Several table lines declare tables 0, 1, ...; "externref" after the
// sizes makes a table one of external references. An element line is
// "elem [table N] OFFSET ENTRY ...", "elem passive ENTRY ..." or "elem
// declare ENTRY ...", an ENTRY being a function name or null (a function
// named null cannot be listed). Tables and segments are referred to by
// index: "ref.func rD, NAME", "table.get rD, TABLE, rA", "table.set
// TABLE, rA, rB", "table.size rD, TABLE", "table.grow rD, TABLE, rA,
// rB", "table.fill TABLE, rA, rB, rC", "table.copy DST, SRC, rA, rB, rC",
// "table.init SEGMENT, TABLE, rA, rB, rC", "elem.drop SEGMENT", and
// "call_indirect TYPE, TABLE, rA (ARGS) -> (RESULTS)" for a table other
// than 0.
//
// A global line is "global NAME TYPE [mut] = LITERAL" or "global NAME TYPE
// [mut] import "QUOTED"", either followed by an optional export "QUOTED";
// the LITERAL is read as the operand of TYPE.const. A table line is "table
// MIN [MAX]" with optional import "QUOTED" and export "QUOTED" clauses
// (a table of 0 entries needs a maximum, an import or an export to be
// declared at all), and "elem OFFSET NAME ..." puts the named functions
// into it. Types, globals and functions have separate namespaces; the
// model does not keep type names, and Disassemble calls type i "t<i>".
//
// # Binary form
//
// Encode and Decode use a compact binary form: the magic "\x00kln", a version
// byte, then the memory, data, host, function and export sections, with
// unsigned LEB128 counts and indices and signed LEB128 immediates. Version
// 2 adds the type, global, table and element sections before the
// functions; Encode writes version 1 for a module that has none of them.
// Version 3 adds the list of passive data segments, the tables beyond
// table 0, tables' element types and element segments' modes and tables
// after them, written for a module that has one of these.
// Decode accepts exactly the bytes Encode produces for some valid module
// and rejects everything else with an error that says where it stopped.
//
// Assemble and Decode never panic, whatever their input; both verify the
// module they produce.
package bytecode
