package wasm

import (
	_ "embed"
	"strings"
	"sync"
	"testing"

	"github.com/kiln-jit/kiln/wasm/binary"
)

// The WebAssembly 2.0 specification tests as wast2json converts them
// (testdata/README.md tells where they come from): the JSON command files
// and binary modules of the 89 scripts without SIMD, the text modules
// of their assert_malformed commands, and the names of the 56 SIMD
// scripts, which are left out.
var (
	//go:embed testdata/spectest2.tar.gz
	spec2Archive []byte
	//go:embed testdata/spectest2-text.tar.gz
	spec2TextArchive []byte
	//go:embed testdata/spectest2-simd.txt
	spec2SIMD string
)

// spec2 is the 2.0 suite, decoded with every feature of WebAssembly 2.0.
// A command that needs a feature kiln does not support is skipped with
// the feature as its reason; any other failure fails the test.
var spec2 = specSuite{
	name:          "2.0",
	features:      binary.Features2,
	load:          sync.OnceValues(func() (*specData, error) { return loadSpecData(spec2Archive, spec2TextArchive) }),
	perFile:       true,
	leftOut:       strings.Fields(spec2SIMD),
	leftOutReason: "SIMD is not supported",
}

// TestSpec2 runs the WebAssembly 2.0 specification scripts on every tier
// and reports, per script, whether it passed or was skipped, and why.
func TestSpec2(t *testing.T) { runSpecSuite(t, spec2) }
