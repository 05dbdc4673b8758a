package ghactions

// InJob reports whether the environment is a GitHub Actions job's:
// GITHUB_ACTIONS is "true" exactly and GITHUB_RUN_ID is set, as the
// runner sets both for every step (inside a job's container too).
// GITHUB_ACTIONS alone is what asks for the workflow commands, and what a
// developer or a test harness sets to see them (the Python scripts'
// recorded cases run GPU suites so, on machines without a GPU); what only
// a real job may demand of its host, such as a GPU tool on PATH, asks for
// both.
func InJob(getenv func(string) string) bool {
	return getenv("GITHUB_ACTIONS") == "true" && getenv("GITHUB_RUN_ID") != ""
}
