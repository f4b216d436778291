package bench

import (
	"embed"
	"path"
	"strings"

	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/translate"
)

//go:embed testdata/sightglass/*.wasm
var sightglassData embed.FS

// SightglassModules returns the sightglass programs of
// testdata/sightglass (real WASI programs compiled from C, C++ and Rust by
// others, lowered to WebAssembly 1.0; see the README there), in name
// order, as modules to compile: the compile-time benchmarks' real-world
// workload.
func SightglassModules() ([]*Program, error) {
	entries, err := sightglassData.ReadDir("testdata/sightglass")
	if err != nil {
		return nil, err
	}
	var progs []*Program
	for _, e := range entries {
		bin, err := sightglassData.ReadFile(path.Join("testdata/sightglass", e.Name()))
		if err != nil {
			return nil, err
		}
		progs = append(progs, &Program{Kind: KindModule, Name: strings.TrimSuffix(e.Name(), ".wasm"), Wasm: bin})
	}
	return progs, nil
}

// translateModule decodes, validates and translates the module of p (a C
// program or a sightglass module) with the WebAssembly front end of
// kiln (package wasm); a C program's export run must have its expected type.
func translateModule(p *Program) (*translate.Module, error) {
	if p.Kind == KindC {
		tm, _, err := translateC(p)
		return tm, err
	}
	bm, err := binary.Decode(p.Wasm)
	if err != nil {
		return nil, err
	}
	return translate.Translate(bm, translate.Options{})
}
