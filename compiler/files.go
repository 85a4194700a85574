package compiler

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/klauspost/compress/gzip"

	"github.com/pwrc/pwrc/lang"
)

// dataFile is what opening a data file (a trace, a price series) told the
// compiler. Files are opened, not parsed: a scenario whose trace is
// missing fails at `pwrc check`, at the line that names it, not minutes
// into a sweep.
type dataFile struct {
	err error
	at  lang.Range // where the scenario first names it
	// SWF traces: whether the header gives the machine's size (MaxProcs
	// or MaxNodes), which `nodes auto` and `scale to machine` need.
	hasSize bool
}

// maxHeaderScan bounds how much of a trace is read for its header.
const maxHeaderScan = 1 << 20

// dataFile opens the data file at path (resolved already), written at r,
// once per compilation, and reports a located error the first time it
// cannot be read. what names it in messages: "trace", "price series".
func (c *compiler) dataFile(path string, r lang.Range, what string, swf bool) *dataFile {
	if f, ok := c.data[path]; ok {
		return f
	}
	f := &dataFile{at: r}
	c.data[path] = f
	rc, err := c.opts.OpenData(path)
	if err == nil {
		f.hasSize, err = probe(rc, swf)
		rc.Close()
	}
	if err == nil {
		return f
	}
	f.err = err
	d := c.diags.Errorf(r, "cannot read %s %s: %v", what, path, unwrapPathErr(err))
	if errors.Is(err, fs.ErrNotExist) {
		d.DidYouMean(c.nearbyFile(path))
	}
	if lang.Range.Valid(r) && !isSetFile(r.File) {
		d.With("Paths in a scenario are relative to the file that writes them (here %s); paths given with --set, to the working directory.", r.File)
	} else {
		d.With("Paths given with --set are relative to the working directory.")
	}
	return f
}

func isSetFile(name string) bool { return len(name) >= 5 && name[:5] == "--set" }

// probe reads the start of a data file: enough to know it can be read
// (and inflated, when gzipped), and for SWF traces the header's size.
func probe(r io.Reader, swf bool) (hasSize bool, err error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	var in io.Reader = br
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return false, fmt.Errorf("not a valid gzip file: %w", err)
		}
		defer zr.Close()
		in = gzipErrors{zr}
	}
	buf := make([]byte, 64<<10)
	n, err := readUpTo(in, buf)
	if err != nil {
		return false, err
	}
	if !swf {
		return false, nil
	}
	// The header is the comment lines before the first job.
	data := buf[:n]
	for read := n; ; {
		for len(data) > 0 {
			nl := bytes.IndexByte(data, '\n')
			if nl < 0 {
				break
			}
			line := bytes.TrimSpace(data[:nl])
			data = data[nl+1:]
			if len(line) == 0 {
				continue
			}
			if line[0] != ';' {
				return false, nil
			}
			if sizeKey(line[1:]) {
				return true, nil
			}
		}
		if n < len(buf) || read >= maxHeaderScan {
			if len(data) > 0 && data[0] == ';' {
				return sizeKey(data[1:]), nil
			}
			return false, nil
		}
		// Keep the partial line and read on.
		rest := append([]byte(nil), data...)
		n, err = readUpTo(in, buf)
		if err != nil {
			return false, err
		}
		read += n
		data = append(rest, buf[:n]...)
	}
}

// gzipErrors says that a failure to read is the gzip stream's.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("corrupt or truncated gzip data: %w", err)
	}
	return n, err
}

// readUpTo fills buf unless the input ends first; only a failure to read
// (a corrupt or truncated gzip stream included) is an error.
func readUpTo(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// sizeKey reports a header line `MaxProcs: N` or `MaxNodes: N` with N > 0.
func sizeKey(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	if colon < 0 {
		return false
	}
	key := string(bytes.TrimSpace(line[:colon]))
	if key != "MaxProcs" && key != "MaxNodes" {
		return false
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(line[colon+1:])))
	return err == nil && n > 0
}

// nearbyFile suggests a file in the same directory whose name is close to
// the missing one's.
func (c *compiler) nearbyFile(path string) string {
	if !c.osData {
		return ""
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) > 10_000 {
		return ""
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if s := lang.Suggest(base, names); s != "" {
		return filepath.Join(filepath.Dir(path), s)
	}
	return ""
}
