package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	a := `{"kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"1"}}`
	a2 := `{"kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"2"}}`
	b := `{"kind":"Secret","metadata":{"name":"b","namespace":"ns"}}`
	c := `{"kind":"Service","metadata":{"name":"c"}}`
	d, err := Diff([]string{a, b}, []string{a2, c})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"~ ConfigMap a (changed)", "-  k: \"1\"", "+  k: \"2\"", "- Secret ns/b (removed)", "+ Service c (added)"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if d, _ := Diff([]string{a, b}, []string{b, a}); d != "" {
		t.Errorf("the same objects in another order differ:\n%s", d)
	}
	if _, err := Diff([]string{"{"}, nil); err == nil {
		t.Error("a manifest that is no JSON was read")
	}
}

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	one, err := Fingerprint(dir, filepath.Join(dir, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Fingerprint(dir, filepath.Join(dir, "missing")); again != one {
		t.Error("the fingerprint of an unchanged tree changed")
	}
	if err := os.WriteFile(f, []byte("xy"), 0o644); err != nil {
		t.Fatal(err)
	}
	if two, _ := Fingerprint(dir, filepath.Join(dir, "missing")); two == one {
		t.Error("a written file left the fingerprint unchanged")
	}
}
