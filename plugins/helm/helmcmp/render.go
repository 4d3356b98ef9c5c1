package helmcmp

// Renderer is the one seam between this package and a Helm SDK major version.
// render_helm3.go (build tag !helm4, this module) and helm4/render_helm4.go
// (build tag helm4, its own module so that Helm 4's Kubernetes libraries never
// enter this go.mod) implement it by replaying what the helm CLI of that major
// does, so that the output is byte-for-byte that of the helm binary.
type Renderer interface {
	// Version is the Helm SDK version compiled in, e.g. "v3.18.4".
	Version() string
	// ShowValues returns what `helm show values <chartDir>` prints.
	ShowValues(chartDir string) (string, error)
	// Template returns what `helm template` prints on stdout for req. The
	// error text is what helm prints after "Error: ".
	Template(req TemplateRequest) (TemplateResult, error)
}

// TemplateRequest holds the `helm template` flags Argo CD passes (see
// util/helm/cmd.go in Argo CD), already resolved: paths are absolute and
// --set entries are in their final "key=value" form.
type TemplateRequest struct {
	ChartDir     string   // the chart argument ("." natively, with the app folder as working directory)
	NameTemplate string   // --name-template
	Namespace    string   // --namespace; "" leaves helm's own default
	KubeVersion  string   // --kube-version; "" leaves helm's own default
	APIVersions  []string // --api-versions, in order
	ValueFiles   []string // --values, in order (the inline values file last)
	Set          []string // --set
	SetString    []string // --set-string
	SetFile      []string // --set-file
	IncludeCRDs  bool     // --include-crds
	SkipSchema   bool     // --skip-schema-validation
	SkipTests    bool     // --skip-tests
}

// TemplateResult is what the helm CLI would have printed: the manifests on
// stdout and its warnings on stderr.
type TemplateResult struct {
	Manifests string
	Warnings  []string
}

// Args is the `helm template` command line Argo CD would run for req (from
// its working directory, the chart folder), in Argo CD's flag order. Tests
// replay it against a helm binary; nothing here ever executes it.
func (req TemplateRequest) Args() []string {
	args := []string{"template", req.ChartDir, "--name-template", req.NameTemplate}
	if req.Namespace != "" {
		args = append(args, "--namespace", req.Namespace)
	}
	if req.KubeVersion != "" {
		args = append(args, "--kube-version", req.KubeVersion)
	}
	for _, s := range req.Set {
		args = append(args, "--set", s)
	}
	for _, s := range req.SetString {
		args = append(args, "--set-string", s)
	}
	for _, s := range req.SetFile {
		args = append(args, "--set-file", s)
	}
	for _, f := range req.ValueFiles {
		args = append(args, "--values", f)
	}
	for _, v := range req.APIVersions {
		args = append(args, "--api-versions", v)
	}
	if req.IncludeCRDs {
		args = append(args, "--include-crds")
	}
	if req.SkipSchema {
		args = append(args, "--skip-schema-validation")
	}
	if req.SkipTests {
		args = append(args, "--skip-tests")
	}
	return args
}
