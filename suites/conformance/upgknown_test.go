package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
)

// recordManifest is the parameterized plugin's record as GetManifests
// returns it, tracked by method ("label" or "annotation").
func recordManifest(t *testing.T, env map[string]string, method string) string {
	t.Helper()
	raw, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]any{"name": sidecar.ReceivedConfigMap}
	if method == "label" {
		meta["labels"] = map[string]string{trackingLabel: "app"}
	} else {
		meta["annotations"] = map[string]string{trackingAnnotation: "app:/ConfigMap:ns/x"}
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
		"binaryData": map[string]string{sidecar.KeyEnviron: base64.StdEncoding.EncodeToString(raw)}}
	data, _ := json.Marshal(obj)
	return string(data)
}

func TestExplainDifferences(t *testing.T) {
	empty := ""
	spec := &v1alpha1.ApplicationSourcePlugin{Parameters: []v1alpha1.ApplicationSourcePluginParameter{{Name: "e", String_: &empty}}}
	v2 := map[string]string{"PARAM_A": "a", "KUBE_VERSION": "1.34", "ARGOCD_APP_NAME": "x"}
	v3 := map[string]string{"PARAM_A": "a", "KUBE_VERSION": "1.34", "ARGOCD_APP_NAME": "x", "ARGOCD_APP_PROJECT_NAME": "default", "PARAM_E": ""}
	v32 := map[string]string{"PARAM_A": "a", "KUBE_VERSION": "1.34.4", "ARGOCD_APP_NAME": "x", "ARGOCD_APP_PROJECT_NAME": "default", "PARAM_E": ""}
	tests := []struct {
		name             string
		from, to         string
		before, after    map[string]string
		bMethod, aMethod string
		seen             int
		problems         []string
	}{
		{name: "same version era, nothing changed", from: "v3.0.23", to: "v3.0.24", before: v3, after: v3, bMethod: "annotation", aMethod: "annotation"},
		{name: "v2 to v3: project, empty value and tracking", from: "v2.14.21", to: "v3.0.23", before: v2, after: v3, bMethod: "label", aMethod: "annotation", seen: 3},
		{name: "v3 to v2: the same, backwards", from: "v3.0.23", to: "v2.14.21", before: v3, after: v2, bMethod: "annotation", aMethod: "label", seen: 3},
		{name: "KUBE_VERSION format across v3.2", from: "v3.0.23", to: "v3.2.11", before: v3, after: v32, bMethod: "annotation", aMethod: "annotation", seen: 1},
		{name: "KUBE_VERSION changed where no change is known", from: "v3.2.1", to: "v3.2.11", before: v3, after: v32, bMethod: "annotation", aMethod: "annotation",
			problems: []string{"unexplained difference KUBE_VERSION"}},
		{name: "an unknown variable appears", from: "v3.0.23", to: "v3.2.11", before: v3, after: with(v3, "ARGOCD_APP_CMP_SERVER_VERSION", "v3.2.11"), bMethod: "annotation", aMethod: "annotation",
			problems: []string{"unexplained difference ARGOCD_APP_CMP_SERVER_VERSION"}},
		{name: "v2 to v3 without the project name", from: "v2.14.21", to: "v3.0.23", before: v2, after: withoutKey(v3, "ARGOCD_APP_PROJECT_NAME"), bMethod: "label", aMethod: "annotation", seen: 2,
			problems: []string{"none showed: ARGOCD_APP_PROJECT_NAME"}},
		{name: "v2 to v3 with the tracking unchanged", from: "v2.14.21", to: "v3.0.23", before: v2, after: v3, bMethod: "label", aMethod: "label", seen: 2,
			problems: []string{"none showed: resources are tracked by annotation"}},
		{name: "a value changed", from: "v3.0.23", to: "v3.2.11", before: v3, after: with(v32, "PARAM_A", "b"), bMethod: "annotation", aMethod: "annotation", seen: 1,
			problems: []string{`unexplained difference PARAM_A: "a" -> "b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := sideOf([]string{recordManifest(t, tt.before, tt.bMethod)})
			a := sideOf([]string{recordManifest(t, tt.after, tt.aMethod)})
			seen, problems := explainDifferences(tt.from, tt.to, b, a, spec)
			if len(seen) != tt.seen {
				t.Errorf("seen %d differences, want %d: %q", len(seen), tt.seen, seen)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems %q, want %d matching %q", problems, len(tt.problems), tt.problems)
			}
			for i, want := range tt.problems {
				if !strings.Contains(problems[i], want) {
					t.Errorf("problem %q does not contain %q", problems[i], want)
				}
			}
			for _, s := range seen {
				if !strings.Contains(s, "argoproj/argo-cd#") {
					t.Errorf("expected difference %q names no upstream reference", s)
				}
			}
		})
	}
}

func TestExplainDifferencesWithoutRecord(t *testing.T) {
	label := `{"kind":"Deployment","metadata":{"name":"d","labels":{"app.kubernetes.io/instance":"x"}}}`
	annotation := `{"kind":"Deployment","metadata":{"name":"d","annotations":{"argocd.argoproj.io/tracking-id":"x:apps/Deployment:ns/d"}}}`
	seen, problems := explainDifferences("v2.14.21", "v3.2.11", sideOf([]string{label}), sideOf([]string{annotation}), nil)
	if len(seen) != 1 || len(problems) != 0 {
		t.Errorf("a plugin without a record: seen %q, problems %q; want the tracking change only", seen, problems)
	}
	_, problems = explainDifferences("v2.14.21", "v3.2.11", sideOf([]string{recordManifest(t, map[string]string{}, "label")}), sideOf([]string{annotation}), nil)
	if len(problems) == 0 || !strings.Contains(fmt.Sprint(problems), "one side of the hop only") {
		t.Errorf("a record lost across the hop: problems %q", problems)
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		if a != k {
			out[a] = b
		}
	}
	return out
}

func withoutKey(m map[string]string, k string) map[string]string {
	out := map[string]string{}
	for a, b := range m {
		if a != k {
			out[a] = b
		}
	}
	return out
}
