package wasmtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
)

// MaxArchiveBytes bounds the content ReadArchive extracts, so that a
// damaged or hostile archive cannot exhaust memory.
const MaxArchiveBytes = 64 << 20

// ReadArchive returns the regular files of a gzip-compressed tar archive
// (such as testdata/spectest.tar.gz), by name.
func ReadArchive(data []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	total := int64(0)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		total += h.Size
		if h.Size < 0 || total > MaxArchiveBytes {
			return nil, fmt.Errorf("archive: more than %d bytes of content", MaxArchiveBytes)
		}
		b := make([]byte, h.Size)
		if _, err := io.ReadFull(tr, b); err != nil {
			return nil, fmt.Errorf("archive: %s: %w", h.Name, err)
		}
		files[path.Clean(h.Name)] = b
	}
	return files, zr.Close()
}

// ReadArchiveFile reads the archive at path (see ReadArchive).
func ReadArchiveFile(name string) (map[string][]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return ReadArchive(data)
}

// Modules returns the contents of the files whose names end in ".wasm",
// in the order of their names.
func Modules(files map[string][]byte) [][]byte {
	var names []string
	for name := range files {
		if strings.HasSuffix(name, ".wasm") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([][]byte, len(names))
	for i, name := range names {
		out[i] = files[name]
	}
	return out
}
