// Package stdlib embeds the standard .pwr modules: machine presets and
// tariffs from the papers pwrc reproduces, and the standard scheduling
// policies written in the language itself. A scenario imports a module as
// `import "std/NAME"`, which reads NAME.pwr from here.
package stdlib

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.pwr
var files embed.FS

// Prefix is the import path prefix of embedded modules.
const Prefix = "std/"

// Read returns the source of module "std/NAME".
func Read(importPath string) ([]byte, bool) {
	name, ok := strings.CutPrefix(importPath, Prefix)
	if !ok || strings.ContainsAny(name, "/\\.") {
		return nil, false
	}
	b, err := files.ReadFile(name + ".pwr")
	return b, err == nil
}

// Modules lists the import paths of all embedded modules, sorted.
func Modules() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".pwr"); ok {
			out = append(out, Prefix+n)
		}
	}
	sort.Strings(out)
	return out
}
