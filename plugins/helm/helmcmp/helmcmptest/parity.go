package helmcmptest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
)

// helmBinary is the helm of the SDK's version that the conformance
// toolchain caches; HELM_PARITY_BINARY overrides it.
func helmBinary(version string) string {
	if p := os.Getenv("HELM_PARITY_BINARY"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "cmp-conformance", "bin", "helm", version, "helm")
}

// testParity runs every generate case through `helm template` with the
// command line Argo CD would use (TemplateRequest.Args) and wants the same
// stdout, or the same error message after "Error: ".
func testParity(t *testing.T, r helmcmp.Renderer) {
	bin := helmBinary(r.Version())
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no helm %s binary at %s (set HELM_PARITY_BINARY): cannot compare with `helm template`", r.Version(), bin)
	}
	for _, c := range generateCases(r) {
		if c.preHelm {
			continue // fails in parameter resolution, before helm would run
		}
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.chart)
			env := map[string]string{}
			for k, v := range c.env {
				env[k] = v
			}
			if c.params != "" {
				env["ARGOCD_APP_PARAMETERS"] = c.params
			}
			req, cleanup, err := helmcmp.BuildTemplateRequest(f.appDir, envOf(c.chart, env))
			defer cleanup()
			if err != nil {
				t.Fatal(err)
			}
			req.ChartDir = "." // as Argo CD runs it, from the chart folder
			cmd := exec.Command(bin, req.Args()...)
			cmd.Dir = f.appDir
			home := t.TempDir()
			// A clean helm home, as Argo CD gives each run (util/helm/cmd.go).
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"),
				"XDG_CACHE_HOME=" + home + "/cache", "XDG_CONFIG_HOME=" + home + "/config",
				"XDG_DATA_HOME=" + home + "/data", "HELM_CONFIG_HOME=" + home + "/config",
				"KUBECONFIG=" + filepath.Join(home, "none")}
			var hout, herr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &hout, &herr
			helmErr := cmd.Run()

			req.ChartDir = f.appDir
			res, ourErr := r.Template(req)
			switch {
			case helmErr != nil && ourErr != nil:
				want := "Error: " + ourErr.Error() + "\n"
				if !strings.HasSuffix(herr.String(), want) {
					t.Fatalf("helm failed with\n%s\nwe failed with\n%s", herr.String(), want)
				}
			case helmErr != nil || ourErr != nil:
				t.Fatalf("helm: %v %s\nus: %v", helmErr, herr.String(), ourErr)
			case hout.String() != res.Manifests:
				t.Fatalf("output differs from `helm %s`\n--- helm\n%s\n--- cmp-helm\n%s",
					strings.Join(req.Args(), " "), hout.String(), res.Manifests)
			}
		})
	}
}
