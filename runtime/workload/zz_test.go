package workload

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
)

func BenchmarkZZ(b *testing.B) {
	path := testenv.Data(b, "traces/"+os.Getenv("ZZ")+"")
	data, _ := os.ReadFile(path)
	zr, _ := gzip.NewReader(bytes.NewReader(data))
	plain, _ := io.ReadAll(zr)
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			readSWF("x", bytes.NewReader(plain), ReadOptions{}, readConfig{chunk: defaultChunk})
		}
	})
	b.Run("gz-serial", func(b *testing.B) {
		for b.Loop() {
			readSWF("x", bytes.NewReader(data), ReadOptions{}, readConfig{chunk: defaultChunk})
		}
	})
	b.Run("gz-pipe", func(b *testing.B) {
		for b.Loop() {
			readSWF("x", bytes.NewReader(data), ReadOptions{}, readConfig{chunk: defaultChunk, pipeline: true})
		}
	})
}
