package workload

import (
	"os"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
)

var benchTraces = []struct{ short, file string }{
	{"HPC2N", "HPC2N-2002-2.1-cln.swf.gz"},
	{"SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz"},
	{"CEA-Curie", "CEA-Curie-2011-2.1-cln.swf.gz"},
}

// BenchmarkReadSWF measures whole-file reading; compare with `zcat FILE | wc -l`.
func BenchmarkReadSWF(b *testing.B) {
	for _, bt := range benchTraces {
		b.Run(bt.short, func(b *testing.B) {
			path := testenv.Data(b, "traces/"+bt.file)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			var n int
			for b.Loop() {
				t, err := OpenSWF(path, ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				n = len(t.Records)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
