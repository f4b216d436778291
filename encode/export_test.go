package encode

import "testing"

// UncoveredLists returns how many instruction lists the forms did not
// cover so far (golang-asm assembled them), for the external tests.
func UncoveredLists() int64 { return uncovered.Load() }

// Comparing reports whether assembly compares the forms with golang-asm
// (the package's TestMain sets it).
func Comparing() bool { return asmMode(assembleMode.Load()) == modeCompare }

// CheckForms checks random instances of every instruction form filled so
// far against golang-asm (see TestFormsRoundTrip) and returns the number
// of forms.
func CheckForms(t testing.TB, samples int) int { return checkForms(t, samples) }

// SetGolangAsm makes every assembly golang-asm's alone (on) or the forms'
// (off), and returns a function that restores the mode before.
func SetGolangAsm(on bool) (restore func()) {
	m := modeForms
	if on {
		m = modeGolangAsm
	}
	old := assembleMode.Swap(int32(m))
	return func() { assembleMode.Store(old) }
}
