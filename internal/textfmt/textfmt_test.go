package textfmt

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestColumns_AlignsOnTheWidestName(t *testing.T) {
	assert.Equal(t, "  a    one\n  bbb  two\n", Columns([]Row{{"a", "one"}, {"bbb", "two"}}, "  "))
	assert.Equal(t, "", Columns(nil, "  "))
}
