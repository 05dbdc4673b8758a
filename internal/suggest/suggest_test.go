package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"megatron", "megatorn", 2},
		{"megatron", "megatrn", 1},
		{"kitten", "sitting", 3},
		{"é", "e", 1}, // runes, not bytes
	} {
		assert.Equal(t, tc.want, Distance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		assert.Equal(t, tc.want, Distance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}

func TestClosest(t *testing.T) {
	suites := []string{"stage-a-cpu", "stage-b-cpu", "stage-c-8-gpu-h100", "stage-c-8-gpu-h200"}
	labels := []string{"amd", "ckpt", "eval", "fsdp", "megatron", "lora"}
	for _, tc := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"stage-c-8-gpu-h10", suites, "stage-c-8-gpu-h100"},
		{"stage-c-8-gpu-h300", suites, "stage-c-8-gpu-h100"}, // a tie: the first listed wins
		{"stage-a-cpus", suites, "stage-a-cpu"},
		{"megatorn", labels, "megatron"},
		{"fsdpp", labels, "fsdp"},
		{"lore", labels, "lora"},
		{"xyz", labels, ""}, // a short word is never stretched to an unrelated name
		{"ab", labels, ""},  // two letters allow no edit but one, and "amd" is 2 away
		{"totally-different", suites, ""},
		{"fsdp", labels, ""}, // already known
	} {
		got, ok := Closest(tc.word, tc.candidates)
		assert.Equal(t, tc.want, got, tc.word)
		assert.Equal(t, tc.want != "", ok, tc.word)
	}
}
