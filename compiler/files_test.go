package compiler

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

func gz(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestProbe(t *testing.T) {
	long := strings.Repeat("; Note: "+strings.Repeat("x", 70)+"\n", 2000) // ~156 KB of comments
	job := "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
	tests := []struct {
		name    string
		data    string
		size    bool
		wantErr string
	}{
		{"MaxProcs", "; MaxProcs: 128\n" + job, true, ""},
		{"MaxNodes after other keys", "; Version: 2\n;\n;   MaxNodes:  16  \n" + job, true, ""},
		{"zero is no size", "; MaxNodes: 0\n" + job, false, ""},
		{"not a number", "; MaxProcs: many\n" + job, false, ""},
		{"after the first job it is not the header", job + "; MaxProcs: 128\n", false, ""},
		{"no header", job, false, ""},
		{"empty file", "", false, ""},
		{"last line without newline", "; MaxProcs: 8", true, ""},
		{"size past the first read", long + "; MaxProcs: 9\n" + job, true, ""},
		{"gzipped", gz(t, long+"; MaxNodes: 3\n"+job), true, ""},
		{"corrupt gzip", "\x1f\x8b\x08\x00garbage", false, "gzip"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size, err := probe(strings.NewReader(tc.data), true)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || size != tc.size {
				t.Errorf("probe = %v, %v; want %v, nil", size, err, tc.size)
			}
		})
	}
}
