package workload

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
)

var benchTraces = []struct{ short, file string }{
	{"HPC2N", "HPC2N-2002-2.1-cln.swf.gz"},
	{"SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz"},
	{"CEA-Curie", "CEA-Curie-2011-2.1-cln.swf.gz"},
}

// BenchmarkReadSWF measures reading a whole trace from disk, to compare with
// `zcat FILE | wc -l`. MB/s is of the gzipped file.
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

// BenchmarkReadSWFStages splits reading into its parts for one trace held in
// memory: parsing alone (plain text), and gzip input read serially or with
// inflating and parsing overlapped, with either gzip library.
func BenchmarkReadSWFStages(b *testing.B) {
	path := testenv.Data(b, "traces/HPC2N-2002-2.1-cln.swf.gz")
	zipped, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	zr, err := stdgzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		b.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	std := func(r io.Reader) (io.ReadCloser, error) { return stdgzip.NewReader(r) }
	for _, c := range []struct {
		name string
		in   []byte
		cfg  readConfig
	}{
		{"parse-plain", plain, readConfig{}},
		{"serial-klauspost", zipped, readConfig{}},
		{"serial-stdlib", zipped, readConfig{inflate: std}},
		{"pipelined-klauspost", zipped, readConfig{pipeline: true}},
		{"pipelined-stdlib", zipped, readConfig{pipeline: true, inflate: std}},
		{"pipelined-klauspost-hint", zipped, readConfig{pipeline: true, sizeHint: int64(len(plain))}},
		{"serial-klauspost-hint", zipped, readConfig{sizeHint: int64(len(plain))}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readSWF("x", bytes.NewReader(c.in), ReadOptions{}, c.cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInflate is the floor for reading: inflating alone, per library.
func BenchmarkInflate(b *testing.B) {
	path := testenv.Data(b, "traces/HPC2N-2002-2.1-cln.swf.gz")
	zipped, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		open func(io.Reader) (io.ReadCloser, error)
	}{
		{"klauspost", klauspostGzip},
		{"stdlib", func(r io.Reader) (io.ReadCloser, error) { return stdgzip.NewReader(r) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, defaultChunk)
			for b.Loop() {
				zr, err := c.open(bytes.NewReader(zipped))
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := fill(zr, buf); err != nil {
						break
					}
				}
			}
		})
	}
}

func BenchmarkClean(b *testing.B) {
	path := testenv.Data(b, "traces/CEA-Curie-2011-2.1-cln.swf.gz")
	t, err := OpenSWF(path, ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Clean(t, Cleaning{Cores: 16, Nodes: 5544})
	}
	b.ReportMetric(float64(len(t.Records))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Generate(Synthetic{Jobs: 100000, Nodes: 1000, Load: 0.8, Seed: 1})
	}
	b.ReportMetric(100000*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}
