// Command miles-ci selects, shards and runs the Miles CI test suites.
package main

import (
	"os"

	"github.com/radixark/miles-ci/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.SystemFactory()))
}
