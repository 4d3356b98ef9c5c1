package conformance

import (
	"slices"
	"testing"
	"testing/fstest"
)

func TestReplaceWith(t *testing.T) {
	fsys := fstest.MapFS{
		"samples/basic/a.yaml":         {Data: []byte("a")},
		"samples/basic/sub/b.yaml":     {Data: []byte("b")},
		"samples/broken/x.yaml":        {Data: []byte("x")},
		"samples/broken/deep/y.marker": {Data: []byte("y")},
		"top.yaml":                     {Data: []byte("t")},
	}
	cert := &Certification{FS: fsys}
	change, err := replaceWith(cert, "samples/basic", "samples/broken")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(change.Delete)
	if !slices.Equal(change.Delete, []string{"a.yaml", "sub"}) || len(change.Files) != 2 ||
		string(change.Files["x.yaml"]) != "x" || string(change.Files["deep/y.marker"]) != "y" {
		t.Errorf("change = %+v", change)
	}
	// The certification's own folder as the failing source (path "."): its
	// paths are already relative (this used to slice out of range).
	whole, err := replaceWith(cert, "samples/basic", ".")
	if err != nil {
		t.Fatal(err)
	}
	if string(whole.Files["top.yaml"]) != "t" || string(whole.Files["samples/broken/x.yaml"]) != "x" {
		t.Errorf("change from . = %+v", whole.Files)
	}
}

func TestDifferenceAndKinds(t *testing.T) {
	if d := difference([]string{"a", "a", "b"}, []string{"a"}); !slices.Equal(d, []string{"a", "b"}) {
		t.Errorf("difference counts duplicates: %v", d)
	}
	got := kindCounts([]string{`{"kind":"ConfigMap"}`, `{"kind":"ConfigMap"}`, `{"kind":"Deployment"}`})
	if got["ConfigMap"] != 2 || got["Deployment"] != 1 {
		t.Errorf("kindCounts = %v", got)
	}
}
