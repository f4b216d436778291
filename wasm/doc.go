// Package wasm is kiln's WebAssembly front end. It has no code of its
// own: its subpackages do the work, and its tests run the WebAssembly
// specification's scripts and a differential fuzzer over all of them.
//
//   - binary decodes the binary format into a Module and reads function
//     bodies instruction by instruction.
//   - text parses the text format and encodes it in the binary format.
//   - validate checks a decoded module by the specification's rules.
//   - translate turns a valid module into a kiln bytecode module.
//   - link instantiates translated modules on a jit.Engine: imports,
//     shared memories, tables and globals, segments, the start function.
//
// The program under examples/wasm runs a module from the command line
// with these packages.
package wasm
