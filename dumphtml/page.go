package dumphtml

import (
	"bufio"
	"strconv"
)

// write writes the page to w (whose error Write checks on Flush).
func (p *page) write(w *bufio.Writer) {
	esc := func(s string) { w.Write(appendEscaped(nil, s)) }
	w.WriteString("<!DOCTYPE html>\n")
	w.WriteString(`<html xmlns="http://www.w3.org/1999/xhtml" lang="en">` + "\n<head>\n")
	w.WriteString(`<meta charset="utf-8"/>` + "\n<title>")
	esc(p.title)
	w.WriteString("</title>\n")
	// The error recorder comes first, so that it sees errors of the page's
	// script, syntax errors included.
	w.WriteString("<script>/*<![CDATA[*/\n" + errorScript + "/*]]>*/</script>\n")
	w.WriteString("<style>/*<![CDATA[*/\n" + pageCSS + "/*]]>*/</style>\n")
	w.WriteString("</head>\n<body>\n<div id=\"top\">\n<h1>")
	esc(p.title)
	w.WriteString("</h1>\n")
	for _, s := range p.info {
		w.WriteString(`<div class="info">`)
		esc(s)
		w.WriteString("</div>\n")
	}
	w.WriteString(`<div class="help">Click a name (v12, rax, s0, b3, @5 ...) to highlight it in every column; click it again to clear it. ` +
		`Several names can be highlighted at once, each in its own colour; Escape clears them all. Click a column's title to collapse or expand it. ` +
		`freq= is a block's expected executions per call, p= an edge's probability (hover for exact values).</div>` + "\n")
	w.WriteString(`<pre id="jserrors" hidden="hidden"></pre>` + "\n</div>\n")
	w.WriteString(`<div id="cols">` + "\n")
	for i, c := range p.cols {
		w.WriteString(`<div class="col ` + c.kind + `" id="col` + strconv.Itoa(i) + `">` + "\n")
		w.WriteString(`<div class="colhead" title="click to collapse or expand">`)
		esc(c.title)
		w.WriteString("</div>\n")
		if len(c.notes) > 0 {
			w.WriteString(`<div class="colnotes">`)
			for _, s := range c.notes {
				w.WriteString("<div>")
				esc(s)
				w.WriteString("</div>")
			}
			w.WriteString("</div>\n")
		}
		w.WriteString(`<div class="colbody">` + "\n")
		w.Write(c.body)
		w.WriteString("</div>\n</div>\n")
	}
	w.WriteString("</div>\n")
	w.WriteString("<script>/*<![CDATA[*/\n" + pageScript + "/*]]>*/</script>\n")
	w.WriteString("</body>\n</html>\n")
}

