package mir

import "slices"

// PassWorklist orders the visits of an iterative analysis exactly as
// round-robin passes over a fixed order (typically the reverse postorder
// of the blocks, for a forward dataflow) that skip clean items:
//
//	for changed := true; changed; {
//		changed = false
//		for _, b := range order {
//			if dirty[b] { dirty[b] = false; visit b, marking items dirty }
//		}
//	}
//
// Every item starts dirty. An item marked dirty while a pass is before it
// is visited later in the same pass, one marked at or behind the pass's
// position in the next pass. Where those loops scan every item in every
// pass, which is quadratic when a change needs as many passes as the
// function has loops nested or in sequence, the worklist only touches the
// items it visits: a min-heap of positions in the order holds the current
// pass, a list the next.
type PassWorklist struct {
	order []int
	num   []int32 // position of each item in the order, -1 if none
	dirty []bool  // by position
	cur   []int32 // min-heap of the positions left in this pass
	next  []int32 // positions for the next pass
	at    int32   // position of the item last visited in this pass
}

// NewPassWorklist returns a worklist over the items of order, numbers in
// 0..n-1 (items outside the order are never visited), every one of them
// dirty.
func NewPassWorklist(order []int, n int) *PassWorklist {
	w := &PassWorklist{order: order, num: make([]int32, n), dirty: make([]bool, len(order)),
		cur: make([]int32, len(order)), at: -1}
	for b := range w.num {
		w.num[b] = -1
	}
	for i, b := range order {
		w.num[b] = int32(i)
		w.dirty[i] = true
		w.cur[i] = int32(i) // sorted, so a heap
	}
	return w
}

// Pop returns the next item to visit, marking it clean, or false when no
// item is dirty.
func (w *PassWorklist) Pop() (int, bool) {
	if len(w.cur) == 0 {
		if len(w.next) == 0 {
			return 0, false
		}
		w.cur, w.next = w.next, w.cur[:0]
		slices.Sort(w.cur)
		w.at = -1
	}
	p := w.cur[0]
	last := len(w.cur) - 1
	w.cur[0] = w.cur[last]
	w.cur = w.cur[:last]
	w.siftDown(0)
	w.dirty[p], w.at = false, p
	return w.order[p], true
}

// Mark makes item b dirty. Items outside the order are ignored.
func (w *PassWorklist) Mark(b int) {
	p := w.num[b]
	if p < 0 || w.dirty[p] {
		return
	}
	w.dirty[p] = true
	if p <= w.at {
		w.next = append(w.next, p)
		return
	}
	w.cur = append(w.cur, p)
	for i := len(w.cur) - 1; i > 0; {
		parent := (i - 1) / 2
		if w.cur[parent] <= w.cur[i] {
			break
		}
		w.cur[parent], w.cur[i] = w.cur[i], w.cur[parent]
		i = parent
	}
}

func (w *PassWorklist) siftDown(i int) {
	h := w.cur
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
