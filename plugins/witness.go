package plugins

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Witness is broken/<name>/witness.yaml: which role a broken plugin stands
// in for and which checks it must fail, each for a stated reason.
type Witness struct {
	Role     conformance.Role `json:"role"`
	MustFail []string         `json:"mustFail"`
	// FailsWith holds, for each check of MustFail, a regular expression its
	// failure message must match: how the witness must fail it. A key
	// ID@constraint (DISC-009@<3.1.0) holds the reason on the versions that
	// meet the constraint, where it differs; the plain ID, on the others.
	FailsWith map[string]string `json:"failsWith"`
	Why       string            `json:"why"`
	// Bridge replaces cmp-bridge for a service witness: program and arguments.
	Bridge []string `json:"bridge,omitempty"`
	// Profile "upgrade" makes it a witness of upgrade runs (the UPG checks)
	// only; a witness without one serves the catalogue's runs.
	Profile string `json:"profile,omitempty"`
	// Image makes the witness ship as an image built from its folder's
	// Dockerfile (cmp-conformance/broken-<folder>:dev) and run as a sidecar:
	// it proves the checks that look inside a plugin image's container.
	Image bool `json:"image,omitempty"`
	// ImageTools are static host programs (found on PATH) put into the
	// image's build context by name, e.g. busybox for a shell.
	ImageTools []string `json:"imageTools,omitempty"`
	// RepoServer are ARGOCD_* settings of the repo-server while the
	// witness's checks run: a witness that is an Argo CD with a protection
	// turned off (the plugin is then a reference plugin under its own name).
	RepoServer map[string]string `json:"repoServer,omitempty"`
	// Controller are ARGOCD_* settings of the application controller, the
	// same way (hydrator-off: ARGOCD_HYDRATOR_ENABLED).
	Controller map[string]string `json:"controller,omitempty"`
	// RBAC are keys of argocd-rbac-cm set while the witness's checks run
	// (policy.default: role:admin lets every user do everything): a witness
	// that is an Argo CD whose RBAC protects nothing.
	RBAC map[string]string `json:"rbac,omitempty"`
}

// ImageBuild is an image a run builds before it starts: a witness that
// ships as an image.
type ImageBuild struct {
	Dir, Tag string
	Tools    []string
}

// Loaded is a witness read and validated: its binding, its profile, the
// image to build when it ships as one, and why it is broken.
type Loaded struct {
	Binding conformance.Binding
	Profile string
	Image   *ImageBuild
	Why     string
}

// WitnessFiles are the witness.yaml files under root's plugins/broken, in
// name order.
func WitnessFiles(root string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, "plugins", "broken", "*", "witness.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no witness under %s/plugins/broken", root)
	}
	slices.Sort(files)
	return files, nil
}

// LoadWitness reads a witness; every error names the file and what to fix.
func LoadWitness(file string) (Loaded, error) {
	l, err := readWitness(file)
	if err != nil {
		return Loaded{}, fmt.Errorf("%s: %w", file, err)
	}
	return l, nil
}

func readWitness(file string) (Loaded, error) {
	var w Witness
	data, err := os.ReadFile(file)
	if err != nil {
		return Loaded{}, err
	}
	if err := yaml.UnmarshalStrict(data, &w); err != nil {
		return Loaded{}, err
	}
	if w.Profile == "" {
		w.Profile = ProfileCatalogue
	}
	if err := w.validProfile(); err != nil {
		return Loaded{}, err
	}
	dir := filepath.Dir(file)
	if w.Role.IsExtension() {
		return extensionWitness(w, dir)
	}
	p, err := argocd.LoadPlugin(dir)
	if err != nil {
		return Loaded{}, err
	}
	switch {
	case w.Role == conformance.RoleService:
		p.Service = &argocd.Service{Bridge: w.Bridge}
	case len(w.Bridge) > 0:
		return Loaded{}, fmt.Errorf("bridge is for role %s only (role is %s)", conformance.RoleService, w.Role)
	}
	p.Env = append(p.Env, RoleEnv(w.Role)...)
	failsWith, err := w.reasons()
	if err != nil {
		return Loaded{}, err
	}
	l := Loaded{Profile: w.Profile, Why: w.Why}
	switch {
	case w.Image && w.Role == conformance.RoleService:
		return Loaded{}, fmt.Errorf("image: the %s role is served over the network, not as a sidecar", w.Role)
	case w.Image:
		if _, err := os.Stat(filepath.Join(dir, "Dockerfile")); err != nil {
			return Loaded{}, fmt.Errorf("image: true needs a Dockerfile beside it: %w", err)
		}
		p.Image = "cmp-conformance/broken-" + filepath.Base(dir) + ":dev"
		l.Image = &ImageBuild{Dir: dir, Tag: p.Image, Tools: w.ImageTools}
	case len(w.ImageTools) > 0:
		return Loaded{}, errors.New("imageTools needs image: true")
	}
	b := conformance.Binding{Name: "broken/" + filepath.Base(dir), Witness: true, MustFail: w.MustFail, FailsWith: failsWith}
	if b.RepoServerSettings, err = argoCDSettings("repoServer", w.RepoServer); err != nil {
		return Loaded{}, err
	}
	if b.ControllerSettings, err = argoCDSettings("controller", w.Controller); err != nil {
		return Loaded{}, err
	}
	if b.RBACSettings, err = w.rbacSettings(); err != nil {
		return Loaded{}, err
	}
	b.Subjects = map[conformance.Role]conformance.Subject{w.Role: {Role: w.Role, Plugin: p}}
	if w.Role == conformance.RoleSubject {
		// A witness of the plugin profile is judged on samples of its own.
		cert, err := conformance.LoadCertification(filepath.Join(dir, "certify.yaml"))
		if err != nil {
			return Loaded{}, err
		}
		b.Certification, b.Subjects = cert, cert.Bind(b.Name, p).Subjects
	}
	l.Binding = b
	return l, nil
}

