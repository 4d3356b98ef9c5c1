//go:build !helm4

package helmcmp

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/pkg/errors"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/release"
)

// Helm3SDKVersion must equal the helm.sh/helm/v3 version in go.mod (a test
// checks it): test binaries carry no module build info to read it from.
const Helm3SDKVersion = "v3.16.3"

// helm3SDK is the Helm 3 SDK this binary links (Helm3SDKVersion unless it
// was built at another version).
var helm3SDK = SDKVersion("helm.sh/helm/v3", Helm3SDKVersion)

// helm3KubeMinor is what the official helm release stamps into
// chartutil.k8sVersionMinor from its k8s.io/client-go version (v0.31.1 for
// Helm 3.16.3); see defaults below.
var helm3KubeMinor = func() string {
	v := SDKVersion("k8s.io/client-go", "v0.31.1")
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) < 2 {
		return "31"
	}
	return parts[1]
}()

// stampRelease makes the SDK's defaults those of the official release.
var stampRelease = sync.OnceFunc(func() {
	// The official helm binary (the one Argo CD ships) is linked with
	// -X chartutil.k8sVersionMajor/Minor and -X internal/version.version.
	// A plain `go build` of the SDK keeps v1.20.0 and "v3.18", which would
	// change .Capabilities when KUBE_VERSION is empty and in
	// .Capabilities.HelmVersion, so set the released values here.
	caps := chartutil.DefaultCapabilities
	caps.KubeVersion = chartutil.KubeVersion{Version: "v1." + helm3KubeMinor + ".0", Major: "1", Minor: helm3KubeMinor}
	caps.HelmVersion.Version = helm3SDK
	caps.HelmVersion.GitTreeState = "clean"
})

type helm3 struct{}

// Helm3 returns the Renderer backed by the Helm 3 SDK.
func Helm3() Renderer {
	stampRelease()
	return helm3{}
}

func (helm3) Version() string { return helm3SDK }

// ShowValues replays cmd/helm/show.go runShow for `helm show values`.
func (helm3) ShowValues(chartDir string) (string, error) {
	client := action.NewShowWithConfig(action.ShowValues, &action.Configuration{})
	cp, err := client.ChartPathOptions.LocateChart(chartDir, cli.New())
	if err != nil {
		return "", err
	}
	return client.Run(cp)
}

// Template replays cmd/helm/template.go and cmd/helm/install.go runInstall
// of Helm 3.18.4, in the same order so that the same error wins.
func (helm3) Template(req TemplateRequest) (TemplateResult, error) {
	var res TemplateResult
	client := action.NewInstall(&action.Configuration{Log: func(string, ...interface{}) {}})
	if req.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return res, fmt.Errorf("invalid kube version '%s': %s", req.KubeVersion, err)
		}
		client.KubeVersion = kv
	}
	client.DryRunOption = "true"
	client.DryRun = true
	client.ReleaseName = "release-name"
	client.Replace = true // skip the name check, as helm template does
	client.ClientOnly = true
	client.APIVersions = chartutil.VersionSet(req.APIVersions)
	client.IncludeCRDs = req.IncludeCRDs
	client.SkipSchemaValidation = req.SkipSchema
	client.NameTemplate = req.NameTemplate

	name, chartRef, err := client.NameAndChart([]string{req.ChartDir})
	if err != nil {
		return res, err
	}
	client.ReleaseName = name
	settings := cli.New()
	cp, err := client.ChartPathOptions.LocateChart(chartRef, settings)
	if err != nil {
		return res, err
	}
	opts := values.Options{ValueFiles: req.ValueFiles, Values: req.Set, StringValues: req.SetString, FileValues: req.SetFile}
	// No getters: every path is local and absolute, nothing is downloaded.
	vals, err := opts.MergeValues(getter.Providers{})
	if err != nil {
		return res, err
	}
	chrt, err := loader.Load(cp)
	if err != nil {
		return res, err
	}
	if err := helm3Installable(chrt); err != nil {
		return res, err
	}
	if chrt.Metadata.Deprecated {
		res.Warnings = append(res.Warnings, "This chart is deprecated")
	}
	if deps := chrt.Metadata.Dependencies; deps != nil {
		// Not vendored under charts/: native Argo CD would now run
		// `helm dependency build`; a CMP has no repositories, so stop here.
		if err := action.CheckDependencies(chrt, deps); err != nil {
			return res, errors.Wrap(err, "An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies")
		}
	}
	// Argo CD passes --namespace only when it has one; without it helm falls
	// back to HELM_NAMESPACE, the kubeconfig or in-cluster namespace, "default".
	client.Namespace = req.Namespace
	if client.Namespace == "" {
		client.Namespace = settings.Namespace()
	}

	rel, err := client.Run(chrt, vals)
	if err != nil {
		if rel != nil {
			return res, fmt.Errorf("%w\n\nUse --debug flag to render out invalid YAML", err)
		}
		return res, err
	}
	var out bytes.Buffer
	fmt.Fprintln(&out, strings.TrimSpace(rel.Manifest))
	for _, h := range rel.Hooks {
		if req.SkipTests && helm3IsTestHook(h) {
			continue
		}
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	res.Manifests = out.String()
	return res, nil
}

func helm3Installable(ch *chart.Chart) error {
	switch ch.Metadata.Type {
	case "", "application":
		return nil
	}
	return errors.Errorf("%s charts are not installable", ch.Metadata.Type)
}

func helm3IsTestHook(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}
