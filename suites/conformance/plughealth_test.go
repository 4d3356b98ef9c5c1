package conformance

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestClusterLacks(t *testing.T) {
	obj := func(y string) *unstructured.Unstructured {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(y), &m); err != nil {
			t.Fatal(err)
		}
		return &unstructured.Unstructured{Object: m}
	}
	for _, tt := range []struct {
		name, runtime, obj, want string // want "" : the plugin's doing
	}{
		{"served ingress", "embedded", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a}\nspec: {}", ""},
		{"ingress of the default class", "embedded", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a}\nspec: {ingressClassName: cmp-conformance}", ""},
		{"ingress of another class", "embedded", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a}\nspec: {ingressClassName: nginx}", `serves class "nginx"`},
		{"ingress by annotation", "embedded", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a, annotations: {kubernetes.io/ingress.class: nginx}}\nspec: {}", `serves class "nginx"`},
		{"ingress on kind", "kind", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a}\nspec: {}", "no ingress controller"},
		{"load balancer", "embedded", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {type: LoadBalancer}", ""},
		{"load balancer of a class", "embedded", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {type: LoadBalancer, loadBalancerClass: x.io/lb}", "loadBalancerClass"},
		{"load balancer on kind", "kind", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {type: LoadBalancer}", "no load balancer"},
		{"cluster IP service", "kind", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {type: ClusterIP}", ""},
		{"claim", "embedded", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a}\nspec: {}", ""},
		{"claim with a selector", "embedded", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a}\nspec: {selector: {matchLabels: {a: b}}}", ""},
		{"claim of another class", "embedded", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a}\nspec: {storageClassName: gp3}", `class "gp3"`},
		{"claim on kind", "kind", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a}\nspec: {}", "binds a claim only when a pod uses it"},
		{"job", "embedded", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\nspec: {suspend: true}", ""},
		{"deployment", "kind", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}", ""},
		{"custom resource", "embedded", "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: a}", "no operator runs here"},
	} {
		got := clusterLacks(tt.runtime, obj(tt.obj))
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