// extensionWitness is a witness of RoleExtension: an extension folder
// beside its witness.yaml, and nothing of a plugin's.
func extensionWitness(w Witness, dir string) (Loaded, error) {
	if len(w.Bridge) > 0 || w.Image || len(w.ImageTools) > 0 || len(w.RepoServer) > 0 || len(w.Controller) > 0 {
		return Loaded{}, fmt.Errorf("a witness of role %s is an extension folder: bridge, image, imageTools, repoServer and controller are for plugins", w.Role)
	}
	sub, err := LoadSubject(w.Role, dir)
	if err != nil {
		return Loaded{}, err
	}
	failsWith, err := w.reasons()
	if err != nil {
		return Loaded{}, err
	}
	rbac, err := w.rbacSettings()
	if err != nil {
		return Loaded{}, err
	}
	b := conformance.Binding{Name: "broken/" + filepath.Base(dir), Witness: true, MustFail: w.MustFail, FailsWith: failsWith,
		Subjects: map[conformance.Role]conformance.Subject{w.Role: sub}, RBACSettings: rbac}
	return Loaded{Profile: w.Profile, Why: w.Why, Binding: b}, nil
}

// validProfile checks the profile against the role and the checks of
// mustFail: a witness runs in its profile's runs only, so the checks it
// must fail must be checks those runs have.
func (w Witness) validProfile() error {
	switch w.Profile {
	case ProfileCatalogue, ProfileUpgrade:
		if _, ok := Reference()[w.Role]; !ok {
			return fmt.Errorf("unknown role %q (roles: %s; %s for profile %s)", w.Role, RoleList(), conformance.RoleSubject, ProfilePlugin)
		}
	case ProfilePlugin:
		if w.Role != conformance.RoleSubject {
			return fmt.Errorf("a witness of profile %s stands in for role %s, not %q", ProfilePlugin, conformance.RoleSubject, w.Role)
		}
	default:
		return fmt.Errorf("unknown profile %q (want %q, %q or none)", w.Profile, ProfileUpgrade, ProfilePlugin)
	}
	known, area := map[string]bool{}, map[string]conformance.Area{}
	for _, c := range conformance.All() {
		known[c.ID], area[c.ID] = true, c.Area
	}
	if err := conformance.ValidateMustFail(w.MustFail, known); err != nil {
		return err
	}
	for _, entry := range w.MustFail {
		id, _, _ := strings.Cut(entry, "@")
		if ProfileArea(w.Profile) != ProfileArea(ProfileOf(area[id])) {
			return fmt.Errorf("mustFail names %s (area %s), which runs of profile %q do not have", id, area[id], w.Profile)
		}
	}
	return nil
}

// argoCDSettings turns a witness's repoServer or controller map into
// KEY=VALUE settings, in name order.
func argoCDSettings(field string, m map[string]string) ([]string, error) {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !argocd.IsSetting(k) {
			return nil, fmt.Errorf("%s: %q is not a setting (want an ARGOCD_* variable such as ARGOCD_REPO_SERVER_ALLOW_OUT_OF_BOUNDS_SYMLINKS or ARGOCD_HYDRATOR_ENABLED)", field, k)
		}
		out = append(out, k+"="+m[k])
	}
	return out, nil
}

// rbacKey is a key of argocd-rbac-cm that Argo CD reads.
var rbacKey = regexp.MustCompile(`^(policy\.default|policy\.matchMode|scopes|policy(\.[A-Za-z0-9_.-]+)?\.csv)$`)

// rbacSettings validates rbac: keys Argo CD reads from argocd-rbac-cm.
func (w Witness) rbacSettings() (map[string]string, error) {
	for k := range w.RBAC {
		if !rbacKey.MatchString(k) {
			return nil, fmt.Errorf("rbac: %q is not a key of argocd-rbac-cm (want policy.default, policy.csv, policy.<name>.csv, policy.matchMode or scopes)", k)
		}
	}
	if len(w.RBAC) == 0 {
		return nil, nil
	}
	return maps.Clone(w.RBAC), nil
}

// reasons compiles failsWith: one pattern for every check of mustFail, and
// none for a check the witness need not fail.
func (w Witness) reasons() (map[string]*regexp.Regexp, error) {
	out := map[string]*regexp.Regexp{}
	must := map[string]bool{}
	for _, entry := range w.MustFail {
		id, _, _ := strings.Cut(entry, "@")
		must[id] = true
	}
	for id := range must {
		declared := false
		for key := range w.FailsWith {
			if kid, _, _ := strings.Cut(key, "@"); kid == id {
				declared = true
			}
		}
		if !declared {
			return nil, fmt.Errorf("failsWith has no pattern for %s: say how the witness must fail it (a regular expression over its failure message)", id)
		}
	}
	for key, pattern := range w.FailsWith {
		id, constraint, versioned := strings.Cut(key, "@")
		if !must[id] {
			return nil, fmt.Errorf("failsWith names %s, which is not in mustFail", id)
		}
		if _, err := semver.NewConstraint(constraint); versioned && err != nil {
			return nil, fmt.Errorf("failsWith %s: bad version constraint: %w", key, err)
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, fmt.Errorf("failsWith %s: %w", key, err)
		}
		out[key] = re
	}
	return out, nil
}
