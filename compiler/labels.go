package compiler

import (
	"path/filepath"

	"github.com/pwrc/pwrc/lang"
)

// Labels. A value of a swept list may be named, `NAME = VALUE`, as
// `param NAME = VALUE` and `baseline NAME = VALUE` name values: the label
// then names the value in run names, tables, JSON and the files of
// `--jobs`, in place of its text. Two files of the same base name can so
// be compared: `workload swf [site_a = "a/trace.swf", site_b = "b/trace.swf"]`.

// item returns the value of one item of a swept list, `VALUE` or `NAME =
// VALUE`, and records its label; ok is false for an item of another
// shape (badItem says why).
func (c *compiler) item(it []lang.Value) (lang.Value, bool) {
	v, label, ok := splitItem(it)
	if ok && label != nil {
		c.labels[v] = label
	}
	return v, ok
}

// splitItem splits a list item into its value and its label (nil when it
// has none).
func splitItem(it []lang.Value) (v lang.Value, label *lang.Ident, ok bool) {
	switch {
	case len(it) == 1:
		return it[0], nil, true
	case len(it) == 3 && isEquals(it[1]):
		if id, isID := it[0].(*lang.Ident); isID {
			return it[2], id, true
		}
	}
	return nil, nil, false
}

func isEquals(v lang.Value) bool {
	op, ok := v.(*lang.Op)
	return ok && op.Op == "="
}

// items returns the values of a list's well-formed items, recording their
// labels.
func (c *compiler) items(l *lang.List) []lang.Value {
	var out []lang.Value
	for _, it := range l.Items {
		if v, ok := c.item(it); ok {
			out = append(out, v)
		}
	}
	return out
}

// badItem reports a list item that is neither a value nor `NAME = VALUE`.
// what is the summary for an item of several values, example a list of
// the kind ("[64, 128]").
func (c *compiler) badItem(it []lang.Value, what, example string) {
	r := it[0].Range().Cover(it[len(it)-1].Range())
	switch {
	case len(it) >= 2 && isEquals(it[1]):
		if _, isID := it[0].(*lang.Ident); !isID {
			c.diags.Errorf(it[0].Range(), "a label is a name, not %s", describeValue(it[0])).
				With("Write `NAME = VALUE`, e.g. `[site_a = \"a/trace.swf\", site_b = \"b/trace.swf\"]`.")
			return
		}
		if len(it) == 2 {
			c.diags.Errorf(r, "the label `%s` needs a value after `=`", it[0].Text()).
				With("Write `%s = VALUE`.", it[0].Text())
			return
		}
		c.diags.Errorf(it[3].Range().Cover(it[len(it)-1].Range()), "unexpected `%s` after `%s = %s`", it[3].Text(), it[0].Text(), it[2].Text()).
			With("A labelled value is `NAME = VALUE`; separate values with commas: `%s`.", example)
		return
	}
	c.diags.Errorf(r, "%s", what).
		With("Separate values with commas: `%s`; to name a value, write `NAME = VALUE`.", example)
}

// valueName is how a swept value is named in run names, tables and file
// names: its label, or else its text (valueText).
func (c *compiler) valueName(v lang.Value) string {
	if l := c.labels[v]; l != nil {
		return l.Name
	}
	return valueText(v)
}

// labelAt is where a swept value is named: its label, or the value.
func (c *compiler) labelAt(v lang.Value) lang.Range {
	if l := c.labels[v]; l != nil {
		return l.R
	}
	return v.Range()
}

func isIdent(v lang.Value) bool { _, ok := v.(*lang.Ident); return ok }

// sameName reports two values of a sweep that name runs alike.
func (c *compiler) sameName(dm *dim, prev, v lang.Value, name string) {
	lp, lv := c.labels[prev], c.labels[v]
	if lp != nil && lv != nil && lp.Name == lv.Name {
		c.diags.Errorf(lv.R, "the label `%s` is given twice in the sweep of `%s`", lv.Name, dm.name).
			With("Each value of a sweep needs its own label: it names the value's runs, table rows and files.").
			Note(lp.R, "first given here")
		return
	}
	d := c.diags.Errorf(c.labelAt(v), "swept values %s and %s both name runs `%s`", describeItem(prev, lp), describeItem(v, lv), name).
		Note(c.labelAt(prev), "the first one")
	if lp == nil && lv == nil {
		a, b := suggestLabel(prev, "a"), suggestLabel(v, "b")
		if a == b {
			a, b = "a", "b"
		}
		d.With("Each value of a sweep must have its own name; for files, the base name without .swf, .gz or .csv counts. Label the values to tell them apart: `[%s = %s, %s = %s]`.", a, prev.Text(), b, v.Text())
	} else {
		d.With("Each value of a sweep must have its own name: a label, or else the value's text (for files, the base name without .swf, .gz or .csv); give them different labels.")
	}
}

// describeItem shows a swept value as written, with its label.
func describeItem(v lang.Value, label *lang.Ident) string {
	if label != nil {
		return "`" + label.Name + " = " + v.Text() + "`"
	}
	return v.Text()
}

// suggestLabel proposes a label for a value in a message: the directory a
// file is in, when it is a word (`site_a` for "site_a/trace.swf"), or else
// def.
func suggestLabel(v lang.Value, def string) string {
	if s, ok := v.(*lang.String); ok {
		if dir := filepath.Base(filepath.Dir(s.Value)); isWord(dir) && !isKeyword(dir) {
			return dir
		}
	}
	return def
}
