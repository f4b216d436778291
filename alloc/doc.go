// Package alloc holds register allocation support: out-of-SSA translation,
// the baseline allocator, spill placement, parallel-copy motion and
// sequentialization, and the allocation checker.
package alloc
