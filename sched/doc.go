// Package sched is kiln's optimizing register allocator: integrated list
// scheduling and linear-scan register assignment steered by execution
// frequencies (Cutcutache, "Fast, frequency-based, integrated register
// allocation and instruction scheduling", 2009).
package sched
