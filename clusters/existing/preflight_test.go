package existing

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

func TestRefuseArgoCD(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: "argocd"}}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "argocd-server", Namespace: "argocd"}}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: "elsewhere"}}
	for name, tt := range map[string]struct {
		objects []runtime.Object
		want    string
	}{
		"empty cluster":                {},
		"argocd-cm":                    {objects: []runtime.Object{cm}, want: "ConfigMap argocd-cm"},
		"argocd-server":                {objects: []runtime.Object{dep}, want: "Deployment argocd-server"},
		"Argo CD in another namespace": {objects: []runtime.Object{other}},
	} {
		t.Run(name, func(t *testing.T) {
			err := refuseArgoCD(context.Background(), fake.NewSimpleClientset(tt.objects...), "argocd")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--allow-existing-argocd")):
				t.Errorf("err = %v, want a refusal naming %s and the way out", err, tt.want)
			}
		})
	}
}
