package ghactions

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInJob_NeedsGitHubActionsTrueAndARunID(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "1658821493"}, true},
		{map[string]string{"GITHUB_ACTIONS": "true"}, false},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": ""}, false},
		{map[string]string{"GITHUB_ACTIONS": "1", "GITHUB_RUN_ID": "1658821493"}, false},
		{map[string]string{"GITHUB_RUN_ID": "1658821493"}, false},
	} {
		assert.Equal(t, tc.want, InJob(func(k string) string { return tc.env[k] }), "%v", tc.env)
	}
}
