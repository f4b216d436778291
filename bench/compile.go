package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"text/tabwriter"
	"time"
)

// CompileTime compiles the WebAssembly module of p, a C program or a
// module (KindModule), once as configuration c does before running it,
// and returns the time the front end took and the time loading and
// compiling took. For kiln, the front
// end decodes, validates and translates the module to kiln bytecode
// (packages wasm/binary, wasm/validate and wasm/translate), and loading
// is jit.Engine.Load in c's tier (verifying the bytecode and, in the
// compiled tiers, compiling every function). wazero has no separate front
// end: Runtime.CompileModule decodes, validates and compiles. ok is false
// when c runs no WebAssembly (native Go, gcc) or p has no module. A
// *SkipError says that kiln could not compile the module in c's tier on
// this machine.
func (c *Config) CompileTime(p *Program) (front, back time.Duration, ok bool, err error) {
	if c.compile == nil || !hasModule(p) {
		return 0, 0, false, nil
	}
	front, back, err = c.compile(p)
	if err != nil {
		return 0, 0, false, fmt.Errorf("compiling %s in %s: %w", p, c.Name, err)
	}
	return front, back, true, nil
}

// CompileResult is the compile time of one C program's module in every
// configuration that compiles WebAssembly.
type CompileResult struct {
	Program *Program
	// Front and Back hold, per configuration name, the fastest front end
	// and the fastest load (see Config.CompileTime), each the minimum over
	// the samples.
	Front, Back map[string]time.Duration
	// Notes holds, per configuration name, why it did not compile the
	// module.
	Notes map[string]string
}

// Total returns the front end and load time of the configuration named
// name, and whether it compiled the module.
func (r *CompileResult) Total(name string) (time.Duration, bool) {
	b, ok := r.Back[name]
	return r.Front[name] + b, ok
}

// hasModule reports whether p is a WebAssembly module of its own: a C
// program's or a sightglass program's.
func hasModule(p *Program) bool { return p.Kind == KindC || p.Kind == KindModule }

// MeasureCompile times the compilation of the module of every C program
// and sightglass module in every configuration that compiles WebAssembly,
// reps times each, the configurations taking turns in a rotated order.
// Programs of other kinds are left out.
func MeasureCompile(progs []*Program, configs []*Config, reps int) ([]CompileResult, error) {
	var results []CompileResult
	for _, p := range progs {
		if !hasModule(p) {
			continue
		}
		r := CompileResult{Program: p, Front: map[string]time.Duration{}, Back: map[string]time.Duration{},
			Notes: map[string]string{}}
		live := configs
		for rep := range max(reps, 1) {
			runtime.GC()
			var next []*Config
			for k := range live {
				c := live[(k+rep)%len(live)]
				front, back, ok, err := c.CompileTime(p)
				var skip *SkipError
				if errors.As(err, &skip) {
					r.Notes[c.Name] = skip.Reason
					continue
				}
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				if f, seen := r.Front[c.Name]; !seen || front < f {
					r.Front[c.Name] = front
				}
				if b, seen := r.Back[c.Name]; !seen || back < b {
					r.Back[c.Name] = back
				}
				next = append(next, c)
			}
			// Keep the table order among the configurations left.
			live = next
			sortLike(live, configs)
		}
		results = append(results, r)
	}
	return results, nil
}

// sortLike orders cs, a subset of order, as order has them.
func sortLike(cs, order []*Config) {
	k := 0
	for _, c := range order {
		for i := k; i < len(cs); i++ {
			if cs[i] == c {
				cs[k], cs[i] = cs[i], cs[k]
				k++
				break
			}
		}
	}
}

// WriteCompileTable prints compile results as a table, a row per program
// and configuration: the module's size, the fastest front end (kiln's
// decoding, validation and translation), the fastest load or compile, the
// sum, the sum per byte of the module, and the sum's ratios to wazero's
// compiler's and interpreter's CompileModule.
func WriteCompileTable(w io.Writer, results []CompileResult, configs []*Config) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "program\tbytes\tconfiguration\t front end\t   compile\t     total\tns/byte\tx-wazero\tx-wazero-interp")
	for _, r := range results {
		name, size := r.Program.String(), fmt.Sprint(len(r.Program.Wasm))
		wz, hasWazero := r.Total(Wazero)
		wzi, hasWazeroInterp := r.Total(WazeroInterp)
		for _, c := range configs {
			total, ok := r.Total(c.Name)
			if !ok {
				if note := r.Notes[c.Name]; note != "" {
					fmt.Fprintf(tw, "%s\t%s\t%s\t(%s)\n", name, size, c.Name, note)
					name, size = "", ""
				}
				continue
			}
			front := "-"
			if f := r.Front[c.Name]; f > 0 {
				front = FormatDuration(f)
			}
			perByte := float64(total) / float64(max(len(r.Program.Wasm), 1))
			fmt.Fprintf(tw, "%s\t%s\t%s\t%10s\t%10s\t%10s\t%7s\t%8s\t%15s\n", name, size, c.Name,
				front, FormatDuration(r.Back[c.Name]), FormatDuration(total), sig3(perByte),
				ratioString(total, wz, hasWazero), ratioString(total, wzi, hasWazeroInterp))
			name, size = "", ""
		}
	}
	if len(results) > 1 {
		// The geometric means of the ratios to wazero's compiler, over
		// the programs it and the configuration both compiled.
		for _, c := range configs {
			var ratios []float64
			for _, r := range results {
				total, ok := r.Total(c.Name)
				wz, hasWazero := r.Total(Wazero)
				if ok && hasWazero && wz > 0 {
					ratios = append(ratios, float64(total)/float64(wz))
				}
			}
			if len(ratios) > 0 && c.Name != Wazero {
				fmt.Fprintf(tw, "geomean\t\t%s\t\t\t\t\t%8s\t\n", c.Name, FormatRatio(geomean(ratios)))
			}
		}
	}
	return tw.Flush()
}

// ratioString prints t/ref, or "-" without a reference.
func ratioString(t, ref time.Duration, ok bool) string {
	if !ok || ref <= 0 {
		return "-"
	}
	return FormatRatio(float64(t) / float64(ref))
}

// geomean returns the geometric mean of xs.
func geomean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}
