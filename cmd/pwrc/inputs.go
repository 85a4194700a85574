package main

import (
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/pwrc/pwrc/lang"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// input is a file a command reads, which none of its outputs may replace.
type input struct {
	path string      // as the scenario or the command line names it
	what string      // "the trace of workload kth", for messages
	info fs.FileInfo // nil if it could not be read (it is then no file to protect)
}

// inputs are the files a command reads.
type inputs []input

// add adds a file, once; one that does not exist is left out.
func (in *inputs) add(path, what string) {
	if path == "" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	for _, x := range *in {
		if os.SameFile(x.info, fi) {
			return
		}
	}
	*in = append(*in, input{path, what, fi})
}

// of says which input fi is, if any.
func (in inputs) of(fi fs.FileInfo) (input, bool) {
	if fi == nil {
		return input{}, false
	}
	for _, x := range in {
		if os.SameFile(x.info, fi) {
			return x, true
		}
	}
	return input{}, false
}

// planInputs are the files a compiled scenario reads: its sources (the
// root file and the files it imports), and the traces, sacct files, price
// and carbon series its runs name.
func planInputs(sources lang.Sources, plan *pwrt.Plan) inputs {
	var in inputs
	var srcs []string
	for src := range sources {
		srcs = append(srcs, src)
	}
	sort.Strings(srcs) // (the same message whatever the map's order)
	for _, src := range srcs {
		in.add(src, "the scenario source "+src)
	}
	if plan == nil {
		return in
	}
	for _, r := range plan.Runs {
		w := r.Workload
		switch w.Kind {
		case pwrt.SWF:
			in.add(w.Path, fmt.Sprintf("the trace of workload %s", w.Name))
		case pwrt.Sacct:
			in.add(w.Path, fmt.Sprintf("the sacct file of workload %s", w.Name))
		}
		k := r.Contract
		if k.Kind == pwrt.Hourly && k.Generate == nil {
			in.add(k.Prices, fmt.Sprintf("the price file of contract %s", k.Name))
		}
		if k.CarbonGenerate == nil {
			in.add(k.CarbonSeries, fmt.Sprintf("the carbon file of contract %s", k.Name))
		}
	}
	return in
}
