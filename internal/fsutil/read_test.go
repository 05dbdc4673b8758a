//go:build unix

package fsutil

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zeroLink := filepath.Join(dir, "zero")
	require.NoError(t, os.Symlink("/dev/zero", zeroLink))
	fileLink := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink("ten", fileLink))
	write("ten", "0123456789")

	for _, tc := range []struct {
		name, path string
		limit      int64
		want       string
		err        string
	}{
		{"a file within the cap", filepath.Join(dir, "ten"), 10, "0123456789", ""},
		{"an empty file", write("empty", ""), 10, "", ""},
		{"a link to a file", fileLink, 10, "0123456789", ""},
		{"a file over the cap", filepath.Join(dir, "ten"), 9, "", "is larger than 9 bytes"},
		{"a link to /dev/zero", zeroLink, 1 << 20, "", "is a character device, not a regular file"},
		{"a FIFO without a writer", fifo, 1 << 20, "", "is a FIFO, not a regular file"},
		{"a directory", dir, 1 << 20, "", "is a directory, not a regular file"},
		{"a missing file", filepath.Join(dir, "missing"), 10, "", "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = ReadRegular(tc.path, tc.limit)
				// OpenRegular answers alike, a piece at a time.
				f, openErr := OpenRegular(tc.path, tc.limit)
				if openErr != nil {
					assert.Equal(t, err, openErr)
					return
				}
				defer f.Close()
				piecewise, readErr := io.ReadAll(f)
				assert.NoError(t, readErr)
				assert.Equal(t, got, piecewise)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadRegular blocked")
			}
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

// A file that grows past the limit once opened is refused at the first
// read past it.
func TestOpenRegular_AFileGrownPastTheLimitIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grows")
	require.NoError(t, os.WriteFile(path, []byte("01234"), 0o644))
	f, err := OpenRegular(path, 10)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, os.WriteFile(path, []byte("0123456789a"), 0o644))
	_, err = io.ReadAll(f)
	assert.EqualError(t, err, (&TooLargeError{Limit: 10}).Error())
}

// A FIFO with a writer that keeps writing is refused as well, without
// reading what the writer sends.
func TestReadRegular_FIFOWithWriterIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	require.NoError(t, err)
	defer r.Close()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer w.Close()
	_, _ = w.Write([]byte(strings.Repeat("x", 100)))
	_, err = ReadRegular(fifo, 1<<20)
	var nr *NotRegularError
	require.ErrorAs(t, err, &nr)
	assert.Equal(t, "a FIFO", nr.Kind)
}

func TestFormatSize(t *testing.T) {
	assert.Equal(t, "4 MiB", FormatSize(4<<20))
	assert.Equal(t, "64 KiB", FormatSize(64<<10))
	assert.Equal(t, "1000 bytes", FormatSize(1000))
}
