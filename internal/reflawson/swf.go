package reflawson

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadSWF reads an (uncompressed) Standard Workload Format trace. Lines
// starting with ';' are comments. From each record: field 2 submit, field 4
// run time, field 5 allocated processors (field 8, requested processors, when
// field 5 is not positive), field 9 requested time. Records with a run time
// ≤ 0, no processors or a negative submit time are dropped; a run time above
// a positive requested time is capped at it (the job is killed). With
// exact, the estimate is the (capped) run time; otherwise it is the requested
// time, or the run time when none is given.
func ReadSWF(r io.Reader, exact bool) ([]Job, error) {
	var jobs []Job
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, ";") {
			continue
		}
		f := strings.Fields(text)
		if len(f) < 9 {
			return nil, fmt.Errorf("reflawson: SWF line %d has %d fields, want at least 9", line, len(f))
		}
		num := func(k int) (float64, error) {
			x, err := strconv.ParseFloat(f[k-1], 64)
			if err != nil {
				return 0, fmt.Errorf("reflawson: SWF line %d field %d: %v", line, k, err)
			}
			return x, nil
		}
		var v [10]float64
		for _, k := range []int{2, 4, 5, 8, 9} {
			x, err := num(k)
			if err != nil {
				return nil, err
			}
			v[k] = x
		}
		submit, run, procs, req := v[2], v[4], v[5], v[9]
		if procs <= 0 {
			procs = v[8]
		}
		if run <= 0 || procs <= 0 || submit < 0 {
			continue
		}
		if req > 0 && run > req {
			run = req
		}
		est := run
		if !exact && req > 0 {
			est = req
		}
		jobs = append(jobs, Job{Submit: submit, Width: int(procs), Run: run, Estimate: est})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return jobs, nil
}
