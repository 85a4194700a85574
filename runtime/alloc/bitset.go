package alloc

import (
	"fmt"
	"iter"
	"math/bits"
)

// Bitset is a set of ids 0..Len()-1 in two levels: one bit per id, and a
// summary bit per word that is set iff the word is not empty. Finding the
// next or previous member therefore skips 4,096 empty ids per summary word
// instead of 64, which keeps a lowest-free-node search on a 40,960-node
// machine to at most 10 summary words rather than 640 words (architecture
// §4.7 item 5). The zero value is an empty set of length 0; NewBitset or
// Reset sizes it.
type Bitset struct {
	n     int
	count int
	words []uint64
	sum   []uint64 // bit w%64 of sum[w/64] is set iff words[w] != 0
}

// NewBitset returns an empty set over ids 0..n-1.
func NewBitset(n int) *Bitset {
	b := new(Bitset)
	b.Reset(n)
	return b
}

// Reset empties b and resizes it to ids 0..n-1, reusing its memory.
func (b *Bitset) Reset(n int) {
	if n < 0 {
		panic(fmt.Sprintf("alloc: Bitset.Reset(%d): negative length", n))
	}
	nw := (n + 63) >> 6
	b.words = zeroed(b.words, nw)
	b.sum = zeroed(b.sum, (nw+63)>>6)
	b.n, b.count = n, 0
}

func zeroed(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// fill makes b hold every id 0..Len()-1.
func (b *Bitset) fill() {
	for w := range b.words {
		b.words[w] = ^uint64(0)
	}
	if r := b.n & 63; r != 0 {
		b.words[len(b.words)-1] = 1<<r - 1
	}
	for s := range b.sum {
		b.sum[s] = ^uint64(0)
	}
	if r := len(b.words) & 63; r != 0 {
		b.sum[len(b.sum)-1] = 1<<r - 1
	}
	b.count = b.n
}

// Len is the number of ids the set ranges over.
func (b *Bitset) Len() int { return b.n }

// Count is the number of members, kept up to date by Set and Clear.
func (b *Bitset) Count() int { return b.count }

func (b *Bitset) check(i int) {
	if uint(i) >= uint(b.n) {
		panic(fmt.Sprintf("alloc: id %d out of range [0, %d)", i, b.n))
	}
}

// Has reports whether i is a member.
func (b *Bitset) Has(i int) bool {
	b.check(i)
	return b.words[i>>6]&(1<<(i&63)) != 0
}

// Set adds i; adding a member is a no-op.
func (b *Bitset) Set(i int) {
	b.check(i)
	w, m := i>>6, uint64(1)<<(i&63)
	x := b.words[w]
	if x&m != 0 {
		return
	}
	if x == 0 {
		b.sum[w>>6] |= 1 << (w & 63)
	}
	b.words[w] = x | m
	b.count++
}

// Clear removes i; removing a non-member is a no-op.
func (b *Bitset) Clear(i int) {
	b.check(i)
	w, m := i>>6, uint64(1)<<(i&63)
	x := b.words[w]
	if x&m == 0 {
		return
	}
	x &^= m
	b.words[w] = x
	if x == 0 {
		b.sum[w>>6] &^= 1 << (w & 63)
	}
	b.count--
}

// setWord adds (on) or removes the ids in mask m of word w.
func (b *Bitset) setWord(w int, m uint64, on bool) {
	x := b.words[w]
	y := x &^ m
	if on {
		y = x | m
	}
	if y == x {
		return
	}
	b.words[w] = y
	b.count += bits.OnesCount64(y) - bits.OnesCount64(x)
	if x == 0 {
		b.sum[w>>6] |= 1 << (w & 63)
	} else if y == 0 {
		b.sum[w>>6] &^= 1 << (w & 63)
	}
}

// nextWord returns the first non-empty word at index >= w, or -1.
func (b *Bitset) nextWord(w int) int {
	if w >= len(b.words) {
		return -1
	}
	s := w >> 6
	x := b.sum[s] & (^uint64(0) << (w & 63))
	for x == 0 {
		s++
		if s >= len(b.sum) {
			return -1
		}
		x = b.sum[s]
	}
	return s<<6 + bits.TrailingZeros64(x)
}

// prevWord returns the last non-empty word at index <= w, or -1.
func (b *Bitset) prevWord(w int) int {
	if w < 0 {
		return -1
	}
	s := w >> 6
	x := b.sum[s] & (^uint64(0) >> (63 - w&63))
	for x == 0 {
		s--
		if s < 0 {
			return -1
		}
		x = b.sum[s]
	}
	return s<<6 + 63 - bits.LeadingZeros64(x)
}

// NextSet returns the smallest member >= i, or -1 if there is none. Any i
// is accepted: below 0 searches from 0, at or past Len finds nothing. The
// cost is O(1 + empty summary words skipped).
func (b *Bitset) NextSet(i int) int {
	i = max(i, 0)
	if i >= b.n {
		return -1
	}
	w := i >> 6
	if x := b.words[w] & (^uint64(0) << (i & 63)); x != 0 {
		return w<<6 + bits.TrailingZeros64(x)
	}
	if w = b.nextWord(w + 1); w < 0 {
		return -1
	}
	return w<<6 + bits.TrailingZeros64(b.words[w])
}

// PrevSet returns the largest member <= i, or -1 if there is none. Any i
// is accepted: at or past Len searches from the last id, below 0 finds
// nothing.
func (b *Bitset) PrevSet(i int) int {
	if i < 0 || b.n == 0 {
		return -1
	}
	if i >= b.n {
		i = b.n - 1
	}
	w := i >> 6
	if x := b.words[w] & (^uint64(0) >> (63 - i&63)); x != 0 {
		return w<<6 + 63 - bits.LeadingZeros64(x)
	}
	if w = b.prevWord(w - 1); w < 0 {
		return -1
	}
	return w<<6 + 63 - bits.LeadingZeros64(b.words[w])
}

// All yields the members in increasing order. Changing b during the loop
// is allowed; the loop sees members above the current one as they are
// when it gets there.
func (b *Bitset) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := b.NextSet(0); i >= 0; i = b.NextSet(i + 1) {
			if !yield(i) {
				return
			}
		}
	}
}

