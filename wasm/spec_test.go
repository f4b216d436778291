package wasm

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/jit"
	"github.com/kiln-jit/kiln/wasm/binary"
	"github.com/kiln-jit/kiln/wasm/internal/wasmtest"
	"github.com/kiln-jit/kiln/wasm/link"
	"github.com/kiln-jit/kiln/wasm/text"
	"github.com/kiln-jit/kiln/wasm/translate"
	"github.com/kiln-jit/kiln/wasm/validate"
)

// The WebAssembly 1.0 specification tests as wast2json converts them:
// each archive holds the JSON command files of its scripts and the binary
// modules they name (testdata/README.md tells where they come from). The
// text archives hold each suite's text modules (NAME.N.wat, the modules
// of assert_malformed commands that are malformed text), which the runner
// parses with package text.
var (
	//go:embed testdata/spectest.tar.gz
	specCoreArchive []byte
	//go:embed testdata/spectest-more.tar.gz
	specMoreArchive []byte
	//go:embed testdata/spectest-text.tar.gz
	specTextArchive []byte
	//go:embed testdata/spectest-more-text.tar.gz
	specMoreTextArchive []byte
)

// specTiers are the tiers every script runs on. On TierAuto an instance
// tiers up after its second call or 64 backward branches, compiling on
// the calling goroutine (specEngineOptions), so that most of a script's
// assertions run in the tier-up's code, with on-stack replacement, the
// functions that join it later and the calls between them and the
// interpreter.
var specTiers = append(slices.Clone(loadTiers), jit.TierAuto)

// loadTiers are the tiers in which a module runs as it loads: the
// differential fuzzer and the feature tests compare them.
var loadTiers = []jit.Tier{jit.TierInterp, jit.TierBaseline, jit.TierOptimizing}

// specEngineOptions returns the engine options of a script run on tier.
func specEngineOptions(tier jit.Tier) jit.Options {
	opts := jit.Options{Tier: tier, MaxCallDepth: 2000}
	if tier == jit.TierAuto {
		opts.TierUpCalls, opts.TierUpBackEdges, opts.OSRInterval, opts.SynchronousTierUp = 2, 64, 16, true
	}
	return opts
}

// A specSuite is one archive of scripts and what is known about it.
type specSuite struct {
	name string
	// features are the features the suite's modules are decoded with.
	features binary.Features
	load     func() (*specData, error)
	// known maps "script:line" to the reason the command on that line
	// of the script fails on every tier. A suite without entries must
	// pass whole; one with entries fails only on a command that fails and
	// is not listed, and reports listed commands that pass.
	known map[string]string
	// perFile asks for the table of scripts passed and skipped; leftOut
	// names scripts of the suite that are not in its archive, all
	// skipped for leftOutReason.
	perFile       bool
	leftOut       []string
	leftOutReason string
}

// The suites. The core suite (the 53 scripts on numbers, control, calls
// and memory) and the rest of the 1.0 suite (binary format, names,
// imports, exports, linking, segments) must pass; a suite may list known
// failures (none today), which the runner reports when they pass.
var (
	specCore = specSuite{
		name: "core", features: binary.Features1,
		load: sync.OnceValues(func() (*specData, error) { return loadSpecData(specCoreArchive, specTextArchive) }),
	}
	specMore = specSuite{
		name: "more", features: binary.Features1,
		load: sync.OnceValues(func() (*specData, error) { return loadSpecData(specMoreArchive, specMoreTextArchive) }),
	}
)

// TestSpecCore runs the core specification scripts on every tier and
// fails on any command that fails.
func TestSpecCore(t *testing.T) { runSpecSuite(t, specCore) }

// TestSpecMore runs the rest of the WebAssembly 1.0 scripts on every tier
// and fails on any failure not recorded in specMoreKnown.
func TestSpecMore(t *testing.T) { runSpecSuite(t, specMore) }

// specData is a suite's files and its parsed scripts.
type specData struct {
	files   map[string][]byte
	scripts []specScript
}

