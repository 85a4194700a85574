package workload

// NameField is one of the columns of Slurm accounting that hold names:
// the user, group, account, partition and QOS of a job.
type NameField uint8

// Name fields, in the order of Names.
const (
	NameUser NameField = iota
	NameGroup
	NameAccount
	NamePartition
	NameQOS
	NumNameFields
)

// NameFieldKeys are the name fields as pwrc's outputs and rules call them
// (job.user, the `user` column of a --jobs file, ...), by NameField.
var NameFieldKeys = [NumNameFields]string{"user", "group", "account", "partition", "qos"}

// Names are the names behind the numbers of a Slurm trace's jobs: the job
// field f numbered n (n ≥ 1) is Names[f][n-1]. Numbers are given in order of
// first appearance on a job line, from 1; an empty field is -1.
type Names [NumNameFields][]string

// Name returns the name numbered id in field f, or "" when there is none
// (an empty field, -1; or an id out of range).
func (n *Names) Name(f NameField, id int) string {
	if n == nil || f >= NumNameFields || id < 1 || id > len(n[f]) {
		return ""
	}
	return n[f][id-1]
}

// ID returns the number of name in field f: -1 for "" (an empty field), 0
// when the trace has no such name.
func (n *Names) ID(f NameField, name string) int {
	if name == "" {
		return -1
	}
	if n == nil || f >= NumNameFields {
		return 0
	}
	for i, s := range n[f] {
		if s == name {
			return i + 1
		}
	}
	return 0
}
