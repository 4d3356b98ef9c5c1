package conformance

import (
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func TestBlockedOf(t *testing.T) {
	c := Check{ID: "PLUG-003"}
	msg := "Timed out\n" + CannotJudge("PLUG-002", "sample web does not generate: an action failed: ...")
	if got := blockedOf(c, v1alpha1.StateFailed, msg); got != "PLUG-002" {
		t.Errorf("blockedOf = %q, want PLUG-002", got)
	}
	if got := blockedOf(Check{ID: "PLUG-002"}, v1alpha1.StateFailed, msg); got != "" {
		t.Errorf("the owner blocked by itself: %q", got)
	}
	if got := blockedOf(c, v1alpha1.StatePassed, msg); got != "" {
		t.Errorf("a pass blocked: %q", got)
	}
	if got := blockedOf(c, v1alpha1.StateFailed, "sample web: 3 manifests missing"); got != "" {
		t.Errorf("a failure of its own blocked: %q", got)
	}
}

// Argo CD's words for a plugin that ran and failed, as v3.6 and v2 write
// them, and for what is not that (a plugin not found is discovery's).
func TestGenerationFailed(t *testing.T) {
	for msg, want := range map[string]bool{
		"application spec for plug-expect-web is invalid: InvalidSpecError: Unable to generate manifests in web: rpc error: code = Unknown desc = error generating manifests in cmp: rpc error: code = Unknown desc = error generating manifests: `sh -c ./generate.sh` failed exit status 1: boom": true,
		"Unable to generate manifests in web: rpc error: code = Unknown desc = plugin sidecar failed. error generating manifests in cmp: exit status 1":                                                                                                                                             true,
		"Unable to generate manifests in web: rpc error: code = Unknown desc = failed to unmarshal manifest: error converting YAML to JSON":                                                                                                                                                         true,
		"Unable to generate manifests in web: rpc error: code = Unknown desc = could not find plugin supporting the given repository":                                                                                                                                                               false,
		"Unable to generate manifests in web: context deadline exceeded": false,
	} {
		if got := generationFailed.MatchString(msg); got != want {
			t.Errorf("generationFailed(%q) = %v, want %v", msg, got, want)
		}
	}
}
