package plugins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Plan is what a run loads: its plugins, the bindings of roles to them, the
// programs and images built for them, and the checks of its profile. The
// CLI and the certify library both make it with Prepare, so a run and an
// author's go test bind and build the same way.
type Plan struct {
	Dirs []string
	// Plugins are the plugins of Dirs, loaded and validated once.
	Plugins  []argocd.Plugin
	Bindings []conformance.Binding
	// ToolsReady builds the programs that depend on the Argo CD version
	// (environment.Config.ToolsReady); nil outside a checkout.
	ToolsReady ToolsReady
	// Bin is the folder of the plugin programs built for this run ("" when
	// none were: outside a checkout).
	Bin string
	// Images are the witness images to build once Bin is.
	Images []ImageBuild
	// Checks are the checks of the run's profile.
	Checks []conformance.Check
}

// ToolsReady is environment.Config.ToolsReady: work done once the Argo CD
// version, and so its Helm, is known.
type ToolsReady = func(context.Context, *toolchain.Set, *environment.Config) error

// Options say which plugins a run binds and where it builds them.
type Options struct {
	// Root is this project's checkout, "" outside one: the reference
	// plugins and witnesses are built from it.
	Root string
	// Subject, when set, makes a certification of that one binding (the
	// plugin profile) instead of a catalogue run of the reference plugins.
	Subject *conformance.Binding
	// Overrides bind roles to other plugin folders (--plugin ROLE=DIR);
	// Images, to the plugins images ship (--plugin-image ROLE=REF).
	Overrides, Images map[string]string
	// SelfTest adds every witness of Profile under plugins/broken.
	SelfTest bool
	Profile  string
	// Runtime is the environment's runtime: on kind the Helm plugin runs
	// from an image built for the version's Helm.
	Runtime string
	// Output is the run's folder: programs go to <Output>/bin, images'
	// plugin.yaml to <Output>/plugin-images.
	Output string
	// Prebuilt is a folder where a parent run built the programs and
	// images already (a share of a parallel run): nothing is built again.
	Prebuilt string
	// PluginPath is put before the built programs on the plugins' PATH.
	PluginPath []string
	Progress   io.Writer
}

// Prepare plans a run's plugins and builds what they need; it returns the
// plan and the plugins' PATH.
func Prepare(ctx context.Context, o Options) (*Plan, []string, error) {
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	root := o.Root
	var plan *Plan
	var err error
	helpersOnly := false
	if o.Subject != nil {
		plan, err = CertifyPlan(root, *o.Subject, o.SelfTest)
		// The subject brings its own programs: of ours, only what a
		// cluster runs beside Argo CD (the git server's container, a
		// plugin service's bridge) is built, and only for a cluster.
		helpersOnly = !o.SelfTest
		if helpersOnly && !environment.InCluster(o.Runtime) {
			root = ""
		}
	} else if plan, err = CataloguePlan(root, o.Overrides, o.SelfTest, o.Profile); err == nil {
		err = plan.BindImages(ctx, o.Images, o.Output)
	}
	if err != nil {
		return nil, nil, err
	}
	path := slices.Clone(o.PluginPath)
	if o.Prebuilt != "" {
		plan.Bin = o.Prebuilt
		if o.Subject == nil { // a certification builds no Helm plugin
			plan.ToolsReady = HelmBuilt(o.Prebuilt)
		}
		if err := BuildWitnessImages(ctx, plan.Images, o.Prebuilt, true, progress); err != nil {
			return nil, nil, err
		}
		return plan, append(path, o.Prebuilt), nil
	}
	if root == "" {
		return plan, path, nil
	}
	bin, err := filepath.Abs(filepath.Join(o.Output, "bin"))
	if err != nil {
		return nil, nil, err
	}
	if helpersOnly {
		fmt.Fprintln(progress, "plugins: building the programs the cluster runs beside Argo CD")
		if err := BuildHelpers(ctx, root, bin); err != nil {
			return nil, nil, err
		}
		plan.Bin = bin
		return plan, path, nil
	}
	fmt.Fprintln(progress, "plugins: building the reference plugin programs")
	if err := BuildPrograms(ctx, root, bin); err != nil {
		return nil, nil, err
	}
	if err := BuildWitnessImages(ctx, plan.Images, bin, false, progress); err != nil {
		return nil, nil, err
	}
	plan.Bin = bin
	if o.Subject == nil {
		// The Helm plugin is built per Argo CD version; certify has no use for it.
		plan.ToolsReady = HelmBuildFor(root, bin, progress)
		if environment.InCluster(o.Runtime) {
			plan.ToolsReady = plan.helmImage(root, o.Output, plan.ToolsReady, progress)
		}
	}
	return plan, append(path, bin), nil
}

