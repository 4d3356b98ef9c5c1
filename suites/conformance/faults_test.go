package conformance

import "testing"

// FAULT-001's error is the deadline's in each wording Argo CD's components
// give it, and no other plugin error.
func TestHangSurfacesAsTheDeadline(t *testing.T) {
	for msg, want := range map[string]bool{
		"rpc error: code = Unknown desc = context deadline exceeded":                                               true,
		"rpc error: code = DeadlineExceeded desc = stream terminated by RST_STREAM with error code: CANCEL":        true,
		"rpc error: code = Unknown desc = error generating manifests in cmp: signal: terminated":                   true,
		"rpc error: code = Unknown desc = plugin sidecar failed. error generating manifests in cmp: exit status 1": false,
		"rpc error: code = Unavailable desc = connection error":                                                    false,
	} {
		if hangSurfaces.MatchString(msg) != want {
			t.Errorf("%q: matched %v, want %v", msg, !want, want)
		}
	}
}
