package main

import (
	"strings"
	"testing"
)

func TestPrintManifests(t *testing.T) {
	ms := []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"b"}}`}
	var y strings.Builder
	if err := printManifests(&y, ms, "yaml"); err != nil {
		t.Fatal(err)
	}
	if want := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n"; y.String() != want {
		t.Errorf("yaml:\n%s\nwant:\n%s", y.String(), want)
	}
	var j strings.Builder
	if err := printManifests(&j, ms, "json"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(j.String(), "[\n  {\n    \"apiVersion\": \"v1\"") || strings.Count(j.String(), `"kind"`) != 2 {
		t.Errorf("json:\n%s", j.String())
	}
}
