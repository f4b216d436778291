package sched

// run does every step of the pass on an allocator the test made itself
// (with an explicit victim policy, so no oracle analysis is due).
func (a *allocator) run() (*Result, error) {
	r := &Run{a: a}
	for i := range Steps {
		if err := r.Do(&Steps[i]); err != nil {
			return nil, err
		}
	}
	return r.Result(), nil
}
