package helmcmp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	k8sversion "k8s.io/apimachinery/pkg/util/version"
)

// Generate renders the chart in appDir as Argo CD's helmTemplate() would run
// `helm template`, and writes helm's stdout to stdout. Nothing is written to
// stdout on error.
func Generate(r Renderer, appDir string, getenv func(string) string, stdout, stderr io.Writer) error {
	req, cleanup, err := BuildTemplateRequest(appDir, getenv)
	defer cleanup()
	if err != nil {
		return err
	}
	res, err := r.Template(req)
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "WARNING: %s\n", w)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, res.Manifests)
	return err
}

// BuildTemplateRequest maps ARGOCD_APP_PARAMETERS and the build environment
// onto the flags of Argo CD's helmTemplate() and util/helm/cmd.go template().
// cleanup removes the inline values file; call it even on error.
func BuildTemplateRequest(appDir string, getenv func(string) string) (TemplateRequest, func(), error) {
	cleanup := func() {}
	p, err := ParseParams(getenv("ARGOCD_APP_PARAMETERS"))
	if err != nil {
		return TemplateRequest{}, cleanup, err
	}
	appName := getenv("ARGOCD_APP_NAME")
	req := TemplateRequest{
		ChartDir:     appDir,
		NameTemplate: releaseName(appName),
		Namespace:    getenv("ARGOCD_APP_NAMESPACE"),
		IncludeCRDs:  !p.SkipCRDs,
		SkipSchema:   p.SkipSchemaValidation,
		SkipTests:    p.SkipTests,
	}
	if p.ReleaseName != "" {
		req.NameTemplate = p.ReleaseName
	}
	if req.NameTemplate == "" {
		req.NameTemplate = appName
	}
	if p.Namespace != "" {
		req.Namespace = p.Namespace
	}

	kube := getenv("KUBE_VERSION")
	if p.KubeVersion != "" {
		kube = p.KubeVersion
	}
	kv, err := parseKubeVersion(kube)
	if err != nil {
		return req, cleanup, err
	}
	req.KubeVersion = kv

	req.APIVersions = p.APIVersions
	if len(req.APIVersions) == 0 {
		for _, v := range strings.Split(getenv("KUBE_API_VERSIONS"), ",") {
			if v != "" {
				req.APIVersions = append(req.APIVersions, v)
			}
		}
	}

	root := repoRoot(appDir, getenv("ARGOCD_APP_SOURCE_PATH"))
	for _, f := range p.ValuesFiles {
		path, err := resolveValueFile(appDir, root, envsubst(f, getenv))
		if err != nil {
			return req, cleanup, fmt.Errorf("error resolving helm value files: error resolving value file path: %w", err)
		}
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && p.IgnoreMissingVF {
			continue
		}
		req.ValueFiles = append(req.ValueFiles, path)
	}
	if p.Values != "" {
		// Native writes spec.source.helm.values to a temporary file and passes
		// it as the last --values; doing the same keeps helm's merge and its
		// YAML error messages identical.
		f, err := os.CreateTemp("", "cmp-helm-values-")
		if err != nil {
			return req, cleanup, fmt.Errorf("error writing helm values file: %w", err)
		}
		cleanup = func() { _ = os.Remove(f.Name()) }
		_, err = f.WriteString(p.Values)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return req, cleanup, fmt.Errorf("error writing helm values file: %w", err)
		}
		req.ValueFiles = append(req.ValueFiles, f.Name())
	}

	// Native keeps these in Go maps, so helm sees them in random order; sorted
	// here so that overlapping keys ("a" and "a.b") resolve the same way on
	// every run. Values get the build env substituted, as natively.
	for _, k := range sortedKeys(p.Set) {
		req.Set = append(req.Set, k+"="+cleanSetParameter(envsubst(p.Set[k], getenv)))
	}
	for _, k := range sortedKeys(p.SetString) {
		req.SetString = append(req.SetString, k+"="+cleanSetParameter(envsubst(p.SetString[k], getenv)))
	}
	for _, k := range sortedKeys(p.SetFile) {
		path, err := resolveValueFile(appDir, root, envsubst(p.SetFile[k], getenv))
		if err != nil {
			return req, cleanup, fmt.Errorf("error resolving helm value file path: %w", err)
		}
		req.SetFile = append(req.SetFile, k+"="+cleanSetParameter(path))
	}
	return req, cleanup, nil
}

// parseKubeVersion is Argo CD's: k8s ParseGeneric, which drops a leading "v"
// and any pre-release or build suffix ("v1.34.4+k3s1" gives "1.34.4"). The
// CMP server's KUBE_VERSION has already been through it, usually as "1.34";
// helm then reads that as v1.34.0.
func parseKubeVersion(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	parsed, err := k8sversion.ParseGeneric(v)
	if err != nil {
		return "", fmt.Errorf("could not parse kubernetes version %s: %w", v, err)
	}
	return parsed.String(), nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
