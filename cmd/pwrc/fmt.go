package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/pwrc/pwrc/lang"
)

// stdinName names the standard input in messages, and a scenario read
// from it (pwrc run -) in diagnostics and manifests.
const stdinName = "<stdin>"

func fmtCmd(stdout, stderr io.Writer) *cobra.Command {
	var write, check bool
	cmd := &cobra.Command{
		Use:   "fmt [-w | --check] [FILE | DIR]...",
		Short: "Format .pwr files canonically",
		Long: `fmt lays out .pwr files canonically: 2-space indentation, one statement per
line (a block opened and closed on one line stays so when it fits in 100
columns), the author's alignment kept and repaired, trailing comments
aligned, at most one blank line in a row and one between multi-line
declarations. Comments are kept; formatting never changes what a file
compiles to, and formatting formatted text changes nothing. A file that does
not parse is not formatted: its errors are reported (exit 1).

Without arguments fmt formats the standard input to the standard output;
with files, it prints them formatted. A directory stands for every .pwr file
under it. -w rewrites the files that change, each atomically; --check writes
nothing, lists the files whose formatting would change and exits 1 if there
are any (for CI).`,
		RunE: command(func(cmd *cobra.Command, args []string) error {
			if write && check {
				return usageErrorf("-w and --check do not go together: --check writes nothing")
			}
			if len(args) == 0 {
				if write {
					return usageErrorf("-w needs files to rewrite; without files, fmt formats the standard input to the standard output")
				}
				src, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return fmt.Errorf("reading the standard input: %v", err)
				}
				return fmtFiles([]fmtFile{{name: stdinName, src: src}}, write, check, stdout, stderr)
			}
			paths, err := pwrFiles(args)
			if err != nil {
				return err
			}
			files := make([]fmtFile, 0, len(paths))
			for _, p := range paths {
				files = append(files, fmtFile{name: p})
			}
			return fmtFiles(files, write, check, stdout, stderr)
		}),
	}
	cmd.Flags().BoolVarP(&write, "write", "w", false, "rewrite the files whose formatting changes, atomically, instead of printing them")
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; list the files whose formatting would change and exit 1 if any would")
	return cmd
}

// fmtFile is a file to format; src is read from name when nil.
type fmtFile struct {
	name string
	src  []byte
}

// fmtFiles formats files: to stdout, in place (write) or not at all
// (check). Every file is done even after one fails; the command then
// exits 1, as it does under check when a file would change.
func fmtFiles(files []fmtFile, write, check bool, stdout, stderr io.Writer) error {
	failed := false
	for _, f := range files {
		src := f.src
		if src == nil {
			b, err := os.ReadFile(f.name)
			if err != nil {
				fmt.Fprintf(stderr, "pwrc: %s: %v\n", f.name, bare(err))
				failed = true
				continue
			}
			src = b
		}
		out, err := lang.Format(f.name, src)
		if err != nil {
			var diags lang.Diagnostics
			if errors.As(err, &diags) {
				if werr := diags.Write(stderr, lang.Sources{f.name: src}); werr != nil {
					return werr
				}
				fmt.Fprintf(stderr, "%s: not formatted: it does not parse\n", f.name)
			} else {
				fmt.Fprintf(stderr, "pwrc: %v\n", err)
			}
			failed = true
			continue
		}
		changed := !bytes.Equal(out, src)
		switch {
		case check:
			if changed {
				fmt.Fprintln(stdout, f.name)
				failed = true
			}
		case write:
			if changed {
				if err := writeFormatted(f.name, out); err != nil {
					fmt.Fprintf(stderr, "pwrc: %s: %v\n", f.name, err)
					failed = true
				}
			}
		default:
			if _, err := stdout.Write(out); err != nil {
				return err
			}
		}
	}
	if failed {
		return exitError{exitFailure, nil}
	}
	return nil
}

// writeFormatted replaces the file at path (the file a symbolic link
// points to, for a link) with data atomically, keeping its permissions:
// an interrupted write leaves the old file whole.
func writeFormatted(path string, data []byte) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return bare(err)
	}
	info, err := os.Stat(target)
	if err != nil {
		return bare(err)
	}
	if err := renameio.WriteFile(target, data, info.Mode().Perm()); err != nil {
		return bare(err)
	}
	return nil
}

// pwrFiles expands the command line's arguments into files: a file stands
// for itself, whatever its name; a directory for the .pwr files under it,
// in lexical order, hidden directories (.git) aside.
func pwrFiles(args []string) ([]string, error) {
	var out []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, exitError{exitFailure, fmt.Errorf("%s: %v", arg, bare(err))}
		}
		if !info.IsDir() {
			out = append(out, arg)
			continue
		}
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != arg && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), ".pwr") && d.Type().IsRegular() {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) { // the path it names, once
				err = fmt.Errorf("%s: %v", pe.Path, pe.Err)
			}
			return nil, exitError{exitFailure, err}
		}
	}
	return out, nil
}
