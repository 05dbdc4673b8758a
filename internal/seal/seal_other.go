//go:build !unix

package seal

import (
	"fmt"
	"os"
)

// Exec cannot replace the process here.
func Exec(argv, env []string, name, secret string) error { return ErrUnsupported }

// Receive finds nothing to read here: Exec passes nothing. A variable name
// set by someone else is unset and refused.
func Receive(name string) (secret string, ok bool, err error) {
	if _, ok := os.LookupEnv(name); !ok {
		return "", false, nil
	}
	os.Unsetenv(name)
	return "", true, fmt.Errorf("%s: %w", name, ErrUnsupported)
}
