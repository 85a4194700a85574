package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkBitset compares b with the model in full: membership, count,
// NextSet and PrevSet from every position, All, and the word-wise appends.
func checkBitset(t *testing.T, b *Bitset, m []bool) {
	t.Helper()
	if b.Len() != len(m) {
		t.Fatalf("Len %d, want %d", b.Len(), len(m))
	}
	var members []int
	for i, v := range m {
		if b.Has(i) != v {
			t.Fatalf("Has(%d) = %v, want %v", i, !v, v)
		}
		if v {
			members = append(members, i)
		}
	}
	if b.Count() != len(members) {
		t.Fatalf("Count %d, want %d", b.Count(), len(members))
	}
	next := -1
	for i := len(m) + 1; i >= -2; i-- {
		if i >= 0 && i < len(m) && m[i] {
			next = i
		}
		want := next
		if i >= len(m) {
			want = -1
		}
		if got := b.NextSet(i); got != want {
			t.Fatalf("NextSet(%d) = %d, want %d", i, got, want)
		}
	}
	prev := -1
	for i := -2; i <= len(m)+1; i++ {
		if i >= 0 && i < len(m) && m[i] {
			prev = i
		}
		want := prev
		if i < 0 {
			want = -1
		}
		if got := b.PrevSet(i); got != want {
			t.Fatalf("PrevSet(%d) = %d, want %d", i, got, want)
		}
	}
	for lo := -1; lo <= len(m)+1; lo += 1 + len(m)/17 {
		for hi := lo; hi <= len(m)+2; hi += 1 + len(m)/13 {
			want := 0
			for _, i := range members {
				if i >= lo && i < hi {
					want++
				}
			}
			if got := b.CountRange(lo, hi); got != want {
				t.Fatalf("CountRange(%d, %d) = %d, want %d", lo, hi, got, want)
			}
		}
	}
	if got := slices.Collect(b.All()); !slices.Equal(got, members) {
		t.Fatalf("All = %v, want %v", got, members)
	}
	for _, lo := range []int{-1, 0, len(m) / 3, len(m) - 1, len(m)} {
		for _, k := range []int{0, 1, 3, 70, len(m) + 1} {
			var want []int32
			for _, i := range members {
				if i >= lo && len(want) < k {
					want = append(want, int32(i))
				}
			}
			if got := b.appendUp(nil, lo, k); !slices.Equal(got, want) {
				t.Fatalf("appendUp(%d, %d) = %v, want %v", lo, k, got, want)
			}
			want = want[:0]
			for _, i := range slices.Backward(members) {
				if i <= lo && len(want) < k {
					want = append(want, int32(i))
				}
			}
			if got := b.appendDown(nil, lo, k); !slices.Equal(got, want) {
				t.Fatalf("appendDown(%d, %d) = %v, want %v", lo, k, got, want)
			}
		}
	}
}

func TestBitsetTable(t *testing.T) {
	tests := []struct {
		n       int
		set     []int
		cleared []int // cleared after setting
		next    [][2]int
		prev    [][2]int
	}{
		{n: 0, next: [][2]int{{0, -1}, {-1, -1}}, prev: [][2]int{{0, -1}, {5, -1}}},
		{n: 1, set: []int{0}, next: [][2]int{{0, 0}, {1, -1}}, prev: [][2]int{{0, 0}, {9, 0}, {-1, -1}}},
		{n: 64, set: []int{0, 63}, next: [][2]int{{1, 63}, {64, -1}}, prev: [][2]int{{62, 0}, {63, 63}}},
		{n: 65, set: []int{64}, next: [][2]int{{0, 64}}, prev: [][2]int{{63, -1}, {64, 64}}},
		// across a summary word: word 63 is the last of summary word 0, word 64 the first of word 1
		{n: 8192, set: []int{63*64 + 5, 64 * 64, 8191}, next: [][2]int{{0, 63*64 + 5}, {63*64 + 6, 4096}, {4097, 8191}},
			prev: [][2]int{{4095, 63*64 + 5}, {8190, 4096}, {100, -1}}},
		{n: 40960, set: []int{0, 40959}, cleared: []int{0}, next: [][2]int{{0, 40959}}, prev: [][2]int{{40958, -1}, {40959, 40959}}},
		{n: 300, set: []int{5, 5, 6}, cleared: []int{6, 6, 7}, next: [][2]int{{0, 5}, {6, -1}}, prev: [][2]int{{299, 5}}},
	}
	for _, tc := range tests {
		b := NewBitset(tc.n)
		m := make([]bool, tc.n)
		for _, i := range tc.set {
			b.Set(i)
			m[i] = true
		}
		for _, i := range tc.cleared {
			b.Clear(i)
			m[i] = false
		}
		for _, q := range tc.next {
			if got := b.NextSet(q[0]); got != q[1] {
				t.Errorf("n=%d: NextSet(%d) = %d, want %d", tc.n, q[0], got, q[1])
			}
		}
		for _, q := range tc.prev {
			if got := b.PrevSet(q[0]); got != q[1] {
				t.Errorf("n=%d: PrevSet(%d) = %d, want %d", tc.n, q[0], got, q[1])
			}
		}
		if tc.n <= 8192 {
			checkBitset(t, b, m)
		}
	}
}

func TestBitsetFillResetCopy(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 4095, 4096, 4097, 5040} {
		b := NewBitset(n)
		b.fill()
		m := make([]bool, n)
		for i := range m {
			m[i] = true
		}
		checkBitset(t, b, m)
		var c Bitset
		c.Reset(7)
		c.Set(3)
		c.CopyFrom(b)
		if n > 0 {
			b.Clear(0) // the copy must not see it
		}
		checkBitset(t, &c, m)
		b.Reset(n)
		checkBitset(t, b, make([]bool, n))
	}
}

func TestBitsetOutOfRange(t *testing.T) {
	b := NewBitset(10)
	for _, i := range []int{-1, 10, 64} {
		for name, f := range map[string]func(int){"Set": b.Set, "Clear": b.Clear, "Has": func(i int) { b.Has(i) }} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s(%d) on 10 ids did not panic", name, i)
					}
				}()
				f(i)
			}()
		}
	}
}

// runBitsetOps applies ops decoded from data to a bitset and a []bool and
// compares them after each op.
func runBitsetOps(t *testing.T, n int, data []byte) {
	b := NewBitset(n)
	m := make([]bool, n)
	for k := 0; k+2 < len(data); k += 3 {
		i := (int(data[k+1])<<8 | int(data[k+2])) % max(n, 1)
		switch data[k] % 4 {
		case 0, 1:
			if n > 0 {
				b.Set(i)
				m[i] = true
			}
		case 2:
			if n > 0 {
				b.Clear(i)
				m[i] = false
			}
		case 3: // clear a run, to empty whole words and summary bits
			for j := i; j < min(n, i+200); j++ {
				b.Clear(j)
				m[j] = false
			}
		}
		if k%30 == 0 || k+5 >= len(data) {
			checkBitset(t, b, m)
		}
	}
}

func TestBitsetModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 63, 64, 65, 130, 4096, 4160, 9000} {
		data := make([]byte, 3*600)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		runBitsetOps(t, n, data)
	}
}

func FuzzBitset(f *testing.F) {
	f.Add(uint16(130), []byte{0, 0, 5, 0, 0, 64, 2, 0, 5, 3, 0, 0})
	f.Add(uint16(4200), []byte{0, 16, 0, 1, 0, 1, 3, 0, 0})
	f.Fuzz(func(t *testing.T, n uint16, data []byte) {
		runBitsetOps(t, int(n%9000), data)
	})
}