type specScript struct {
	name     string // the JSON file's name without ".json"
	commands []specCommand
}

type specValue struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type specAction struct {
	Type   string      `json:"type"`
	Module string      `json:"module"`
	Field  string      `json:"field"`
	Args   []specValue `json:"args"`
}

type specCommand struct {
	Type       string      `json:"type"`
	Line       int         `json:"line"`
	Name       string      `json:"name"`
	As         string      `json:"as"`
	Filename   string      `json:"filename"`
	ModuleType string      `json:"module_type"`
	Text       string      `json:"text"`
	Action     specAction  `json:"action"`
	Expected   []specValue `json:"expected"`
}

// loadSpecData reads the files of a suite's archive, and the text modules
// (.wat) of textArchives.
func loadSpecData(archive []byte, textArchives ...[]byte) (*specData, error) {
	files, err := wasmtest.ReadArchive(archive)
	if err != nil {
		return nil, err
	}
	for _, a := range textArchives {
		more, err := wasmtest.ReadArchive(a)
		if err != nil {
			return nil, fmt.Errorf("text archive: %w", err)
		}
		for name, b := range more {
			if strings.HasSuffix(name, ".wat") {
				files[name] = b
			}
		}
	}
	d := &specData{files: files}
	for name, b := range files {
		base, ok := strings.CutSuffix(name, ".json")
		if !ok {
			continue
		}
		var script struct {
			Commands []specCommand `json:"commands"`
		}
		if err := json.Unmarshal(b, &script); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		d.scripts = append(d.scripts, specScript{name: base, commands: script.Commands})
	}
	sort.Slice(d.scripts, func(i, j int) bool { return d.scripts[i].name < d.scripts[j].name })
	return d, nil
}

// specCounts counts a script's commands by outcome on one tier.
type specCounts struct {
	pass, fail, skip int
	known            int // failures listed in the suite's known failures
	skips            map[string]int
	// firstSkip is the reason of the script's first skipped command.
	firstSkip string
}

func (c *specCounts) add(o specCounts) {
	c.pass += o.pass
	c.fail += o.fail
	c.skip += o.skip
	c.known += o.known
	for k, n := range o.skips {
		if c.skips == nil {
			c.skips = map[string]int{}
		}
		c.skips[k] += n
	}
}

func runSpecSuite(t *testing.T, s specSuite) {
	d, err := s.load()
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, sc := range d.scripts {
		for _, cmd := range sc.commands {
			lines[fmt.Sprintf("%s:%d", sc.name, cmd.Line)] = true
		}
	}
	for k := range s.known {
		if !lines[k] {
			t.Errorf("known failure %s: no command on that line", k)
		}
	}
	counts := make([][]specCounts, len(specTiers)) // [tier][script]
	for ti, tier := range specTiers {
		counts[ti] = make([]specCounts, len(d.scripts))
		t.Run(tier.String(), func(t *testing.T) {
			for si, sc := range d.scripts {
				t.Run(sc.name, func(t *testing.T) {
					counts[ti][si] = runSpecScript(t, d.files, sc, tier, s.features, s.known)
				})
			}
		})
	}
	t.Log(specTable(s.name, d.scripts, counts))
	if s.perFile {
		t.Log(specFileTable(s, d.scripts, counts))
	}
}

