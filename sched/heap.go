package sched

// binHeap is a binary heap whose first element is the least by less. Its
// zero value needs less set before use; reset keeps the storage.
type binHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h *binHeap[T]) len() int { return len(h.items) }

func (h *binHeap[T]) reset() { h.items = h.items[:0] }

func (h *binHeap[T]) push(x T) {
	it := append(h.items, x)
	i := len(it) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(it[i], it[p]) {
			break
		}
		it[p], it[i] = it[i], it[p]
		i = p
	}
	h.items = it
}

func (h *binHeap[T]) pop() T {
	it := h.items
	top := it[0]
	last := len(it) - 1
	it[0] = it[last]
	it = it[:last]
	i := 0
	for {
		l, r, first := 2*i+1, 2*i+2, i
		if l < len(it) && h.less(it[l], it[first]) {
			first = l
		}
		if r < len(it) && h.less(it[r], it[first]) {
			first = r
		}
		if first == i {
			break
		}
		it[i], it[first] = it[first], it[i]
		i = first
	}
	h.items = it
	return top
}
