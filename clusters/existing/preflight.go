package existing

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-conformance/cmp-conformance/clusters"
)

// Preflight refuses a cluster whose namespace already holds an Argo CD:
// the run applies Argo CD's CRDs, argocd-cm and argocd-secret there, which
// would overwrite someone's install. It asks the API server, in seconds,
// before anything is built.
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
	return refuseArgoCD(ctx, cs, namespace)
}

// refuseArgoCD says what Argo CD it finds in namespace, if any.
func refuseArgoCD(ctx context.Context, cs kubernetes.Interface, namespace string) error {
	found := ""
	if _, err := cs.CoreV1().ConfigMaps(namespace).Get(ctx, "argocd-cm", metav1.GetOptions{}); err == nil {
		found = "ConfigMap argocd-cm"
	} else if !errors.IsNotFound(err) {
		return fmt.Errorf("--runtime existing: reading namespace %s: %w", namespace, err)
	}
	if _, err := cs.AppsV1().Deployments(namespace).Get(ctx, "argocd-server", metav1.GetOptions{}); err == nil {
		found = "Deployment argocd-server"
	}
	if found == "" {
		return nil
	}
	return fmt.Errorf("--runtime existing: namespace %s of this cluster already holds an Argo CD (%s); a run would overwrite its CRDs, argocd-cm and argocd-secret. "+
		"Use a throw-away cluster without Argo CD, or --allow-existing-argocd if this one is yours to overwrite", namespace, found)
}
