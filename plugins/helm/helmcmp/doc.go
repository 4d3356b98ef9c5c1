// Package helmcmp is cmp-helm: an Argo CD Config Management Plugin that does
// what Argo CD's native Helm support does, on the Helm Go SDK of the Argo CD
// version under test, so that the conformance suite can compare a CMP with
// native Helm output for output.
//
// # Builds
//
// Argo CD pins Helm per release: v2.14.21 ships Helm 3.16.3, v3.2.11 Helm
// 3.18.4, v3.5.7 Helm 4.2.1, v3.6.1 Helm 4.3.1. The Helm 3 build is this
// module (plugins/helm, helm.sh/helm/v3 v3.16.3, the pin of Argo CD v2.14.21, with
// every requirement at that Helm's own version, so that its compiled packages
// are the helm build's):
//
//	cd plugins/helm && CGO_ENABLED=0 go build -o cmp-helm ./cmd/cmp-helm
//
// The Helm 4 build is the plugins/helm/helm4 module (helm.sh/helm/v4 v4.3.1, the pin of Argo CD v3.6.1),
// which takes this package through a replace directive:
//
//	cd plugins/helm/helm4 && CGO_ENABLED=0 go build -tags helm4 -o cmp-helm ./cmd/cmp-helm
//
// Both SDKs cannot share one go.mod: minimal version selection would lift
// the Helm 3 build onto Helm 4's Kubernetes libraries (v0.36 instead of
// v0.33), and `go mod tidy` reads every build tag, so a helm4-tagged file in
// this module would pull Helm 4 in regardless. The only seam is the Renderer
// interface (render.go): render_helm3.go here, helm4/render_helm4.go there.
// The helm4 tag drops render_helm3.go so the Helm 4 binary links one SDK.
//
// # Native behaviour reproduced (Argo CD v3.2.11, unchanged in v3.5.7)
//
// generate replays reposerver/repository helmTemplate() and util/helm
// cmd.go template(), which run, in the application folder:
//
//	helm template . --name-template <release> [--namespace <ns>]
//	  [--kube-version <v>] --set k=v... --set-string k=v... --set-file k=path...
//	  --values <file>... [--values <inline values file>]
//	  --api-versions <v>... --include-crds [--skip-schema-validation] [--skip-tests]
//
// where:
//
//   - release: ARGOCD_APP_NAME without its "<namespace>_" prefix, unless the
//     release-name parameter is set; it is a name template, as natively.
//   - namespace: ARGOCD_APP_NAMESPACE, or the namespace parameter.
//   - KUBE_VERSION is what Argo CD computes for the cluster ("1.34", from
//     discovery's major.minor through k8s ParseGeneric); it is parsed again
//     the same way and handed to helm as --kube-version. KUBE_API_VERSIONS,
//     comma separated, are the --api-versions.
//   - values: the chart's values.yaml, then values-files in order, then the
//     inline values (written to a temporary file, as natively), then
//     helm-parameters as --set, helm-string-parameters as --set-string,
//     helm-file-parameters as --set-file. --set types its values: true/false,
//     null and integers without a leading zero become YAML types; floats stay
//     strings. Values are escaped like Argo CD's cleanSetParameters (commas are
//     literal unless the value is a {a,b} list) and get Argo CD's envsubst of
//     the build environment ($ARGOCD_APP_NAME..., other $VARs become "", $$ is
//     "$"). Nothing is ever executed: values stay data.
//   - value file paths are relative to the app folder, absolute ones to the
//     repository root; none may leave the repository; URLs are refused.
//   - CRDs are included (--include-crds) unless skip-crds; hooks are printed
//     after the manifests as helm template does, test hooks unless skip-tests.
//   - dependencies must be vendored under charts/. Native Argo CD would run
//     `helm dependency build` on "missing in charts/"; a CMP has no repository
//     credentials, so cmp-helm fails with helm's own message instead.
//
// The output is byte for byte what `helm template` of the same Helm version
// prints (same SDK code path, same printing); errors are helm's messages,
// printed as the helm CLI does ("Error: ..."), with an empty stdout and exit
// code 1. Defaults that the official helm release stamps at link time
// (default Kubernetes version, .Capabilities.HelmVersion) are set to the
// released values.
//
// parameters replays populateHelmAppDetails(): values-files announces the
// available value files (walkHelmValueFilesInPath: any *values*.yaml|yml below
// the app folder) as its default array, values an empty string, and
// helm-parameters the leaves of values.yaml merged with the selected value
// files, flattened by Argo CD's flatVals ("a.b", "list[0]", %v of JSON
// numbers, so 1000000 is "1e+06").
package helmcmp
