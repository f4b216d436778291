//go:build ignore

// gen_spec converts the numeric assertions of the WebAssembly 1.0
// specification tests (as wabt's wast2json writes them) into
// testdata/wasmspec.txt.gz, the compact form SpecAssertions reads:
//
//	go run gen_spec.go DIR   # DIR holds i32.json, f32.json, ... (default ../../../shared/wasm/spectest)
//
// Each line is "FILE:LINE OP ARG... = WANT", with arguments and WANT as
// decimal bit patterns, WANT "nan:canonical", "nan:arithmetic" or
// "trap:TEXT".
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// files maps a script to the prefix that turns its export names into kiln
// op names; conversions.json exports the op names themselves.
var files = map[string]string{
	"i32.json": "i32.", "i64.json": "i64.",
	"f32.json": "f32.", "f32_cmp.json": "f32.", "f32_bitwise.json": "f32.",
	"f64.json": "f64.", "f64_cmp.json": "f64.", "f64_bitwise.json": "f64.",
	"conversions.json": "",
}

type value struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type command struct {
	Type   string `json:"type"`
	Line   int    `json:"line"`
	Action struct {
		Type  string  `json:"type"`
		Field string  `json:"field"`
		Args  []value `json:"args"`
	} `json:"action"`
	Text     string  `json:"text"`
	Expected []value `json:"expected"`
}

func main() {
	dir := filepath.Join("..", "..", "..", "shared", "wasm", "spectest")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	var out bytes.Buffer
	for _, file := range names {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			log.Fatal(err)
		}
		var script struct {
			Commands []command `json:"commands"`
		}
		if err := json.Unmarshal(data, &script); err != nil {
			log.Fatalf("%s: %v", file, err)
		}
		for _, c := range script.Commands {
			if c.Type != "assert_return" && c.Type != "assert_trap" || c.Action.Type != "invoke" {
				continue
			}
			fmt.Fprintf(&out, "%s:%d %s%s", strings.TrimSuffix(file, ".json"), c.Line, files[file], c.Action.Field)
			for _, a := range c.Action.Args {
				fmt.Fprintf(&out, " %s:%s", a.Type, a.Value)
			}
			switch {
			case c.Type == "assert_trap":
				fmt.Fprintf(&out, " = trap:%s\n", strings.ReplaceAll(c.Text, " ", "_"))
			case len(c.Expected) != 1:
				log.Fatalf("%s:%d: %d results", file, c.Line, len(c.Expected))
			default:
				fmt.Fprintf(&out, " = %s:%s\n", c.Expected[0].Type, c.Expected[0].Value)
			}
		}
	}
	f, err := os.Create(filepath.Join("testdata", "wasmspec.txt.gz"))
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if _, err := zw.Write(out.Bytes()); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
