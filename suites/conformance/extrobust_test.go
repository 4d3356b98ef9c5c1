package conformance

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

// A hostile copy grows free text only (enum values such as "True" stay, so
// the script still takes the path it takes for the real status), makes the
// status a string, and its lists numbers; the test's object is untouched.
func TestHostileVariants(t *testing.T) {
	base := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": "t"},
		"status": map[string]any{"phase": "Ready", "conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "message": "all is well"},
			map[string]any{"type": "Synced", "status": "True", "message": "in step"},
		}},
	}}
	vs := hostileVariants(base)
	if len(vs) != 3 {
		t.Fatalf("%d variants, want 3", len(vs))
	}
	conds := vs[0].obj.Object["status"].(map[string]any)["conditions"].([]any)
	first := conds[0].(map[string]any)
	if first["type"] != "Ready" || first["status"] != "True" || !strings.HasPrefix(first["message"].(string), "all is well ") || len(first["message"].(string)) != hugeText {
		t.Errorf("grown text: %v, want the enum values kept and the message grown to %d bytes", first["type"], hugeText)
	}
	if vs[1].obj.Object["status"] != "hostile" {
		t.Errorf("second variant's status: %v", vs[1].obj.Object["status"])
	}
	st := vs[2].obj.Object["status"].(map[string]any)
	if st["conditions"] != int64(42) || st["phase"] != "Ready" {
		t.Errorf("third variant's status: %v", st)
	}
	if msg := base.Object["status"].(map[string]any)["conditions"].([]any)[0].(map[string]any)["message"]; msg != "all is well" {
		t.Errorf("the test's object changed: %v", msg)
	}
	// Without free text or lists, only the string status remains.
	plain := &unstructured.Unstructured{Object: map[string]any{"kind": "Thing", "status": map[string]any{"phase": "Ready"}}}
	if vs := hostileVariants(plain); len(vs) != 1 || vs[0].obj.Object["status"] != "hostile" {
		t.Errorf("variants of a status without free text or lists: %d", len(vs))
	}
}

// EXT-003 runs every action: on its own succeeding test's object, else on
// the first object the kind's tests give, where only a refusal is judged.
func TestRBACStarts(t *testing.T) {
	k := extension.Kind{Actions: map[string]string{"pause": "", "restart": "", "scale": ""},
		ActionTests: []extension.ActionTest{
			{Action: "pause", InputPath: "testdata/running.yaml"},
			{Action: "restart", InputPath: "testdata/paused.yaml", ExpectedErrorMessage: "not running"},
		}}
	got := rbacStarts(k)
	if len(got) != 3 || got[0].test.Action != "pause" || !got[0].mustRun || got[0].rel != "actions/testdata/running.yaml" {
		t.Fatalf("starts %+v", got)
	}
	for _, st := range got[1:] {
		if st.mustRun || st.rel != "actions/testdata/running.yaml" {
			t.Errorf("%s without a succeeding test of its own: %+v, want the first object, refusal judged only", st.test.Action, st)
		}
	}
	if got := rbacStarts(extension.Kind{Actions: map[string]string{"pause": ""}}); len(got) != 0 {
		t.Errorf("no object in any test: %+v, want nothing to judge", got)
	}
}
