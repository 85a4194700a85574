package alloc

import "slices"

// maxKey is a multiset of estimated ends whose maximum is read in O(1):
// a max-heap of the ends added and a max-heap of those removed since
// (lazy deletion). Invariant: live[0] is never pending removal, so the
// maximum is always live[0]. Removed ends pile up only below a longer
// one; compact drops them once they are half of live, so the cost stays
// amortised O(log) per add or remove and memory O(ends present).
type maxKey struct {
	live, gone []float64
}

func (k *maxKey) max() (float64, bool) {
	if len(k.live) == 0 {
		return 0, false
	}
	return k.live[0], true
}

func (k *maxKey) add(e float64) { k.live = heapPush(k.live, e) }

// remove takes out one copy of e, which must be present.
func (k *maxKey) remove(e float64) {
	k.gone = heapPush(k.gone, e)
	for len(k.gone) > 0 && k.gone[0] == k.live[0] {
		k.live = heapPop(k.live)
		k.gone = heapPop(k.gone)
	}
	if len(k.gone) > 16 && 2*len(k.gone) > len(k.live) {
		k.compact()
	}
}

// compact removes the pending ends from live. A slice sorted in
// decreasing order is a valid max-heap, so no heapify is needed.
func (k *maxKey) compact() {
	slices.Sort(k.live)
	slices.Reverse(k.live)
	slices.Sort(k.gone)
	slices.Reverse(k.gone)
	w, j := 0, 0
	for _, e := range k.live {
		for j < len(k.gone) && k.gone[j] > e { // not present: cannot happen
			j++
		}
		if j < len(k.gone) && k.gone[j] == e {
			j++
			continue
		}
		k.live[w] = e
		w++
	}
	k.live, k.gone = k.live[:w], k.gone[:0]
}

func (k *maxKey) copyFrom(src *maxKey) {
	k.live = append(k.live[:0], src.live...)
	k.gone = append(k.gone[:0], src.gone...)
}

func heapPush(h []float64, e float64) []float64 {
	h = append(h, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p] >= e {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	return h
}

func heapPop(h []float64) []float64 {
	n := len(h) - 1
	e := h[n]
	h = h[:n]
	if n == 0 {
		return h
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1] > h[c] {
			c++
		}
		if h[c] <= e {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
	return h
}
