// Package alloc chooses node identities: which free nodes a starting job
// gets (Pickers), which idle nodes go off and which off nodes boot
// (Sleeper). It is a pure kernel over a State the caller keeps in step
// with the machine; it imports nothing from pwrc, so it is table- and
// property-tested alone.
//
// Nodes are numbered 0..N-1 and grouped into levels (chassis, rack…),
// lowest first: node i is in instance ⌊i / Size⌋ of a level (Geometry).
// A node is Idle, Off, Busy (held by a job, running it or booting for
// it), Booting or ShuttingDown; free means Idle or Off, the nodes a job
// may take now. An instance is utilized while a node in it is Busy
// (patil.md §1.2) and on while a node in it is not Off (DESIGN §4.3).
//
// Allocators (patil.md §1.5; on identical nodes Maui's five policies
// reduce to two mirror images):
//
//   - first_available, max_balance, fastest: lowest-numbered free nodes;
//   - last_available, min_resource, cpu_load: highest-numbered free nodes;
//   - rack_aware: Patil & Chaudhary §VI with patil.md §1.4's ties, see
//     RackAware.
//
// Mirror property: with equal instances and a schedule that placement
// does not change, first_available's and last_available's busy sets are
// mirror images (i ↦ N−1−i) at every instant, so they keep the same
// number of instances utilized and on; the Maui policies therefore give
// identical level figures in pwrc.
//
// The Sleeper's rules are documented on ToSwitchOff and ToBoot.
//
// Cost: the State's updates are O(levels) per node changed plus O(log)
// per key-level instance a job touches; picks are O(nodes taken + words
// scanned), rack_aware adds a sort of the partly busy instances. Nothing
// allocates once the caller's dst slices and the scratch have grown.
package alloc
