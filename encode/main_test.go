package encode

import (
	"os"
	"testing"
)

// TestMain runs the package's tests with every list assembled both from
// the instruction forms and by golang-asm, the two compared (modeCompare):
// every test that encodes checks that the forms reproduce golang-asm's
// code byte for byte.
func TestMain(m *testing.M) {
	assembleMode.Store(int32(modeCompare))
	os.Exit(m.Run())
}
