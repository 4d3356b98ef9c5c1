package existing

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
)

func TestRefuseArgoCD(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: "ours"}}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "argocd-server", Namespace: "ours"}}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: "elsewhere"}}
	crd := func(labels map[string]any) *unstructured.Unstructured {
		meta := map[string]any{"name": "applications.argoproj.io"}
		if labels != nil {
			meta["labels"] = labels
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": meta}}
	}
	for name, tt := range map[string]struct {
		objects []runtime.Object
		crd     *unstructured.Unstructured
		want    string
	}{
		"empty cluster":                          {},
		"argocd-cm":                              {objects: []runtime.Object{cm}, want: "ConfigMap argocd-cm in namespace ours"},
		"argocd-server":                          {objects: []runtime.Object{dep}, want: "Deployment argocd-server"},
		"a ConfigMap named so elsewhere, no CRD": {objects: []runtime.Object{other}},
		"someone's CRDs":                         {crd: crd(map[string]any{"app.kubernetes.io/part-of": "argocd"}), want: "applications.argoproj.io, not installed by cmp-conformance"},
		"CRDs an earlier run left":               {crd: crd(map[string]any{kube.ManagedByLabel: kube.FieldManager})},
		"our namespace still terminating": {objects: []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ours"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}},
			want: "still being deleted"},
	} {
		t.Run(name, func(t *testing.T) {
			var dynObjs []runtime.Object
			if tt.crd != nil {
				dynObjs = append(dynObjs, tt.crd)
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList"}, dynObjs...)
			err := refuseArgoCD(context.Background(), fake.NewSimpleClientset(tt.objects...), dyn, "ours")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !(strings.Contains(err.Error(), "--allow-existing-argocd") || strings.Contains(err.Error(), "run again"))):
				t.Errorf("err = %v, want a refusal naming %s and the way out", err, tt.want)
			}
		})
	}
}
