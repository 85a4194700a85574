package alloc

import (
	"fmt"
	"math"
)

// Level is one kind of grouping of nodes (chassis, rack…) and how many
// nodes each of its instances holds.
type Level struct {
	Name string
	Size int // nodes per instance
}

// Geometry places nodes 0..Nodes-1 in levels: node i belongs to instance
// ⌊i / Size⌋ of each level. Levels are listed lowest first; each size is a
// multiple of the one below, so every instance of a level lies inside one
// instance of each level above, and every size divides Nodes, so all
// instances are whole (DESIGN §4.3, patil.md §1.5).
type Geometry struct {
	Nodes  int
	Levels []Level
}

// GeometryErrorKind says which rule of Validate a geometry breaks.
type GeometryErrorKind uint8

const (
	// BadNodes: Nodes is below 1 or beyond int32 ids.
	BadNodes GeometryErrorKind = iota + 1
	// BadSize: a level's Size is below 1.
	BadSize
	// NotMultiple: a level's Size is not a multiple of the level below's.
	NotMultiple
	// NotDividing: a level's Size does not divide Nodes.
	NotDividing
)

// GeometryError is what Validate returns, with the numbers a diagnostic
// needs to point at the fix (e.g. "remainder 10").
type GeometryError struct {
	Kind      GeometryErrorKind
	Level     int    // index of the offending level; -1 for BadNodes
	Name      string // its name
	Size      int    // its size in nodes (Nodes for BadNodes)
	Of        int    // NotMultiple: the size of the level below; NotDividing: Nodes
	OfName    string // NotMultiple: the name of the level below
	Remainder int    // NotMultiple: Size % Of; NotDividing: Nodes % Size
}

func (e *GeometryError) Error() string {
	switch e.Kind {
	case BadNodes:
		return fmt.Sprintf("a machine needs 1 to %d nodes, not %d", math.MaxInt32, e.Size)
	case BadSize:
		return fmt.Sprintf("level %q has size %d; it needs at least 1 node", e.Name, e.Size)
	case NotMultiple:
		return fmt.Sprintf("level %q (%d nodes) is not a multiple of level %q (%d nodes): remainder %d",
			e.Name, e.Size, e.OfName, e.Of, e.Remainder)
	case NotDividing:
		return fmt.Sprintf("level %q (%d nodes) does not divide the %d nodes: remainder %d",
			e.Name, e.Size, e.Of, e.Remainder)
	}
	return "invalid geometry"
}

// Validate reports the first broken rule, lowest level first: Nodes in
// 1..MaxInt32 (ids are int32), each Size >= 1 and a multiple of the Size
// below, and Nodes a multiple of each Size. Names are not checked (the
// compiler owns them).
func (g Geometry) Validate() error {
	if g.Nodes < 1 || g.Nodes > math.MaxInt32 {
		return &GeometryError{Kind: BadNodes, Level: -1, Size: g.Nodes}
	}
	for l, lv := range g.Levels {
		e := &GeometryError{Level: l, Name: lv.Name, Size: lv.Size}
		switch {
		case lv.Size < 1:
			e.Kind = BadSize
		case l > 0 && lv.Size%g.Levels[l-1].Size != 0:
			e.Kind, e.Of, e.OfName = NotMultiple, g.Levels[l-1].Size, g.Levels[l-1].Name
			e.Remainder = lv.Size % e.Of
		case g.Nodes%lv.Size != 0:
			e.Kind, e.Of, e.Remainder = NotDividing, g.Nodes, g.Nodes%lv.Size
		default:
			continue
		}
		return e
	}
	return nil
}

// Instance is the instance of level that holds node.
func (g Geometry) Instance(level, node int) int { return node / g.Levels[level].Size }

// Instances is how many instances level has.
func (g Geometry) Instances(level int) int { return g.Nodes / g.Levels[level].Size }

// Level returns the index of the level called name, or -1.
func (g Geometry) Level(name string) int {
	for l, lv := range g.Levels {
		if lv.Name == name {
			return l
		}
	}
	return -1
}
