// Command floor is the least any tool reading the Miles test files must do:
// list the four discovery roots and open, read and close every test_*.py
// below them, without checking a byte. .ci/bench-miles --floor runs it next
// to miles-ci, so that the CPU miles-ci spends on top of the system calls it
// cannot avoid is measured, not guessed. With --version it only prints, as
// the start-up cost of a Go program.
package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println("floor")
		return
	}
	var files []string
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			switch {
			case strings.HasPrefix(name, "."):
			case e.IsDir():
				walk(dir + "/" + name)
			case strings.HasPrefix(name, "test_") && strings.HasSuffix(name, ".py"):
				files = append(files, dir+"/"+name)
			}
		}
	}
	for _, root := range []string{"tests/fast", "tests/fast-gpu", "tests/e2e", "tests/ci"} {
		walk(root)
	}
	buf := make([]byte, 64<<10)
	total := 0
	for _, f := range files {
		fd, err := syscall.Open(f, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		for {
			n, err := syscall.Read(fd, buf)
			if n <= 0 || err != nil {
				break
			}
			total += n
		}
		syscall.Close(fd)
	}
	fmt.Println(len(files), "files,", total, "bytes")
}
