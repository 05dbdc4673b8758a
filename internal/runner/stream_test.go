package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStream_DropsWritesOnceTheReaderLeft(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	s := NewStream(w)
	_, err = s.Write([]byte("first\n"))
	require.NoError(t, err)
	require.NoError(t, r.Close())
	for i := 0; i < 2; i++ {
		n, err := s.Write([]byte("into the void\n"))
		require.NoError(t, err)
		assert.Equal(t, len("into the void\n"), n)
	}
	assert.True(t, s.Gone())
}

// When stdout and stderr are one pipe (2>&1) that the child cannot be given
// itself, the child's two streams share one pipe of ours and keep their
// order, as they did when it wrote to the pipe directly.
func TestRun_ChildStreamsSharingOurPipeKeepTheirOrder(t *testing.T) {
	src := "i=0\nwhile [ $i -lt 50 ]; do\n    echo \"out $i\"\n    echo \"err $i\" >&2\n    i=$((i + 1))\ndone\n"
	root := repo(t, map[string]string{"both.py": src})
	r, w, err := os.Pipe()
	require.NoError(t, err)
	got := make(chan []byte)
	go func() { data, _ := io.ReadAll(r); got <- data }()
	s := NewStream(w)
	var buf bytes.Buffer
	opts, _ := baseOptions(root, &buf)
	opts.Out, opts.ErrOut = s, s
	rep := Run(context.Background(), []File{{"both.py", 1}}, opts)
	require.NoError(t, w.Close())
	out := string(<-got)
	require.True(t, rep.Passed(), out)
	var want strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	assert.Contains(t, out, want.String())
}
