package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUniqueInOrder_KeepsFirstOccurrences(t *testing.T) {
	assert.Equal(t, []string{"b", "a", ""}, UniqueInOrder([]string{"b", "a", "b", "", "a", ""}))
	assert.Equal(t, []string{}, UniqueInOrder(nil))
}
