package dumphtml

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/lower"
	"github.com/kiln-jit/kiln/profilecounters"
)

var update = flag.Bool("update", false, "rewrite the golden outlines in testdata")

// pageCase is a page to write: function fn of testdata/file, on a tier,
// with a measured profile from a run with args when args is not nil.
type pageCase struct {
	name string
	file string
	fn   string
	tier Tier
	args []uint64
}

var pageCases = []pageCase{
	{"product-optimizing", "loop.kasm", "product", Optimizing, nil},
	{"product-baseline", "loop.kasm", "product", Baseline, nil},
	{"product-profiled", "loop.kasm", "product", Optimizing, []uint64{6}},
	{"norm-baseline", "loop.kasm", "norm", Baseline, nil},
	{"folded-optimizing", "loop.kasm", "folded", Optimizing, nil},
	{"classify-profiled", "switch.kasm", "classify", Optimizing, []uint64{9}},
	{"classify-baseline", "switch.kasm", "classify", Baseline, nil},
	{"square-optimizing", "switch.kasm", "square", Optimizing, nil},
}

// loadModule assembles a module of testdata.
func loadModule(t testing.TB, file string) *bytecode.Module {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	m, err := bytecode.Assemble(src)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// measuredProfile runs function fn of m in the interpreter with args (host
// functions do nothing) and returns its profile.
func measuredProfile(t testing.TB, m *bytecode.Module, fn int, args []uint64) *profilecounters.Profile {
	t.Helper()
	p, err := interp.Prepare(m)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]interp.HostFunc, len(m.Hosts))
	for i := range hosts {
		hosts[i] = func(context.Context, []uint64, []uint64) error { return nil }
	}
	mach, err := interp.NewMachine(p, interp.Config{}, hosts, interp.NewMemory(m.Memory.MinPages, m.Memory.MaxPages))
	if err != nil {
		t.Fatal(err)
	}
	res := make([]uint64, len(m.Funcs[fn].Sig.Results))
	if err := mach.Call(context.Background(), fn, args, res); err != nil {
		t.Fatal(err)
	}
	return p.Layouts[fn].Profile(mach.Counters[fn])
}

