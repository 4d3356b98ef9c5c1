//go:build !helm4

package helmcmp_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp/helmcmptest"
)

func TestHelm3(t *testing.T) {
	helmcmptest.Run(t, helmcmp.Helm3())
}

// The version constants stand in for module build info, which test
// binaries lack: they must follow go.mod.
func TestHelm3VersionsFollowGoMod(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"helm.sh/helm/v3 " + helmcmp.Helm3SDKVersion, "k8s.io/client-go v0.31."} {
		if !strings.Contains(string(mod), want) {
			t.Errorf("go.mod does not require %q: update render_helm3.go", want)
		}
	}
}

// Without KUBE_VERSION helm falls back to its defaults, which the official
// v3.16.3 release stamps from client-go v0.31: Kubernetes v1.31.0.
func TestHelm3DefaultKubeVersion(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: caps\nversion: 0.1.0\n",
		"templates/caps.yaml": "kube: {{ .Capabilities.KubeVersion }}\nhelm: {{ .Capabilities.HelmVersion.Version }}\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(dir+"/templates", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/"+name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"ARGOCD_APP_NAME": "app", "ARGOCD_APP_NAMESPACE": "ns"}
	var out, errOut bytes.Buffer
	if err := helmcmp.Generate(helmcmp.Helm3(), dir, func(k string) string { return env[k] }, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := "kube: v1.31.0\nhelm: " + helmcmp.Helm3SDKVersion + "\n"; !strings.HasSuffix(out.String(), want) {
		t.Fatalf("got %q, want suffix %q", out.String(), want)
	}
}