// specFileTable says for each script of the suite whether it passed on
// every tier or was skipped, with the reason of its first skipped
// command, then for each script the suite leaves out (SIMD's) its
// reason, then the counts of both by reason.
func specFileTable(s specSuite, scripts []specScript, counts [][]specCounts) string {
	var b strings.Builder
	byReason := map[string]int{}
	passed, failed := 0, 0
	for si, sc := range scripts {
		status := "passed"
		for ti := range specTiers {
			c := counts[ti][si]
			switch {
			case c.fail > c.known:
				status = "FAILED"
			case c.skip > 0 && status == "passed":
				status = "skipped: " + c.firstSkip
			}
		}
		switch {
		case status == "passed":
			passed++
		case status == "FAILED":
			failed++
		default:
			byReason[strings.TrimPrefix(status, "skipped: ")]++
		}
		fmt.Fprintf(&b, "%-24s %s\n", sc.name, status)
	}
	for _, name := range s.leftOut {
		fmt.Fprintf(&b, "%-24s skipped: %s\n", name, s.leftOutReason)
		byReason[s.leftOutReason]++
	}
	fmt.Fprintf(&b, "%s suite: %d scripts: %d passed, %d failed, %d skipped\n", s.name, len(scripts)+len(s.leftOut), passed, failed,
		len(scripts)+len(s.leftOut)-passed-failed)
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(&b, "%4d skipped: %s\n", byReason[r], r)
	}
	return b.String()
}

