// go-struct-tags prints, as JSON, the struct fields (Go type, json and protobuf tags) and the
// non-struct named types of the Go packages in the directories given as arguments. The protobuf
// capture (capture-k8s-proto.ts) joins this with generated.proto to learn each proto field's JSON
// name, omitempty/omitzero, inlining and pointer-ness. Standard library only: `go run` this file.
package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

type field struct {
	Name      string `json:"name"`
	Anonymous bool   `json:"anonymous,omitempty"`
	Type      string `json:"type"`
	JSON      string `json:"json,omitempty"`
	Protobuf  string `json:"protobuf,omitempty"`
}

type pkg struct {
	Structs map[string][]field `json:"structs"`
	Types   map[string]string  `json:"types"`
}

func main() {
	out := map[string]pkg{}
	for _, dir := range os.Args[1:] {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			panic(err)
		}
		p := pkg{Structs: map[string][]field{}, Types: map[string]string{}}
		names := make([]string, 0, len(pkgs))
		for name := range pkgs {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, file := range pkgs[name].Files {
				for _, decl := range file.Decls {
					gen, ok := decl.(*ast.GenDecl)
					if !ok || gen.Tok != token.TYPE {
						continue
					}
					for _, spec := range gen.Specs {
						ts := spec.(*ast.TypeSpec)
						st, ok := ts.Type.(*ast.StructType)
						if !ok {
							p.Types[ts.Name.Name] = types.ExprString(ts.Type)
							continue
						}
						fields := []field{}
						for _, f := range st.Fields.List {
							tag := reflect.StructTag("")
							if f.Tag != nil {
								s, _ := strconv.Unquote(f.Tag.Value)
								tag = reflect.StructTag(s)
							}
							typ := types.ExprString(f.Type)
							j, _ := tag.Lookup("json")
							pb, _ := tag.Lookup("protobuf")
							if len(f.Names) == 0 {
								n := typ
								if i := strings.LastIndex(n, "."); i >= 0 {
									n = n[i+1:]
								}
								fields = append(fields, field{Name: strings.TrimPrefix(n, "*"), Anonymous: true, Type: typ, JSON: j, Protobuf: pb})
							}
							for _, n := range f.Names {
								fields = append(fields, field{Name: n.Name, Type: typ, JSON: j, Protobuf: pb})
							}
						}
						p.Structs[ts.Name.Name] = fields
					}
				}
			}
		}
		out[dir] = p
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