// writePage writes the page of tc.
func writePage(t testing.TB, tc pageCase) []byte {
	t.Helper()
	m := loadModule(t, tc.file)
	fn := m.FuncIndex(tc.fn)
	if fn < 0 {
		t.Fatalf("%s has no function %s", tc.file, tc.fn)
	}
	opts := Options{Tier: tc.tier, Target: lower.FullTarget()}
	if tc.args != nil {
		opts.Profile = measuredProfile(t, m, fn, tc.args)
	}
	var b bytes.Buffer
	if err := Write(&b, m, fn, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// node is an element of a parsed page.
type node struct {
	name     string
	attrs    map[string]string
	children []*node
	text     string // the text directly inside, concatenated
}

// parsePage parses a page as XML, which fails unless it is well-formed.
func parsePage(page []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	root := &node{name: "#document"}
	stack := []*node{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			top.children = append(top.children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.text += string(tok)
		}
	}
	if len(stack) != 1 {
		return nil, errors.New("unclosed elements")
	}
	return root, nil
}

func (n *node) hasClass(c string) bool {
	return slices.Contains(strings.Fields(n.attrs["class"]), c)
}

// all returns the elements under n (n included) that satisfy keep, in
// document order.
func (n *node) all(keep func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(x *node) {
		if keep(x) {
			out = append(out, x)
		}
		for _, c := range x.children {
			walk(c)
		}
	}
	walk(n)
	return out
}

// fullText returns the text of n and everything inside it.
func (n *node) fullText() string {
	var b strings.Builder
	var walk func(*node)
	walk = func(x *node) {
		b.WriteString(x.text)
		for _, c := range x.children {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func withClass(c string) func(*node) bool { return func(n *node) bool { return n.hasClass(c) } }

// nameKind says what a data-n key names, for the outline.
func nameKind(key string) string {
	switch {
	case strings.HasPrefix(key, "bc:r"):
		return "bcreg"
	case strings.HasPrefix(key, "bc:B"):
		return "bcblock"
	case strings.HasPrefix(key, "@"):
		return "pos"
	case strings.HasPrefix(key, "pc:"):
		return "pc"
	case key[0] == 'b':
		return "block"
	case key[0] == 'v':
		return "vreg"
	case key[0] == 's':
		return "slot"
	case strings.HasPrefix(key, "in") || strings.HasPrefix(key, "out"):
		return "arg"
	}
	return "preg"
}

// outline checks the structure of a page and returns its outline: the
// page's title and information lines, then per column its title, kind,
// number of blocks and the kinds of names it holds, and for the graph its
// node and edge counts. The checks: every element with a name key has the
// class the script looks for and every such element a key; every block
// header shows a frequency and every edge a probability, and a count when
// counts is set; the graph has a node per block of the lowered SSA and an
// edge element per edge, whose width grows with the edge's frequency.
func outline(t *testing.T, page []byte, counts bool) string {
	t.Helper()
	doc, err := parsePage(page)
	if err != nil {
		t.Fatalf("page is not well-formed: %v", err)
	}
	var out strings.Builder
	titles := doc.all(func(n *node) bool { return n.name == "title" && len(n.children) == 0 && n.attrs["class"] == "" })
	if len(titles) == 0 {
		t.Fatal("no title")
	}
	fmt.Fprintf(&out, "title %s\n", titles[0].text)
	for _, n := range doc.all(withClass("info")) {
		fmt.Fprintf(&out, "info %s\n", n.fullText())
	}
	for _, n := range doc.all(func(n *node) bool { _, ok := n.attrs["data-n"]; return ok || n.hasClass("n") }) {
		if !n.hasClass("n") || n.attrs["data-n"] == "" {
			t.Errorf("name element <%s class=%q data-n=%q> lacks the class or the key", n.name, n.attrs["class"], n.attrs["data-n"])
		}
	}
	if errs := doc.all(func(n *node) bool { return n.attrs["id"] == "jserrors" }); len(errs) != 1 || errs[0].fullText() != "" {
		t.Errorf("want one empty error list, got %d", len(errs))
	}
	cols := doc.all(withClass("col"))
	var lowered *node // the lowered SSA's column
	for _, col := range cols {
		head := col.all(withClass("colhead"))
		if len(head) != 1 {
			t.Fatalf("column without one title")
		}
		title := head[0].fullText()
		kind := strings.TrimSpace(strings.Replace(col.attrs["class"], "col", "", 1))
		blocks := col.all(withClass("block"))
		kinds := map[string]bool{}
		for _, n := range col.all(withClass("n")) {
			kinds[nameKind(n.attrs["data-n"])] = true
		}
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		sort.Strings(names)
		fmt.Fprintf(&out, "column %q %s blocks=%d names=%v", title, kind, len(blocks), names)
		for _, b := range blocks {
			bh := b.all(withClass("bh"))
			if len(bh) != 1 || !strings.Contains(bh[0].fullText(), "freq=") {
				t.Errorf("%s: block %s: header without a frequency", title, b.attrs["data-block"])
			}
			if counts && !strings.Contains(bh[0].fullText(), "n≈") {
				t.Errorf("%s: block %s: header without a count", title, b.attrs["data-block"])
			}
			for _, e := range b.all(withClass("edge")) {
				if txt := e.fullText(); !strings.Contains(txt, "p=") || counts != strings.Contains(txt, "n≈") {
					t.Errorf("%s: block %s: edge %q: want a probability, and a count exactly with counts", title, b.attrs["data-block"], txt)
				}
			}
		}
		if title == "lower: deadcode" {
			lowered = col
		}
		if kind == "cfg" {
			fmt.Fprintf(&out, " %s", checkGraph(t, col, lowered))
		}
		out.WriteString("\n")
	}
	return out.String()
}

// checkGraph checks the graph of column col against the lowered SSA's
// column and returns its outline.
func checkGraph(t *testing.T, col, lowered *node) string {
	t.Helper()
	if lowered == nil {
		t.Fatal("the graph comes before the lowered SSA")
	}
	nodes := col.all(func(n *node) bool { return n.name == "g" && n.hasClass("node") })
	paths := col.all(func(n *node) bool { return n.name == "path" && n.hasClass("edge") })
	blocks := lowered.all(withClass("block"))
	if len(nodes) != len(blocks) {
		t.Errorf("graph has %d nodes for %d blocks", len(nodes), len(blocks))
	}
	// The edges, as from->to lists, must be the blocks' successor edges.
	var want, got []string
	for _, b := range blocks {
		for _, e := range b.all(withClass("edge")) {
			to := e.all(withClass("n"))[0].attrs["data-n"]
			want = append(want, b.attrs["data-block"]+"->"+to)
		}
	}
	type edge struct{ freq, width float64 }
	var edges []edge
	back := 0
	for _, p := range paths {
		got = append(got, p.attrs["data-from"]+"->"+p.attrs["data-to"])
		f, err1 := strconv.ParseFloat(p.attrs["data-freq"], 64)
		w, err2 := strconv.ParseFloat(p.attrs["stroke-width"], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("edge %v: bad frequency or width", p.attrs)
		}
		edges = append(edges, edge{f, w})
		if p.hasClass("back") {
			back++
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("graph edges %v, want %v", got, want)
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i].freq < edges[j].freq })
	for i := 1; i < len(edges); i++ {
		a, b := edges[i-1], edges[i]
		if b.width < a.width || b.freq > a.freq && b.width <= a.width && b.freq/a.freq > 1.01 {
			t.Errorf("edge of frequency %g has width %g, one of frequency %g width %g: want a width growing with frequency", b.freq, b.width, a.freq, a.width)
		}
	}
	if n := len(edges); n > 0 && edges[n-1].width != maxEdgeW {
		t.Errorf("the most frequent edge has width %g, want %g", edges[n-1].width, maxEdgeW)
	}
	return fmt.Sprintf("svg nodes=%d edges=%d back=%d", len(nodes), len(paths), back)
}

// TestPageOutline writes a page for each case and compares its outline
// with testdata/NAME.golden (go test -update rewrites them).
func TestPageOutline(t *testing.T) {
	for _, tc := range pageCases {
		t.Run(tc.name, func(t *testing.T) {
			got := outline(t, writePage(t, tc), tc.args != nil)
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("outline differs from %s:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// TestWriteErrors checks that bad input is an error, not a panic.
func TestWriteErrors(t *testing.T) {
	m := loadModule(t, "loop.kasm")
	other := profilecounters.NewLayout(m.Funcs[1]).Profile(nil)
	short := *profilecounters.NewLayout(m.Funcs[0]).Profile(nil)
	short.EdgeProb = short.EdgeProb[:1]
	invalid := &bytecode.Module{Funcs: []*bytecode.Function{{Name: "f"}}}
	for _, tt := range []struct {
		name string
		m    *bytecode.Module
		fn   int
		opts Options
		want string
	}{
		{"nil module", nil, 0, Options{}, "nil module"},
		{"negative index", m, -1, Options{}, "out of range"},
		{"index too large", m, len(m.Funcs), Options{}, "out of range"},
		{"invalid module", invalid, 0, Options{}, "invalid module"},
		{"unknown tier", m, 0, Options{Tier: 9}, "unknown tier"},
		{"profile of another function", m, 0, Options{Profile: other}, "not the function's"},
		{"profile too short", m, 0, Options{Profile: &short}, "edge probabilities"},
		{"profile without layout", m, 0, Options{Profile: &profilecounters.Profile{}}, "no layout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Write(&b, tt.m, tt.fn, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	if err := Write(failingWriter{}, m, 0, Options{}); err == nil || !strings.Contains(err.Error(), "writing the page") {
		t.Errorf("error %v writing to a failing writer", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestParseTier checks the tier names.
func TestParseTier(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want Tier
		ok   bool
	}{
		{"baseline", Baseline, true},
		{"optimizing", Optimizing, true},
		{"interp", 0, false},
		{"", 0, false},
	} {
		got, err := ParseTier(tt.s)
		if (err == nil) != tt.ok || tt.ok && (got != tt.want || got.String() != tt.s) {
			t.Errorf("ParseTier(%q) = %v, %v", tt.s, got, err)
		}
	}
}

// TestEscaping checks that text is escaped and that characters XML does
// not allow are replaced.
func TestEscaping(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{`<b a="1">&'</b>`, "&lt;b a=&#34;1&#34;&gt;&amp;&#39;&lt;/b&gt;"},
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
		{"nul\x00bel\x07", "nul\uFFFDbel\uFFFD"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"φ → ≈", "φ → ≈"},
		{"\uFFFE", "\uFFFD"},
	} {
		if got := string(appendEscaped(nil, tt.in)); got != tt.want {
			t.Errorf("appendEscaped(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWords checks which words of each text form become names, and under
// which key.
func TestWords(t *testing.T) {
	for _, tt := range []struct {
		name     string
		line     string
		classify func(string) string
		want     string
	}{
		{"ir", "  v3:gpr = ADDQ v1, rax @12", irName,
			`  <span class="n" data-n="v3">v3</span>:gpr = ADDQ <span class="n" data-n="v1">v1</span>, <span class="n" data-n="rax">rax</span> <span class="n" data-n="@12">@12</span>`},
		{"ir memory and slots", "  s0 = Spill [v2+v4*8+16]", irName,
			`  <span class="n" data-n="s0">s0</span> = Spill [<span class="n" data-n="v2">v2</span>+<span class="n" data-n="v4">v4</span>*8+16]`},
		{"ir not names", "JCC.b #3 $-1 xmm gpr b @x noreg", irName, "JCC.b #3 $-1 xmm gpr b @x noreg"},
		{"bytecode", "br.lt_s r0, 2, L7", bytecodeName,
			`br.lt_s <span class="n" data-n="bc:r0">r0</span>, 2, <span class="n" data-n="@7">L7</span>`},
		{"asm", "MOVQ 0x8(SP), R12", asmName,
			`MOVQ 0x8(<span class="n" data-n="rsp">SP</span>), <span class="n" data-n="r12">R12</span>`},
		{"asm sizes", "MOVL AX, X3; SETEQ CL", asmName,
			`MOVL <span class="n" data-n="rax">AX</span>, <span class="n" data-n="xmm3">X3</span>; SETEQ <span class="n" data-n="rcx">CL</span>`},
		{"asm jump", "JLE 0x6f", asmJumpName, `JLE <span class="n" data-n="pc:6f">0x6f</span>`},
		{"escaped", "a<b & v1", irName, `a&lt;b &amp; <span class="n" data-n="v1">v1</span>`},
	} {
		var m markup
		m.words(tt.line, tt.classify)
		if got := string(m.b); got != tt.want {
			t.Errorf("%s: words(%q) =\n%s\nwant\n%s", tt.name, tt.line, got, tt.want)
		}
	}
}

// TestStripSuccs checks the removal of successor lists from terminators.
func TestStripSuccs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"  JCC.le -> b4 0.05, b3 0.95 @1", "  JCC.le @1"},
		{"  JMP -> b1 1", "  JMP"},
		{"  JMPTABLE v2 -> b11 0.25, b10 0.75 @3", "  JMPTABLE v2 @3"},
		{"  RET v3 @6", "  RET v3 @6"},
	} {
		if got := stripSuccs(tt.in); got != tt.want {
			t.Errorf("stripSuccs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
