package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExportedNamesHaveDocComments parses every non-test Go file of the
// repository (the bench module included; testdata and hidden directories
// excluded) and reports each exported name without a doc comment. A name
// in a grouped declaration may rely on the group's comment; a field or a
// constant may have a line comment instead.
func TestExportedNamesHaveDocComments(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	pkgDoc := map[string]bool{} // directory -> some file has a package comment
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.Dir(rel)
		pkgDoc[dir] = pkgDoc[dir] || f.Doc != nil
		report := func(pos token.Pos, what string) {
			missing = append(missing, fmt.Sprintf("%s:%d: %s", rel, fset.Position(pos).Line, what))
		}
		checkFile(f, report)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range pkgDoc {
		if !ok {
			missing = append(missing, dir+": package has no package comment")
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Error(m)
	}
}

// checkFile reports the exported names of f without a doc comment.
func checkFile(f *ast.File, report func(token.Pos, string)) {
	exportedTypes := map[string]bool{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.IsExported() {
					exportedTypes[ts.Name.Name] = true
				}
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv != nil {
				recv := receiverType(d.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue // a method of an unexported type
				}
				report(d.Pos(), "method "+recv+"."+d.Name.Name)
				continue
			}
			report(d.Pos(), "func "+d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					if s.Doc == nil && d.Doc == nil {
						report(s.Pos(), "type "+s.Name.Name)
					}
					checkMembers(s, report)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
							report(n.Pos(), d.Tok.String()+" "+n.Name)
						}
					}
				}
			}
		}
	}
}

// checkMembers reports the methods of an interface type without a doc or
// line comment. Struct fields are not checked: as golint and revive have
// it, a struct's doc comment may describe its fields.
func checkMembers(s *ast.TypeSpec, report func(token.Pos, string)) {
	it, ok := s.Type.(*ast.InterfaceType)
	if !ok {
		return
	}
	for _, fld := range it.Methods.List {
		if fld.Doc != nil || fld.Comment != nil {
			continue
		}
		for _, n := range fld.Names {
			if n.IsExported() {
				report(n.Pos(), "member "+s.Name.Name+"."+n.Name)
			}
		}
	}
}

// receiverType returns the name of a method's receiver type.
func receiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// TestCheckFile runs the checker on a file with documented and
// undocumented names of every kind.
func TestCheckFile(t *testing.T) {
	src := `package p

// Documented is documented.
func Documented() {}

func Bare() {}

func unexported() {}

// T is documented.
type T struct{ Field int }

func (T) Method() {}

type u struct{}

func (u) Method() {}

type Iface interface {
	// Doc is documented.
	Doc()
	Bare()
}

// Group documents its constants.
const (
	A = 1
	B = 2
)

const C = 3

var (
	// D is documented.
	D = 4
	E = 5 // E has a line comment.
	F = 6
)
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	checkFile(f, func(pos token.Pos, what string) { got = append(got, what) })
	want := []string{"func Bare", "method T.Method", "type Iface", "member Iface.Bare", "const C", "var F"}
	if !slices.Equal(got, want) {
		t.Errorf("reported %q, want %q", got, want)
	}
}
