package registry

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pysrc"
)

// MaxFileSize is the largest test file Collect reads. A Python test file of
// this size is not a test anyone wrote by hand; refusing it with an error
// naming it keeps memory bounded (each worker holds at most one file) and
// keeps a stray data file named test_*.py from passing silently.
const MaxFileSize = 16 << 20

// readBufSize is the size of each worker's read buffer: test files are a
// few kilobytes, so nearly every one is read with a single system call.
const readBufSize = 64 << 10

// bigFileBudget bounds the bytes of the files larger than readBufSize that
// the workers hold at once, from their read to the end of their parse
// (whose memory grows with the file): one file at the size limit, so such
// files wait for each other, while those of a few hundred kilobytes still go
// side by side. Without it memory grew with the number of cores times the
// file size: 8 files of 16 MiB at 8 cores took 129 MiB of heap (one core:
// 32 MiB), and 4 GB when each holds a million registrations (one core:
// 1.8 GB).
const bigFileBudget = MaxFileSize + 1

// byteBudget is a count of bytes the workers take from and give back,
// waiting while too few are left.
type byteBudget struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int64
}

func newByteBudget(n int64) *byteBudget {
	b := &byteBudget{free: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *byteBudget) acquire(n int64) {
	b.mu.Lock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
}

func (b *byteBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// Collect discovers every test file below the configured roots of the
// repository at root and reads its registrations. A failing file makes the
// whole collection fail: the error is an Errors listing every failing file
// in discovery order, so the first is the one the Python collector raises.
//
// Files are read and parsed by GOMAXPROCS workers; the registrations and
// errors come out in discovery order whatever the scheduling.
func Collect(root string, cfg *config.Config) (*Registry, error) {
	files, kinds, err := discover(root, cfg)
	if err != nil {
		return nil, err
	}
	return collectListed(root, files, kinds, cfg)
}

// CollectFiles reads the registrations of files, repository-relative paths
// below root listed in the order the Python collector would read them, and
// applies every rule Collect applies to the files it discovers. A path in
// notRegular (a device, FIFO or socket) is read as an empty file without
// being opened, as Collect reads one it discovers. It serves a discovery
// other than Discover's (file-run walks the tree its own way).
func CollectFiles(root string, files []string, notRegular map[string]bool, cfg *config.Config) (*Registry, error) {
	var kinds map[string]entryKind
	for f := range notRegular {
		if kinds == nil {
			kinds = make(map[string]entryKind, len(notRegular))
		}
		kinds[f] = entrySpecial
	}
	return collectListed(root, files, kinds, cfg)
}

// collectListed reads and checks the listed files of one collection.
func collectListed(root string, files []string, kinds map[string]entryKind, cfg *config.Config) (*Registry, error) {
	names := make(map[string]bool, len(cfg.RegisterFuncs))
	for _, f := range cfg.RegisterFuncs {
		names[f.Name] = true
	}

	type result struct {
		regs []Registration
		err  *FileError
	}
	results := make([]result, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	budget := newByteBudget(bigFileBudget)
	workers := min(runtime.GOMAXPROCS(0), len(files))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				var regs []Registration
				ferr := nameError(files[i])
				switch kind := kinds[files[i]]; {
				case ferr != nil: // refused by its name alone, never read
				case kind == entryFile:
					buf, regs, ferr = collectFile(root, files[i], cfg, names, buf, budget)
				case kind == entryDir:
					ferr = &FileError{File: files[i], Msg: files[i] + ": is a directory, not a test file"}
				case kind == entrySpecial:
					// Never opened (a FIFO would block): read as empty.
					regs, ferr = FileRegistrations(files[i], nil, cfg, names)
				}
				if cap(buf) > max(1<<20, readBufSize) {
					// Keep a worker's memory small after a rare big file.
					buf = nil
				}
				results[i] = result{regs: regs, err: ferr}
			}
		}()
	}
	wg.Wait()

	var errs Errors
	n := 0
	for _, r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
		}
		n += len(r.regs)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	reg := &Registry{Files: files, Registrations: make([]Registration, 0, n)}
	for _, r := range results {
		reg.Registrations = append(reg.Registrations, r.regs...)
	}
	return reg, nil
}

// collectFile reads one test file into buf (grown as needed and returned
// for reuse) and applies every rule to it. A file larger than buf is read
// and parsed within budget.
func collectFile(root, file string, cfg *config.Config, names map[string]bool, buf []byte, budget *byteBudget) ([]byte, []Registration, *FileError) {
	src, held, err := readFile(filepath.Join(root, filepath.FromSlash(file)), buf, budget)
	defer budget.release(held)
	if src != nil {
		buf = src[:0]
	}
	if err != nil {
		return buf, nil, &FileError{File: file, Msg: file + ": " + err.Error()}
	}
	regs, ferr := FileRegistrations(file, src, cfg, names)
	return buf, regs, ferr
}

// readCalls is the Python source reader; tests replace it to exercise the
// collection machinery independently of the reader.
var readCalls = pysrc.ReadCalls

// syntaxMessage is "invalid syntax: " and the parser's message, which is
// said once when it is itself "invalid syntax" or starts with it.
func syntaxMessage(msg string) string {
	const prefix = "invalid syntax"
	if msg == prefix || strings.HasPrefix(msg, prefix+" ") || strings.HasPrefix(msg, prefix+".") {
		return msg
	}
	return prefix + ": " + msg
}

// FileRegistrations applies the argument rules and per-file rules to the
// text of one test file; file is its repository-relative path. names are
// the register function names to look for (nil: those of cfg).
func FileRegistrations(file string, src []byte, cfg *config.Config, names map[string]bool) ([]Registration, *FileError) {
	if names == nil {
		names = make(map[string]bool, len(cfg.RegisterFuncs))
		for _, f := range cfg.RegisterFuncs {
			names[f.Name] = true
		}
	}
	calls, err := readCalls(src, names)
	if err != nil {
		var se *pysrc.SyntaxError
		if errors.As(err, &se) {
			return nil, &FileError{File: file, Line: se.Line, Msg: fmt.Sprintf("%s:%d: %s", file, se.Line, syntaxMessage(se.Msg))}
		}
		return nil, &FileError{File: file, Msg: fmt.Sprintf("%s: cannot read the file's Python source: %v", file, err)}
	}
	return checkCalls(file, calls, src, cfg)
}

// checkCalls turns the register calls of one file into its registrations.
func checkCalls(file string, calls []pysrc.Call, src []byte, cfg *config.Config) ([]Registration, *FileError) {
	c := &callChecker{cfg: cfg, file: file}
	var regs []Registration
	for _, call := range calls {
		r, err := c.check(call)
		if err != nil {
			return nil, err
		}
		regs = append(regs, r)
	}
	return c.fileRules(regs, src)
}