// specTable formats the counts as a table: a row per script, columns of
// passed, failed and skipped commands per tier, then the reasons for the
// skips.
func specTable(suite string, scripts []specScript, counts [][]specCounts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s suite: %d scripts\n%-24s", suite, len(scripts), "")
	for _, tier := range specTiers {
		fmt.Fprintf(&b, "  %-17s", tier)
	}
	fmt.Fprintf(&b, "\n%-24s", "script")
	for range specTiers {
		fmt.Fprintf(&b, "  %6s %4s %5s", "pass", "fail", "skip")
	}
	b.WriteByte('\n')
	totals := make([]specCounts, len(specTiers))
	row := func(name string, cs []specCounts) {
		fmt.Fprintf(&b, "%-24s", name)
		for _, c := range cs {
			fmt.Fprintf(&b, "  %6d %4d %5d", c.pass, c.fail, c.skip)
		}
		b.WriteByte('\n')
	}
	for si, sc := range scripts {
		cs := make([]specCounts, len(specTiers))
		for ti := range specTiers {
			cs[ti] = counts[ti][si]
			totals[ti].add(cs[ti])
		}
		row(sc.name, cs)
	}
	row("total", totals)
	for ti, tier := range specTiers {
		if totals[ti].known > 0 {
			fmt.Fprintf(&b, "%s: %d of the %d failures are known\n", tier, totals[ti].known, totals[ti].fail)
		}
	}
	reasons := make([]string, 0, len(totals[0].skips))
	for r := range totals[0].skips {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	names := make([]string, len(specTiers))
	for ti, tier := range specTiers {
		names[ti] = tier.String()
	}
	fmt.Fprintf(&b, "skipped commands by reason (%s):\n", strings.Join(names, ", "))
	for _, r := range reasons {
		for ti := range specTiers {
			fmt.Fprintf(&b, "%6d ", totals[ti].skips[r])
		}
		fmt.Fprintf(&b, " %s\n", r)
	}
	return b.String()
}

// runSpecScript runs one script's commands in order on a fresh engine of
// the tier and counts their outcomes. A failure is a test error unless
// known lists it.
func runSpecScript(t *testing.T, files map[string][]byte, sc specScript, tier jit.Tier, features binary.Features, known map[string]string) specCounts {
	engine, err := jit.NewEngine(specEngineOptions(tier))
	if err != nil {
		t.Fatal(err)
	}
	r := &specRunner{features: features, files: files, engine: engine, named: map[string]*specModule{}, registered: map[string]*specModule{}}
	c := specCounts{skips: map[string]int{}}
	reported := map[string]int{}
	for _, cmd := range sc.commands {
		err := r.run(cmd)
		key := fmt.Sprintf("%s:%d", sc.name, cmd.Line)
		reason, isKnown := known[key]
		var skip *specSkip
		switch {
		case err == nil:
			c.pass++
			if isKnown {
				t.Logf("%s: %s: now passes; it is listed as a known failure (%s)", key, cmd.Type, reason)
			}
		case errors.As(err, &skip):
			c.skip++
			c.skips[skip.reason]++
			if c.firstSkip == "" {
				c.firstSkip = strings.TrimPrefix(skip.reason, skipAfter)
			}
		case isKnown:
			c.fail++
			c.known++
		default:
			c.fail++
			// Report the first few failures of each kind.
			kind := cmd.Type + ": " + firstWords(err.Error())
			if reported[kind] < 3 {
				t.Errorf("%s: %s: %v", key, cmd.Type, err)
			}
			reported[kind]++
		}
	}
	for kind, n := range reported {
		if n > 3 {
			t.Errorf("%s: %d more failures like %q", sc.name, n-3, kind)
		}
	}
	return c
}

func firstWords(s string) string {
	if i := strings.Index(s, ":"); i > 0 {
		return s[:i]
	}
	return s
}

// specSkip is the error of a command the runner does not run, with the
// reason: something kiln or the runner does not support.
type specSkip struct {
	reason string
}

func (s *specSkip) Error() string { return "skipped: " + s.reason }

// Reasons for skipping commands.
const (
	// wast2json writes the modules of assert_malformed (module quote ...)
	// as .wat files, since they are malformed in the text format; the
	// runner parses them from the suite's text archive and skips one
	// missing from it.
	skipText = "text-format module (not in the suite's text archive)"
	// Commands that act on a module the runner skipped, or that import
	// from one, cannot run; the reason is the module's.
	skipAfter = "acts on or imports from a skipped module: "
	// The rest are translate.UnsupportedError: shapes beyond kiln's limits
	// (none in the suite).
	skipUnsupported = "kiln does not support: "
)

// unsupportedReason turns an UnsupportedError into a skip reason that
// leaves out the names it quotes, so that skips group by what is missing.
func unsupportedReason(u *translate.UnsupportedError) string {
	what := u.What
	if i := strings.IndexByte(what, '"'); i > 0 {
		what = strings.TrimRight(what[:i], " (")
	}
	return skipUnsupported + what
}

// specModule is the outcome of a module command.
type specModule struct {
	inst *link.Instance
	line int
	err  error // why it did not instantiate, a *specSkip for a skip
}

type specRunner struct {
	features   binary.Features
	files      map[string][]byte
	engine     *jit.Engine
	current    *specModule
	named      map[string]*specModule
	registered map[string]*specModule
	// The spectest module's memory and table, made when a module of the
	// script first imports them.
	spectestMemory *link.Memory
	spectestTable  *link.Table
}

// instance returns the instance a command acts on.
func (r *specRunner) instance(name string) (*link.Instance, error) {
	m := r.current
	if name != "" {
		m = r.named[name]
	}
	if m == nil {
		return nil, fmt.Errorf("no module %q", name)
	}
	var skip *specSkip
	switch {
	case errors.As(m.err, &skip):
		return nil, &specSkip{reason: skipAfter + strings.TrimPrefix(skip.reason, skipAfter)}
	case m.err != nil:
		return nil, fmt.Errorf("the module of line %d did not instantiate: %v", m.line, m.err)
	}
	return m.inst, nil
}

// load decodes (or, for a .wat file, parses) and translates a module
// file; a module kiln cannot express is a skip.
func (r *specRunner) load(file string) (*translate.Module, error) {
	b, ok := r.files[file]
	if !ok && strings.HasSuffix(file, ".wat") {
		return nil, &specSkip{reason: skipText}
	}
	if !ok {
		return nil, fmt.Errorf("no file %s in the archive", file)
	}
	decode := func(b []byte) (*binary.Module, error) { return binary.DecodeFeatures(b, r.features) }
	if strings.HasSuffix(file, ".wat") {
		decode = text.Parse
	}
	m, err := decode(b)
	if err != nil {
		return nil, err
	}
	tm, err := translate.Translate(m, translate.Options{})
	if skip := unsupportedSkip(err); skip != nil {
		return nil, skip
	}
	return tm, err
}

// unsupportedSkip returns the skip of an error that says kiln does not
// support a feature or shape (nil for any other error).
func unsupportedSkip(err error) *specSkip {
	var u *translate.UnsupportedError
	var vu *validate.UnsupportedError
	switch {
	case errors.As(err, &u):
		return &specSkip{reason: unsupportedReason(u)}
	case errors.As(err, &vu):
		return &specSkip{reason: featureReason(vu.Feature, vu.What)}
	}
	return nil
}

// featureReason is the skip reason of a use of an unsupported feature of
// WebAssembly 2.0: the feature, then what needs it, without the indices
// it names ("bulk memory: memory.copy"), so that skips group.
func featureReason(feature, what string) string {
	if i := strings.IndexAny(what, "0123456789"); i > 0 {
		what = strings.TrimRight(what[:i], " (")
	}
	return feature + ": " + what
}

func (r *specRunner) instantiate(file string) (*link.Instance, error) {
	m, err := r.load(file)
	if err != nil {
		return nil, err
	}
	for _, im := range m.Imports {
		if reg := r.registered[im.Module]; reg != nil {
			var skip *specSkip
			if errors.As(reg.err, &skip) {
				return nil, &specSkip{reason: skipAfter + strings.TrimPrefix(skip.reason, skipAfter)}
			}
		}
	}
	inst, err := link.Instantiate(context.Background(), r.engine, m, r.resolve)
	if le := (*link.Error)(nil); errors.As(err, &le) && strings.HasPrefix(le.Msg, "unsupported: ") {
		what := strings.TrimPrefix(le.Msg, "unsupported: ")
		if i := strings.Index(what, " ("); i > 0 {
			what = what[:i]
		}
		return nil, &specSkip{reason: skipUnsupported + what}
	}
	if err != nil {
		return nil, err
	}
	if tier := r.engine.Options().Tier; inst.Kiln.Tier() != tier && tier != jit.TierAuto {
		return nil, fmt.Errorf("runs in tier %s, not %s: %v", inst.Kiln.Tier(), tier, inst.Kiln.Module().CompileError())
	}
	return inst, nil
}

func (r *specRunner) resolve(module, name string) (link.Extern, bool) {
	if module == "spectest" {
		switch name {
		case "memory":
			if r.spectestMemory == nil {
				r.spectestMemory, _ = link.NewMemory(binary.Limits{Min: 1, Max: 2, HasMax: true})
			}
			return r.spectestMemory, r.spectestMemory != nil
		case "table":
			if r.spectestTable == nil {
				r.spectestTable, _ = link.NewTable(binary.Limits{Min: 10, Max: 20, HasMax: true})
			}
			return r.spectestTable, r.spectestTable != nil
		}
		return spectestImport(name)
	}
	m := r.registered[module]
	if m == nil || m.inst == nil {
		return nil, false
	}
	x, err := m.inst.Export(name)
	if err != nil {
		return nil, false
	}
	return x, true
}

// run runs one command: nil when it passes, a *specSkip when it is
// skipped, another error when it fails.
func (r *specRunner) run(cmd specCommand) error {
	switch cmd.Type {
	case "module":
		inst, err := r.instantiate(cmd.Filename)
		m := &specModule{inst: inst, line: cmd.Line, err: err}
		r.current = m
		if cmd.Name != "" {
			r.named[cmd.Name] = m
		}
		return err
	case "register":
		m := r.current
		if cmd.Name != "" {
			m = r.named[cmd.Name]
		}
		if m == nil {
			return fmt.Errorf("no module %q to register", cmd.Name)
		}
		r.registered[cmd.As] = m
		if _, err := r.instance(cmd.Name); err != nil {
			return err
		}
		return nil
	case "action":
		_, err := r.action(cmd.Action)
		return err
	case "assert_return":
		for _, want := range cmd.Expected {
			if skip := refValueSkip(want, "result"); skip != nil {
				return skip
			}
		}
		got, err := r.action(cmd.Action)
		if err != nil {
			return err
		}
		if len(got) != len(cmd.Expected) {
			return fmt.Errorf("got %d results, want %d", len(got), len(cmd.Expected))
		}
		for i, want := range cmd.Expected {
			if !valueMatches(want, got[i]) {
				return fmt.Errorf("result %d: got %#x, want %s %s", i, got[i], want.Type, want.Value)
			}
		}
		return nil
	case "assert_trap", "assert_exhaustion":
		if cmd.Action.Type == "" {
			// A module whose start function traps.
			_, err := r.instantiate(cmd.Filename)
			return expectTrap(err, cmd.Text)
		}
		_, err := r.action(cmd.Action)
		return expectTrap(err, cmd.Text)
	case "assert_uninstantiable":
		_, err := r.instantiate(cmd.Filename)
		return expectTrap(err, cmd.Text)
	case "assert_unlinkable":
		_, err := r.instantiate(cmd.Filename)
		return expectUnlinkable(err, cmd.Text)
	case "assert_malformed", "assert_invalid":
		return r.expectRejected(cmd)
	}
	return fmt.Errorf("unknown command %q", cmd.Type)
}

// expectRejected checks that the module of an assert_malformed command
// does not decode (or, given in the text format, does not parse, with an
// error that says what the command expects), and that that of an
// assert_invalid command decodes but does not validate.
func (r *specRunner) expectRejected(cmd specCommand) error {
	isText := cmd.ModuleType == "text" || strings.HasSuffix(cmd.Filename, ".wat")
	b, ok := r.files[cmd.Filename]
	switch {
	case !ok && isText:
		return &specSkip{reason: skipText}
	case !ok:
		return fmt.Errorf("no file %s in the archive", cmd.Filename)
	case isText:
		return expectMalformedText(cmd, b)
	}
	m, err := binary.DecodeFeatures(b, r.features)
	if cmd.Type == "assert_malformed" {
		var de *binary.Error
		switch {
		case err == nil:
			return fmt.Errorf("decoded; want malformed (%q)", cmd.Text)
		case !errors.As(err, &de):
			return fmt.Errorf("decode error %T %v; want a *binary.Error (%q)", err, err, cmd.Text)
		}
		return nil
	}
	if err != nil {
		if de := (*binary.Error)(nil); errors.As(err, &de) && strings.HasPrefix(de.Msg, "data count section required") {
			// wast2json leaves out the data count section of a module
			// without data segments, whose memory.init or data.drop
			// names a data segment that does not exist: the module is
			// rejected, as the command expects.
			return nil
		}
		return fmt.Errorf("malformed, want invalid (%q): %v", cmd.Text, err)
	}
	_, err = translate.Translate(m, translate.Options{})
	var ve *validate.Error
	if skip := unsupportedSkip(err); skip != nil {
		return skip
	}
	switch {
	case err == nil:
		return fmt.Errorf("valid; want invalid (%q)", cmd.Text)
	case !errors.As(err, &ve):
		return fmt.Errorf("rejected with %v; want a validation error (%q)", err, cmd.Text)
	}
	return nil
}

// expectMalformedText checks that the text module src of an
// assert_malformed command does not parse, and that the error's message
// contains the command's text ("unknown operator").
func expectMalformedText(cmd specCommand, src []byte) error {
	if cmd.Type != "assert_malformed" {
		return fmt.Errorf("%s of a text module; only assert_malformed has one", cmd.Type)
	}
	_, err := text.Parse(src)
	var te *text.Error
	if errors.As(err, &te) {
		if what, ok := strings.CutPrefix(te.Msg, "unsupported: "); ok {
			feature := ""
			if i := strings.Index(what, " ("); i > 0 {
				what, feature = what[:i], strings.Trim(what[i+2:], ")")
			}
			return &specSkip{reason: featureReason(feature, what)}
		}
	}
	switch {
	case err == nil:
		return fmt.Errorf("text module parsed; want malformed (%q)", cmd.Text)
	case !errors.As(err, &te):
		return fmt.Errorf("parse error %T %v; want a *text.Error (%q)", err, err, cmd.Text)
	case !strings.Contains(te.Msg, cmd.Text):
		return fmt.Errorf("parse error %q; want one saying %q", err, cmd.Text)
	}
	return nil
}

func (r *specRunner) action(a specAction) ([]uint64, error) {
	inst, err := r.instance(a.Module)
	if err != nil {
		return nil, err
	}
	switch a.Type {
	case "invoke":
		args := make([]uint64, len(a.Args))
		for i, v := range a.Args {
			if skip := refValueSkip(v, "argument"); skip != nil {
				return nil, skip
			}
			if v.Value == "null" && (v.Type == "funcref" || v.Type == "externref") {
				args[i] = bytecode.NullRef
				continue
			}
			n, err := strconv.ParseUint(v.Value, 10, 64)
			if err != nil {
				return nil, err
			}
			args[i] = n
		}
		return inst.Call(context.Background(), a.Field, args...)
	case "get":
		v, err := inst.Global(a.Field)
		if err != nil {
			return nil, err
		}
		return []uint64{v}, nil
	}
	return nil, fmt.Errorf("unknown action %q", a.Type)
}

// expectTrap checks that err is a trap with the message text (either may
// be a prefix of the other: "undefined" and "undefined element").
func expectTrap(err error, text string) error {
	var skip *specSkip
	if errors.As(err, &skip) {
		return err
	}
	if err == nil {
		return fmt.Errorf("no trap; want %q", text)
	}
	var st *translate.SegmentTrap
	if errors.As(err, &st) {
		if !strings.HasPrefix(st.Msg, text) {
			return fmt.Errorf("trap %q; want %q", st.Msg, text)
		}
		return nil
	}
	trap, ok := translate.TrapOf(err)
	if !ok {
		return fmt.Errorf("error %v; want trap %q", err, text)
	}
	if msg := translate.TrapMessage(trap.Kind); !strings.HasPrefix(msg, text) && !strings.HasPrefix(text, msg) {
		return fmt.Errorf("trap %q; want %q", msg, text)
	}
	return nil
}

// expectUnlinkable checks that err is a link error whose message starts
// with text ("unknown import", "data segment does not fit").
func expectUnlinkable(err error, text string) error {
	var skip *specSkip
	var le *link.Error
	var tle *translate.LinkError
	switch {
	case errors.As(err, &skip):
		return err
	case err == nil:
		return fmt.Errorf("instantiated; want %q", text)
	case errors.As(err, &le) && strings.HasPrefix(le.Msg, text),
		errors.As(err, &tle) && strings.HasPrefix(tle.Msg, text):
		return nil
	}
	return fmt.Errorf("error %v; want a link error %q", err, text)
}

// valueMatches reports whether got, a value in the API representation,
// is the expected value: the same bits, or for nan:canonical a quiet NaN
// with an all-zero payload and for nan:arithmetic a quiet NaN (either
// sign).
func valueMatches(want specValue, got uint64) bool {
	switch want.Value {
	case "nan:canonical", "nan:arithmetic":
		var exp, quiet, payload uint64
		switch want.Type {
		case "f32":
			if got>>32 != 0 {
				return false
			}
			exp, quiet, payload = 0xff<<23, 1<<22, 1<<23-1
		case "f64":
			exp, quiet, payload = 0x7ff<<52, 1<<51, 1<<52-1
		default:
			return false
		}
		if got&exp != exp || got&quiet == 0 {
			return false
		}
		return want.Value == "nan:arithmetic" || got&payload == quiet
	}
	switch {
	case want.Type != "funcref" && want.Type != "externref":
	case want.Value == "null":
		return got == bytecode.NullRef
	case want.Value == "" && want.Type == "funcref":
		// Any function reference.
		return got != bytecode.NullRef
	}
	n, err := strconv.ParseUint(want.Value, 10, 64)
	if err != nil {
		return false
	}
	if want.Type == "i32" || want.Type == "f32" {
		return uint32(n) == uint32(got) && got>>32 == 0
	}
	return n == got
}

// refValueSkip returns the skip of a command with a value of a vector
// type (nil for a number or a reference: a reference is an i64 value,
// null bytecode.NullRef and the script's ref.extern N the value N).
func refValueSkip(v specValue, what string) *specSkip {
	switch v.Type {
	case "v128":
		return &specSkip{reason: featureReason(binary.FeatureSIMD.Name(), "v128 "+what+"s")}
	}
	return nil
}

// spectestImport provides the spectest module of the specification's
// scripts: its print functions (which print nothing) and its globals. Its
// memory (1 page, at most 2) and table (10 entries, at most 20) are the
// runner's, one of each per script.
func spectestImport(name string) (link.Extern, bool) {
	fn := func(params ...binary.ValType) *link.Func {
		return &link.Func{Type: binary.FuncType{Params: params}, Fn: func(*jit.Caller, []uint64, []uint64) error { return nil }}
	}
	switch name {
	case "print":
		return fn(), true
	case "print_i32":
		return fn(binary.I32), true
	case "print_i64":
		return fn(binary.I64), true
	case "print_f32":
		return fn(binary.F32), true
	case "print_f64":
		return fn(binary.F64), true
	case "print_i32_f32":
		return fn(binary.I32, binary.F32), true
	case "print_f64_f64":
		return fn(binary.F64, binary.F64), true
	case "global_i32":
		return &link.Global{Type: binary.GlobalType{Type: binary.I32}, Value: 666}, true
	case "global_i64":
		return &link.Global{Type: binary.GlobalType{Type: binary.I64}, Value: 666}, true
	case "global_f32":
		return &link.Global{Type: binary.GlobalType{Type: binary.F32}, Value: uint64(math.Float32bits(666))}, true
	case "global_f64":
		return &link.Global{Type: binary.GlobalType{Type: binary.F64}, Value: math.Float64bits(666)}, true
	}
	return nil, false
}

func TestValueMatches(t *testing.T) {
	tests := []struct {
		typ, want string
		got       uint64
		ok        bool
	}{
		{"i32", "4294967295", 0xffffffff, true},
		{"i32", "4294967295", 0xffffffffffffffff, false}, // not zero-extended
		{"i64", "18446744073709551615", 0xffffffffffffffff, true},
		{"f32", "2143289344", 0x7fc00000, true},
		{"f32", "nan:canonical", 0x7fc00000, true},
		{"f32", "nan:canonical", 0xffc00000, true},
		{"f32", "nan:canonical", 0x7fc00001, false},
		{"f32", "nan:canonical", 0x7fa00000, false}, // signaling
		{"f32", "nan:arithmetic", 0x7fc00001, true},
		{"f32", "nan:arithmetic", 0xffe00000, true},
		{"f32", "nan:arithmetic", 0x7fa00000, false}, // signaling
		{"f32", "nan:arithmetic", 0x7f800000, false}, // infinity
		{"f64", "nan:canonical", 0x7ff8000000000000, true},
		{"f64", "nan:canonical", 0xfff8000000000000, true},
		{"f64", "nan:canonical", 0x7ff8000000000001, false},
		{"f64", "nan:arithmetic", 0x7ffc000000000000, true},
		{"f64", "nan:arithmetic", 0x7ff4000000000000, false},
		{"f64", "nan:arithmetic", 0x7ff0000000000000, false},
		{"f64", "nan:arithmetic", 0x7fc00000, false}, // an f32 NaN
	}
	for _, tc := range tests {
		if got := valueMatches(specValue{Type: tc.typ, Value: tc.want}, tc.got); got != tc.ok {
			t.Errorf("valueMatches(%s %s, %#x) = %v, want %v", tc.typ, tc.want, tc.got, got, tc.ok)
		}
	}
}
