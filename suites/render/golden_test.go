package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatchGolden(t *testing.T) {
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","annotations":{"argocd.argoproj.io/tracking-id":"app:/ConfigMap:ns/a"},"labels":{"app.kubernetes.io/instance":"app","team":"x"}},"data":{"k":"1"}}`
	dep := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1}}`
	golden := filepath.Join(t.TempDir(), "basic.golden.yaml")
	if _, err := MatchGolden([]string{dep, cm}, golden, false); err == nil || !strings.Contains(err.Error(), "-update") {
		t.Errorf("a missing golden file: %v, want it to say -update", err)
	}
	if _, err := MatchGolden([]string{dep, cm}, golden, true); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "tracking-id") || strings.Contains(string(data), "app.kubernetes.io/instance") || !strings.Contains(string(data), "team: x") {
		t.Errorf("the golden file keeps tracking metadata or loses the rest:\n%s", data)
	}
	// Another application's tracking, another order: the same objects.
	other := strings.ReplaceAll(cm, `"app"`, `"other"`)
	if d, err := MatchGolden([]string{other, dep}, golden, false); err != nil || d != "" {
		t.Errorf("the same objects under another application differ: %v\n%s", err, d)
	}
	changed := strings.Replace(dep, `"replicas":1`, `"replicas":2`, 1)
	d, err := MatchGolden([]string{cm, changed}, golden, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d, "~ Deployment d (changed)") || !strings.Contains(d, "+  replicas: 2") || strings.Contains(d, "ConfigMap") {
		t.Errorf("the diff does not name the changed object alone:\n%s", d)
	}
	if _, err := Normalize([]string{"not json"}); err == nil {
		t.Error("a manifest that is no JSON was normalized")
	}
}
