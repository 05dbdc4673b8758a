package registry

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

func TestRegistrationJSON_KeysAndValuesOfTheSpec(t *testing.T) {
	reason := "flaky <on> H100 & \"B200\""
	r := Registration{File: "tests/e2e/test_a.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		EstTime: 600, Labels: []string{"megatron", "megatron"}, Nightly: true, Disabled: &reason, Line: 7}
	got, err := r.MarshalJSON() // encoding/json would add HTML escapes; the commands turn them off

	require.NoError(t, err)
	assert.Equal(t, `{"file":"tests/e2e/test_a.py","backend":"cuda","suite":"stage-c-8-gpu-h100","est_time":600,`+
		`"labels":["megatron","megatron"],"nightly":true,"disabled":"flaky <on> H100 & \"B200\"","implicit":false}`, string(got))
}

func TestRegistrationJSON_NilLabelsAreAnEmptyList(t *testing.T) {
	got, err := json.Marshal(Registration{File: "f", Backend: config.CPU, Suite: "s", EstTime: 1, Implicit: true})
	require.NoError(t, err)
	assert.Contains(t, string(got), `"labels":[]`)
	assert.Contains(t, string(got), `"disabled":null,"implicit":true`)
}

func TestRegistrationJSON_InfiniteEstTimeStaysValidJSON(t *testing.T) {
	got, err := json.Marshal([]Registration{{File: "f", Backend: config.CPU, Suite: "s", EstTime: math.Inf(1)}})
	require.NoError(t, err, "an est_time of 1e999 must not fail the command")
	assert.Contains(t, string(got), `"est_time":1e999`)
}
