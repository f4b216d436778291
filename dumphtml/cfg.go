package dumphtml

import (
	"math"
	"strconv"

	"github.com/kiln-jit/kiln/internal/cfg"
	"github.com/kiln-jit/kiln/mir"
)

// Geometry of the graph drawing, in SVG user units.
const (
	nodeW, nodeH   = 76.0, 34.0
	gapX, gapY     = 24.0, 42.0
	svgMargin      = 24.0 // room for backward edges above and below the blocks
	backEntry      = 14.0 // how far right of a block's centre backward edges enter it
	laneGap        = 7.0  // between the lanes of backward edges
	edgeSpread     = 8.0  // between the starts of a block's edges
	minEdgeW       = 1.0
	maxEdgeW       = 9.0
	maxShadedDepth = 4
)

// cfgColumn draws the control-flow graph of f as inline SVG. Blocks are
// laid out in layers: a block's layer is the longest path of forward
// edges (edges to a later block in reverse postorder) from the entry, so
// every forward edge points down, and within a layer blocks keep reverse
// postorder. Backward edges (loops) run up on the right, each in a lane of
// its own. A block is shaded by its loop nesting depth. An edge's stroke
// width grows in proportion to its frequency (the block's frequency times
// the edge's probability), from minEdgeW for frequency zero to maxEdgeW
// for the most frequent edge. It all takes time linear in the size of the
// graph.
func (r *renderer) cfgColumn(f *mir.Func) *column {
	c := &column{title: "cfg", kind: "cfg"}
	var m markup
	n := len(f.Blocks)
	for _, b := range f.Blocks {
		if b == nil {
			c.notes = []string{"the function has a nil block: no graph"}
			return c
		}
		for _, s := range b.Succs {
			if s < 0 || s >= n {
				c.notes = []string{"the function has an edge to a missing block: no graph"}
				return c
			}
		}
	}
	if n == 0 {
		c.notes = []string{"the function has no blocks"}
		return c
	}
	g := f.Graph()
	rpo := g.ReversePostorder()
	loops := cfg.Loops(g)

	// Layers.
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for i, b := range rpo {
		pos[b] = i
	}
	layer := make([]int, n)
	nlayers := 0
	for _, b := range rpo {
		for _, s := range f.Blocks[b].Succs {
			if pos[s] > pos[b] {
				layer[s] = max(layer[s], layer[b]+1)
			}
		}
		nlayers = max(nlayers, layer[b]+1)
	}
	order := rpo
	if len(rpo) < n {
		// Unreachable blocks (none after lowering) go to a last layer.
		order = append([]int(nil), rpo...)
		for b := range n {
			if pos[b] < 0 {
				layer[b] = nlayers
				order = append(order, b)
			}
		}
		nlayers++
	}
	perLayer := make([]int, nlayers)
	slot := make([]int, n)
	for _, b := range order {
		slot[b] = perLayer[layer[b]]
		perLayer[layer[b]]++
	}
	widest := 0
	for _, k := range perLayer {
		widest = max(widest, k)
	}
	xOf := func(b int) float64 {
		return svgMargin + float64(widest-perLayer[layer[b]])*(nodeW+gapX)/2 + float64(slot[b])*(nodeW+gapX)
	}
	yOf := func(b int) float64 { return svgMargin + float64(layer[b])*(nodeH+gapY) }

	// Edge frequencies and the number of backward edges.
	maxFreq, lanes := 0.0, 0
	for _, b := range f.Blocks {
		for k, s := range b.Succs {
			maxFreq = max(maxFreq, edgeFreq(b, k))
			if layer[s] <= layer[b.ID] {
				lanes++
			}
		}
	}
	right := svgMargin + float64(widest)*(nodeW+gapX) - gapX
	width := right + float64(lanes)*laneGap + svgMargin + laneGap
	height := 2*svgMargin + float64(nlayers)*(nodeH+gapY) - gapY

	c.notes = []string{
		"the lowered SSA's blocks in layers (forward edges point down), shaded by loop depth; backward edges run on the right",
		"edge width ∝ block frequency × edge probability (widest: " + formatFreq(maxFreq) + ")",
	}
	m.raw(`<svg xmlns="http://www.w3.org/2000/svg" class="cfg" width="`)
	m.raw(fx(width))
	m.raw(`" height="`)
	m.raw(fx(height))
	m.raw(`" viewBox="0 0 `)
	m.raw(fx(width) + " " + fx(height))
	m.raw(`">` + "\n")
	m.raw(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0L10,5L0,10z"/></marker></defs>` + "\n")

	// Edges first, so that the blocks cover their ends.
	lane := 0
	for _, b := range f.Blocks {
		from := b.ID
		for k, s := range b.Succs {
			ef := edgeFreq(b, k)
			w := minEdgeW
			if maxFreq > 0 && !math.IsInf(maxFreq, 0) {
				w += (maxEdgeW - minEdgeW) * ef / maxFreq
			}
			spread := (float64(k) - float64(len(b.Succs)-1)/2) * edgeSpread
			spread = max(-nodeW/2+4, min(nodeW/2-4, spread))
			var d string
			class := "edge"
			if layer[s] > layer[from] {
				x1, y1 := xOf(from)+nodeW/2+spread, yOf(from)+nodeH
				x2, y2 := xOf(s)+nodeW/2, yOf(s)-1
				d = "M" + fx(x1) + "," + fx(y1) + " C" + fx(x1) + "," + fx(y1+gapY/2) + " " +
					fx(x2) + "," + fx(y2-gapY/2) + " " + fx(x2) + "," + fx(y2)
			} else {
				// Down into the gap below the source's layer, right to
				// the edge's lane, up to the gap above the target's
				// layer and into the target from above: the path
				// crosses no block.
				class = "edge back"
				lx := right + laneGap*float64(lane+1)
				dy := 6 + float64(lane%4)*4
				lane++
				x1, y1 := xOf(from)+nodeW/2+spread, yOf(from)+nodeH
				x2, y2 := xOf(s)+nodeW/2+backEntry, yOf(s)-1
				d = "M" + fx(x1) + "," + fx(y1) + " V" + fx(y1+dy) + " H" + fx(lx) + " V" + fx(y2-dy) + " H" + fx(x2) + " V" + fx(y2)
			}
			m.raw(`<path class="` + class + `" d="` + d + `" stroke-width="` + fx(w) + `" data-from="b`)
			m.raw(strconv.Itoa(from))
			m.raw(`" data-to="b`)
			m.raw(strconv.Itoa(s))
			m.raw(`" data-freq="`)
			m.text(formatExact(ef))
			m.raw(`" marker-end="url(#arrow)"><title>`)
			p := 0.0
			if k < len(b.SuccProb) {
				p = b.SuccProb[k]
			}
			m.text("b" + strconv.Itoa(from) + " → b" + strconv.Itoa(s) + ": p=" + formatFreq(p) + ", freq=" + formatFreq(ef))
			if r.counts {
				m.text(", n≈" + formatCount(r.calls*ef))
			}
			m.raw("</title></path>\n")
		}
	}
	for _, b := range order {
		blk := f.Blocks[b]
		bn := "b" + strconv.Itoa(b)
		depth := loops.Depth(b)
		x, y := xOf(b), yOf(b)
		m.raw(`<g class="n node d` + strconv.Itoa(min(depth, maxShadedDepth)))
		if pos[b] < 0 {
			m.raw(" unreachable")
		}
		if loops.IsHeader(b) {
			m.raw(" header")
		}
		m.raw(`" data-n="` + bn + `"><title>`)
		tip := bn + ": freq=" + formatExact(blk.Freq) + ", loop depth " + strconv.Itoa(depth) + ", " + strconv.Itoa(len(blk.Instrs)) + " instructions"
		if r.counts {
			tip += ", n≈" + formatCount(r.calls*blk.Freq)
		}
		m.text(tip)
		m.raw(`</title><rect x="` + fx(x) + `" y="` + fx(y) + `" width="` + fx(nodeW) + `" height="` + fx(nodeH) + `" rx="5"/>`)
		m.raw(`<text class="label" x="` + fx(x+nodeW/2) + `" y="` + fx(y+14) + `">` + bn + `</text>`)
		m.raw(`<text class="freq" x="` + fx(x+nodeW/2) + `" y="` + fx(y+28) + `">`)
		m.text(formatFreq(blk.Freq))
		m.raw("</text></g>\n")
	}
	m.raw("</svg>\n")
	c.body = m.b
	return c
}

// edgeFreq returns the frequency of successor edge k of b: the block's
// frequency times the edge's probability (0 when unknown or not a
// number).
func edgeFreq(b *mir.Block, k int) float64 {
	if k >= len(b.SuccProb) {
		return 0
	}
	ef := b.Freq * b.SuccProb[k]
	if math.IsNaN(ef) || ef < 0 {
		return 0
	}
	return ef
}

// fx formats a coordinate: at most two decimals.
func fx(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
