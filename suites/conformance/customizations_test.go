package conformance

import (
	"path/filepath"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

// Each CUST check judges the harness's folder, and each witness only the
// check it stands for: a witness's kinds give the other check nothing to
// judge, so its row says not applicable instead of passing on nothing.
func TestCustomizationsJudgeTheirOwnKinds(t *testing.T) {
	for _, tt := range []struct {
		dir                  string
		openLibs, overriding bool
	}{
		{"plugins/customizations", true, true},
		{"plugins/broken/customizations-open-libs-everywhere", true, false},
		{"plugins/broken/customizations-open-libs-withheld", true, false},
		{"plugins/broken/customizations-override-missing", false, true},
	} {
		ext, err := extension.Load(filepath.Join("..", "..", tt.dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			check Check
			want  bool
		}{{custOpenLibs, tt.openLibs}, {custOverridesBuiltIn, tt.overriding}} {
			if judged := c.check.NothingToJudge(ext) == ""; judged != c.want {
				t.Errorf("%s: %s judges it: %t, want %t (%s)", tt.dir, c.check.ID, judged, c.want, c.check.NothingToJudge(ext))
			}
		}
	}
	if !hasBuiltInHealth(extension.Kind{Group: "cert-manager.io", Kind: "Certificate"}) || hasBuiltInHealth(extension.Kind{Group: openLibsGroup, Kind: "Sealed"}) {
		t.Error("cert-manager.io/Certificate has a built-in health script in Argo CD, openlibs.cmpc.example.com/Sealed none")
	}
}