// The inline style, script and error recorder of the page. None of them
// contains "]]>", which would end the CDATA section they stand in.
const (
	pageCSS = `body { font-family: sans-serif; margin: 0; background: #fafafa; color: #222; }
#top { padding: 6px 12px; border-bottom: 1px solid #ccc; background: #fff; }
#top h1 { font-size: 16px; margin: 2px 0 4px; }
.info, .help { font-size: 13px; margin: 1px 0; }
.help { color: #666; }
#jserrors { color: #b00; font-weight: bold; }
#cols { display: flex; align-items: flex-start; gap: 4px; padding: 6px; }
.col { flex: 0 0 auto; max-width: 75ch; background: #fff; border: 1px solid #ccc; border-radius: 3px; }
.col.cfg { max-width: none; }
.colhead { font-weight: bold; font-size: 14px; padding: 4px 8px; background: #e8ecf4; cursor: pointer; user-select: none; white-space: nowrap; }
.colhead:hover { background: #d6ddec; }
.colnotes { max-width: 60ch; font-size: 11px; color: #555; padding: 2px 8px; border-bottom: 1px solid #eee; white-space: normal; }
.colbody { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; padding: 4px 8px; overflow-x: auto; }
.col.collapsed .colnotes, .col.collapsed .colbody { display: none; }
.col.collapsed .colhead { writing-mode: vertical-rl; padding: 8px 4px; }
.l { white-space: pre; line-height: 1.35; }
.fh { color: #555; margin-bottom: 4px; }
.block { margin: 3px 0 5px; }
.bh { font-weight: bold; background: #f2f2f2; white-space: pre; }
.bh .freq, .bh .count, .bh .preds, .bh .range { font-weight: normal; color: #555; }
.edges { color: #555; white-space: pre-wrap; padding-left: 2ch; }
.edge { margin-right: 1.5ch; }
.kind { color: #888; }
.count { color: #7a4d00; }
.pin { color: #3a6b35; }
.loc { color: #6b3a6b; }
.lbl { color: #555; }
.pos { color: #2a5599; }
.bytes { color: #999; }
.n { cursor: pointer; border-radius: 2px; }
.n:hover { outline: 1px solid #999; }
.hl0 { background: #ffe066; } .hl1 { background: #8fd9ff; } .hl2 { background: #a8f0b8; }
.hl3 { background: #ffab91; } .hl4 { background: #d1c4e9; } .hl5 { background: #f8bbd0; }
svg.cfg { display: block; font-family: ui-monospace, Menlo, Consolas, monospace; }
svg.cfg .edge { fill: none; stroke: #5b7bb5; stroke-opacity: 0.75; }
svg.cfg .edge.back { stroke: #b55b5b; }
svg.cfg .edge:hover { stroke-opacity: 1; }
svg.cfg marker path { fill: #555; }
svg.cfg .node { cursor: pointer; }
svg.cfg .node rect { stroke: #555; stroke-width: 1; fill: #fff; }
svg.cfg .node.d1 rect { fill: #eaf0ff; } svg.cfg .node.d2 rect { fill: #d5e1ff; }
svg.cfg .node.d3 rect { fill: #bfd1ff; } svg.cfg .node.d4 rect { fill: #a9c1ff; }
svg.cfg .node.header rect { stroke-width: 2; }
svg.cfg .node.unreachable rect { stroke-dasharray: 4 2; }
svg.cfg text { text-anchor: middle; font-size: 12px; pointer-events: none; }
svg.cfg text.freq { font-size: 10px; fill: #555; }
svg.cfg .node.hl0 rect { fill: #ffe066; } svg.cfg .node.hl1 rect { fill: #8fd9ff; } svg.cfg .node.hl2 rect { fill: #a8f0b8; }
svg.cfg .node.hl3 rect { fill: #ffab91; } svg.cfg .node.hl4 rect { fill: #d1c4e9; } svg.cfg .node.hl5 rect { fill: #f8bbd0; }
`

	errorScript = `window.kilnError = function (msg) {
  var root = document.documentElement;
  root.setAttribute("data-jserror", "1");
  var out = document.getElementById("jserrors");
  if (out) {
    out.hidden = false;
    out.textContent += "script error: " + msg + "\n";
  } else {
    (window.kilnErrors = window.kilnErrors || []).push(String(msg));
  }
};
window.onerror = function (msg, src, line, col) {
  window.kilnError(msg + " (line " + line + ":" + col + ")");
};
`

	// pageScript indexes every element with a data-n key once, so that a
	// click costs the occurrences of one name; then it checks itself.
	pageScript = `(function () {
  "use strict";
  var root = document.documentElement;
  if (window.kilnErrors) {
    window.kilnErrors.forEach(window.kilnError);
  }
  var ncolours = 6;
  var index = Object.create(null);  // name -> elements
  var named = document.querySelectorAll("[data-n]");
  for (var i = 0; i < named.length; i++) {
    var key = named[i].getAttribute("data-n");
    (index[key] || (index[key] = [])).push(named[i]);
  }
  var colourOf = Object.create(null);  // highlighted name -> colour
  var order = [];  // highlighted names, oldest first

  function paint(name, k, on) {
    var els = index[name] || [];
    for (var j = 0; j < els.length; j++) {
      els[j].classList.toggle("hl" + k, on);
    }
  }
  function clear(name) {
    paint(name, colourOf[name], false);
    delete colourOf[name];
    order.splice(order.indexOf(name), 1);
  }
  function toggle(name) {
    if (name in colourOf) {
      clear(name);
      return;
    }
    if (order.length >= ncolours) {
      clear(order[0]);
    }
    var used = [];
    for (var n in colourOf) {
      used[colourOf[n]] = true;
    }
    var k = 0;
    while (used[k]) {
      k++;
    }
    colourOf[name] = k;
    order.push(name);
    paint(name, k, true);
  }

  document.addEventListener("click", function (e) {
    var t = e.target;
    if (!(t instanceof Element)) {
      return;
    }
    var n = t.closest("[data-n]");
    if (n) {
      toggle(n.getAttribute("data-n"));
      return;
    }
    var h = t.closest(".colhead");
    if (h) {
      h.parentNode.classList.toggle("collapsed");
    }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") {
      while (order.length > 0) {
        clear(order[0]);
      }
    }
  });

  // The self-check: a click on a name highlights every occurrence and a
  // second click clears them; a click on a column title collapses it.
  function check(ok, what) {
    if (!ok) {
      throw new Error("self-check failed: " + what);
    }
  }
  function click(el) {
    el.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true}));
  }
  function all(name, cls, want) {
    var els = index[name];
    for (var j = 0; j < els.length; j++) {
      check(els[j].classList.contains(cls) === want, name + (want ? " has " : " lacks ") + cls);
    }
  }
  function selfCheck() {
    check(order.length === 0, "nothing highlighted at first");
    var first = named[0];
    if (first) {
      var name = first.getAttribute("data-n");
      var els = index[name];
      click(first);
      all(name, "hl0", true);
      // A second name gets the second colour.
      var other = null;
      for (var j = 0; j < named.length; j++) {
        if (named[j].getAttribute("data-n") !== name) {
          other = named[j];
          break;
        }
      }
      if (other) {
        click(other);
        all(other.getAttribute("data-n"), "hl1", true);
        all(name, "hl0", true);
        click(other);
        all(other.getAttribute("data-n"), "hl1", false);
      }
      click(els[els.length - 1]);
      all(name, "hl0", false);
    }
    var head = document.querySelector(".colhead");
    if (head) {
      var was = head.parentNode.classList.contains("collapsed");
      click(head);
      check(head.parentNode.classList.contains("collapsed") !== was, "column title toggles collapse");
      click(head);
      check(head.parentNode.classList.contains("collapsed") === was, "column title toggles back");
    }
    root.setAttribute("data-names", String(named.length));
    root.setAttribute("data-selftest", "ok");
  }
  try {
    selfCheck();
  } catch (err) {
    window.kilnError(err && err.message ? err.message : String(err));
  }
})();
`
)
