package lint

// The yaml rule: a workflow GitHub Actions would refuse to read. Its
// findings come from reading the workflows (workflow.go: readWorkflows and
// parse), since a file that cannot be read has nothing else to check, and
// a job that is not a mapping, or a workflow with no on: key, is found
// while its jobs are read.

// RuleYAML names a workflow that cannot be read or has a shape GitHub
// Actions refuses.
const RuleYAML = "yaml"

var _ = register(Rule{Name: RuleYAML, Severity: Error,
	Summary: "a workflow cannot be read, is not valid YAML, or has a shape GitHub Actions refuses"})
