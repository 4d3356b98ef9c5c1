//go:build helm4

package helm4

import (
	"os"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp/helmcmptest"
)

func TestHelm4(t *testing.T) {
	helmcmptest.Run(t, New())
}

// SDKVersion stands in for module build info, which test binaries lack.
func TestHelm4VersionFollowsGoMod(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := "helm.sh/helm/v4 " + SDKVersion + "\n"; !strings.Contains(string(mod), want) {
		t.Errorf("go.mod does not require %q: update render_helm4.go", want)
	}
}
