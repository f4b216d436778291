//go:build race

package jit

// raceEnabled says the tests run under the race detector, whose
// instrumentation makes every Go frame several times larger.
const raceEnabled = true
