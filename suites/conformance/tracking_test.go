package conformance

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestTracked(t *testing.T) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind("ConfigMap")
	obj.SetNamespace("ns")
	obj.SetName("cm")
	if tracked("3.2.11", "app", obj) == nil || tracked("2.14.21", "app", obj) == nil {
		t.Fatal("an untracked object passed")
	}
	obj.SetAnnotations(map[string]string{"argocd.argoproj.io/tracking-id": "app:/ConfigMap:ns/cm"})
	if err := tracked("3.2.11", "app", obj); err != nil {
		t.Errorf("v3 annotation: %v", err)
	}
	if tracked("2.14.21", "app", obj) == nil {
		t.Error("v2 accepted the annotation without the label")
	}
	obj.SetLabels(map[string]string{"app.kubernetes.io/instance": "app"})
	if err := tracked("2.14.21", "app", obj); err != nil {
		t.Errorf("v2 label: %v", err)
	}
	obj.SetAnnotations(map[string]string{"argocd.argoproj.io/tracking-id": "other:/ConfigMap:ns/cm"})
	if tracked("3.0.0", "app", obj) == nil {
		t.Error("another application's tracking id passed")
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 20; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if got := percentile(d, 50); got != 10*time.Millisecond {
		t.Errorf("median = %v, want 10ms", got)
	}
	if got := percentile(d, 95); got != 19*time.Millisecond {
		t.Errorf("p95 = %v, want 19ms", got)
	}
	if got := percentile(d[:1], 95); got != 20*time.Millisecond {
		t.Errorf("p95 of one = %v", got)
	}
	if d[0] != 20*time.Millisecond {
		t.Error("percentile sorted its input in place")
	}
}
