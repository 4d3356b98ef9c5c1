//go:build helm4

// Package helm4 is the Helm 4 SDK adapter of cmp-helm (see package helmcmp).
// Build with -tags helm4: the tag drops helmcmp's Helm 3 adapter.
package helm4

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/cli"
	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/getter"
	release "helm.sh/helm/v4/pkg/release/v1"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
)

// SDKVersion must equal the helm.sh/helm/v4 version in go.mod (a test checks
// it); a binary built at another version reports that one (sdkVersion).
const SDKVersion = "v4.3.1"

var sdkVersion = helmcmp.SDKVersion("helm.sh/helm/v4", SDKVersion)

// stampRelease makes the SDK's defaults those of the official release.
var stampRelease = sync.OnceFunc(func() {
	// The official release is linked with -X internal/version.version; a
	// plain `go build` reports "v4.x". Helm 4 already derives the default
	// Kubernetes version from client-go's module version at run time.
	common.DefaultCapabilities.HelmVersion.Version = sdkVersion
	common.DefaultCapabilities.HelmVersion.GitTreeState = "clean"
})

type renderer struct{}

// New returns the Renderer backed by the Helm 4 SDK.
func New() helmcmp.Renderer {
	stampRelease()
	return renderer{}
}

func (renderer) Version() string { return sdkVersion }

func newConfig() *action.Configuration {
	// helm logs through slog; its CLI shows only warnings without --debug,
	// and the warnings that matter are returned instead.
	return action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler))
}

// ShowValues replays pkg/cmd/show.go runShow for `helm show values`.
func (renderer) ShowValues(chartDir string) (string, error) {
	client := action.NewShow(action.ShowValues, newConfig())
	cp, err := client.LocateChart(chartDir, cli.New())
	if err != nil {
		return "", err
	}
	return client.Run(cp)
}

// Template replays pkg/cmd/template.go and pkg/cmd/install.go runInstall of
// Helm 4.2, in the same order so that the same error wins.
func (renderer) Template(req helmcmp.TemplateRequest) (helmcmp.TemplateResult, error) {
	var res helmcmp.TemplateResult
	client := action.NewInstall(newConfig())
	if req.KubeVersion != "" {
		kv, err := common.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return res, fmt.Errorf("invalid kube version '%s': %w", req.KubeVersion, err)
		}
		client.KubeVersion = kv
	}
	client.DryRunStrategy = action.DryRunClient // helm template's default --dry-run=client
	client.ReleaseName = "release-name"
	client.Replace = true // skip the name check, as helm template does
	client.APIVersions = common.VersionSet(req.APIVersions)
	client.IncludeCRDs = req.IncludeCRDs
	client.SkipSchemaValidation = req.SkipSchema
	client.NameTemplate = req.NameTemplate

	name, chartRef, err := client.NameAndChart([]string{req.ChartDir})
	if err != nil {
		return res, err
	}
	client.ReleaseName = name
	settings := cli.New()
	cp, err := client.LocateChart(chartRef, settings)
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
	ac, err := chart.NewAccessor(chrt)
	if err != nil {
		return res, err
	}
	if t := ac.MetadataAsMap()["Type"]; t != "" && t != "application" {
		return res, fmt.Errorf("%s charts are not installable", t)
	}
	if ac.Deprecated() {
		res.Warnings = append(res.Warnings, "this chart is deprecated")
	}
	if deps := ac.MetaDependencies(); len(deps) > 0 {
		// Not vendored under charts/: native Argo CD would now run
		// `helm dependency build`; a CMP has no repositories, so stop here.
		if err := action.CheckDependencies(chrt, deps); err != nil {
			return res, fmt.Errorf("an error occurred while checking for chart dependencies. You may need to run 'helm dependency build' to fetch missing dependencies: %w", err)
		}
	}
	client.Namespace = req.Namespace
	if client.Namespace == "" {
		client.Namespace = settings.Namespace()
	}

	ri, err := client.Run(chrt, vals)
	rel, rerr := toV1(ri)
	if rerr != nil {
		return res, rerr
	}
	if err != nil {
		if rel != nil {
			return res, fmt.Errorf("%w\n\nUse --debug flag to render out invalid YAML", err)
		}
		return res, err
	}
	var out bytes.Buffer
	fmt.Fprintln(&out, strings.TrimSpace(rel.Manifest))
	for _, h := range rel.Hooks {
		if req.SkipTests && slices.Contains(h.Events, release.HookTest) {
			continue
		}
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	res.Manifests = out.String()
	return res, nil
}

// toV1 is pkg/cmd releaserToV1Release.
func toV1(r any) (*release.Release, error) {
	switch r := r.(type) {
	case release.Release:
		return &r, nil
	case *release.Release:
		return r, nil
	case nil:
		return nil, nil
	default:
		return nil, errors.New(fmt.Sprintf("unsupported release type: %T", r))
	}
}
