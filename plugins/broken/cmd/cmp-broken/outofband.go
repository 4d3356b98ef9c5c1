package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

// generateOutOfBand prints the first resource of the application and
// creates the others in the cluster itself (a plugin that runs kubectl apply
// in generate): those exist, but Argo CD never saw them, so they carry no
// tracking metadata and nothing deletes or prunes them.
func generateOutOfBand() error {
	var out bytes.Buffer
	if err := plain.Generate(".", &out); err != nil {
		return err
	}
	docs := strings.SplitAfterN(out.String(), "---\n", 3) // "", first, rest
	if len(docs) < 3 {
		_, err := os.Stdout.Write(out.Bytes())
		return err
	}
	ns := os.Getenv("ARGOCD_APP_NAMESPACE")
	if ns == "" {
		return errors.New("ARGOCD_APP_NAMESPACE is not set")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		return fmt.Errorf("no cluster access for the out-of-band apply: %w", err)
	}
	kc, err := kube.NewClient(cfg)
	if err != nil {
		return err
	}
	objs, err := kube.Decode([]byte(docs[2]))
	if err != nil {
		return err
	}
	for _, o := range objs {
		o.SetNamespace(ns)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The destination namespace may not exist before the first sync.
	if err := kc.Apply(ctx, append([]*unstructured.Unstructured{kube.Namespace(ns, nil)}, objs...)...); err != nil {
		return fmt.Errorf("out-of-band apply: %w", err)
	}
	_, err = fmt.Print(docs[0] + docs[1])
	return err
}