// appendUp appends to dst up to k members >= lo in increasing order and
// returns dst; it reads whole words, so k members cost O(k + words).
func (b *Bitset) appendUp(dst []int32, lo, k int) []int32 {
	lo = max(lo, 0)
	if k <= 0 || lo >= b.n {
		return dst
	}
	w := lo >> 6
	x := b.words[w] & (^uint64(0) << (lo & 63))
	for {
		for x != 0 {
			dst = append(dst, int32(w<<6+bits.TrailingZeros64(x)))
			if k--; k == 0 {
				return dst
			}
			x &= x - 1
		}
		if w = b.nextWord(w + 1); w < 0 {
			return dst
		}
		x = b.words[w]
	}
}

// appendDown appends to dst up to k members <= hi in decreasing order.
func (b *Bitset) appendDown(dst []int32, hi, k int) []int32 {
	if k <= 0 || hi < 0 || b.n == 0 {
		return dst
	}
	hi = min(hi, b.n-1)
	w := hi >> 6
	x := b.words[w] & (^uint64(0) >> (63 - hi&63))
	for {
		for x != 0 {
			top := 63 - bits.LeadingZeros64(x)
			dst = append(dst, int32(w<<6+top))
			if k--; k == 0 {
				return dst
			}
			x &^= 1 << top
		}
		if w = b.prevWord(w - 1); w < 0 {
			return dst
		}
		x = b.words[w]
	}
}

// andNot removes the members of x (of the same length) from b.
func (b *Bitset) andNot(x *Bitset) {
	b.count = 0
	for w := range b.words {
		b.words[w] &^= x.words[w]
		b.count += bits.OnesCount64(b.words[w])
		if b.words[w] == 0 {
			b.sum[w>>6] &^= 1 << (w & 63)
		}
	}
}

// Or adds the members of x (of the same length) to b.
func (b *Bitset) Or(x *Bitset) {
	for w, m := range x.words {
		if m&^b.words[w] != 0 {
			b.setWord(w, m, true)
		}
	}
}

// AndCount is the number of members b and x (of the same length) share.
func (b *Bitset) AndCount(x *Bitset) int {
	n := 0
	for w := range b.words {
		n += bits.OnesCount64(b.words[w] & x.words[w])
	}
	return n
}

// CountRange is the number of members in [lo, hi).
func (b *Bitset) CountRange(lo, hi int) int {
	lo, hi = max(lo, 0), min(hi, b.n)
	if lo >= hi {
		return 0
	}
	wl, wh := lo>>6, (hi-1)>>6
	if wl == wh {
		return bits.OnesCount64(b.words[wl] & (^uint64(0) << (lo & 63)) & (^uint64(0) >> (63 - (hi-1)&63)))
	}
	n := bits.OnesCount64(b.words[wl] & (^uint64(0) << (lo & 63)))
	for w := wl + 1; w < wh; w++ {
		n += bits.OnesCount64(b.words[w])
	}
	return n + bits.OnesCount64(b.words[wh]&(^uint64(0)>>(63-(hi-1)&63)))
}

// CopyFrom makes b a copy of src, reusing b's memory.
func (b *Bitset) CopyFrom(src *Bitset) {
	b.words = append(b.words[:0], src.words...)
	b.sum = append(b.sum[:0], src.sum...)
	b.n, b.count = src.n, src.count
}
