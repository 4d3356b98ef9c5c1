package existing

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-conformance/cmp-conformance/clusters"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
)

// Preflight refuses a cluster that already holds an Argo CD: one in
// namespace (where the run installs its own), or Argo CD's CRDs installed by
// anyone but an earlier run of this harness. The run applies the CRDs of
// the version under test, and CRDs are the cluster's: every Argo CD on it
// reads them. It asks the API server, in seconds, before anything is built.
func Preflight(ctx context.Context, kubeconfig, namespace string) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c, err := clusters.Connect(ctx, "existing", kubeconfig)
	if err != nil {
		return fmt.Errorf("--runtime existing: %w", err)
	}
	cs, err := kubernetes.NewForConfig(c.REST)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(c.REST)
	if err != nil {
		return err
	}
	return refuseArgoCD(ctx, cs, dyn, namespace)
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// refuseArgoCD says what Argo CD it finds, if any.
func refuseArgoCD(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, namespace string) error {
	if ns, err := cs.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{}); err == nil && ns.Status.Phase == corev1.NamespaceTerminating {
		return fmt.Errorf("--runtime existing: namespace %s is still being deleted (an earlier run's install, removed as it ended): wait until `kubectl get namespace %s` finds nothing, then run again", namespace, namespace)
	}
	found := ""
	if _, err := cs.CoreV1().ConfigMaps(namespace).Get(ctx, "argocd-cm", metav1.GetOptions{}); err == nil {
		found = fmt.Sprintf("ConfigMap argocd-cm in namespace %s", namespace)
	} else if !errors.IsNotFound(err) {
		return fmt.Errorf("--runtime existing: reading namespace %s: %w", namespace, err)
	}
	if _, err := cs.AppsV1().Deployments(namespace).Get(ctx, "argocd-server", metav1.GetOptions{}); err == nil {
		found = fmt.Sprintf("Deployment argocd-server in namespace %s", namespace)
	}
	crd, err := dyn.Resource(crdGVR).Get(ctx, "applications.argoproj.io", metav1.GetOptions{})
	switch {
	case err == nil && crd.GetLabels()[kube.ManagedByLabel] != kube.FieldManager && found == "":
		found = "CustomResourceDefinition applications.argoproj.io, not installed by cmp-conformance"
	case err != nil && !errors.IsNotFound(err):
		return fmt.Errorf("--runtime existing: reading Argo CD's CRDs: %w", err)
	}
	if found == "" {
		return nil
	}
	return fmt.Errorf("--runtime existing: this cluster already holds an Argo CD (%s); a run would replace its CRDs with those of the version under test. "+
		"Use a throw-away cluster without Argo CD, or --allow-existing-argocd if this one is yours to overwrite", found)
}
