package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// upgradeModes are the reference parameterized plugin with one thing that
// depends on the Argo CD version it runs under: what an upgrade must not
// change, changed. The version is the one of the argocd-cmp-server that
// started the command (its parent, which is the Argo CD binary), so the
// witnesses work wherever the plugin runs.
func upgradeModes() map[string]func() error {
	return map[string]func() error{
		// Adds a ConfigMap holding the Argo CD version to the output.
		"generate-version-in-output": func() error {
			v, err := cmpServerVersion()
			if err != nil {
				return err
			}
			return generateWith(os.Environ(), fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cmp-version\ndata:\n  version: %q\n", v))
		},
		// Names a ConfigMap after the Argo CD version: a hop replaces it
		// with another, which automated sync creates and prunes.
		"generate-renames-per-version": func() error {
			v, err := cmpServerVersion()
			if err != nil {
				return err
			}
			return generateWith(os.Environ(), fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cmp-made-by-%s\ndata:\n  made: \"yes\"\n", dnsLabel(v)))
		},
		// Records, among what it received, a variable that Argo CD does not
		// send: as a platform that changed the plugin environment between
		// versions without a word would deliver.
		"generate-version-in-env": func() error {
			v, err := cmpServerVersion()
			if err != nil {
				return err
			}
			return generateWith(append(os.Environ(), "ARGOCD_APP_CMP_SERVER_VERSION="+v), "")
		},
		// Announces one more parameter, whose default is the Argo CD version.
		"parameters-version-in-announcements": func() error {
			v, err := cmpServerVersion()
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if err := sidecar.Announce(".", os.Environ(), &out); err != nil {
				return err
			}
			var anns []sidecar.Announcement
			if err := json.Unmarshal(out.Bytes(), &anns); err != nil {
				return err
			}
			anns = append(anns, sidecar.Announcement{Name: "argocd-version", Title: "ARGO CD VERSION", String: v})
			return json.NewEncoder(os.Stdout).Encode(anns)
		},
		// Works only under the first Argo CD version it rendered with, which
		// it remembers in the cluster: after a hop every generate fails,
		// also after a hop back.
		"generate-breaks-after-hop": generateBreaksAfterHop,
	}
}

func generateWith(environ []string, extra string) error {
	var out bytes.Buffer
	if err := sidecar.Generate(".", environ, &out); err != nil {
		return err
	}
	out.WriteString(extra)
	_, err := os.Stdout.Write(out.Bytes())
	return err
}

// cmpServerVersion asks the binary of the parent process (argocd-cmp-server,
// the Argo CD multi-call binary) for its version.
func cmpServerVersion() (string, error) {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", os.Getppid()))
	if err != nil {
		return "", fmt.Errorf("finding the argocd-cmp-server binary: %w", err)
	}
	// The multi-call binary picks its part by ARGOCD_BINARY_NAME first, and
	// the cmp-server's environment names argocd-cmp-server.
	cmd := &exec.Cmd{Path: exe, Args: []string{"argocd", "version", "--client", "--short"},
		Env: append(without(os.Environ(), "ARGOCD_BINARY_NAME"), "ARGOCD_BINARY_NAME=argocd")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %w: %s", exe, err, strings.TrimSpace(stderr.String()))
	}
	v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "argocd:"))
	if v == "" {
		return "", fmt.Errorf("%s version printed nothing", exe)
	}
	return v, nil
}

var notLabel = regexp.MustCompile(`[^a-z0-9]+`)

func dnsLabel(s string) string {
	return strings.Trim(notLabel.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

const firstVersionConfigMap = "cmp-broken-first-version"

func generateBreaksAfterHop() error {
	v, err := cmpServerVersion()
	if err != nil {
		return err
	}
	ns := os.Getenv("ARGOCD_APP_NAMESPACE")
	if ns == "" {
		return errors.New("ARGOCD_APP_NAMESPACE is not set")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		return fmt.Errorf("no cluster access to remember the first version: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, firstVersionConfigMap, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		// The destination namespace may not exist before the first sync.
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: firstVersionConfigMap}, Data: map[string]string{"version": v}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	case err != nil:
		return err
	case cm.Data["broken"] != "" || cm.Data["version"] != v:
		if cm.Data["broken"] == "" {
			cm.Data["broken"] = "since " + v
			if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		return fmt.Errorf("this plugin was installed under Argo CD %s and does not work after a version change (%s)", cm.Data["version"], cm.Data["broken"])
	}
	return generateWith(os.Environ(), "")
}
