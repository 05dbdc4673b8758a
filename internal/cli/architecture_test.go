package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/radixark/miles-ci/"

// deciding are the packages that decide: they take values and return
// values. None may reach, even through another package, a package that
// renders, writes GitHub Actions output, runs processes or wires commands.
var deciding = []string{"config", "pysrc", "registry", "policy", "prune", "suite", "shard", "timings", "hostcheck", "rename", "quarantine", "triage", "drain"}

// output are the packages that render, print or run: a deciding package
// never depends on one.
var output = []string{"cli", "view", "ghactions", "runner", "suiterun", "lint", "complete", "textfmt"}

// support are the other packages: formats, file handling and helpers that
// both sides use (argparse, pyfmt, report, fsutil), the job's start as the
// environment and /proc tell it (jobstart), the run history's stores and
// answers (history: reports and a database in, rows and figures out,
// nothing printed), the reference text
// (docs), the /rerun-test resolution (filerun, which reads the tree and
// writes outputs as file_run.py does), the handing of a secret to the
// process's next image through a pipe (seal) and the tests' own helpers. Every
// package of internal/ is in exactly one of the three lists, so a new one
// is placed on purpose.
var support = []string{"argparse", "buildinfo", "docs", "filerun", "flagkind", "fsutil", "ghapi", "history", "jobstart", "pyfmt", "report", "seal", "suggest", "testutil", "treegen"}

// goPackage is what the architecture tests read of one package: its
// imports within the module (tests excluded) and its exported top-level
// functions.
type goPackage struct {
	imports []string // "internal/x", sorted
	funcs   []string // exported functions without a receiver
}

// readPackages parses every non-test Go file of the module below ../.. .
func readPackages(t *testing.T) map[string]*goPackage {
	t.Helper()
	top, err := filepath.Abs("../..")
	require.NoError(t, err)
	pkgs := map[string]*goPackage{}
	fset := token.NewFileSet()
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(top, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(top, filepath.Dir(path))
			if err != nil {
				return err
			}
			p := pkgs[rel]
			if p == nil {
				p = &goPackage{}
				pkgs[rel] = p
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if name, ok := strings.CutPrefix(path, module); ok && !slices.Contains(p.imports, name) {
					p.imports = append(p.imports, name)
				}
			}
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() {
					p.funcs = append(p.funcs, fn.Name.Name)
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	for _, p := range pkgs {
		slices.Sort(p.imports)
	}
	return pkgs
}

// deps returns every module package pkg depends on, directly or not.
func deps(pkgs map[string]*goPackage, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, imp := range pkgs[p].imports {
			if !seen[imp] {
				seen[imp] = true
				walk(imp)
			}
		}
	}
	walk(pkg)
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func TestArchitecture_DecidingPackagesReachNoOutputPackage(t *testing.T) {
	pkgs := readPackages(t)
	for _, d := range deciding {
		name := "internal/" + d
		require.Contains(t, pkgs, name, "a deciding package is gone; update this list")
		for _, dep := range deps(pkgs, name) {
			assert.NotContains(t, output, strings.TrimPrefix(dep, "internal/"), "%s depends on %s", name, dep)
		}
	}
}

func TestArchitecture_MainImportsOnlyCLI(t *testing.T) {
	pkgs := readPackages(t)
	assert.Equal(t, []string{"internal/cli"}, pkgs["cmd/miles-ci"].imports)
}

func TestArchitecture_OneSelectPicksTests(t *testing.T) {
	var where []string
	for name, p := range readPackages(t) {
		if slices.Contains(p.funcs, "Select") {
			where = append(where, name)
		}
	}
	assert.Equal(t, []string{"internal/suite"}, where, "one function of the tree is called Select: the one that picks a stage job's tests")
}

func TestArchitecture_ImportsPointOneWay(t *testing.T) {
	pkgs := readPackages(t)
	for name := range pkgs {
		assert.NotContains(t, deps(pkgs, name), name, "%s depends on itself through an import cycle", name)
	}
	for name, p := range pkgs {
		if name != "cmd/miles-ci" {
			assert.NotContains(t, p.imports, "internal/cli", "%s imports the command package", name)
		}
	}
}

func TestArchitecture_EveryPackageIsPlaced(t *testing.T) {
	pkgs := readPackages(t)
	placed := map[string]int{}
	for _, list := range [][]string{deciding, output, support} {
		for _, name := range list {
			placed["internal/"+name]++
		}
	}
	for name := range pkgs {
		if strings.HasPrefix(name, "internal/") && strings.Count(name, "/") == 1 {
			assert.Equal(t, 1, placed[name], "%s must be in exactly one of deciding, output and support", name)
		}
	}
	for name := range placed {
		assert.Contains(t, pkgs, name, "%s is listed but is gone", name)
	}
}

// The timeout rule (a file may run 1.25 times its est_time) has one home,
// registry.TimeLimit: no other package writes the factor down.
func TestArchitecture_OneHomeForTheTimeoutRule(t *testing.T) {
	top, err := filepath.Abs("../..")
	require.NoError(t, err)
	var where []string
	fset := token.NewFileSet()
	require.NoError(t, filepath.WalkDir(filepath.Join(top, "internal"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.FLOAT {
				if v, err := strconv.ParseFloat(lit.Value, 64); err == nil && v == 1.25 {
					rel, _ := filepath.Rel(top, fset.Position(lit.Pos()).String())
					where = append(where, rel)
				}
			}
			return true
		})
		return nil
	}))
	require.Len(t, where, 1, "the factor 1.25 is written in %v", where)
	assert.Contains(t, where[0], filepath.Join("internal", "registry", "timeout.go"))
}