// CataloguePlan binds roles to plugins: the reference plugins under root,
// overridden by overrides (role: folder), and with selfTest every witness
// of profile under plugins/broken.
func CataloguePlan(root string, overrides map[string]string, selfTest bool, profile string) (*Plan, error) {
	plan := &Plan{Checks: conformance.Catalogue()}
	main := conformance.Binding{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{}}
	for _, role := range Roles() {
		dir := filepath.Join(root, Reference()[role])
		if o, ok := overrides[string(role)]; ok {
			dir = o
		} else if root == "" {
			continue
		}
		sub, err := LoadSubject(role, dir)
		if err != nil {
			return nil, err
		}
		main.Subjects[role] = sub
		if sub.Extension == nil {
			plan.Dirs = append(plan.Dirs, dir)
			plan.Plugins = append(plan.Plugins, sub.Plugin)
		}
	}
	for role := range overrides {
		if _, ok := Reference()[conformance.Role(role)]; !ok {
			return nil, fmt.Errorf("--plugin %s=...: unknown role %q (roles: %s)", role, role, RoleList())
		}
	}
	plan.Bindings = append(plan.Bindings, main)
	if !selfTest {
		return plan, nil
	}
	if root == "" {
		return nil, errors.New("--self-test needs the repository checkout (plugins/broken)")
	}
	return plan, plan.AddWitnesses(root, profile)
}

// CertifyPlan binds the subject of a certification and, with selfTest, the
// witnesses of its profile: the plugin profile's, or for an extension the
// catalogue's witnesses of role extension.
func CertifyPlan(root string, subject conformance.Binding, selfTest bool) (*Plan, error) {
	_, isExtension := subject.Subjects[conformance.RoleExtension]
	plan := &Plan{Checks: conformance.Profile()}
	if isExtension {
		plan.Checks = conformance.ExtensionProfile()
	}
	plan.Add(subject)
	if !selfTest {
		return plan, nil
	}
	if root == "" {
		return nil, errors.New("--self-test needs the repository checkout (plugins/broken)")
	}
	if !isExtension {
		return plan, plan.AddWitnesses(root, ProfilePlugin)
	}
	all := &Plan{}
	if err := all.AddWitnesses(root, ProfileCatalogue); err != nil {
		return nil, err
	}
	for _, b := range all.Bindings {
		if _, ok := b.Subjects[conformance.RoleExtension]; ok {
			plan.Add(b)
		}
	}
	return plan, nil
}

// Add adds a binding and its plugins.
func (p *Plan) Add(b conformance.Binding) {
	p.Bindings = append(p.Bindings, b)
	for _, role := range slices.Sorted(maps.Keys(b.Subjects)) {
		if b.Subjects[role].Extension != nil {
			continue // no plugin runs for an extension
		}
		p.Plugins = append(p.Plugins, b.Subjects[role].Plugin)
		p.Dirs = append(p.Dirs, b.Subjects[role].Plugin.Dir)
	}
}

// AddWitnesses adds every witness of profile under root's plugins/broken.
func (p *Plan) AddWitnesses(root, profile string) error {
	files, err := WitnessFiles(root)
	if err != nil {
		return err
	}
	for _, f := range files {
		l, err := LoadWitness(f)
		if err != nil {
			return err
		}
		if l.Profile != profile {
			continue
		}
		if l.Image != nil {
			p.Images = append(p.Images, *l.Image)
		}
		p.Add(l.Binding)
	}
	return nil
}

// Extensions are the extensions the plan's bindings judge, installed with
// Argo CD.
func (p *Plan) Extensions() []*extension.Extension {
	var out []*extension.Extension
	for _, b := range p.Bindings {
		for _, role := range slices.Sorted(maps.Keys(b.Subjects)) {
			if s := b.Subjects[role]; s.Extension != nil {
				out = append(out, s.Extension)
			}
		}
	}
	return out
}

// KeepBindings narrows a plan to some bindings and the plugins they use.
func (p *Plan) KeepBindings(names map[string]bool) {
	p.Bindings = slices.DeleteFunc(p.Bindings, func(b conformance.Binding) bool { return !names[b.Name] })
	used := map[string]bool{}
	for _, b := range p.Bindings {
		for _, s := range b.Subjects {
			used[s.Plugin.Dir] = true
		}
	}
	p.Plugins = slices.DeleteFunc(p.Plugins, func(pl argocd.Plugin) bool { return !used[pl.Dir] })
}

// SamplePlugin is the plain role's plugin when it runs from an image: the
// kind bring-up syncs a sample application through it.
func (p *Plan) SamplePlugin() string {
	if p == nil {
		return ""
	}
	for _, b := range p.Bindings {
		if s, ok := b.Subjects[conformance.RolePlain]; ok && !b.Witness && s.Plugin.Image != "" {
			return s.Plugin.FullName()
		}
	}
	return ""
}

// Program is a static program the plugin build makes, "" when none: the
// kind runtime runs cmp-gitserver (the sources) and cmp-bridge (plugin
// services) from images of their own.
func (p *Plan) Program(name string) string {
	if p == nil || p.Bin == "" {
		return ""
	}
	return filepath.Join(p.Bin, name)
}
