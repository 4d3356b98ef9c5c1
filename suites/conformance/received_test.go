package conformance

import (
	"strings"
	"testing"
)

// The proposal's rule, applied per character: uppercase, then every character
// outside [A-Z0-9_] becomes one underscore.
func TestEscapedFollowsTheProposal(t *testing.T) {
	for in, want := range map[string]string{
		"values-files":     "VALUES_FILES",
		"image.tag":        "IMAGE_TAG",
		"a/b c":            "A_B_C",
		"ünï":              "_N_",
		"MiXeD_Case9":      "MIXED_CASE9",
		"helm-parameters":  "HELM_PARAMETERS",
		"argocd-app-name":  "ARGOCD_APP_NAME",
		"key.two/three 4é": "KEY_TWO_THREE_4_",
	} {
		if got := escaped(in); got != want {
			t.Errorf("escaped(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHostileValuesCarryTheCanary(t *testing.T) {
	vals := hostileValues("/tmp/canary-x")
	n := 0
	for _, v := range vals {
		if strings.Contains(v, "touch /tmp/canary-x") {
			n++
		}
	}
	if n < 5 {
		t.Fatalf("only %d values would create the canary if executed", n)
	}
}

func TestAtLeast(t *testing.T) {
	for _, c := range []struct {
		v, min string
		want   bool
	}{{"v3.2.11", "3.0.0", true}, {"v2.14.21", "3.0.0", false}, {"v2.9.0", "2.9.0", true}, {"garbage", "1.0.0", false}} {
		if got := atLeast(c.v, c.min); got != c.want {
			t.Errorf("atLeast(%s, %s) = %v", c.v, c.min, got)
		}
	}
}
