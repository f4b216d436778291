package encode

// UncoveredLists returns how many instruction lists the forms did not
// cover so far (golang-asm assembled them), for the external tests.
func UncoveredLists() int64 { return uncovered.Load() }

// Comparing reports whether assembly compares the forms with golang-asm
// (the package's TestMain sets it).
func Comparing() bool { return asmMode(assembleMode.Load()) == modeCompare }
