package runtime

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The index's building blocks against brute force: the rank set's next
// and prev, the Fenwick tree's counts, a size class's tree (its root and
// its search), the allocation set's least, and the size classes' bounds.

func TestRankSetAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 63, 64, 65, 4095, 4096, 4097, 300000} {
		set := newRankSet(n)
		in := make([]bool, n)
		fen := newFenwick(n)
		for step := range 3000 {
			r := int32(rng.IntN(n))
			if step%7 == 0 { // sparse and dense stretches
				r = int32(rng.IntN(min(n, 200)))
			}
			if in[r] {
				set.remove(r)
				fen.add(int(r), -1)
			} else {
				set.add(r)
				fen.add(int(r), 1)
			}
			in[r] = !in[r]
			q := int32(rng.IntN(n))
			wantNext, wantPrev, wantCount := int32(-1), int32(-1), 0
			for i := q; i < int32(n); i++ {
				if in[i] {
					wantNext = i
					break
				}
			}
			for i := q; i >= 0; i-- {
				if in[i] {
					wantPrev = i
					break
				}
			}
			for i := range q {
				if in[i] {
					wantCount++
				}
			}
			if got := set.next(q); got != wantNext {
				t.Fatalf("n %d step %d: next(%d) = %d, want %d", n, step, q, got, wantNext)
			}
			if got := set.prev(q); got != wantPrev {
				t.Fatalf("n %d step %d: prev(%d) = %d, want %d", n, step, q, got, wantPrev)
			}
			if got := fen.prefix(int(q)); got != wantCount {
				t.Fatalf("n %d step %d: prefix(%d) = %d, want %d", n, step, q, got, wantCount)
			}
		}
		if got := set.next(int32(n)); got != -1 {
			t.Errorf("n %d: next past the end = %d", n, got)
		}
	}
}

func TestClassTreeAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// Sizes around a block (64 places) and around each level's fan.
	for _, n := range []int{1, 2, 63, 64, 65, 64 * fan, 64*fan + 1, 64 * fan * fan, 64*fan*fan*fan + 3, 100000} {
		for _, weighted := range []bool{false, true} {
			// Many values, or few, so that several jobs of a block hold
			// its minima (see minCount).
			spread := 1 + 999*(n%2)
			k := &qclass{a: make([]int32, n), e: make([]float32, n)}
			if weighted {
				k.w = make([]float32, n)
			}
			for i := range n {
				k.a[i] = int32(1 + rng.IntN(min(16, spread)))
				k.e[i] = float32(rng.IntN(spread))
				if k.w != nil {
					k.w[i] = float32(rng.IntN(min(100, spread)))
				}
			}
			k.makeTree(n)
			in := make([]bool, n)
			for step := range 2000 {
				i := rng.IntN(n)
				if step%5 == 0 { // dense stretches
					i = rng.IntN(min(n, 300))
				}
				if in[i] {
					k.drop(i)
				} else {
					k.add(i)
				}
				in[i] = !in[i]
				want := noneWaits
				for p, w := range in {
					if w {
						want.a = min(want.a, k.a[p])
						want.e = min(want.e, k.e[p])
						want.w = min(want.w, k.weight(p))
					}
				}
				if got := k.root(); got != want {
					t.Fatalf("n %d step %d: root %+v, want %+v", n, step, got, want)
				}
				// The block's node and how many of its waiting jobs hold
				// each minimum.
				b := i >> blockBits
				node, held := noneWaits, minCount{}
				for p := b << blockBits; p < min(n, (b+1)<<blockBits); p++ {
					if in[p] {
						node.a, node.e, node.w = min(node.a, k.a[p]), min(node.e, k.e[p]), min(node.w, k.weight(p))
					}
				}
				for p := b << blockBits; p < min(n, (b+1)<<blockBits); p++ {
					if in[p] {
						held.a += b2u8(k.a[p] == node.a)
						held.e += b2u8(k.e[p] == node.e)
						held.w += b2u8(k.weight(p) == node.w)
					}
				}
				if k.lv[0][b] != node || k.held[b] != held {
					t.Fatalf("n %d step %d: block %d holds %+v %+v, want %+v %+v", n, step, b, k.lv[0][b], k.held[b], node, held)
				}
				f := filter{now: 0, free: 1 + rng.IntN(16), room: math.Inf(1), shadow: float64(rng.IntN(1200)),
					extra: rng.IntN(12), extraW: math.Inf(1)}
				if weighted {
					f.room, f.extraW = float64(rng.IntN(120)), float64(rng.IntN(60))
				}
				from := int32(rng.IntN(n + 1))
				if step%3 == 0 {
					from = 0
				}
				wantAt := int32(-1)
				for p := int(from); p < n; p++ {
					if in[p] && f.pass(k, p) {
						wantAt = int32(p)
						break
					}
				}
				if got := k.search(&f, from); got != wantAt {
					t.Fatalf("n %d step %d: search(%+v, %d) = %d, want %d", n, step, f, from, got, wantAt)
				}
			}
		}
	}
}

func TestAllocSetLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nodes = 70000
	a := newAllocSet(nodes)
	held := map[int]int{}
	for step := range 5000 {
		x := 1 + rng.IntN(nodes)
		if step%3 == 0 {
			x = 1 + rng.IntN(8)
		}
		if held[x] > 0 && rng.IntN(2) == 0 {
			a.remove(x)
			held[x]--
		} else {
			a.add(x)
			held[x]++
		}
		want := math.MaxInt32
		for v, c := range held {
			if c > 0 {
				want = min(want, v)
			}
		}
		if got := a.min(); got != want {
			t.Fatalf("step %d: least allocation %d, want %d", step, got, want)
		}
	}
}

func TestSizeClasses(t *testing.T) {
	prev := -1
	for a := int32(1); a < 1<<20; a++ {
		c := classOf(a)
		if c < prev || c > prev+1 {
			t.Fatalf("class of %d is %d after %d: classes must come in order", a, c, prev)
		}
		if c != prev && classLow(c) != int(a) {
			t.Fatalf("class %d starts at %d, classLow says %d", c, a, classLow(c))
		}
		prev = c
	}
	if c := classOf(math.MaxInt32); c >= 128 {
		t.Errorf("class of the largest allocation is %d: buildIndex counts 128", c)
	}
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
