package pyfmt

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type keysDoc struct {
	Status string                     `json:"status"`
	Files  []keysFile                 `json:"files"`
	Times  map[string]json.RawMessage `json:"timings"`
	N      *int                       `json:"n"`
}

type keysFile struct {
	File string `json:"file"`
}

func TestUnmarshalExact_KeysMatchOnlyAsSpelled(t *testing.T) {
	var d keysDoc
	require.NoError(t, UnmarshalExact([]byte(`{"STATUS": "FAIL", "Files": [{"file": "x"}], "Timings": {"a": 1}, "N": 3}`), &d))
	assert.Equal(t, keysDoc{}, d, "no key is spelled as a field: nothing is read")

	d = keysDoc{}
	require.NoError(t, UnmarshalExact([]byte(`{"status": "PASS", "STATUS": "FAIL", "files": [{"FILE": "y", "file": "x"}], "timings": {"A.py": 1e999, "a.py": 2}}`), &d))
	assert.Equal(t, "PASS", d.Status, "the exact key wins whatever the order")
	assert.Equal(t, []keysFile{{File: "x"}}, d.Files, "nested objects too")
	assert.Equal(t, map[string]json.RawMessage{"A.py": json.RawMessage("1e999"), "a.py": json.RawMessage("2")}, d.Times, "map keys are names, kept as they are; numbers digit for digit")
}

func TestUnmarshalExact_ErrorsAreEncodingJSONs(t *testing.T) {
	var d keysDoc
	for _, doc := range []string{`{"status": 1}`, `{"status": "a"`, `[1]`, `{"files": {}}`, `{"STATUS": 1, "n": "x"}`} {
		want := json.Unmarshal([]byte(doc), &keysDoc{})
		if doc == `{"STATUS": 1, "n": "x"}` {
			want = json.Unmarshal([]byte(`{"n": "x"}`), &keysDoc{})
		}
		got := UnmarshalExact([]byte(doc), &d)
		require.Error(t, got, doc)
		assert.Equal(t, want.Error(), got.Error(), doc)
	}
}
