// Package codeshape holds a test of the repository's shape: no non-test Go
// file over MaxFileLines lines and no function over MaxFuncLines lines
// unless its comment says why (issue 21: a newcomer reads one concern in
// one place).
package codeshape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	// MaxFileLines is the most lines a non-test Go file may have: past
	// it a file holds more than one concern.
	MaxFileLines = 500
	// MaxFuncLines is the most lines a function may have without a
	// reason in its doc comment.
	MaxFuncLines = 80
	// reason is the phrase a long function's doc comment uses to say why
	// it stays whole.
	reason = "One function on purpose"
)

func TestShape(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "build" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(src), "\n"); n > MaxFileLines {
			t.Errorf("%s: %d lines, more than %d: split it by concern", rel, n, MaxFileLines)
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n <= MaxFuncLines || fd.Doc != nil && strings.Contains(fd.Doc.Text(), reason) {
				continue
			}
			t.Errorf("%s: %s is %d lines, more than %d: split it, or say why not in its comment (%q)", rel, fd.Name.Name, n, MaxFuncLines, reason)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFuzzTargetsInMake: `make fuzz` runs every fuzz target in the tree
// (the Makefile names each as ./PKG:FuzzX), so a parser's fuzz test is not
// written and then forgotten.
func TestFuzzTargetsInMake(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "build" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		pkg, _ := filepath.Rel(root, filepath.Dir(path))
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Fuzz") {
				n++
				if want := "./" + filepath.ToSlash(pkg) + ":" + fd.Name.Name + " "; !strings.Contains(string(mk), want) && !strings.Contains(string(mk), strings.TrimSuffix(want, " ")+";") {
					t.Errorf("%s: make fuzz does not run %s (add %q to its list)", filepath.ToSlash(pkg), fd.Name.Name, strings.TrimSpace(want))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no fuzz target found: the walk is broken")
	}
}
